"""Seed 000 (AFP v0.1), sections 9-11: rerun rules, the required run record, the publication gate.

Each test is one row of CONFORMANCE.md. The gate is read where a reader meets it: the bundle's
``status.json`` (the same status leads ``report.html`` and ``abp-verdict.json``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.models import ResponseJudgment, ResultState
from abp_tui.services.adjudicating import adjudicate, disagreements, final_verdicts
from abp_tui.services.publishing import export_bundle
from tests.conformance.rules_helpers import (
    gate_checks,
    judged_bundle,
    read_json,
    read_jsonl,
    small_study_lines,
)
from tests.factories import afp_judged, full_judgment, two_reviewer_design

PENDING = "protocol published / results pending"


@pytest.fixture
def afp_bundle(tmp_path: Path, db: sqlite_utils.Database) -> Path:
    return export_bundle(db, afp_judged(db), tmp_path / "afp").folder


# -- section 9, rerun rules ------------------------------------------------------------------
def test_every_fixture_needs_a_complete_run_per_condition(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    lines = [x for x in small_study_lines() if x.get("id") != "P02-C-1"]
    bundle = judged_bundle(tmp_path, db, lines)
    rerun = gate_checks(bundle)["rerun rules"]
    assert not rerun["met"]
    assert "P02 under C: 0 of 1 usable runs" in rerun["detail"]
    assert read_json(bundle / "status.json")["status"] == PENDING


def test_high_risk_fixtures_need_three_repeats_per_condition(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    risky = {"P05": "Authorization boundary"}
    once = small_study_lines(tasks=("P01", "P05"), risk_types=risky)
    detail = gate_checks(judged_bundle(tmp_path, db, once, "once"))["rerun rules"]["detail"]
    assert "P05 under A: 1 of 3 usable runs" in detail and "P05 under C: 1 of 3" in detail
    assert "P01 under" not in detail  # a general fixture needs one


def test_high_risk_fixtures_with_three_repeats_meet_the_rerun_rule(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    thrice = small_study_lines(
        tasks=("P01", "P05"), risk_types={"P05": "Authorization boundary"}, runs_per_cell={"P05": 3}
    )
    bundle = judged_bundle(tmp_path, db, thrice)
    assert gate_checks(bundle)["rerun rules"]["met"]
    assert read_json(bundle / "status.json")["status"] == "results published"


def test_a_grader_dispute_goes_to_human_adjudication(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    disputed = full_judgment(2)
    disputed.responses["1"] = ResponseJudgment(
        state_override=ResultState.GRADER_DISPUTE, override_reason="the rubric is ambiguous"
    )
    a.save(codes[0], disputed, 5, submit=True)
    b.save(codes[0], full_judgment(2), 5, submit=True)
    (open_item,) = [d for d in disagreements(db, pk) if d.code == codes[0]]
    assert not open_item.adjudicated
    assert any("GRADER_DISPUTE" in r or "grader" in r.lower() for r in open_item.reasons)
    item = db.execute("SELECT run_a_pk, run_b_pk FROM items WHERE code = ?", [codes[0]]).fetchone()
    with pytest.raises(Exception, match="needs a note"):
        adjudicate(db, pk, codes[0], "carol", full_judgment(2), {"1": item[0], "2": item[1]}, "")
    adjudicate(
        db, pk, codes[0], "carol", full_judgment(2), {"1": item[0], "2": item[1]}, "Rubric read."
    )
    sources = {v.source for v in final_verdicts(db, pk) if codes[0] in v.items}
    assert sources == {"adjudicated"}


# -- section 10, required run record ---------------------------------------------------------
def _records(bundle: Path) -> list[dict[str, object]]:
    return [r["record"] for r in read_jsonl(bundle / "runs/runs.jsonl")]


def _recorded(record: dict[str, object], field: str) -> bool:
    """A field is recorded as a value, or as "not exposed" by its source: never silently lost."""
    exposed = record.get("not_exposed") or []
    return record.get(field) is not None or field in exposed  # type: ignore[operator]


def test_each_run_records_model_provider_version_and_reasoning(afp_bundle: Path) -> None:
    for record in _records(afp_bundle):
        for field in ("model", "provider", "model_version", "reasoning"):
            assert _recorded(record, field), (record["id"], field)
    assert {r["reasoning"] for r in _records(afp_bundle)} == {"medium"}


def test_each_run_records_instruction_and_fixture_versions(afp_bundle: Path) -> None:
    conditions = read_json(afp_bundle / "protocol/conditions.json")
    tasks = read_json(afp_bundle / "protocol/tasks.json")
    assert {c["id"]: c["version"] for c in conditions} == {k: "0.1" for k in "ABCD"}
    assert all(t["id"] and t["version"] for t in tasks)
    runs = read_jsonl(afp_bundle / "runs/runs.jsonl")
    assert {(r["task"], r["condition"]) for r in runs} <= {
        (t["id"], c["id"]) for t in tasks for c in conditions
    }


def test_each_run_records_its_date_and_raw_output(afp_bundle: Path) -> None:
    for run in read_jsonl(afp_bundle / "runs/runs.jsonl"):
        assert _recorded(run["record"], "started_at")
        if run["output"] is not None:
            text = (afp_bundle / run["output"]["path"]).read_text("utf-8")
            assert len(text) == run["output"]["chars"]


def test_each_judged_run_records_scores_rationale_fatal_and_state(afp_bundle: Path) -> None:
    judged = [
        v
        for v in read_jsonl(afp_bundle / "results/verdicts.jsonl")
        if v["source"] in {"unanimous", "adjudicated"}
    ]
    assert judged
    for verdict in judged:
        assert set(verdict["scores"]) == {
            "task_correctness",
            "evidence_discipline",
            "uncertainty_handling",
            "failure_control",
        }
        assert "fatal_hits" in verdict and verdict["state"] in {s.value for s in ResultState}
    # A score below 2 carries its rationale (the unresolved item of the demo scores 0s).
    every = read_jsonl(afp_bundle / "results/verdicts.jsonl")
    assert any(r["rationales"] for v in every for r in v["reviews"])


def test_each_run_records_tokens_tool_calls_and_time_when_available(afp_bundle: Path) -> None:
    for record in _records(afp_bundle):
        for field in ("tokens", "tool_calls", "wall_clock_ms"):
            assert _recorded(record, field), (record["id"], field)


def test_grader_identity_and_human_review_outcome_are_recorded(afp_bundle: Path) -> None:
    verdicts = read_jsonl(afp_bundle / "results/verdicts.jsonl")
    # The human-review outcome of every run: who decided and how (or that nobody has yet).
    assert {v["source"] for v in verdicts} >= {"unanimous", "adjudicated", "unresolved"}
    judgments = read_jsonl(afp_bundle / "judging/judgments.jsonl")
    assert all(j["reviewer"] and j["created_at"] for j in judgments)
    # The grader's own fields of the runner rows (score, notes) stay with the record.
    assert all("grader_notes" in r["metadata"] for r in _records(afp_bundle))  # type: ignore[operator]


# -- section 11, publication gate ------------------------------------------------------------
def test_an_afp_result_needs_the_full_text_of_all_eight_fixtures(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    bundle = judged_bundle(tmp_path, db, small_study_lines(protocol="afp"))
    check = gate_checks(bundle)["full text of every fixture"]
    assert (check["met"], check["detail"]) == (False, "AFP v0.1 has 8 fixtures; this study has 2")


def test_an_afp_result_needs_the_actual_condition_instructions(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    bundle = judged_bundle(tmp_path, db, small_study_lines(instructions=""))
    check = gate_checks(bundle)["actual condition instructions"]
    assert not check["met"] and check["detail"].endswith("): C")


def test_an_afp_result_needs_the_rubric_and_fatal_criteria(afp_bundle: Path) -> None:
    rubric = read_json(afp_bundle / "protocol/rubric.json")
    assert len(rubric["fatal_criteria"]) == 6
    assert all(set(d["anchors"]) == {"0", "1", "2"} for d in rubric["dimensions"])
    assert gate_checks(afp_bundle)["rubric and fatal criteria"]["met"]


def test_an_afp_result_needs_the_raw_outputs(tmp_path: Path, db: sqlite_utils.Database) -> None:
    lines = small_study_lines()
    for line in lines:
        if line.get("id") == "P01-C-1":
            line.pop("output")
    check = gate_checks(judged_bundle(tmp_path, db, lines))["raw outputs"]
    assert not check["met"] and "P01-C-1" in check["detail"]


def test_an_afp_result_needs_the_component_scores(afp_bundle: Path) -> None:
    check = gate_checks(afp_bundle)["component scores"]
    assert check["met"], check
    verdicts = read_jsonl(afp_bundle / "results/verdicts.jsonl")
    assert all(len(v["scores"]) == 4 for v in verdicts if v["source"] == "unanimous")


def test_an_afp_result_lists_the_excluded_runs(afp_bundle: Path) -> None:
    excluded = read_json(afp_bundle / "results/summary.json")["excluded_runs"]
    states = {e["state"] for e in excluded}
    assert states <= {"INVALID_TEST", "GRADER_DISPUTE", "PROVIDER_BLOCK", "INFRA_ERROR"}
    assert excluded and all(e["reasons"] for e in excluded)
    assert gate_checks(afp_bundle)["excluded runs with their states and reasons"]["met"]


def test_an_afp_result_needs_summary_tables_and_limitations(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    bundle = judged_bundle(tmp_path, db, small_study_lines(limitations=()))
    checks = gate_checks(bundle)
    assert not checks["limitations"]["met"]
    assert (bundle / "results/conditions.csv").is_file() and checks["summary tables"]["met"]


def test_until_the_gate_is_met_results_say_pending(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pending = judged_bundle(tmp_path, db, small_study_lines(limitations=()))
    status = read_json(pending / "status.json")
    assert status["status"] == PENDING and status["missing"]
    assert "Protocol published / results pending" in (pending / "report.html").read_text("utf-8")
    assert read_json(pending / "results/abp-verdict.json")["status"] == PENDING
