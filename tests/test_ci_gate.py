"""The CI regression gate: ``abp-tui baseline save`` and ``abp-tui gate``, driven as CI drives them.

The runs are the generated Arena files of ``fixtures/ci-gate/`` (see its ``make_runs.py``): a
regression that must fail, a drop within noise that must pass with ``--require-significant``,
and a changed task set that must be refused; the demo ABP run folder and a study imported into
the database are gated too. Figures are checked against published values, cited where used.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from abp_tui.analysis.regression_gate import GateConfig, engine_figures
from abp_tui.export.validation import load_schema
from abp_tui.models import RunFacts
from tests.factories import FIXTURES, Cli, CliResult

RUNS = FIXTURES / "ci-gate"
BASELINE_RUN = RUNS / "baseline.results.json"
REGRESSION = RUNS / "regression.results.json"
NOISE = RUNS / "noise.results.json"
CHANGED = RUNS / "changed-tasks.results.json"
ABP_FOLDER = FIXTURES / "demo" / "abp-demo"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _save(cli: Cli, results: Path | str, out: Path) -> CliResult:
    # --db goes after the subcommand (the test runner puts it after the first word otherwise).
    return cli("baseline", "save", results, "--out", out, "--db", cli.db_path)


@pytest.fixture
def baseline(tmp_path: Path, cli: Cli) -> Path:
    out = tmp_path / "abp-baseline.json"
    result = _save(cli, BASELINE_RUN, out)
    assert result.code == 0, result.err
    return out


def _gate(cli: Cli, results: Path | str, baseline: Path, *flags: str) -> tuple[int, Any]:
    result = cli("gate", results, "--baseline", baseline, "--json", *flags)
    assert result.err == "", result.err
    return result.code, json.loads(result.out)


def _engine(report: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(e for e in report["engines"] if e["engine"] == name)
    return found


def _check(report: dict[str, Any], engine: str, metric: str) -> dict[str, Any]:
    found: dict[str, Any] = next(
        c for c in _engine(report, engine)["checks"] if c["metric"] == metric
    )
    return found


# -- the generated runs ----------------------------------------------------------------------


def test_the_committed_runs_are_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location("make_runs", RUNS / "make_runs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    documents = module.documents()
    assert set(documents) == {p.name for p in RUNS.glob("*.results.json")}
    for name, document in documents.items():
        assert (RUNS / name).read_text("utf-8") == module.text(document), name


# -- the baseline ----------------------------------------------------------------------------


def test_the_baseline_snapshots_each_engine_and_matches_its_published_schema(
    baseline: Path,
) -> None:
    document = json.loads(baseline.read_text("utf-8"))
    Draft202012Validator(load_schema("abp-baseline-v1.schema.json")).validate(document)
    assert document["schema"] == "abp-baseline/v1"
    assert document["taskIds"] == [f"t{i:02d}" for i in range(1, 11)]
    assert document["trials"] == 2
    assert document["source"] == {"kind": "arena-results", "id": "run-baseline",
                                  "harness": "arena 0.1.0"}  # fmt: skip
    claude = next(e for e in document["engines"] if e["engine"] == "claude-code")
    # The agent-error trial is an engine error: excluded from every figure, never a loss.
    assert (claude["scoredTrials"], claude["excludedTrials"], claude["passed"]) == (20, 1, 14)
    assert len(claude["outcomes"]) == 20
    oxagen = next(e for e in document["engines"] if e["engine"] == "oxagen")
    assert oxagen["passed"] == 18 and oxagen["passRate"]["point"] == 0.9
    # Tokens 40,000 + 1,000 x task + 100 x trial: the middle two of the 20 trials are 44,100
    # and 45,200 (tasks 5 and 6), so the median is 44,650.
    assert oxagen["medianTokensTotal"] == 44_650
    assert document["receipts"] == [
        {"role": "results", "path": str(BASELINE_RUN), "sha256": _sha(BASELINE_RUN),
         "bytes": BASELINE_RUN.stat().st_size}
    ]  # fmt: skip


def test_the_baseline_interval_is_newcombes_wilson_score_interval() -> None:
    # Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score):
    # 15/148 gives 0.0624 to 0.1605 and 0/20 gives 0.0000 to 0.1611.
    def runs(passed: int, n: int, engine: str) -> list[RunFacts]:
        return [
            RunFacts(
                id=f"{engine}{i}",
                task=f"x{i}",
                condition=engine,
                trial=1,
                origin_status=None,
                automated_outcome="passed" if i < passed else "failed",
                excluded_reason=None,
                total_tokens=None,
                wall_clock_ms=None,
                cost_usd=None,
                diff_bytes=None,
            )
            for i in range(n)
        ]

    a, b = engine_figures([*runs(15, 148, "a"), *runs(0, 20, "b")])
    assert a.pass_rate.wilson95 == pytest.approx((0.0624, 0.1605), abs=5e-5)
    assert b.pass_rate.wilson95 == pytest.approx((0.0, 0.1611), abs=5e-5)


def test_a_bad_run_never_replaces_a_saved_baseline(
    tmp_path: Path, cli: Cli, baseline: Path
) -> None:
    before = baseline.read_bytes()
    broken = tmp_path / "results.json"
    document = json.loads(BASELINE_RUN.read_text("utf-8"))
    document["results"][3]["trial"] = -1
    broken.write_text(json.dumps(document), "utf-8")
    result = _save(cli, broken, baseline)
    assert result.code == 1
    assert result.err.strip() == (
        f"abp-tui: {broken}: $.results[3].trial: Input should be greater than or equal to 0 "
        "(got -1)"
    )
    assert baseline.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["engines"][0].update(passed=99), "$.engines[0].passed: expected passed <= "
         "scoredTrials"),
        (lambda d: d["engines"][1]["outcomes"].pop(), "$.engines[1].outcomes: expected 20 "
         "outcomes with 18 passed (got 19 with 18)"),
        (lambda d: d.update(schema="arena-baseline/v1"), '$: expected an abp-baseline/v1 '
         'document ("schema")'),
        (lambda d: d["engines"][0].update(scoredTrials="20"), "$.engines[0].scoredTrials: "
         "expected integer, got str"),
        (lambda d: d.update(extra=1), "$: unexpected field 'extra'"),
    ],
)  # fmt: skip
def test_a_tampered_baseline_is_refused_naming_the_field(
    cli: Cli, baseline: Path, edit: Any, message: str
) -> None:
    document = json.loads(baseline.read_text("utf-8"))
    edit(document)
    baseline.write_text(json.dumps(document), "utf-8")
    result = cli("gate", BASELINE_RUN, "--baseline", baseline)
    assert (result.code, result.out) == (1, "")
    assert result.err.strip() == f"abp-tui: {baseline}: {message}"


def test_a_missing_or_malformed_baseline_is_one_clear_line(tmp_path: Path, cli: Cli) -> None:
    missing = tmp_path / "none.json"
    result = cli("gate", BASELINE_RUN, "--baseline", missing)
    assert result.code == 1
    assert "no such baseline (write one with `abp-tui baseline save RESULTS`)" in result.err
    malformed = tmp_path / "bad.json"
    malformed.write_text('{"schema": ', "utf-8")
    result = cli("gate", BASELINE_RUN, "--baseline", malformed)
    assert result.code == 1 and result.err.startswith(f"abp-tui: {malformed}:1: malformed JSON")
    assert "Traceback" not in result.err


# -- the gate on the generated runs ----------------------------------------------------------


def test_the_same_run_passes(cli: Cli, baseline: Path) -> None:
    code, report = _gate(cli, BASELINE_RUN, baseline)
    assert (code, report["passed"], report["blockers"]) == (0, True, [])
    assert {e["engine"]: e["regressed"] for e in report["engines"]} == {
        "claude-code": False,
        "oxagen": False,
    }
    # Wall clock and diff size are reported, not enforced, unless a limit is configured.
    assert _check(report, "oxagen", "median wall clock")["status"] == "warn"


def test_a_regression_fails_the_gate(cli: Cli, baseline: Path) -> None:
    code, report = _gate(cli, REGRESSION, baseline)
    assert (code, report["passed"]) == (1, False)
    rate = _check(report, "oxagen", "pass rate")
    assert (rate["status"], rate["baseline"], rate["current"]) == ("fail", 0.9, 0.5)
    assert rate["decided_by"] == "the drop"
    tokens = _check(report, "oxagen", "median tokens")
    assert tokens["status"] == "fail" and tokens["limit"] == 10
    assert tokens["current"] == pytest.approx(1.3 * tokens["baseline"], rel=1e-4)
    assert _engine(report, "claude-code")["regressed"] is False


def test_a_significant_regression_is_decided_by_the_exact_mcnemar_test(
    cli: Cli, baseline: Path
) -> None:
    code, report = _gate(cli, REGRESSION, baseline, "--require-significant")
    assert code == 1
    rate = _check(report, "oxagen", "pass rate")
    assert (rate["status"], rate["decided_by"]) == ("fail", "exact McNemar")
    test = rate["significance"]
    # Eight paired trials passed in the baseline and failed now, none the other way: the exact
    # McNemar p-value is 2 x 0.5^8 = 2/256 (the example of Arena's methodology: "b = 8, c = 0
    # gives 2/256"; Agresti, Categorical Data Analysis, 3rd ed., section 11.1).
    assert (test["b"], test["c"], test["pairs"]) == (8, 0, 20)
    assert test["p_value"] == pytest.approx(2 / 256, rel=1e-12)


def test_intervals_alone_would_call_that_regression_noise(cli: Cli, baseline: Path) -> None:
    # A baseline without per-trial outcomes leaves only Arena's rule: the Wilson intervals of
    # 18/20 and 10/20 overlap (0.699 < 0.701; Wilson 1927, z = 1.96), so the drop is noise.
    document = json.loads(baseline.read_text("utf-8"))
    for engine in document["engines"]:
        del engine["outcomes"]
    baseline.write_text(json.dumps(document), "utf-8")
    code, report = _gate(
        cli, REGRESSION, baseline, "--require-significant", "--tokens-increase", "off",
        "--cost-increase", "off",
    )  # fmt: skip
    rate = _check(report, "oxagen", "pass rate")
    assert (rate["status"], rate["decided_by"]) == ("warn", "Wilson intervals")
    low = rate["significance"]["baseline_interval"][0]
    high = rate["significance"]["current_interval"][1]
    assert low == pytest.approx(0.6990, abs=5e-4) and high == pytest.approx(0.7007, abs=5e-4)
    assert "the baseline kept no per-trial outcomes" in rate["significance"]["detail"]
    assert _check(report, "oxagen", "median tokens")["status"] == "warn"  # reported only
    assert (code, report["passed"]) == (0, True)


def test_a_drop_within_noise_fails_by_default_and_passes_when_significance_is_required(
    cli: Cli, baseline: Path
) -> None:
    code, strict = _gate(cli, NOISE, baseline)
    assert (code, _check(strict, "oxagen", "pass rate")["status"]) == (1, "fail")
    code, report = _gate(cli, NOISE, baseline, "--require-significant")
    assert (code, report["passed"]) == (0, True)
    rate = _check(report, "oxagen", "pass rate")
    assert (rate["status"], rate["decided_by"]) == ("warn", "exact McNemar")
    # b = 2, c = 1: p = min(1, 2 P(X <= 1)), X ~ Bin(3, 1/2) = min(1, 2 x 4/8) = 1.
    assert (rate["significance"]["b"], rate["significance"]["c"]) == (2, 1)
    assert rate["significance"]["p_value"] == 1.0
    # Tokens +5% and cost +10.25% are within their +10% and +15% limits.
    assert _check(report, "oxagen", "median tokens")["status"] == "pass"
    assert _check(report, "oxagen", "median cost")["status"] == "pass"


def test_a_changed_task_set_is_refused_unless_allowed(cli: Cli, baseline: Path) -> None:
    code, report = _gate(cli, CHANGED, baseline)
    assert (code, report["passed"]) == (1, False)
    assert report["task_mismatch"] == {"baseline_only": ["t10"], "run_only": ["t11"]}
    assert "task set differs" in report["blockers"][0]
    code, allowed = _gate(cli, CHANGED, baseline, "--allow-task-mismatch")
    assert (code, allowed["passed"], allowed["blockers"]) == (0, True, [])
    assert allowed["task_mismatch"] == report["task_mismatch"]


def test_thresholds_come_from_a_config_file_and_flags_override_it(
    tmp_path: Path, cli: Cli, baseline: Path
) -> None:
    config = tmp_path / "gate.json"
    config.write_text(json.dumps({"tokensMaxIncreasePct": 4, "accuracyMaxDropPoints": 0.05}))
    code, report = _gate(cli, NOISE, baseline, "--config", str(config))
    assert code == 1
    assert _check(report, "oxagen", "median tokens")["status"] == "fail"  # +5% > 4%
    assert _check(report, "oxagen", "pass rate")["status"] == "pass"  # 5 points allowed
    code, report = _gate(cli, NOISE, baseline, "--config", str(config), "--tokens-increase", "6")
    assert (code, report["config"]["tokens_max_increase_pct"]) == (0, 6.0)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"tokenMaxIncreasePct": 5}, "$.tokenMaxIncreasePct: unexpected field (got 5)"),
        ({"costMaxIncreasePct": -1}, "$.costMaxIncreasePct: Input should be greater than or "
         "equal to 0 (got -1)"),
        ([1, 2], "$: expected a JSON object of gate thresholds"),
    ],
)  # fmt: skip
def test_a_bad_config_is_refused_naming_the_field(
    tmp_path: Path, cli: Cli, baseline: Path, config: Any, message: str
) -> None:
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(config))
    result = cli("gate", NOISE, "--baseline", baseline, "--config", path)
    assert (result.code, result.out) == (1, "")
    assert result.err.strip() == f"abp-tui: {path}: {message}"


def test_arena_names_are_the_config_keys() -> None:
    # An arena-gate.json reads the same (Arena's GateThresholds, src/baseline.ts).
    arena = {
        "accuracyMaxDropPoints": 0,
        "accuracyRequireSignificant": False,
        "tokensMaxIncreasePct": 10,
        "costMaxIncreasePct": 15,
        "speedMaxIncreasePct": None,
        "allowTaskMismatch": False,
    }
    assert GateConfig.model_validate(arena) == GateConfig()


def test_one_engine_can_be_gated_alone(cli: Cli, baseline: Path) -> None:
    code, report = _gate(cli, REGRESSION, baseline, "--engine", "claude-code")
    assert (code, [e["engine"] for e in report["engines"]]) == (0, ["claude-code"])
    code, report = _gate(cli, REGRESSION, baseline, "--engine", "ghost")
    assert (code, report["blockers"]) == (1, ["the baseline has no engine 'ghost'"])


def test_a_run_with_no_engine_in_common_cannot_be_gated(
    tmp_path: Path, cli: Cli, baseline: Path
) -> None:
    document = json.loads(BASELINE_RUN.read_text("utf-8"))
    for trial in document["results"]:
        trial["agent"]["adapter"] += "-next"
    for agent in document["manifest"]["agents"]:
        agent["adapter"] += "-next"
    renamed = tmp_path / "results.json"
    renamed.write_text(json.dumps(document))
    code, report = _gate(cli, renamed, baseline)
    assert code == 1
    assert report["blockers"] == ["no engine of the baseline is in the run: nothing to gate"]
    assert report["unmatched_baseline"] == ["claude-code", "oxagen"]
    assert report["new_engines"] == ["claude-code-next", "oxagen-next"]


def test_the_text_report_names_the_test_and_the_receipts(cli: Cli, baseline: Path) -> None:
    result = cli("gate", REGRESSION, "--baseline", baseline, "--require-significant")
    assert result.code == 1
    lines = result.out.splitlines()
    assert "FAIL oxagen" in lines and "PASS claude-code" in lines
    assert any("[decided by: exact McNemar]" in line and "b = 8" in line for line in lines)
    assert f"  baseline  {_sha(baseline)}  {baseline}" in lines
    assert f"  results   {_sha(REGRESSION)}  {REGRESSION}" in lines
    assert lines[-1] == "FAIL: regression detected."


def test_names_from_a_run_never_reach_the_terminal_as_escapes(
    tmp_path: Path, cli: Cli, baseline: Path
) -> None:
    document = json.loads(BASELINE_RUN.read_text("utf-8"))
    for trial in document["results"]:
        if trial["agent"]["adapter"] == "oxagen":
            trial["agent"]["adapter"] = "ox\x1b[2J\u202eagen"
    document["manifest"]["agents"][0]["adapter"] = "ox\x1b[2J\u202eagen"
    evil = tmp_path / "results.json"
    evil.write_text(json.dumps(document))
    result = cli("gate", evil, "--baseline", baseline)
    assert "\x1b" not in result.out and "\u202e" not in result.out
    assert "Not gated: ox␛[2J⟨U+202E⟩agen is in this run but not in the baseline" in result.out


def test_results_that_are_neither_a_run_nor_a_study_are_refused(cli: Cli, baseline: Path) -> None:
    result = cli("gate", RUNS / "make_runs.py", "--baseline", baseline)
    assert result.code == 1
    assert "expected an Arena results.json, an ABP run folder or a study id" in result.err
    missing_db = baseline.parent / "none.db"
    result = cli("gate", "no-such-study", "--baseline", baseline, "--db", missing_db)
    assert result.code == 1
    assert result.err.strip() == (
        f"abp-tui: no-such-study: no such file or folder, and no database at {missing_db} to "
        "find a study in"
    )
    assert not missing_db.exists()
    assert cli("import", BASELINE_RUN).code == 0
    result = cli("gate", "no-such-study", "--baseline", baseline)
    assert result.code == 1
    assert result.err.strip() == (
        "abp-tui: no-such-study: no such file or folder, and no study 'no-such-study' in "
        f"{cli.db_path}"
    )


# -- other kinds of RESULTS ------------------------------------------------------------------


def test_an_abp_run_folder_is_gated_with_every_file_as_a_receipt(tmp_path: Path, cli: Cli) -> None:
    folder = tmp_path / "run"
    shutil.copytree(ABP_FOLDER, folder)
    out = tmp_path / "abp-baseline.json"
    assert _save(cli, folder, out).code == 0
    saved = json.loads(out.read_text("utf-8"))
    assert saved["source"] == {"kind": "abp-run-folder", "id": "run-20260118-demo",
                               "harness": None}  # fmt: skip
    traces = sorted((folder / "traces").glob("*.jsonl"))
    assert {r["path"]: r["sha256"] for r in saved["receipts"]} == {
        str(p): _sha(p) for p in [folder / "run.json", *traces]
    }
    code, report = _gate(cli, folder, out)
    assert (code, report["passed"]) == (0, True)

    # Two of alpha's resolved trials now fail verification.
    flipped = [p for p in traces if "alpha" in p.name and '"outcome":"resolved"' in p.read_text()]
    for path in flipped[:2]:
        path.write_text(path.read_text().replace('"outcome":"resolved"', '"outcome":"failed"'))
    code, report = _gate(cli, folder, out)
    rate = _check(report, "demo-engine-alpha", "pass rate")
    assert (code, rate["status"]) == (1, "fail")
    assert rate["baseline"] == pytest.approx(11 / 12) and rate["current"] == pytest.approx(9 / 12)
    assert {r["path"]: r["sha256"] for r in report["receipts"][1:]}[str(flipped[0])] == _sha(
        flipped[0]
    )


def test_a_study_in_the_database_is_gated_with_its_imports_as_receipts(
    tmp_path: Path, cli: Cli
) -> None:
    assert cli("import", BASELINE_RUN).code == 0
    out = tmp_path / "abp-baseline.json"
    assert _save(cli, "run-baseline", out).code == 0
    saved = json.loads(out.read_text("utf-8"))
    assert saved["source"]["kind"] == "study"
    assert saved["receipts"] == [
        {"role": "import", "path": BASELINE_RUN.name, "sha256": _sha(BASELINE_RUN),
         "bytes": BASELINE_RUN.stat().st_size}
    ]  # fmt: skip
    # The stored study and the file give the same figures.
    code, report = _gate(cli, BASELINE_RUN, out)
    assert (code, report["passed"]) == (0, True)
    code, report = _gate(cli, REGRESSION, out, "--require-significant")
    assert (code, _check(report, "oxagen", "pass rate")["decided_by"]) == (1, "exact McNemar")
