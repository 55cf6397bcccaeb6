"""Seed 004, "Controlled-pilot design" and "Mandatory human gate before execution", on the
benchmark's own files (``../shared/reference/sci-bench``) and edited copies of them.

- "Aggregation retains condition-level and dimension-level counts with no imputation or
  top-line accuracy number."
- "Only a declared pre-response provider, harness, resource, or capture failure may be excluded,
  and the excluded record remains visible." "Scientific errors, invalid structured responses,
  failure to use a tool, tool misuse, refusal, and abstention are scored rather than excluded."
- "Until that gate passes, the checker prohibits ... implying a condition effect"; the synthetic
  records' "generated status is synthetic_dry_run_harness_only_not_agent_results".

The expected counts are the seed's own account of its conformance fixtures: "one satisfies both
task oracles and the pinned provenance; one approves the unsafe transformation and fails
invalid-assumption detection; one handles the scalar case but overclaims at the unsupported
boundary and fails abstention", and one pilot record excluded before a response.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from rich.console import Console

from abp_tui.cli.text import results_text
from abp_tui.errors import AbpError
from abp_tui.models import Judgment, ResponseJudgment, ResultState, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import compute_results, report_results, unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.scibench_scoring import score_files, store_report
from abp_tui.tui.charts import results_body
from tests.factories import Cli

STUDY = "ABENCH-PARALLEL-LIMITS-001"
SPEC = "parallel-member-limits-v1.json"
EXCLUDED = "PILOT-DRY-EXCLUDED-001"


@pytest.fixture
def bench(reference: Path) -> Path:
    return reference / "sci-bench"


def _scored(cli: Cli, folder: Path) -> None:
    assert cli("import", folder).code == 0
    scored = cli("score", "sci-bench", folder, "--study", STUDY, "--db", cli.db_path)
    assert scored.code == 0, scored.err
    assert cli("unblind", "--study", STUDY, "--yes").code == 0


def _results(cli: Cli) -> tuple[str, dict[str, Any]]:
    text = cli("results", "--study", STUDY)
    data = cli("results", "--study", STUDY, "--json")
    assert text.code == 0 and data.code == 0, text.err
    return text.out, json.loads(data.out)


def _dims(data: dict[str, Any]) -> dict[tuple[str, str], tuple[int, int, int, int]]:
    return {
        (d["condition"], d["dimension"]): (d["passed"], d["failed"], d["not_scored"], d["n"])
        for d in data["scibench"]["dimensions"]
    }


def test_results_keep_condition_and_dimension_counts_with_no_top_line_accuracy(
    cli: Cli, bench: Path
) -> None:
    _scored(cli, bench)
    text, data = _results(cli)
    for absent in ("Pass rate", "Wilson", "Fatal", "Accepted", "Position bias"):
        assert absent not in text, absent
    assert "Dimension counts by condition" in text and "Runs by condition" in text
    dims = _dims(data)
    # The unsafe fixture (C0) fails invalid-assumption detection on the unsafe case; the
    # overclaiming one (C1) fails abstention on the boundary case; the conforming one passes.
    assert dims[("C0_MODEL_ONLY", "invalid_assumption_detection")] == (0, 1, 1, 2)
    assert dims[("C1_REPOSITORY_DOCS", "abstention")] == (0, 1, 1, 2)
    assert dims[("C6_NEGATIVE_KNOWLEDGE", "abstention")] == (2, 0, 2, 4)
    # code_correctness "remains explicitly unscored": not scored, never a failure.
    assert {v[:3] for k, v in dims.items() if k[1] == "code_correctness"} == {(0, 0, 2), (0, 0, 4)}
    counts = {c["condition"]: c for c in data["scibench"]["conditions"]}
    assert (counts["C1_REPOSITORY_DOCS"]["runs"], counts["C1_REPOSITORY_DOCS"]["excluded"]) == (
        4,
        2,
    )
    assert counts["C6_NEGATIVE_KNOWLEDGE"]["abstained"] == 1  # the conforming boundary answer
    assert all(c["not_scored"] == 0 for c in counts.values())  # nothing imputed, nothing missing


def test_only_a_declared_pre_response_failure_is_excluded_and_it_stays_visible(
    cli: Cli, bench: Path, tmp_path: Path
) -> None:
    _scored(cli, bench)
    text, data = _results(cli)
    excluded = data["scibench"]["excluded"]
    assert {e["run"].split("/")[0] for e in excluded} == {EXCLUDED}
    assert all(e["reason"].startswith("PROVIDER_FAILURE_BEFORE_RESPONSE") for e in excluded)
    assert "Excluded before a response" in text and "PROVIDER_FAILURE_BEFORE_RESPONSE" in text
    out = tmp_path / "bundle"
    exported = cli("export", "bundle", "--study", STUDY, "--out", out)
    assert exported.code == 0, exported.err
    rows = list(csv.DictReader(io.StringIO((out / "results/sci_excluded.csv").read_text())))
    assert {r["run"].split("/")[0] for r in rows} == {EXCLUDED}
    assert cli("verify", out).code == 0


def test_a_reviewer_cannot_exclude_a_scored_response_by_hand(
    db: sqlite_utils.Database, bench: Path
) -> None:
    import_paths(db, [bench])
    design = StudyDesign(
        study=STUDY,
        name="singles",
        seed=4,
        contrasts="none",
        single_items=True,
        show_record_failures=True,  # the excluded pilot record too, to confirm its state
    )
    session = ReviewSession(db, create_design(db, design).pk, "reviewer")
    rows = session.queue()
    answered = next(r.code for r in rows if session.read(r.code).responses[0].text)
    for state in (ResultState.INVALID_TEST, ResultState.GRADER_DISPUTE, ResultState.INFRA_ERROR):
        refusal = Judgment(
            responses={
                "1": ResponseJudgment(state_override=state, override_reason="it refused to answer")
            }
        )
        # INFRA_ERROR is a record's failure state: refused as one the record does not give.
        refused = "is scored, not excluded|its record gives no INFRA_ERROR to confirm"
        with pytest.raises(AbpError, match=refused) as caught:
            session.save(answered, refusal, 5)
        assert "\n" not in str(caught.value)
    # The record's own declared pre-response failure may be confirmed: it stays excluded.
    failed = next(r.code for r in rows if session.read(r.code).responses[0].record_state)
    confirm = Judgment(
        responses={
            "1": ResponseJudgment(
                state_override=ResultState.PROVIDER_BLOCK, override_reason="declared failure"
            )
        }
    )
    assert session.save(failed, confirm, 5, submit=True).status == "submitted"


def test_people_s_scores_are_counted_per_dimension_and_no_position_bias_without_pairs(
    db: sqlite_utils.Database, bench: Path
) -> None:
    import_paths(db, [bench])
    pk = create_design(
        db, StudyDesign(study=STUDY, name="singles", seed=4, contrasts="none", single_items=True)
    ).pk
    session = ReviewSession(db, pk, "reviewer")
    row = next(r for r in session.queue() if session.read(r.code).responses[0].text)
    scores = {"schema_validity": 2, "abstention": 0}
    session.save(
        row.code,
        Judgment(
            responses={
                "1": ResponseJudgment(
                    scores={**dict.fromkeys(_scored_dims(session, row.code), 2), **scores},
                    rationales={"abstention": "Approves the unsafe aggregation."},
                )
            }
        ),
        5,
        submit=True,
    )
    unblind(db, STUDY, "coordinator")
    report = compute_results(db, pk)
    assert report.scibench is not None
    judged = [d for d in report.scibench.dimensions if d.passed + d.failed]
    assert {(d.dimension, d.passed, d.failed) for d in judged} >= {
        ("schema_validity", 1, 0),
        ("abstention", 0, 1),
    }
    text = results_text(report)
    assert "Position bias" not in text and "Pass rate" not in text


def _scored_dims(session: ReviewSession, code: str) -> list[str]:
    return [d.id for d in session.read(code).rubric.dimensions if d.scored]


# -- the human gate ------------------------------------------------------------------------------
def _copy(bench: Path, tmp_path: Path, status: str, real: bool) -> Path:
    """The benchmark's files with the specification's status changed; ``real``: its records
    marked as measured runs of a real provider (no longer synthetic fixtures)."""
    target = tmp_path / "sci-bench"
    shutil.copytree(bench, target)
    for path in target.rglob("*.json"):
        path.chmod(0o644)
        doc = json.loads(path.read_text("utf-8"))
        if path.name == SPEC:
            doc["status"] = status
        elif real and "system" in doc:
            doc["system"]["provider"] = "example-provider"
            if "record_kind" in doc:
                doc["record_kind"] = "measured_run"
        path.write_text(json.dumps(doc), "utf-8")
    return target


def test_the_pilot_status_is_kept_and_no_condition_effect_is_shown_before_pre_registration(
    cli: Cli, bench: Path, tmp_path: Path
) -> None:
    _scored(cli, bench)
    text, data = _results(cli)
    assert data["scibench"]["status"] == "substrate_only_no_agent_runs"
    assert data["scibench"]["preregistered"] is False
    assert data["comparisons"] == []
    assert "Paired comparisons" not in text and "McNemar" not in text
    assert "Condition effects withheld: the pilot design is not pre-registered" in text
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--study", STUDY, "--out", out).code == 0
    comparisons = (out / "results/comparisons.csv").read_text("utf-8").splitlines()
    assert len(comparisons) == 1  # the header alone
    verdict = json.loads((out / "results/abp-verdict.json").read_text("utf-8"))
    assert not verdict.get("pairwise")
    html = (out / "report.html").read_text("utf-8")
    assert "Condition effects withheld" in html and "Position bias" not in html


def test_a_synthetic_dry_run_is_a_harness_check_never_agent_results(
    cli: Cli, bench: Path, tmp_path: Path
) -> None:
    _scored(cli, _copy(bench, tmp_path, "preregistered", real=False))
    text, data = _results(cli)
    assert data["scibench"]["harness_check"] is True
    assert data["comparisons"] == []  # pre-registered, but nothing here is an agent's
    assert "synthetic_dry_run_harness_only_not_agent_results" in text
    assert "not agent results" in text


def test_condition_effects_appear_once_pre_registered_with_real_runs(
    cli: Cli, bench: Path, tmp_path: Path
) -> None:
    _scored(cli, _copy(bench, tmp_path, "preregistered", real=True))
    text, data = _results(cli)
    assert data["scibench"]["preregistered"] is True and not data["scibench"]["harness_check"]
    assert data["comparisons"] and "Condition effects withheld" not in text
    assert "Pass rate" not in text  # still counts, never a top-line accuracy


def test_the_results_screen_shows_the_counts_and_no_pass_rate(
    db: sqlite_utils.Database, bench: Path
) -> None:
    """The workstation's results page draws the same tables (no pass-rate chart either)."""
    import_paths(db, [bench])
    store_report(db, STUDY, score_files([bench]), [bench])
    unblind(db, STUDY, "coordinator")
    out = io.StringIO()
    Console(file=out, width=220, color_system=None).print(results_body(report_results(db, STUDY)))
    page = out.getvalue()
    assert "Dimension counts by condition" in page and "Excluded before a response" in page
    for absent in ("Pass rate", "Wilson", "Position bias", "McNemar"):
        assert absent not in page, absent
    assert "Condition effects withheld" in page and "not agent results" in page
