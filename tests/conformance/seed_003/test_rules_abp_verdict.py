"""Seed 003 (Agent Benchmark Protocol), sections 3, 8 and 10: the statistics every number carries,
harness failures, receipts, the abp-verdict/v1 document and the CI gate.

Each test is one row of CONFORMANCE.md. The runs are the committed Arena files of
``fixtures/ci-gate/`` (two engines on one model, one agent-error trial) and the demo ABP folder;
figures are checked against published values, cited where used.
"""

from __future__ import annotations

import hashlib
import json
from math import comb
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from abp_tui.export.validation import load_schema
from abp_tui.export.verdict import schema
from tests.factories import FIXTURES, Cli

RUNS = FIXTURES / "ci-gate"
BASELINE_RUN = RUNS / "baseline.results.json"
STUDY = "run-baseline"


@pytest.fixture
def verdict(cli: Cli, tmp_path: Path) -> dict[str, Any]:
    """abp-verdict/v1 of the baseline Arena run, as ``abp-tui export abp-verdict`` writes it."""
    assert cli("import", BASELINE_RUN).code == 0
    assert cli("unblind", "--study", STUDY, "--yes").code == 0
    out = tmp_path / "verdict.json"
    result = cli("export", "abp-verdict", "--study", STUDY, "--out", out)
    assert result.code == 0, result.err
    loaded: dict[str, Any] = json.loads(out.read_text("utf-8"))
    return loaded


def _engine(verdict: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(e for e in verdict["perEngine"] if e["engine"] == name)
    return found


# -- section 3, design principles ------------------------------------------------------------
def test_success_rates_carry_wilson_intervals(cli: Cli, verdict: dict[str, Any]) -> None:
    # Newcombe (1998), Statistics in Medicine 17:857, Table I: 81/263, Wilson score interval
    # (method 3) 0.2553 to 0.3662.
    def wilson(x: int, n: int) -> dict[str, Any]:
        result = cli("stats", "wilson", str(x), str(n), "--json", "--db", cli.db_path)
        assert result.code == 0, result.err
        loaded: dict[str, Any] = json.loads(result.out)
        return loaded

    published = wilson(81, 263)
    assert (published["low"], published["high"]) == (
        pytest.approx(0.2553, abs=5e-5),
        pytest.approx(0.3662, abs=5e-5),
    )
    # The verdict's resolve rate (14 of 20 resolved) carries that same interval.
    rate = _engine(verdict, "claude-code")["resolveRate"]
    own = wilson(14, 20)
    assert rate["point"] == 0.7
    assert rate["wilson95"] == [
        pytest.approx(own["low"], abs=1e-6),
        pytest.approx(own["high"], abs=1e-6),
    ]


def test_paired_comparisons_use_the_exact_mcnemar_test(verdict: dict[str, Any]) -> None:
    (pair,) = verdict["pairwise"]
    b, c = pair["mcnemar"]["discordant"]
    # Exact conditional McNemar (McNemar 1947; Agresti, Categorical Data Analysis, 3rd ed.,
    # 11.1.1): p = 2 P(X <= min(b, c)), X ~ Bin(b + c, 1/2).
    expected = min(1.0, 2 * sum(comb(b + c, k) for k in range(min(b, c) + 1)) / 2 ** (b + c))
    assert (b, c) == (2, 6) and expected == 74 / 256
    assert pair["mcnemar"]["pExact"] == pytest.approx(expected, abs=1e-6)


def test_continuous_metrics_get_seeded_bootstrap_intervals(
    cli: Cli, tmp_path: Path, verdict: dict[str, Any]
) -> None:
    (pair,) = verdict["pairwise"]
    delta = pair["diffDelta"]
    assert delta["seed"] == json.loads(BASELINE_RUN.read_text("utf-8"))["manifest"]["seed"]
    low, high = delta["bootstrap95"]
    assert low <= delta["relMedian"] <= high
    again = tmp_path / "again.json"
    assert cli("export", "abp-verdict", "--study", STUDY, "--out", again).code == 0
    assert json.loads(again.read_text("utf-8"))["pairwise"][0]["diffDelta"] == delta


def test_an_engine_error_is_excluded_never_a_loss(verdict: dict[str, Any]) -> None:
    engine = _engine(verdict, "claude-code")
    # 21 trials, one agent-error: 20 scored, the error in no denominator.
    assert (engine["scoredTrials"], engine["excludedEngineErrors"]) == (20, 1)
    assert engine["resolveRate"]["point"] == 14 / 20


def test_a_result_ships_its_receipts_and_a_reproduce_command(
    cli: Cli, tmp_path: Path, verdict: dict[str, Any]
) -> None:
    assert {"trials", "transcripts", "traces"} <= set(verdict["receipts"])
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--study", STUDY, "--out", out).code == 0
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert manifest["reproduce"] == "abp-tui verify ."
    files = {e["path"] for e in manifest["files"]}
    assert verdict["receipts"]["trials"] in files
    assert cli("verify", out).code == 0


def test_efficiency_is_reported_beside_resolution(verdict: dict[str, Any]) -> None:
    for engine in verdict["perEngine"]:
        for field in (
            "medianDiffBytesNormalized",
            "medianTokensTotal",
            "medianWallClockMs",
            "medianComputedUsd",
        ):
            assert isinstance(engine[field], int | float), (engine["engine"], field)


# -- section 8, verdict format ---------------------------------------------------------------
def test_the_verdict_document_has_the_seeds_fields(verdict: dict[str, Any]) -> None:
    Draft202012Validator(schema()).validate(verdict)
    assert verdict["schema"] == "abp-verdict/v1" and verdict["run"] == STUDY
    engine = _engine(verdict, "oxagen")
    assert set(engine) >= {
        "engine", "scoredTrials", "excludedEngineErrors", "resolveRate",
        "medianDiffBytesNormalized", "medianTokensTotal", "medianWallClockMs",
        "medianComputedUsd",
    }  # fmt: skip
    assert set(engine["resolveRate"]) == {"point", "wilson95"}
    (pair,) = verdict["pairwise"]
    assert set(pair) >= {"a", "b", "mcnemar", "diffDelta"}
    assert set(pair["diffDelta"]) == {"relMedian", "bootstrap95", "seed"}


# -- section 10, CI integration --------------------------------------------------------------
def _baseline(cli: Cli, tmp_path: Path) -> Path:
    out = tmp_path / "abp-baseline.json"
    result = cli("baseline", "save", BASELINE_RUN, "--out", out, "--db", cli.db_path)
    assert result.code == 0, result.err
    return out


def _gate(cli: Cli, run: Path, baseline: Path, *flags: str) -> tuple[int, dict[str, Any]]:
    result = cli("gate", run, "--baseline", baseline, "--json", *flags)
    return result.code, json.loads(result.out)


def _check(report: dict[str, Any], metric: str) -> dict[str, Any]:
    engine = next(e for e in report["engines"] if e["engine"] == "oxagen")
    found: dict[str, Any] = next(c for c in engine["checks"] if c["metric"] == metric)
    return found


def test_the_baseline_is_a_committed_json_artifact(cli: Cli, tmp_path: Path) -> None:
    baseline = _baseline(cli, tmp_path)
    document = json.loads(baseline.read_text("utf-8"))
    Draft202012Validator(load_schema("abp-baseline-v1.schema.json")).validate(document)
    assert document["schema"] == "abp-baseline/v1"
    assert {e["engine"] for e in document["engines"]} == {"claude-code", "oxagen"}


def test_a_significant_resolve_rate_drop_fails_the_gate(cli: Cli, tmp_path: Path) -> None:
    baseline = _baseline(cli, tmp_path)
    code, report = _gate(cli, RUNS / "regression.results.json", baseline, "--require-significant")
    rate = _check(report, "pass rate")
    assert (code, rate["status"], rate["decided_by"]) == (1, "fail", "exact McNemar")
    # b = 8, c = 0: p = 2 x 0.5^8 (Agresti, Categorical Data Analysis, 3rd ed., 11.1).
    assert rate["significance"]["p_value"] == pytest.approx(2 / 256)
    code, noise = _gate(cli, RUNS / "noise.results.json", baseline, "--require-significant")
    assert (code, _check(noise, "pass rate")["status"]) == (0, "warn")


def test_growth_past_a_committed_threshold_fails_the_gate(cli: Cli, tmp_path: Path) -> None:
    baseline = _baseline(cli, tmp_path)
    code, report = _gate(cli, RUNS / "regression.results.json", baseline)
    tokens = _check(report, "median tokens")
    assert (code, tokens["status"], tokens["limit"]) == (1, "fail", 10)
    code, report = _gate(
        cli, RUNS / "noise.results.json", baseline, "--require-significant",
        "--wall-clock-increase", "0",
    )  # fmt: skip
    assert _check(report, "median wall clock")["limit"] == 0


def test_mismatched_task_sets_are_refused(cli: Cli, tmp_path: Path) -> None:
    baseline = _baseline(cli, tmp_path)
    code, report = _gate(cli, RUNS / "changed-tasks.results.json", baseline)
    assert (code, report["passed"]) == (1, False)
    assert report["task_mismatch"] == {"baseline_only": ["t10"], "run_only": ["t11"]}


def test_a_gate_report_attaches_its_receipts(cli: Cli, tmp_path: Path) -> None:
    baseline = _baseline(cli, tmp_path)
    regression = RUNS / "regression.results.json"
    _code, report = _gate(cli, regression, baseline)
    receipts = {r["role"]: r for r in report["receipts"]}
    assert set(receipts) == {"baseline", "results"}
    digest = hashlib.sha256(regression.read_bytes()).hexdigest()
    assert (receipts["results"]["sha256"], receipts["results"]["bytes"]) == (
        digest,
        regression.stat().st_size,
    )
