"""``bench export``: exporting a publication bundle beside a bare copy-and-zip of the outputs.

A study of ``runs`` runs (two engines, deterministic synthetic outputs of about 1.5 kB, automated
outcomes, tokens, wall clock, cost and diff bytes) is generated as a native JSONL file, imported,
given a paired design and unblinded; none of that is timed. Then, ``repeat`` times and
interleaved so that drift in the machine's speed touches both alike:

1. ours: ``export_bundle`` (collect every record, derive verdicts, tables, agreement, the gate,
   plots and the report, hash every file, write the folder and the zip atomically);
2. the baseline: read the same raw outputs from the same database, write one file per output
   into a folder and zip that folder (same compression level): the floor of any export that
   publishes the raw outputs at all.

The medians, every sample, the ratio and whether the goal (at most 3 times the baseline) is met
are reported, with ours broken down into its stages.
"""

from __future__ import annotations

import json
import os
import platform
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any, Final

import sqlite_utils

from abp_tui.errors import AbpError

_DIGITS = 6
"""Seconds are printed to the microsecond: a small export takes milliseconds, and the ratio,
computed from the unrounded medians, must be reproducible from the printed ones."""
GOAL_RATIO: Final = 3.0
"""Ours against the baseline: at most this many times its time."""
TASKS: Final = 50
ENGINES: Final = ("engine-a", "engine-b")
_TEXT: Final = (
    "read the failing test then patched the parser so quoted fields keep their commas ran the "
    "suite again and every case passed except the slow network test which was skipped because "
    "the sandbox has no network the change touches one function and adds two assertions"
)
_WORDS: Final = tuple(_TEXT.split(" "))


def _output(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(180, 300))]
    return " ".join(words).capitalize() + "."


def write_study(path: Path, runs: int, seed: int) -> None:
    """A native JSONL study of ``runs`` runs (deterministic for a seed)."""
    rng = random.Random(seed)
    lines: list[dict[str, Any]] = [
        {
            "type": "study",
            "id": "bench-export",
            "name": "Generated study for bench export",
            "protocol": "abp",
            "rubric_id": "afp-v0.1",
            "synthetic": True,
            "limitations": ["Generated for a benchmark; not a result."],
        }
    ]
    lines += [{"type": "condition", "id": e, "label": e} for e in ENGINES]
    tasks = max(1, min(TASKS, runs // 20))
    lines += [
        {"type": "task", "id": f"task-{t:03d}", "prompt": f"Fix issue {t} of the demo project."}
        for t in range(tasks)
    ]
    for k in range(runs):
        engine = ENGINES[k % 2]
        task = (k // 2) % tasks
        trial = k // (2 * tasks) + 1
        roll = rng.random()
        outcome = "resolved" if roll < 0.7 else "unresolved" if roll < 0.97 else "agent-error"
        tokens_in, tokens_out = rng.randint(5_000, 90_000), rng.randint(500, 9_000)
        lines.append(
            {
                "type": "run",
                "id": f"task-{task:03d}/{engine}/trial{trial}",
                "task_id": f"task-{task:03d}",
                "condition_id": engine,
                "trial": trial,
                "output": _output(rng),
                "engine": engine,
                "model": "synthetic/bench-model",
                "automated_outcome": outcome,
                "tokens": {
                    "input": tokens_in,
                    "output": tokens_out,
                    "total": tokens_in + tokens_out,
                },
                "wall_clock_ms": float(rng.randint(10_000, 600_000)),
                "cost_usd": round(rng.uniform(0.01, 2.0), 4),
                "synthetic": True,
                "metadata": {"diffBytesNormalized": rng.randint(100, 8_000)},
            }
        )
    with path.open("w", encoding="utf-8", newline="\n") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")


def _prepare(folder: Path, runs: int, seed: int) -> tuple[sqlite_utils.Database, int, int]:
    from abp_tui.models import StudyDesign
    from abp_tui.services.designing import create_design
    from abp_tui.services.importing import import_paths
    from abp_tui.services.results_report import unblind
    from abp_tui.store import connect

    source = folder / "bench-study.jsonl"
    write_study(source, runs, seed)
    db = connect(folder / "bench.db")
    import_paths(db, [source])
    created = create_design(
        db, StudyDesign(study="bench-export", name="bench", seed=seed or 1, contrasts="all-pairs")
    )
    unblind(db, "bench-export", "bench")
    return db, created.pk, created.items


def _baseline(db: sqlite_utils.Database, target: Path) -> tuple[float, int, int]:
    """Read the raw outputs, write one file each, zip the folder; (seconds, files, zip bytes)."""
    began = time.perf_counter()
    target.mkdir(parents=True)
    rows = db.execute(
        "SELECT r.id, b.text FROM runs r JOIN blobs b ON b.sha256 = r.output_sha256 "
        "WHERE r.study_id = ? AND r.current = 1 ORDER BY r.id",
        ["bench-export"],
    ).fetchall()
    names = []
    for n, (_run_id, text) in enumerate(rows):
        name = f"{n:06d}.txt"
        (target / name).write_bytes(str(text).encode("utf-8"))
        names.append(name)
    zip_path = target.parent / f"{target.name}.zip"
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for name in names:
            zf.write(target / name, name)
    took = time.perf_counter() - began
    return took, len(names), zip_path.stat().st_size


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def bench_export(runs: int = 10_000, repeat: int = 3, seed: int = 0) -> dict[str, Any]:
    """Time ``export_bundle`` against copying and zipping the raw outputs; return the figures."""
    from abp_tui.services.publishing import export_bundle

    if runs < 2:
        raise AbpError("--runs must be at least 2")
    if repeat < 1:
        raise AbpError("--repeat must be at least 1")
    with tempfile.TemporaryDirectory(prefix="abp-bench-export-") as tmp:
        folder = Path(tmp)
        began = time.perf_counter()
        db, design_pk, items = _prepare(folder, runs, seed)
        setup = time.perf_counter() - began
        ours: list[float] = []
        stages: dict[str, list[float]] = {}
        base: list[float] = []
        result = None
        base_files = base_zip = 0
        for i in range(repeat):
            took, base_files, base_zip = _baseline(db, folder / f"baseline-{i}" / "outputs")
            base.append(took)
            timings: dict[str, float] = {}
            began = time.perf_counter()
            result = export_bundle(
                db, design_pk, folder / f"ours-{i}" / "bundle", actor="bench", timings=timings
            )
            ours.append(time.perf_counter() - began)
            for k, v in timings.items():
                stages.setdefault(k, []).append(v)
        assert result is not None
        bundle_bytes = _folder_bytes(result.folder)
        zip_bytes = result.zip_path.stat().st_size
        db.close()
        shutil.rmtree(folder, ignore_errors=True)
    ours_median, base_median = statistics.median(ours), statistics.median(base)
    ratio = ours_median / base_median
    return {
        "benchmark": "export",
        "input": {
            "runs": runs,
            "engines": len(ENGINES),
            "tasks": max(1, min(TASKS, runs // 20)),
            "items": items,
            "judgments": 0,
            "seed": seed,
            "verdicts": "automated verification (resolved / unresolved / agent-error)",
            "setup_seconds": round(setup, 3),
        },
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "sqlite": sqlite3.sqlite_version,
        },
        "ours": {
            "what": "export_bundle: collect, derive (verdicts, statistics, agreement, gate, "
            "plots, report), hash, write folder and zip atomically",
            "samples_seconds": [round(s, _DIGITS) for s in ours],
            "median_seconds": round(ours_median, _DIGITS),
            "stages_median_seconds": {
                k: round(statistics.median(v), _DIGITS) for k, v in sorted(stages.items())
            },
            "files": result.files,
            "folder_bytes": bundle_bytes,
            "zip_bytes": zip_bytes,
            "status": result.status,
        },
        "baseline": {
            "what": "read the same raw outputs from the database, write one file each, zip the "
            "folder (deflate level 6)",
            "samples_seconds": [round(s, _DIGITS) for s in base],
            "median_seconds": round(base_median, _DIGITS),
            "files": base_files,
            "zip_bytes": base_zip,
        },
        "ratio": round(ratio, 3),
        "goal_ratio": GOAL_RATIO,
        "goal_met": ratio <= GOAL_RATIO,
    }
