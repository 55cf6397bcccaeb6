"""SQL for a design's results, read one item at a time.

The results of a large design need each item's judgments together, never every judgment at once:
:func:`design_items` walks the design's items in plan order beside its submitted judgments and
latest adjudications (:func:`abp_tui.store.figure_rows.walk_items`) and hands over one item's
records at a time, converted by the same functions as
:func:`abp_tui.store.judging.records_of_design` with ``figures`` (each judgment as the figures
read it). Unlike :func:`abp_tui.store.figure_rows.item_records` it reads no output lengths: no
results figure reads them. Nothing here decides what a figure counts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import sqlite_utils

from abp_tui.models import AdjudicationRevision, Item, JudgmentRevision, ResultState
from abp_tui.models.base import same
from abp_tui.store.figure_rows import walk_items
from abp_tui.store.item_rows import ITEM_SELECT
from abp_tui.store.queries import RUN_FACTS_SELECT, diff_bytes

RunRow = tuple[str, str, str, int, tuple[Any, ...]]
"""A current run as results read it: id, task id, condition id, trial, and its other facts
(:class:`abp_tui.models.RunFacts`' record state, automated outcome, exclusion, total tokens,
wall clock, cost, diff bytes, in that order)."""


def run_rows(db: sqlite_utils.Database, study_id: str) -> Iterator[RunRow]:
    """A study's current runs one at a time, in stored order, with the facts
    :func:`abp_tui.store.queries.run_facts` reads (the same conversions), but as a tuple each:
    the caller keeps what it needs of them and sorts them itself."""
    rows = db.execute(
        RUN_FACTS_SELECT.format(more=", json_extract(r.document, '$.metadata')", join=""),
        [study_id],
    )
    for r in rows:
        metadata = json.loads(r[10]) if r[10] else {}
        yield (
            str(r[0]),
            str(r[1]),
            str(r[2]),
            int(r[3]),
            (
                None if r[4] is None else ResultState(r[4]),
                r[5],
                r[6],
                None if r[7] is None else int(r[7]),
                None if r[8] is None else float(r[8]),
                None if r[9] is None else float(r[9]),
                diff_bytes(metadata),
            ),
        )


ItemJudged = tuple[Item, tuple[JudgmentRevision, ...], AdjudicationRevision | None]
"""An item, every submitted judgment revision of it (by reviewer, then revision) and its latest
adjudication."""


def design_items(
    db: sqlite_utils.Database, design_pk: int, name: Callable[[str], str] = same
) -> Iterator[ItemJudged]:
    """A design's items in plan order, each with its submitted judgments and latest
    adjudication; nothing of an item is held here once the next is read. Run ids, task ids and
    item codes through ``name`` (:func:`abp_tui.models.base.sharing`)."""
    sql = ITEM_SELECT.format(more="") + "WHERE i.design_pk = ? ORDER BY i.pk"
    for _row, item, _pks, judgments, latest in walk_items(db, design_pk, sql, True, name):
        yield item, judgments, latest


__all__ = ["ItemJudged", "RunRow", "design_items", "run_rows"]
