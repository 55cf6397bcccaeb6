"""Disagreements, adjudication and final verdict sources."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.records import (
    Adjudication,
    DesignRecords,
    Item,
    ItemJudgment,
    first_submitted,
    latest_submitted,
)
from abp_tui.analysis.verdicts import decide
from abp_tui.errors import AbpError
from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment, StudyDesign
from abp_tui.models.builtin_rubrics import AFP_V01
from abp_tui.services.adjudicating import adjudicate, disagreements, final_verdicts
from abp_tui.services.designing import create_design
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store.judging import BlindingError
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


# -- the rules on plain records, with no database --------------------------------------------------
def _records(judgments: list[ItemJudgment]) -> DesignRecords:
    return DesignRecords(
        design=StudyDesign(study="s", name="m", seed=1, reviewers=["a", "b"]),
        rubric=AFP_V01,
        seed=1,
        items=(
            Item(pk=10, code="P-ONE", runs=(1, 2), conditions=("A", "C")),
            Item(pk=11, code="P-TWO", runs=(3, 4), conditions=("A", "C")),
        ),
        judgments=tuple(judgments),
        adjudications=(),
    )


def _by_run(judgment: Judgment, placement: dict[str, int]) -> Judgment:
    responses = {str(placement[k]): v for k, v in judgment.responses.items()}
    return judgment.model_copy(update={"responses": responses})


def _judged(reviewer: str, item: int, revision: int, judgment: Judgment) -> ItemJudgment:
    runs = {10: (1, 2), 11: (3, 4)}[item]
    placement = {"1": runs[0], "2": runs[1]}
    return ItemJudgment(reviewer, item, _by_run(judgment, placement), placement, revision)


def test_latest_submission_decides_verdicts_and_the_first_is_kept_for_agreement() -> None:
    first = _judged("b", 10, 1, _j(0, 0, PreferenceChoice.RESPONSE_2))
    revised = _judged("b", 10, 2, _j(2, 2, PreferenceChoice.TIE))
    records = _records(
        [
            revised,  # the order records arrive in does not matter
            _judged("a", 10, 1, _j(2, 2, PreferenceChoice.TIE)),
            first,
            _judged("a", 11, 1, _j(2, 1, PreferenceChoice.RESPONSE_1)),
        ]
    )
    assert latest_submitted(records.judgments)[10] == [records.judgments[1], revised]
    assert first_submitted(records.judgments)[10] == [records.judgments[1], first]
    decided = decide(records)
    assert decided.disagreements == []
    assert [(v.run_pk, v.source, v.judgments, v.items) for v in decided.verdicts] == [
        (1, "unanimous", 2, ("P-ONE",)),
        (2, "unanimous", 2, ("P-ONE",)),
        (3, "single review", 1, ("P-TWO",)),
        (4, "single review", 1, ("P-TWO",)),
    ]
    assert decided.verdicts[3].scores["task_correctness"] == 1.0


def test_an_adjudication_decides_a_disputed_run() -> None:
    records = _records(
        [
            _judged("a", 10, 1, _j(2, 2, PreferenceChoice.RESPONSE_1)),
            _judged("b", 10, 1, _j(0, 0, PreferenceChoice.RESPONSE_2)),
        ]
    )
    (dispute,) = decide(records).disagreements
    assert (dispute.code, dispute.reviewers, dispute.adjudicated) == ("P-ONE", ["a", "b"], False)
    assert "preferences conflict" in dispute.reasons
    assert {v.source for v in decide(records).verdicts} == {"unresolved"}
    final = _by_run(_j(1, 2, PreferenceChoice.RESPONSE_2), {"1": 1, "2": 2})
    older = _by_run(_j(0, 0, PreferenceChoice.RESPONSE_2), {"1": 1, "2": 2})
    adjudicated = dataclasses.replace(
        records,
        adjudications=(
            Adjudication(10, "carol", 2, final, "Run 1 misses one requirement."),
            Adjudication(10, "carol", 1, older, "First pass."),
        ),
    )
    decided = decide(adjudicated)
    assert decided.disagreements[0].adjudicated
    assert [(v.source, v.scores["task_correctness"]) for v in decided.verdicts] == [
        ("adjudicated", 1.0),
        ("adjudicated", 2.0),
    ]
    assert decided.adjudicated_by[1].note == "Run 1 misses one requirement."


def test_verdict_rules_load_without_statistics_or_the_ui() -> None:
    code = (
        "import sys, abp_tui.services.adjudicating, abp_tui.store.judging, "
        "abp_tui.analysis.verdicts; "
        "print(sorted(m for m in ('scipy', 'textual') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
