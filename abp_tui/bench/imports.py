"""Benchmarks that print JSON, each figure beside a baseline measured in the same run.

``import``: a generated abp-trace/v1 file (``--events`` events, deterministic) is imported
``--repeat`` times by each contender, interleaved so that drift in the machine's speed touches all
three alike, each into a fresh database:

1. ours: ``import_paths`` (format detection, file hash, every event validated, runs and traces
   stored, the trace_events index kept up to date);
2. ``sqlite-utils insert --nl --alter`` of the same lines, the real command line tool run as a
   subprocess (its time includes the tool's start-up, which is reported on its own too);
3. a bare loop: ``json.loads`` of each line and one ``executemany`` inserting the same columns into
   a table like trace_events, without its index and without any validation: the floor of what any
   Python importer of these lines can do.

The medians and every sample are reported, with the ratios and whether the goals are met: at
least 4 times as fast as sqlite-utils, and at most 1.5 times the bare loop's time. Peak memory of
our import is measured in an extra, untimed run (tracemalloc slows what it watches).
"""

from __future__ import annotations

import json
import os
import platform
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pydantic

from abp_tui.errors import AbpError
from abp_tui.formats.base import _peek_cache

SPEEDUP_GOAL = 4.0
"""Ours against ``sqlite-utils insert --nl``: at least this many times as fast."""
BARE_LOOP_GOAL = 1.5
"""Ours against the bare loop: at most this many times its time."""

_TOOLS = ("read_file", "edit_file", "bash", "grep", "list_dir")
_FILES = ("src/router/match.ts", "src/router/index.ts", "test/router/edge-case.test.ts")


# -- the input ------------------------------------------------------------------------------------
def _stamp(ms: int) -> str:
    seconds, milli = divmod(ms, 1000)
    minutes, sec = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    day, hour = divmod(hours, 24)
    return f"2026-07-{2 + day:02d}T{hour:02d}:{minute:02d}:{sec:02d}.{milli:03d}Z"


def _events(n: int, seed: int) -> Iterator[dict[str, Any]]:
    """A plausible engine run: model calls, tool calls, subagent branches; totals that add up."""
    rng = random.Random(seed)
    clock = 50_401_402  # 14:00:01.402 on the first day
    totals = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    yield {
        "t": _stamp(clock),
        "seq": 1,
        "kind": "run.start",
        "engine": "oxagen/1.4.2",
        "model": "anthropic/claude-sonnet-5",
        "task": "gh-vercel-next.js-81234",
        "config": {"budgetUsd": 5, "timeoutSeconds": 1200},
        "trial": 1,
    }
    open_subagent: str | None = None
    files = 0
    for seq in range(2, n):
        clock += rng.randint(1, 40)
        event: dict[str, Any] = {"t": _stamp(clock), "seq": seq}
        roll = rng.random()
        if seq == n - 1 and open_subagent is not None:
            roll = 0.99
        if roll < 0.4:
            tokens = {
                "input": rng.randint(200, 4000),
                "output": rng.randint(20, 900),
                "cacheRead": rng.randint(0, 20000),
                "cacheWrite": rng.choice((0, 0, 0, rng.randint(100, 2000))),
            }
            for key, value in tokens.items():
                totals[key] += value
            event |= {"kind": "model.call", "model": "anthropic/claude-sonnet-5", "tokens": tokens}
        elif roll < 0.97:
            tool = rng.choice(_TOOLS)
            args: dict[str, Any] = {"path": rng.choice(_FILES)}
            if tool == "bash":
                args = {"command": "pnpm test -- test/router/", "cwd": "."}
            event |= {"kind": "tool.call", "tool": tool, "args": args}
            event["durationMs"] = rng.randint(1, 3000)
            if tool == "edit_file":
                event["diffBytes"] = rng.randint(10, 800)
                files += 1
        elif open_subagent is None:
            open_subagent = f"sa-{seq}"
            event |= {"kind": "subagent.start", "id": open_subagent, "purpose": "run tests"}
        else:
            event |= {"kind": "subagent.end", "id": open_subagent}
            open_subagent = None
        yield event
    clock += 500
    yield {
        "t": _stamp(clock),
        "seq": n,
        "kind": "run.end",
        "outcome": "resolved",
        "wallClockMs": clock - 50_401_402,
        "tokens": totals,
        "diffBytesNormalized": 1610,
        "filesTouched": min(files, 3),
    }


def write_trace(path: Path, n_events: int, seed: int = 20260718) -> int:
    """Write a deterministic abp-trace/v1 file of ``n_events`` events; return its size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for event in _events(max(n_events, 2), seed):
            handle.write(json.dumps(event, separators=(",", ":")) + "\n")
    return path.stat().st_size


# -- the contenders -------------------------------------------------------------------------------
def _ours(trace: Path, db_path: Path) -> tuple[float, int]:
    from abp_tui.services.importing import import_paths
    from abp_tui.store import connect

    db = connect(db_path)
    # Each sample starts as a fresh process would: nothing learnt about the file while sniffing.
    _peek_cache.clear()
    try:
        began = time.perf_counter()
        report = import_paths(db, [trace])
        took = time.perf_counter() - began
    finally:
        db.close()
    return took, report.totals.get("trace events added", 0)


def _sqlite_utils_command() -> str | None:
    beside = Path(sys.executable).parent / "sqlite-utils"
    if beside.is_file():
        return str(beside)
    return shutil.which("sqlite-utils")


def _sqlite_utils(command: str, trace: Path, db_path: Path) -> tuple[float, int]:
    argv = [command, "insert", str(db_path), "events", str(trace), "--nl", "--alter"]
    began = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    took = time.perf_counter() - began
    if done.returncode != 0:
        raise AbpError(f"bench: sqlite-utils failed: {done.stderr.strip()[:300]}")
    with sqlite3.connect(db_path) as conn:
        stored = int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    conn.close()
    return took, stored


_BARE_TABLE = (
    "CREATE TABLE trace_events (trace_pk INTEGER NOT NULL, seq INTEGER NOT NULL, t TEXT, "
    "kind TEXT NOT NULL, tool TEXT, input_tokens INTEGER, output_tokens INTEGER, "
    "cache_read_tokens INTEGER, cache_write_tokens INTEGER, duration_ms REAL, raw TEXT NOT NULL)"
)


def _bare_loop(trace: Path, db_path: Path) -> tuple[float, int]:
    began = time.perf_counter()
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(_BARE_TABLE)

    def rows() -> Iterator[tuple[Any, ...]]:
        with trace.open(encoding="utf-8") as handle:
            for line in handle:
                raw = line.rstrip("\n")
                event = json.loads(raw)
                tok = event.get("tokens") or {}
                yield (
                    1,
                    event["seq"],
                    event["t"],
                    event["kind"],
                    event.get("tool"),
                    tok.get("input"),
                    tok.get("output"),
                    tok.get("cacheRead"),
                    tok.get("cacheWrite"),
                    event.get("durationMs"),
                    raw,
                )

    with conn:
        conn.executemany("INSERT INTO trace_events VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows())
    took = time.perf_counter() - began
    stored = int(conn.execute("SELECT count(*) FROM trace_events").fetchone()[0])
    conn.close()
    return took, stored


def _startup_seconds(command: str) -> float:
    began = time.perf_counter()
    subprocess.run([command, "--version"], capture_output=True, check=False)
    return time.perf_counter() - began


_MEMORY_PROBE = """
import json, resource, sys, tracemalloc
from pathlib import Path
from abp_tui.services.importing import import_paths
from abp_tui.store import connect

def peak_rss():
    # VmHWM is this process's own peak; ru_maxrss on Linux starts from the parent's.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (
        1 if sys.platform == "darwin" else 1024)

def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass

trace, db_path = Path(sys.argv[1]), Path(sys.argv[2])
fmt = sys.argv[3] if len(sys.argv) > 3 else None
db = connect(db_path)
reset_peak()
before = peak_rss()
import_paths(db, [trace], fmt=fmt)
after = peak_rss()
db.close()
for suffix in ("", "-wal", "-shm"):
    Path(str(db_path) + suffix).unlink(missing_ok=True)
db = connect(db_path)
tracemalloc.start()
import_paths(db, [trace], fmt=fmt)
_, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
db.close()
for suffix in ("", "-wal", "-shm"):
    Path(str(db_path) + suffix).unlink(missing_ok=True)
print(json.dumps({"rss_before_bytes": before, "peak_rss_delta_bytes": after - before,
                  "peak_python_bytes": peak}))
"""


def _probe(trace: Path, db_path: Path, *fmt: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY_PROBE, str(trace), str(db_path), *fmt],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise AbpError(f"bench: the memory probe failed: {done.stderr.strip()[-300:]}")
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def _memory(trace: Path, db_path: Path) -> dict[str, Any]:
    """Our import's memory, in a fresh process so that nothing else has raised its peak."""
    figures = _probe(trace, db_path)
    named = _probe(trace, db_path, "abp-trace")
    figures["format_named"] = {k: v for k, v in named.items() if k != "rss_before_bytes"}
    figures["note"] = (
        "a fresh process imports the trace: peak_rss_delta_bytes is how far its peak RSS rose "
        "above its size before the import (modules loaded, database open); peak_python_bytes "
        "is tracemalloc's peak over a second import. format_named: the same with "
        "--format abp-trace, which skips format detection (the parse alone)"
    )
    return figures


def _figures(samples: list[float], events: int) -> dict[str, Any]:
    median = statistics.median(samples)
    return {
        "median_seconds": round(median, 4),
        "samples_seconds": [round(s, 4) for s in samples],
        "events_per_second": round(events / median) if median > 0 else None,
    }


def bench_import(events: int = 200_000, repeat: int = 3) -> dict[str, Any]:
    """Measure the three importers on one generated trace; return the JSON document."""
    if events < 2:
        raise AbpError("bench import: --events must be at least 2 (run.start and run.end)")
    if repeat < 1:
        raise AbpError("bench import: --repeat must be at least 1")
    command = _sqlite_utils_command()
    if command is None:
        raise AbpError("bench import: the sqlite-utils command is not installed")
    with tempfile.TemporaryDirectory(prefix="abp-bench-") as tmp:
        root = Path(tmp)
        trace = root / "bench-study" / "gh-vercel-next.js-81234.oxagen.trial-1.abp-trace.jsonl"
        size = write_trace(trace, events)
        samples: dict[str, list[float]] = {"ours": [], "sqlite_utils": [], "bare_loop": []}
        stored: dict[str, int] = {}
        contenders: dict[str, Callable[[Path, Path], tuple[float, int]]] = {
            "ours": _ours,
            "sqlite_utils": lambda t, d: _sqlite_utils(command, t, d),
            "bare_loop": _bare_loop,
        }
        for i in range(repeat):
            for name, contender in contenders.items():
                took, count = contender(trace, root / f"{name}-{i}.db")
                samples[name].append(took)
                stored[name] = count
                (root / f"{name}-{i}.db").unlink()
                for suffix in ("-wal", "-shm"):
                    (root / f"{name}-{i}.db{suffix}").unlink(missing_ok=True)
        memory = _memory(trace, root / "memory.db")
        startup = _startup_seconds(command)

    ours = statistics.median(samples["ours"])
    su = statistics.median(samples["sqlite_utils"])
    bare = statistics.median(samples["bare_loop"])
    speedup = su / ours
    return {
        "benchmark": "import",
        "input": {
            "format": "abp-trace/v1",
            "events": events,
            "bytes": size,
            "repeat": repeat,
            "note": "generated, deterministic; the same file for every contender",
        },
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "pydantic": pydantic.VERSION,
            "platform": platform.platform(),
        },
        "ours": {
            "what": "abp-tui import_paths into a fresh database: every event validated",
            "stored_events": stored["ours"],
            **_figures(samples["ours"], events),
            "memory": memory,
        },
        "sqlite_utils": {
            "what": "sqlite-utils insert DB events FILE --nl --alter (subprocess, no validation)",
            "stored_events": stored["sqlite_utils"],
            **_figures(samples["sqlite_utils"], events),
            "startup_seconds": round(startup, 4),
        },
        "bare_loop": {
            "what": "json.loads per line + executemany of the same columns, no index, "
            "no validation",
            "stored_events": stored["bare_loop"],
            **_figures(samples["bare_loop"], events),
        },
        "ratios": {
            "speedup_vs_sqlite_utils": round(speedup, 2),
            "speedup_goal": SPEEDUP_GOAL,
            "speedup_goal_met": speedup >= SPEEDUP_GOAL,
            "bare_loop_time_over_ours": round(bare / ours, 3),
            "ours_time_over_bare_loop": round(ours / bare, 3),
            "bare_loop_goal": BARE_LOOP_GOAL,
            "bare_loop_goal_met": ours <= BARE_LOOP_GOAL * bare,
        },
    }
