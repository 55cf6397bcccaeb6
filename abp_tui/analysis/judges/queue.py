"""The human queue of a design with AI judges: a calibration sample first, then the items where
the judges are least trustworthy.

A design's ``calibration_sample`` (a share, e.g. 0.1) asks for a seeded random sample of its
items that people judge first, blind: judged on a random sample, the judge's measured error is
unbiased and the prediction-powered estimates (:mod:`abp_tui.analysis.judges.estimates`) are
valid. The rest of the queue comes in order of distrust, the items the judges agree on last.

- A pair item is distrusted when a judge's two presentation orders disagree, when the judges'
  picks (in the original order) differ, or when a judge's explanation names one of the task's
  fatal criteria.
- A single item (one run, judged pass/fail or scored) is distrusted when two or more pass/fail
  judges gave the run different verdicts (pass, fail and partial are three verdicts), when two
  score judges are far apart on it, when a judge's verdict on it has an error (no verdict), or
  when a judge's explanation names one of the task's fatal criteria. Two scores are **far
  apart** when they differ by at least ``WIDE_SCORE_GAP`` (0.3) of the scale: each score is
  placed on its judge's scale as ``(score - lowest) / (highest - lowest)``, the scale being the
  one the verdict states (``JudgeVerdict.scale``, e.g. 1 to 10, where 0.3 is 2.7 points: 3
  points or more apart) or, when it states none, the range the judge's own scores span in the
  study; a judge whose verdicts state no scale and whose scores never vary is not compared.
- Verdicts are compared on one unit: the same run (and turn) for a single item; only verdicts on
  the current versions of the runs count.

An item's distrust is the sum of its reasons' ``WEIGHTS``: a fatal criterion named 3, two orders
or two judges at odds or scores far apart 2, a judge's error 1.

An explanation **names** a fatal criterion when the criterion's words appear in it as whole
words, in order: both are casefolded and their runs of whitespace collapsed, the criterion loses
its leading and trailing punctuation ("Invents a figure." matches "Response A invents a figure
for revenue"), and the match must start and end at a word boundary ("figure" does not match
"figured").

The order is **judge-informed**, and that is all it says: a reviewer can tell that an early item
(after the calibration sample) is one the judges are unsure of, never which response a judge
picked. Nothing of the verdicts moves with it: the placement of the two responses comes from the
plan alone (:mod:`abp_tui.analysis.blinding`), the reasons never leave the coordinator, and
within the calibration sample and within each level of distrust a reviewer keeps their own
shuffled order. A single item has no response to pick; there, an early place can also mean that
a judge named a fatal criterion, which leans towards a failure: the reason itself is never
shown. Pure: the caller hands over the items, the verdicts, the fatal criteria and the
scales; nothing here decides who judges what.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from abp_tui.analysis.judges.arrays import (
    F64,
    I64,
    NO_RUN,
    PASS_FAIL,
    PREFERENCE,
    SCORE,
    A,
    B,
    VerdictTable,
    groups,
)
from abp_tui.analysis.judges.units import Pair, pair_key

ORDERS_DISAGREE = "the judge's two presentation orders disagree"
JUDGES_DISAGREE = "the AI judges disagree with each other"
FATAL_NAMED = "a judge's explanation names a fatal criterion"
SCORES_APART = "the AI judges' scores are far apart"
JUDGE_ERROR = "a judge gave no verdict (an error)"
WEIGHTS = {
    FATAL_NAMED: 3,
    ORDERS_DISAGREE: 2,
    JUDGES_DISAGREE: 2,
    SCORES_APART: 2,
    JUDGE_ERROR: 1,
}
WIDE_SCORE_GAP = 0.3
"""Two scores at least this share of their scale apart are far apart (3 points on 1 to 10)."""
_GAP_SLACK = 1e-9
"""So that a gap of exactly the share (3 points on 0 to 10) counts, whatever the rounding."""

ItemKey = tuple[str, ...]
"""An item's runs, sorted: a pair's :func:`pair_key`, or the one run of a single item."""
ScaleKey = tuple[str, str, int | None]
"""(judge id, run id, turn): one score verdict's slot."""


def item_key(runs: Sequence[str]) -> ItemKey:
    """How :func:`distrust` names an item: its runs sorted (a pair as :func:`pair_key`)."""
    return tuple(sorted(runs))


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


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


@lru_cache(maxsize=1024)
def _criterion_pattern(criterion: str) -> re.Pattern[str] | None:
    """The criterion as a whole-word pattern over a folded explanation; None when it holds no
    word at all."""
    words = re.sub(r"^\W+|\W+$", "", _folded(criterion))
    if not words:
        return None
    return re.compile(r"(?<!\w)" + re.escape(words) + r"(?!\w)")


def names_criterion(explanation: str, criterion: str) -> bool:
    """The explanation names the criterion: its words, in order, as whole words, whatever the
    case, the runs of whitespace and the punctuation around the criterion."""
    return _names_any(_folded(explanation), (criterion,))


def _names_any(folded: str, criteria: Sequence[str]) -> bool:
    """A folded explanation names one of the criteria."""
    for criterion in criteria:
        pattern = _criterion_pattern(criterion)
        if pattern is not None and pattern.search(folded) is not None:
            return True
    return False


def _pair_reasons(table: VerdictTable, out: dict[ItemKey, list[str]]) -> None:
    """The pairs whose judge's two orders disagree, or whose judges' picks differ. A judge's
    latest verdict in each order (over turns)."""
    pref = (table.kind == PREFERENCE) & (table.run_b != NO_RUN) & table.current
    rows = np.flatnonzero(pref & (table.verdict >= 0))
    runs = table.runs
    if not rows.size:
        return
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
        key = pair_key((runs[int(low[i])], runs[int(high[i])]))
        reasons = out.setdefault(key, [])
        if orders_split[p]:
            reasons.append(ORDERS_DISAGREE)
        if judges_split[p]:
            reasons.append(JUDGES_DISAGREE)


def _spread(unit: I64, value: F64) -> F64:
    """Per unit (0..max): the highest value minus the lowest (0 for a unit of one value)."""
    span = int(unit.max()) + 1
    lowest = np.full(span, np.inf)
    highest = np.full(span, -np.inf)
    np.minimum.at(lowest, unit, value)
    np.maximum.at(highest, unit, value)
    return np.where(np.isfinite(lowest), highest - lowest, 0.0)


def place_on_scale(
    table: VerdictTable, rows: I64, scales: Mapping[ScaleKey, tuple[float, float]]
) -> F64:
    """Each score row's place on its judge's scale (0 lowest, 1 highest); NaN where the judge
    states no scale and its scores never vary."""
    score = table.score[rows]
    low = np.full(rows.size, np.nan)
    high = np.full(rows.size, np.nan)
    if scales:
        for i, row in enumerate(rows.tolist()):
            turn = int(table.turn[row])
            key = (
                table.judges[int(table.judge[row])],
                table.runs[int(table.run_a[row])],
                None if turn < 0 else turn,
            )
            stated = scales.get(key)
            if stated is not None:
                low[i], high[i] = stated
    unstated = np.isnan(low)
    if unstated.any():  # the range the judge's own scores span
        judge = table.judge[rows]
        seen_low = np.full(len(table.judges), np.inf)
        seen_high = np.full(len(table.judges), -np.inf)
        np.minimum.at(seen_low, judge[unstated], score[unstated])
        np.maximum.at(seen_high, judge[unstated], score[unstated])
        low[unstated] = seen_low[judge[unstated]]
        high[unstated] = seen_high[judge[unstated]]
    width = high - low
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(width > 0, (score - low) / np.where(width > 0, width, 1.0), np.nan)


def _single_reasons(
    table: VerdictTable,
    scales: Mapping[ScaleKey, tuple[float, float]],
    out: dict[ItemKey, list[str]],
) -> None:
    """The runs whose pass/fail judges differ, whose score judges are far apart, or that a
    judge gave no verdict on; compared per (run, turn)."""
    single = (table.run_b == NO_RUN) & (table.kind != PREFERENCE) & table.current
    found: dict[str, list[str]] = {}

    def flag(run_codes: I64, reason: str) -> None:
        for code in np.unique(run_codes).tolist():
            found.setdefault(table.runs[int(code)], []).append(reason)

    verdicts = np.flatnonzero(single & (table.kind == PASS_FAIL) & (table.verdict >= 0))
    if verdicts.size:
        unit, first = groups((table.run_a[verdicts], table.turn[verdicts]))
        split = _spread(unit, table.verdict[verdicts].astype(np.float64)) > 0
        flag(table.run_a[verdicts[first[split]]], JUDGES_DISAGREE)
    scored = np.flatnonzero(single & (table.kind == SCORE) & ~np.isnan(table.score))
    if scored.size:
        place = place_on_scale(table, scored, scales)
        placed = ~np.isnan(place)
        scored, place = scored[placed], place[placed]
    if scored.size:
        unit, first = groups((table.run_a[scored], table.turn[scored]))
        apart = _spread(unit, place) >= WIDE_SCORE_GAP - _GAP_SLACK
        flag(table.run_a[scored[first[apart]]], SCORES_APART)
    failed = [row for row in table.errors if single[row]]
    if failed:
        flag(table.run_a[np.array(failed, dtype=np.int64)], JUDGE_ERROR)
    for run, reasons in found.items():
        out.setdefault((run,), []).extend(reasons)


def distrust(
    table: VerdictTable,
    fatal_criteria: Mapping[Pair, Sequence[str]],
    *,
    run_criteria: Mapping[str, Sequence[str]] | None = None,
    scales: Mapping[ScaleKey, tuple[float, float]] | None = None,
) -> dict[ItemKey, tuple[str, ...]]:
    """Item (:func:`item_key`: a pair's sorted runs, or a single item's run) -> why the judges
    are not trusted on it. ``fatal_criteria`` are each pair's task's, ``run_criteria`` each
    single item's run's; ``scales`` the scale each score verdict states (none: the judge's own
    range). Only verdicts on the current versions of the runs count."""
    out: dict[ItemKey, list[str]] = {}
    _pair_reasons(table, out)
    _single_reasons(table, scales or {}, out)
    runs = table.runs
    by_run = run_criteria or {}
    for row, text in table.explanations.items():
        if not table.current[row]:
            continue
        b = int(table.run_b[row])
        pair = b != NO_RUN
        if pair != (int(table.kind[row]) == PREFERENCE):
            continue  # a verdict of a kind its runs cannot hold: nothing to read
        a_run = runs[int(table.run_a[row])]
        if pair:
            pair_runs = pair_key((a_run, runs[b]))
            key: ItemKey = pair_runs
            named = fatal_criteria.get(pair_runs, ())
        else:
            key, named = (a_run,), by_run.get(a_run, ())
        if named and _names_any(_folded(text), named):
            reasons = out.setdefault(key, [])
            if FATAL_NAMED not in reasons:
                reasons.insert(0, FATAL_NAMED)
    return {key: tuple(reasons) for key, reasons in out.items()}


def review_order(
    items: Sequence[tuple[str, tuple[str, ...]]],
    table: VerdictTable,
    fatal_criteria: Mapping[Pair, Sequence[str]],
    share: float | None,
    seed: int,
    *,
    run_criteria: Mapping[str, Sequence[str]] | None = None,
    scales: Mapping[ScaleKey, tuple[float, float]] | None = None,
) -> list[QueuedItem]:
    """The order people should judge ``items`` ((code, runs), in plan order) in (the
    arguments as :func:`distrust` reads them)."""
    codes = [code for code, _runs in items]
    sample = calibration_sample(codes, share, seed) if share else frozenset()
    why = distrust(table, fatal_criteria, run_criteria=run_criteria, scales=scales)
    queued = [QueuedItem(code, code in sample, why.get(item_key(runs), ())) for code, runs in items]
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
    "JUDGE_ERROR",
    "ORDERS_DISAGREE",
    "SCORES_APART",
    "WEIGHTS",
    "WIDE_SCORE_GAP",
    "ItemKey",
    "QueuedItem",
    "ScaleKey",
    "calibration_sample",
    "distrust",
    "item_key",
    "names_criterion",
    "place_on_scale",
    "review_order",
    "reviewer_order",
]
