"""Intervals a coordinator may watch: each contrast's win rate and each condition's pass rate as
an anytime-valid confidence sequence over the final verdicts so far, and whether the design's
stopping rule (``stop_when``) is met.

An ordinary interval is valid only at a sample size fixed in advance; looked at after every
judgment and stopped on when it looks good, it covers less than it says. A confidence sequence
(:func:`abp_tui.stats.sequences.betting_sequence`, Waudby-Smith and Ramdas 2024) covers the true
rate at every number of verdicts at once, so the coordinator may look as often as they like and
stop when the rule is met.

**The order.** The sequence runs over the final verdicts in the order they became final: a
pair's final preference, or a run's final pass or fail, became final when its last counted
judgment was submitted (the latest submission among the item's reviewers' latest submitted
judgments), or when it was adjudicated (the latest adjudication's time); ties in time go by
the item's place in the plan. A revision after that moves the verdict later. Only people's
final verdicts count (an automated outcome or a record's state has no such time), and only
those the results count: open disagreements wait until adjudicated; development tasks are left
out as the results leave them out.

**Values.** A win rate of a against b counts a win of a as 1, of b as 0, a tie as 1/2 (as the
judge-assisted estimates do); insufficient evidence is no value. A pass rate counts MODEL_PASS
as 1 and MODEL_FAIL as 0 (the results' denominator); other states are no value.

The rule ``"<figure> excludes P"`` is met for a figure once its sequence (running intersection,
at the results' confidence, 95% unless ``--confidence`` says otherwise) excludes P; the first
time it did is given. Pure: records in, a model out.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from pydantic import Field, FiniteFloat, NonNegativeInt

from abp_tui.analysis.verdicts import Decisions, decide
from abp_tui.models import DesignRecords, PreferenceChoice, ResultState
from abp_tui.models.base import Model
from abp_tui.models.design import stopping_rule
from abp_tui.stats.sequences import BETTING_SOURCE, betting_sequence, first_exclusion

CONFIDENCE: Final = 0.95
ORDER: Final = (
    "final verdicts in the order they became final (the last counted submission, or the "
    "adjudication)"
)


class WatchedFigure(Model):
    """One figure's confidence sequence at the current number of final verdicts."""

    figure: str
    """``win rate of A against B`` or ``pass rate of C``."""
    kind: str
    """``win rate`` or ``pass rate``."""
    n: NonNegativeInt
    """Final verdicts with a value, so far."""
    mean: FiniteFloat | None = None
    low: FiniteFloat | None = None
    high: FiniteFloat | None = None
    first_excluded_at: NonNegativeInt | None = None
    """With a stopping rule on this kind of figure: the number of verdicts at which the
    sequence first excluded the rule's value (None: not yet)."""
    stop: bool = False
    """The stopping rule is met for this figure."""
    pair: tuple[str, str] | None = Field(default=None, exclude=True)
    """A win rate's two conditions, A then B (people read the one ahead first)."""
    no_item: str = Field(default="", exclude=True)
    """A win rate of a pair no item of the design compares (no task ran both): the pair, "a vs
    b". It never has a verdict to watch: people read it as such, in one line; the JSON keeps the
    figure as it was (n 0)."""


class Watch(Model):
    """Every watched figure of a design, and its stopping rule."""

    confidence: FiniteFloat = CONFIDENCE
    method: str = "betting confidence sequence (running intersection)"
    source: str = BETTING_SOURCE
    order: str = ORDER
    rule: str | None = None
    """The design's ``stop_when``, None when it states none."""
    figures: list[WatchedFigure] = Field(default_factory=list)

    @property
    def stopped(self) -> list[WatchedFigure]:
        return [f for f in self.figures if f.stop]


def _finished(decisions: Decisions, code: str) -> str:
    """When an item's verdict became final: its adjudication, else its last counted submission."""
    adjudication = decisions.adjudications.get(code)
    if adjudication is not None:
        return adjudication.created_at
    return max((j.created_at for j in decisions.latest.get(code, [])), default="")


def watched(
    figure: str,
    kind: str,
    values: Sequence[float],
    value: float | None = None,
    confidence: float = CONFIDENCE,
) -> WatchedFigure:
    """One figure's sequence over ``values`` (in the order they became final) and, with a
    rule's ``value``, when the sequence first excluded it."""
    x = np.asarray(values, dtype=np.float64)
    if len(x) == 0:
        return WatchedFigure(figure=figure, kind=kind, n=0)
    sequence = betting_sequence(x, confidence)
    first = first_exclusion(sequence, value) if value is not None else None
    return WatchedFigure(
        figure=figure,
        kind=kind,
        n=len(x),
        mean=float(x.mean()),
        low=float(sequence.low[-1]),
        high=float(sequence.high[-1]),
        first_excluded_at=first,
        stop=first is not None,
    )


@dataclass(frozen=True)
class Finals:
    """What the watched figures need of a design's records, and no more: read before its
    results are made, so that the records and decisions are not held twice at once."""

    rule: str | None
    """The design's ``stop_when``."""
    wins: Mapping[frozenset[str], list[tuple[str, int, str | None]]]
    """Each pair of conditions' final preferences (when final, place in the plan, the preferred
    condition, None for a tie); insufficient evidence left out."""
    passes: list[tuple[str, str, list[float]]]
    """Each condition's pass rate (figure, kind, values in the order they became final)."""
    compared: Collection[frozenset[str]] | None = None
    """The pairs of conditions some pair item of the design compares (judged or not); None:
    not known (every pair taken as compared)."""


def finals(records: DesignRecords) -> Finals:
    """The final verdicts of a design's records, in the order they became final."""
    decisions = decide(records)
    place = {item.code: i for i, item in enumerate(records.items)}
    wins: dict[frozenset[str], list[tuple[str, int, str | None]]] = {}
    for p in decisions.preferences:
        if len(p.runs) != 2 or len(set(p.conditions)) != 2 or p.preferred is None:
            continue
        if p.preferred == PreferenceChoice.INSUFFICIENT.value:
            continue
        preferred = None if p.preferred == PreferenceChoice.TIE.value else p.preferred_condition
        wins.setdefault(frozenset(p.conditions), []).append(
            (_finished(decisions, p.item), place.get(p.item, 0), preferred)
        )
    condition_of = {r.id: r.condition for r in records.runs}
    by_condition: dict[str, list[tuple[str, int, float]]] = {}
    for verdict in decisions.verdicts:
        if verdict.run in records.superseded or verdict.source == "unresolved":
            continue
        if verdict.result_state not in (ResultState.MODEL_PASS, ResultState.MODEL_FAIL):
            continue
        condition = condition_of.get(verdict.run)
        if condition is None:
            continue
        adjudicated = decisions.adjudicated_by.get(verdict.run)
        when = (
            adjudicated.created_at
            if adjudicated is not None
            else max(_finished(decisions, code) for code in verdict.items)
        )
        first_place = min(place.get(code, 0) for code in verdict.items)
        passed = 1.0 if verdict.result_state == ResultState.MODEL_PASS else 0.0
        by_condition.setdefault(condition, []).append((when, first_place, passed))
    passes = [
        (f"pass rate of {condition}", "pass rate", [v for *_, v in sorted(by_condition[condition])])
        for condition in sorted(by_condition)
    ]
    compared = frozenset(frozenset(i.conditions) for i in records.items if i.is_pair)
    return Finals(records.design.stop_when, wins, passes, compared)


def values_of(
    found: Finals, contrasts: Iterable[tuple[str, str]]
) -> list[tuple[str, str, list[float]]]:
    """(figure, kind, values in the order they became final): each contrast's win rate, in
    ``contrasts``' order, then each condition's pass rate, by condition id."""
    out: list[tuple[str, str, list[float]]] = []
    for a, b in contrasts:
        timed = sorted(
            (when, at, 0.5 if preferred is None else 1.0 if preferred == a else 0.0)
            for when, at, preferred in found.wins.get(frozenset((a, b)), [])
        )
        out.append((f"win rate of {a} against {b}", "win rate", [v for *_, v in timed]))
    return out + found.passes


def final_values(
    records: DesignRecords, contrasts: Iterable[tuple[str, str]]
) -> list[tuple[str, str, list[float]]]:
    """:func:`values_of` a design's records."""
    return values_of(finals(records), contrasts)


def watch(
    records: DesignRecords,
    contrasts: Iterable[tuple[str, str]],
    confidence: float = CONFIDENCE,
) -> Watch:
    """The watched figures of a design's records (those its results count: give the benchmark
    records), for the contrasts (a, b) its results compare, in their order, at the results'
    ``confidence``."""
    return watch_finals(finals(records), contrasts, confidence)


def watch_finals(
    found: Finals,
    contrasts: Iterable[tuple[str, str]],
    confidence: float = CONFIDENCE,
) -> Watch:
    """:func:`watch` of what :func:`finals` read."""
    rule = found.rule
    kind, value = stopping_rule(rule) if rule else (None, None)
    contrasts = list(contrasts)
    figures = [
        watched(figure, k, values, value if k == kind else None, confidence)
        for figure, k, values in values_of(found, contrasts)
    ]
    for i, (a, b) in enumerate(contrasts):  # the win rates come first, in the contrasts' order
        figures[i] = figures[i].model_copy(update={"pair": (a, b)})
        if found.compared is not None and frozenset((a, b)) not in found.compared:
            figures[i] = figures[i].model_copy(update={"no_item": f"{a} vs {b}"})
    return Watch(confidence=confidence, rule=rule, figures=figures)


def _ahead(figure: WatchedFigure) -> str:
    """For a win rate under a half, the same figure read from the condition ahead, as the
    results' answer names it first."""
    if figure.pair is None or figure.mean is None or figure.low is None or figure.high is None:
        return ""
    if figure.mean >= 0.5:
        return ""
    a, b = figure.pair
    return (
        f" (read the other way: {b} against {a}: {1 - figure.mean:.3f}, "
        f"[{1 - figure.high:.3f}, {1 - figure.low:.3f}])"
    )


def _unit(figure: WatchedFigure) -> str:
    """What a figure counts: a win rate items (pairs), a pass rate runs."""
    unit = "item" if figure.kind == "win rate" else "run"
    return unit if figure.n == 1 else unit + "s"


def watch_lines(found: Watch) -> list[str]:
    """The watched figures in plain lines (the CLI's text and the results screen)."""
    level = f"{found.confidence * 100:.10g}%"
    ties = any(f.kind == "win rate" for f in found.figures)
    lines = [
        f"Anytime-valid {level} confidence sequences (betting) over the {found.order}: valid "
        "however often you look." + (" A win rate counts a tie as half a win." if ties else "")
    ]
    for f in found.figures:
        if f.no_item:
            continue  # named once below: no verdict will ever come
        if f.n == 0 or f.low is None or f.high is None or f.mean is None:
            lines.append(f"  {f.figure}: no final verdicts yet")
            continue
        lines.append(
            f"  {f.figure}: {f.mean:.3f}, sequence [{f.low:.3f}, {f.high:.3f}] after {f.n} "
            + _unit(f)
            + _ahead(f)
        )
    unwatched = [f.no_item for f in found.figures if f.no_item]
    if unwatched:
        lines.append(
            f"  No win rate to watch where no item compares: {', '.join(unwatched)} "
            "(no task of the design ran both)."
        )
    if found.rule is None:
        lines.append("  No stopping rule: a design may state one (stop_when, docs/designs.md).")
        return lines
    kind, value = stopping_rule(found.rule)
    watched = [f for f in found.figures if f.kind == kind and not f.no_item]
    for f in watched:
        if f.stop and f.low is not None and f.high is not None:
            lines.append(
                f"  stop: the {f.figure}'s {level} sequence [{f.low:.2f}, {f.high:.2f}] "
                f"excludes {value:g} after {f.n} {_unit(f)} (first after {f.first_excluded_at})"
            )
    if not any(f.stop for f in watched):
        lines.append(
            f"  Stopping rule ({found.rule}): not met"
            + (f" by any {kind} yet" if watched else f": no {kind} to watch")
            + "."
        )
    return lines


__all__ = [
    "CONFIDENCE",
    "ORDER",
    "Finals",
    "Watch",
    "WatchedFigure",
    "final_values",
    "finals",
    "values_of",
    "watch",
    "watch_finals",
    "watch_lines",
    "watched",
]
