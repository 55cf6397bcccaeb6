"""Spend people where they matter: from the AI-judge report, how many human judgments each
figure needs to reach a target half-width, with the judge and without it.

Read from what the judge report already measured (:mod:`abp_tui.analysis.judges.report`):

- **a pass rate or a win rate** (each judge-assisted estimate): people's values so far give
  the variance s^2 of one human judgment (from the human-only normal interval: s = half-width
  sqrt(n) / z, divisor n), so people alone need n = z^2 s^2 / w^2 (normal interval;
  :func:`abp_tui.stats.planning.normal_n`), and a pass rate Wilson's count at the rate seen
  (:func:`~abp_tui.stats.planning.wilson_n`). With the judge, the prediction-powered
  (PPI++) standard error measured now gives the design effect d = n se^2 / s^2 = n /
  (effective human judgments), about 1 - rho^2 for a judge correlated rho with people; the
  count with the judge is z^2 s^2 d / w^2. This takes d as measured at the current n and N
  (the judge's own term lam^2 var(f) / N is then counted as if it fell with n too), which is
  close when the judge judged far more units than people did; the exact count for a given
  rho and N is :func:`~abp_tui.stats.planning.ppi_n`.
- **Cohen's kappa of the judge against people** (each judge, each order): the large-sample
  variance of Fleiss, Cohen and Everitt (1969) of the confusion matrix seen so far, V / n,
  gives n = z^2 V / w^2 (:func:`~abp_tui.stats.planning.kappa_n`). The judge cannot stand in
  for people here: kappa measures it.

"More" is the count needed minus the human judgments the figure has now (never negative); for
a pass rate without the judge it counts from Wilson's count, the interval the results print.
While the study is blind the rates by condition are withheld (the report's rule), and so are
their plans: only the kappas are planned. Pure: a report in, a plan out.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import FiniteFloat, NonNegativeInt

from abp_tui.analysis.judges.estimates import JudgeAssisted
from abp_tui.analysis.judges.models import JudgesReport, PassFailJudgeReport, PreferenceJudgeReport
from abp_tui.models.base import Model
from abp_tui.stats.agreement_models import PairAgreement
from abp_tui.stats.inference import normal_quantile
from abp_tui.stats.planning import kappa_n, kappa_unit_variance, normal_n, wilson_n
from abp_tui.text.safe import safe_line

METHOD = (
    "people alone: n = z^2 s^2 / w^2 (normal interval), Wilson's count for a pass rate; with "
    "the judge: n = z^2 s^2 d / w^2, d = n_now se_PPI++^2 / s^2 measured now (about 1 - rho^2); "
    "kappa: n = z^2 V / w^2, V / n the large-sample variance of Fleiss, Cohen & Everitt (1969)"
)


class PlannedFigure(Model):
    """The human judgments one figure needs for the target half-width."""

    judge: str
    figure: str
    kind: Literal["pass rate", "win rate", "kappa"]
    n_now: NonNegativeInt
    """Human judgments the figure has now."""
    point: FiniteFloat | None = None
    """The figure by people so far (a rate) or the judge-people kappa."""
    without_judge: NonNegativeInt | None = None
    """Human judgments needed in all, people alone (normal interval)."""
    without_judge_wilson: NonNegativeInt | None = None
    """A pass rate: the same with Wilson's interval at the rate seen."""
    with_judge: NonNegativeInt | None = None
    """Human judgments needed in all with the judge (PPI++)."""
    design_effect: FiniteFloat | None = None
    """n se^2 / s^2 measured now: the share of the human count the judge leaves."""
    more_without_judge: NonNegativeInt | None = None
    more_with_judge: NonNegativeInt | None = None
    note: str | None = None
    """Why a count is missing."""


class HumanBudget(Model):
    study: str
    reference: str
    half_width: FiniteFloat
    confidence: FiniteFloat
    figures: tuple[PlannedFigure, ...]
    withheld: str | None = None
    method: str = METHOD


def _more(needed: int | None, now: int) -> int | None:
    return None if needed is None else max(0, needed - now)


def _rate(judge: str, found: JudgeAssisted, w: float, confidence: float) -> PlannedFigure:
    est = found.estimate
    kind: Literal["pass rate", "win rate"] = (
        "pass rate" if found.figure.startswith("pass rate") else "win rate"
    )
    human = est.human_only
    n = est.n_human
    base = {"judge": judge, "figure": found.figure, "kind": kind, "n_now": n, "point": human.point}
    if human.low is None or human.high is None or human.point is None or n < 2:
        return PlannedFigure(note="fewer than 2 human judgments: no variance to plan from", **base)
    z = normal_quantile(confidence)
    variance = ((human.high - human.low) / (2 * z)) ** 2 * n
    if variance <= 0:
        return PlannedFigure(
            note="people's judgments so far all agree: no variance to plan from", **base
        )
    without = normal_n(variance, w, confidence)
    wilson = wilson_n(human.point, w, confidence) if kind == "pass rate" else None
    effect = with_judge = None
    note = est.undefined_reason
    if est.standard_error is not None and est.standard_error > 0:
        effect = n * est.standard_error**2 / variance
        with_judge = max(2, normal_n(variance * effect, w, confidence))
    return PlannedFigure(
        without_judge=without,
        without_judge_wilson=wilson,
        with_judge=with_judge,
        design_effect=effect,
        more_without_judge=_more(wilson if wilson is not None else without, n),
        more_with_judge=_more(with_judge, n),
        note=note,
        **base,
    )


def _kappa(judge: str, figure: str, pair: PairAgreement, w: float, c: float) -> PlannedFigure:
    counts = np.asarray(pair.matrix().counts, dtype=np.float64)  # read before it is shown
    n = int(counts.sum())
    kappa = pair.cohen_kappa.value
    base = {"judge": judge, "figure": figure, "kind": "kappa", "n_now": n, "point": kappa}
    if n < 2 or not math.isfinite(kappa_unit_variance(counts)):
        return PlannedFigure(
            note="the large-sample variance of kappa is not positive for this table yet", **base
        )
    needed = kappa_n(counts, w, c)
    note = "kappa measures the judge against people: the judge cannot stand in for them"
    return PlannedFigure(
        without_judge=needed, more_without_judge=_more(needed, n), note=note, **base
    )


def human_budget(
    report: JudgesReport, half_width: float, withheld: str | None = None
) -> HumanBudget:
    """Each figure of ``report`` planned for ``half_width`` at the report's confidence."""
    c = report.confidence
    figures: list[PlannedFigure] = []
    for judge_report in report.judges:
        name = judge_report.judge.id
        if isinstance(judge_report, PassFailJudgeReport):
            figures.append(
                _kappa(name, "kappa of the judge against people", judge_report.kappa, half_width, c)
            )
        elif isinstance(judge_report, PreferenceJudgeReport):
            for order in judge_report.orders:
                figures.append(
                    _kappa(
                        name,
                        f"kappa of the judge against people ({order.order})",
                        order.kappa,
                        half_width,
                        c,
                    )
                )
        else:
            continue
        figures += [_rate(name, e, half_width, c) for e in judge_report.estimates]
    return HumanBudget(
        study=report.study,
        reference=report.reference,
        half_width=half_width,
        confidence=c,
        figures=tuple(figures),
        withheld=withheld,
    )


DEFAULT_HALF_WIDTH = 0.05
"""The half-width ``plan`` and the Judges screen plan for unless told otherwise."""


def plan_lines(plan: HumanBudget) -> list[str]:
    """The plan as ``abp-tui plan`` prints it and the Judges screen shows it: plain lines, every
    name from records made safe."""
    level = f"{plan.confidence * 100:.10g}%"
    lines = [
        f"Human judgments for a {level} half-width of {plan.half_width:g}, study "
        f"{safe_line(plan.study)} ({safe_line(plan.reference)})"
    ]
    for f in plan.figures:
        head = f"  {safe_line(f.judge)}: {safe_line(f.figure)}, {f.n_now} now"
        if f.point is not None:
            head += f", at {f.point:.4f}"
        lines.append(head)
        if f.without_judge is not None:
            text = f"    without the judge: {f.without_judge}"
            if f.without_judge_wilson is not None:
                text += f" (Wilson: {f.without_judge_wilson})"
            lines.append(text + f", {f.more_without_judge} more")
        if f.with_judge is not None and f.design_effect is not None:
            lines.append(
                f"    with the judge (PPI++): {f.with_judge}, {f.more_with_judge} more "
                f"(design effect {f.design_effect:.3f})"
            )
        if f.note:
            lines.append(f"    {safe_line(f.note)}")
    if not plan.figures:
        lines.append("  no figure to plan: no pass/fail or preference judge")
    if plan.withheld:
        lines.append(safe_line(plan.withheld))
    lines.append(f"method: {plan.method}")
    return lines


__all__ = [
    "DEFAULT_HALF_WIDTH",
    "METHOD",
    "HumanBudget",
    "PlannedFigure",
    "human_budget",
    "plan_lines",
]
