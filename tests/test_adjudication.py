"""Disagreements, adjudication and final verdict sources."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.adjudication import adjudicate, disagreements, final_verdicts
from abp_tui.errors import AbpError
from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment, StudyDesign
from abp_tui.review import ReviewSession
from abp_tui.store.judging import BlindingError
from abp_tui.studies import create_design
from tests.test_review import AFP_DIMS, _study

GATE = {
    k: True
    for k in ("consistent", "visible", "same_requirement", "invariant_assertions", "observable")
}


def _j(
    scores1: int, scores2: int, pref: PreferenceChoice, fatal1: tuple[str, ...] = ()
) -> Judgment:
    def resp(score: int, fatal: tuple[str, ...] = ()) -> ResponseJudgment:
        return ResponseJudgment(
            scores={d: score for d in AFP_DIMS},
            rationales={d: "gap" for d in AFP_DIMS} if score < 2 else {},
            fatal_hits=fatal,
        )

    return Judgment(
        responses={"1": resp(scores1, fatal1), "2": resp(scores2)},
        preference=pref,
        justification="because",
        validity=GATE,
    )


def _setup(
    tmp_path: Path, db: sqlite_utils.Database
) -> tuple[int, ReviewSession, ReviewSession, list[str]]:
    _study(tmp_path, db)
    pk = create_design(
        db,
        StudyDesign(
            study="s",
            name="m",
            seed=3,
            contrasts=[("C", "A")],
            reviewers=["a", "b"],
            reviewers_per_item=2,
        ),
    ).pk
    a, b = ReviewSession(db, pk, "a"), ReviewSession(db, pk, "b")
    return pk, a, b, sorted(r.code for r in a.queue())


def _flipped(session: ReviewSession, code: str) -> bool:
    return next(r.flipped for r in session.queue() if r.code == code)


def test_agreeing_reviewers_are_unanimous_and_disagreeing_ones_unresolved(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = _setup(tmp_path, db)
    # Item 0: both give everything 2 and tie -> unanimous.
    a.save(codes[0], _j(2, 2, PreferenceChoice.TIE), 1, submit=True)
    b.save(codes[0], _j(2, 2, PreferenceChoice.TIE), 1, submit=True)
    # Item 1: a prefers what it sees as Response 1, b prefers the same run (shown where b sees
    # it) -> no preference conflict; but a marks a fatal hit -> states and fatal flags differ.
    same_run_for_b = (
        PreferenceChoice.RESPONSE_2
        if _flipped(a, codes[1]) != _flipped(b, codes[1])
        else PreferenceChoice.RESPONSE_1
    )
    a.save(codes[1], _j(2, 2, PreferenceChoice.RESPONSE_1, fatal1=("Fatal P02",)), 1, submit=True)
    b.save(codes[1], _j(2, 2, same_run_for_b), 1, submit=True)
    found = {d.code: d for d in disagreements(db, pk)}
    assert set(found) == {codes[1]}
    reasons = found[codes[1]].reasons
    assert "fatal flags differ" in reasons
    assert any(r.startswith("result states differ") for r in reasons)
    assert "preferences conflict" not in reasons
    sources = {v.source for v in final_verdicts(db, pk)}
    assert sources == {"unanimous", "unresolved"}


def test_conflicting_preferences_and_score_gaps_are_disagreements(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = _setup(tmp_path, db)
    other_run_for_b = (
        PreferenceChoice.RESPONSE_1
        if _flipped(a, codes[0]) != _flipped(b, codes[0])
        else PreferenceChoice.RESPONSE_2
    )
    a.save(codes[0], _j(2, 2, PreferenceChoice.RESPONSE_1), 1, submit=True)
    b.save(codes[0], _j(0, 0, other_run_for_b), 1, submit=True)
    (d,) = disagreements(db, pk)
    assert "preferences conflict" in d.reasons
    assert "Task correctness differs by 2" in d.reasons


def test_adjudication_keeps_originals_and_sets_the_source(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = _setup(tmp_path, db)
    a.save(codes[0], _j(2, 2, PreferenceChoice.RESPONSE_1, fatal1=("Fatal P01",)), 1, submit=True)
    with pytest.raises(BlindingError):
        adjudicate(db, pk, codes[0], "b", _j(2, 2, PreferenceChoice.TIE), {"1": 1, "2": 2}, "note")
    b.save(codes[0], _j(2, 2, PreferenceChoice.TIE), 1, submit=True)
    item = db.execute("SELECT run_a_pk, run_b_pk FROM items WHERE code = ?", [codes[0]]).fetchone()
    placement = {"1": item[1], "2": item[0]}
    with pytest.raises(AbpError, match="needs a note"):
        adjudicate(db, pk, codes[0], "carol", _j(2, 2, PreferenceChoice.TIE), placement, " ")
    adjudicate(
        db,
        pk,
        codes[0],
        "carol",
        _j(1, 2, PreferenceChoice.RESPONSE_2),
        placement,
        "Fatal hit not supported by the output.",
    )
    verdicts = {v.run_pk: v for v in final_verdicts(db, pk)}
    assert verdicts[item[1]].source == "adjudicated"
    assert verdicts[item[1]].scores["task_correctness"] == 1.0
    assert verdicts[item[0]].result_state is not None
    assert disagreements(db, pk)[0].adjudicated
    assert db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == 2
    with pytest.raises(Exception, match="append-only"):
        db.execute("DELETE FROM adjudications")
