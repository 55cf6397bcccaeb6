"""Arena results.json: manifest and trial results into a study, detection, bad trials.

No public sample exists; the file below follows the field list of Arena's RunManifest and
TrialResult, with two engines on one model, two tasks, two trials each and one agent-error trial.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.formats import abp, arena, detect
from abp_tui.models import ResultState
from abp_tui.store.queries import count, load_run
from tests.factories import Cli
from tests.import_helpers import nothing_stored

RUN_ID = "run-20260718-a41c"
MODEL = "anthropic/claude-sonnet-5"
RESOLVED = "claude-sonnet-5-20260601"
TASKS = ["fixture-fizzbuzz", "fixture-off-by-one"]
AGENTS: list[dict[str, Any]] = [
    {"adapter": "oxagen", "model": MODEL},
    {"adapter": "claude-code", "model": MODEL},
]
VERSIONS = {"oxagen": "1.4.2", "claude-code": "2.1.0"}


def _trial(task: str, adapter: str, trial: int, outcome: str, n: int) -> dict[str, Any]:
    wall = 90.5 + 10 * n
    doc: dict[str, Any] = {
        "id": f"{task}__{adapter}__t{trial}",
        "taskId": task,
        "trial": trial,
        "agent": {
            "adapter": adapter,
            "model": MODEL,
            "resolvedModel": RESOLVED,
            "version": VERSIONS[adapter],
            "bin": f"/usr/local/bin/{adapter}",
        },
        "outcome": outcome,
        "verify": {"passed": outcome == "passed", "output": f"{3 - (outcome != 'passed')} passed"},
        "timing": {"wallClockSeconds": wall, "agentReportedSeconds": wall - 2},
        "tokens": {
            "input": 1200 + n,
            "output": 380 + n,
            "cacheRead": 9000,
            "cacheWrite": 0,
            "total": 10580 + 2 * n,
        },
        "cost": {"computedUsd": 0.25 + n / 100, "agentReportedUsd": None, "pricingModel": MODEL},
        "activity": {
            "toolCalls": 12 + n,
            "iterations": 4,
            "filesTouched": 1,
            "linesAdded": 6,
            "linesRemoved": 2,
            "diffBytes": 410 + n,
        },
        "provenance": {
            "runId": RUN_ID,
            "startedAt": f"2026-07-18T09:{n:02d}:00.000Z",
            "finishedAt": f"2026-07-18T09:{n:02d}:59.000Z",
        },
        "transcriptPath": f"transcripts/{task}__{adapter}__t{trial}.jsonl",
        "diffPath": f"diffs/{task}__{adapter}__t{trial}.diff",
    }
    return doc


def _results() -> dict[str, Any]:
    trials = []
    outcomes = iter(["passed", "passed", "failed", "passed", "passed", "timeout", "passed"])
    n = 0
    for task in TASKS:
        for agent in AGENTS:
            for t in (1, 2):
                if (task, agent["adapter"], t) == ("fixture-off-by-one", "claude-code", 2):
                    trials.append(_agent_error(task, n))
                else:
                    trials.append(_trial(task, agent["adapter"], t, next(outcomes), n))
                n += 1
    return {
        "manifest": {
            "runId": RUN_ID,
            "createdAt": "2026-07-18T09:00:00.000Z",
            "harness": {"name": "arena", "version": "0.9.1", "gitSha": "3c9e1f0"},
            "host": {"os": "linux", "arch": "arm64", "node": "22.4.0"},
            "seed": 20260718,
            "trials": 2,
            "budgetUsd": 5,
            "timeoutSeconds": 1200,
            "agents": copy.deepcopy(AGENTS),
            "taskIds": list(TASKS),
            "matchedModels": True,
            "reproduceCommand": "arena run --tasks builtin --seed 20260718",
        },
        "results": trials,
    }


def _agent_error(task: str, n: int) -> dict[str, Any]:
    doc = _trial(task, "claude-code", 2, "agent-error", n)
    doc["verify"] = {"passed": False, "output": ""}
    doc["timing"] = {"wallClockSeconds": 0.4, "agentReportedSeconds": None}
    doc["tokens"] = None
    doc["cost"] = {"computedUsd": None, "agentReportedUsd": None, "pricingModel": None}
    doc["activity"]["toolCalls"] = 0
    doc["error"] = "spawn claude ENOENT"
    return doc


ERROR_ID = "fixture-off-by-one__claude-code__t2"
PASSED_ID = "fixture-fizzbuzz__oxagen__t1"


def _write(path: Path, doc: Any, indent: int | None = 2) -> Path:
    path.write_text(json.dumps(doc, indent=indent), encoding="utf-8")
    return path


def _rows(cli: Cli, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    return list(sqlite_utils.Database(cli.db_path).execute(sql, params or []).fetchall())


def test_results_import_as_study_conditions_tasks_and_runs(tmp_path: Path, cli: Cli) -> None:
    result = cli("import", _write(tmp_path / "results.json", _results()), "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["totals"] == {
        "studies added": 1,
        "conditions added": 2,
        "runs added": 8,
    }
    [(sid, protocol, description)] = _rows(cli, "SELECT id, protocol, description FROM studies")
    assert (sid, protocol) == (RUN_ID, "arena")
    for fragment in (
        "harness arena 0.9.1 (git 3c9e1f0)",
        "matchedModels: true",
        "Seed 20260718",
        "2 tasks listed.",
        "Reproduce: arena run --tasks builtin",
    ):
        assert fragment in description
    assert "must not be drawn" not in description

    conditions = {
        r[0]: (r[1], json.loads(r[2]))
        for r in _rows(cli, "SELECT id, label, metadata FROM conditions")
    }
    assert sorted(conditions) == ["claude-code", "oxagen"]
    label, meta = conditions["oxagen"]
    assert label == "oxagen 1.4.2"  # the version the trials report; the manifest has none
    assert meta["model"] == MODEL
    assert meta["version"] == "1.4.2"
    assert (meta["budgetUsd"], meta["timeoutSeconds"], meta["seed"]) == (5, 1200, 20260718)

    # No task text in the file: the tasks are placeholders, nothing is invented.
    tasks = _rows(cli, "SELECT id, prompt, placeholder FROM tasks ORDER BY id")
    assert tasks == [("fixture-fizzbuzz", "", 1), ("fixture-off-by-one", "", 1)]

    db = sqlite_utils.Database(cli.db_path)
    run = load_run(db, RUN_ID, PASSED_ID)
    assert run is not None
    assert (run.task_id, run.condition_id, run.trial) == ("fixture-fizzbuzz", "oxagen", 1)
    assert (run.engine, run.engine_version) == ("oxagen", "1.4.2")
    assert (run.model, run.model_version) == (MODEL, RESOLVED)
    assert run.tokens is not None
    assert (run.tokens.input, run.tokens.output) == (1200, 380)
    assert (run.tokens.cache_read, run.tokens.cache_write, run.tokens.total) == (9000, 0, 10580)
    assert run.tool_calls == 12
    assert run.wall_clock_ms == 90500
    assert run.cost_usd == 0.25
    assert run.started_at == "2026-07-18T09:00:00.000Z"
    assert run.automated_outcome == "passed"
    assert run.origin_status is None
    assert run.excluded_reason is None
    assert run.shown("output") == "not exposed"
    assert run.shown("provider") == "not exposed"
    assert run.metadata["transcriptPath"] == f"transcripts/{PASSED_ID}.jsonl"
    assert run.metadata["diffPath"] == f"diffs/{PASSED_ID}.diff"
    # No diff file is beside results.json: recorded as missing, not an error (test_arena_diffs).
    assert run.metadata["diffFile"] == {"missing": True} and run.diff is None
    assert run.metadata["verify"] == {"passed": True, "output": "3 passed"}
    assert run.metadata["activity"]["diffBytes"] == 410
    assert run.source_file == "results.json"


def test_agent_error_is_an_engine_error_not_a_loss(tmp_path: Path, cli: Cli) -> None:
    assert cli("import", _write(tmp_path / "results.json", _results())).code == 0
    db = sqlite_utils.Database(cli.db_path)
    run = load_run(db, RUN_ID, ERROR_ID)
    assert run is not None
    assert run.origin_status is ResultState.INFRA_ERROR
    assert not run.origin_status.in_quality_denominator
    assert run.automated_outcome == "agent-error"
    assert run.excluded_reason == "agent-error: spawn claude ENOENT"
    assert run.metadata["error"] == "spawn claude ENOENT"
    # The format has tokens and cost; this trial's are null: missing, not "not exposed".
    assert run.tokens is None
    assert run.shown("tokens") == "missing"
    assert run.shown("cost_usd") == "missing"
    outcomes = dict(_rows(cli, "SELECT automated_outcome, COUNT(*) FROM runs GROUP BY 1"))
    assert outcomes == {"passed": 5, "failed": 1, "timeout": 1, "agent-error": 1}
    excluded = _rows(cli, "SELECT id FROM runs WHERE origin_status = 'INFRA_ERROR'")
    assert excluded == [(ERROR_ID,)]


def test_reimport_adds_nothing(tmp_path: Path, cli: Cli) -> None:
    src = _write(tmp_path / "results.json", _results())
    assert cli("import", src).code == 0
    again = cli("import", src)
    assert again.code == 0
    assert "Nothing new was added." in again.out
    # Same content, different bytes: every record is recognised as unchanged.
    relaid = cli("import", _write(tmp_path / "results-2.json", _results(), indent=None), "--json")
    assert relaid.code == 0, relaid.err
    assert json.loads(relaid.out)["totals"] == {"conditions unchanged": 2, "runs unchanged": 8}
    db = sqlite_utils.Database(cli.db_path)
    assert (count(db, "runs"), count(db, "conditions"), count(db, "tasks")) == (8, 2, 2)


def test_shared_adapter_gives_one_condition_per_model(tmp_path: Path, cli: Cli) -> None:
    doc = _results()
    doc["manifest"]["matchedModels"] = False
    doc["manifest"]["agents"] = [
        {"adapter": "claude-code", "model": MODEL, "version": "2.1.0"},
        {"adapter": "claude-code", "model": "anthropic/claude-opus-5", "version": "2.1.0"},
    ]
    other = doc["results"][0]
    other["agent"] = {"adapter": "claude-code", "model": "anthropic/claude-opus-5"}
    for trial in doc["results"][1:]:
        trial["agent"]["adapter"] = "claude-code"
    # Unique ids: the trials of both former adapters now share one.
    for i, trial in enumerate(doc["results"]):
        trial["id"] = f"t{i}"
    result = cli("import", _write(tmp_path / "results.json", doc), "--json")
    assert result.code == 0, result.err
    ids = dict(_rows(cli, "SELECT id, label FROM conditions ORDER BY id"))
    assert ids == {
        "claude-code/anthropic/claude-opus-5": "claude-code 2.1.0 (anthropic/claude-opus-5)",
        "claude-code/anthropic/claude-sonnet-5": "claude-code 2.1.0 (anthropic/claude-sonnet-5)",
    }
    per_condition = dict(
        _rows(
            cli,
            "SELECT c.id, COUNT(*) FROM runs r JOIN conditions c ON c.pk = r.condition_pk "
            "GROUP BY c.id",
        )
    )
    assert per_condition == {
        "claude-code/anthropic/claude-opus-5": 1,
        "claude-code/anthropic/claude-sonnet-5": 7,
    }
    [(description, limitations)] = _rows(cli, "SELECT description, limitations FROM studies")
    assert description.startswith("Warning: matchedModels is false")
    assert "engine-vs-engine conclusions must not be drawn" in description
    assert json.loads(limitations) == [abp.MATCHED_MODELS_WARNING]


def test_task_manifests_in_the_same_study_keep_their_text(tmp_path: Path, cli: Cli) -> None:
    manifest = {
        "schema": "abp-task/v1",
        "id": "fixture-fizzbuzz",
        "source": {"kind": "fixture"},
        "prompt": "Implement fizzbuzz(n) in src/fizz.py so that the tests pass.",
    }
    task_file = _write(tmp_path / "fizzbuzz.json", manifest)
    results = _write(tmp_path / "results.json", _results())
    # Manifest first, then results: the results must not blank the task.
    assert cli("import", task_file, "--study", "combined").code == 0
    assert cli("import", results, "--study", "combined").code == 0
    # Results first, then a manifest: it fills the placeholder in place.
    assert cli("import", results, "--study", "other").code == 0
    assert cli("import", task_file, "--study", "other").code == 0
    rows = _rows(
        cli,
        "SELECT study_id, version_no, current, placeholder, prompt FROM tasks "
        "WHERE id = 'fixture-fizzbuzz' ORDER BY study_id, version_no",
    )
    assert rows == [
        ("combined", 1, 1, 0, manifest["prompt"]),
        ("other", 1, 1, 0, manifest["prompt"]),
    ]


def test_listed_tasks_without_results_are_named(tmp_path: Path, cli: Cli) -> None:
    doc = _results()
    doc["manifest"]["taskIds"].append("fixture-unicode-path")
    assert cli("import", _write(tmp_path / "results.json", doc)).code == 0
    [(description,)] = _rows(cli, "SELECT description FROM studies")
    assert "3 tasks listed. Listed without a trial result: fixture-unicode-path." in description
    assert [r[0] for r in _rows(cli, "SELECT id FROM tasks ORDER BY id")] == TASKS


def test_study_option_wins(tmp_path: Path, cli: Cli) -> None:
    src = _write(tmp_path / "results.json", _results())
    assert cli("import", src, "--study", "nightly").code == 0
    assert _rows(cli, "SELECT id FROM studies") == [("nightly",)]


def _with(index: int, dotted: str, value: Any) -> dict[str, Any]:
    """The sample with results[index].<dotted> set to ``value`` (removed when ``...``)."""
    doc = _results()
    *parents, last = dotted.split(".")
    node = doc["results"][index]
    for part in parents:
        node = node[part]
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return doc


@pytest.mark.parametrize(
    ("dotted", "value", "expected"),
    [
        ("outcome", ..., "$.results[3].outcome: required field is missing"),
        (
            "outcome",
            "resolved",
            "$.results[3].outcome: Input should be 'passed', 'failed', 'timeout' or 'agent-error'",
        ),
        ("taskId", ..., "$.results[3].taskId: required field is missing"),
        ("agent.adapter", ..., "$.results[3].agent.adapter: required field is missing"),
        ("trial", "2", '$.results[3].trial: Input should be a valid integer (got "2")'),
        ("trial", -1, "$.results[3].trial: Input should be greater than or equal to 0"),
        ("tokens.input", 12.5, "$.results[3].tokens.input: Input should be a valid integer"),
        (
            "timing.wallClockSeconds",
            "90",
            "$.results[3].timing.wallClockSeconds: Input should be a valid number",
        ),
        ("verify.passed", "yes", "$.results[3].verify.passed: Input should be a valid boolean"),
        ("id", "fixture-fizzbuzz__oxagen__t1", "$.results[3].id: duplicate trial id"),
    ],
)
def test_bad_trial_refuses_the_file_and_names_its_path(
    tmp_path: Path, cli: Cli, dotted: str, value: Any, expected: str
) -> None:
    result = cli("import", _write(tmp_path / "results.json", _with(3, dotted, value)))
    assert result.code == 1
    assert f"results.json: {expected}" in result.err
    assert "Traceback" not in result.err
    nothing_stored(cli)


def test_skip_invalid_skips_one_bad_trial(tmp_path: Path, cli: Cli) -> None:
    src = _write(tmp_path / "results.json", _with(3, "outcome", "resolved"))
    result = cli("import", src, "--skip-invalid", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["totals"]["runs added"] == 7
    assert report["totals"]["records skipped"] == 1
    [skipped] = report["files"][0]["skipped"]
    assert "$.results[3].outcome" in skipped
    bad_id = _results()["results"][3]["id"]
    assert _rows(cli, "SELECT COUNT(*) FROM runs WHERE id = ?", [bad_id]) == [(0,)]


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ({"manifest": {"createdAt": "x"}, "results": []}, "$.manifest.runId: required field"),
        ({"manifest": {"runId": RUN_ID}, "results": {}}, "$.results: expected a list of trials"),
        ({"manifest": {"runId": RUN_ID}}, "$.results: required field is missing"),
        ({"results": []}, "$.manifest: required field is missing"),
        ([{"manifest": {}}], "$: expected a JSON object"),
        (
            {"manifest": {"runId": RUN_ID, "agents": [{"model": MODEL}]}, "results": []},
            "$.manifest.agents[0].adapter: required field is missing",
        ),
        (
            {"manifest": {"runId": RUN_ID, "matchedModels": "true"}, "results": []},
            "$.manifest.matchedModels: Input should be a valid boolean",
        ),
    ],
)
def test_unusable_file_is_refused(tmp_path: Path, cli: Cli, doc: Any, expected: str) -> None:
    src = _write(tmp_path / "results.json", doc)
    result = cli("import", src, "--format", "arena")
    assert result.code == 1
    assert f"results.json: {expected}" in result.err
    nothing_stored(cli)


def test_malformed_json_names_the_line(tmp_path: Path, cli: Cli) -> None:
    src = tmp_path / "results.json"
    src.write_text('{"manifest": {"runId": "r"},\n "results": [\n', encoding="utf-8")
    result = cli("import", src, "--format", "arena")
    assert result.code == 1
    assert "results.json:3: malformed JSON" in result.err


def test_detection(tmp_path: Path) -> None:
    assert detect(_write(tmp_path / "results.json", _results())) is arena.FORMAT
    # Any file name: detection reads the content.
    assert detect(_write(tmp_path / "run-a41c.json", _results())) is arena.FORMAT
    not_arena = [
        {"manifest": {"createdAt": "x"}, "results": []},
        {"manifest": {"runId": "r"}, "results": {}},
        {"schema": "abp-verdict/v1", "run": RUN_ID, "perEngine": []},
    ]
    for i, doc in enumerate(not_arena):
        path = _write(tmp_path / f"other-{i}.json", doc)
        assert not arena.FORMAT.sniff(path, path.read_bytes())
    jsonl = tmp_path / "results.jsonl"
    jsonl.write_text(json.dumps(_results()["results"][0]) + "\n")
    assert not arena.FORMAT.sniff(jsonl, jsonl.read_bytes())
