"""Past its memory budget a staged file spools its newest chunks and keeps the oldest in memory
(spooling them all had cost a tenth of a large import): the records are still written in the
order they were read, and what is held stays within the budget and a record."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.formats.base import ParseContext
from abp_tui.formats.pairwise import FORMAT as PAIRWISE
from abp_tui.store import ImportWriter
from abp_tui.store.staging import CHUNK_RECORDS, SPILL_TO, SpoolBudget, StagedFile
from tests.factories import copy_db

TABLES = ("conditions", "tasks", "blobs", "runs", "preferences")
TIMES = {"created_at", "imported_at"}


def _rows(db: sqlite_utils.Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the import's tables in the order it was written (keys included)."""
    out = {}
    for table in TABLES:
        names = [c.name for c in db[table].columns if c.name not in TIMES]
        out[table] = db.execute(f"SELECT {', '.join(names)} FROM {table} ORDER BY rowid").fetchall()
    return out


def _staged(
    db: sqlite_utils.Database, path: Path, budget: SpoolBudget
) -> tuple[StagedFile, list[int]]:
    """The file staged, and how much the import held after each record."""
    stage = StagedFile(db, ImportWriter(db, path.name, "0" * 64, 1, "pairwise"), budget)
    held = []
    for record in PAIRWISE.parse(path, ParseContext(display=str(path))):
        stage.write(record)
        held.append(budget.held)
    return stage, held


def test_spooling_the_newest_chunks_keeps_the_order_the_records_were_read(
    tmp_path: Path, empty_db_template: Path
) -> None:
    path = tmp_path / "pairs.json"
    write_pairs(path, 2 * CHUNK_RECORDS)  # six records a pair: a dozen chunks of about 1 MB
    stored = []
    mixed = False
    budgets = [None, 0, 2_000_000, 3_000_000, 5_000_000]  # the file counts about 8 MB
    for n, limit in enumerate(budgets):
        db = copy_db(empty_db_template, tmp_path / f"{n}.db")
        try:
            budget = SpoolBudget() if limit is None else SpoolBudget(limit=limit)
            stage, held = _staged(db, path, budget)
            spooled = [c.records is None for c in stage._held]
            if limit is None:
                assert not any(spooled)
            elif limit == 0:
                assert all(spooled)
            else:
                assert spooled[0] is False and any(spooled)  # the oldest stay in memory
                first = spooled.index(True)
                mixed |= not all(spooled[first:])  # held chunks after spooled ones
                assert max(held) <= limit + 20_000  # the budget and one record (< 20 kB)
                # Each spill goes down to three quarters of the budget, not one record below.
                drops = [b for a, b in itertools.pairwise(held) if b < a - 50_000]
                assert drops and max(drops) <= limit * SPILL_TO
            with db.atomic():
                counts = dict(stage.commit())
            assert budget.held == 0
            stored.append((counts, _rows(db)))
        finally:
            db.close()
    assert mixed, "no budget left chunks in memory after spooled ones"
    assert stored[0][0]["runs added"] == 4 * CHUNK_RECORDS
    assert all(s == stored[0] for s in stored[1:])
