"""Inter-rater agreement for one variable or many, computed from a long table of judgments.

Input: records ``(item, reviewer, value)`` for one variable, its level of measurement (nominal,
ordinal, interval, ratio) and optionally its declared scale, e.g. ``(0, 1, 2)``. A missing judgment
is an absent record or a value of None. Output: pydantic models in which every figure carries its
denominators (items, reviewers, judgments behind it), its definition and its source, and either a
value or the reason it is undefined. Degenerate data (one reviewer, no variation, no overlap,
fewer than two items) gives ``undefined_reason``, never NaN, inf or an exception.

Each coefficient is declared once (:class:`Coefficient`: its key, label, short label, what it
measures, its formula, its source and whether the compact list of variables shows it) in
:data:`VARIABLE_COEFFICIENTS` and :data:`PAIR_COEFFICIENTS`; the figures follow the declarations
and every face (command line, workstation, CSV, report) lists them from there. A new coefficient
is its computation here and its declaration.

This module does not read the database, decide which judgments belong to a study or import the
UI; the caller collects the judgments (:mod:`abp_tui.formats.agreement_table` reads them from a
CSV file). The item x reviewer table is built in :mod:`abp_tui.stats.agreement_data`, the scales
and weights in :mod:`abp_tui.stats.agreement_scales`, the vectorised arithmetic in
:mod:`abp_tui.stats.agreement_kernels`.

Figures and the formulas used (n_ik: judgments of item i in category k, n_i = sum_k n_ik, q the
number of categories of the scale, x_k the numeric value of category k, or its position 1..q
when the categories are labels):

- Percent agreement: mean, over items with n_i >= 2, of sum_k n_ik (n_ik - 1) / (n_i (n_i - 1)),
  the share of agreeing pairs of judgments (Gwet 2014; irrCAC ``pa.coeff.raw``, unweighted).
- Cohen's kappa for each pair of reviewers on the items both judged, (p_o - p_e) / (1 - p_e) with
  p_o = sum_kl w_kl p_kl and p_e = sum_kl w_kl p_k. p_.l (Cohen 1960; weighted: Cohen 1968), with
  identity, linear (1 - |x_k - x_l| / (x_max - x_min)) and quadratic
  (1 - (x_k - x_l)^2 / (x_max - x_min)^2) weights (irrCAC ``linear.weights``/
  ``quadratic.weights``).
- Each kappa's large-sample standard error (Fleiss, Cohen and Everitt 1969; Fleiss, Levin and Paik
  2003, section 18.1; SAS PROC FREQ's ASE), with wbar_i. = sum_j p_.j w_ij, wbar_.j = sum_i p_i.
  w_ij: Var = [sum_ij p_ij (w_ij - (wbar_i. + wbar_.j)(1 - kappa))^2 - (kappa - p_e(1 - kappa))^2]
  / (n (1 - p_e)^2), its normal interval kappa -/+ z SE with z the exact quantile of the
  confidence (1.959964 at 95%; not clipped to [-1, 1], as SAS), and the test of kappa = 0 with
  the variance under the null, Var_0 = [sum_ij p_i. p_.j (w_ij - (wbar_i. + wbar_.j))^2 - p_e^2]
  / (n (1 - p_e)^2): z = kappa / SE_0, two-sided p = 2 (1 - Phi(|z|)). Identity weights give
  the unweighted kappa's formulas. A standard error of 0 (perfect agreement, or a reviewer who gives
  one category throughout) gives no interval.
- Fleiss' kappa (Fleiss 1971) when every item has the same number of judgments, and Fleiss' kappa
  generalized to any number of judgments per item as in irrCAC ``fleiss.kappa.raw`` (Gwet 2014):
  P_o is the percent agreement, P_e = sum_k pi_k^2 where pi_k is the mean over items with n_i >= 1
  of n_ik / n_i. With equal numbers of judgments per item both are the same number. Weighted
  (ordered variables; linear, quadratic and ordinal weights), as ``fleiss.kappa.raw(weights=)``:
  P_o = mean over items with n_i >= 2 of sum_k n_ik (n*_ik - 1) / (n_i (n_i - 1)) with
  n*_ik = sum_l w_kl n_il, P_e = sum_kl w_kl pi_k pi_l.
- Krippendorff's alpha with the distance of the variable's level, missing judgments allowed
  (Krippendorff 2011): the ``krippendorff`` package's coincidence-matrix formula, evaluated here
  per count pattern so that the point value and every bootstrap resample come from one matrix
  product. The package itself is the reference: the tests check the two agree on published and
  random data, and ``abp-tui bench agreement`` compares them on its data. (Calling the package for
  the point value alone costs as much as the whole benchmark baseline, which would leave the 3x
  speed goal out of reach.)
- Gwet's AC1 = (P_o - P_e) / (1 - P_e), P_e = sum_k pi_k (1 - pi_k) / (q - 1) (Gwet 2008), and AC2
  with weights (P_o weighted as in the weighted Fleiss kappa, P_e = sum_kl w_kl *
  sum_k pi_k (1 - pi_k) / (q (q - 1)) with q the categories the weights span) following irrCAC
  ``gwet.ac1.raw``: ``gwet_ac2`` carries the level's default (ordinal weights for an ordinal
  variable, quadratic for interval and ratio) and is the one the compact list shows;
  ``gwet_ac2_linear``, ``gwet_ac2_quadratic`` and ``gwet_ac2_ordinal`` give each weighting.
  Nominal variables: every weighted figure is undefined with the reason.
- Weights are built on the declared scale (``weight_basis="declared"``, the default: the
  category values, or positions for labels, unobserved categories included, as irrCAC) or on the
  observed categories' ranks (``"observed"``: positions 1..m of the m distinct values in the
  judgments behind the figure, a pair's own for its kappas, as R irr's ``kappa2``). The basis is
  carried in the report and named in each weighted figure's definition; the bootstrap keeps the
  weights of the data (the observed categories are taken as the scale).
- Bootstrap intervals: percentile intervals (95% by default, numpy's linear interpolation) over
  items resampled with replacement from a seeded generator. The multi-reviewer figures depend on
  an item only through its vector of category counts, so a resample is drawn exactly as
  multinomial counts of the distinct count vectors (the same distribution as drawing items, at
  a cost that grows with the number of distinct vectors, not of items); a pair's figures depend
  only on its confusion matrix, so its resamples are multinomial draws of the occupied cells.
  Resamples in which a figure is undefined are left out and counted. The interval is refused
  ("undefined" in ``interval_note``, no bounds) when fewer than 95% of the resamples are usable
  (:data:`~abp_tui.stats.agreement_kernels.MIN_USABLE_SHARE` says why 95%) or when its bounds
  coincide (every resample gave the same value, e.g. perfect agreement: a zero-width interval
  claims a precision the data do not have). Defaults: 1000 resamples for the multi-reviewer
  figures (they share one draw) and none for the reviewer pairs (``pair_resamples``): each pair
  needs its own draw, and 1000 per pair would put 3 reviewers x 5 variables x 10,000 items over
  the 3x goal of ``bench agreement``; the pairs' kappas have their large-sample interval instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from statistics import NormalDist
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from pydantic import FiniteFloat, NonNegativeInt, model_validator

from abp_tui.models.base import Model
from abp_tui.stats.agreement_data import (
    Index,
    RatingTable,
    count_patterns,
    generator,
    rating_table,
)
from abp_tui.stats.agreement_kernels import (
    EPS,
    MIN_USABLE_SHARE,
    chance_corrected,
    kappa_standard_errors,
    multi_kernel,
    ordinal_fits,
    percentile_bounds,
)
from abp_tui.stats.agreement_scales import (
    LEVELS,
    WEIGHT_BASES,
    WEIGHTINGS,
    AgreementError,
    Category,
    Level,
    Observation,
    WeightBasis,
    basis_weights,
    category_label,
    coords,
    declared_categories,
    is_number,
    weight_matrix,
)

__all__ = [
    "CONFIDENCE",
    "DEFAULT_PAIR_RESAMPLES",
    "DEFAULT_RESAMPLES",
    "DEFAULT_WEIGHT_BASIS",
    "LEVELS",
    "MIN_USABLE_SHARE",
    "PAIR_COEFFICIENTS",
    "REFUSED",
    "VARIABLE_COEFFICIENTS",
    "WEIGHT_BASES",
    "AgreementError",
    "AgreementReport",
    "Category",
    "Coefficient",
    "ConfusionMatrix",
    "Figure",
    "Interval",
    "LargeSample",
    "Level",
    "Observation",
    "PairAgreement",
    "VariableAgreement",
    "VariableSpec",
    "WeightBasis",
    "bootstrap_interval",
    "category_label",
    "compute_all",
    "compute_variable",
    "declared_categories",
    "is_number",
    "pair_from_confusion",
    "pair_from_counts",
    "weight_matrix",
]

DEFAULT_RESAMPLES: Final = 1000
"""Bootstrap resamples of the multi-reviewer figures (alpha, AC1/AC2, Fleiss, percent agreement)."""
DEFAULT_PAIR_RESAMPLES: Final = 0
"""Bootstrap resamples of each reviewer pair's figures: none by default (see the module notes)."""
DEFAULT_WEIGHT_BASIS: Final[WeightBasis] = "declared"
CONFIDENCE: Final = 0.95
REFUSED: Final = "undefined: "
"""How an interval note starts when the interval was computed and refused (too few usable
resamples, zero width), as opposed to not requested."""
BENCH_GOAL_RATIO: Final = 3.0
"""``bench agreement``: all figures within this many times krippendorff.alpha alone."""

F64 = npt.NDArray[np.float64]

AC2_WEIGHTS: Final[dict[str, str]] = {
    "ordinal": "ordinal",
    "interval": "quadratic",
    "ratio": "quadratic",
}
"""The weights of ``gwet_ac2``, the figure the compact list shows, by level."""


# -- the coefficients, declared once -------------------------------------------------------------
@dataclass(frozen=True)
class Coefficient:
    """One agreement coefficient: what every face (CLI, workstation, CSV, report) lists it as.

    The faces iterate over :data:`VARIABLE_COEFFICIENTS` and :data:`PAIR_COEFFICIENTS`, never over
    a list of their own, so a new coefficient is its computation here plus its declaration.
    """

    key: str
    """The field of :class:`VariableAgreement` (or :class:`PairAgreement`) holding the figure."""
    label: str
    """Its name; a figure's ``name`` may add a qualifier (the level, the weights)."""
    short: str
    """A column header where space is tight (the workstation's tables)."""
    measures: str
    """What it measures, in one sentence."""
    formula: str
    """Its definition as each figure carries it (``{level}``/``{weights}``/``{basis}`` filled
    in)."""
    source: str
    """Where the formula comes from."""
    compact: bool = True
    """Shown in the compact list of variables (a column each); False: only in the variable's own
    table of figures, the CSV file and the JSON document, which list every figure."""
    weights: str | None = None
    """The weighting a weighted figure always uses (None: unweighted, or by level)."""


_WEIGHTED_PO = (
    "P_o = mean over items with n_i >= 2 of sum_k n_ik(n*_ik - 1) / (n_i(n_i - 1)), "
    "n*_ik = sum_l w_kl n_il"
)
PERCENT_AGREEMENT: Final = Coefficient(
    key="percent_agreement",
    label="percent agreement",
    short="Agreement",
    measures="how often two judgments of the same item agree, chance agreement not removed",
    formula=(
        "mean over items judged by two or more reviewers of the share of agreeing pairs of "
        "judgments, sum_k n_ik(n_ik - 1) / (n_i(n_i - 1)); agreement is an exact category match"
    ),
    source="Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC pa.coeff.raw",
)
FLEISS_KAPPA: Final = Coefficient(
    key="fleiss_kappa",
    label="Fleiss' kappa",
    short="Fleiss κ",
    measures="agreement beyond chance among reviewers who each judged every item",
    formula=(
        "(P_o - P_e) / (1 - P_e); P_o = percent agreement; P_e = sum_k p_k^2 with p_k the share "
        "of all judgments in category k; requires every item to be judged by the same number of "
        "reviewers"
    ),
    source=(
        "Fleiss (1971), Measuring nominal scale agreement among many raters, "
        "Psychological Bulletin 76(5), 378-382"
    ),
)
FLEISS_KAPPA_GENERALIZED: Final = Coefficient(
    key="fleiss_kappa_generalized",
    label="Fleiss' kappa generalized (Gwet)",
    short="Fleiss κ gen.",
    measures="Fleiss' kappa for any number of judgments per item",
    formula=(
        "(P_o - P_e) / (1 - P_e); P_o = mean over items with n_i >= 2 of "
        "sum_k n_ik(n_ik - 1) / (n_i(n_i - 1)); P_e = sum_k pi_k^2 with pi_k the mean over items "
        "with n_i >= 1 of n_ik / n_i (valid when the number of reviewers per item differs; equals "
        "Fleiss' kappa when it does not)"
    ),
    source=(
        "Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC fleiss.kappa.raw, "
        "unweighted"
    ),
)


def _weighted_fleiss(weights: str, short: str) -> Coefficient:
    return Coefficient(
        key=f"fleiss_kappa_{weights}",
        label=f"Fleiss' kappa, {weights} weights",
        short=f"Fleiss κ {short}",
        measures=(
            f"Fleiss' kappa generalized (Gwet) with partial credit for near categories ({weights} "
            "weights)"
        ),
        formula=(
            "(P_o - P_e) / (1 - P_e) with {weights} weights w_kl {basis}; "
            + _WEIGHTED_PO
            + "; P_e = sum_kl w_kl pi_k pi_l, pi_k as in Fleiss' kappa generalized"
        ),
        source=(
            "Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC "
            f"fleiss.kappa.raw(weights = '{weights}')"
        ),
        compact=False,
        weights=weights,
    )


FLEISS_KAPPA_LINEAR: Final = _weighted_fleiss("linear", "lin.")
FLEISS_KAPPA_QUADRATIC: Final = _weighted_fleiss("quadratic", "quad.")
FLEISS_KAPPA_ORDINAL: Final = _weighted_fleiss("ordinal", "ord.")
KRIPPENDORFF_ALPHA: Final = Coefficient(
    key="krippendorff_alpha",
    label="Krippendorff's alpha",
    short="Krippendorff α",
    measures="agreement beyond chance at the variable's level of measurement, gaps allowed",
    formula=(
        "1 - D_o / D_e over the coincidence matrix of pairable judgments (items with two or more), "
        "{level} distance; missing judgments allowed"
    ),
    source=(
        "Krippendorff (2011), Computing Krippendorff's Alpha-Reliability; the krippendorff "
        "package's coincidence-matrix formula, vectorised here over bootstrap resamples and tested "
        "against it"
    ),
)
GWET_AC1: Final = Coefficient(
    key="gwet_ac1",
    label="Gwet's AC1",
    short="AC1",
    measures="agreement beyond chance that stays stable when one category is prevalent",
    formula=(
        "(P_o - P_e) / (1 - P_e); P_o = percent agreement; P_e = sum_k pi_k(1 - pi_k) / (q - 1) "
        "over the q categories of the scale, pi_k as in Fleiss' generalized kappa"
    ),
    source=(
        "Gwet (2008), Computing inter-rater reliability and its variance in the presence of high "
        "agreement, BJMSP 61, 29-48; irrCAC gwet.ac1.raw"
    ),
)
_AC2_FORMULA = (
    "(P_o - P_e) / (1 - P_e) with {weights} weights w_kl {basis}; "
    + _WEIGHTED_PO
    + "; P_e = (sum_kl w_kl) sum_k pi_k(1 - pi_k) / (q(q - 1)), q the categories the weights span"
)
GWET_AC2: Final = Coefficient(
    key="gwet_ac2",
    label="Gwet's AC2",
    short="AC2",
    measures=(
        "AC1 with partial credit for near categories of an ordered scale, with the level's "
        "weights (ordinal for ordinal variables, quadratic for interval and ratio)"
    ),
    formula=_AC2_FORMULA,
    source="Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC gwet.ac1.raw",
)


def _weighted_ac2(weights: str, short: str) -> Coefficient:
    return Coefficient(
        key=f"gwet_ac2_{weights}",
        label=f"Gwet's AC2, {weights} weights",
        short=f"AC2 {short}",
        measures=f"Gwet's AC2 with {weights} weights, whatever the level",
        formula=_AC2_FORMULA,
        source=(
            "Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC "
            f"gwet.ac1.raw(weights = '{weights}')"
        ),
        compact=False,
        weights=weights,
    )


GWET_AC2_LINEAR: Final = _weighted_ac2("linear", "lin.")
GWET_AC2_QUADRATIC: Final = _weighted_ac2("quadratic", "quad.")
GWET_AC2_ORDINAL: Final = _weighted_ac2("ordinal", "ord.")
VARIABLE_COEFFICIENTS: Final[tuple[Coefficient, ...]] = (
    PERCENT_AGREEMENT,
    FLEISS_KAPPA,
    FLEISS_KAPPA_GENERALIZED,
    FLEISS_KAPPA_LINEAR,
    FLEISS_KAPPA_QUADRATIC,
    FLEISS_KAPPA_ORDINAL,
    KRIPPENDORFF_ALPHA,
    GWET_AC1,
    GWET_AC2,
    GWET_AC2_LINEAR,
    GWET_AC2_QUADRATIC,
    GWET_AC2_ORDINAL,
)
"""The multi-reviewer figures of a variable, in the order every face lists them."""

_COHEN_FORMULA = (
    "(p_o - p_e) / (1 - p_e) over the items judged by both; p_o = sum_kl w_kl p_kl, "
    "p_e = sum_kl w_kl p_k. p_.l; {weights} weights {basis}; large-sample standard error of "
    "Fleiss, Cohen and Everitt (1969)"
)
_COHEN_SE_SOURCE = (
    "; standard error: Fleiss, Cohen and Everitt (1969), Large sample standard errors of kappa "
    "and weighted kappa, Psychological Bulletin 72(5), 323-327"
)
PAIR_PERCENT_AGREEMENT: Final = Coefficient(
    key="percent_agreement",
    label="percent agreement",
    short="Agreement",
    measures="how often the two reviewers gave the same category, chance agreement not removed",
    formula="share of the items judged by both reviewers on which they gave the same category",
    source="Cohen (1960): p_o, the observed agreement of the pair",
)
COHEN_KAPPA: Final = Coefficient(
    key="cohen_kappa",
    label="Cohen's kappa",
    short="Cohen κ",
    measures="agreement of two reviewers beyond chance, every disagreement counting in full",
    formula=_COHEN_FORMULA,
    source="Cohen (1960), A coefficient of agreement for nominal scales" + _COHEN_SE_SOURCE,
    weights="identity",
)
COHEN_KAPPA_LINEAR: Final = Coefficient(
    key="cohen_kappa_linear",
    label="Cohen's kappa (linear weights)",
    short="κ linear",
    measures="Cohen's kappa with partial credit falling linearly with the distance on the scale",
    formula=_COHEN_FORMULA,
    source="Cohen (1968), Weighted kappa; linear weights as irrCAC linear.weights"
    + _COHEN_SE_SOURCE,
    weights="linear",
)
COHEN_KAPPA_QUADRATIC: Final = Coefficient(
    key="cohen_kappa_quadratic",
    label="Cohen's kappa (quadratic weights)",
    short="κ quadratic",
    measures="Cohen's kappa with partial credit falling with the squared distance on the scale",
    formula=_COHEN_FORMULA,
    source="Cohen (1968), Weighted kappa; quadratic weights as irrCAC quadratic.weights"
    + _COHEN_SE_SOURCE,
    weights="quadratic",
)
PAIR_COEFFICIENTS: Final[tuple[Coefficient, ...]] = (
    PAIR_PERCENT_AGREEMENT,
    COHEN_KAPPA,
    COHEN_KAPPA_LINEAR,
    COHEN_KAPPA_QUADRATIC,
)
"""The figures of each pair of reviewers, in the order every face lists them."""
_COHEN_BY_WEIGHTS: Final = {
    "identity": COHEN_KAPPA,
    "linear": COHEN_KAPPA_LINEAR,
    "quadratic": COHEN_KAPPA_QUADRATIC,
}
_BOOT_METHOD = "percentile bootstrap, {what} resampled with replacement"
_BASIS_TEXT: Final[dict[str, str]] = {
    "declared": (
        "built on the declared scale (the category values, or positions 1..q for labels; "
        "unobserved categories included)"
    ),
    "observed": (
        "built on the ranks 1..m of the m distinct values observed in the judgments behind the "
        "figure (R irr kappa2's convention; the bootstrap keeps these weights)"
    ),
}
LARGE_SAMPLE_METHOD: Final = (
    "large-sample standard error of Fleiss, Cohen and Everitt (1969) under the alternative; "
    "normal interval kappa -/+ z SE, z = {quantile:.6f} the exact normal quantile of {level} "
    "(not clipped to [-1, 1]); test of kappa = 0 with the standard error under the null, "
    "z = kappa / SE_0, two-sided p (as SAS PROC FREQ; Fleiss, Levin and Paik 2003, section 18.1)"
)


def basis_text(basis: str) -> str:
    """How the weights of a weighted figure are built, as its definition says it."""
    return _BASIS_TEXT[basis]


# ----------------------------------------------------------------------------------------------
# Models


class Interval(Model):
    """A bootstrap percentile interval and how it was drawn."""

    low: FiniteFloat
    high: FiniteFloat
    confidence: FiniteFloat = CONFIDENCE
    method: str
    """What was resampled, e.g. "percentile bootstrap, items resampled with replacement"."""
    resamples: NonNegativeInt
    """Resamples drawn."""
    resamples_used: NonNegativeInt
    """Resamples in which the figure was defined (the others are left out; at least 95% of
    ``resamples``, or there is no interval)."""
    seed: int


class LargeSample(Model):
    """A kappa's large-sample standard error, the normal interval it gives and the test of
    kappa = 0 (Fleiss, Cohen and Everitt 1969)."""

    standard_error: FiniteFloat
    """Under the alternative: the one the interval uses."""
    low: FiniteFloat | None = None
    high: FiniteFloat | None = None
    interval_note: str | None = None
    """Why there is no interval (a standard error of 0), when there is none."""
    confidence: FiniteFloat
    quantile: FiniteFloat
    """z = Phi^-1(1 - (1 - confidence) / 2), exact (1.959964 at 0.95)."""
    standard_error_null: FiniteFloat | None = None
    """Under kappa = 0: the one the test uses (None when its variance is not positive)."""
    z: FiniteFloat | None = None
    """kappa / standard_error_null."""
    p_value: FiniteFloat | None = None
    """Two-sided p of the test of kappa = 0, 2 (1 - Phi(|z|))."""
    method: str


class Figure(Model):
    """One agreement figure with its denominators: a value, or the reason it is undefined."""

    name: str
    value: FiniteFloat | None = None
    undefined_reason: str | None = None
    """Why there is no value (None when there is one)."""
    interval: Interval | None = None
    """The bootstrap interval."""
    interval_note: str | None = None
    """Why there is no bootstrap interval, when the value is defined but the interval is not;
    "undefined: ..." when it was drawn and refused."""
    large_sample: LargeSample | None = None
    """The large-sample standard error and interval (each Cohen's kappa)."""
    large_sample_note: str | None = None
    """Why a defined kappa has no standard error."""
    observed_agreement: FiniteFloat | None = None
    """P_o (p_o) of a kappa-type coefficient."""
    chance_agreement: FiniteFloat | None = None
    """P_e (p_e) of a kappa-type coefficient."""
    weights: str | None = None
    """identity, linear, quadratic or ordinal (irrCAC's definitions), for weighted figures."""
    weight_basis: WeightBasis | None = None
    """What the weights are built on (declared scale or observed ranks), for weighted figures."""
    n_items: NonNegativeInt
    """Items behind the figure (for multi-reviewer figures: items with two or more judgments)."""
    n_items_chance: NonNegativeInt | None = None
    """Items whose judgments enter the chance term, when it is not ``n_items`` (n_i >= 1)."""
    n_reviewers: NonNegativeInt
    n_judgments: NonNegativeInt
    """Judgments behind the figure."""
    definition: str
    source: str

    @model_validator(mode="after")
    def _value_or_reason(self) -> Figure:
        if (self.value is None) == (self.undefined_reason is None):
            raise ValueError("a figure has either a value or an undefined_reason")
        if self.value is None and (self.interval is not None or self.large_sample is not None):
            raise ValueError("an undefined figure has no interval")
        return self

    @property
    def defined(self) -> bool:
        return self.undefined_reason is None


class ConfusionMatrix(Model):
    """Counts of the items two reviewers both judged, by the category each gave."""

    rows: str
    """The reviewer whose categories are the rows."""
    columns: str
    """The reviewer whose categories are the columns."""
    categories: tuple[Category, ...]
    """The scale's categories, declared order (unobserved ones included)."""
    counts: tuple[tuple[NonNegativeInt, ...], ...]
    """counts[k][l]: items the row reviewer put in category k and the column reviewer in l."""


class PairAgreement(Model):
    """Agreement between two reviewers on the items both judged."""

    reviewer_a: str
    reviewer_b: str
    n_items: NonNegativeInt
    """Items judged by both."""
    percent_agreement: Figure
    cohen_kappa: Figure
    cohen_kappa_linear: Figure
    cohen_kappa_quadratic: Figure
    confusion: ConfusionMatrix

    def figures(self) -> tuple[tuple[Coefficient, Figure], ...]:
        """Each declared pair coefficient with its figure, in :data:`PAIR_COEFFICIENTS` order."""
        return _declared(self, PAIR_COEFFICIENTS)


class VariableAgreement(Model):
    """Every agreement figure for one variable, with its denominators."""

    variable: str
    level: Level
    categories: tuple[Category, ...]
    """The categories used: the declared scale, or the observed values when none was declared."""
    scale_declared: bool
    n_items: NonNegativeInt
    """Items judged by two or more reviewers."""
    n_items_judged: NonNegativeInt
    """Items with at least one judgment."""
    n_reviewers: NonNegativeInt
    """Reviewers with at least one judgment of this variable."""
    n_judgments: NonNegativeInt
    """Judgments present (missing ones are not counted)."""
    min_judgments_per_item: NonNegativeInt
    max_judgments_per_item: NonNegativeInt
    percent_agreement: Figure
    fleiss_kappa: Figure
    fleiss_kappa_generalized: Figure
    fleiss_kappa_linear: Figure
    fleiss_kappa_quadratic: Figure
    fleiss_kappa_ordinal: Figure
    krippendorff_alpha: Figure
    gwet_ac1: Figure
    gwet_ac2: Figure
    gwet_ac2_linear: Figure
    gwet_ac2_quadratic: Figure
    gwet_ac2_ordinal: Figure
    pairs: tuple[PairAgreement, ...]
    """Every pair of reviewers, names in sorted order."""

    def figures(self) -> tuple[tuple[Coefficient, Figure], ...]:
        """Each declared coefficient with its figure, in :data:`VARIABLE_COEFFICIENTS` order."""
        return _declared(self, VARIABLE_COEFFICIENTS)


def _declared(
    model: Model, coefficients: tuple[Coefficient, ...]
) -> tuple[tuple[Coefficient, Figure], ...]:
    out = []
    for coefficient in coefficients:
        figure = getattr(model, coefficient.key)
        assert isinstance(figure, Figure), coefficient.key
        out.append((coefficient, figure))
    return tuple(out)


class AgreementReport(Model):
    """Agreement figures for every variable."""

    variables: tuple[VariableAgreement, ...]
    seed: int
    resamples: NonNegativeInt
    """Bootstrap resamples of the multi-reviewer figures."""
    pair_resamples: NonNegativeInt
    """Bootstrap resamples of each reviewer pair's figures (0: no pair intervals)."""
    confidence: FiniteFloat = CONFIDENCE
    weight_basis: WeightBasis = DEFAULT_WEIGHT_BASIS
    """What every weighted figure's weights are built on: the declared scale or the observed
    categories' ranks."""


class VariableSpec(Model):
    """How a variable is measured: its level and, optionally, its declared scale."""

    level: Level
    scale: tuple[Category, ...] | None = None


# ----------------------------------------------------------------------------------------------
# Building figures


def _interval(
    samples: F64, resamples: int, seed: int, what: str, confidence: float
) -> tuple[Interval | None, str | None]:
    """The percentile interval of the finite samples, or why it is refused (module notes)."""
    low, high, used = percentile_bounds(samples, confidence)
    return bootstrap_interval(low, high, used, resamples, seed, what, confidence)


def bootstrap_interval(
    low: float, high: float, used: int, resamples: int, seed: int, what: str, confidence: float
) -> tuple[Interval | None, str | None]:
    """The interval of percentile bounds already read from ``used`` finite resamples, or why it
    is refused (module notes): one rule for the single figures and the batch of pair tables."""
    if used < MIN_USABLE_SHARE * resamples:
        return None, (
            f"{REFUSED}usable in {used} of {resamples} resamples ({MIN_USABLE_SHARE:.0%} needed)"
        )
    if high - low <= EPS * max(1.0, abs(low), abs(high)):
        return None, (
            f"{REFUSED}the bootstrap bounds coincide at {low:.6g} (the resamples do not vary, "
            "as with perfect agreement); a zero-width interval is no measure of precision"
        )
    return (
        Interval(
            low=low,
            high=high,
            confidence=confidence,
            method=_BOOT_METHOD.format(what=what),
            resamples=resamples,
            resamples_used=used,
            seed=seed,
        ),
        None,
    )


@dataclass(frozen=True)
class _Base:
    """Denominators and bootstrap settings shared by the figures of one computation."""

    n_items: int
    n_reviewers: int
    n_judgments: int
    resamples: int
    seed: int
    confidence: float
    what: str
    n_items_chance: int | None = None
    not_requested: str = "bootstrap not requested (resamples = 0)"
    """The interval note when ``resamples`` is 0: which setting would give an interval."""


_PAIR_NOT_REQUESTED: Final = (
    "no bootstrap of the reviewer pairs: pair_resamples = 0 (--pair-resamples N draws N "
    "resamples for each pair)"
)


def _figure(
    base: _Base,
    coefficient: Coefficient,
    point: float,
    samples: F64 | None,
    reason: str | None,
    *,
    name: str | None = None,
    definition: str | None = None,
    source: str | None = None,
    weights: str | None = None,
    weight_basis: WeightBasis | None = None,
    pa: float | None = None,
    pe: float | None = None,
    boot_note: str | None = None,
    large_sample: tuple[LargeSample | None, str | None] = (None, None),
) -> Figure:
    """The figure of ``coefficient``; ``name``, ``definition`` and ``source`` default to the
    declaration's label, formula and source."""
    common: dict[str, Any] = {
        "name": name or coefficient.label,
        "definition": definition or coefficient.formula,
        "source": source or coefficient.source,
        "weights": weights,
        "weight_basis": weight_basis,
        "n_items": base.n_items,
        "n_items_chance": base.n_items_chance,
        "n_reviewers": base.n_reviewers,
        "n_judgments": base.n_judgments,
    }
    if reason is None and not math.isfinite(point):
        reason = "not a finite number for these data"
    if reason is not None:
        return Figure(undefined_reason=reason, **common)
    interval: Interval | None = None
    note: str | None = boot_note or base.not_requested
    if samples is not None and boot_note is None and base.resamples:
        interval, note = _interval(samples, base.resamples, base.seed, base.what, base.confidence)
    return Figure(
        value=point,
        interval=interval,
        interval_note=note,
        large_sample=large_sample[0],
        large_sample_note=large_sample[1],
        observed_agreement=pa if pa is not None and math.isfinite(pa) else None,
        chance_agreement=pe if pe is not None and math.isfinite(pe) else None,
        **common,
    )


def _large_sample(cells: F64, w: F64, confidence: float) -> tuple[LargeSample | None, str | None]:
    """A kappa's standard errors and interval from its confusion matrix (occupied categories)."""
    kappa, _po, _pe, se, se0 = kappa_standard_errors(cells, w)
    if not math.isfinite(se):
        return None, "the large-sample variance is not positive for this table"
    quantile = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    low = high = note = None
    if se > 0:
        low, high = kappa - quantile * se, kappa + quantile * se
    else:
        note = (
            f"{REFUSED}the large-sample standard error is 0 (as when the reviewers agree on "
            "every item, or one gives the same category throughout); a zero-width interval is "
            "no measure of precision"
        )
    z = p = None
    if math.isfinite(se0):
        z = kappa / se0
        p = math.erfc(abs(z) / math.sqrt(2))
    return (
        LargeSample(
            standard_error=se,
            low=low,
            high=high,
            interval_note=note,
            confidence=confidence,
            quantile=quantile,
            standard_error_null=se0 if math.isfinite(se0) else None,
            z=z,
            p_value=p,
            method=LARGE_SAMPLE_METHOD.format(quantile=quantile, level=f"{confidence * 100:.10g}%"),
        ),
        None,
    )


def compute_variable(
    records: Iterable[Observation],
    level: str,
    scale: Sequence[Category] | None = None,
    *,
    variable: str = "value",
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
    confidence: float = CONFIDENCE,
    weight_basis: WeightBasis = DEFAULT_WEIGHT_BASIS,
) -> VariableAgreement:
    """Every agreement figure for one variable from its (item, reviewer, value) judgments.

    ``level`` is nominal, ordinal, interval or ratio; ``scale`` the declared categories (numbers
    are sorted ascending, labels keep the order given; unobserved categories count). Without a
    scale the observed values are the categories. ``weight_basis`` says what the weighted
    figures' weights are built on: the declared scale or the observed categories' ranks. Raises
    AgreementError for a value that is not on the declared scale, a reviewer judging an item
    twice, or an ordinal variable whose labels have no declared order.
    """
    _check_settings(seed, resamples, pair_resamples, confidence, weight_basis)
    table = rating_table(records, level, scale, variable)
    return _compute(table, seed, resamples, pair_resamples, confidence, weight_basis)


def _check_settings(
    seed: int, resamples: int, pair_resamples: int, confidence: float, weight_basis: str
) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    for name, count in (("resamples", resamples), ("pair_resamples", pair_resamples)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {count!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    if weight_basis not in WEIGHT_BASES:
        raise ValueError(
            f"weight_basis must be one of {', '.join(WEIGHT_BASES)}, got {weight_basis!r}"
        )


def _compute(
    table: RatingTable,
    seed: int,
    resamples: int,
    pair_resamples: int,
    confidence: float,
    weight_basis: WeightBasis,
) -> VariableAgreement:
    level = table.level
    cats = table.categories
    q = len(cats)
    counts = table.counts
    per_item = counts.sum(axis=1)
    n_judged = int(per_item.size)
    two = per_item >= 2
    n2 = int(np.count_nonzero(two))
    n_reviewers = len(table.reviewers)
    n_judgments = int(per_item.sum())
    judgments_two = int(per_item[two].sum())

    # Reasons that make every multi-reviewer figure undefined.
    common_reason: str | None = None
    if n_judgments == 0:
        common_reason = "no judgments"
    elif n_reviewers < 2:
        common_reason = f"only one reviewer ({table.reviewers[0]!r}) judged this variable"
    elif n2 == 0:
        common_reason = "no item was judged by two or more reviewers"
    elif n2 < 2:
        common_reason = "fewer than 2 items were judged by two or more reviewers (1)"
    chance_reason = common_reason
    if chance_reason is None and q < 2:
        chance_reason = f"the scale has a single category ({category_label(cats[0])})"
    observed = counts.sum(axis=0) > 0
    used = np.flatnonzero(observed)
    no_variation = (
        f"no variation: every judgment is {category_label(cats[int(used[0])])}"
        if used.size == 1
        else None
    )

    # The weighted figures' weights: one set per weighting, on the declared scale or on the
    # ranks of the categories observed, and how many categories they span.
    weight_sets: dict[str, tuple[F64, int]] = {}
    weights_reason: str | None = None
    if level == "nominal":
        weights_reason = "nominal variable: weights need ordered categories"
    elif q >= 2:
        span = q if weight_basis == "declared" else int(used.size)
        for kind in WEIGHTINGS:
            w = basis_weights(kind, cats, weight_basis, observed)
            if w is not None:
                weight_sets[kind] = (w, span)
        if not weight_sets and n_judgments:
            weights_reason = (
                f"only one category was observed ({category_label(cats[int(used[0])])}); "
                "weights on the observed ranks need two"
            )
    boot = resamples if common_reason is None and q >= 2 else 0
    k: dict[str, F64] = {}
    n_patterns = 0
    if n_judged:
        patterns, freq = count_patterns(counts)
        n_patterns = int(freq.size)
        weights = freq[None, :].astype(np.float64)
        if boot:
            # Resampling items with replacement = multinomial counts of their count patterns.
            rng = generator(seed, table.variable)
            weights = np.vstack([weights, rng.multinomial(n_judged, freq / n_judged, size=boot)])
        k = multi_kernel(patterns, weights, q, level, coords(cats), weight_sets)

    def point(key: str) -> float:
        return float(k[key][0]) if key in k else math.nan

    def samples(key: str) -> F64 | None:
        return k[key][1:] if boot and key in k else None

    base = _Base(n2, n_reviewers, judgments_two, resamples, seed, confidence, "items")
    base_chance = _Base(
        n2, n_reviewers, n_judgments, resamples, seed, confidence, "items", n_judged
    )

    pa_fig = _figure(base, PERCENT_AGREEMENT, point("pa"), samples("pa"), common_reason)

    pe_is_one = point("fleiss_pe") >= 1 - EPS
    gen_reason = chance_reason
    if gen_reason is None and pe_is_one:
        gen_reason = no_variation or "chance agreement is 1"
    fleiss_reason = chance_reason
    if fleiss_reason is None and int(per_item.min()) != int(per_item.max()):
        fleiss_reason = (
            f"reviewers per item differ ({int(per_item.min())} to {int(per_item.max())}); "
            "see Fleiss' kappa generalized"
        )
    fleiss_reason = fleiss_reason or gen_reason
    kappa_args: dict[str, Any] = {"pa": point("pa"), "pe": point("fleiss_pe")}
    fleiss_fig = _figure(
        base_chance,
        FLEISS_KAPPA,
        point("fleiss"),
        samples("fleiss"),
        fleiss_reason,
        **kappa_args,
    )
    gen_fig = _figure(
        base_chance,
        FLEISS_KAPPA_GENERALIZED,
        point("fleiss"),
        samples("fleiss"),
        gen_reason,
        **kappa_args,
    )

    def weighted(coefficient: Coefficient, family: str, kind: str, see: str) -> Figure:
        """A weighted figure (``family`` "fleiss" or "ac2") with the weighting ``kind``."""
        if level == "nominal":  # the level says why, whatever else is missing
            reason: str | None = f"{weights_reason}; see {see}"
        else:
            reason = chance_reason or weights_reason
        pe = point(f"{family}_pe_{kind}")
        if reason is None and family == "fleiss" and pe >= 1 - EPS:
            reason = no_variation or "chance agreement is 1"
        return _figure(
            base_chance,
            coefficient,
            point(f"{family}_{kind}"),
            samples(f"{family}_{kind}"),
            reason,
            definition=coefficient.formula.format(weights=kind, basis=basis_text(weight_basis)),
            weights=kind if level != "nominal" else None,
            weight_basis=weight_basis if level != "nominal" else None,
            pa=point(f"pa_{kind}"),
            pe=pe,
        )

    fleiss_weighted = {
        c.key: weighted(c, "fleiss", c.weights or "", "Fleiss' kappa generalized")
        for c in (FLEISS_KAPPA_LINEAR, FLEISS_KAPPA_QUADRATIC, FLEISS_KAPPA_ORDINAL)
    }

    alpha_reason = chance_reason
    if alpha_reason is None and not math.isfinite(point("alpha")):
        alpha_reason = no_variation or "no variation among the pairable judgments"
    alpha_note = None
    if boot and level == "ordinal" and not ordinal_fits(n_patterns, q, boot + 1):
        alpha_note = (
            f"bootstrap not computed for ordinal alpha with {q} categories (too large to vectorise)"
        )
    alpha_fig = _figure(
        base,
        KRIPPENDORFF_ALPHA,
        point("alpha"),
        samples("alpha"),
        alpha_reason,
        name=f"{KRIPPENDORFF_ALPHA.label} ({level})",
        definition=KRIPPENDORFF_ALPHA.formula.format(level=level),
        boot_note=alpha_note,
    )

    ac1_fig = _figure(
        base_chance,
        GWET_AC1,
        point("ac1"),
        samples("ac1"),
        chance_reason,
        weights="identity",
        pa=point("pa"),
        pe=point("ac1_pe"),
    )
    ac2_kind = AC2_WEIGHTS.get(level)
    if ac2_kind is None:
        ac2_fig = _figure(
            base_chance,
            GWET_AC2,
            math.nan,
            None,
            "nominal variable: AC2 needs ordered categories; see Gwet's AC1",
            definition=GWET_AC2.formula.format(weights="ordered", basis=basis_text(weight_basis)),
        )
    else:
        default = weighted(GWET_AC2, "ac2", ac2_kind, "Gwet's AC1")
        ac2_fig = default.model_copy(
            update={
                "name": f"{GWET_AC2.label} ({ac2_kind} weights)",
                "source": GWET_AC2.source + f", weights = '{ac2_kind}'",
            }
        )
    ac2_weighted = {
        c.key: weighted(c, "ac2", c.weights or "", "Gwet's AC1")
        for c in (GWET_AC2_LINEAR, GWET_AC2_QUADRATIC, GWET_AC2_ORDINAL)
    }

    kinds = ("identity",) if level == "nominal" else ("identity", "linear", "quadratic")
    declared_weights = (
        {kind: weight_matrix(kind, cats) for kind in kinds} if weight_basis == "declared" else None
    )
    pairs = tuple(
        _pair(
            table,
            a,
            b,
            kinds,
            declared_weights,
            weight_basis,
            seed,
            pair_resamples,
            confidence,
        )
        for a, b in combinations(range(n_reviewers), 2)
    )
    return VariableAgreement(
        variable=table.variable,
        level=level,
        categories=cats,
        scale_declared=table.scale_declared,
        n_items=n2,
        n_items_judged=n_judged,
        n_reviewers=n_reviewers,
        n_judgments=n_judgments,
        min_judgments_per_item=int(per_item.min()) if n_judged else 0,
        max_judgments_per_item=int(per_item.max()) if n_judged else 0,
        percent_agreement=pa_fig,
        fleiss_kappa=fleiss_fig,
        fleiss_kappa_generalized=gen_fig,
        krippendorff_alpha=alpha_fig,
        gwet_ac1=ac1_fig,
        gwet_ac2=ac2_fig,
        pairs=pairs,
        **fleiss_weighted,
        **ac2_weighted,
    )


def _pair(
    table: RatingTable,
    a: int,
    b: int,
    kinds: Sequence[str],
    declared_weights: Mapping[str, F64] | None,
    weight_basis: WeightBasis,
    seed: int,
    resamples: int,
    confidence: float,
) -> PairAgreement:
    """The figures of reviewers ``a`` and ``b`` of ``table``: their confusion matrix, then
    :func:`_pair_counts` (a pair's figures depend on nothing else)."""
    q = len(table.categories)
    xa, xb = table.codes[:, a], table.codes[:, b]
    both = (xa >= 0) & (xb >= 0)
    cells = np.bincount(xa[both].astype(np.int64) * q + xb[both], minlength=q * q)
    return _pair_counts(
        cells.reshape(q, q),
        table.categories,
        (table.reviewers[a], table.reviewers[b]),
        kinds,
        declared_weights,
        weight_basis,
        (table.variable, table.reviewers[a], table.reviewers[b]),
        seed,
        resamples,
        confidence,
    )


def _pair_counts(
    square: npt.NDArray[np.int64],
    cats: tuple[Category, ...],
    names: tuple[str, str],
    kinds: Sequence[str],
    declared_weights: Mapping[str, F64] | None,
    weight_basis: WeightBasis,
    stream: tuple[str, ...],
    seed: int,
    resamples: int,
    confidence: float,
) -> PairAgreement:
    """Percent agreement, Cohen's kappa (each weighting, with its large-sample standard error)
    and the confusion matrix of a pair, from its q x q counts. ``declared_weights`` holds the
    variable's weights on its declared scale; with the observed basis each pair's weights are
    built on the categories the pair used. ``stream`` names the pair's own bootstrap generator
    (with ``seed``: :func:`~abp_tui.stats.agreement_data.generator`)."""
    name_a, name_b = names
    q = len(cats)
    cells = square.reshape(q * q)
    n = int(cells.sum())
    confusion = ConfusionMatrix(
        rows=name_a,
        columns=name_b,
        categories=cats,
        counts=tuple(map(tuple, square.tolist())),
    )
    reason: str | None = None
    if n == 0:
        reason = "no item was judged by both reviewers"
    elif n < 2:
        reason = "fewer than 2 items were judged by both reviewers (1)"
    chance_reason = reason
    if chance_reason is None and q < 2:
        chance_reason = f"the scale has a single category ({category_label(cats[0])})"
    base = _Base(
        n,
        2,
        2 * n,
        resamples,
        seed,
        confidence,
        "items judged by both",
        not_requested=_PAIR_NOT_REQUESTED,
    )
    stats: dict[str, tuple[F64, F64, F64]] = {}
    large: dict[str, tuple[LargeSample | None, str | None]] = {}
    weights_reason: dict[str, str] = {}
    boot = resamples if reason is None else 0
    only = ""
    if reason is None:
        # Only the occupied cells can be drawn: resampling the shared items is a multinomial
        # draw of the confusion matrix's cells.
        nz = np.flatnonzero(cells)
        freq = cells[nz].astype(np.float64)[None, :]
        if boot:
            rng = generator(seed, *stream)
            draws = rng.multinomial(n, cells[nz] / n, size=boot)
            freq = np.vstack([freq, draws])
        rows_k, cols_k = nz // q, nz % q
        used = sorted(set(rows_k.tolist()) | set(cols_k.tolist()))
        observed = np.zeros(q, dtype=bool)
        observed[used] = True
        eye = np.eye(q)
        row_m = freq @ eye[rows_k] / n
        col_m = freq @ eye[cols_k] / n
        sub = np.ix_(used, used)
        with np.errstate(divide="ignore", invalid="ignore"):
            for kind in kinds:
                if declared_weights is not None:
                    w: F64 | None = declared_weights[kind]
                elif kind == "identity":  # no partial credit: nothing to build on
                    w = np.eye(q)
                else:
                    w = basis_weights(kind, cats, weight_basis, observed)
                if w is None:
                    weights_reason[kind] = (
                        f"only one category was used ({category_label(cats[used[0]])}); "
                        "weights on the observed ranks need two"
                    )
                    continue
                po = freq @ w[rows_k, cols_k] / n
                pe = ((row_m @ w) * col_m).sum(axis=1)
                stats[kind] = (po, pe, chance_corrected(po, pe))
                if math.isfinite(float(stats[kind][2][0])):
                    large[kind] = _large_sample(square[sub].astype(np.float64), w[sub], confidence)
        only = ", ".join(category_label(cats[i]) for i in used)

    def figure(kind: str) -> Figure:
        coefficient = _COHEN_BY_WEIGHTS[kind]
        basis = (
            "(unweighted: every disagreement counts in full)"
            if kind == "identity"
            else basis_text(weight_basis)
        )
        definition = coefficient.formula.format(weights=kind, basis=basis)
        kind_basis = None if kind == "identity" else weight_basis
        fig_reason = chance_reason
        if fig_reason is None and kind not in kinds:
            fig_reason = "nominal variable: weighted kappa needs ordered categories"
        if fig_reason is None and kind in weights_reason:
            fig_reason = weights_reason[kind]
        if fig_reason is not None:
            return _figure(
                base,
                coefficient,
                math.nan,
                None,
                fig_reason,
                definition=definition,
                weights=kind,
                weight_basis=kind_basis,
            )
        po, pe, kap = stats[kind]
        if not math.isfinite(float(kap[0])):
            fig_reason = f"no variation: chance agreement is 1 (both reviewers used only {only})"
        return _figure(
            base,
            coefficient,
            float(kap[0]),
            kap[1:] if boot else None,
            fig_reason,
            definition=definition,
            weights=kind,
            weight_basis=kind_basis,
            pa=float(po[0]),
            pe=float(pe[0]),
            large_sample=large.get(kind, (None, None)),
        )

    po_id = stats["identity"][0] if stats else np.full(1, np.nan)
    return PairAgreement(
        reviewer_a=name_a,
        reviewer_b=name_b,
        n_items=n,
        percent_agreement=_figure(
            base,
            PAIR_PERCENT_AGREEMENT,
            float(po_id[0]),
            po_id[1:] if boot else None,
            reason,
        ),
        cohen_kappa=figure("identity"),
        cohen_kappa_linear=figure("linear"),
        cohen_kappa_quadratic=figure("quadratic"),
        confusion=confusion,
    )


def compute_all(
    records_by_variable: Mapping[str, Iterable[Observation]],
    levels: Mapping[str, str],
    scales: Mapping[str, Sequence[Category] | None] | None = None,
    seed: int = 0,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
    confidence: float = CONFIDENCE,
    weight_basis: WeightBasis = DEFAULT_WEIGHT_BASIS,
) -> AgreementReport:
    """Agreement figures for every variable, in the order of ``records_by_variable``.

    Every variable needs a level in ``levels``; ``scales`` may declare a variable's categories;
    ``weight_basis`` says what the weighted figures' weights are built on (module notes).
    Each variable's (and each pair's) bootstrap draws from a generator seeded by ``seed`` and the
    variable's (and the reviewers') names, so adding a variable changes no other figure.
    """
    _check_settings(seed, resamples, pair_resamples, confidence, weight_basis)
    scales = scales or {}
    missing = [name for name in records_by_variable if name not in levels]
    if missing:
        raise AgreementError(f"no level declared for variable(s) {', '.join(map(repr, missing))}")
    # The variables usually share their items and reviewers: one index each serves them all.
    items, reviewers = Index(), Index()
    out = tuple(
        _compute(
            rating_table(records, levels[name], scales.get(name), name, items, reviewers),
            seed,
            resamples,
            pair_resamples,
            confidence,
            weight_basis,
        )
        for name, records in records_by_variable.items()
    )
    return AgreementReport(
        variables=out,
        seed=seed,
        resamples=resamples,
        pair_resamples=pair_resamples,
        confidence=confidence,
        weight_basis=weight_basis,
    )


CONFUSION_ROWS: Final = "A (rows)"
CONFUSION_COLUMNS: Final = "B (columns)"
_CONFUSION_LIMIT: Final = 10_000_000
"""Largest total count of a confusion matrix: each count becomes one item below."""


def pair_from_confusion(
    counts: Sequence[Sequence[int]],
    categories: Sequence[Category],
    level: str = "nominal",
    *,
    confidence: float = CONFIDENCE,
    weight_basis: WeightBasis = DEFAULT_WEIGHT_BASIS,
) -> PairAgreement:
    """Percent agreement and Cohen's kappa of two raters from their square confusion matrix.

    ``counts[k][l]`` is the number of items rater A (the rows) put in category k and rater B (the
    columns) in category l. Computed from the counts by the same code as every reviewer pair
    (:func:`pair_from_counts`, no bootstrap), so the figures are those ``abp-tui agreement``
    reports for the same judgments; an ordered ``level`` adds
    the weighted kappas on ``categories`` as a declared scale. Raises AgreementError for a
    matrix that is not square, does not match its categories, or holds a negative count.
    """
    q = len(categories)
    if q == 0:
        raise AgreementError("the confusion matrix is empty")
    if len(set(categories)) != q:
        raise AgreementError("the confusion matrix names a category twice")
    if len(counts) != q or any(len(row) != q for row in counts):
        shape = f"{len(counts)} rows of {sorted({len(row) for row in counts})} columns"
        raise AgreementError(f"the confusion matrix must be {q} x {q} (square), got {shape}")
    total = 0
    for k, row in enumerate(counts):
        for col, count in enumerate(row):
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise AgreementError(
                    f"count at row {k + 1}, column {col + 1} must be a non-negative integer, "
                    f"got {count!r}"
                )
            total += count
    if total == 0:
        raise AgreementError("the confusion matrix counts no items (every cell is 0)")
    if total > _CONFUSION_LIMIT:
        raise AgreementError(f"the counts add up to {total}, above the limit of {_CONFUSION_LIMIT}")
    # From the cell counts alone (an 800 x 800 table unrolled into its items took minutes):
    # the figures compute_variable gives those items, the same code every reviewer pair uses.
    # The declared scale as compute_variable reads it (numbers ascending, labels as given).
    cats = declared_categories(level, categories, "value")
    where = {category: k for k, category in enumerate(categories)}
    order = [where[c] for c in cats]
    square = np.asarray(counts, dtype=np.int64)[np.ix_(order, order)]
    return pair_from_counts(
        square, cats, level=level, confidence=confidence, weight_basis=weight_basis
    )


def pair_from_counts(
    counts: npt.ArrayLike,
    categories: Sequence[Category],
    reviewers: tuple[str, str] = (CONFUSION_ROWS, CONFUSION_COLUMNS),
    *,
    level: str = "nominal",
    variable: str = "value",
    seed: int = 0,
    resamples: int = 0,
    confidence: float = CONFIDENCE,
    weight_basis: WeightBasis = DEFAULT_WEIGHT_BASIS,
) -> PairAgreement:
    """Percent agreement and Cohen's kappa (with a bootstrap interval when ``resamples``) of
    two raters from their q x q confusion matrix, computed from the cell counts alone: the
    figures :func:`compute_variable` gives the pair ``reviewers`` of variable ``variable`` (and
    the same bootstrap draws) on the items the matrix counts, when ``reviewers`` are in sorted
    order as it lists them. One implementation: every reviewer pair goes through here too.

    ``counts[k][l]``: items the first reviewer put in category k and the second in l, the
    categories in ``categories``' order (a declared scale: unobserved ones count). For callers
    that already hold the counts (the AI judge report's thousands of verdicts): nothing is
    unrolled into items. Raises AgreementError for a matrix that does not match its categories
    or holds a negative count.
    """
    _check_settings(seed, resamples, 0, confidence, weight_basis)
    if level not in LEVELS:
        raise AgreementError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    square = np.asarray(counts)
    q = len(categories)
    if q == 0 or square.shape != (q, q):
        raise AgreementError(
            f"the confusion matrix must be {q} x {q} (its categories), got shape {square.shape}"
        )
    if square.size and (square.dtype.kind not in "iu" or int(square.min()) < 0):
        raise AgreementError("the confusion matrix must hold non-negative integer counts")
    kinds = ("identity",) if level == "nominal" else ("identity", "linear", "quadratic")
    cats = tuple(categories)
    declared = (
        {kind: weight_matrix(kind, cats) for kind in kinds} if weight_basis == "declared" else None
    )
    return _pair_counts(
        square.astype(np.int64),
        cats,
        reviewers,
        kinds,
        declared,
        weight_basis,
        (variable, *reviewers),
        seed,
        resamples,
        confidence,
    )
