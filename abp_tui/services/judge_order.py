"""The judge-informed review order: where a design with a calibration sample puts each item in
each reviewer's queue.

A design that sets ``calibration_sample`` gets, in every reviewer's queue, the seeded random
calibration items first (judged blind, so the judge-assisted estimates are unbiased), then the
rest with the items the AI judges are least trustworthy on first
(:mod:`abp_tui.analysis.judges.queue`). The order is written once, when the queue is planned
(:func:`order_queues`: called where a design's assignments are stored, and where a reviewer
enrols in an open design), so it stays put while people work; verdicts imported later do not
move items already queued. A design without ``calibration_sample`` keeps the plan's shuffled
order. Only the order changes: what a reviewer sees of an item, and where each response is
placed, are the plan's, and the reasons an item moved stay with the coordinator.

Each item is checked against its task's fatal criteria and the rubric's general ones, a pair
and a single item alike; a score verdict is placed on the scale it states (read from the
stored verdicts only when the study holds score verdicts on single runs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sqlite_utils

from abp_tui.analysis.allocation import boundary_items, uncertainty
from abp_tui.analysis.judges.arrays import NO_RUN, SCORE, VerdictTable
from abp_tui.analysis.judges.queue import (
    QueuedItem,
    ScaleKey,
    distrust,
    item_key,
    review_order,
    reviewer_order,
)
from abp_tui.analysis.judges.units import Pair, pair_key
from abp_tui.analysis.records import design_document
from abp_tui.models import DesignRecords, StudyDesign
from abp_tui.store import judges as sql
from abp_tui.store import judging


def review_queue(db: sqlite_utils.Database, design_pk: int) -> list[QueuedItem]:
    """The order people should judge a design's items in: its calibration sample first (when
    the design asks for one), then where the AI judges are least trustworthy."""
    return _queue(db, design_pk, judging.records_of_design(db, design_pk, with_runs=False))


@dataclass(frozen=True)
class _Inputs:
    """What the judge-informed order reads of a design: the study's verdicts, each item's
    fatal criteria and the scales the score verdicts state."""

    table: VerdictTable
    pairs: dict[Pair, tuple[str, ...]]
    singles: dict[str, tuple[str, ...]]
    scales: dict[ScaleKey, tuple[float, float]]


def _inputs(db: sqlite_utils.Database, design_pk: int, records: DesignRecords) -> _Inputs:
    study_id = judging.design(db, design_pk).study_id
    table = sql.verdict_table(db, study_id, explanations=True)
    general = tuple(records.rubric.fatal_criteria)
    pairs: dict[Pair, tuple[str, ...]] = {}
    singles: dict[str, tuple[str, ...]] = {}
    for item in records.items:
        named = (*records.task_criteria.get(item.task, ()), *general)
        if item.is_pair:
            pairs[pair_key(item.runs)] = named
        else:
            singles[item.runs[0]] = named
    return _Inputs(table, pairs, singles, _scales(db, study_id, table))


def _queue(db: sqlite_utils.Database, design_pk: int, records: DesignRecords) -> list[QueuedItem]:
    found = _inputs(db, design_pk, records)
    return review_order(
        [(item.code, item.runs) for item in records.items],
        found.table,
        found.pairs,
        records.design.calibration_sample,
        records.seed,
        run_criteria=found.singles,
        scales=found.scales,
    )


def item_uncertainty(db: sqlite_utils.Database, design_pk: int) -> dict[str, float]:
    """Each item's uncertainty for active allocation (by code,
    :func:`abp_tui.analysis.allocation.uncertainty`): its distrust reasons' weights, plus one
    where a judge's verdict sits on the decision boundary."""
    records = judging.records_of_design(db, design_pk, with_runs=False)
    found = _inputs(db, design_pk, records)
    why = distrust(found.table, found.pairs, run_criteria=found.singles, scales=found.scales)
    near = boundary_items(found.table, found.scales)
    return {
        item.code: uncertainty(why.get(item_key(item.runs), ()), item_key(item.runs) in near)
        for item in records.items
    }


def _scales(
    db: sqlite_utils.Database, study_id: str, table: VerdictTable
) -> dict[ScaleKey, tuple[float, float]]:
    """The scale each current score verdict on one run states: the verdicts are parsed only
    when the table holds such a verdict (a preference-only study reads nothing more)."""
    single_scores = (table.kind == SCORE) & (table.run_b == NO_RUN) & table.current
    if not np.any(single_scores):
        return {}
    return {
        (v.judge, v.runs[0], v.turn): (float(v.scale[0]), float(v.scale[1]))
        for v, current in sql.study_verdicts(db, study_id)
        if current and v.kind == "score" and len(v.runs) == 1 and v.scale is not None
    }


def order_queues(db: sqlite_utils.Database, design_pk: int, reviewer: str | None = None) -> int:
    """Give a design's queues (``reviewer``'s alone, or every reviewer's) the judge-informed
    order when the design asks for a calibration sample; the number of queues reordered. Call
    it inside the transaction that stored the assignments."""
    row = judging.design(db, design_pk)
    if StudyDesign.model_validate(design_document(row.document)).calibration_sample is None:
        return 0  # the plan's order stands: nothing to read
    queued = _queue(db, design_pk, judging.records_of_design(db, design_pk, with_runs=False))
    done = 0
    for name, shuffled in sql.queue_orders(db, design_pk).items():
        if reviewer is not None and name != reviewer:
            continue
        ordered = reviewer_order(queued, shuffled)
        if ordered != shuffled:
            sql.set_queue_order(db, design_pk, name, ordered)
            done += 1
    return done


__all__ = ["item_uncertainty", "order_queues", "review_queue"]
