"""Seed 003 section 9: the public conformance suite's adversarial fixtures that concern a grader,
shipped as named fixtures in ``fixtures/abp-conformance/`` (README.md there says what each one
must do): "an envelope that lies about tokens" and "a trial that must be scored engine-error";
and principle 4, "Harness failures are not agent failures. An engine that could not be invoked
is excluded from comparison, not counted as a loss."
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import sqlite_utils

from tests.conformance.seed_003.abp_runs import CONFORMANCE, copy_run, imported
from tests.factories import Cli


def _count(cli: Cli, table: str) -> int:
    if not cli.db_path.exists():
        return 0
    db = sqlite_utils.Database(cli.db_path)
    try:
        return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        db.close()


def test_lying_tokens_abp_trace_is_refused(tmp_path: Path, cli: Cli) -> None:
    """run.end totals that disagree with the trace's model.call events refuse the import."""
    folder = copy_run(CONFORMANCE / "lying-tokens", tmp_path / "lying-tokens")
    done = cli("import", folder)
    assert done.code == 1
    message = done.err
    assert "cf-parse-dates.cf-liar.trial-1.abp-trace.jsonl:5" in message
    assert "$.tokens.input" in message
    assert "run.end tokens.input is 5200 but the model.call events add up to 1200" in message
    assert "Traceback" not in message
    # All or nothing: the honest engine's trace is not stored either.
    assert _count(cli, "runs") == 0 and _count(cli, "studies") == 0


def test_lying_tokens_abp_trace_is_refused_by_the_gate(tmp_path: Path, cli: Cli) -> None:
    folder = copy_run(CONFORMANCE / "lying-tokens", tmp_path / "lying-tokens")
    out = tmp_path / "abp-baseline.json"
    done = cli("baseline", "save", "--db", cli.db_path, folder, "--out", out)
    assert done.code == 1 and "model.call events add up to 1200" in done.err
    assert not out.exists()


def test_lying_tokens_arena_envelope_is_refused(tmp_path: Path, cli: Cli) -> None:
    """An Arena trial whose token total contradicts its own parts is refused, naming it."""
    source = CONFORMANCE / "arena-lying-tokens" / "results.json"
    done = cli("import", source)
    assert done.code == 1
    assert "$.results[3].tokens" in done.err
    assert "total is 2000 but input + output + cacheRead + cacheWrite add up to 5301" in done.err
    assert _count(cli, "runs") == 0


def test_arena_envelope_tokens_are_accepted_as_unverified(tmp_path: Path, cli: Cli) -> None:
    """An Arena results.json has no per-call events: its totals are kept as stated and every
    output says they are unverified."""
    folder = tmp_path / "arena-envelope"
    shutil.copytree(CONFORMANCE / "arena-envelope", folder)
    assert cli("import", folder / "results.json").code == 0
    assert cli("unblind", "--study", "arena-envelope", "--yes").code == 0
    unverified = "Token totals of Arena runs are the envelope's own and unverified"
    text = cli("results", "--study", "arena-envelope").out
    assert f"Note: {unverified}" in text
    report = json.loads(cli("results", "--study", "arena-envelope", "--json").out)
    assert report["model_match"]["tokens_note"].startswith(unverified)
    alpha = next(c for c in report["conditions"] if c["condition"] == "cf-alpha")
    assert alpha["pass_rate"]["x"] == 3
    out = tmp_path / "verdict.json"
    assert cli("export", "abp-verdict", "--study", "arena-envelope", "--out", out).code == 0
    verdict = json.loads(out.read_text(encoding="utf-8"))
    assert unverified in verdict["notes"]
    # The stated totals are what the medians are over (5300 + n tokens per trial).
    assert (
        next(e for e in verdict["perEngine"] if e["engine"] == "cf-alpha")["medianTokensTotal"]
        == 5301
    )


def test_abp_trace_tokens_are_verified_not_flagged(tmp_path: Path, cli: Cli) -> None:
    """The control: an ABP trace's totals were checked against its calls, so no such note."""
    study = imported(cli, copy_run(CONFORMANCE / "engine-error", tmp_path / "engine-error"))
    text = cli("results", "--study", study).out
    assert "unverified" not in text


def test_engine_error_trial_is_excluded_never_a_loss(tmp_path: Path, cli: Cli) -> None:
    """cf-beta could not be invoked on cf-strip-bom (run.end outcome engine-error)."""
    study = imported(cli, copy_run(CONFORMANCE / "engine-error", tmp_path / "engine-error"))
    report = json.loads(cli("results", "--study", study, "--json").out)
    beta = next(c for c in report["conditions"] if c["condition"] == "cf-beta")
    assert beta["runs"] == 3 and beta["states"]["INFRA_ERROR"] == 1
    assert (beta["pass_rate"]["x"], beta["pass_rate"]["n"]) == (1, 2)  # not 1/3
    assert beta["states"]["MODEL_FAIL"] == 1  # only the unresolved trial
    (comparison,) = report["comparisons"]
    paired = comparison["paired"]
    assert paired["excluded_b"] == 1 and paired["pairs"] == 2
    assert (paired["a_pass_b_fail"], paired["a_fail_b_pass"]) == (1, 0)
    assert comparison["head_to_head"]["resolved_pairs"] == 1
    text = cli("results", "--study", study).out
    assert re.search(r"cf-beta\s+3\s+0\s+0\s+1\s+1\s+0\s+1\s", text)


def test_engine_error_trial_is_excluded_in_the_abp_verdict(tmp_path: Path, cli: Cli) -> None:
    study = imported(cli, copy_run(CONFORMANCE / "engine-error", tmp_path / "engine-error"))
    out = tmp_path / "verdict.json"
    assert cli("export", "abp-verdict", "--study", study, "--out", out).code == 0
    verdict = json.loads(out.read_text(encoding="utf-8"))
    beta = next(e for e in verdict["perEngine"] if e["engine"] == "cf-beta")
    assert (beta["scoredTrials"], beta["excludedEngineErrors"]) == (2, 1)
    assert beta["resolveRate"]["point"] == 0.5
    (pair,) = verdict["pairwise"]
    assert pair["mcnemar"]["discordant"] == [1, 0]


def test_engine_error_trial_is_no_regression_in_the_gate(tmp_path: Path, cli: Cli) -> None:
    """Gated against a baseline where cf-beta resolved cf-strip-bom, the engine error is not a
    drop: it is left out of the scored trials, not counted as a failure."""
    folder = copy_run(CONFORMANCE / "engine-error", tmp_path / "engine-error")
    baseline = tmp_path / "abp-baseline.json"
    assert cli("baseline", "save", "--db", cli.db_path, folder, "--out", baseline).code == 0
    document = json.loads(baseline.read_text(encoding="utf-8"))
    beta = next(e for e in document["engines"] if e["engine"] == "cf-beta")
    assert (beta["scoredTrials"], beta["excludedTrials"], beta["passed"]) == (2, 1, 1)
    gated = cli("gate", folder, "--baseline", baseline, "--json")
    assert gated.code == 0, gated.out
    checks = next(e for e in json.loads(gated.out)["engines"] if e["engine"] == "cf-beta")
    rate = next(c for c in checks["checks"] if c["metric"] == "pass rate")
    assert rate["status"] == "pass" and rate["current"] == 0.5


def test_arena_agent_error_trial_is_excluded_never_a_loss(tmp_path: Path, cli: Cli) -> None:
    source = CONFORMANCE / "arena-envelope" / "results.json"
    assert cli("import", source).code == 0
    assert cli("unblind", "--study", "arena-envelope", "--yes").code == 0
    report = json.loads(cli("results", "--study", "arena-envelope", "--json").out)
    beta = next(c for c in report["conditions"] if c["condition"] == "cf-beta")
    assert beta["states"]["INFRA_ERROR"] == 1
    assert (beta["pass_rate"]["x"], beta["pass_rate"]["n"]) == (2, 2)
    assert report["comparisons"][0]["paired"]["excluded_b"] == 1
