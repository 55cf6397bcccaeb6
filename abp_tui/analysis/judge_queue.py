"""The human queue of a design with AI judges: a calibration sample first, then the items where
the judges are least trustworthy.

A design's ``calibration_sample`` (a share, e.g. 0.1) asks for a seeded random sample of its
items that people judge first, blind: judged on a random sample, the judge's measured error is
unbiased and the prediction-powered estimates (:mod:`abp_tui.analysis.judge_estimates`) are
valid. The rest of the queue comes in order of distrust: an item whose judge's two presentation
orders disagree, whose judges disagree with each other, or whose judge explanation names one of
the task's fatal criteria comes before the items the judges agree on.

The order is **judge-informed**, and that is all it says: a reviewer can tell that an early item
(after the calibration sample) is one the judges are unsure of, never which response a judge
picked. Nothing of the verdicts moves with it: the placement of the two responses comes from the
plan alone (:mod:`abp_tui.analysis.blinding`), the reasons never leave the coordinator, and
within the calibration sample and within each level of distrust a reviewer keeps their own
shuffled order. Pure: the caller hands over the items, the verdicts and the fatal criteria;
nothing here decides who judges what.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from abp_tui.analysis.judge_arrays import NO_RUN, PREFERENCE, A, B, VerdictTable, groups
from abp_tui.analysis.judge_units import pair_key

ORDERS_DISAGREE = "the judge's two presentation orders disagree"
JUDGES_DISAGREE = "the AI judges disagree with each other"
FATAL_NAMED = "a judge's explanation names a fatal criterion"
WEIGHTS = {FATAL_NAMED: 3, ORDERS_DISAGREE: 2, JUDGES_DISAGREE: 2}


@dataclass(frozen=True)
class QueuedItem:
    code: str
    calibration: bool
    """In the calibration sample: judged first."""
    reasons: tuple[str, ...]
    """Why the judges are not trusted on it (empty: they agree)."""


def calibration_sample(codes: Sequence[str], share: float, seed: int) -> frozenset[str]:
    """A seeded random sample of ceil(share x n) of the items, ``codes`` in plan order (numpy
    ``default_rng`` seeded by the design's seed as an unsigned 64-bit number: a seed may be
    negative)."""
    if not 0 < share <= 1:
        raise ValueError(f"calibration_sample must be in (0, 1], got {share}")
    size = min(len(codes), math.ceil(share * len(codes)))
    rng = np.random.default_rng(seed % 2**64)
    chosen = rng.choice(len(codes), size=size, replace=False) if size else np.empty(0, int)
    return frozenset(codes[int(i)] for i in chosen)


def distrust(
    table: VerdictTable,
    fatal_criteria: Mapping[tuple[str, str], Sequence[str]],
) -> dict[tuple[str, str], tuple[str, ...]]:
    """Pair (sorted run ids) -> why the judges are not trusted on it. Only verdicts on the
    current versions of both runs count; a judge's latest verdict in each order (over turns)."""
    pref = (table.kind == PREFERENCE) & (table.run_b != NO_RUN) & table.current
    rows = np.flatnonzero(pref & (table.verdict >= 0))
    runs = table.runs
    out: dict[tuple[str, str], list[str]] = {}
    if rows.size:
        a, b = table.run_a[rows], table.run_b[rows]
        low, high = np.minimum(a, b), np.maximum(a, b)
        verdict = table.verdict[rows]
        tie = len(runs)
        winner = np.where(verdict == A, a, np.where(verdict == B, b, tie))
        order = table.swapped[rows].astype(np.int64)
        judge = table.judge[rows]
        # The last verdict of each (pair, judge, order), as the rows come.
        slot, _first = groups((low, high, judge, order))
        _slots, last_reversed = np.unique(slot[::-1], return_index=True)
        keep = np.sort(rows.size - 1 - last_reversed)
        low, high, judge, order, winner = (x[keep] for x in (low, high, judge, order, winner))
        pair, _f = groups((low, high))
        first_pair = np.zeros(int(pair.max()) + 1, dtype=np.int64)
        first_pair[pair] = np.arange(pair.size)
        # Two orders of one judge on one pair that disagree.
        by_judge, _g = groups((pair, judge))
        n_groups = int(by_judge.max()) + 1
        seen = np.full((n_groups, 2), -1, dtype=np.int64)
        seen[by_judge, order] = winner
        split = (seen[:, 0] >= 0) & (seen[:, 1] >= 0) & (seen[:, 0] != seen[:, 1])
        pair_of_group = np.zeros(n_groups, dtype=np.int64)
        pair_of_group[by_judge] = pair
        orders_split = np.zeros(pair.max() + 1, dtype=bool)
        orders_split[pair_of_group[split]] = True
        # Judges whose original-order picks differ.
        original = order == 0
        lowest = np.full(pair.max() + 1, tie + 1, dtype=np.int64)
        highest = np.full(pair.max() + 1, -1, dtype=np.int64)
        np.minimum.at(lowest, pair[original], winner[original])
        np.maximum.at(highest, pair[original], winner[original])
        judges_split = (highest >= 0) & (lowest != highest)
        for p in np.flatnonzero(orders_split | judges_split).tolist():
            i = int(first_pair[p])
            key = (runs[int(low[i])], runs[int(high[i])])
            key = pair_key(key)
            reasons = out.setdefault(key, [])
            if orders_split[p]:
                reasons.append(ORDERS_DISAGREE)
            if judges_split[p]:
                reasons.append(JUDGES_DISAGREE)
    for row, text in table.explanations.items():
        if not pref[row]:
            continue
        key = pair_key((runs[int(table.run_a[row])], runs[int(table.run_b[row])]))
        folded = text.casefold()
        named = fatal_criteria.get(key, ())
        if any(c.casefold() in folded for c in named if c.strip()):
            reasons = out.setdefault(key, [])
            if FATAL_NAMED not in reasons:
                reasons.insert(0, FATAL_NAMED)
    return {key: tuple(reasons) for key, reasons in out.items()}


def review_order(
    items: Sequence[tuple[str, tuple[str, ...]]],
    table: VerdictTable,
    fatal_criteria: Mapping[tuple[str, str], Sequence[str]],
    share: float | None,
    seed: int,
) -> list[QueuedItem]:
    """The order people should judge ``items`` ((code, runs), in plan order) in."""
    codes = [code for code, _runs in items]
    sample = calibration_sample(codes, share, seed) if share else frozenset()
    why = distrust(table, fatal_criteria)
    queued = [
        QueuedItem(code, code in sample, why.get(pair_key(runs), ()) if len(runs) == 2 else ())
        for code, runs in items
    ]
    position = {code: i for i, code in enumerate(codes)}

    def rank(q: QueuedItem) -> tuple[int, int, int]:
        weight = sum(WEIGHTS[r] for r in q.reasons)
        return (0 if q.calibration else 1, 0 if q.calibration else -weight, position[q.code])

    return sorted(queued, key=rank)


def reviewer_order(queued: Sequence[QueuedItem], shuffled: Sequence[str]) -> list[str]:
    """One reviewer's items in the judge-informed order: ``shuffled`` holds their codes in the
    order the plan shuffled them for this reviewer; their calibration items come first, then
    the rest from the most distrusted, each group in the reviewer's own shuffled order (so
    reviewers of the same items still meet them in different orders)."""
    by_code = {q.code: q for q in queued}
    position = {code: i for i, code in enumerate(shuffled)}

    def rank(code: str) -> tuple[int, int, int]:
        q = by_code.get(code)
        if q is None:
            return (1, 0, position[code])
        weight = sum(WEIGHTS[r] for r in q.reasons)
        return (0 if q.calibration else 1, 0 if q.calibration else -weight, position[code])

    return sorted(shuffled, key=rank)


__all__ = [
    "FATAL_NAMED",
    "JUDGES_DISAGREE",
    "ORDERS_DISAGREE",
    "QueuedItem",
    "calibration_sample",
    "distrust",
    "review_order",
    "reviewer_order",
]
