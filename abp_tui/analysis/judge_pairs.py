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

from abp_tui.analysis.judge_arrays import (
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
from abp_tui.analysis.judge_units import Reference
from abp_tui.models.base import Model
from abp_tui.models.judges import TIE

MISSING: Final = -2
"""No verdict of the judge in this order (NO_VERDICT: a verdict with an error)."""
NO_HUMAN: Final = "no human verdict"
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
    keys: list[tuple[str, str]]
    """Per unit: its pair as the reference names it (run ids sorted)."""
    _names: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return int(self.a.size)

    def named(self, units: I64) -> tuple[str, ...]:
        """The units' names (``a vs b``, with the turn): made for every unit the first time,
        since a report usually leaves out some of most."""
        names = self._names
        if not names and self.count:
            runs = self.table.runs
            for ia, ib, turn in zip(
                self.a.tolist(), self.b.tolist(), self.turn.tolist(), strict=True
            ):
                shown = f"{runs[ia]} vs {runs[ib]}"
                names.append(shown if turn == NO_TURN else f"{shown} (turn {turn})")
        return tuple(names[u] for u in units.tolist())


def pair_units(table: VerdictTable, reference: Reference) -> PairUnits:
    """The units of every preference verdict of ``table`` and people's side of each."""
    rows = np.flatnonzero(table.kind == PREFERENCE)
    ra, rb, turn = table.run_a[rows], table.run_b[rows], table.turn[rows]
    unit, first = groups((ra, rb, turn)) if rows.size else (rows, rows)
    a, b, t = ra[first], rb[first], turn[first]
    runs = table.runs
    names_a = [runs[i] for i in a.tolist()]
    names_b = [runs[i] for i in b.tolist()]
    keys = [(x, y) if x < y else (y, x) for x, y in zip(names_a, names_b, strict=True)]
    # Compared as object arrays (C loops over the ids as Python strings, never NumPy's
    # fixed-width ones, which drop trailing NULs).
    picked = list(map(reference.pairs.get, keys))
    chosen = np.array(picked, dtype=object)
    shown_a = np.array(names_a, dtype=object)
    human = np.where(chosen == TIE, TIE_PICK, np.where(chosen == shown_a, A, B))
    missing = np.array([c is None for c in picked], dtype=bool)
    human = np.where(missing, NO_VERDICT, human).astype(np.int64)
    why = np.zeros(a.size, dtype=np.int64)
    reasons = {NO_HUMAN: 0}
    for u in np.flatnonzero(human == NO_VERDICT).tolist():
        given = reference.pair_reasons.get(keys[u])
        if given is not None:
            why[u] = reasons.setdefault(given, len(reasons))
    # Conditions ranked by name: a contrast is its two conditions in sorted order.
    of_run = list(map(reference.conditions.get, runs))
    named = sorted({c for c in of_run if c is not None})
    rank = {c: i for i, c in enumerate(named)}
    condition = np.array([-1 if c is None else rank[c] for c in of_run], dtype=np.int64)
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
        a=a,
        b=b,
        turn=t,
        human=human,
        human_reason=why,
        reasons=tuple(reasons),
        contrast=contrast,
        flip=known & (ca > cb),
        contrasts=contrasts,
        keys=keys,
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
    mine = table.judge[units.rows] == judge
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
        out = []
        for (figure, reason), parts in self._found.items():
            found = np.sort(np.concatenate(parts)) if len(parts) > 1 else parts[0]
            out.append(LeftOut(figure=figure, reason=reason, units=self.named(found)))
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
