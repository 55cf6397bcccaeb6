"""Judge-assisted estimates: each condition's pass rate and each contrast's win rate from people's
judgments of some runs and an AI judge's of all, by prediction-powered inference
(:mod:`abp_tui.stats.ppi`), beside the human-only and the judge-only estimates.

The interval is valid whatever the judge's quality only when the **labelled set**, the units
whose human verdicts correct the judge, is a random sample of the units the judge judged. Every
estimate states which labelled set it used (:class:`LabelledSet`):

- **a design's calibration sample** (``calibration_sample``, carried by the reference as
  :class:`~abp_tui.analysis.judges.units.CalibrationSample`): the labelled set is the sample's
  units people judged with a usable verdict, and nothing else. A unit people judged outside
  the sample is not a label, because people may have picked it in any order (the queue puts the
  units the judges are unsure of first): it counts by the judge's verdict alone, like the
  sample's units nobody has judged yet, so the unlabelled set stays the rest of the units the
  judge judged instead of losing the ones people happened to pick.
- **a design's human budget** (``human_budget``, carried by the reference as
  :class:`~abp_tui.analysis.judges.units.AllocationUnits`): the labelled set is the units the
  seeded draw sent to people that they judged with a usable verdict, and each figure also
  carries the inverse-probability-weighted estimate over every unit
  (:mod:`abp_tui.analysis.judges.active`), the one valid under that draw; ``estimate`` is then
  the uniform-sample form, for comparison only.
- **no calibration sample** (imported labels, or a design without one): every unit people
  judged is labelled, and the estimate says that this is assumed, not verified, to be a random
  sample.

So the unlabelled set, ``judge_only`` of :func:`abp_tui.stats.ppi.ppi_mean`, is every unit of
the figure the judge judged that is not labelled, and the estimate is the judge's mean on
those plus the correction measured on the labelled set, as ``ppi_mean`` and ppi-python's
``ppi_mean_ci`` take their two disjoint samples. Units people judged without a usable verdict
(unresolved, a state other than pass or fail), in the sample or not, are in neither set and are
counted apart: what people decided about them says they are no pass, fail or preference to
estimate. A win rate counts a tie as half a win, on both sides.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import Field, NonNegativeInt

from abp_tui.analysis.judges.active import ActiveEstimate, active_estimate
from abp_tui.analysis.judges.arrays import F64, I64, Bools
from abp_tui.analysis.judges.pairs import PICK_VALUE, JudgePicks, PairUnits, judged_value
from abp_tui.analysis.judges.units import AllocationUnits, CalibrationSample
from abp_tui.models.base import Model
from abp_tui.stats.ppi import PredictionPowered, ppi_mean


class LabelledSet(Model):
    """Which units' human verdicts correct the judge in one figure."""

    calibration: bool
    """The design's seeded random calibration sample (True), or every unit people judged,
    assumed to be a random sample (False)."""
    n: NonNegativeInt
    """Units labelled: the estimate's n."""
    drawn: NonNegativeInt = 0
    """The figure's units in the calibration sample: labelled, without a usable verdict, or not
    judged by people yet."""
    without_verdict: NonNegativeInt = 0
    """Units drawn that people judged without a usable verdict: in neither set."""
    not_yet_judged: NonNegativeInt = 0
    """Units drawn that people have not judged yet: counted by the judge's verdict alone."""
    not_used: NonNegativeInt = 0
    """Units people judged outside the calibration sample: counted by the judge's verdict
    alone, their human verdict not used as a label."""
    active: bool = Field(default=False, exclude_if=lambda v: not v)
    """The units drawn under the design's human budget (``calibration`` is then True: the
    counts are the draw's): each labelled unit weighted by 1 / its probability."""


def statement(labelled: LabelledSet) -> str:
    """The labelled set and what the interval's validity rests on, in one line."""
    if not labelled.calibration:
        return (
            f"labelled set: every unit people judged, n = {labelled.n}; assumed to be a random "
            "sample of the units the judge judged, not verified (set calibration_sample in the "
            "design for a guarantee)"
        )
    missing = [
        f"{count} {what}"
        for count, what in (
            (labelled.without_verdict, "without a usable verdict"),
            (labelled.not_yet_judged, "not yet judged by people"),
        )
        if count
    ]
    sample = "the units drawn for people" if labelled.active else "the calibration sample"
    text = f"labelled set: {sample}, n = {labelled.n} of {labelled.drawn} drawn"
    if missing:
        text += f" ({', '.join(missing)})"
    if labelled.active:
        text += (
            "; drawn with known probabilities growing with the judges' uncertainty, each "
            "weighted by 1 / its probability, so valid whatever the judge's quality"
        )
    else:
        text += "; a seeded random sample, so valid whatever the judge's quality"
    if labelled.without_verdict:
        text += ", assuming those without a usable verdict are missing at random"
    if labelled.not_used:
        text += (
            f"; {labelled.not_used} judged by people outside the sample count by the judge's "
            "verdict alone, not as labels"
        )
    return text


class JudgeAssisted(Model):
    """One judge-assisted figure."""

    figure: str
    """``pass rate of C`` or ``win rate of A against B``."""
    estimate: PredictionPowered
    """Tuned prediction-powered estimate (PPI++), with the human-only and judge-only ones."""
    human_without_verdict: NonNegativeInt
    """Units people judged without a usable verdict (in the sample or not): in neither set."""
    labelled: LabelledSet
    """Which units' human verdicts correct the judge."""
    assumption: str
    """:func:`statement` of ``labelled``: what the interval's validity rests on."""
    active: ActiveEstimate | None = Field(default=None, exclude_if=lambda v: v is None)
    """A design with a human budget: the inverse-probability-weighted estimate (the figure),
    beside the people-only and the uniform-sample ones (``estimate`` is then the latter's
    prediction-powered form, for comparison only)."""


def assisted(
    figures: Sequence[tuple[str, object]],
    group: I64,
    judged: F64,
    human: F64,
    status: I64,
    confidence: float,
    sampled: Bools | None = None,
    probability: F64 | None = None,
) -> tuple[JudgeAssisted, ...]:
    """One estimate per group that holds a unit: ``figures[g]`` is group g's (name, sort key);
    per unit, its ``group`` (-1: none), the judge's value, people's value and its ``status``:
    1 judged by people, 0 by the judge alone, -1 judged by people without a usable verdict;
    ``sampled``, whether it is in the design's calibration sample (None: the design draws none,
    and every unit people judged is labelled); with a human budget, ``sampled`` is whether the
    draw sent it to people and ``probability`` its probability of reaching them."""
    out = []
    for g in sorted(np.unique(group[group >= 0]).tolist(), key=lambda g: figures[g][1]):
        here = group == g
        people = here & (status == 1)
        if sampled is None:
            labelled = people
            unlabelled = here & (status == 0)
            found = LabelledSet(calibration=False, n=int(np.count_nonzero(labelled)))
        else:
            drawn = here & sampled
            labelled = people & sampled
            outside = people & ~sampled
            unlabelled = (here & (status == 0)) | outside
            found = LabelledSet(
                calibration=True,
                n=int(np.count_nonzero(labelled)),
                drawn=int(np.count_nonzero(drawn)),
                without_verdict=int(np.count_nonzero(drawn & (status == -1))),
                not_yet_judged=int(np.count_nonzero(drawn & (status == 0))),
                not_used=int(np.count_nonzero(outside)),
                active=probability is not None,
            )
        active = None
        if probability is not None:
            units = here & (status != -1)
            active = active_estimate(
                judged[units], human[units], labelled[units], probability[units], confidence
            )
        out.append(
            JudgeAssisted(
                figure=figures[g][0],
                estimate=ppi_mean(
                    human[labelled],
                    judged[labelled],
                    judged[unlabelled],
                    confidence=confidence,
                    tuned=True,
                ),
                human_without_verdict=int(np.count_nonzero(here & (status == -1))),
                labelled=found,
                assumption=statement(found),
                active=active,
            )
        )
    return tuple(out)


def sampled_pairs(units: PairUnits, calibration: CalibrationSample | None) -> Bools | None:
    """Per preference unit: its pair is a pair item of the calibration sample (None: no sample).
    Matched on run codes: a loop over the sample's pairs, none over the units."""
    if calibration is None:
        return None
    runs = units.table.runs
    count = len(runs)
    code = dict(zip(runs, range(count), strict=True))
    keys = [
        min(code[x], code[y]) * count + max(code[x], code[y])
        for x, y in calibration.pairs
        if x in code and y in code
    ]
    unit_key = np.minimum(units.a, units.b) * count + np.maximum(units.a, units.b)
    return np.isin(unit_key, np.asarray(keys, dtype=np.int64))


def drawn_pairs(units: PairUnits, allocation: AllocationUnits) -> tuple[Bools, F64]:
    """Per preference unit: its pair was drawn for people, and its probability of being drawn
    (NaN: no item of the design holds it)."""
    keys = [units.key(u) for u in range(units.count)]
    drawn = np.fromiter((k in allocation.drawn_pairs for k in keys), np.bool_, len(keys))
    pi = np.fromiter((allocation.pairs.get(k, np.nan) for k in keys), np.float64, len(keys))
    return drawn, pi


def drawn_runs(runs: Sequence[str], allocation: AllocationUnits) -> tuple[Bools, F64]:
    """Per run: an item holding it was drawn for people, and its probability of reaching
    people (NaN: no item of the design holds it)."""
    drawn = np.fromiter((r in allocation.drawn_runs for r in runs), np.bool_, len(runs))
    pi = np.fromiter((allocation.runs.get(r, np.nan) for r in runs), np.float64, len(runs))
    return drawn, pi


def sampled_runs(runs: Sequence[str], calibration: CalibrationSample | None) -> Bools | None:
    """Per run (``runs``: a verdict table's run ids, by code): it is a run of an item of the
    calibration sample (None: no sample)."""
    if calibration is None:
        return None
    drawn = calibration.runs
    return np.fromiter((run in drawn for run in runs), dtype=np.bool_, count=len(runs))


def win_rates(
    units: PairUnits,
    picks: JudgePicks,
    confidence: float,
    calibration: CalibrationSample | None = None,
    allocation: AllocationUnits | None = None,
) -> tuple[JudgeAssisted, ...]:
    """Each contrast's win rate (the first condition in sorted order against the other), from
    a preference judge's picks: a unit judged in both orders counts the mean of its two. With
    the reference's ``calibration`` sample, only its pairs are labelled; with its
    ``allocation``, only the pairs drawn, weighted by their probabilities."""
    value, decided = judged_value(picks)
    live = picks.judged & ~picks.stale & decided & (units.contrast >= 0)
    judged = np.where(units.flip, 1 - value, value)
    people = PICK_VALUE[np.clip(units.human, 0, 2)]
    people = np.where(units.flip, 1 - people, people)
    status = np.where(units.human >= 0, 1, np.where(units.human_reason == 0, 0, -1))
    names = [(f"win rate of {a} against {b}", (a, b)) for a, b in units.contrasts]
    sampled, probability = sampled_pairs(units, calibration), None
    if allocation is not None:
        sampled, probability = drawn_pairs(units, allocation)
    return assisted(
        names,
        np.where(live, units.contrast, -1),
        judged,
        people,
        status,
        confidence,
        sampled,
        probability,
    )


def pass_rates(
    conditions: Sequence[str],
    condition: I64,
    judged_pass: Bools,
    people: I64,
    status: I64,
    confidence: float,
    sampled: Bools | None = None,
    probability: F64 | None = None,
) -> tuple[JudgeAssisted, ...]:
    """Each condition's pass rate, from a pass/fail judge: per verdict its ``condition`` (-1:
    left out), whether the judge passed it, people's pass (1) or fail (0), its status as for
    :func:`assisted` and whether its run is in the calibration sample (``sampled``, from
    :func:`sampled_runs`; None: no sample)."""
    names = [(f"pass rate of {c}", c) for c in conditions]
    return assisted(
        names,
        condition,
        judged_pass.astype(np.float64),
        people.astype(np.float64),
        status,
        confidence,
        sampled,
        probability,
    )


__all__ = [
    "JudgeAssisted",
    "LabelledSet",
    "assisted",
    "drawn_pairs",
    "drawn_runs",
    "pass_rates",
    "sampled_pairs",
    "sampled_runs",
    "statement",
    "win_rates",
]
