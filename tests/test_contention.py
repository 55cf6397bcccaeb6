"""Saves never fail or get lost while an import and a bundle export write beside them.

The fault (issue 15): with an import running, 528 of 602 reviewer saves failed with "database is
locked" at once, instead of waiting, and the import itself crashed three times (exit 3). Every
party here is a real process on one database file, as on a coordinator's machine: two reviewers
saving a draft every 100 ms, ``abp-tui import`` of a generated trace and ``abp-tui export
bundle``. The trace is smaller than the benchmark's 200,000 events but still long enough that
saves land while it is being imported (checked, so that the test cannot pass by not
overlapping). How long saves wait is reported by ``abp-tui bench contention``, not asserted.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from abp_tui.bench.contention import (
    REVIEWERS,
    STUDY,
    integrity,
    lost_saves,
    prepare,
    run_phase,
)
from abp_tui.bench.imports import write_trace
from tests.factories import Cli

EVENTS = 60_000


def _cli(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "abp_tui", "--db", str(db), *args]


def test_saves_wait_for_an_import_and_an_export_instead_of_failing(tmp_path: Path) -> None:
    setup = prepare(tmp_path)
    trace = tmp_path / "big-study" / "task-1.oxagen.trial-1.abp-trace.jsonl"
    write_trace(trace, EVENTS)
    bundle = tmp_path / "bundle"
    run = run_phase(
        setup,
        tmp_path,
        "beside",
        {
            "import": _cli(setup.db_path, "import", str(trace)),
            "export": _cli(
                setup.db_path, "export", "bundle", "--study", STUDY, "--out", str(bundle)
            ),
        },
    )
    for name, job in run.jobs.items():
        assert job["exit_status"] == 0, (name, job["stderr"])
    for name in REVIEWERS:
        assert run.reviewers[name]["failures"] == [], name
    assert lost_saves(setup.db_path, run) == []
    assert integrity(setup.db_path) == "ok"

    importing = run.jobs["import"]
    during = [
        s
        for r in run.reviewers.values()
        for s in r["saves"]
        if importing["began"] <= s["at"] and s["at"] + s["s"] <= importing["ended"]
    ]
    assert len(during) >= 4, "no save overlapped the import: the test proved nothing"

    with sqlite3.connect(setup.db_path) as conn:
        stored = conn.execute(
            "SELECT count(*) FROM trace_events e JOIN runs r ON r.trace_pk = e.trace_pk "
            "WHERE r.study_id = 'big-study'"
        ).fetchone()[0]
        orphans = conn.execute(
            "SELECT count(*) FROM traces t WHERE NOT EXISTS "
            "(SELECT 1 FROM runs r WHERE r.trace_pk = t.pk)"
        ).fetchone()[0]
    conn.close()
    assert stored == EVENTS
    assert orphans == 0
    verified = subprocess.run(
        _cli(setup.db_path, "verify", str(bundle)), capture_output=True, text=True, check=False
    )
    assert verified.returncode == 0, verified.stderr


def test_the_benchmark_reports_saves_beside_the_import_and_alone(cli: Cli) -> None:
    result = cli("bench", "contention", "--events", "2000")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert doc["benchmark"] == "contention"
    assert doc["input"]["import_events"] == 2000 and doc["input"]["reviewers"] == 2
    for phase in ("beside_import_and_export", "baseline_alone"):
        figures = doc[phase]
        assert figures["saves"] > 0 and figures["failed_saves"] == 0, phase
        assert figures["lost_saves"] == 0, phase
        assert 0 < figures["latency_median_seconds"] <= figures["latency_worst_seconds"], phase
        assert figures["saves_per_second"] > 0, phase
    jobs = doc["beside_import_and_export"]["jobs"]
    assert {name: job["exit_status"] for name, job in jobs.items()} == {"import": 0, "export": 0}
    assert doc["integrity_check"] == "ok"
    assert doc["goals"]["worst_latency_seconds"] == 1.0
    assert isinstance(doc["goals"]["met"], bool)
