"""``bench export --sizes N,N``: export and verify of a PandaLM-shaped study at several sizes.

For each size, a PandaLM-shaped pairwise file of that many pairs is generated
(:func:`abp_tui.bench.pairwise_import.write_pairs`), imported, given a preference design
(``rubric = "none"``, every pair one item, three reviewers per item) and unblinded; none of that
is timed. The imported annotators' labels are preferences of external reviewers, not judgments
of the design: the design's items stay unjudged and the bundle publishes the labels as the
ranking's votes (``ranking/votes.jsonl``), as a PandaLM study is published before anyone
judged it again. Then, ``repeat`` times, each in a fresh process of its own so that its peak
memory is its own:

1. ``export``: :func:`abp_tui.services.publishing.export_bundle` of the design;
2. ``zip``: Python's ``zipfile`` zipping the exported folder (deflate level 6, the bundle's),
   the floor of writing those bytes;
3. ``verify``: :func:`abp_tui.export.verify` of the exported folder;
4. ``hash``: ``hashlib.sha256`` over every file of that folder, the floor of checking them.

Each figure is the median wall time and peak resident memory (``ru_maxrss``); the ratios of
export to zip and verify to hash are judged against 3, and the slope of each command's peak
memory over the number of pairs (bytes per pair, between the smallest and largest size) shows
whether it grows with the study.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from abp_tui.errors import AbpError

GOAL_RATIO: Final = 3.0
REVIEWERS: Final = ("r1", "r2", "r3")
STUDY: Final = "pandalm-testset-v1"
_CHILD: Final = "from abp_tui.bench.export_scale import child; child()"


def _peak() -> int:
    """This process's peak resident memory in bytes (Linux reports kilobytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) * (1 if sys.platform == "darwin" else 1024)


def _setup(folder: str, pairs: int) -> dict[str, Any]:
    from abp_tui.bench.pairwise_import import write_pairs
    from abp_tui.models import StudyDesign
    from abp_tui.services.designing import create_design
    from abp_tui.services.importing import import_paths
    from abp_tui.services.results_report import unblind
    from abp_tui.store import connect

    root = Path(folder)
    source = root / "testset-v1.json"  # the name PandaLM's study is named after
    write_pairs(source, pairs)
    db = connect(root / "bench.db")
    try:
        import_paths(db, [source], fmt="pairwise")  # past 64 MiB a JSON list is not sniffed
        design = StudyDesign(
            study=STUDY,
            name="again-blind",
            seed=7,
            rubric="none",
            contrasts="all-pairs",
            reviewers=list(REVIEWERS),
            reviewers_per_item=len(REVIEWERS),
        )
        created = create_design(db, design)
        unblind(db, STUDY, "coordinator")
    finally:
        db.close()
    source.unlink()
    return {"design": created.pk, "items": created.items}


def _export(folder: str, design: int) -> dict[str, Any]:
    from abp_tui.services.publishing import export_bundle
    from abp_tui.store import connect

    root = Path(folder)
    db = connect(root / "bench.db")
    try:
        began = time.perf_counter()
        result = export_bundle(db, design, root / "bundle", actor="bench")
        took = time.perf_counter() - began
    finally:
        db.close()
    return {"seconds": took, "files": result.files, "status": result.status}


def _zip(folder: str) -> dict[str, Any]:
    root = Path(folder)
    began = time.perf_counter()
    bundle = root / "bundle"
    names = sorted(p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file())
    with zipfile.ZipFile(root / "baseline.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for name in names:
            zf.write(bundle / name, name)
    took = time.perf_counter() - began
    size = (root / "baseline.zip").stat().st_size
    (root / "baseline.zip").unlink()
    return {"seconds": took, "files": len(names), "zip_bytes": size}


def _verify(folder: str) -> dict[str, Any]:
    from abp_tui.export import verify

    began = time.perf_counter()
    report = verify(Path(folder) / "bundle")
    return {"seconds": time.perf_counter() - began, "files": report.files}


def _hash(folder: str) -> dict[str, Any]:
    bundle = Path(folder) / "bundle"
    began = time.perf_counter()
    count = total = 0
    for path in sorted(bundle.rglob("*")):
        if not path.is_file():
            continue
        sha = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                sha.update(chunk)
                total += len(chunk)
        sha.hexdigest()
        count += 1
    return {"seconds": time.perf_counter() - began, "files": count, "bytes": total}


_STEPS: Final[dict[str, Callable[..., dict[str, Any]]]] = {
    "setup": _setup,
    "export": _export,
    "zip": _zip,
    "verify": _verify,
    "hash": _hash,
}


def child() -> None:
    """Run one step named on the command line; print its figures and peak memory as JSON."""
    step, args = sys.argv[1], json.loads(sys.argv[2])
    out = _STEPS[step](*args)
    out["peak_bytes"] = _peak()
    print(json.dumps(out))


def _run(step: str, *args: Any) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, step, json.dumps(args)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        if step in ("setup", "export"):
            raise AbpError(f"bench export: the {step} step failed: {last}")
        return {"seconds": float("nan"), "peak_bytes": 0, "failed": last}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _median(samples: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(s[key] for s in samples))


def _size(pairs: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="abp-bench-export-scale-") as tmp:
        setup = _run("setup", tmp, pairs)
        samples: dict[str, list[dict[str, Any]]] = {k: [] for k in ("export", "zip")}
        samples |= {"verify": [], "hash": []}
        for _ in range(repeat):
            samples["export"].append(_run("export", tmp, setup["design"]))
            samples["zip"].append(_run("zip", tmp))
            samples["verify"].append(_run("verify", tmp))
            samples["hash"].append(_run("hash", tmp))
        bundle = Path(tmp) / "bundle"
        folder_bytes = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
        zip_bytes = (Path(tmp) / "bundle.zip").stat().st_size
        shutil.rmtree(tmp, ignore_errors=True)
    figures: dict[str, Any] = {
        "pairs": pairs,
        "items": setup["items"],
        "files": samples["export"][0]["files"],
        "status": samples["export"][0]["status"],
        "folder_bytes": folder_bytes,
        "zip_bytes": zip_bytes,
    }
    for step, runs in samples.items():
        failed = [s["failed"] for s in runs if "failed" in s]
        if failed:  # the figure is missing, and why is said (never a made-up number)
            figures[step] = {"median_seconds": None, "peak_mib": None, "failed": failed[0]}
            continue
        figures[step] = {
            "median_seconds": round(_median(runs, "seconds"), 3),
            "samples_seconds": [round(s["seconds"], 3) for s in runs],
            "peak_mib": round(_median(runs, "peak_bytes") / (1 << 20), 1),
        }
    for name, ours, floor in (
        ("export_over_zip", "export", "zip"),
        ("verify_over_hash", "verify", "hash"),
    ):
        if figures[ours]["median_seconds"] is None:
            figures[name] = None
            continue
        ratio = _median(samples[ours], "seconds") / _median(samples[floor], "seconds")
        figures[name] = round(ratio, 2)
    figures["goal_met"] = {
        step: figures[name] is not None and figures[name] <= GOAL_RATIO
        for step, name in (("export", "export_over_zip"), ("verify", "verify_over_hash"))
    }
    return figures


def bench_export_scale(sizes: list[int], repeat: int = 1) -> dict[str, Any]:
    """Export and verify a PandaLM-shaped study of each size in ``sizes`` (pairs) beside zipping
    and hashing the same folder; return the figures and the slope of peak memory."""
    if not sizes or min(sizes) < 2:
        raise AbpError("--sizes: expected sizes of at least 2 pairs, e.g. --sizes 20000,100000")
    if repeat < 1:
        raise AbpError("--repeat must be at least 1")
    found = [_size(n, repeat) for n in sorted(set(sizes))]
    slopes: dict[str, float | None] = {}
    low, high = found[0], found[-1]
    for step in ("export", "verify", "zip", "hash"):
        if high["pairs"] == low["pairs"] or None in (high[step]["peak_mib"], low[step]["peak_mib"]):
            slopes[step] = None
            continue
        grew = (high[step]["peak_mib"] - low[step]["peak_mib"]) * (1 << 20)
        slopes[step] = round(grew / (high["pairs"] - low["pairs"]), 1)
    return {
        "benchmark": "export",
        "input": {
            "shape": "PandaLM-shaped pairs (two runs and three annotator labels each), a "
            "preference design of three reviewers per item, unblinded, unjudged",
            "sizes": [f["pairs"] for f in found],
            "repeat": repeat,
        },
        "machine": {"cpu_count": os.cpu_count(), "python": sys.version.split()[0]},
        "what": {
            "export": "export_bundle (collect, derive, hash, write the folder and the zip)",
            "zip": "zipfile (deflate level 6) of the exported folder",
            "verify": "verify of the exported folder",
            "hash": "hashlib.sha256 over every file of the exported folder",
        },
        "sizes": found,
        "peak_bytes_per_pair": slopes,
        "goal_ratio": GOAL_RATIO,
        "goal_peak_mib": 1024,
    }
