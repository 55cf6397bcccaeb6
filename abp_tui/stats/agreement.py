"""Inter-rater agreement for one variable or many, computed from a long table of judgments.

Input: records ``(item, reviewer, value)`` for one variable, its level of measurement (nominal,
ordinal, interval, ratio) and optionally its declared scale, e.g. ``(0, 1, 2)``. A missing judgment
is an absent record or a value of None. Output: pydantic models in which every figure carries its
denominators (items, reviewers, judgments behind it), its definition and its source, and either a
value or the reason it is undefined. Degenerate data (one reviewer, no variation, no overlap,
fewer than two items) gives ``undefined_reason``, never NaN, inf or an exception.

Each coefficient is declared once (:class:`Coefficient`: its key, label, short label, what it
measures, its formula and its source) in :data:`VARIABLE_COEFFICIENTS` and
:data:`PAIR_COEFFICIENTS`; the figures follow the declarations and every face (command line,
workstation, CSV, report) lists them from there. A new coefficient is its computation here and its
declaration.

This module does not read the database, decide which judgments belong to a study or import the
UI; the caller collects the judgments (:mod:`abp_tui.formats.agreement_table` reads them from a
CSV file).

Figures and the formulas used (n_ik: judgments of item i in category k, n_i = sum_k n_ik, q the
number of categories of the scale, x_k the numeric value of category k, or its position 1..q
when the categories are labels):

- Percent agreement: mean, over items with n_i >= 2, of sum_k n_ik (n_ik - 1) / (n_i (n_i - 1)),
  the share of agreeing pairs of judgments (Gwet 2014; irrCAC ``pa.coeff.raw``, unweighted).
- Cohen's kappa for each pair of reviewers on the items both judged, (p_o - p_e) / (1 - p_e) with
  p_o = sum_kl w_kl p_kl and p_e = sum_kl w_kl p_k. p_.l (Cohen 1960; weighted: Cohen 1968), with
  identity, linear (1 - |x_k - x_l| / (x_max - x_min)) and quadratic
  (1 - (x_k - x_l)^2 / (x_max - x_min)^2) weights built on the declared scale, unobserved
  categories included (irrCAC ``linear.weights``/``quadratic.weights``).
- Fleiss' kappa (Fleiss 1971) when every item has the same number of judgments, and Fleiss' kappa
  generalized to any number of judgments per item as in irrCAC ``fleiss.kappa.raw`` (Gwet 2014):
  P_o is the percent agreement, P_e = sum_k pi_k^2 where pi_k is the mean over items with n_i >= 1
  of n_ik / n_i. With equal numbers of judgments per item both are the same number.
- Krippendorff's alpha with the distance of the variable's level, missing judgments allowed
  (Krippendorff 2011): the ``krippendorff`` package's coincidence-matrix formula, evaluated here
  per count pattern so that the point value and every bootstrap resample come from one matrix
  product. The package itself is the reference: the tests check the two agree on published and
  random data, and ``abp-tui bench agreement`` compares them on its data. (Calling the package for
  the
  point value alone costs as much as the whole benchmark baseline, which would leave the
  3x speed goal out of reach.)
- Gwet's AC1 = (P_o - P_e) / (1 - P_e), P_e = sum_k pi_k (1 - pi_k) / (q - 1) (Gwet 2008), and AC2
  with weights (P_o weighted as in irrCAC, P_e = sum_kl w_kl * sum_k pi_k (1 - pi_k) / (q (q - 1)))
  following irrCAC ``gwet.ac1.raw``: ordinal weights for an ordinal variable, quadratic weights
  for interval and ratio variables.
- Bootstrap intervals: percentile intervals (95% by default, numpy's linear interpolation) over
  items resampled with replacement from a seeded generator. The multi-reviewer figures depend on
  an item only through its vector of category counts, so a resample is drawn exactly as
  multinomial counts of the distinct count vectors (the same distribution as drawing items, at
  a cost that grows with the number of distinct vectors, not of items); a pair's figures depend
  only on its confusion matrix, so its resamples are multinomial draws of the occupied cells.
  Resamples in which a figure is undefined are left out and counted; with fewer than half usable
  the interval is undefined. Defaults: 1000 resamples for the multi-reviewer figures (they share
  one draw) and none for the reviewer pairs (``pair_resamples``): each pair needs its own draw,
  and 1000 per pair would put 3 reviewers x 5 variables x 10,000 items over the 3x goal of
  ``bench agreement``.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from operator import itemgetter
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt
from pydantic import FiniteFloat, NonNegativeInt, model_validator

from abp_tui.errors import AbpError
from abp_tui.models.base import Model

__all__ = [
    "DEFAULT_PAIR_RESAMPLES",
    "DEFAULT_RESAMPLES",
    "LEVELS",
    "PAIR_COEFFICIENTS",
    "VARIABLE_COEFFICIENTS",
    "AgreementError",
    "AgreementReport",
    "Category",
    "Coefficient",
    "ConfusionMatrix",
    "Figure",
    "Interval",
    "Level",
    "Observation",
    "PairAgreement",
    "VariableAgreement",
    "VariableSpec",
    "compute_all",
    "compute_variable",
    "pair_from_confusion",
    "weight_matrix",
]

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: Final[tuple[Level, ...]] = ("nominal", "ordinal", "interval", "ratio")

Category = str | int | float
"""A category of a scale: a label or a number."""
Observation = tuple[str, str, Category | None]
"""(item, reviewer, value): one reviewer's value of one variable for one unit; a value of None is
a missing judgment. (Not :class:`abp_tui.models.Judgment`, a reviewer's whole decision on an
item, from which :mod:`abp_tui.analysis.agreement_input` derives these.)"""

DEFAULT_RESAMPLES: Final = 1000
"""Bootstrap resamples of the multi-reviewer figures (alpha, AC1/AC2, Fleiss, percent agreement)."""
DEFAULT_PAIR_RESAMPLES: Final = 0
"""Bootstrap resamples of each reviewer pair's figures: none by default (see the module notes)."""
CONFIDENCE: Final = 0.95
BENCH_GOAL_RATIO: Final = 3.0
"""``bench agreement``: all figures within this many times krippendorff.alpha alone."""

_EPS: Final = 1e-12
_DENSE_LIMIT: Final = 4_000_000
"""Largest array (elements) built per call for a dense formulation; larger inputs use another."""

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)

AC2_WEIGHTS: Final[dict[str, str]] = {
    "ordinal": "ordinal",
    "interval": "quadratic",
    "ratio": "quadratic",
}


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
    """Its definition as each figure carries it (``{level}``/``{weights}`` filled in)."""
    source: str
    """Where the formula comes from."""


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
GWET_AC2: Final = Coefficient(
    key="gwet_ac2",
    label="Gwet's AC2",
    short="AC2",
    measures="AC1 with partial credit for near categories of an ordered scale",
    formula=(
        "(P_o - P_e) / (1 - P_e) with {weights} weights w_kl; P_o = mean over items with "
        "n_i >= 2 of sum_k n_ik(n*_ik - 1) / (n_i(n_i - 1)), n*_ik = sum_l w_kl n_il; "
        "P_e = (sum_kl w_kl) sum_k pi_k(1 - pi_k) / (q(q - 1))"
    ),
    source="Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC gwet.ac1.raw",
)
VARIABLE_COEFFICIENTS: Final[tuple[Coefficient, ...]] = (
    PERCENT_AGREEMENT,
    FLEISS_KAPPA,
    FLEISS_KAPPA_GENERALIZED,
    KRIPPENDORFF_ALPHA,
    GWET_AC1,
    GWET_AC2,
)
"""The multi-reviewer figures of a variable, in the order every face lists them."""

_COHEN_FORMULA = (
    "(p_o - p_e) / (1 - p_e) over the items judged by both; p_o = sum_kl w_kl p_kl, "
    "p_e = sum_kl w_kl p_k. p_.l; {weights} weights on the declared scale"
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
    source="Cohen (1960), A coefficient of agreement for nominal scales",
)
COHEN_KAPPA_LINEAR: Final = Coefficient(
    key="cohen_kappa_linear",
    label="Cohen's kappa (linear weights)",
    short="κ linear",
    measures="Cohen's kappa with partial credit falling linearly with the distance on the scale",
    formula=_COHEN_FORMULA,
    source="Cohen (1968), Weighted kappa; linear weights as irrCAC linear.weights",
)
COHEN_KAPPA_QUADRATIC: Final = Coefficient(
    key="cohen_kappa_quadratic",
    label="Cohen's kappa (quadratic weights)",
    short="κ quadratic",
    measures="Cohen's kappa with partial credit falling with the squared distance on the scale",
    formula=_COHEN_FORMULA,
    source="Cohen (1968), Weighted kappa; quadratic weights as irrCAC quadratic.weights",
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


class AgreementError(AbpError):
    """Judgments that break the input contract (a value off the declared scale, a duplicate)."""


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
    """Resamples in which the figure was defined (the others are left out)."""
    seed: int


class Figure(Model):
    """One agreement figure with its denominators: a value, or the reason it is undefined."""

    name: str
    value: FiniteFloat | None = None
    undefined_reason: str | None = None
    """Why there is no value (None when there is one)."""
    interval: Interval | None = None
    interval_note: str | None = None
    """Why there is no interval, when the value is defined but the interval is not."""
    observed_agreement: FiniteFloat | None = None
    """P_o (p_o) of a kappa-type coefficient."""
    chance_agreement: FiniteFloat | None = None
    """P_e (p_e) of a kappa-type coefficient."""
    weights: str | None = None
    """identity, linear, quadratic or ordinal (irrCAC's definitions), for weighted figures."""
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
        if self.value is None and self.interval is not None:
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
    krippendorff_alpha: Figure
    gwet_ac1: Figure
    gwet_ac2: Figure
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


class VariableSpec(Model):
    """How a variable is measured: its level and, optionally, its declared scale."""

    level: Level
    scale: tuple[Category, ...] | None = None


# ----------------------------------------------------------------------------------------------
# Scales and weights


def is_number(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating)


def declared_categories(
    level: str, scale: Sequence[Category], variable: str
) -> tuple[Category, ...]:
    """The declared scale, checked: numbers sorted ascending, labels in the order given."""
    if level not in LEVELS:
        raise AgreementError(
            f"variable {variable!r}: unknown level {level!r}; expected one of {', '.join(LEVELS)}"
        )
    cats = tuple(scale)
    if not cats:
        raise AgreementError(f"variable {variable!r}: the declared scale is empty")
    numeric = [is_number(c) for c in cats]
    if any(c is None for c in cats) or not all(numeric or isinstance(c, str) for c in cats):
        raise AgreementError(
            f"variable {variable!r}: scale categories must be numbers or labels, got {cats!r}"
        )
    if all(numeric):
        values = [float(c) for c in cats]
        if not all(math.isfinite(v) for v in values):
            raise AgreementError(f"variable {variable!r}: the scale has a non-finite number")
        cats = tuple(sorted((_plain(c) for c in cats), key=float))
    elif any(numeric):
        if level != "nominal":
            raise AgreementError(
                f"variable {variable!r}: an {level} scale must be all numbers or all labels"
            )
    elif level in ("interval", "ratio"):
        raise AgreementError(
            f"variable {variable!r}: an {level} scale needs numbers, got labels {cats!r}"
        )
    if len(set(cats)) != len(cats):
        raise AgreementError(f"variable {variable!r}: the declared scale repeats a category")
    return cats


def _plain(value: Any) -> Category:
    """A Python int/float/str (numpy scalars converted)."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, bool):
        return int(value)
    return value  # type: ignore[no-any-return]


def _observed_categories(values: set[Any], level: str, variable: str) -> tuple[Category, ...]:
    if all(is_number(v) for v in values):
        return tuple(sorted((_plain(v) for v in values), key=float))
    if level != "nominal":
        shown = sorted(repr(v) for v in values if not is_number(v))[:3]
        raise AgreementError(
            f"variable {variable!r}: an {level} variable needs numeric values or a declared "
            f"scale giving the order of its labels; got {', '.join(shown)}"
        )
    return tuple(
        sorted(
            (_plain(v) for v in values),
            key=lambda v: (isinstance(v, str), 0.0 if isinstance(v, str) else float(v), str(v)),
        )
    )


def _coords(categories: Sequence[Category]) -> F64:
    """Numeric values of the categories (irrCAC: the numbers, or positions 1..q for labels)."""
    if all(is_number(c) for c in categories):
        return np.array([float(c) for c in categories])
    return np.arange(1, len(categories) + 1, dtype=np.float64)


def weight_matrix(kind: str, categories: Sequence[Category]) -> F64:
    """irrCAC's agreement weights on a scale: identity, linear, quadratic or ordinal.

    linear: 1 - |x_k - x_l| / (x_max - x_min); quadratic: 1 - (x_k - x_l)^2 / (x_max - x_min)^2;
    ordinal: 1 - M_kl / max M with M_kl = (|k - l| + 1) |k - l| / 2 on positions; x are the
    category values, or positions 1..q for labels (irrCAC ``weights.gen.r``).
    """
    q = len(categories)
    if kind == "identity" or q < 2:
        return np.eye(q)
    if kind == "ordinal":
        pos = np.arange(q, dtype=np.float64)
        gap = np.abs(pos[:, None] - pos[None, :])
        m = (gap + 1) * gap / 2
        ordinal: F64 = 1 - m / m.max()
        return ordinal
    x = _coords(categories)
    span = float(x.max() - x.min())
    diff = np.abs(x[:, None] - x[None, :]) / span
    if kind == "linear":
        return 1 - diff
    if kind == "quadratic":
        return 1 - diff**2
    raise ValueError(f"unknown weights {kind!r}; expected identity, linear, quadratic or ordinal")


def _alpha_distance(level: str, coords: F64) -> F64:
    """Krippendorff's metric differences for nominal, interval and ratio data."""
    a, b = coords[:, None], coords[None, :]
    if level == "nominal":
        return 1.0 - np.eye(coords.size)
    if level == "interval":
        return (a - b) ** 2
    total = a + b
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(total != 0, (a - b) / np.where(total != 0, total, 1.0), 0.0)
    return ratio**2


def _ordinal_distance(nv: F64) -> F64:
    """Krippendorff's ordinal metric for each row of pairable value counts nv (B, V) -> (B, V, V).

    d_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2, as in the krippendorff package.
    """
    v = nv.shape[1]
    cs = np.concatenate([np.zeros((nv.shape[0], 1)), np.cumsum(nv, axis=1)], axis=1)
    idx = np.arange(v)
    lo = np.minimum(idx[:, None], idx[None, :])
    hi = np.maximum(idx[:, None], idx[None, :])
    between = cs[:, hi + 1] - cs[:, lo]
    return (between - (nv[:, :, None] + nv[:, None, :]) / 2) ** 2  # type: ignore[no-any-return]


# ----------------------------------------------------------------------------------------------
# The item x reviewer table of one variable

MAX_CATEGORIES: Final = 2000
"""More distinct values than this is continuous data, outside what these coefficients are for."""


@dataclass(frozen=True)
class _Table:
    variable: str
    level: Level
    categories: tuple[Category, ...]
    scale_declared: bool
    reviewers: tuple[str, ...]
    """Reviewers with at least one judgment, sorted by name."""
    codes: npt.NDArray[np.int32]
    """(items, reviewers): category index, -1 for a missing judgment."""
    counts: I64
    """(items, categories): judgments of each item in each category."""


class _Index:
    """Ids to consecutive integers, shared by the variables of one computation.

    Variables judged together usually list the same ids in the same order; the codes of the
    last list are kept and reused when the next list is equal (a C-level comparison).
    """

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}
        self._last: tuple[list[Any], I64] | None = None

    def encode(self, keys: list[Any]) -> I64:
        if self._last is not None and self._last[0] == keys:
            return self._last[1]
        try:
            codes = np.fromiter(map(self.ids.__getitem__, keys), dtype=np.int64, count=len(keys))
        except KeyError:
            for key in dict.fromkeys(keys):
                self.ids.setdefault(key, len(self.ids))
            codes = np.fromiter(map(self.ids.__getitem__, keys), dtype=np.int64, count=len(keys))
        codes.flags.writeable = False
        self._last = (keys, codes)
        return codes

    def names(self) -> list[Any]:
        return list(self.ids)


def _table(
    records: Iterable[Observation],
    level: str,
    scale: Sequence[Category] | None,
    variable: str,
    items_index: _Index | None = None,
    reviewers_index: _Index | None = None,
) -> _Table:
    if level not in LEVELS:
        raise AgreementError(
            f"variable {variable!r}: unknown level {level!r}; expected one of {', '.join(LEVELS)}"
        )
    lvl: Level = level
    rows = records if isinstance(records, list | tuple) else list(records)
    # Column by column through C-level maps: this pass over the judgments is the only loop in
    # Python, and it is most of the cost of a large table.
    try:
        items = list(map(_FIRST, rows))
        reviewers = list(map(_SECOND, rows))
        values = list(map(_THIRD, rows))
    except (TypeError, IndexError, KeyError):
        raise AgreementError(
            f"variable {variable!r}: each judgment must be (item, reviewer, value)"
        ) from None
    if scale is not None:
        categories = declared_categories(lvl, scale, variable)
    else:
        try:
            observed = set(values)
        except TypeError:
            raise AgreementError(
                f"variable {variable!r}: values must be numbers or labels"
            ) from None
        observed.discard(None)
        observed = {v for v in observed if v == v}  # NaN is a missing judgment too
        categories = _observed_categories(observed, lvl, variable)
    if len(categories) > MAX_CATEGORIES:
        raise AgreementError(
            f"variable {variable!r}: {len(categories)} distinct values; agreement is computed for "
            f"at most {MAX_CATEGORIES} categories (declare a scale or bin the values)"
        )
    index: dict[Any, int] = {c: k for k, c in enumerate(categories)}
    index[None] = -1
    try:
        cats = np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values))
    except (KeyError, TypeError):
        cats = _codes_slowly(values, index, items, reviewers, categories, variable)

    items_index = items_index or _Index()
    reviewers_index = reviewers_index or _Index()
    try:
        item_codes = items_index.encode(items)
        rev_codes = reviewers_index.encode(reviewers)
    except TypeError:
        raise AgreementError(
            f"variable {variable!r}: item and reviewer ids must be hashable (strings)"
        ) from None
    if cats.size and cats.min() < 0:
        present = cats >= 0
        item_codes, rev_codes, cats = item_codes[present], rev_codes[present], cats[present]
    # Items and reviewers without a judgment present take no part.
    item_codes, used_items = _compact(item_codes, len(items_index.ids))
    rev_codes, used_revs = _compact(rev_codes, len(reviewers_index.ids))
    all_reviewers = reviewers_index.names()
    names = [str(all_reviewers[i]) for i in used_revs]
    order = sorted(range(len(names)), key=names.__getitem__)
    if order != list(range(len(names))):
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        rev_codes = rank[rev_codes]
    reviewer_names = tuple(names[i] for i in order)
    n, r, v = used_items.size, len(reviewer_names), len(categories)

    codes = np.full((n, r), -1, dtype=np.int32)
    codes[item_codes, rev_codes] = cats
    if int(np.count_nonzero(codes >= 0)) != cats.size:
        cell = item_codes * r + rev_codes
        hits = np.bincount(cell, minlength=n * r)
        dup = int(np.flatnonzero(hits[cell] > 1)[0])
        item_names = items_index.names()
        raise AgreementError(
            f"variable {variable!r}: reviewer {reviewer_names[rev_codes[dup]]!r} judged item "
            f"{item_names[used_items[item_codes[dup]]]!r} more than once"
        )
    counts = np.bincount(item_codes * v + cats, minlength=n * v).reshape(n, v)
    return _Table(
        variable=variable,
        level=lvl,
        categories=categories,
        scale_declared=scale is not None,
        reviewers=reviewer_names,
        codes=codes,
        counts=counts,
    )


def _compact(codes: I64, size: int) -> tuple[I64, I64]:
    """Codes renumbered over the values that occur, and which original values those are."""
    seen = np.bincount(codes, minlength=size) > 0
    used = np.flatnonzero(seen)
    if used.size == size:
        return codes, used
    return (np.cumsum(seen) - 1)[codes], used


def _codes_slowly(
    values: Sequence[Any],
    index: Mapping[Any, int],
    items: Sequence[Any],
    reviewers: Sequence[Any],
    categories: Sequence[Category],
    variable: str,
) -> I64:
    """Category indices one by one: NaN counts as missing; any other unknown value is an error."""
    out = np.empty(len(values), dtype=np.int64)
    for pos, value in enumerate(values):
        try:
            out[pos] = index[value]
            continue
        except (KeyError, TypeError):
            pass
        if isinstance(value, float) and value != value:
            out[pos] = -1
            continue
        shown = ", ".join(category_label(c) for c in categories[:12])
        more = ", ..." if len(categories) > 12 else ""
        raise AgreementError(
            f"variable {variable!r}: reviewer {reviewers[pos]!r} gave item {items[pos]!r} the "
            f"value {value!r}, which is not on the scale ({shown}{more})"
        )
    return out


def _patterns(counts: I64) -> tuple[F64, I64]:
    """The distinct rows of the item x category count matrix and how many items have each.

    Sorted, so the result does not depend on the order of the items.
    """
    if counts.shape[0] == 0:
        return np.zeros((0, counts.shape[1])), np.zeros(0, dtype=np.int64)
    base = int(counts.max()) + 1
    if counts.shape[1] * math.log2(max(base, 2)) < 62:
        code = counts @ (base ** np.arange(counts.shape[1], dtype=np.int64))
        _, first, freq = np.unique(code, return_index=True, return_counts=True)
        return counts[first].astype(np.float64), freq.astype(np.int64)
    rows, freq = np.unique(counts, axis=0, return_counts=True)
    return rows.astype(np.float64), freq.astype(np.int64)


def _rng(seed: int, *names: str) -> np.random.Generator:
    """A generator for one variable (or pair): independent of the order they are computed in."""
    words = [seed % 2**64, *(zlib.crc32(name.encode("utf-8")) for name in names)]
    return np.random.default_rng(np.random.SeedSequence(words))


# ----------------------------------------------------------------------------------------------
# Multi-reviewer coefficients, vectorised over resamples


def _multi_kernel(
    patterns: F64,
    weights: F64,
    q: int,
    level: str,
    coords: F64,
    ac2_weights: F64 | None,
) -> dict[str, F64]:
    """Every multi-reviewer figure for each row of ``weights`` (resamples x patterns).

    Row b of ``weights`` holds how many items of each count pattern resample b has (row 0: the
    data themselves). Values undefined in a resample come out as NaN; callers keep finite ones.
    """
    p = patterns
    m = p.sum(axis=1)
    two = m >= 2
    denom = np.where(two, m * (m - 1), 1.0)
    agree = np.where(two, (p * (p - 1)).sum(axis=1) / denom, 0.0)
    n1 = weights.sum(axis=1)
    n2 = weights @ two.astype(np.float64)
    out: dict[str, F64] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = n2 >= 2
        pa = np.where(ok, (weights @ agree) / np.where(ok, n2, 1.0), np.nan)
        share = p / np.where(m > 0, m, 1.0)[:, None]
        pi = (weights @ share) / np.where(n1 > 0, n1, 1.0)[:, None]
        out["pa"] = pa
        pe_f = (pi**2).sum(axis=1)
        out["fleiss_pe"] = pe_f
        out["fleiss"] = _chance_corrected(pa, pe_f)
        spread = (pi * (1 - pi)).sum(axis=1)
        if q >= 2:
            pe_1 = spread / (q - 1)
            out["ac1_pe"] = pe_1
            out["ac1"] = _chance_corrected(pa, pe_1)
        if ac2_weights is not None and q >= 2:
            starred = p @ ac2_weights.T
            agree_w = np.where(two, (p * (starred - 1)).sum(axis=1) / denom, 0.0)
            pa_w = np.where(ok, (weights @ agree_w) / np.where(ok, n2, 1.0), np.nan)
            pe_2 = ac2_weights.sum() * spread / (q * (q - 1))
            out["ac2_pa"] = pa_w
            out["ac2_pe"] = pe_2
            out["ac2"] = _chance_corrected(pa_w, pe_2)
        out["alpha"] = _alpha_kernel(p, m, two, weights, level, coords)
    return out


def _chance_corrected(pa: F64, pe: F64) -> F64:
    gap = 1 - pe
    return np.where(gap > _EPS, (pa - pe) / np.where(gap > _EPS, gap, 1.0), np.nan)


def _alpha_kernel(
    p: F64, m: F64, two: npt.NDArray[np.bool_], weights: F64, level: str, coords: F64
) -> F64:
    """Krippendorff's alpha, 1 - D_o / D_e, for each resample row.

    The coincidence matrix is o_ck = sum_i n_ic (n_ik - [c = k]) / (n_i - 1) over items with
    n_i >= 2, n_c its row sums and n their total; alpha = 1 - (n - 1) sum o_ck d_ck /
    sum n_c n_k d_ck with Krippendorff's distance d for the level: the krippendorff package's
    formula, evaluated per count pattern so that resamples cost a matrix product.
    """
    inv = np.where(two, 1.0 / np.where(two, m - 1, 1.0), 0.0)
    nv = weights @ (p * two[:, None])
    n = nv.sum(axis=1)
    v = p.shape[1]
    if level == "ordinal":
        if not _ordinal_fits(p.shape[0], v, weights.shape[0]):
            return _alpha_ordinal_rows(p, inv, weights, nv)
        coinc = (p[:, :, None] * p[:, None, :] - p[:, :, None] * np.eye(v)) * inv[:, None, None]
        o = (weights @ coinc.reshape(-1, v * v)).reshape(-1, v, v)
        d = _ordinal_distance(nv)
        do = (o * d).sum(axis=(1, 2))
        de_num = np.einsum("bi,bij,bj->b", nv, d, nv)
    else:
        # d is fixed and its diagonal zero, so an item's share of sum o_ck d_ck is
        # (n_i. d n_i.^T) / (n_i - 1).
        dist = _alpha_distance(level, coords)
        do = weights @ (((p @ dist) * p).sum(axis=1) * inv)
        de_num = ((nv @ dist) * nv).sum(axis=1)
    de = de_num / np.where(n > 1, n - 1, 1.0)
    ok = (n > 1) & (de > _EPS * np.maximum(1.0, np.abs(do)))
    return np.where(ok, 1 - do / np.where(ok, de, 1.0), np.nan)


def _ordinal_fits(patterns: int, categories: int, rows: int) -> bool:
    """Whether ordinal alpha can be vectorised over resamples within the memory bound."""
    square = categories * categories
    return patterns * square <= _DENSE_LIMIT and rows * square <= 4 * _DENSE_LIMIT


def _alpha_ordinal_rows(p: F64, inv: F64, weights: F64, nv: F64) -> F64:
    """Ordinal alpha of the first row only, for scales too large to vectorise over resamples.

    The other rows are NaN: the interval is reported as not computed.
    """
    out = np.full(weights.shape[0], np.nan)
    w = weights[0] * inv
    o = (p * w[:, None]).T @ p - np.diag(w @ p)
    d = _ordinal_distance(nv[:1])[0]
    n = float(nv[0].sum())
    de = float(nv[0] @ d @ nv[0]) / (n - 1) if n > 1 else 0.0
    if de > _EPS:
        out[0] = 1 - float((o * d).sum()) / de
    return out


# ----------------------------------------------------------------------------------------------
# Building figures


def _interval(
    samples: F64, resamples: int, seed: int, what: str, confidence: float
) -> tuple[Interval | None, str | None]:
    """The percentile interval of the finite samples (numpy's default linear interpolation)."""
    finite = np.sort(samples[np.isfinite(samples)])
    n = finite.size
    if 2 * n < resamples:
        return None, (
            f"undefined in {resamples - n} of {resamples} bootstrap resamples (too few usable)"
        )
    tail = (1 - confidence) / 2
    bounds = []
    for quantile in (tail, 1 - tail):
        pos = quantile * (n - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, n - 1)
        bounds.append(float(finite[lo] + (pos - lo) * (finite[hi] - finite[lo])))
    return (
        Interval(
            low=bounds[0],
            high=bounds[1],
            confidence=confidence,
            method=_BOOT_METHOD.format(what=what),
            resamples=resamples,
            resamples_used=int(n),
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
    setting: str = "resamples"
    """The parameter that sets ``resamples``, named when no interval was requested."""


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
    pa: float | None = None,
    pe: float | None = None,
    boot_note: str | None = None,
) -> Figure:
    """The figure of ``coefficient``; ``name``, ``definition`` and ``source`` default to the
    declaration's label, formula and source."""
    common: dict[str, Any] = {
        "name": name or coefficient.label,
        "definition": definition or coefficient.formula,
        "source": source or coefficient.source,
        "weights": weights,
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
    note: str | None = boot_note or f"bootstrap not requested ({base.setting} = 0)"
    if samples is not None and boot_note is None and base.resamples:
        interval, note = _interval(samples, base.resamples, base.seed, base.what, base.confidence)
    return Figure(
        value=point,
        interval=interval,
        interval_note=note,
        observed_agreement=pa if pa is not None and math.isfinite(pa) else None,
        chance_agreement=pe if pe is not None and math.isfinite(pe) else None,
        **common,
    )


def category_label(category: Category) -> str:
    return repr(category) if isinstance(category, str) else str(category)


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
) -> VariableAgreement:
    """Every agreement figure for one variable from its (item, reviewer, value) judgments.

    ``level`` is nominal, ordinal, interval or ratio; ``scale`` the declared categories (numbers
    are sorted ascending, labels keep the order given; unobserved categories count). Without a
    scale the observed values are the categories. Raises AgreementError for a value that is not
    on the declared scale, a reviewer judging an item twice, or an ordinal variable whose labels
    have no declared order.
    """
    _check_settings(seed, resamples, pair_resamples, confidence)
    table = _table(records, level, scale, variable)
    return _compute(table, seed, resamples, pair_resamples, confidence)


def _check_settings(seed: int, resamples: int, pair_resamples: int, confidence: float) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    for name, count in (("resamples", resamples), ("pair_resamples", pair_resamples)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {count!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")


def _compute(
    table: _Table, seed: int, resamples: int, pair_resamples: int, confidence: float
) -> VariableAgreement:
    level = table.level
    cats = table.categories
    q = len(cats)
    coords = _coords(cats)
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
    used = np.flatnonzero(counts.sum(axis=0))
    no_variation = (
        f"no variation: every judgment is {category_label(cats[int(used[0])])}"
        if used.size == 1
        else None
    )

    ac2_kind = AC2_WEIGHTS.get(level)
    ac2_w = weight_matrix(ac2_kind, cats) if ac2_kind and q >= 2 else None
    boot = resamples if common_reason is None and q >= 2 else 0
    k: dict[str, F64] = {}
    n_patterns = 0
    if n_judged:
        patterns, freq = _patterns(counts)
        n_patterns = int(freq.size)
        weights = freq[None, :].astype(np.float64)
        if boot:
            # Resampling items with replacement = multinomial counts of their count patterns.
            rng = _rng(seed, table.variable)
            weights = np.vstack([weights, rng.multinomial(n_judged, freq / n_judged, size=boot)])
        k = _multi_kernel(patterns, weights, q, level, coords, ac2_w)

    def point(key: str) -> float:
        return float(k[key][0]) if key in k else math.nan

    def samples(key: str) -> F64 | None:
        return k[key][1:] if boot and key in k else None

    base = _Base(n2, n_reviewers, judgments_two, resamples, seed, confidence, "items")
    base_chance = _Base(
        n2, n_reviewers, n_judgments, resamples, seed, confidence, "items", n_judged
    )

    pa_fig = _figure(base, PERCENT_AGREEMENT, point("pa"), samples("pa"), common_reason)

    pe_is_one = point("fleiss_pe") >= 1 - _EPS
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

    alpha_reason = chance_reason
    if alpha_reason is None and not math.isfinite(point("alpha")):
        alpha_reason = no_variation or "no variation among the pairable judgments"
    alpha_note = None
    if boot and level == "ordinal" and not _ordinal_fits(n_patterns, q, boot + 1):
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
    ac2_reason = chance_reason
    if ac2_kind is None:
        ac2_reason = "nominal variable: AC2 needs ordered categories; see Gwet's AC1"
    ac2_fig = _figure(
        base_chance,
        GWET_AC2,
        point("ac2"),
        samples("ac2"),
        ac2_reason,
        name=f"{GWET_AC2.label} ({ac2_kind} weights)" if ac2_kind else None,
        definition=GWET_AC2.formula.format(weights=ac2_kind or "ordered"),
        source=GWET_AC2.source + (f", weights = '{ac2_kind}'" if ac2_kind else ""),
        weights=ac2_kind,
        pa=point("ac2_pa"),
        pe=point("ac2_pe"),
    )

    kinds = ("identity",) if level == "nominal" else ("identity", "linear", "quadratic")
    kappa_weights = {kind: weight_matrix(kind, cats) for kind in kinds}
    pairs = tuple(
        _pair(table, a, b, kappa_weights, seed, pair_resamples, confidence)
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
    )


def _pair(
    table: _Table,
    a: int,
    b: int,
    kappa_weights: Mapping[str, F64],
    seed: int,
    resamples: int,
    confidence: float,
) -> PairAgreement:
    """Percent agreement, Cohen's kappa (each weighting) and the confusion matrix of a pair."""
    name_a, name_b = table.reviewers[a], table.reviewers[b]
    cats = table.categories
    q = len(cats)
    xa, xb = table.codes[:, a], table.codes[:, b]
    both = (xa >= 0) & (xb >= 0)
    n = int(np.count_nonzero(both))
    cells = np.bincount(xa[both].astype(np.int64) * q + xb[both], minlength=q * q)
    confusion = ConfusionMatrix(
        rows=name_a,
        columns=name_b,
        categories=cats,
        counts=tuple(map(tuple, cells.reshape(q, q).tolist())),
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
        n, 2, 2 * n, resamples, seed, confidence, "items judged by both", setting="pair_resamples"
    )
    stats: dict[str, tuple[F64, F64, F64]] = {}
    boot = resamples if reason is None else 0
    only = ""
    if reason is None:
        # Only the occupied cells can be drawn: resampling the shared items is a multinomial
        # draw of the confusion matrix's cells.
        nz = np.flatnonzero(cells)
        freq = cells[nz].astype(np.float64)[None, :]
        if boot:
            rng = _rng(seed, table.variable, name_a, name_b)
            draws = rng.multinomial(n, cells[nz] / n, size=boot)
            freq = np.vstack([freq, draws])
        rows_k, cols_k = nz // q, nz % q
        eye = np.eye(q)
        row_m = freq @ eye[rows_k] / n
        col_m = freq @ eye[cols_k] / n
        with np.errstate(divide="ignore", invalid="ignore"):
            for kind, w in kappa_weights.items():
                po = freq @ w[rows_k, cols_k] / n
                pe = ((row_m @ w) * col_m).sum(axis=1)
                stats[kind] = (po, pe, _chance_corrected(po, pe))
        used = sorted(set(rows_k.tolist()) | set(cols_k.tolist()))
        only = ", ".join(category_label(cats[i]) for i in used)

    def figure(kind: str) -> Figure:
        coefficient = _COHEN_BY_WEIGHTS[kind]
        definition = coefficient.formula.format(weights=kind)
        fig_reason = chance_reason
        if fig_reason is None and kind not in stats:
            fig_reason = "nominal variable: weighted kappa needs ordered categories"
        if fig_reason is not None:
            return _figure(
                base,
                coefficient,
                math.nan,
                None,
                fig_reason,
                definition=definition,
                weights=kind,
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
            pa=float(po[0]),
            pe=float(pe[0]),
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
) -> AgreementReport:
    """Agreement figures for every variable, in the order of ``records_by_variable``.

    Every variable needs a level in ``levels``; ``scales`` may declare a variable's categories.
    Each variable's (and each pair's) bootstrap draws from a generator seeded by ``seed`` and the
    variable's (and the reviewers') names, so adding a variable changes no other figure.
    """
    _check_settings(seed, resamples, pair_resamples, confidence)
    scales = scales or {}
    missing = [name for name in records_by_variable if name not in levels]
    if missing:
        raise AgreementError(f"no level declared for variable(s) {', '.join(map(repr, missing))}")
    # The variables usually share their items and reviewers: one index each serves them all.
    items, reviewers = _Index(), _Index()
    out = tuple(
        _compute(
            _table(records, levels[name], scales.get(name), name, items, reviewers),
            seed,
            resamples,
            pair_resamples,
            confidence,
        )
        for name, records in records_by_variable.items()
    )
    return AgreementReport(
        variables=out,
        seed=seed,
        resamples=resamples,
        pair_resamples=pair_resamples,
        confidence=confidence,
    )


CONFUSION_ROWS: Final = "A (rows)"
CONFUSION_COLUMNS: Final = "B (columns)"
_CONFUSION_LIMIT: Final = 10_000_000
"""Largest total count of a confusion matrix: each count becomes one item below."""


def pair_from_confusion(
    counts: Sequence[Sequence[int]], categories: Sequence[Category]
) -> PairAgreement:
    """Percent agreement and Cohen's kappa of two raters from their square confusion matrix.

    ``counts[k][l]`` is the number of items rater A (the rows) put in category k and rater B (the
    columns) in category l. The matrix is unrolled into the items it counts and computed by the
    same code as every reviewer pair (:func:`compute_variable`, nominal, no bootstrap), so the
    figures are those ``abp-tui agreement`` reports for the same judgments. Raises
    AgreementError for a matrix that is not square, does not match its categories, or holds a
    negative count.
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
    records: list[Observation] = []
    item = 0
    for k, row in enumerate(counts):
        for col, count in enumerate(row):
            for _ in range(count):
                name = str(item)
                records.append((name, CONFUSION_ROWS, categories[k]))
                records.append((name, CONFUSION_COLUMNS, categories[col]))
                item += 1
    variable = compute_variable(records, "nominal", list(categories), resamples=0, pair_resamples=0)
    return variable.pairs[0]
