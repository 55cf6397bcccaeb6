"""The human queue of a design with AI judges: a calibration sample first, then the items where
the judges are least trustworthy.

A design's ``calibration_sample`` (a share, e.g. 0.1) asks for a seeded random sample of its
items that people judge first, blind: judged on a random sample, the judge's measured error is
unbiased and the prediction-powered estimates (:mod:`abp_tui.analysis.judge_estimates`) are
valid. The rest of the queue comes in order of distrust: an item whose judge's two presentation
orders disagree, whose judges disagree with each other, or whose judge explanation names one of
the task's fatal criteria comes before the items the judges agree on. Pure: the caller hands over
the items, the verdict rows and the fatal criteria; nothing here decides who judges what.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from abp_tui.analysis.judge_units import ORDERS, VerdictRow, order_of, pair_key, pick_of

ORDERS_DISAGREE = "the judge's two presentation orders disagree"
JUDGES_DISAGREE = "the AI judges disagree with each other"
FATAL_NAMED = "a judge's explanation names a fatal criterion"
WEIGHTS = {FATAL_NAMED: 3, ORDERS_DISAGREE: 2, JUDGES_DISAGREE: 2}


@dataclass(frozen=True)
class QueuedItem:
    code: str
    calibration: bool
    """In the calibration sample: judged first, in plan order."""
    reasons: tuple[str, ...]
    """Why the judges are not trusted on it (empty: they agree)."""


def calibration_sample(codes: Sequence[str], share: float, seed: int) -> frozenset[str]:
    """A seeded random sample of ceil(share x n) of the items (numpy ``default_rng(seed)``)."""
    if not 0 < share <= 1:
        raise ValueError(f"calibration_sample must be in (0, 1], got {share}")
    size = min(len(codes), math.ceil(share * len(codes)))
    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(codes), size=size, replace=False) if size else np.empty(0, int)
    return frozenset(codes[int(i)] for i in chosen)


def distrust(
    rows: Iterable[VerdictRow],
    fatal_criteria: Mapping[tuple[str, str], Sequence[str]],
) -> dict[tuple[str, str], tuple[str, ...]]:
    """Pair (sorted run ids) -> why the judges are not trusted on it."""
    picks: dict[tuple[str, str], dict[str, dict[str, str]]] = defaultdict(dict)
    fatal: set[tuple[str, str]] = set()
    for row in rows:
        if len(row.runs) != 2 or not row.current:
            continue
        key = pair_key(row.runs)
        pick = pick_of(row)
        if pick is not None:
            winner = pick if pick not in ("a", "b") else row.runs[0 if pick == "a" else 1]
            picks[key].setdefault(row.judge, {})[order_of(row)] = winner
        text = row.explanation.casefold()
        if text and any(c.casefold() in text for c in fatal_criteria.get(key, ()) if c.strip()):
            fatal.add(key)
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    for key in set(picks) | fatal:
        reasons = []
        if key in fatal:
            reasons.append(FATAL_NAMED)
        by_judge = picks.get(key, {})
        if any(len(set(o.values())) > 1 for o in by_judge.values() if set(o) == set(ORDERS)):
            reasons.append(ORDERS_DISAGREE)
        firsts = {o.get(ORDERS[0]) for o in by_judge.values() if ORDERS[0] in o}
        if len(firsts) > 1:
            reasons.append(JUDGES_DISAGREE)
        if reasons:
            out[key] = tuple(reasons)
    return out


def review_order(
    items: Sequence[tuple[str, tuple[str, ...]]],
    rows: Iterable[VerdictRow],
    fatal_criteria: Mapping[tuple[str, str], Sequence[str]],
    share: float | None,
    seed: int,
) -> list[QueuedItem]:
    """The order people should judge ``items`` ((code, runs), in plan order) in."""
    codes = [code for code, _runs in items]
    sample = calibration_sample(codes, share, seed) if share else frozenset()
    why = distrust(rows, fatal_criteria)
    queued = [
        QueuedItem(code, code in sample, why.get(pair_key(runs), ()) if len(runs) == 2 else ())
        for code, runs in items
    ]
    position = {code: i for i, code in enumerate(codes)}

    def rank(q: QueuedItem) -> tuple[int, int, int]:
        weight = sum(WEIGHTS[r] for r in q.reasons)
        return (0 if q.calibration else 1, 0 if q.calibration else -weight, position[q.code])

    return sorted(queued, key=rank)


__all__ = [
    "FATAL_NAMED",
    "JUDGES_DISAGREE",
    "ORDERS_DISAGREE",
    "QueuedItem",
    "calibration_sample",
    "distrust",
    "review_order",
]
