"""The judge report's models: what ``abp-tui judges --json``, the Judges screen, the bundle's
``results/ai_judges.json`` and ``report.html`` read. Computed by
:mod:`abp_tui.analysis.judges.report`
(preference judges, between judges) and :mod:`abp_tui.analysis.judges.runs` (score and pass/fail
judges); nothing here computes a figure.
"""

from __future__ import annotations

from typing import Literal

from pydantic import FiniteFloat, NonNegativeInt

from abp_tui.analysis.judges.estimates import JudgeAssisted
from abp_tui.analysis.judges.pairs import LeftOut
from abp_tui.analysis.judges.units import TIES_RULE, ReferenceKind
from abp_tui.models.base import Model
from abp_tui.models.judges import Judge
from abp_tui.stats.agreement import PairAgreement
from abp_tui.stats.alt_test import AltTest
from abp_tui.stats.inference import BinomialTest, Proportion


class OrderAgreement(Model):
    """The judge against people in one presentation order, or in both."""

    order: str
    n: NonNegativeInt
    """Units compared."""
    agreement: Proportion
    """The share of units where the judge picked what people picked (Wilson interval)."""
    kappa: PairAgreement
    """Cohen's kappa (bootstrap interval), percent agreement and the confusion matrix: judge
    down the rows, people across the columns."""


class PositionFigures(Model):
    """How the order the judge was shown the two outputs moves its verdicts."""

    consistency: Proportion
    """Units with the same pick in both orders (a tie counts as a pick), among those judged in
    both orders without an error."""
    kappa_between_orders: PairAgreement | None
    """Cohen's kappa between the two orders' picks (a, b, tie); None when no unit has both."""
    first_position: Proportion
    """The share of decisive verdicts (any order) that picked the output shown first."""
    first_position_test: BinomialTest
    """Exact two-sided binomial test of the first-position picks against 0.5."""


class OrderAltTest(Model):
    order: str
    test: AltTest


class PreferenceJudgeReport(Model):
    judge: Judge
    kind: Literal["preference"] = "preference"
    verdicts: NonNegativeInt
    units: NonNegativeInt
    """Pairs (and turns) the judge judged in at least one order."""
    errors: NonNegativeInt
    """Verdicts with an error (no pick)."""
    ties: NonNegativeInt
    """The judge's tie verdicts."""
    orders: tuple[OrderAgreement, ...]
    position: PositionFigures
    alt_tests: tuple[OrderAltTest, ...]
    alt_test_note: str | None = None
    """Why there is no alt-test (fewer than three human annotators per item)."""
    estimates: tuple[JudgeAssisted, ...] = ()
    """Each contrast's judge-assisted win rate (prediction-powered)."""
    left_out: tuple[LeftOut, ...]


class Correlation(Model):
    name: str
    statistic: FiniteFloat | None = None
    p_value: FiniteFloat | None = None
    n: NonNegativeInt
    undefined_reason: str | None = None
    method: str


class ScoreJudgeReport(Model):
    judge: Judge
    kind: Literal["score"] = "score"
    verdicts: NonNegativeInt
    n: NonNegativeInt
    """Runs with the judge's score and people's total score."""
    spearman: Correlation
    kendall: Correlation
    left_out: tuple[LeftOut, ...]


class PassFailJudgeReport(Model):
    judge: Judge
    kind: Literal["pass_fail"] = "pass_fail"
    verdicts: NonNegativeInt
    n: NonNegativeInt
    confusion: dict[str, NonNegativeInt]
    """true_pass (both pass), false_pass (judge pass, people fail), false_fail, true_fail."""
    sensitivity: Proportion
    """Judge pass among the runs people passed."""
    specificity: Proportion
    """Judge fail among the runs people failed."""
    agreement: Proportion
    kappa: PairAgreement
    estimates: tuple[JudgeAssisted, ...] = ()
    """Each condition's judge-assisted pass rate (prediction-powered)."""
    left_out: tuple[LeftOut, ...]


JudgeReport = PreferenceJudgeReport | ScoreJudgeReport | PassFailJudgeReport


class BetweenJudges(Model):
    """Agreement between judges on the units they all judged (preferences: original order)."""

    kind: str
    pairs: tuple[PairAgreement, ...] = ()
    correlations: tuple[Correlation, ...] = ()


class JudgesReport(Model):
    study: str
    reference: str
    """The human reference every figure is measured against, named."""
    reference_kind: ReferenceKind
    ties: str = TIES_RULE
    confidence: FiniteFloat
    seed: int
    resamples: NonNegativeInt
    epsilon: FiniteFloat
    """The alt-test's cost-benefit margin."""
    judges: tuple[JudgeReport, ...]
    between: tuple[BetweenJudges, ...]


__all__ = [
    "BetweenJudges",
    "Correlation",
    "JudgeReport",
    "JudgesReport",
    "LeftOut",
    "OrderAgreement",
    "OrderAltTest",
    "PassFailJudgeReport",
    "PositionFigures",
    "PreferenceJudgeReport",
    "ScoreJudgeReport",
]
