"""``bench startup``: the wall time of ``abp-tui status`` beside a bare interpreter.

A database is filled with the bundled demo data (not timed). Then, ``repeat`` times and
interleaved so that drift in the machine's speed touches every contender alike, each runs as a
fresh process of the same interpreter:

1. ours: ``python -m abp_tui status --db DEMO`` (start, import, read, print);
2. ``python -c pass``: the floor of any Python command;
3. ``python -c "import sqlite3"``: the floor of any Python command that reads a database.

One untimed round runs first so that every contender starts with the files in the page cache.
The medians, every sample and whether the goal (``status`` within 0.3 s) is met are reported.
"""

from __future__ import annotations

import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from abp_tui.errors import AbpError

GOAL_SECONDS: Final = 0.3
"""``abp-tui status`` answers within this: it is what people type to see where a study stands."""
_DIGITS: Final = 4


def _contenders(db: Path) -> dict[str, list[str]]:
    python = sys.executable
    return {
        "ours": [python, "-m", "abp_tui", "status", "--db", str(db)],
        "python_pass": [python, "-c", "pass"],
        "python_import_sqlite3": [python, "-c", "import sqlite3"],
    }


def _time(argv: list[str], cwd: Path) -> float:
    began = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - began
    if done.returncode != 0:
        raise AbpError(f"bench startup: {argv[1:]} exited {done.returncode}: {done.stderr[-500:]}")
    return took


def bench_startup(repeat: int = 11) -> dict[str, Any]:
    """Time ``abp-tui status`` on the demo database against bare interpreters."""
    from abp_tui.services.demo import fixtures_dir, load_demo
    from abp_tui.store import connect, overview

    if repeat < 1:
        raise AbpError("--repeat must be at least 1")
    folder = fixtures_dir()
    if folder is None:
        raise AbpError(
            "bench startup: no fixtures/demo folder found (run from the project's folder)"
        )
    with tempfile.TemporaryDirectory(prefix="abp-bench-startup-") as tmp:
        cwd = Path(tmp)
        db_path = cwd / "demo.db"
        db = connect(db_path)
        load_demo(db, folder)
        db.close()
        studies = len(overview.read(db_path))
        contenders = _contenders(db_path)
        for argv in contenders.values():
            _time(argv, cwd)
        samples: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(repeat):
            for name, argv in contenders.items():
                samples[name].append(_time(argv, cwd))
    medians = {name: statistics.median(s) for name, s in samples.items()}
    what = {
        "ours": "python -m abp_tui status --db DEMO (the demo database)",
        "python_pass": 'python -c "pass"',
        "python_import_sqlite3": 'python -c "import sqlite3"',
    }
    return {
        "benchmark": "startup",
        "input": {"database": "bundled demo data", "studies": studies, "repeat": repeat},
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "sqlite": sqlite3.sqlite_version,
        },
        **{
            name: {
                "what": what[name],
                "samples_seconds": [round(s, _DIGITS) for s in samples[name]],
                "median_seconds": round(medians[name], _DIGITS),
            }
            for name in contenders
        },
        "ours_over_python_pass_seconds": round(medians["ours"] - medians["python_pass"], _DIGITS),
        "goal_seconds": GOAL_SECONDS,
        # From the printed median, so the verdict can be checked against the figure shown.
        "goal_met": round(medians["ours"], _DIGITS) <= GOAL_SECONDS,
    }
