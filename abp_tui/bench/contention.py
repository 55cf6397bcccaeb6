"""``bench contention``: reviewers saving while an import and a bundle export run beside them.

Real processes, as on a coordinator's machine: two reviewer processes each open the database
once, like the workstation, and save a draft every 100 ms (a save is ``ReviewSession.save``,
the same call the compare screen makes), timing each save and recording any that fails. The
bundled demo data is loaded and unblinded first; none of that is timed.

1. the baseline: the two reviewers alone, for as long as phase 2 lasted;
2. beside: the same reviewers while ``abp-tui import`` of a generated abp-trace/v1 file of
   ``events`` events (:func:`abp_tui.bench.imports.write_trace`) and ``abp-tui export bundle``
   run as two more processes.

For each phase: saves per second (both reviewers), the median, 95th percentile and worst save
latency, failed saves, and lost saves (acknowledged but not in the database afterwards); then
SQLite's integrity check. The goal is no failed or lost save and a worst latency of about a
second beside the import.

The reviewer loop (:func:`reviewer`) is also what ``tests/test_contention.py`` runs.
"""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from abp_tui.errors import AbpError

INTERVAL_SECONDS = 0.1
"""How often each reviewer saves."""
WORST_LATENCY_GOAL_SECONDS = 1.0
REVIEWERS = ("alice", "bob")
STUDY = "abp-demo"
TAIL_SECONDS = 0.3
"""Reviewers keep saving this long after the import and export end, so that they overlap."""


# -- one reviewer process -------------------------------------------------------------------------
def reviewer(db_path: Path, design_pk: int, name: str, stop: Path, out: Path) -> None:
    """Save a draft every :data:`INTERVAL_SECONDS` until ``stop`` exists; write what happened
    to ``out`` as JSON: every acknowledged save (item, revision, start, seconds) and every
    failure (item, start, seconds, the error's type and message)."""
    from abp_tui.models import Judgment
    from abp_tui.services.reviewing import ReviewSession
    from abp_tui.store import connect

    db = connect(db_path)
    session = ReviewSession(db, design_pk, name)
    codes = [row.code for row in session.queue()]
    saves: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    ready = out.with_suffix(".ready")
    tick = time.monotonic()
    i = 0
    while not stop.exists():
        code = codes[i % len(codes)]
        i += 1
        began_wall, began = time.time(), time.perf_counter()
        try:
            saved = session.save(code, Judgment(), INTERVAL_SECONDS)
        except Exception as exc:  # every failure is the figure this loop exists to count
            failures.append(
                {
                    "item": code,
                    "at": began_wall,
                    "seconds": time.perf_counter() - began,
                    "error": f"{type(exc).__name__}: {exc}",
                }
            )
        else:
            took = time.perf_counter() - began
            saves.append({"item": code, "revision": saved.revision, "at": began_wall, "s": took})
        if not ready.exists():
            ready.write_text("", encoding="utf-8")
        tick += INTERVAL_SECONDS
        pause = tick - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        else:
            tick = time.monotonic()  # a slow save does not make the next ones burst
    db.close()
    out.write_text(json.dumps({"saves": saves, "failures": failures}), encoding="utf-8")


# -- orchestration --------------------------------------------------------------------------------
@dataclass
class Setup:
    db_path: Path
    design_pk: int


def prepare(root: Path) -> Setup:
    """The demo data, unblinded, with an open design both reviewers are enrolled in."""
    from abp_tui.services.demo import load_demo
    from abp_tui.services.designing import find_design
    from abp_tui.services.results_report import unblind
    from abp_tui.services.reviewing import ReviewSession
    from abp_tui.store import connect

    db_path = root / "contention.db"
    db = connect(db_path)
    try:
        load_demo(db)
        unblind(db, STUDY, "coordinator")
        design_pk = find_design(db, STUDY).pk
        for name in REVIEWERS:
            ReviewSession(db, design_pk, name)  # enrols the reviewer in the open design
    finally:
        db.close()
    return Setup(db_path, design_pk)


def _cli(db_path: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "abp_tui", "--db", str(db_path), *args]


def _wait_for(paths: list[Path], procs: list[subprocess.Popen[str]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not all(p.exists() for p in paths):
        for proc in procs:
            if proc.poll() is not None:
                _, err = proc.communicate()
                last = err.strip().splitlines()[-1] if err.strip() else f"exit {proc.returncode}"
                raise AbpError(f"bench contention: a reviewer process stopped: {last}")
        if time.monotonic() > deadline:
            raise AbpError("bench contention: the reviewers did not start saving")
        time.sleep(0.02)


@dataclass
class Run:
    """What one phase measured."""

    reviewers: dict[str, dict[str, Any]]
    began: float
    ended: float
    jobs: dict[str, dict[str, Any]]
    """import / export: exit status, start and end (wall clock), stderr's last line."""


def run_phase(
    setup: Setup,
    root: Path,
    tag: str,
    jobs: dict[str, list[str]],
    seconds: float | None = None,
) -> Run:
    """Start both reviewers, then the ``jobs`` (name -> argv) beside them; stop the reviewers
    :data:`TAIL_SECONDS` after the last job ends (or after ``seconds`` with no jobs)."""
    stop = root / f"{tag}.stop"
    outs = {name: root / f"{tag}-{name}.json" for name in REVIEWERS}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "abp_tui.bench.contention",
                str(setup.db_path),
                str(setup.design_pk),
                name,
                str(stop),
                str(out),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, out in outs.items()
    ]
    try:
        _wait_for([o.with_suffix(".ready") for o in outs.values()], procs, 60)
        began = time.time()
        logs = {name: root / f"{tag}-{name}.stderr" for name in jobs}
        started: dict[str, tuple[subprocess.Popen[bytes], float]] = {}
        for name, argv in jobs.items():
            with logs[name].open("wb") as log:
                started[name] = (
                    subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log),
                    time.time(),
                )
        done: dict[str, dict[str, Any]] = {}
        while len(done) < len(started):
            for name, (proc, at) in started.items():
                if name not in done and proc.poll() is not None:
                    err = logs[name].read_text(encoding="utf-8", errors="replace").strip()
                    done[name] = {
                        "exit_status": proc.returncode,
                        "began": at,
                        "ended": time.time(),
                        "stderr": err.splitlines()[-1] if err else "",
                    }
            time.sleep(0.01)
        if seconds is not None:
            time.sleep(max(0.0, began + seconds - time.time()))
        time.sleep(TAIL_SECONDS)
        ended = time.time()
    finally:
        stop.write_text("", encoding="utf-8")
        for reviewer_proc in procs:
            reviewer_proc.wait(timeout=60)
    results = {}
    for name, out in outs.items():
        if not out.exists():
            raise AbpError(f"bench contention: reviewer {name} wrote no results")
        results[name] = json.loads(out.read_text(encoding="utf-8"))
    return Run(results, began, ended, done)


def lost_saves(db_path: Path, run: Run) -> list[str]:
    """Acknowledged saves (reviewer, item, revision) that the database does not hold."""
    with sqlite3.connect(db_path) as conn:
        stored = {
            (r, c, int(v))
            for r, c, v in conn.execute(
                "SELECT j.reviewer, i.code, j.revision FROM judgments j "
                "JOIN items i ON i.pk = j.item_pk"
            )
        }
    conn.close()
    return [
        f"{name} {s['item']} revision {s['revision']}"
        for name, result in run.reviewers.items()
        for s in result["saves"]
        if (name, s["item"], s["revision"]) not in stored
    ]


def integrity(db_path: Path) -> str:
    with sqlite3.connect(db_path) as conn:
        found = ", ".join(str(r[0]) for r in conn.execute("PRAGMA integrity_check"))
        bad_keys = conn.execute("PRAGMA foreign_key_check").fetchall()
    conn.close()
    return found if not bad_keys else f"{found}; {len(bad_keys)} foreign key violations"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def figures(run: Run, db_path: Path) -> dict[str, Any]:
    latencies = [s["s"] for r in run.reviewers.values() for s in r["saves"]]
    failures = [f for r in run.reviewers.values() for f in r["failures"]]
    span = run.ended - run.began
    in_span = [
        s for r in run.reviewers.values() for s in r["saves"] if run.began <= s["at"] <= run.ended
    ]
    return {
        "saves": len(latencies),
        "failed_saves": len(failures),
        "failures": [f["error"] for f in failures[:5]],
        "lost_saves": len(lost_saves(db_path, run)),
        "seconds": round(span, 3),
        "saves_per_second": round(len(in_span) / span, 2) if span > 0 else None,
        "latency_median_seconds": round(statistics.median(latencies), 4) if latencies else None,
        "latency_p95_seconds": round(_percentile(latencies, 0.95), 4) if latencies else None,
        "latency_worst_seconds": round(max(latencies), 4) if latencies else None,
    }


def bench_contention(events: int = 200_000) -> dict[str, Any]:
    """Measure both phases on the demo data; return the JSON document."""
    from abp_tui.bench.imports import write_trace

    if events < 2:
        raise AbpError("bench contention: --events must be at least 2 (run.start and run.end)")
    with tempfile.TemporaryDirectory(prefix="abp-bench-") as tmp:
        root = Path(tmp)
        setup = prepare(root)
        trace = root / "bench-study" / "gh-vercel-next.js-81234.oxagen.trial-1.abp-trace.jsonl"
        size = write_trace(trace, events)
        bundle = root / "bundle"
        beside = run_phase(
            setup,
            root,
            "beside",
            {
                "import": _cli(setup.db_path, "import", str(trace)),
                "export": _cli(
                    setup.db_path, "export", "bundle", "--study", STUDY, "--out", str(bundle)
                ),
            },
        )
        beside_figures = figures(beside, setup.db_path)
        alone = run_phase(setup, root, "alone", {}, seconds=beside.ended - beside.began)
        alone_figures = figures(alone, setup.db_path)
        checked = integrity(setup.db_path)
    jobs = {
        name: {
            "exit_status": job["exit_status"],
            "seconds": round(job["ended"] - job["began"], 3),
            "stderr": job["stderr"],
        }
        for name, job in beside.jobs.items()
    }
    worst = beside_figures["latency_worst_seconds"]
    return {
        "benchmark": "contention",
        "input": {
            "reviewers": len(REVIEWERS),
            "save_interval_seconds": INTERVAL_SECONDS,
            "import_events": events,
            "import_bytes": size,
            "export": f"bundle of study {STUDY}",
            "note": "every party is its own process on one database file",
        },
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "platform": platform.platform(),
        },
        "beside_import_and_export": {**beside_figures, "jobs": jobs},
        "baseline_alone": alone_figures,
        "integrity_check": checked,
        "goals": {
            "failed_saves": 0,
            "lost_saves": 0,
            "worst_latency_seconds": WORST_LATENCY_GOAL_SECONDS,
            "met": beside_figures["failed_saves"] == 0
            and beside_figures["lost_saves"] == 0
            and worst is not None
            and worst <= WORST_LATENCY_GOAL_SECONDS
            and all(j["exit_status"] == 0 for j in jobs.values())
            and checked == "ok",
        },
    }


if __name__ == "__main__":
    reviewer(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), Path(sys.argv[5]))
