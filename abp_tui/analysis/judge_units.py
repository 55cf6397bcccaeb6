"""What the judge report compares: the human reference, the judges' verdicts as rows, and each
compared unit's picks, with why a unit is left out of a figure.

A **unit** is what a judge and people both judged: a pair of runs (and the turn, when the judge
judged one turn) for a preference, one run (and turn) for a score or a pass/fail verdict. The
**reference** is what people decided, as the user picks it and the report names it: the final
human verdicts of a design, or the labels imported with the study (a majority of the
annotators when there are several). Nothing here reads the database: the services hand over
rows and a reference built from stored records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from abp_tui.models.judges import TIE

ReferenceKind = Literal["labels", "final"]
Pair = tuple[str, str]
"""A pair of run ids, sorted: how a pair is named whatever its orientation."""
Unit = tuple[tuple[str, ...], int | None]
"""(runs in the verdict's own orientation, turn)."""

A, B = "a", "b"
INCONSISTENT: Final = "inconsistent"
ORDERS: Final = ("original", "swapped")

TIES_RULE: Final = (
    "a tie, on the judge's side or the people's, is left out of agreement and kappa with people "
    "(counted and listed with its reason); the consistency of the two orders counts a tie as a "
    "pick like any other; 'both orders' requires the same decisive pick in both, and a pair "
    "whose two orders differ counts as a disagreement with people"
)


def pair_key(runs: Iterable[str]) -> Pair:
    a, b = sorted(runs)
    return (a, b)


@dataclass(frozen=True, slots=True)
class VerdictRow:
    """One stored verdict as the report reads it (the explanation is not needed here)."""

    judge: str
    runs: tuple[str, ...]
    shown_first: str | None
    turn: int | None
    kind: str
    verdict: str | None
    score: float | None
    error: str | None
    current: bool = True
    """Every run it judged is still the current version."""
    explanation: str = ""


@dataclass(frozen=True)
class Reference:
    """What people decided, for the units a judge is compared on."""

    name: str
    """How the report names it (``final verdicts of design D v2``, ``labels: study:label``)."""
    kind: ReferenceKind
    pairs: Mapping[Pair, str] = field(default_factory=dict)
    """Pair -> the run people preferred, or ``tie``."""
    pair_reasons: Mapping[Pair, str] = field(default_factory=dict)
    """Pairs people judged without a usable verdict -> why (unresolved, no majority...)."""
    raters: Mapping[str, Mapping[Pair, str]] = field(default_factory=dict)
    """Each human's own pick (a run or ``tie``) per pair: the alt-test's annotators."""
    runs: Mapping[str, bool] = field(default_factory=dict)
    """Run -> passed (MODEL_PASS) or failed (MODEL_FAIL), per people."""
    run_reasons: Mapping[str, str] = field(default_factory=dict)
    """Runs people judged without a pass or fail -> why (its state, unresolved...)."""
    scores: Mapping[str, float] = field(default_factory=dict)
    """Run -> people's total score."""
    conditions: Mapping[str, str] = field(default_factory=dict)
    """Run -> its condition, for the judge-assisted estimates."""


def majority(picks: list[str]) -> str | None:
    """The pick more than half of the humans made, or None."""
    for pick in set(picks):
        if 2 * picks.count(pick) > len(picks):
            return pick
    return None


@dataclass(slots=True)
class PairUnit:
    """One unit of a preference judge: its pick ("a", "b", "tie") in each order shown."""

    runs: tuple[str, str]
    turn: int | None
    picks: dict[str, str] = field(default_factory=dict)
    """order -> a, b or tie."""
    errors: dict[str, str] = field(default_factory=dict)
    """order -> the judge's error."""
    stale: bool = False


def pick_of(row: VerdictRow) -> str | None:
    """a, b or tie in the pair's own orientation; None for an error."""
    if row.error is not None or row.verdict is None:
        return None
    if row.verdict == TIE:
        return TIE
    return A if row.verdict == row.runs[0] else B


def order_of(row: VerdictRow) -> str:
    return ORDERS[1] if row.shown_first == row.runs[1] else ORDERS[0]


def pair_units(rows: Iterable[VerdictRow]) -> dict[Unit, PairUnit]:
    """A preference judge's verdicts gathered per unit (the latest per order wins)."""
    units: dict[Unit, PairUnit] = {}
    for row in rows:
        runs = (row.runs[0], row.runs[1])
        unit = units.get((runs, row.turn))
        if unit is None:
            unit = units[(runs, row.turn)] = PairUnit(runs, row.turn)
        order = order_of(row)
        pick = pick_of(row)
        if not row.current:
            unit.stale = True
        if pick is None:
            unit.errors[order] = row.error or "no verdict"
            unit.picks.pop(order, None)
        else:
            unit.picks[order] = pick
            unit.errors.pop(order, None)
    return units


def human_side(reference: Reference, runs: tuple[str, str]) -> tuple[str | None, str | None]:
    """(people's pick as a, b or tie; or None with why) for a pair in its orientation."""
    key = pair_key(runs)
    chosen = reference.pairs.get(key)
    if chosen is None:
        return None, reference.pair_reasons.get(key, "no human verdict")
    if chosen == TIE:
        return TIE, None
    return (A if chosen == runs[0] else B), None


def unit_name(runs: tuple[str, ...], turn: int | None) -> str:
    shown = " vs ".join(runs)
    return f"{shown} (turn {turn})" if turn is not None else shown


__all__ = [
    "INCONSISTENT",
    "ORDERS",
    "TIES_RULE",
    "PairUnit",
    "Reference",
    "ReferenceKind",
    "Unit",
    "VerdictRow",
    "human_side",
    "majority",
    "order_of",
    "pair_key",
    "pair_units",
    "pick_of",
    "unit_name",
]
