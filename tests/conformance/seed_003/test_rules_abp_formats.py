"""Seed 003 (Agent Benchmark Protocol), sections 4-7: what abp-tui reads of the task manifest
(abp-task/v1), the trace (abp-trace/v1) and the run configuration (abp-run/v1).

Each test is one row of CONFORMANCE.md, on the demo ABP run folder or a copy of it edited to
break the one rule the row names.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.factories import DEMO, Cli
from tests.import_helpers import nothing_stored

ABP = DEMO / "abp-demo"
TASK = "fx-iso-timezone"
TRACE = f"{TASK}.demo-engine-alpha.trial-1.abp-trace.jsonl"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    target = tmp_path / "abp-demo"
    shutil.copytree(ABP, target)
    return target


def _rows(cli: Cli, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(cli.db_path) as conn:
        return conn.execute(sql).fetchall()


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _write_events(path: Path, events: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), "utf-8")


def _refused(cli: Cli, path: Path) -> str:
    result = cli("import", path)
    assert result.code == 1, result.out
    assert "Traceback" not in result.err and result.err.strip()
    nothing_stored(cli)
    return result.err


# -- section 4, the live task pipeline -------------------------------------------------------
def test_resolution_is_the_harness_verification_outcome(cli: Cli) -> None:
    assert cli("import", ABP).code == 0
    outcomes = dict(_rows(cli, "SELECT automated_outcome, count(*) FROM runs GROUP BY 1"))
    assert set(outcomes) <= {"resolved", "failed", "timeout", "engine-error"}
    ends = [_events(p)[-1] for p in sorted((ABP / "traces").iterdir())]
    assert sum(outcomes.values()) == len(ends) == 24
    assert outcomes.get("resolved", 0) == sum(e["outcome"] == "resolved" for e in ends)


def test_each_task_keeps_when_it_was_sourced_and_the_cutoffs(folder: Path, cli: Cli) -> None:
    manifest = json.loads((folder / "tasks" / f"{TASK}.json").read_text("utf-8"))
    manifest["cutoffsVerified"] = ["demo-model-2:2025-12"]
    (folder / "tasks" / f"{TASK}.json").write_text(json.dumps(manifest), "utf-8")
    assert cli("import", folder).code == 0
    (meta,) = _rows(cli, f"SELECT metadata FROM tasks WHERE id = '{TASK}'")
    kept = json.loads(meta[0])
    assert kept["source"]["sourcedAt"] == "2026-01-15T09:00:00Z"
    assert kept["source"]["drawSeed"] == 20260120
    assert kept["cutoffsVerified"] == ["demo-model-2:2025-12"]


# -- section 5, task manifest ----------------------------------------------------------------
def test_a_task_manifest_without_its_required_fields_is_refused(folder: Path, cli: Cli) -> None:
    path = folder / "tasks" / f"{TASK}.json"
    manifest = json.loads(path.read_text("utf-8"))
    del manifest["prompt"]
    path.write_text(json.dumps(manifest), "utf-8")
    err = _refused(cli, path)
    assert f"{TASK}.json" in err and "prompt" in err


def test_a_synthetic_fixture_task_is_marked_and_read_like_any_other(cli: Cli) -> None:
    assert cli("import", ABP).code == 0
    tasks = _rows(cli, "SELECT id, synthetic, prompt FROM tasks ORDER BY id")
    assert len(tasks) == 4 and all(s == 1 and p for _i, s, p in tasks)
    per_task = _rows(cli, "SELECT task_pk, count(*) FROM runs GROUP BY task_pk")
    assert sorted(n for _t, n in per_task) == [6, 6, 6, 6]  # 2 engines x 3 trials, each alike


# -- section 6, trace format -----------------------------------------------------------------
def test_one_trace_file_is_one_task_engine_trial(cli: Cli) -> None:
    assert cli("import", ABP).code == 0
    ids = {r[0] for r in _rows(cli, "SELECT id FROM runs")}
    assert len(ids) == 24
    assert f"{TASK}/demo-engine-alpha/trial1" in ids
    assert f"{TASK}/demo-engine-beta/trial3" in ids


def test_seq_must_strictly_increase(folder: Path, cli: Cli) -> None:
    path = folder / "traces" / TRACE
    events = _events(path)
    events[2]["seq"] = events[1]["seq"]
    _write_events(path, events)
    assert f"{TRACE}:3: $.seq: expected seq greater than" in _refused(cli, path)


def test_times_must_be_rfc3339_utc(folder: Path, cli: Cli) -> None:
    path = folder / "traces" / TRACE
    events = _events(path)
    events[1]["t"] = "2026-01-18T11:04:13.050+02:00"
    _write_events(path, events)
    assert ":2: $.t: expected an RFC 3339 UTC timestamp" in _refused(cli, path)


def test_subagent_and_per_call_model_attribution_is_kept(folder: Path, cli: Cli) -> None:
    path = folder / "traces" / TRACE
    events = _events(path)
    end = events.pop()
    seq, t = end["seq"], end["t"]
    call = {"kind": "model.call", "model": "synthetic-demo/demo-model-mini",
            "tokens": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0}}  # fmt: skip
    events += [
        {"t": t, "seq": seq, "kind": "subagent.start", "id": "sa-1", "purpose": "run tests"},
        {"t": t, "seq": seq + 1, **call},
        {"t": t, "seq": seq + 2, "kind": "subagent.end", "id": "sa-1"},
    ]
    end["tokens"] = {**end["tokens"], "input": end["tokens"]["input"] + 10}
    end["tokens"]["output"] += 5
    events.append({**end, "seq": seq + 3})
    _write_events(path, events)
    assert cli("import", path).code == 0
    (doc,) = _rows(cli, "SELECT document FROM runs")
    text = json.dumps(json.loads(doc[0])["metadata"])
    assert "sa-1" in text and "synthetic-demo/demo-model-mini" in text


def test_input_tokens_never_include_cache_reads(folder: Path, cli: Cli) -> None:
    path = folder / "traces" / TRACE
    events = _events(path)
    tokens = events[-1]["tokens"]
    tokens["input"] += tokens["cacheRead"]
    _write_events(path, events)
    err = _refused(cli, path)
    assert "$.tokens.input" in err and "looks like it includes the cache reads" in err


def test_the_path_that_produced_the_trace_is_recorded(folder: Path, cli: Cli) -> None:
    path = folder / "traces" / TRACE
    events = _events(path)
    events[0]["translator"] = "demo-sidecar/0.1"
    _write_events(path, events)
    assert cli("import", path).code == 0
    (doc,) = _rows(cli, "SELECT document FROM runs")
    assert json.loads(doc[0])["metadata"]["trace_producer"] == "demo-sidecar/0.1"


# -- section 7, run configuration ------------------------------------------------------------
def test_a_run_configuration_is_read_with_its_pinned_inputs(cli: Cli) -> None:
    assert cli("import", ABP).code == 0
    conditions = _rows(cli, "SELECT id FROM conditions ORDER BY id")
    assert conditions == [("demo-engine-alpha",), ("demo-engine-beta",)]
    for (meta,) in _rows(cli, "SELECT metadata FROM conditions"):
        pinned = json.loads(meta)
        assert pinned["model"] == "synthetic-demo/demo-model-2"
        assert (pinned["budgetUsd"], pinned["timeoutSeconds"]) == (2, 600)
        assert (pinned["ordering"], pinned["seed"]) == ("abba", 20260118)
        assert pinned["reproduce"] == "abp run --config run.json"


def test_a_run_configuration_without_engines_is_refused(folder: Path, cli: Cli) -> None:
    path = folder / "run.json"
    run = json.loads(path.read_text("utf-8"))
    del run["engines"]
    path.write_text(json.dumps(run), "utf-8")
    result = cli("import", path)
    assert result.code == 1 and "run.json" in result.err and "engines" in result.err
    assert "Traceback" not in result.err
