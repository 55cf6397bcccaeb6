"""Agreement of a study's own judgments and of imported labels, through the same statistics."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment, ResultState
from abp_tui.models.builtin_rubrics import AFP_V01
from abp_tui.services.adjudicating import disagreements, final_verdicts
from abp_tui.services.agreement_report import design_records, study_agreement
from abp_tui.services.importing import import_paths
from tests.factories import AFP_DIMS, Cli, afp_judgment, flipped, two_reviewer_design


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
    report = study_agreement(db, "pandalm-testset-v1", None, resamples=0)
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


def _all_but_one(judgment: Judgment) -> Judgment:
    """Both responses scored 2 on every dimension but the first, scored 1: a total of max - 1."""
    first = AFP_DIMS[0]
    responses = {
        position: response.model_copy(
            update={"scores": {**response.scores, first: 1}, "rationales": {first: "gap"}}
        )
        for position, response in judgment.responses.items()
    }
    return judgment.model_copy(update={"responses": responses})


def test_weight_basis_reaches_every_weighted_kappa_of_a_study(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    top = AFP_V01.max_total
    # Totals per run: the first item a top, b top - 1; the second both 0. Three values used,
    # unevenly spaced on the declared scale 0..top, evenly by rank (1, 2, 3).
    a.save(codes[0], afp_judgment(2, 2, PreferenceChoice.TIE), 1, submit=True)
    b.save(codes[0], _all_but_one(afp_judgment(2, 2, PreferenceChoice.TIE)), 1, submit=True)
    for session in (a, b):
        session.save(codes[1], afp_judgment(0, 0, PreferenceChoice.TIE), 1, submit=True)
    # Cohen (1968), linear weights 1 - |x_k - x_l| / (x_max - x_min), by hand: p_e = 1/2 on
    # either basis; p_o = 1 - 1/(2 top) on the declared scale (kappa 1 - 1/top), 3/4 on the
    # ranks (kappa 1/2). Unweighted: p_o = 1/2, p_e = 1/4, kappa 1/3.
    expected = {"declared": 1 - 1 / top, "observed": 0.5}
    target = tmp_path / "test.db"
    for basis, linear in expected.items():
        found = cli("agreement", "--db", target, "--json", "--weight-basis", basis)
        assert found.code == 0, found.err
        document = json.loads(found.out)
        assert document["weight_basis"] == basis
        (variable,) = [v for v in document["variables"] if v["variable"] == "total"]
        (pair,) = variable["pairs"]
        assert pair["cohen_kappa"]["value"] == pytest.approx(1 / 3, abs=1e-12)
        assert pair["cohen_kappa_linear"]["value"] == pytest.approx(linear, abs=1e-12)
        assert pair["cohen_kappa_linear"]["weight_basis"] == basis
    text = cli("agreement", "--db", target, "--weight-basis", "observed", "--resamples", "0")
    # The heading (wrapped to 80 columns) names the weights' basis.
    heading = " ".join(text.out.split("\n\n")[0].split())
    assert "weights on the ranks of the values observed" in heading
    assert pk


def test_weight_basis_of_a_table_gives_r_irr_kappa2(tmp_path: Path, cli: Cli) -> None:
    # R irr's anxiety data, raters 2 and 3 (20 subjects, ratings 1-6; 5 never used):
    # kappa2(anxiety[, 2:3], "equal") 0.1459075 and "squared" 0.2520325, as reproduced in
    # statsmodels' tests. irr weighs the levels used by rank: the observed basis.
    rater2 = [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4]
    rater3 = [2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2]
    table = tmp_path / "anxiety.csv"
    rows = [
        f"{i},r2,anxiety,{x}\n{i},r3,anxiety,{y}"
        for i, (x, y) in enumerate(zip(rater2, rater3, strict=True))
    ]
    table.write_text("item,reviewer,variable,value\n" + "\n".join(rows) + "\n", "utf-8")
    found = {}
    for basis in ("declared", "observed"):
        result = cli(
            "agreement",
            "--table",
            table,
            "--level",
            "interval",
            "--scale",
            "1,2,3,4,5,6",
            "--weight-basis",
            basis,
            "--resamples",
            "0",
            "--json",
        )
        assert result.code == 0, result.err
        document = json.loads(result.out)
        assert document["weight_basis"] == basis
        ((pair,),) = [v["pairs"] for v in document["variables"]]
        found[basis] = pair
    observed = found["observed"]
    assert observed["cohen_kappa_linear"]["value"] == pytest.approx(0.1459075, abs=1e-7)
    assert observed["cohen_kappa_quadratic"]["value"] == pytest.approx(0.2520325, abs=1e-7)
    # On the declared 1-6 scale the unused 5 widens the scale: other weights, other figures.
    assert found["declared"]["cohen_kappa_linear"]["value"] != pytest.approx(0.1459075, abs=1e-4)
    refused = cli("agreement", "--table", table, "--level", "interval", "--reviewer", "ann")
    assert refused.code == 1 and "not with --table" in refused.err
