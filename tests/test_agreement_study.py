"""Agreement of a study's own judgments and of imported labels, through the same statistics."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import sqlite_utils

from abp_tui.models import PreferenceChoice, ResponseJudgment, ResultState
from abp_tui.services.adjudicating import disagreements, final_verdicts
from abp_tui.services.agreement_report import design_records, study_agreement
from abp_tui.services.importing import import_paths
from tests.factories import Cli, afp_judgment, flipped, two_reviewer_design


def test_same_run_preferred_from_opposite_placements_is_agreement(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    for code in codes:
        assert flipped(a, code) != flipped(b, code)
        # Each reviewer prefers the run that the other sees in the other position.
        a.save(code, afp_judgment(2, 2, PreferenceChoice.RESPONSE_1), 1, submit=True)
        b.save(code, afp_judgment(2, 2, PreferenceChoice.RESPONSE_2), 1, submit=True)
    records, levels, scales = design_records(db, pk)
    assert levels["preference"] == "nominal"
    assert {v for _, _, v in records["preference"]} <= {"a", "b"}
    report = study_agreement(db, "s", pk, resamples=0)
    by_name = {v.variable: v for v in report.variables}
    assert by_name["preference"].percent_agreement.value == 1.0
    assert by_name["preference"].n_items == 2 and by_name["preference"].n_reviewers == 2
    assert scales["dimension:task_correctness"] == (0, 1, 2)
    assert by_name["total"].n_judgments == 8  # 2 items x 2 runs x 2 reviewers
    assert "fatal:Fatal P01" in by_name


def test_imported_pandalm_labels_go_through_the_same_code(
    reference: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [reference / "pandalm" / "testset-v1.json"])
    report = study_agreement(db, "testset-v1", None, resamples=0)
    (pref,) = report.variables
    assert (pref.n_items, pref.n_reviewers, pref.n_judgments) == (999, 3, 2997)
    assert pref.krippendorff_alpha.value is not None
    assert len(pref.pairs) == 3


def test_agreement_table_cli(tmp_path: Path, cli: Cli) -> None:
    table = tmp_path / "ratings.csv"
    table.write_text(
        "item,reviewer,variable,value\n"
        "1,ann,score,2\n1,bob,score,2\n2,ann,score,1\n2,bob,score,0\n3,ann,score,0\n3,bob,score,\n",
        "utf-8",
    )
    result = cli(
        "agreement",
        "--table",
        table,
        "--level",
        "ordinal",
        "--scale",
        "0, 1, 2",
        "--json",
        "--resamples",
        "0",
    )
    assert result.code == 0, result.err
    document = json.loads(result.out)
    (variable,) = document["variables"]
    assert variable["n_items"] == 2 and variable["n_judgments"] == 5
    assert variable["percent_agreement"]["value"] == 0.5
    assert variable["categories"] == [0, 1, 2]
    # bob's blank on item 3 is a missing judgment; bob judged other items, so no one is listed
    # as judging nothing.
    assert document["reviewers_without_judgments"] == {}
    bad = tmp_path / "bad.csv"
    bad.write_text("item,reviewer,variable,value\n1,ann,score,7\n", "utf-8")
    result = cli("agreement", "--table", bad, "--level", "ordinal", "--scale", "0,1,2")
    assert result.code == 1
    assert "bad.csv:2: value:" in result.err and "declared scale" in result.err


def test_a_revision_after_submission_does_not_change_agreement(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    for code in codes:
        a.save(code, afp_judgment(2, 2, PreferenceChoice.TIE), 1, submit=True)
        b.save(code, afp_judgment(0, 0, PreferenceChoice.TIE), 1, submit=True)
    before = study_agreement(db, "s", pk, resamples=0)
    records_before = design_records(db, pk)
    # b sees a's judgment and revises to match it: the verdict follows the revision...
    for code in codes:
        b.save(
            code, afp_judgment(2, 2, PreferenceChoice.TIE), 1, submit=True, reason="Saw a's view."
        )
    assert {v.source for v in final_verdicts(db, pk)} == {"unanimous"}
    assert disagreements(db, pk) == []
    # ...but agreement stays on the independent, first submissions.
    assert design_records(db, pk) == records_before
    after = study_agreement(db, "s", pk, resamples=0)
    assert after == before
    by_name = {v.variable: v for v in after.variables}
    assert by_name["dimension:task_correctness"].percent_agreement.value == 0.0
    assert by_name["total"].percent_agreement.value == 0.0
    assert by_name["preference"].percent_agreement.value == 1.0


def test_fatal_flags_count_only_responses_scored_against_the_rubric(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    override = ResponseJudgment(
        state_override=ResultState.INVALID_TEST, override_reason="The fixture is broken."
    )
    judgment = afp_judgment(2, 2, PreferenceChoice.TIE, fatal1=("Fatal P01",))
    a.save(codes[0], judgment, 1, submit=True)
    b.save(
        codes[0],
        judgment.model_copy(update={"responses": {**judgment.responses, "2": override}}),
        1,
        submit=True,
    )
    records, levels, scales = design_records(db, pk)
    assert levels["fatal_hit"] == "nominal" and scales["fatal_hit"] == (0, 1)
    # Two reviewers x two responses, less b's overridden one.
    assert len(records["fatal_hit"]) == len(records["total"]) == 3
    assert len(records["result_state"]) == 4
    assert Counter(v for _, _, v in records["fatal_hit"]) == {1: 2, 0: 1}
