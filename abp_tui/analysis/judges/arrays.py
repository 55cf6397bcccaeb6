"""The AI judges' verdicts as columns: what the judge report and the review order compute on.

A study can hold hundreds of thousands of judge verdicts; the report counts them, so it takes
them as integer arrays (one entry per verdict) and computes every figure with NumPy masks and
counts instead of a Python loop per verdict. The store reads a study's verdicts straight into
this shape (:func:`abp_tui.store.judges.verdict_table`); a bundle's verdict lines and the tests'
hand-written rows come in through :meth:`VerdictTable.from_rows`.

A table holds the latest verdict of each **slot** (a judge, its runs, the order shown, the turn,
the kind), in the order the verdicts were stored: :func:`latest_of_slots` keeps that rule in
one place. Nothing here reads the database or decides what a verdict means.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from abp_tui.analysis.judges.units import VerdictRow
from abp_tui.models.judges import TIE

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

KINDS: Final = ("preference", "score", "pass_fail")
PREFERENCE, SCORE, PASS_FAIL = 0, 1, 2
VERDICTS: Final = ("a", "b", TIE, "pass", "fail", "partial")
"""Verdict codes: a preference's pick in the pair's own orientation (a, b, tie), or a pass/fail
verdict. -1 is no verdict (an error)."""
A, B, TIE_PICK, PASS, FAIL, PARTIAL = range(6)
NO_VERDICT: Final = -1
NO_RUN: Final = -1
NO_TURN: Final = -1


@dataclass(frozen=True, eq=False)
class VerdictTable:
    """Verdicts as parallel arrays; names (judge ids, run ids) are coded by their index."""

    judges: tuple[str, ...]
    runs: tuple[str, ...]
    """Run ids: every version of a run has its id's code."""
    judge: I64
    run_a: I64
    run_b: I64
    """The pair's second run; NO_RUN for a verdict on one run."""
    swapped: Bools
    """The judge was shown the pair's second run first."""
    turn: I64
    """NO_TURN when the verdict is on the whole conversation."""
    kind: I64
    """Index into KINDS."""
    verdict: I64
    """Index into VERDICTS, NO_VERDICT for none."""
    score: F64
    """NaN when the verdict carries no score."""
    current: Bools
    """Every run the verdict judged is still its current version."""
    errors: Mapping[int, str] = field(default_factory=dict)
    """Row -> the judge's error, for the rows that have one."""
    explanations: Mapping[int, str] = field(default_factory=dict)
    """Row -> the judge's explanation (read only for the review order)."""

    def __len__(self) -> int:
        return int(self.judge.size)

    @classmethod
    def from_rows(cls, rows: Iterable[VerdictRow]) -> VerdictTable:
        """The table of ``rows`` (the latest of each slot, in their order)."""
        judges: dict[str, int] = {}
        runs: dict[str, int] = {}
        columns: list[tuple[int, int, int, bool, int, int, int, float, bool]] = []
        errors: dict[int, str] = {}
        explanations: dict[int, str] = {}
        for i, row in enumerate(rows):
            a = runs.setdefault(row.runs[0], len(runs))
            b = runs.setdefault(row.runs[1], len(runs)) if len(row.runs) > 1 else NO_RUN
            columns.append(
                (
                    judges.setdefault(row.judge, len(judges)),
                    a,
                    b,
                    b != NO_RUN and row.shown_first == row.runs[1],
                    NO_TURN if row.turn is None else row.turn,
                    KINDS.index(row.kind),
                    _verdict_code(row),
                    math.nan if row.score is None else float(row.score),
                    row.current,
                )
            )
            if row.error is not None:
                errors[i] = row.error
            if row.explanation:
                explanations[i] = row.explanation
        table = from_columns(tuple(judges), tuple(runs), columns, errors, explanations)
        return latest_of_slots(table)

    def rows(self) -> list[VerdictRow]:
        """The table as rows (a few hundred at a time: the review order, the tests)."""
        out = []
        for i in range(len(self)):
            runs: tuple[str, ...] = (self.runs[int(self.run_a[i])],)
            if self.run_b[i] != NO_RUN:
                runs = (*runs, self.runs[int(self.run_b[i])])
            code = int(self.verdict[i])
            verdict: str | None = None
            if code != NO_VERDICT:
                verdict = runs[code] if code in (A, B) else VERDICTS[code]
            out.append(
                VerdictRow(
                    judge=self.judges[int(self.judge[i])],
                    runs=runs,
                    shown_first=None if len(runs) == 1 else runs[int(self.swapped[i])],
                    turn=None if self.turn[i] == NO_TURN else int(self.turn[i]),
                    kind=KINDS[int(self.kind[i])],
                    verdict=verdict,
                    score=None if math.isnan(self.score[i]) else float(self.score[i]),
                    error=self.errors.get(i),
                    current=bool(self.current[i]),
                    explanation=self.explanations.get(i, ""),
                )
            )
        return out

    def take(self, index: I64) -> VerdictTable:
        """The rows at ``index`` (ascending), names and texts kept."""
        where = {int(old): new for new, old in enumerate(index.tolist())}
        return VerdictTable(
            judges=self.judges,
            runs=self.runs,
            judge=self.judge[index],
            run_a=self.run_a[index],
            run_b=self.run_b[index],
            swapped=self.swapped[index],
            turn=self.turn[index],
            kind=self.kind[index],
            verdict=self.verdict[index],
            score=self.score[index],
            current=self.current[index],
            errors={where[i]: t for i, t in self.errors.items() if i in where},
            explanations={where[i]: t for i, t in self.explanations.items() if i in where},
        )


def _verdict_code(row: VerdictRow) -> int:
    if row.error is not None or row.verdict is None:
        return NO_VERDICT
    if row.kind == "preference":
        if row.verdict == TIE:  # before the run ids, as a stored pick reads it
            return TIE_PICK
        return A if row.verdict == row.runs[0] else B
    return VERDICTS.index(row.verdict) if row.verdict in VERDICTS[PASS:] else NO_VERDICT


def from_columns(
    judges: tuple[str, ...],
    runs: tuple[str, ...],
    columns: Sequence[Sequence[float | int | bool]],
    errors: Mapping[int, str],
    explanations: Mapping[int, str],
) -> VerdictTable:
    """A table from rows of (judge, run a, run b, swapped, turn, kind, verdict, score, current)
    codes, as :meth:`VerdictTable.from_rows` and the store build them."""
    data = np.array(columns, dtype=np.float64).reshape(len(columns), 9)
    ints = data[:, :7].astype(np.int64)
    return VerdictTable(
        judges=judges,
        runs=runs,
        judge=ints[:, 0].copy(),
        run_a=ints[:, 1].copy(),
        run_b=ints[:, 2].copy(),
        swapped=ints[:, 3].astype(bool),
        turn=ints[:, 4].copy(),
        kind=ints[:, 5].copy(),
        verdict=ints[:, 6].copy(),
        score=data[:, 7].copy(),
        current=data[:, 8].astype(bool),
        errors=dict(errors),
        explanations=dict(explanations),
    )


def combined_key(columns: Sequence[I64]) -> I64 | None:
    """One int64 per row, equal exactly when every column is equal (mixed radix); None when the
    columns' ranges do not fit in 63 bits."""
    n = int(columns[0].size) if columns else 0
    key: I64 | None = None
    span = 1
    for column in columns:
        if n == 0:
            break
        low = int(column.min())
        size = int(column.max()) - low + 1
        if size == 1:  # a constant column tells no row apart
            continue
        span *= size
        if span >= 2**62:
            return None
        if key is None:
            key = column - low
        else:  # key * size + (column - low), without the temporaries
            key *= size
            key += column
            key -= low
    return np.zeros(n, dtype=np.int64) if key is None else key.astype(np.int64, copy=False)


def groups(columns: Sequence[I64]) -> tuple[I64, I64]:
    """(each row's group, each group's first row): rows equal on every column form a group,
    numbered in the order their first row comes."""
    n = int(columns[0].size)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    key = combined_key(columns)
    if key is None:
        _u, key = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
        key = key.reshape(-1).astype(np.int64)
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    change = np.empty(n, dtype=bool)
    change[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=change[1:])
    starts = np.flatnonzero(change)
    first = order[starts]  # stable: the first row of each group
    sorted_group = np.cumsum(change) - 1
    rank = np.empty(starts.size, dtype=np.int64)
    by_first = np.argsort(first, kind="stable")
    rank[by_first] = np.arange(starts.size)
    out = np.empty(n, dtype=np.int64)
    out[order] = rank[sorted_group]
    return out, first[by_first]


def first_rows(key: I64, span: int) -> I64:
    """The first row of each value of ``key`` (in 0..span-1) that occurs, ascending: a small
    range needs no sort (one pass keeps each value's lowest row)."""
    n = int(key.size)
    first = np.full(span, n, dtype=np.int64)
    np.minimum.at(first, key, np.arange(n, dtype=np.int64))
    return np.sort(first[first < n])


def latest_of_slots(table: VerdictTable) -> VerdictTable:
    """The last row of each slot (a judge, its runs, the order shown, the turn, the kind), in
    the order the rows come: a verdict imported again replaces the earlier one."""
    if len(table) == 0:
        return table
    columns = (
        table.judge,
        table.run_a,
        table.run_b,
        table.swapped.astype(np.int64),
        table.turn,
        table.kind,
    )
    key = combined_key(columns)
    if key is None:
        _u, key = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
        key = key.reshape(-1).astype(np.int64)
    reverse = key[::-1]
    _values, last_in_reverse = np.unique(reverse, return_index=True)
    keep = np.sort(len(table) - 1 - last_in_reverse)
    if keep.size == len(table):
        return table
    return table.take(keep)


__all__ = [
    "KINDS",
    "NO_RUN",
    "NO_TURN",
    "NO_VERDICT",
    "PASS_FAIL",
    "PREFERENCE",
    "SCORE",
    "VERDICTS",
    "VerdictTable",
    "combined_key",
    "first_rows",
    "from_columns",
    "groups",
    "latest_of_slots",
]
