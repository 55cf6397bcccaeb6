"""SQL for the agreement and ranking figures of a large design, read one item at a time.

A design's figures need each item's judgments together, never every judgment at once: agreement
folds each reviewer's first submitted judgment of an item into its observations, a ranking each
item's final preference into a vote. :func:`walk_items` walks the design's items in plan order
beside its submitted judgments and latest adjudications (three cursors, each ordered by item), and
:func:`item_records` hands over one item's records at a time, converted by the same functions as
:func:`abp_tui.store.judging.records_of_design`; what the caller keeps of them is its own.

:func:`latest_labels` and :func:`labels_by_runs` read a study's imported labels with the duplicates
a later import replaced already left out by SQL, so that only the labels that count are held.
Nothing here decides what a figure counts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from abp_tui.models import AdjudicationRevision, Item, JudgmentRevision
from abp_tui.models.base import same
from abp_tui.store.item_rows import ITEM_SELECT, plan_item
from abp_tui.store.judging import (
    ADJUDICATION_SELECT,
    JUDGMENT_SELECT,
    adjudication_revision,
    judgment_revision,
)

_CURRENT_LENGTH = (
    "(SELECT length(b.text) FROM runs c JOIN blobs b ON b.sha256 = c.output_sha256 "
    "WHERE c.study_id = {run}.study_id AND c.id = {run}.id AND c.current = 1)"
)
"""The output length of the current version of a run (what a ranking's length bias reads)."""

_ITEMS = (
    ITEM_SELECT.format(
        more=", t.fatal_criteria, "
        + _CURRENT_LENGTH.format(run="ra")
        + ", "
        + _CURRENT_LENGTH.format(run="rb")
    )
    + "WHERE i.design_pk = ? ORDER BY i.pk"
)


@dataclass(frozen=True, slots=True)
class ItemRecords:
    """One item of a design with its records (runs named by id, as everywhere in the rules)."""

    item: Item
    run_pks: tuple[int, ...]
    """The stored run versions judged, in the order of ``item.runs``."""
    criteria: tuple[str, ...]
    """The fatal criteria of the item's task (the rubric's general ones are not among them)."""
    lengths: tuple[int | None, ...]
    """The output length of each run's current version, None when unknown."""
    judgments: tuple[JudgmentRevision, ...]
    """Every submitted revision, by reviewer (in name order), then revision."""
    adjudication: AdjudicationRevision | None
    """The item's latest adjudication."""


ItemRows = tuple[
    Any, Item, tuple[int, ...], tuple[JudgmentRevision, ...], AdjudicationRevision | None
]
"""An item's row as ``items_sql`` selects it, the item, its runs' stored versions (in the
order of ``item.runs``), every submitted judgment revision of it (by reviewer, then revision)
and its latest adjudication."""


def walk_items(
    db: sqlite_utils.Database,
    design_pk: int,
    items_sql: str,
    figures: bool = False,
    name: Callable[[str], str] = same,
) -> Iterator[ItemRows]:
    """A design's items in plan order (``items_sql``: :data:`ITEM_SELECT` with what more the
    caller reads, for the design's items in plan order) beside its submitted judgments and
    latest adjudications: three cursors, each ordered by item; nothing of an item is held here
    once the next is read. Judgments converted as
    :func:`abp_tui.store.judging.judgment_revision` does with ``figures``; ids through
    ``name``."""
    items = db.execute(items_sql, [design_pk])
    judgments = db.execute(
        JUDGMENT_SELECT + "WHERE i.design_pk = ? AND j.status = 'submitted' "
        "ORDER BY j.item_pk, j.reviewer, j.revision",
        [design_pk],
    )
    adjudications = db.execute(
        ADJUDICATION_SELECT + "WHERE i.design_pk = ? AND a.revision = (SELECT MAX(revision) FROM "
        "adjudications b WHERE b.item_pk = a.item_pk) ORDER BY a.item_pk",
        [design_pk],
    )
    # Each cursor is in item order: a row belongs to the item being read or to a later one.
    judgment = next(judgments, None)
    adjudication = next(adjudications, None)
    for index, row in enumerate(items):
        item = plan_item(row, index, name)
        run_pks: tuple[int, ...] = (row[10],) if row[13] is None else (row[10], row[13])
        run_ids = dict(zip(run_pks, item.runs, strict=True))
        own: list[JudgmentRevision] = []
        while judgment is not None and judgment[0] == item.code:
            own.append(judgment_revision(judgment, run_ids, figures, name))
            judgment = next(judgments, None)
        latest = None
        if adjudication is not None and adjudication[0] == item.code:
            latest = adjudication_revision(adjudication, run_ids)
            adjudication = next(adjudications, None)
        yield row, item, run_pks, tuple(own), latest


def item_records(
    db: sqlite_utils.Database, design_pk: int, figures: bool = False
) -> Iterator[ItemRecords]:
    """A design's items in plan order, each with its submitted judgments and latest
    adjudication; nothing of an item is held once the next is read. ``figures``: each
    judgment only with what the figures read of it (as :func:`walk_items` converts it)."""
    for row, item, run_pks, judgments, latest in walk_items(db, design_pk, _ITEMS, figures):
        yield ItemRecords(
            item=item,
            run_pks=run_pks,
            criteria=tuple(json.loads(row[16])),
            lengths=_lengths(row),
            judgments=judgments,
            adjudication=latest,
        )


def _lengths(row: Any) -> tuple[int | None, ...]:
    found = (row[17],) if row[13] is None else (row[17], row[18])
    return tuple(None if n is None else int(n) for n in found)


_EXTERNAL = (
    "FROM preferences p JOIN reviewers r ON r.name = p.reviewer "
    "WHERE p.study_id = ? AND p.source = 'imported' AND r.external = 1"
)


def label_counts(db: sqlite_utils.Database, study_id: str) -> tuple[dict[str, int], int]:
    """Per label set, its stored labels (replaced ones too), and how many source items the
    labels name."""
    per_set = {
        str(name): int(n)
        for name, n in db.execute(
            f"SELECT p.reviewer, COUNT(*) {_EXTERNAL} GROUP BY p.reviewer", [study_id]
        ).fetchall()
    }
    items = db.execute(f"SELECT COUNT(DISTINCT p.item_id) {_EXTERNAL}", [study_id]).fetchone()
    return per_set, int(items[0])


def latest_labels(
    db: sqlite_utils.Database, study_id: str
) -> Iterator[tuple[str, str, str, int, int, int]]:
    """Each label set's latest label of each source item, a source item's labels together:
    (source item, label set, choice, run 1 key, run 2 key, where the set first labelled the item
    in stored order)."""
    rows = db.execute(
        "SELECT g.item_id, p.reviewer, p.choice, p.run_1_pk, p.run_2_pk, g.first FROM "
        f"(SELECT p.item_id, MIN(p.pk) AS first, MAX(p.pk) AS last {_EXTERNAL} "
        "GROUP BY p.item_id, p.reviewer) g JOIN preferences p ON p.pk = g.last "
        "ORDER BY g.item_id, g.first",
        [study_id],
    )
    for item, reviewer, choice, run_1, run_2, first in rows:
        yield str(item), str(reviewer), str(choice), int(run_1), int(run_2), int(first)


def labels_by_runs(db: sqlite_utils.Database, study_id: str) -> Iterator[tuple[str, str, int, int]]:
    """Each label set's latest label of each pair of run versions (whichever it calls response
    1): (label set, choice, run 1 key, run 2 key), by the pair's lower run key, then its
    higher (as :func:`pair_places` lists a design's pair items)."""
    rows = db.execute(
        "SELECT p.reviewer, p.choice, p.run_1_pk, p.run_2_pk FROM preferences p WHERE p.pk IN "
        f"(SELECT MAX(p.pk) {_EXTERNAL} GROUP BY p.reviewer, MIN(p.run_1_pk, p.run_2_pk), "
        "MAX(p.run_1_pk, p.run_2_pk)) "
        "ORDER BY MIN(p.run_1_pk, p.run_2_pk), MAX(p.run_1_pk, p.run_2_pk), p.pk",
        [study_id],
    )
    for reviewer, choice, run_1, run_2 in rows:
        yield str(reviewer), str(choice), int(run_1), int(run_2)


def pair_places(db: sqlite_utils.Database, design_pk: int) -> Iterator[tuple[int, int, int, int]]:
    """A design's pair items of two different run versions by those versions, the last item of
    the plan that holds each pair: (lower run key, higher run key, the item's place in the plan
    as :func:`item_records` numbers it, its run a's key), by the lower key, then the higher."""
    rows = db.execute(
        "SELECT lo, hi, MAX(place), run_a FROM (SELECT MIN(i.run_a_pk, i.run_b_pk) AS lo, "
        "MAX(i.run_a_pk, i.run_b_pk) AS hi, ROW_NUMBER() OVER (ORDER BY i.pk) - 1 AS place, "
        "i.run_a_pk AS run_a FROM items i JOIN tasks t ON t.pk = i.task_pk "
        "JOIN runs ra ON ra.pk = i.run_a_pk JOIN conditions ca ON ca.pk = ra.condition_pk "
        "WHERE i.design_pk = ?) WHERE lo IS NOT NULL AND lo != hi GROUP BY lo, hi ORDER BY lo, hi",
        [design_pk],
    )
    for lo, hi, place, run_a in rows:
        yield int(lo), int(hi), int(place), int(run_a)


__all__ = [
    "ItemRecords",
    "ItemRows",
    "item_records",
    "label_counts",
    "labels_by_runs",
    "latest_labels",
    "pair_places",
    "walk_items",
]
