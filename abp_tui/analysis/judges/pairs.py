"""The preference judges' units as arrays: every pair (and turn) a judge judged, people's pick
on it, and each judge's pick in each presentation order, for the report to count with masks.

A **unit** is a pair of runs in the verdicts' own orientation (a, b) and the turn judged. The
units, people's side of each (:class:`PairUnits`) and the unit names are worked out once per
report; each judge's picks (:class:`JudgePicks`) are then two rows of codes over the units, so
every figure of the report is a mask and a count. :class:`LeftOuts` collects which units a
figure leaves out and why, naming them only once every figure is computed. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np

from abp_tui.analysis.judges.arrays import (
    F64,
    I64,
    NO_TURN,
    NO_VERDICT,
    PREFERENCE,
    TIE_PICK,
    A,
    B,
    Bools,
    VerdictTable,
    groups,
)
from abp_tui.analysis.judges.units import Reference
from abp_tui.models.base import Model
from abp_tui.models.judges import TIE

MISSING: Final = -2
"""No verdict of the judge in this order (NO_VERDICT: a verdict with an error)."""
NO_HUMAN: Final = "no human verdict"
TIE_PICK_CODE: Final = -1
OTHER_RUN: Final = -2
"""People's pick as read from the reference: a run's code, a tie, or a run not in the table."""
PICK_VALUE: Final = np.array([1.0, 0.0, 0.5])
"""a, b, tie as a win of a (a tie is half a win)."""


class LeftOut(Model):
    """The units in no denominator of a figure, for one reason."""

    figure: str
    """original, swapped, both orders, position consistency, score, pass/fail."""
    reason: str
    units: tuple[str, ...]
    """Each unit left out for this reason, named by its runs (and turn)."""


@dataclass(frozen=True, eq=False)
class PairUnits:
    """Every unit some preference judge judged, with people's side of it."""

    table: VerdictTable
    rows: I64
    """The table's preference rows."""
    unit: I64
    """Each of those rows' unit."""
    judge: I64
    """Each of those rows' judge (gathered once, for every judge's picks)."""
    a: I64
    b: I64
    turn: I64
    human: I64
    """Per unit: people's pick (A, B, TIE_PICK in the unit's orientation) or NO_VERDICT."""
    human_reason: I64
    """Per unit without people's pick: index into ``reasons`` (0: no human verdict)."""
    reasons: tuple[str, ...]
    contrast: I64
    """Per unit: index into ``contrasts`` (-1: its runs' conditions are unknown or the same)."""
    flip: Bools
    """Per unit: a's condition is the contrast's second (a win of a is a loss of the first)."""
    contrasts: tuple[tuple[str, str], ...]
    _names: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return int(self.a.size)

    def key(self, unit: int) -> tuple[str, str]:
        """The unit's pair as the reference names it (run ids sorted)."""
        runs = self.table.runs
        x, y = runs[int(self.a[unit])], runs[int(self.b[unit])]
        return (x, y) if x < y else (y, x)

    def named(self, units: I64) -> tuple[str, ...]:
        """The units' names (``a vs b``, with the turn): made for every unit the first time,
        since a report usually leaves out some of most."""
        names = self._names
        if not names and self.count:
            runs = self.table.runs
            with_turn = self.turn != NO_TURN
            shown = [
                f"{runs[ia]} vs {runs[ib]}"
                for ia, ib in zip(self.a.tolist(), self.b.tolist(), strict=True)
            ]
            if with_turn.any():
                for u, turn in zip(
                    np.flatnonzero(with_turn).tolist(), self.turn[with_turn].tolist(), strict=True
                ):
                    shown[u] = f"{shown[u]} (turn {turn})"
            names.extend(shown)
        return tuple(map(names.__getitem__, units.tolist()))


def _people(table: VerdictTable, reference: Reference, a: I64, b: I64) -> I64:
    """Per unit (runs a, b): people's pick in the unit's orientation, or NO_VERDICT.

    The reference's pairs are read once, as run codes, and matched to the units with a sorted
    search: no name or tuple is made per unit."""
    runs = table.runs
    count = len(runs)
    human = np.full(a.size, NO_VERDICT, dtype=np.int64)
    pairs = reference.pairs
    if not pairs or a.size == 0:
        return human
    get = dict(zip(runs, range(count), strict=True)).get
    found: list[int] = []
    chosen: list[int] = []
    for (x, y), pick in pairs.items():
        cx, cy = get(x), get(y)
        if cx is None or cy is None:
            continue
        found.append(cx * count + cy if cx < cy else cy * count + cx)
        chosen.append(TIE_PICK_CODE if pick == TIE else get(pick, OTHER_RUN))
    if not found:
        return human
    ref_key = np.asarray(found, dtype=np.int64)
    ref_pick = np.asarray(chosen, dtype=np.int64)
    order = np.argsort(ref_key, kind="stable")
    ref_key, ref_pick = ref_key[order], ref_pick[order]
    unit_key = np.minimum(a, b) * count + np.maximum(a, b)
    at = np.minimum(np.searchsorted(ref_key, unit_key), ref_key.size - 1)
    hit = ref_key[at] == unit_key
    picked = ref_pick[at]
    decided = np.where(picked == TIE_PICK_CODE, TIE_PICK, np.where(picked == a, A, B))
    human[hit] = decided[hit]
    return human


def pair_units(table: VerdictTable, reference: Reference) -> PairUnits:
    """The units of every preference verdict of ``table`` and people's side of each."""
    rows = np.flatnonzero(table.kind == PREFERENCE)
    if rows.size == len(table):  # every verdict a preference: no copy of the columns
        ra, rb, turn, judge = table.run_a, table.run_b, table.turn, table.judge
    else:
        ra, rb, turn = table.run_a[rows], table.run_b[rows], table.turn[rows]
        judge = table.judge[rows]
    unit, first = groups((ra, rb, turn)) if rows.size else (rows, rows)
    a, b, t = ra[first], rb[first], turn[first]
    runs = table.runs
    human = _people(table, reference, a, b)
    why = np.zeros(a.size, dtype=np.int64)
    reasons = {NO_HUMAN: 0}
    if reference.pair_reasons:
        for u in np.flatnonzero(human == NO_VERDICT).tolist():
            x, y = runs[int(a[u])], runs[int(b[u])]
            given = reference.pair_reasons.get((x, y) if x < y else (y, x))
            if given is not None:
                why[u] = reasons.setdefault(given, len(reasons))
    # Conditions ranked by name: a contrast is its two conditions in sorted order.
    of_run = list(map(reference.conditions.get, runs))
    named = sorted({c for c in of_run if c is not None})
    rank: dict[str | None, int] = {c: i for i, c in enumerate(named)}
    rank[None] = -1
    condition = np.fromiter(map(rank.__getitem__, of_run), dtype=np.int64, count=len(of_run))
    ca, cb = condition[a], condition[b]
    known = (ca >= 0) & (cb >= 0) & (ca != cb)
    low, high = np.minimum(ca, cb), np.maximum(ca, cb)
    found_pairs, contrast_of = np.unique(
        (low * max(len(named), 1) + high)[known], return_inverse=True
    )
    contrast = np.full(a.size, -1, dtype=np.int64)
    contrast[known] = contrast_of.reshape(-1)
    contrasts = tuple(
        (named[int(c) // len(named)], named[int(c) % len(named)]) for c in found_pairs.tolist()
    )
    return PairUnits(
        table=table,
        rows=rows,
        unit=unit,
        judge=judge,
        a=a,
        b=b,
        turn=t,
        human=human,
        human_reason=why,
        reasons=tuple(reasons),
        contrast=contrast,
        flip=known & (ca > cb),
        contrasts=contrasts,
    )


@dataclass(frozen=True, eq=False)
class JudgePicks:
    """One preference judge's picks on every unit, in each presentation order."""

    rows: I64
    """The judge's rows of the table."""
    judged: Bools
    """Per unit: the judge judged it in at least one order."""
    stale: Bools
    """Per unit: one of its verdicts is on a run that changed since."""
    pick: I64
    """(order, unit): A, B, TIE_PICK, NO_VERDICT (an error) or MISSING."""
    row: I64
    """(order, unit): the table row of that verdict, -1 when MISSING."""


def judge_picks(units: PairUnits, judge: int) -> JudgePicks:
    """The picks of ``judge`` (its code in the table): one verdict per unit and order, as the
    table keeps the latest of each slot."""
    table = units.table
    mine = units.judge == judge
    rows, unit = units.rows[mine], units.unit[mine]
    order = table.swapped[rows].astype(np.int64)
    pick = np.full((2, units.count), MISSING, dtype=np.int64)
    pick[order, unit] = table.verdict[rows]
    row = np.full((2, units.count), -1, dtype=np.int64)
    row[order, unit] = rows
    judged = np.zeros(units.count, dtype=bool)
    judged[unit] = True
    stale = np.zeros(units.count, dtype=bool)
    stale[unit[~table.current[rows]]] = True
    return JudgePicks(rows=rows, judged=judged, stale=stale, pick=pick, row=row)


def judged_value(picks: JudgePicks) -> tuple[F64, Bools]:
    """Per unit: the judge's win of a averaged over the orders it picked in, and whether it
    picked in any."""
    decided = picks.pick >= 0
    values = np.where(decided, PICK_VALUE[np.clip(picks.pick, 0, 2)], 0.0)
    count = decided.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = values.sum(axis=0) / count
    return mean, count > 0


class LeftOuts:
    """Which units (or runs) each figure leaves out and why; named once, at the end."""

    def __init__(self, table: VerdictTable, named: Callable[[I64], tuple[str, ...]]) -> None:
        self.table = table
        self.named = named
        """Names of the indices passed to :meth:`add` (units, or a judge's rows)."""
        self._found: dict[tuple[str, str], list[I64]] = {}

    def add(self, figure: str, reason: str, mask: Bools) -> None:
        if mask.any():
            self._found.setdefault((figure, reason), []).append(np.flatnonzero(mask))

    def by_reason(self, figure: str, mask: Bools, why: I64, reasons: Sequence[str]) -> None:
        """Each masked index with its own reason, ``reasons[why[i]]``."""
        if not mask.any():
            return
        for code in np.unique(why[mask]).tolist():
            self.add(figure, reasons[code], mask & (why == code))

    def errors(self, figure: str, mask: Bools, rows: I64) -> None:
        """Indices whose verdict is an error (``rows[i]``: its table row), in the judge's
        own words."""
        if not mask.any():
            return
        texts = self.table.errors
        by_text: dict[str, list[int]] = {}
        for i in np.flatnonzero(mask).tolist():
            by_text.setdefault(texts.get(int(rows[i])) or "no verdict", []).append(i)
        for text, found in by_text.items():
            self._found.setdefault((figure, f"judge error: {text}"), []).append(
                np.asarray(found, dtype=np.int64)
            )

    def models(self) -> tuple[LeftOut, ...]:
        """Built without validation: every field is a string made here (a reason may quote a
        judge's error text), and a report's thousands of unit names need no second check."""
        out = []
        for (figure, reason), parts in self._found.items():
            found = np.sort(np.concatenate(parts)) if len(parts) > 1 else parts[0]
            out.append(
                LeftOut.model_construct(figure=figure, reason=reason, units=self.named(found))
            )
        return tuple(out)


def left_out_count(entries: Iterable[LeftOut]) -> int:
    return sum(len(e.units) for e in entries)


__all__ = [
    "MISSING",
    "NO_HUMAN",
    "JudgePicks",
    "LeftOut",
    "LeftOuts",
    "PairUnits",
    "judge_picks",
    "judged_value",
    "left_out_count",
    "pair_units",
]
