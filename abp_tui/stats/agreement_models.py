"""The agreement figures as documents: a figure with its denominators and intervals, a pair of
reviewers, a variable, the whole report; and the defaults of a computation."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt
from pydantic import ConfigDict, FiniteFloat, NonNegativeInt, model_validator

from abp_tui.models.base import Model
from abp_tui.stats.agreement_coefficients import (
    PAIR_COEFFICIENTS,
    VARIABLE_COEFFICIENTS,
    Coefficient,
    Declared,
)
from abp_tui.stats.agreement_scales import (
    Category,
    Level,
    WeightBasis,
)

F64 = npt.NDArray[np.float64]

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
    """Agreement between two reviewers on the items both judged: one field per declared pair
    coefficient (:data:`PAIR_COEFFICIENTS`), under its key. The coefficients declared first are
    fields here too, for their readers; one declared later is carried all the same (after
    ``confusion`` in its document)."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Figure]  # the figures of coefficients declared later

    reviewer_a: str
    reviewer_b: str
    n_items: NonNegativeInt
    """Items judged by both."""
    percent_agreement: Figure
    cohen_kappa: Figure
    cohen_kappa_linear: Figure
    cohen_kappa_quadratic: Figure
    confusion: ConfusionMatrix | None
    """None: withheld while the study is blind. A preference's categories are the item's sides,
    a and b, which are its contrast's conditions: its counts would say which one the reviewers
    favour before anyone may read results by condition."""

    @model_validator(mode="after")
    def _declared_figures(self) -> PairAgreement:
        _check_declared(self, PAIR_COEFFICIENTS)
        return self

    def without_sides(self) -> PairAgreement:
        """The pair as a blind study shows it: no confusion matrix, and no figure's reason
        naming the side used (:func:`unsided`)."""
        return unsided(self).model_copy(update={"confusion": None})

    def matrix(self) -> ConfusionMatrix:
        """The confusion matrix, for a reader that needs it (a plan, a test): a ValueError
        when it was withheld (a bug: only what is shown withholds it)."""
        if self.confusion is None:
            raise ValueError(f"{self.reviewer_a} × {self.reviewer_b}: the counts were withheld")
        return self.confusion

    def figures(self) -> tuple[tuple[Coefficient, Figure], ...]:
        """Each declared pair coefficient with its figure, in :data:`PAIR_COEFFICIENTS` order."""
        return _declared(self, PAIR_COEFFICIENTS)


class VariableAgreement(Model):
    """Every agreement figure for one variable, with its denominators: one field per declared
    coefficient (:data:`VARIABLE_COEFFICIENTS`), under its key. The coefficients declared
    first are fields here too, for their readers; one declared later is carried all the same
    (after ``pairs`` in its document)."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Figure]  # the figures of coefficients declared later

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

    @model_validator(mode="after")
    def _declared_figures(self) -> VariableAgreement:
        _check_declared(self, VARIABLE_COEFFICIENTS)
        return self

    def figures(self) -> tuple[tuple[Coefficient, Figure], ...]:
        """Each declared coefficient with its figure, in :data:`VARIABLE_COEFFICIENTS` order."""
        return _declared(self, VARIABLE_COEFFICIENTS)


def _check_declared(model: Model, declared: Declared) -> None:
    """A document holds a figure of each declared coefficient and of no other."""
    keys = declared.declared_keys()
    unknown = sorted(set(model.__pydantic_extra__ or {}) - set(keys))
    if unknown:
        raise ValueError(f"no coefficient is declared as {', '.join(unknown)}")
    missing = [key for key in keys if not isinstance(getattr(model, key, None), Figure)]
    if missing:
        raise ValueError(f"no figure of the declared {', '.join(missing)}")


def _declared(
    model: Model, coefficients: Sequence[Coefficient]
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


_SIDE: Final = re.compile(r"'(?:a|b)'")
"""A preference's side as a figure's reason names it (``category_label``: quoted)."""
_NOTES: Final = ("undefined_reason", "interval_note", "large_sample_note")
Figured = TypeVar("Figured", PairAgreement, VariableAgreement)


def unsided(found: Figured) -> Figured:
    """``found`` with every figure's reason that names a preference's side ("both reviewers
    used only 'a'", "every judgment is 'b'") saying "one side" instead: side a is always the
    contrast's first condition, so while the study is blind the side is a result by
    condition. The values stay."""
    update: dict[str, Figure] = {}
    for coefficient, figure in found.figures():
        said = {
            name: _SIDE.sub("one side", text)
            for name in _NOTES
            if isinstance(text := getattr(figure, name), str) and _SIDE.search(text)
        }
        if said:
            update[coefficient.key] = figure.model_copy(update=said)
    return found.model_copy(update=update) if update else found
