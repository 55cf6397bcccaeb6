"""What the judge report compares: the human reference and the judges' verdicts as rows (a bundle's
lines, a test's; the report itself computes on them as columns,
:mod:`abp_tui.analysis.judges.arrays`
and :mod:`abp_tui.analysis.judges.pairs`).

A **unit** is what a judge and people both judged: a pair of runs (and the turn, when the judge
judged one turn) for a preference, one run (and turn) for a score or a pass/fail verdict. The
**reference** is what people decided, as the user picks it and the report names it: the final
human verdicts of a design, or the labels imported with the study (a majority of the
annotators when there are several). A design's reference also carries its **calibration
sample** (:class:`CalibrationSample`), the seeded random items people judge first: the only
units whose human verdicts correct the judge in the judge-assisted estimates. Nothing here reads
the database: the services hand over rows and a reference built from stored records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

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
class CalibrationSample:
    """A design's calibration sample as the units it holds: the seeded random share of its
    items (:func:`abp_tui.analysis.judges.queue.calibration_sample`, the draw that puts them first
    in every reviewer's queue) that people judge blind."""

    share: float
    """The design's ``calibration_sample``."""
    items: int
    """Items drawn."""
    pairs: frozenset[Pair] = frozenset()
    """The pair items drawn, each as its sorted runs."""
    runs: frozenset[str] = frozenset()
    """Every run of an item drawn: a single item's run, and both runs of a pair item (a run's
    pass or fail is its final verdict, whichever of its items people judged it in)."""


@dataclass(frozen=True)
class AllocationUnits:
    """A design's active allocation (``human_budget``) as the estimates' units: each pair's and
    each run's probability of reaching people, and which the seeded draw sent to people
    (:func:`abp_tui.analysis.allocation.allocation_units`)."""

    budget: str
    """The design's ``human_budget`` as written (``200``, ``25%``)."""
    floor: float
    items: int
    drawn_items: int
    expected: float
    """The expected number of items drawn: the budget in items."""
    pairs: Mapping[Pair, float] = field(default_factory=dict)
    runs: Mapping[str, float] = field(default_factory=dict)
    drawn_pairs: frozenset[Pair] = frozenset()
    drawn_runs: frozenset[str] = frozenset()


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
    calibration: CalibrationSample | None = None
    """The design's calibration sample; None when there is none (imported labels, or a design
    without ``calibration_sample``): the judge-assisted estimates then take every unit people
    judged as labelled and say that it is assumed, not known, to be a random sample."""
    allocation: AllocationUnits | None = None
    """The design's active allocation (None: it sets no ``human_budget``): the units drawn
    for people are the labelled set, each weighted by the inverse of its probability."""


def majority(picks: list[str]) -> str | None:
    """The pick more than half of the humans made, or None."""
    for pick in set(picks):
        if 2 * picks.count(pick) > len(picks):
            return pick
    return None


def unit_name(runs: tuple[str, ...], turn: int | None) -> str:
    shown = " vs ".join(runs)
    return f"{shown} (turn {turn})" if turn is not None else shown


__all__ = [
    "INCONSISTENT",
    "ORDERS",
    "TIES_RULE",
    "AllocationUnits",
    "CalibrationSample",
    "Reference",
    "ReferenceKind",
    "Unit",
    "VerdictRow",
    "majority",
    "pair_key",
    "unit_name",
]
