"""The scientific benchmark: the reference specification, submissions and pilot run records."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.formats import detect
from abp_tui.models import ResultState
from abp_tui.store.queries import count, load_run, study_conditions, study_runs, study_tasks
from tests.factories import Cli
from tests.import_helpers import nothing_stored

STUDY = "ABENCH-PARALLEL-LIMITS-001"
UNSAFE = "ABENCH-PAR-001-UNSAFE"
BOUNDARY = "ABENCH-PAR-002-BOUNDARY"


def _dir(reference: Path) -> Path:
    return reference / "sci-bench"


def _spec(reference: Path) -> Path:
    return _dir(reference) / "parallel-member-limits-v1.json"


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _totals(result: Any) -> dict[str, int]:
    assert result.code == 0, result.err
    totals: dict[str, int] = json.loads(result.out)["totals"]
    return totals


def _db(cli: Cli) -> sqlite_utils.Database:
    return sqlite_utils.Database(cli.db_path)


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("parallel-member-limits-v1.json", "sci-spec"),
        ("submissions/conforming-c6.json", "sci-submission"),
        ("submissions/unsafe-c0.json", "sci-submission"),
        ("submissions/boundary-overclaim-c1.json", "sci-submission"),
        ("dry-runs/conforming-c6-run.json", "sci-run"),
        ("dry-runs/excluded-provider-failure.json", "sci-run"),
    ],
)
def test_each_reference_file_is_detected_as_its_format(
    reference: Path, name: str, fmt: str
) -> None:
    found = detect(_dir(reference) / name)
    assert found is not None and found.name == fmt


def test_afp_pack_is_not_claimed_by_sci_bench(reference: Path) -> None:
    found = detect(reference / "afp-v0.1" / "pack.json")
    assert found is not None and found.name == "afp-pack"


# -- specification ---------------------------------------------------------------------------


def test_reference_spec_imports_seven_conditions_two_tasks_and_the_builtin_rubric(
    reference: Path, cli: Cli
) -> None:
    totals = _totals(cli("import", _spec(reference), "--json"))
    assert totals == {
        "studies added": 1,
        "conditions added": 7,
        "tasks added": 2,
        "rubrics added": 1,
    }
    db = _db(cli)
    name, protocol, description, rubric_id, limitations = db.execute(
        "SELECT name, protocol, description, rubric_id, limitations FROM studies WHERE id = ?",
        [STUDY],
    ).fetchone()
    assert name == "Parallel-member preservation decision and abstention slice"
    assert (protocol, rubric_id) == ("sci-bench", "sci-bench-v1")
    assert description.startswith("How reliably does an agent locate and correctly apply")
    assert "Scope: A transparent, deterministic first slice" in description
    assert "Status: substrate_only_no_agent_runs" in description
    assert "code_correctness: This first slice is a structured review" in description
    assert len(json.loads(limitations)) == 5
    assert json.loads(limitations)[0].startswith("No model or agent has been run")

    conditions = {c.condition.id: c.condition for c in study_conditions(db, STUDY)}
    assert len(conditions) == 7
    c6 = conditions["C6_NEGATIVE_KNOWLEDGE"]
    assert c6.label == "Negative-knowledge retrieval"
    assert c6.metadata["order_index"] == 6
    assert c6.metadata["added_capabilities"] == ["misconception_and_counterexample_retrieval"]
    assert len(c6.metadata["cumulative_capabilities"]) == 6
    assert conditions["C0_MODEL_ONLY"].metadata == {
        "added_capabilities": [],
        "cumulative_capabilities": [],
        "order_index": 0,
    }

    tasks = {t.task.id: t.task for t in study_tasks(db, STUDY)}
    assert sorted(tasks) == [UNSAFE, BOUNDARY]
    unsafe = tasks[UNSAFE]
    assert unsafe.prompt.startswith("A preprocessing proposal replaces two scalar")
    assert unsafe.expected_behaviour.splitlines()[:3] == [
        "action: reject",
        "contract_status: failed",
        "classification: outer_relaxation",
    ]
    assert "witness:\n  voltage_drop_V: 15.0\n  aggregate_current_A: 165.0" in (
        unsafe.expected_behaviour
    )
    assert unsafe.metadata["task_kind"] == "invalid_assumption_detection"
    assert unsafe.metadata["expected"]["witness"]["source_feasible"] is False
    assert "abstention" not in unsafe.metadata["dimensions_scored"]
    assert len(unsafe.metadata["does_not_establish"]) == 3
    boundary = tasks[BOUNDARY]
    assert "action: abstain" in boundary.expected_behaviour
    assert "finding_codes: I.CONTRACT.NOT_APPLICABLE" in boundary.expected_behaviour
    assert boundary.metadata["task_kind"] == "abstention"

    assert db.execute("SELECT id, source FROM rubrics").fetchall() == [("sci-bench-v1", "built-in")]


def test_spec_with_other_dimensions_imports_its_own_rubric(
    reference: Path, cli: Cli, tmp_path: Path
) -> None:
    data = _load(_spec(reference))
    data["scoring_dimensions"].append("citation_accuracy")
    _totals(cli("import", _write_json(tmp_path / "spec.json", data), "--json"))
    db = _db(cli)
    rubric_id, source, doc = db.execute("SELECT id, source, document FROM rubrics").fetchone()
    assert rubric_id.startswith("sci-bench-spec-") and source == "imported"
    dims = {d["id"]: d for d in json.loads(doc)["dimensions"]}
    assert len(dims) == 10
    assert dims["citation_accuracy"]["name"] == "Citation accuracy"
    assert dims["code_correctness"]["scored"] is False
    assert db.execute("SELECT rubric_id FROM studies").fetchone()[0] == rubric_id


@pytest.mark.parametrize(
    ("change", "expected", "whole_file"),
    [
        (
            lambda d: d["unscored_dimensions"].update(style="not scored"),
            "$.unscored_dimensions.style: expected an unscored dimension to be listed",
            True,
        ),
        (
            lambda d: d["scoring_dimensions"].append("abstention"),
            "$.scoring_dimensions[9]: duplicate dimension 'abstention'",
            True,
        ),
        (lambda d: d.pop("benchmark_id"), "$.benchmark_id: required field is missing", True),
        (
            lambda d: d["cases"][1]["dimensions_scored"].append("code_correctness"),
            "$.cases[1].dimensions_scored[6]: expected a scored dimension of scoring_dimensions",
            False,
        ),
        (
            lambda d: d["cases"][0].pop("case_id"),
            "$.cases[0].case_id: required field is missing",
            False,
        ),
        (
            lambda d: d["conditions"][3].update(label=None),
            "$.conditions[3].label: Input should be a valid string",
            False,
        ),
    ],
    ids=[
        "unscored-unknown",
        "duplicate-dimension",
        "no-benchmark-id",
        "case-scores-unscored",
        "case-without-id",
        "label-null",
    ],
)
def test_invalid_spec_is_refused_and_names_its_path(
    reference: Path, cli: Cli, tmp_path: Path, change: Any, expected: str, whole_file: bool
) -> None:
    data = _load(_spec(reference))
    change(data)
    src = _write_json(tmp_path / "spec.json", data)
    result = cli("import", src, "--format", "sci-spec")
    assert result.code == 1
    assert f"spec.json: {expected}" in result.err
    assert "Traceback" not in result.err
    nothing_stored(cli)
    skipped = cli("import", src, "--format", "sci-spec", "--skip-invalid", "--json")
    if whole_file:  # a spec that cannot be read as one is no invalid record to skip
        assert skipped.code == 1
        assert f"spec.json: {expected}" in skipped.err
        nothing_stored(cli)
        return
    assert skipped.code == 0, skipped.err
    db = _db(cli)
    assert count(db, "studies") == 1
    assert count(db, "tasks") + count(db, "conditions") == 8


def test_malformed_spec_json(tmp_path: Path, cli: Cli) -> None:
    src = tmp_path / "spec.json"
    src.write_text('{"benchmark_id": "X", "cases": [\n  {"case_id": "A"\n]}', encoding="utf-8")
    result = cli("import", src, "--format", "sci-spec")
    assert result.code == 1
    assert "spec.json:3: malformed JSON at line 3, column 1" in result.err
    nothing_stored(cli)


# -- submissions -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "run_id", "condition", "boundary_action"),
    [
        ("conforming-c6.json", "CONFORMANCE-CORRECT-001", "C6_NEGATIVE_KNOWLEDGE", "abstain"),
        ("unsafe-c0.json", "CONFORMANCE-UNSAFE-001", "C0_MODEL_ONLY", "accept"),
        (
            "boundary-overclaim-c1.json",
            "CONFORMANCE-BOUNDARY-OVERCLAIM-001",
            "C1_REPOSITORY_DOCS",
            "accept",
        ),
    ],
)
def test_each_submission_is_two_synthetic_runs_with_the_structured_answer_as_output(
    reference: Path, cli: Cli, name: str, run_id: str, condition: str, boundary_action: str
) -> None:
    src = _dir(reference) / "submissions" / name
    totals = _totals(cli("import", src, "--json"))
    assert totals == {"studies added": 1, "runs added": 2}
    db = _db(cli)
    assert db.execute("SELECT id, protocol, rubric_id FROM studies").fetchall() == [
        (STUDY, "sci-bench", None)
    ]
    source = _load(src)
    for index, case_id in enumerate([UNSAFE, BOUNDARY]):
        run = load_run(db, STUDY, f"{run_id}/{case_id}")
        assert run is not None
        assert (run.task_id, run.condition_id, run.trial) == (case_id, condition, 1)
        assert (run.provider, run.model, run.model_version) == (
            "deterministic-fixture",
            "benchmark-harness",
            "0.1.0",
        )
        assert run.synthetic is True
        answer = source["cases"][index]
        assert run.output == json.dumps(answer, sort_keys=True, indent=2)
        assert run.metadata["case"] == answer
        assert run.metadata["run_id"] == run_id
        assert set(run.metadata["provenance"]) == {
            "federated_pair_id",
            "book_llm_corpus_sha256",
            "bmopftools_executable_corpus_sha256",
        }
        for field in ("tokens", "tool_calls", "wall_clock_ms", "cost_usd"):
            assert run.shown(field) == "not exposed"
        assert run.origin_status is None and run.excluded_reason is None
    boundary = load_run(db, STUDY, f"{run_id}/{BOUNDARY}")
    assert boundary is not None and boundary.output is not None
    assert json.loads(boundary.output)["action"] == boundary_action


def test_submission_case_problems_are_per_case_and_skippable(
    reference: Path, cli: Cli, tmp_path: Path
) -> None:
    data = _load(_dir(reference) / "submissions" / "unsafe-c0.json")
    data["cases"].append({"action": "reject"})
    src = _write_json(tmp_path / "sub.json", data)
    result = cli("import", src, "--format", "sci-submission")
    assert result.code == 1
    assert "sub.json: $.cases[2].case_id: required field is missing" in result.err
    nothing_stored(cli)
    result = cli("import", src, "--format", "sci-submission", "--skip-invalid", "--json")
    assert _totals(result)["runs added"] == 2
    assert _totals(result)["records skipped"] == 1


def test_malformed_structured_answer_is_still_a_run_to_score(
    reference: Path, cli: Cli, tmp_path: Path
) -> None:
    # Schema validity is a scored dimension: a wrong-shaped answer is judged, not rejected.
    data = _load(_dir(reference) / "submissions" / "unsafe-c0.json")
    data["cases"][1] = {"case_id": BOUNDARY, "action": 42, "note": "no idea"}
    _totals(cli("import", _write_json(tmp_path / "sub.json", data), "--json"))
    run = load_run(_db(cli), STUDY, f"CONFORMANCE-UNSAFE-001/{BOUNDARY}")
    assert run is not None and run.output is not None
    assert json.loads(run.output) == {"action": 42, "case_id": BOUNDARY, "note": "no idea"}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.pop("system"), "$.system: required field is missing"),
        (lambda d: d["system"].update(provider=""), "$.system.provider: String should have"),
        (lambda d: d.update(cases=[]), "$.cases: List should have at least 1 item"),
        (
            lambda d: d["cases"].append(dict(d["cases"][0])),
            "$.cases[2].case_id: duplicate case_id 'ABENCH-PAR-001-UNSAFE'",
        ),
    ],
    ids=["no-system", "empty-provider", "no-cases", "duplicate-case"],
)
def test_invalid_submission_is_refused(
    reference: Path, cli: Cli, tmp_path: Path, change: Any, expected: str
) -> None:
    data = _load(_dir(reference) / "submissions" / "conforming-c6.json")
    change(data)
    result = cli("import", _write_json(tmp_path / "sub.json", data), "--format", "sci-submission")
    assert result.code == 1
    assert f"sub.json: {expected}" in result.err
    nothing_stored(cli)


# -- pilot run records -----------------------------------------------------------------------


def test_completed_dry_run_references_its_submission_by_hash(reference: Path, cli: Cli) -> None:
    totals = _totals(
        cli("import", _dir(reference) / "dry-runs" / "conforming-c6-run.json", "--json")
    )
    assert totals == {"studies added": 1, "runs added": 2}
    db = _db(cli)
    run = load_run(db, STUDY, f"PILOT-DRY-CONFORMING-C6-001/{UNSAFE}")
    assert run is not None
    assert (run.task_id, run.condition_id, run.trial) == (UNSAFE, "C6_NEGATIVE_KNOWLEDGE", 1)
    assert run.synthetic is True
    assert run.reasoning == "not_applicable_fixture"
    assert run.started_at == "2026-08-30T00:00:00Z"
    assert run.origin_status is None and run.excluded_reason is None
    assert run.output is None and run.shown("output") == "not exposed"
    meta = run.metadata
    assert meta["settings"]["temperature"] == 0
    assert meta["budgets"]["tool_calls"] == 20
    assert (meta["pilot_id"], meta["record_kind"]) == (
        "APILOT-PARALLEL-LIMITS-001",
        "synthetic_dry_run",
    )
    assert meta["case_index"] == 0
    # The referenced submission is the committed conformance file, byte for byte.
    submission = _dir(reference) / "submissions" / "conforming-c6.json"
    assert meta["submission"]["sha256"] == hashlib.sha256(submission.read_bytes()).hexdigest()


def test_excluded_dry_run_stays_visible_with_its_reason(reference: Path, cli: Cli) -> None:
    src = _dir(reference) / "dry-runs" / "excluded-provider-failure.json"
    assert _totals(cli("import", src, "--json")) == {"studies added": 1, "runs added": 2}
    db = _db(cli)
    runs = study_runs(db, STUDY)
    assert [(r.id, r.condition_id, r.origin_status) for r in runs] == [
        (f"PILOT-DRY-EXCLUDED-001/{UNSAFE}", "C1_REPOSITORY_DOCS", "PROVIDER_BLOCK"),
        (f"PILOT-DRY-EXCLUDED-001/{BOUNDARY}", "C1_REPOSITORY_DOCS", "PROVIDER_BLOCK"),
    ]
    for summary in runs:
        assert summary.excluded_reason is not None
        assert summary.excluded_reason.startswith(
            "PROVIDER_FAILURE_BEFORE_RESPONSE: Synthetic fixture proving"
        )
        assert summary.synthetic
    run = load_run(db, STUDY, f"PILOT-DRY-EXCLUDED-001/{BOUNDARY}")
    assert run is not None
    assert run.metadata["submission"] is None
    assert run.metadata["execution_status"] == "failed"
    assert run.metadata["case_index"] == 1


@pytest.mark.parametrize(
    ("reason", "state"),
    [
        ("PROVIDER_FAILURE_BEFORE_RESPONSE", ResultState.PROVIDER_BLOCK),
        ("HARNESS_FAILURE_BEFORE_RESPONSE", ResultState.INFRA_ERROR),
        ("RESOURCE_EXPOSURE_FAILURE", ResultState.INFRA_ERROR),
        ("CAPTURE_FAILURE", ResultState.INFRA_ERROR),
        ("OPERATOR_WITHDREW", None),
    ],
)
def test_exclusion_reason_sets_the_origin_status(
    reference: Path, cli: Cli, tmp_path: Path, reason: str, state: ResultState | None
) -> None:
    data = _load(_dir(reference) / "dry-runs" / "excluded-provider-failure.json")
    data["exclusion"] = {"included": False, "reason_code": reason, "detail": None}
    _totals(cli("import", _write_json(tmp_path / "run.json", data), "--json"))
    run = load_run(_db(cli), STUDY, f"PILOT-DRY-EXCLUDED-001/{UNSAFE}")
    assert run is not None
    assert run.origin_status == state
    assert run.excluded_reason == reason


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.pop("exclusion"), "$.exclusion: required field is missing"),
        (
            lambda d: d.update(repetition_index="1"),
            "$.repetition_index: Input should be a valid integer",
        ),
        (
            lambda d: d["exclusion"].update(included="no"),
            "$.exclusion.included: Input should be a valid boolean",
        ),
        (
            lambda d: d["case_order"].append(UNSAFE),
            f"$.case_order[2]: duplicate case '{UNSAFE}'",
        ),
    ],
    ids=["no-exclusion", "repetition-string", "included-string", "duplicate-case"],
)
def test_invalid_pilot_run_is_refused(
    reference: Path, cli: Cli, tmp_path: Path, change: Any, expected: str
) -> None:
    data = _load(_dir(reference) / "dry-runs" / "excluded-provider-failure.json")
    change(data)
    result = cli("import", _write_json(tmp_path / "run.json", data), "--format", "sci-run")
    assert result.code == 1
    assert f"run.json: {expected}" in result.err
    nothing_stored(cli)


# -- the whole folder ------------------------------------------------------------------------


def test_whole_folder_imports_into_one_study_and_reimport_adds_nothing(
    reference: Path, cli: Cli
) -> None:
    totals = _totals(cli("import", _dir(reference), "--json"))
    assert totals["runs added"] == 10
    assert totals["tasks added"] == 2
    assert totals["conditions added"] == 7
    assert totals["studies added"] == 1
    db = _db(cli)
    # Pilot records come first alphabetically; the placeholders they made are filled in place.
    assert db.execute(
        "SELECT COUNT(*), SUM(placeholder), MAX(version_no) FROM conditions"
    ).fetchone() == (7, 0, 1)
    assert db.execute(
        "SELECT COUNT(*), SUM(placeholder), MAX(version_no) FROM tasks"
    ).fetchone() == (
        2,
        0,
        1,
    )
    assert db.execute("SELECT rubric_id FROM studies").fetchone()[0] == "sci-bench-v1"
    runs = study_runs(db, STUDY)
    assert len(runs) == 10
    assert sum(1 for r in runs if r.excluded_reason) == 2
    assert all(r.synthetic for r in runs)
    per_condition = {c.condition.id: c.runs for c in study_conditions(db, STUDY)}
    assert per_condition["C6_NEGATIVE_KNOWLEDGE"] == 4
    assert per_condition["C1_REPOSITORY_DOCS"] == 4
    assert per_condition["C0_MODEL_ONLY"] == 2
    again = cli("import", _dir(reference))
    assert again.code == 0
    assert "Nothing new was added." in again.out
    assert count(db, "runs") == 10
