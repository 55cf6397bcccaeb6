"""Judge-assisted estimates: each condition's pass rate and each contrast's win rate from people's
judgments of some runs and an AI judge's of all, by prediction-powered inference
(:mod:`abp_tui.stats.ppi`), beside the human-only and the judge-only estimates.

The interval is valid only when the runs people judged are a random sample of those the judge
judged (a design's calibration sample, ``calibration_sample``): every estimate says so. Units
people judged without a usable verdict (unresolved, a state other than pass or fail) are in
neither sample and are counted apart. A win rate counts a tie as half a win, on both sides.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
from pydantic import NonNegativeInt

from abp_tui.analysis.judge_arrays import F64, I64, Bools
from abp_tui.analysis.judge_pairs import PICK_VALUE, JudgePicks, PairUnits, judged_value
from abp_tui.models.base import Model
from abp_tui.stats.ppi import PredictionPowered, ppi_mean

ASSUMPTION: Final = (
    "valid when the runs people judged are a random sample of those the judge judged (a "
    "calibration sample); otherwise the correction may be biased"
)


class JudgeAssisted(Model):
    """One judge-assisted figure."""

    figure: str
    """``pass rate of C`` or ``win rate of A against B``."""
    estimate: PredictionPowered
    """Tuned prediction-powered estimate (PPI++), with the human-only and judge-only ones."""
    human_without_verdict: NonNegativeInt
    """Units people judged without a usable verdict: in neither sample."""
    assumption: str = ASSUMPTION


def assisted(
    figures: Sequence[tuple[str, object]],
    group: I64,
    judged: F64,
    human: F64,
    status: I64,
    confidence: float,
) -> tuple[JudgeAssisted, ...]:
    """One estimate per group that holds a unit: ``figures[g]`` is group g's (name, sort key);
    per unit, its ``group`` (-1: none), the judge's value, people's value and its ``status``:
    1 judged by people, 0 by the judge alone, -1 judged by people without a usable verdict."""
    out = []
    for g in sorted(np.unique(group[group >= 0]).tolist(), key=lambda g: figures[g][1]):
        here = group == g
        labeled = here & (status == 1)
        out.append(
            JudgeAssisted(
                figure=figures[g][0],
                estimate=ppi_mean(
                    human[labeled],
                    judged[labeled],
                    judged[here & (status == 0)],
                    confidence=confidence,
                    tuned=True,
                ),
                human_without_verdict=int(np.count_nonzero(here & (status == -1))),
            )
        )
    return tuple(out)


def win_rates(units: PairUnits, picks: JudgePicks, confidence: float) -> tuple[JudgeAssisted, ...]:
    """Each contrast's win rate (the first condition in sorted order against the other), from
    a preference judge's picks: a unit judged in both orders counts the mean of its two."""
    value, decided = judged_value(picks)
    live = picks.judged & ~picks.stale & decided & (units.contrast >= 0)
    judged = np.where(units.flip, 1 - value, value)
    people = PICK_VALUE[np.clip(units.human, 0, 2)]
    people = np.where(units.flip, 1 - people, people)
    status = np.where(units.human >= 0, 1, np.where(units.human_reason == 0, 0, -1))
    names = [(f"win rate of {a} against {b}", (a, b)) for a, b in units.contrasts]
    return assisted(names, np.where(live, units.contrast, -1), judged, people, status, confidence)


def pass_rates(
    conditions: Sequence[str],
    condition: I64,
    judged_pass: Bools,
    people: I64,
    status: I64,
    confidence: float,
) -> tuple[JudgeAssisted, ...]:
    """Each condition's pass rate, from a pass/fail judge: per verdict its ``condition`` (-1:
    left out), whether the judge passed it, people's pass (1) or fail (0), and its status as
    for :func:`assisted`."""
    names = [(f"pass rate of {c}", c) for c in conditions]
    return assisted(
        names,
        condition,
        judged_pass.astype(np.float64),
        people.astype(np.float64),
        status,
        confidence,
    )


__all__ = ["ASSUMPTION", "JudgeAssisted", "assisted", "pass_rates", "win_rates"]
