"""``bench install``: the first ``make run``'s installation beside ``pip install textual``.

A newcomer's first command builds a virtual environment before anything is on screen. This
benchmark measures that cost the way a fresh clone pays it, ``repeat`` times and interleaved so
that the machine's drift touches both contenders alike, each into a new folder:

1. ours: ``make install VENV=<new folder>`` in the project's folder (what ``make run`` does
   before it opens the workstation: a virtual environment and the runtime dependencies);
2. the baseline: ``python -m venv <new folder>`` then ``pip install textual``, the least any
   Textual application installs.

Both use the same interpreter, the same package index and the same download cache, so what is
left is the size of what is installed. Each run's folder size is reported, and the largest
installed distributions (what dominates the size and the time), with the goals: within 3x the
baseline's time and under 300 MB. Needs ``make`` and the project's ``Makefile`` (a source
checkout), like ``bench startup`` needs the demo fixtures.
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from abp_tui.errors import AbpError

GOAL_RATIO: Final = 3.0
"""The first ``make run``'s installation within this many times ``pip install textual``."""
GOAL_MEGABYTES: Final = 300.0
"""The workstation's virtual environment stays under this size."""
_MB: Final = 1_000_000
_DIGITS: Final = 3


def _project() -> Path:
    root = Path(__file__).resolve().parents[2]
    if not (root / "Makefile").is_file() or not (root / "pyproject.toml").is_file():
        raise AbpError("bench install: no Makefile beside pyproject.toml (use a source checkout)")
    if shutil.which("make") is None:
        raise AbpError("bench install: `make` is not on PATH")
    return root


def _run(argv: list[str], cwd: Path) -> float:
    began = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - began
    if done.returncode != 0:
        tail = (done.stderr or done.stdout)[-500:]
        raise AbpError(f"bench install: {' '.join(argv[:3])} ... exited {done.returncode}: {tail}")
    return took


def _size(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
    return total


def _largest(venv: Path, count: int = 5) -> list[dict[str, Any]]:
    """The biggest top-level folders of the environment's site-packages, in MB."""
    sizes: dict[str, int] = {}
    for site in venv.glob("lib/python*/site-packages"):
        for entry in site.iterdir():
            if entry.is_dir() and not entry.name.endswith((".dist-info", "__pycache__")):
                sizes[entry.name] = _size(entry)
    ranked = sorted(sizes.items(), key=lambda kv: kv[1], reverse=True)[:count]
    return [{"name": name, "megabytes": round(size / _MB, 1)} for name, size in ranked]


def bench_install(repeat: int = 3) -> dict[str, Any]:
    """Time the workstation's installation against ``pip install textual`` into a fresh venv."""
    if repeat < 1:
        raise AbpError("--repeat must be at least 1")
    root = _project()
    python = sys.executable
    samples: dict[str, list[float]] = {"ours": [], "pip_install_textual": []}
    sizes: dict[str, int] = {}
    largest: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="abp-bench-install-") as tmp:
        for round_no in range(repeat):
            ours = Path(tmp) / f"ours-{round_no}"
            base = Path(tmp) / f"textual-{round_no}"
            samples["ours"].append(
                _run(["make", "install", f"VENV={ours}", f"PYTHON={python}"], root)
            )
            took = _run([python, "-m", "venv", str(base)], root)
            took += _run([str(base / "bin" / "python"), "-m", "pip", "install", "textual"], root)
            samples["pip_install_textual"].append(took)
            sizes = {"ours": _size(ours), "pip_install_textual": _size(base)}
            largest = _largest(ours)
            shutil.rmtree(ours, ignore_errors=True)
            shutil.rmtree(base, ignore_errors=True)
    medians = {name: statistics.median(s) for name, s in samples.items()}
    ratio = medians["ours"] / medians["pip_install_textual"]
    megabytes = sizes["ours"] / _MB
    return {
        "benchmark": "install",
        "input": {"repeat": repeat, "project": "this checkout's Makefile and pyproject.toml"},
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "ours": {
            "what": "make install VENV=NEW (what the first make run does before the workstation)",
            "samples_seconds": [round(s, _DIGITS) for s in samples["ours"]],
            "median_seconds": round(medians["ours"], _DIGITS),
            "venv_megabytes": round(megabytes, 1),
            "largest_packages": largest,
        },
        "pip_install_textual": {
            "what": "python -m venv NEW && NEW/bin/python -m pip install textual",
            "samples_seconds": [round(s, _DIGITS) for s in samples["pip_install_textual"]],
            "median_seconds": round(medians["pip_install_textual"], _DIGITS),
            "venv_megabytes": round(sizes["pip_install_textual"] / _MB, 1),
        },
        "ratio": round(ratio, 2),
        "goal_ratio": GOAL_RATIO,
        "goal_megabytes": GOAL_MEGABYTES,
        "goal_met": round(ratio, 2) <= GOAL_RATIO and megabytes < GOAL_MEGABYTES,
    }
