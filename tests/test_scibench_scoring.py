"""The scientific benchmark's automated judge (seed 004) on the benchmark's own conformance files.

Seed 004: "The generated report must continue to observe one passing fixture and two failing
fixtures": one satisfies both oracles and the pinned provenance, one approves the unsafe
transformation and fails invalid-assumption detection, one overclaims at the unsupported
boundary and fails abstention; code_correctness stays unscored. The reference files are the
benchmark's own (``../shared/reference/sci-bench``); the rest are copies edited in a test.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.analysis.scibench_scoring import score_submission
from abp_tui.errors import AbpError
from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment, StudyDesign
from abp_tui.models.builtin_rubrics import SCI_BENCH_V1
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.scibench_scoring import revealed_scores, score_files, store_report
from abp_tui.store.automated import study_scores
from abp_tui.store.judging import BlindingError
from tests.factories import GATE, Cli

STUDY = "ABENCH-PARALLEL-LIMITS-001"
UNSAFE, BOUNDARY = "ABENCH-PAR-001-UNSAFE", "ABENCH-PAR-002-BOUNDARY"
PINNED = {
    # The provenance the conforming fixture carries: the pinned federated pair of the benchmark.
    "federated_pair_id": "multi-graph-book--bmopftools-executable-knowledge-0.1.0",
    "book_llm_corpus_sha256": "636b6529f1279f897894f550b180a224d0e840658f7235ebf7d28b5c98bd8095",
    "bmopftools_executable_corpus_sha256": (
        "0f4b2d1e4b50c54a2db75013d65a52865aadf0915522749ad6c008efdafdcc31"
    ),
}


@pytest.fixture
def bench(reference: Path) -> Path:
    return reference / "sci-bench"


@pytest.fixture
def copy(tmp_path: Path, bench: Path) -> Path:
    target = tmp_path / "sci-bench"
    shutil.copytree(bench, target)
    for path in target.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def _spec(bench: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((bench / "parallel-member-limits-v1.json").read_text())
    return loaded


def _edit(path: Path, change: Any) -> None:
    document = json.loads(path.read_text("utf-8"))
    change(document)
    path.write_text(json.dumps(document, indent=2), "utf-8")


# -- the conformance fixtures ----------------------------------------------------------------


def test_the_report_observes_one_passing_and_two_failing_fixtures(bench: Path) -> None:
    report = score_files([bench])
    observed = {f.fixture: f.score.passed for f in report.fixtures}
    assert observed == {
        "conforming-c6.json": True,
        "unsafe-c0.json": False,
        "boundary-overclaim-c1.json": False,
    }
    assert (report.summary.observed_passing, report.summary.expected_passing) == (1, 1)
    assert report.conforms and report.summary.mismatches == ()


def test_each_failing_fixture_fails_the_dimension_the_seed_names(bench: Path) -> None:
    scores = {f.fixture: f.score for f in score_files([bench]).fixtures}
    unsafe, boundary = scores["unsafe-c0.json"], scores["boundary-overclaim-c1.json"]
    # Approving the unsafe aggregation fails invalid-assumption detection...
    assert unsafe.case(UNSAFE).outcome("invalid_assumption_detection") == "fail"
    # ... while the overclaim rejects it correctly and fails abstention at the boundary only.
    assert boundary.case(UNSAFE).outcome("invalid_assumption_detection") == "pass"
    assert boundary.case(BOUNDARY).outcome("abstention") == "fail"
    assert boundary.case(UNSAFE).outcome("model_semantic_correctness") == "pass"
    assert boundary.case(UNSAFE).outcome("numerical_validity") == "pass"
    conforming = scores["conforming-c6.json"]
    assert [d.outcome for c in conforming.cases for d in c.dimensions if d.outcome == "fail"] == []
    assert unsafe.validation_errors == boundary.validation_errors == ()


def test_unscored_dimensions_stay_unscored_never_zero(bench: Path) -> None:
    report = score_files([bench])
    for fixture in report.fixtures:
        for case in fixture.score.cases:
            code = next(d for d in case.dimensions if d.dimension == "code_correctness")
            assert code.outcome == "unscored"
            assert code.reason.startswith("unscored: This first slice is a structured review")
            # The boundary case has no numerical witness, and each case scores its own kind.
            if case.case_id == UNSAFE:
                expected = {"code_correctness", "abstention"}
            else:
                expected = {
                    "code_correctness",
                    "numerical_validity",
                    "invalid_assumption_detection",
                }
            assert {d.dimension for d in case.dimensions if d.outcome == "unscored"} == expected
    counts = {d.dimension: d for d in report.summary.dimension_counts}
    assert (counts["code_correctness"].scored, counts["code_correctness"].unscored) == (0, 6)
    assert (counts["abstention"].scored, counts["abstention"].failed) == (3, 2)


def test_missing_provenance_fails_reproducibility_and_nothing_else(bench: Path) -> None:
    # Seed 004: "Missing provenance fails the reproducibility dimension; it does not silently
    # invalidate or rewrite the other dimension scores."
    spec = _spec(bench)
    conforming = json.loads((bench / "submissions" / "conforming-c6.json").read_text())
    conforming["provenance"]["book_llm_corpus_sha256"] = None
    score = score_submission(conforming, spec)
    for case in score.cases:
        failed = [d.dimension for d in case.dimensions if d.outcome == "fail"]
        assert failed == ["reproducibility"]
    assert "book_llm_corpus_sha256" in score.case(UNSAFE).dimensions[6].reason


def test_pinned_provenance_is_compared_when_given(tmp_path: Path, cli: Cli, bench: Path) -> None:
    pinned = tmp_path / "provenance.json"
    pinned.write_text(json.dumps(PINNED))
    report = score_files([bench], pinned)
    assert report.provenance_rule == "pinned" and report.conforms
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**PINNED, "book_llm_corpus_sha256": "0" * 64}))
    report = score_files([bench], other)
    conforming = next(f for f in report.fixtures if f.fixture == "conforming-c6.json")
    assert conforming.score.failed_dimensions == ["reproducibility"]
    assert conforming.conforms is False
    result = cli("score", "sci-bench", bench, "--provenance", other, "--db", cli.db_path)
    assert result.code == 1
    assert "MISMATCH in conforming-c6.json" in result.out


def test_a_malformed_answer_fails_schema_validity_and_is_still_scored(bench: Path) -> None:
    spec = _spec(bench)
    submission = json.loads((bench / "submissions" / "conforming-c6.json").read_text())
    submission["cases"][0]["action"] = "maybe"
    submission["cases"][1]["knowledge_ids"] = "PSK-000001"
    submission["note"] = "extra"
    score = score_submission(submission, spec)
    assert score.validation_errors == (
        "$: unexpected field 'note'",
        "$.cases[0].action: expected one of accept, reject, abstain",
        "$.cases[1].knowledge_ids: expected an array of strings",
    )
    assert score.case(UNSAFE).outcome("schema_validity") == "fail"
    assert score.case(UNSAFE).outcome("invalid_assumption_detection") == "fail"
    assert score.case(UNSAFE).outcome("numerical_validity") == "pass"
    assert score.case(BOUNDARY).outcome("abstention") == "pass"
    assert score.case(BOUNDARY).outcome("scientific_inference_correctness") == "fail"
    assert not score.passed


def test_a_missing_case_is_a_schema_error_and_fails_its_dimensions(bench: Path) -> None:
    submission = json.loads((bench / "submissions" / "conforming-c6.json").read_text())
    del submission["cases"][1]
    score = score_submission(submission, _spec(bench))
    assert score.validation_errors == (
        f"$.cases: expected an answer to every case (missing: {BOUNDARY})",
    )
    assert {d.reason for d in score.case(BOUNDARY).dimensions if d.outcome == "fail"} == {
        "no answer to this case"
    }


# -- run records -----------------------------------------------------------------------------


def test_run_records_get_their_submissions_scores_and_exclusions_stay_visible(
    bench: Path,
) -> None:
    records = {r.run_id: r for r in score_files([bench]).run_records}
    scored = records["PILOT-DRY-CONFORMING-C6-001"]
    assert (scored.status, scored.passed) == ("scored", True)
    assert scored.submission is not None and scored.submission.endswith("conforming-c6.json")
    excluded = records["PILOT-DRY-EXCLUDED-001"]
    assert (excluded.status, excluded.passed, excluded.cases) == ("excluded", None, ())
    assert "PROVIDER_FAILURE_BEFORE_RESPONSE" in excluded.detail


def test_a_run_record_whose_submission_changed_is_not_scored(copy: Path) -> None:
    _edit(copy / "submissions" / "conforming-c6.json", lambda d: d.update(run_id="EDITED"))
    record = next(r for r in score_files([copy]).run_records if r.status != "excluded")
    assert record.status == "hash mismatch" and record.passed is None
    assert "does not have the SHA-256 the record states" in record.detail


# -- the command -----------------------------------------------------------------------------


def test_the_command_prints_the_per_fixture_report(cli: Cli, bench: Path) -> None:
    result = cli("score", "sci-bench", bench, "--db", cli.db_path)
    assert (result.code, result.err) == (0, "")
    lines = result.out.splitlines()
    assert any(
        line.startswith("unsafe-c0.json: run CONFORMANCE-UNSAFE-001 (C0_MODEL_ONLY): FAIL "
                        "(expected fail)") and "invalid_assumption_detection" in line
        for line in lines
    )  # fmt: skip
    assert any(line.split() == ["code_correctness", "unscored", "unscored"] for line in lines)
    assert (
        "Conformance: 3 submissions, 1 passing observed (1 expected): every listed fixture "
        "observes what the specification expects"
    ) in lines
    result = cli("score", "sci-bench", bench, "--json", "--db", cli.db_path)
    document = json.loads(result.out)
    assert document["conforms"] is True
    assert document["summary"]["observed_passing"] == 1


def test_a_fixture_that_observes_the_wrong_outcome_exits_1(cli: Cli, copy: Path) -> None:
    spec = copy / "parallel-member-limits-v1.json"
    _edit(spec, lambda d: d["conformance_fixtures"][1].update(expected_pass=True))
    result = cli("score", "sci-bench", copy, "--db", cli.db_path)
    assert result.code == 1
    assert "unsafe-c0.json: run CONFORMANCE-UNSAFE-001 (C0_MODEL_ONLY): FAIL (expected pass) " \
        "MISMATCH" in result.out  # fmt: skip


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda c: (c / "parallel-member-limits-v1.json").unlink(),
         "abp-tui: score sci-bench: expected one sci-bench specification among the paths "
         "(found none)"),
        (lambda c: shutil.copy(c / "parallel-member-limits-v1.json", c / "second.json"),
         "abp-tui: score sci-bench: expected one sci-bench specification among the paths "
         "(found 2: "),
        (lambda c: _edit(c / "dry-runs" / "conforming-c6-run.json",
                         lambda d: d.update(repetition_index=-1)),
         "conforming-c6-run.json: $.repetition_index: Input should be greater than or equal "
         "to 0 (got -1)"),
    ],
)  # fmt: skip
def test_bad_input_is_one_clear_line(cli: Cli, copy: Path, setup: Any, message: str) -> None:
    setup(copy)
    result = cli("score", "sci-bench", copy, "--db", cli.db_path)
    assert (result.code, result.out) == (1, "")
    assert message in result.err and len(result.err.strip().splitlines()) == 1


def test_a_file_of_another_format_is_refused(cli: Cli, tmp_path: Path, bench: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    result = cli("score", "sci-bench", bench, other, "--db", cli.db_path)
    assert result.code == 1
    assert result.err.strip() == (
        f"abp-tui: {other}: expected a sci-bench specification, submission or run record "
        "(this file is in no known format)"
    )


# -- storing the automated outcomes ----------------------------------------------------------


def test_outcomes_are_stored_once_against_the_study_runs(
    db: sqlite_utils.Database, bench: Path
) -> None:
    import_paths(db, [bench])
    report = store_report(db, STUDY, score_files([bench]), [bench])
    assert {o.status for o in report.stored} == {"stored"}
    stored = study_scores(db, STUDY)
    assert {k: v.outcome for k, v in stored.items()} == {
        f"CONFORMANCE-CORRECT-001/{UNSAFE}": "passed",
        f"CONFORMANCE-CORRECT-001/{BOUNDARY}": "passed",
        f"CONFORMANCE-UNSAFE-001/{UNSAFE}": "failed",
        f"CONFORMANCE-UNSAFE-001/{BOUNDARY}": "failed",
        f"CONFORMANCE-BOUNDARY-OVERCLAIM-001/{UNSAFE}": "failed",
        f"CONFORMANCE-BOUNDARY-OVERCLAIM-001/{BOUNDARY}": "failed",
        f"PILOT-DRY-CONFORMING-C6-001/{UNSAFE}": "passed",
        f"PILOT-DRY-CONFORMING-C6-001/{BOUNDARY}": "passed",
    }
    boundary = stored[f"CONFORMANCE-BOUNDARY-OVERCLAIM-001/{BOUNDARY}"]
    outcome = {d["dimension"]: d["outcome"] for d in boundary.dimensions}
    assert (outcome["abstention"], outcome["code_correctness"]) == ("fail", "unscored")
    assert len(boundary.dimensions) == len(SCI_BENCH_V1.dimensions)
    again = store_report(db, STUDY, score_files([bench]), [bench])
    assert {o.status for o in again.stored} == {"already stored"}
    assert db.execute("SELECT COUNT(*) FROM automated_scores").fetchone()[0] == 8
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE automated_scores SET outcome = 'passed'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM automated_scores")


def test_nothing_is_stored_for_an_answer_the_study_does_not_hold(
    db: sqlite_utils.Database, copy: Path, bench: Path
) -> None:
    import_paths(db, [bench])
    changed = copy / "submissions" / "unsafe-c0.json"
    _edit(changed, lambda d: d["cases"][0].update(action="reject"))
    _edit(copy / "submissions" / "boundary-overclaim-c1.json", lambda d: d.update(run_id="NEW"))
    report = store_report(db, STUDY, score_files([copy]), [copy])
    statuses = {o.run_id: o.status for o in report.stored}
    assert statuses[f"CONFORMANCE-UNSAFE-001/{UNSAFE}"] == "answer differs"
    assert statuses[f"NEW/{BOUNDARY}"] == "not in the study"
    assert f"CONFORMANCE-UNSAFE-001/{UNSAFE}" not in study_scores(db, STUDY)


def _file(db: sqlite_utils.Database) -> str:
    """The database's file, as SQLite itself names it."""
    return str(db.execute("PRAGMA database_list").fetchone()[2])


def test_a_study_that_is_not_there_is_refused(db: sqlite_utils.Database, bench: Path) -> None:
    with pytest.raises(AbpError) as refused:
        store_report(db, "nope", score_files([bench]), [bench])
    assert str(refused.value) == f"score sci-bench: no study 'nope' in {_file(db)}"


def test_a_wrong_study_name_is_told_the_one_import_chose(
    db: sqlite_utils.Database, bench: Path
) -> None:
    # Import names the spec's study after its benchmark_id, not after the spec's file name.
    import_paths(db, [bench])
    with pytest.raises(AbpError) as refused:
        store_report(db, "parallel-member-limits-v1", score_files([bench]), [bench])
    assert str(refused.value) == (
        f"score sci-bench: no study 'parallel-member-limits-v1' in {_file(db)} (import names "
        f"the spec's study after its benchmark_id: --study {STUDY})"
    )


def test_a_reviewer_sees_the_automated_judge_only_after_submitting(
    db: sqlite_utils.Database, bench: Path
) -> None:
    import_paths(db, [bench])
    store_report(db, STUDY, score_files([bench]), [bench])
    pk = create_design(
        db,
        StudyDesign(
            study=STUDY,
            name="c6-vs-c0",
            seed=7,
            contrasts=[("C6_NEGATIVE_KNOWLEDGE", "C0_MODEL_ONLY")],
            reviewers=["alice"],
        ),
    ).pk
    session = ReviewSession(db, pk, "alice")
    code = session.queue()[0].code
    with pytest.raises(BlindingError, match="before seeing the automated one"):
        revealed_scores(db, pk, code, "alice")
    passing = ResponseJudgment(scores={d.id: 2 for d in SCI_BENCH_V1.dimensions if d.scored})
    judgment = Judgment(
        responses={"1": passing, "2": passing},
        preference=PreferenceChoice.TIE,
        justification="Both reject the aggregation.",
        validity=GATE,
    )
    session.save(code, judgment, 10, submit=True)
    shown = revealed_scores(db, pk, code, "alice")
    assert {run_id.split("/")[0] for run_id in shown} == {
        "CONFORMANCE-CORRECT-001",
        "CONFORMANCE-UNSAFE-001",
    }
    assert len({run_id.split("/")[1] for run_id in shown}) == 1  # both runs of the item's case
    assert {s.outcome for s in shown.values()} == {"passed", "failed"}


def test_the_command_stores_the_outcomes_of_an_imported_study(cli: Cli, bench: Path) -> None:
    assert cli("import", bench).code == 0
    result = cli("score", "sci-bench", bench, "--study", STUDY, "--db", cli.db_path)
    assert result.code == 0, result.err
    assert f"Stored in study {STUDY}: 8 new outcomes" in result.out.splitlines()
    again = cli("score", "sci-bench", bench, "--study", STUDY, "--db", cli.db_path)
    assert f"Stored in study {STUDY}: 0 new outcomes" in again.out.splitlines()
    missing = cli.db_path.parent / "none.db"
    result = cli("score", "sci-bench", bench, "--study", STUDY, "--db", missing)
    assert result.code == 1 and not missing.exists()
