"""Judge-assisted estimates: each condition's pass rate and each contrast's win rate from people's
judgments of some runs and an AI judge's of all, by prediction-powered inference
(:mod:`abp_tui.stats.ppi`), beside the human-only and the judge-only estimates.

The interval is valid only when the runs people judged are a random sample of those the judge
judged (a design's calibration sample, ``calibration_sample``): every estimate says so. Units
people judged without a usable verdict (unresolved, a state other than pass or fail) are in
neither sample and are counted apart. A win rate counts a tie as half a win, on both sides.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Final

from pydantic import NonNegativeInt

from abp_tui.analysis.judge_units import (
    ORDERS,
    PairUnit,
    Reference,
    Unit,
    VerdictRow,
    human_side,
    pair_units,
)
from abp_tui.models.base import Model
from abp_tui.models.judges import TIE
from abp_tui.stats.ppi import PredictionPowered, ppi_mean

ASSUMPTION: Final = (
    "valid when the runs people judged are a random sample of those the judge judged (a "
    "calibration sample); otherwise the correction may be biased"
)
_VALUE = {"a": 1.0, "b": 0.0, TIE: 0.5}


class JudgeAssisted(Model):
    """One judge-assisted figure."""

    figure: str
    """``pass rate of C`` or ``win rate of A against B``."""
    estimate: PredictionPowered
    """Tuned prediction-powered estimate (PPI++), with the human-only and judge-only ones."""
    human_without_verdict: NonNegativeInt
    """Units people judged without a usable verdict: in neither sample."""
    assumption: str = ASSUMPTION


def win_rates(
    rows: Iterable[VerdictRow],
    reference: Reference,
    confidence: float,
    units: Mapping[Unit, PairUnit] | None = None,
) -> tuple[JudgeAssisted, ...]:
    """Each contrast's win rate (the first condition in sorted order against the other);
    ``units``: the rows already gathered by :func:`pair_units`."""
    groups: dict[tuple[str, str], tuple[list[float], list[float], list[float], list[int]]] = (
        defaultdict(lambda: ([], [], [], [0]))
    )
    for unit in (units if units is not None else pair_units(rows)).values():
        if unit.stale:
            continue
        picks = [_VALUE[unit.picks[o]] for o in ORDERS if o in unit.picks]
        a, b = unit.runs
        ca, cb = reference.conditions.get(a), reference.conditions.get(b)
        if not picks or ca is None or cb is None or ca == cb:
            continue
        judged = sum(picks) / len(picks)
        human, why = human_side(reference, unit.runs)
        flip = ca > cb
        key = (cb, ca) if flip else (ca, cb)
        y, yhat, unlabeled, without = groups[key]
        if flip:
            judged = 1 - judged
        if human is not None:
            y.append(1 - _VALUE[human] if flip else _VALUE[human])
            yhat.append(judged)
        elif why == "no human verdict":
            unlabeled.append(judged)
        else:
            without[0] += 1
    return tuple(
        JudgeAssisted(
            figure=f"win rate of {first} against {second}",
            estimate=ppi_mean(y, yhat, unlabeled, confidence=confidence, tuned=True),
            human_without_verdict=without[0],
        )
        for (first, second), (y, yhat, unlabeled, without) in sorted(groups.items())
    )


def pass_rates(
    rows: Iterable[VerdictRow], reference: Reference, confidence: float
) -> tuple[JudgeAssisted, ...]:
    """Each condition's pass rate, from a pass/fail judge."""
    groups: dict[str, tuple[list[float], list[float], list[float], list[int]]] = defaultdict(
        lambda: ([], [], [], [0])
    )
    for row in rows:
        if not row.current or row.error is not None or row.verdict not in ("pass", "fail"):
            continue
        run = row.runs[0]
        condition = reference.conditions.get(run)
        if condition is None:
            continue
        y, yhat, unlabeled, without = groups[condition]
        judged = 1.0 if row.verdict == "pass" else 0.0
        if run in reference.runs:
            y.append(1.0 if reference.runs[run] else 0.0)
            yhat.append(judged)
        elif run in reference.run_reasons:
            without[0] += 1
        else:
            unlabeled.append(judged)
    return tuple(
        JudgeAssisted(
            figure=f"pass rate of {condition}",
            estimate=ppi_mean(y, yhat, unlabeled, confidence=confidence, tuned=True),
            human_without_verdict=without[0],
        )
        for condition, (y, yhat, unlabeled, without) in sorted(groups.items())
    )


__all__ = ["ASSUMPTION", "JudgeAssisted", "pass_rates", "win_rates"]
