"""Seed 004 (scientifically constrained agent benchmark): conditions, the two oracles, scoring and
provenance, the conformance fixtures, what a run record keeps, the design frozen before results.

Each test is one row of CONFORMANCE.md, on the benchmark's own files (``reference/sci-bench``:
its specification, three conformance submissions and two synthetic dry runs) or a copy of one
edited to break the rule the row names.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.analysis.scibench_scoring import score_submission
from abp_tui.models import StudyDesign
from abp_tui.models.builtin_rubrics import SCI_BENCH_V1
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_protocol_bundle
from abp_tui.services.scibench_scoring import score_files
from tests.factories import Cli

STUDY = "ABENCH-PARALLEL-LIMITS-001"
UNSAFE, BOUNDARY = "ABENCH-PAR-001-UNSAFE", "ABENCH-PAR-002-BOUNDARY"
SPEC = "parallel-member-limits-v1.json"


@pytest.fixture
def bench(reference: Path) -> Path:
    return reference / "sci-bench"


def _spec(bench: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((bench / SPEC).read_text("utf-8"))
    return loaded


def _submission(bench: Path, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((bench / "submissions" / name).read_text("utf-8"))
    return loaded


def _rows(cli: Cli, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(cli.db_path) as conn:
        return conn.execute(sql).fetchall()


# -- page status and conformance evidence ----------------------------------------------------
def test_conformance_submissions_are_synthetic_scorer_tests(bench: Path, cli: Cli) -> None:
    assert cli("import", bench).code == 0
    flags = _rows(cli, "SELECT DISTINCT synthetic FROM runs")
    assert flags == [(1,)], "no model produced them"
    (limitations,) = _rows(cli, f"SELECT limitations FROM studies WHERE id = '{STUDY}'")
    assert "no condition effect" in json.loads(limitations[0])[0]


# -- research question: the eight scored dimensions ------------------------------------------
def test_eight_dimensions_are_scored_and_code_correctness_stays_unscored(bench: Path) -> None:
    scored = [d.id for d in SCI_BENCH_V1.dimensions if d.scored]
    assert len(scored) == 8 and "code_correctness" not in scored
    assert [d.id for d in SCI_BENCH_V1.dimensions if not d.scored] == ["code_correctness"]
    for fixture in score_files([bench]).fixtures:
        for case in fixture.score.cases:
            (code,) = [d for d in case.dimensions if d.dimension == "code_correctness"]
            assert code.outcome == "unscored"  # never a zero


# -- cumulative conditions -------------------------------------------------------------------
def test_conditions_are_cumulative_c0_to_c6(bench: Path, cli: Cli) -> None:
    assert cli("import", bench / SPEC).code == 0
    rows = _rows(cli, "SELECT id, metadata FROM conditions")
    ladder = sorted((json.loads(m)["order_index"], i, json.loads(m)) for i, m in rows)
    assert [i[:2] for _n, i, _m in ladder] == [f"C{k}" for k in range(7)]
    held: list[str] = []
    for _n, _i, meta in ladder:
        assert len(meta["added_capabilities"]) <= 1  # one capability per rung
        held += meta["added_capabilities"]
        assert meta["cumulative_capabilities"] == held


# -- cases and oracles -----------------------------------------------------------------------
def test_a_conforming_answer_rejects_the_unsafe_scalar_aggregation(bench: Path) -> None:
    spec = _spec(bench)
    conforming = score_submission(_submission(bench, "conforming-c6.json"), spec)
    assert conforming.case(UNSAFE).outcome("invalid_assumption_detection") == "pass"
    unsafe = score_submission(_submission(bench, "unsafe-c0.json"), spec)
    assert unsafe.case(UNSAFE).outcome("invalid_assumption_detection") == "fail"


def test_numerical_fields_are_checked_against_the_fixture_evidence(bench: Path) -> None:
    submission = _submission(bench, "conforming-c6.json")
    text = json.dumps(submission)
    assert "15" in text
    answers = submission["answers"] if "answers" in submission else submission["cases"]
    case = next(a for a in answers if UNSAFE in json.dumps(a))
    witness = case["witness"] if "witness" in case else case["response"]["witness"]
    witness["voltage_drop_V"] = 12.0  # not the fixture's 15 V witness
    score = score_submission(submission, _spec(bench))
    assert score.case(UNSAFE).outcome("numerical_validity") == "fail"


def test_the_unsupported_generalisation_must_be_an_abstention(bench: Path) -> None:
    spec = _spec(bench)
    conforming = score_submission(_submission(bench, "conforming-c6.json"), spec)
    assert conforming.case(BOUNDARY).outcome("abstention") == "pass"
    overclaim = score_submission(_submission(bench, "boundary-overclaim-c1.json"), spec)
    assert overclaim.case(BOUNDARY).outcome("abstention") == "fail"


# -- deterministic scoring and provenance ----------------------------------------------------
def test_missing_provenance_fails_only_reproducibility(bench: Path) -> None:
    submission = _submission(bench, "conforming-c6.json")
    submission["provenance"]["book_llm_corpus_sha256"] = None
    score = score_submission(submission, _spec(bench))
    for case in score.cases:
        assert [d.dimension for d in case.dimensions if d.outcome == "fail"] == ["reproducibility"]


# -- conformance evidence --------------------------------------------------------------------
def test_the_report_observes_one_passing_and_two_failing_fixtures(
    bench: Path, cli: Cli, tmp_path: Path
) -> None:
    result = cli("score", "sci-bench", bench, "--json", "--db", cli.db_path)
    assert result.code == 0, result.err
    copy = tmp_path / "sci-bench"
    shutil.copytree(bench, copy)
    path = copy / "submissions" / "unsafe-c0.json"
    path.chmod(0o644)
    path.write_bytes((copy / "submissions" / "conforming-c6.json").read_bytes())
    wrong = cli("score", "sci-bench", copy, "--db", cli.db_path)
    assert wrong.code == 1 and "unsafe-c0.json" in wrong.out + wrong.err


# -- controlled-pilot design: what a run record keeps ----------------------------------------
def test_run_records_keep_revision_settings_order_and_submission_hash(
    bench: Path, cli: Cli
) -> None:
    assert cli("import", bench / "dry-runs" / "conforming-c6-run.json").code == 0
    docs = [json.loads(d) for (d,) in _rows(cli, "SELECT document FROM runs ORDER BY id")]
    assert len(docs) == 2
    for doc in docs:
        meta = doc["metadata"]
        assert doc["started_at"] and meta["settings"] and meta["budgets"]
        assert "case_index" in meta
        sha = hashlib.sha256((bench / "submissions" / "conforming-c6.json").read_bytes())
        assert meta["submission"]["sha256"] == sha.hexdigest()
        assert doc["excluded_reason"] is None  # the exclusion decision: none


def test_an_excluded_record_stays_visible_with_its_reason(bench: Path, cli: Cli) -> None:
    assert cli("import", bench / "dry-runs" / "excluded-provider-failure.json").code == 0
    rows = _rows(cli, "SELECT origin_status, excluded_reason FROM runs")
    assert len(rows) == 2
    assert all(
        s == "PROVIDER_BLOCK" and r.startswith("PROVIDER_FAILURE_BEFORE_RESPONSE") for s, r in rows
    )


def test_the_pilot_says_it_cannot_attribute_a_difference_to_one_rung(bench: Path, cli: Cli) -> None:
    # C5 collapses C2-C5: a four-condition result names no rung, file or tool as the cause.
    assert cli("import", bench / SPEC).code == 0
    (limitations,) = _rows(cli, f"SELECT limitations FROM studies WHERE id = '{STUDY}'")
    said = [x for x in json.loads(limitations[0]) if "C2 through C5" in x]
    assert said and "cannot attribute an observed difference to each rung" in said[0]


# -- mandatory human gate before execution ---------------------------------------------------
def test_the_design_is_frozen_before_any_result(
    bench: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [bench])
    pk = create_design(db, StudyDesign(study=STUDY, name="pilot", seed=5, contrasts="none",
                                       single_items=True)).pk  # fmt: skip
    out = export_protocol_bundle(db, pk, tmp_path / "protocol")
    files = {p.relative_to(out.folder).as_posix() for p in out.folder.rglob("*") if p.is_file()}
    assert "protocol/design.json" in files
    assert not [f for f in files if f.startswith(("runs/", "results/", "judging/"))]
    frozen = db.execute("SELECT frozen_at FROM designs WHERE pk = ?", [pk]).fetchone()[0]
    assert frozen is not None
