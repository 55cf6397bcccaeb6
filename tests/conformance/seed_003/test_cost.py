"""Seed 003 (ABP), section 8: ``medianComputedUsd``, each engine's median computed cost.

A run's cost is the one its harness computed: ``run.end`` ``computedUsd`` in the trace (or
Arena's ``cost.computedUsd``, whose normalisation ABP inherits); what an engine reports about
its own bill (``agentReportedUsd``) is never taken for it. Driven on the bundled ABP demo run
folder, whose traces each carry their computed cost, and on variants of it: import, results,
``export abp-verdict``, ``baseline save`` and ``gate``. The expected medians are computed here
from the trace files themselves, and checked against the harness's own ``verdict.json``.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from tests.conformance.seed_003.abp_runs import DEMO, copy_run, imported, traces
from tests.factories import Cli

ALPHA, BETA = "demo-engine-alpha", "demo-engine-beta"
FIRST = "fx-csv-quoted-commas.demo-engine-alpha.trial-1.abp-trace.jsonl"
SECOND = "fx-csv-quoted-commas.demo-engine-alpha.trial-2.abp-trace.jsonl"


def _costs(folder: Path) -> dict[str, list[float]]:
    """Engine -> the computedUsd of each trace's run.end, read from the files."""
    out: dict[str, list[float]] = defaultdict(list)
    for events in traces(folder):
        end = events[-1]
        if "computedUsd" in end:
            out[events[0]["engine"].rpartition("/")[0]].append(end["computedUsd"])
    return out


def _rewrite_end(path: Path, **fields: Any) -> None:
    """Change a trace's run.end (a field set to None is removed)."""
    events = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    end = events[-1]
    assert end["kind"] == "run.end"
    for name, value in fields.items():
        if value is None:
            end.pop(name, None)
        else:
            end[name] = value
    path.write_text("".join(json.dumps(e) + "\n" for e in events), "utf-8")


def _verdict(cli: Cli, study: str, out: Path) -> dict[str, dict[str, Any]]:
    done = cli("export", "abp-verdict", "--study", study, "--out", out)
    assert done.code == 0, done.err
    return {e["engine"]: e for e in json.loads(out.read_text("utf-8"))["perEngine"]}


def _cost_medians(cli: Cli, study: str) -> dict[str, dict[str, Any]]:
    """Engine -> the cost row of results' efficiency by engine."""
    done = cli("results", "--study", study, "--json")
    assert done.code == 0, done.err
    return {
        e["engine"]: next(m for m in e["medians"] if m["metric"] == "cost_usd")
        for e in json.loads(done.out)["engine_efficiency"]
    }


def test_median_computed_usd_is_the_median_of_the_traces_computed_cost(
    cli: Cli, tmp_path: Path
) -> None:
    folder = copy_run(DEMO, tmp_path / "abp-demo")
    study = imported(cli, folder)
    expected = {engine: statistics.median(v) for engine, v in _costs(folder).items()}
    assert set(expected) == {ALPHA, BETA} and all(len(v) == 12 for v in _costs(folder).values())

    verdict = _verdict(cli, study, tmp_path / "verdict.json")
    # The harness's own verdict (fixtures/demo/abp-demo/verdict.json) rounds to 4 decimals.
    harness = {e["engine"]: e for e in json.loads((DEMO / "verdict.json").read_text())["perEngine"]}
    for engine, median in expected.items():
        assert verdict[engine]["medianComputedUsd"] == pytest.approx(median, rel=1e-12)
        assert verdict[engine]["medianComputedUsd"] == pytest.approx(
            harness[engine]["medianComputedUsd"], abs=0.5e-4 + 1e-12
        )  # half a unit of the fourth decimal, and float error
    medians = _cost_medians(cli, study)
    for engine, median in expected.items():
        assert medians[engine]["median"] == pytest.approx(median, rel=1e-12)
        assert (medians[engine]["n"], medians[engine]["missing"]) == (12, 0)

    # The CI gate's "median cost +15%" now has a cost to hold an ABP run to.
    baseline = tmp_path / "abp-baseline.json"
    saved = cli("baseline", "save", folder, "--out", baseline, "--db", cli.db_path)
    assert saved.code == 0, saved.err
    dearer = copy_run(DEMO, tmp_path / "dearer")
    for path in (dearer / "traces").glob(f"*.{ALPHA}.*"):
        end = json.loads(path.read_text("utf-8").splitlines()[-1])
        _rewrite_end(path, computedUsd=round(end["computedUsd"] * 1.2, 6))
    gate = cli("gate", dearer, "--baseline", baseline, "--json")
    assert gate.code == 1, gate.err
    report = {e["engine"]: e for e in json.loads(gate.out)["engines"]}
    cost = next(c for c in report[ALPHA]["checks"] if c["metric"] == "median cost")
    assert cost["status"] == "fail" and cost["baseline"] == pytest.approx(expected[ALPHA])
    assert cost["current"] == pytest.approx(expected[ALPHA] * 1.2, rel=1e-3)
    assert not report[BETA]["regressed"]


def test_the_cost_is_the_computed_one_never_the_agent_reported(cli: Cli, tmp_path: Path) -> None:
    folder = copy_run(DEMO, tmp_path / "abp-costs")
    first = json.loads((folder / "traces" / FIRST).read_text("utf-8").splitlines()[-1])
    second = json.loads((folder / "traces" / SECOND).read_text("utf-8").splitlines()[-1])
    # Trial 1 states only what the engine says it spent; trial 2 carries Arena's cost block.
    _rewrite_end(folder / "traces" / FIRST, computedUsd=None, agentReportedUsd=0.0001)
    _rewrite_end(
        folder / "traces" / SECOND,
        computedUsd=None,
        cost={"computedUsd": second["computedUsd"], "agentReportedUsd": 9.99},
    )
    study = imported(cli, folder)
    db = sqlite_utils.Database(cli.db_path)
    stored = {
        run: (cost, json.loads(hidden))
        for run, cost, hidden in db.execute(
            "SELECT id, cost_usd, not_exposed FROM runs WHERE study_id = ? AND current = 1",
            [study],
        ).fetchall()
    }
    cost, hidden = stored[f"fx-csv-quoted-commas/{ALPHA}/trial1"]
    assert cost is None and "cost_usd" not in hidden  # missing: never 0, never the agent's
    assert stored[f"fx-csv-quoted-commas/{ALPHA}/trial2"][0] == second["computedUsd"]
    assert all("cost_usd" not in h for _, h in stored.values())

    rest = [
        c for c in _costs(copy_run(DEMO, tmp_path / "plain"))[ALPHA] if c != first["computedUsd"]
    ]
    assert len(rest) == 11
    verdict = _verdict(cli, study, tmp_path / "verdict.json")
    assert verdict[ALPHA]["medianComputedUsd"] == pytest.approx(statistics.median(rest))
    alpha = _cost_medians(cli, study)[ALPHA]
    assert (alpha["n"], alpha["missing"]) == (11, 1)

    # Two different computed costs in one run.end: refused, naming the line and field.
    twice = copy_run(DEMO, tmp_path / "abp-twice")
    _rewrite_end(twice / "traces" / FIRST, cost={"computedUsd": first["computedUsd"] + 1})
    done = cli("import", twice)
    assert done.code == 1
    assert FIRST in done.err and "$.cost.computedUsd" in done.err
    assert "expected one computed cost" in done.err and "Traceback" not in done.err
    count = db.execute("SELECT count(*) FROM runs WHERE study_id = 'abp-twice'").fetchone()
    assert count == (0,)
