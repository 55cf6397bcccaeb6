"""``bench import --format pairwise``: importing a pairwise judgments file beside a bare loader.

A PandaLM-shaped JSON list of ``pairs`` items is generated (deterministic: an instruction, an
input, two responses of a few hundred characters, a ``cmp_key`` naming two of five models, three
annotator labels), the shape of the real ``testset-v1.json``. Then, ``repeat`` times and
interleaved so that drift in the machine's speed touches all alike, each into a fresh database:

1. ours: ``import_paths`` (format detection, file hash, every item validated, tasks, runs and
   outputs hashed and versioned, one preference per label, the indexes kept up to date);
2. the bare loop: ``json.load`` of the same file and one ``executemany`` per table of the same
   rows, those our import stored (an untimed first import, read back before the clock
   starts), into an empty database of our schema, on a connection opened as ours is: what no
   importer producing those rows can go below (no validation, no hashing, no Python work per
   row);
3. the source rows loop: ``json.load`` and one ``executemany`` per table of the source's own
   rows (one per task, run and label, with the same texts) into plain tables without indexes,
   keys or validation: the floor of a loader that keeps nothing else.

The untimed first import also warms what a first call builds once (validators, caches), so
that every sample measures the same work; each round runs the contenders in another order.
The goal (at most 3 times the bare loop) is judged against the bare loop: "the same rows" are
the rows the store keeps, since its versions, hashes and indexes are what every other command
reads. The ratio to the source rows loop is reported beside it, and the bare loop's own, which
is what our schema's rows cost beyond the source's. Besides the medians of the wall-clock
times, each round's own ratio is reported (their spread is the margin's), and the medians of
the CPU time the process spent, which other processes on a loaded machine disturb less.
"""

from __future__ import annotations

import json
import os
import platform
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Final

import pydantic

from abp_tui.errors import AbpError
from abp_tui.formats.base import _peek_cache

GOAL_RATIO: Final = 3.0
"""Ours against the bare loop: at most this many times its time."""
MODELS: Final = ("bloom-7b", "cerebras-gpt-6.7B", "llama-7b", "opt-7b", "pythia-6.9b")
_TEXT: Final = (
    "rewrite the sentence so that it is clear and concise keep the meaning of the original and "
    "break long sentences into shorter ones remove words that add nothing the reader should "
    "understand the request at once and the tone stays polite and professional throughout"
)
_WORDS: Final = tuple(_TEXT.split(" "))
_STORED_TABLES: Final = (
    "studies",
    "imports",
    "conditions",
    "reviewers",
    "tasks",
    "blobs",
    "runs",
    "preferences",
)


def _sentence(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high))).capitalize() + "."


def write_pairs(path: Path, pairs: int, seed: int = 20260718) -> int:
    """Write a deterministic PandaLM-shaped JSON list of ``pairs`` items; return its size."""
    rng = random.Random(seed)
    items = []
    for idx in range(pairs):
        first, second = rng.sample(MODELS, 2)
        items.append(
            {
                "idx": idx,
                "motivation_app": rng.choice(("Grammarly", "Notion", "Gmail", "Slack")),
                "cmp_key": f"{first}_{second}",
                "instruction": _sentence(rng, 20, 45),
                "input": _sentence(rng, 0, 25) if rng.random() < 0.6 else "",
                "response1": _sentence(rng, 15, 90),
                "response2": _sentence(rng, 15, 90),
                **{f"annotator{n}": rng.choice((0, 1, 2)) for n in (1, 2, 3)},
            }
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path.stat().st_size


def _fresh(db_path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(db_path) + suffix).unlink(missing_ok=True)


Sample = tuple[float, float, dict[str, int]]
"""A contender's wall-clock seconds, CPU seconds and the rows it stored (tasks, runs, labels)."""


def _ours(source: Path, db_path: Path) -> Sample:
    from abp_tui.services.importing import import_paths
    from abp_tui.store import connect

    db = connect(db_path)
    # Each sample starts as a fresh process would: nothing learnt about the file while sniffing.
    _peek_cache.clear()
    try:
        began, cpu = time.perf_counter(), time.process_time()
        import_paths(db, [source])
        took, cpu = time.perf_counter() - began, time.process_time() - cpu
        stored = _counts(db.conn)
    finally:
        db.close()
    return took, cpu, stored


def _counts(conn: sqlite3.Connection) -> dict[str, int]:
    return {
        table: int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        for table in ("tasks", "runs", "preferences")
    }


_BARE_TABLES: Final = (
    "CREATE TABLE tasks (id TEXT NOT NULL, prompt TEXT NOT NULL, metadata TEXT NOT NULL)",
    "CREATE TABLE runs (id TEXT NOT NULL, task_id TEXT NOT NULL, condition_id TEXT NOT NULL, "
    "output TEXT NOT NULL)",
    "CREATE TABLE preferences (item_id TEXT NOT NULL, reviewer TEXT NOT NULL, "
    "run_1 TEXT NOT NULL, run_2 TEXT NOT NULL, choice INTEGER NOT NULL)",
)


def _source_rows_loop(source: Path, db_path: Path) -> Sample:
    began, cpu = time.perf_counter(), time.process_time()
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    for statement in _BARE_TABLES:
        conn.execute(statement)
    with source.open("rb") as handle:
        items: list[dict[str, Any]] = json.load(handle)
    with conn:
        conn.executemany(
            "INSERT INTO tasks VALUES (?, ?, ?)",
            (
                (
                    str(item["idx"]),
                    "\n\n".join(p for p in (item["instruction"], item["input"]) if p),
                    json.dumps({"motivation_app": item["motivation_app"]}),
                )
                for item in items
            ),
        )
        conn.executemany(
            "INSERT INTO runs VALUES (?, ?, ?, ?)",
            (
                (f"{item['idx']}/{n}", str(item["idx"]), model, item[f"response{n}"])
                for item in items
                for n, model in enumerate(item["cmp_key"].split("_"), start=1)
            ),
        )
        conn.executemany(
            "INSERT INTO preferences VALUES (?, ?, ?, ?, ?)",
            (
                (str(item["idx"]), f"annotator{k}", f"{item['idx']}/1", f"{item['idx']}/2", label)
                for item in items
                for k in (1, 2, 3)
                if (label := item[f"annotator{k}"]) is not None
            ),
        )
    took, cpu = time.perf_counter() - began, time.process_time() - cpu
    stored = _counts(conn)
    conn.close()
    return took, cpu, stored


def _stored_rows(ours_db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row our import stored, table by table."""
    with sqlite3.connect(ours_db) as source:
        rows = {t: source.execute(f"SELECT * FROM {t}").fetchall() for t in _STORED_TABLES}
    source.close()
    return rows


def _bare_loop(source: Path, db_path: Path, rows: dict[str, list[tuple[Any, ...]]]) -> Sample:
    """``json.load`` of the file, then our stored ``rows`` by ``executemany`` into an empty
    database of our schema (the load is not used: the rows are ready, as no importer's are)."""
    from abp_tui.store import connect

    db = connect(db_path)
    try:
        began, cpu = time.perf_counter(), time.process_time()
        with source.open("rb") as handle:
            json.load(handle)
        with db.conn:
            for table in _STORED_TABLES:
                if rows[table]:
                    marks = ", ".join("?" for _ in rows[table][0])
                    db.conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows[table])
        took, cpu = time.perf_counter() - began, time.process_time() - cpu
        return took, cpu, _counts(db.conn)
    finally:
        db.close()


def _figures(samples: list[float], cpu: list[float], pairs: int) -> dict[str, Any]:
    median = statistics.median(samples)
    return {
        "median_seconds": round(median, 4),
        "samples_seconds": [round(s, 4) for s in samples],
        "pairs_per_second": round(pairs / median) if median > 0 else None,
        "cpu_median_seconds": round(statistics.median(cpu), 4),
    }


def bench_import_pairwise(pairs: int = 20_000, repeat: int = 3) -> dict[str, Any]:
    """Measure our pairwise import beside the bare loop on one generated file; the JSON."""
    if pairs < 1:
        raise AbpError("bench import: --pairs must be at least 1")
    if repeat < 1:
        raise AbpError("bench import: --repeat must be at least 1")
    with tempfile.TemporaryDirectory(prefix="abp-bench-") as tmp:
        root = Path(tmp)
        source = root / "pairwise-bench.json"
        size = write_pairs(source, pairs)
        first = root / "first.db"
        _ours(source, first)  # untimed: the rows the bare loop stores, and a warm start
        names = ("ours", "bare_loop", "source_rows_loop")
        samples: dict[str, list[float]] = {name: [] for name in names}
        cpu: dict[str, list[float]] = {name: [] for name in names}
        stored: dict[str, dict[str, int]] = {}
        for i in range(repeat):
            for name in names if i % 2 == 0 else names[::-1]:
                db_path = root / f"{name}-{i}.db"
                if name == "ours":
                    sample = _ours(source, db_path)
                elif name == "bare_loop":
                    rows = _stored_rows(first)
                    sample = _bare_loop(source, db_path, rows)
                    del rows
                else:
                    sample = _source_rows_loop(source, db_path)
                _fresh(db_path)
                samples[name].append(sample[0])
                cpu[name].append(sample[1])
                stored[name] = sample[2]

    ours = statistics.median(samples["ours"])
    bare = statistics.median(samples["bare_loop"])
    plain = statistics.median(samples["source_rows_loop"])
    ratio = ours / bare
    rounds = [o / b for o, b in zip(samples["ours"], samples["bare_loop"], strict=True)]
    return {
        "benchmark": "import",
        "input": {
            "format": "pairwise (PandaLM-shaped JSON list)",
            "pairs": pairs,
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
            "what": "abp-tui import_paths into a fresh database: every item validated, records "
            "hashed and versioned, indexes and foreign keys kept",
            "stored": stored["ours"],
            **_figures(samples["ours"], cpu["ours"], pairs),
        },
        "bare_loop": {
            "what": "json.load + one executemany per table of the rows our import stored, into "
            "an empty database of our schema (its indexes and foreign keys); no validation, no "
            "hashing, no Python work per row",
            "stored": stored["bare_loop"],
            **_figures(samples["bare_loop"], cpu["bare_loop"], pairs),
        },
        "source_rows_loop": {
            "what": "json.load + one executemany per table of the source's tasks, runs and "
            "labels, plain tables, no index, no validation",
            "stored": stored["source_rows_loop"],
            **_figures(samples["source_rows_loop"], cpu["source_rows_loop"], pairs),
        },
        "ratios": {
            "ours_time_over_bare_loop": round(ratio, 3),
            "goal_ratio": GOAL_RATIO,
            "goal_met": ratio <= GOAL_RATIO,
            "each_round": [round(r, 3) for r in rounds],
            "cpu_ours_over_bare_loop": round(
                statistics.median(cpu["ours"]) / statistics.median(cpu["bare_loop"]), 3
            ),
            "ours_time_over_source_rows_loop": round(ours / plain, 3),
            "bare_loop_over_source_rows_loop": round(bare / plain, 3),
        },
    }
