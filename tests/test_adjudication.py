"""Disagreements, adjudication and final verdict sources."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.records import first_submitted, latest_submitted
from abp_tui.analysis.verdicts import decide
from abp_tui.errors import AbpError
from abp_tui.models import (
    AdjudicationRevision,
    DesignRecords,
    DisagreementRules,
    Item,
    Judgment,
    JudgmentRevision,
    PreferenceChoice,
    StudyDesign,
)
from abp_tui.models.builtin_rubrics import AFP_V01
from abp_tui.services.adjudicating import adjudicate, disagreements, final_verdicts
from abp_tui.store.judging import BlindingError
from tests.factories import afp_judgment, flipped, two_reviewer_design


def test_agreeing_reviewers_are_unanimous_and_disagreeing_ones_unresolved(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    # Item 0: both give everything 2 and tie -> unanimous.
    a.save(codes[0], afp_judgment(2, 2, PreferenceChoice.TIE), 1, submit=True)
    b.save(codes[0], afp_judgment(2, 2, PreferenceChoice.TIE), 1, submit=True)
    # Item 1: a prefers what it sees as Response 1, b prefers the same run (shown where b sees
    # it) -> no preference conflict; but a marks a fatal hit -> states and fatal flags differ.
    same_run_for_b = (
        PreferenceChoice.RESPONSE_2
        if flipped(a, codes[1]) != flipped(b, codes[1])
        else PreferenceChoice.RESPONSE_1
    )
    a.save(
        codes[1],
        afp_judgment(2, 2, PreferenceChoice.RESPONSE_1, fatal1=("Fatal P02",)),
        1,
        submit=True,
    )
    b.save(codes[1], afp_judgment(2, 2, same_run_for_b), 1, submit=True)
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
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    other_run_for_b = (
        PreferenceChoice.RESPONSE_1
        if flipped(a, codes[0]) != flipped(b, codes[0])
        else PreferenceChoice.RESPONSE_2
    )
    a.save(codes[0], afp_judgment(2, 2, PreferenceChoice.RESPONSE_1), 1, submit=True)
    b.save(codes[0], afp_judgment(0, 0, other_run_for_b), 1, submit=True)
    (d,) = disagreements(db, pk)
    assert "preferences conflict" in d.reasons
    assert "Task correctness differs by 2" in d.reasons


def test_adjudication_keeps_originals_and_sets_the_source(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    a.save(
        codes[0],
        afp_judgment(2, 2, PreferenceChoice.RESPONSE_1, fatal1=("Fatal P01",)),
        1,
        submit=True,
    )
    with pytest.raises(BlindingError):
        adjudicate(
            db,
            pk,
            codes[0],
            "b",
            afp_judgment(2, 2, PreferenceChoice.TIE),
            {"1": 1, "2": 2},
            "note",
        )
    b.save(codes[0], afp_judgment(2, 2, PreferenceChoice.TIE), 1, submit=True)
    item = db.execute("SELECT run_a_pk, run_b_pk FROM items WHERE code = ?", [codes[0]]).fetchone()
    placement = {"1": item[1], "2": item[0]}
    with pytest.raises(AbpError, match="needs a note"):
        adjudicate(
            db, pk, codes[0], "carol", afp_judgment(2, 2, PreferenceChoice.TIE), placement, " "
        )
    adjudicate(
        db,
        pk,
        codes[0],
        "carol",
        afp_judgment(1, 2, PreferenceChoice.RESPONSE_2),
        placement,
        "Fatal hit not supported by the output.",
    )
    pk_of = dict(db.execute("SELECT id, pk FROM runs WHERE current = 1").fetchall())
    verdicts = {pk_of[v.run]: v for v in final_verdicts(db, pk)}
    assert verdicts[item[1]].source == "adjudicated"
    assert verdicts[item[1]].scores["task_correctness"] == 1.0
    assert verdicts[item[0]].result_state is not None
    assert disagreements(db, pk)[0].adjudicated
    assert db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == 2
    with pytest.raises(Exception, match="append-only"):
        db.execute("DELETE FROM adjudications")


# -- the rules on plain records, with no database --------------------------------------------------
_CODES = {10: "P-ONE", 11: "P-TWO"}
_RUNS = {10: ("1", "2"), 11: ("3", "4")}


def _records(judgments: list[JudgmentRevision]) -> DesignRecords:
    return DesignRecords(
        design=StudyDesign(study="s", name="m", seed=1, reviewers=["a", "b"]),
        rubric=AFP_V01,
        seed=1,
        items=tuple(
            Item(
                code=_CODES[key],
                index=n,
                kind="pair",
                task=f"t{n}",
                trial=1,
                runs=_RUNS[key],
                conditions=("A", "C"),
                base_flip=False,
            )
            for n, key in enumerate(_CODES)
        ),
        judgments=tuple(judgments),
        adjudications=(),
    )


def _by_run(judgment: Judgment, placement: dict[str, str]) -> Judgment:
    responses = {placement[k]: v for k, v in judgment.responses.items()}
    return judgment.model_copy(update={"responses": responses})


def _judged(reviewer: str, item: int, revision: int, judgment: Judgment) -> JudgmentRevision:
    runs = _RUNS[item]
    placement = {"1": runs[0], "2": runs[1]}
    return JudgmentRevision(
        item=_CODES[item],
        reviewer=reviewer,
        revision=revision,
        status="submitted",
        created_at="",
        reason="",
        seconds_spent=0.0,
        placement=placement,
        judgment=_by_run(judgment, placement),
    )


def _adjudication(revision: int, judgment: Judgment, note: str) -> AdjudicationRevision:
    return AdjudicationRevision(
        item="P-ONE",
        adjudicator="carol",
        revision=revision,
        created_at="",
        note=note,
        show_names=False,
        placement={"1": "1", "2": "2"},
        judgment=judgment,
    )


def test_latest_submission_decides_verdicts_and_the_first_is_kept_for_agreement() -> None:
    first = _judged("b", 10, 1, afp_judgment(0, 0, PreferenceChoice.RESPONSE_2))
    revised = _judged("b", 10, 2, afp_judgment(2, 2, PreferenceChoice.TIE))
    records = _records(
        [
            revised,  # the order records arrive in does not matter
            _judged("a", 10, 1, afp_judgment(2, 2, PreferenceChoice.TIE)),
            first,
            _judged("a", 11, 1, afp_judgment(2, 1, PreferenceChoice.RESPONSE_1)),
        ]
    )
    assert latest_submitted(records.judgments)["P-ONE"] == [records.judgments[1], revised]
    assert first_submitted(records.judgments)["P-ONE"] == [records.judgments[1], first]
    decided = decide(records)
    assert decided.disagreements == []
    assert [(v.run, v.source, v.judgments, v.items) for v in decided.verdicts] == [
        ("1", "unanimous", 2, ("P-ONE",)),
        ("2", "unanimous", 2, ("P-ONE",)),
        ("3", "single review", 1, ("P-TWO",)),
        ("4", "single review", 1, ("P-TWO",)),
    ]
    assert decided.verdicts[3].scores["task_correctness"] == 1.0


def test_an_adjudication_decides_a_disputed_run() -> None:
    records = _records(
        [
            _judged("a", 10, 1, afp_judgment(2, 2, PreferenceChoice.RESPONSE_1)),
            _judged("b", 10, 1, afp_judgment(0, 0, PreferenceChoice.RESPONSE_2)),
        ]
    )
    (dispute,) = decide(records).disagreements
    assert (dispute.code, dispute.reviewers, dispute.adjudicated) == ("P-ONE", ["a", "b"], False)
    assert "preferences conflict" in dispute.reasons
    assert {v.source for v in decide(records).verdicts} == {"unresolved"}
    final = _by_run(afp_judgment(1, 2, PreferenceChoice.RESPONSE_2), {"1": "1", "2": "2"})
    older = _by_run(afp_judgment(0, 0, PreferenceChoice.RESPONSE_2), {"1": "1", "2": "2"})
    adjudicated = dataclasses.replace(
        records,
        adjudications=(
            _adjudication(2, final, "Run 1 misses one requirement."),
            _adjudication(1, older, "First pass."),
        ),
    )
    decided = decide(adjudicated)
    assert decided.disagreements[0].adjudicated
    assert [(v.source, v.scores["task_correctness"]) for v in decided.verdicts] == [
        ("adjudicated", 1.0),
        ("adjudicated", 2.0),
    ]
    assert decided.adjudicated_by["1"].note == "Run 1 misses one requirement."


def test_verdict_rules_load_without_statistics_or_the_ui() -> None:
    code = (
        "import sys, abp_tui.services.adjudicating, abp_tui.store.judging, "
        "abp_tui.analysis.verdicts; "
        "print(sorted(m for m in ('scipy', 'textual') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("tie_conflicts", "reasons", "sources"),
    [
        (True, ["a tie against a preference"], {"unresolved"}),
        (False, [], {"unanimous"}),
    ],
)
def test_a_tie_against_a_decisive_preference(
    tie_conflicts: bool, reasons: list[str], sources: set[str]
) -> None:
    records = _records(
        [
            _judged("a", 10, 1, afp_judgment(2, 2, PreferenceChoice.RESPONSE_1)),
            _judged("b", 10, 1, afp_judgment(2, 2, PreferenceChoice.TIE)),
        ]
    )
    rules = DisagreementRules(tie_conflicts_with_preference=tie_conflicts)
    records = dataclasses.replace(
        records, design=records.design.model_copy(update={"disagreement": rules})
    )
    decided = decide(records)
    assert [d.reasons for d in decided.disagreements] == ([reasons] if reasons else [])
    assert {v.source for v in decided.verdicts} == sources


def test_ties_on_both_sides_and_the_default_rule() -> None:
    both_tie = _records(
        [
            _judged("a", 10, 1, afp_judgment(2, 2, PreferenceChoice.TIE)),
            _judged("b", 10, 1, afp_judgment(2, 2, PreferenceChoice.TIE)),
        ]
    )
    assert decide(both_tie).disagreements == []
    assert DisagreementRules().tie_conflicts_with_preference is True
    design = tomllib.loads(
        'study = "s"\nname = "m"\nseed = 1\n[disagreement]\ntie_conflicts_with_preference = false\n'
    )
    assert StudyDesign.model_validate(design).disagreement.tie_conflicts_with_preference is False
