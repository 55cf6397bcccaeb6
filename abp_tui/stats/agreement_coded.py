"""Agreement from judgments already coded as integers: (unit, reviewer, category) columns.

A caller that folds a large design's judgments one item at a time holds each judgment as three
small integers rather than an ``(item, reviewer, value)`` tuple of strings:
:func:`compute_coded` gives exactly what :func:`abp_tui.stats.agreement.compute_all` gives the
same judgments as records (the same figures, the same bootstrap draws). Every figure depends on
an item only through its row of the item x reviewer table (its count pattern, and each pair's
confusion matrix), never through the item's name or place, so units are numbers here, in any
order. :class:`CodedVariable` checks nothing a fold guarantees (values on the declared scale,
one judgment per reviewer and unit); :func:`coded_table` raises AgreementError when a reviewer
judged a unit twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement import compute_table
from abp_tui.stats.agreement_data import MAX_CATEGORIES, RatingTable, table_of_codes
from abp_tui.stats.agreement_figures import check_settings
from abp_tui.stats.agreement_models import (
    CONFIDENCE,
    DEFAULT_PAIR_RESAMPLES,
    DEFAULT_RESAMPLES,
    DEFAULT_WEIGHT_BASIS,
    AgreementReport,
    VariableAgreement,
)
from abp_tui.stats.agreement_scales import (
    LEVELS,
    AgreementError,
    Category,
    Level,
    WeightBasis,
)

__all__ = ["CodedVariable", "coded_table", "compute_coded", "compute_coded_variable"]

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class CodedVariable:
    """One variable's judgments as integer columns, one entry per judgment present (a missing
    judgment is no entry)."""

    variable: str
    level: str
    categories: tuple[Category, ...]
    """The declared scale as :func:`~abp_tui.stats.agreement.declared_categories` orders it."""
    reviewers: Sequence[str]
    """Reviewer names; ``reviewer`` indexes into them (a name without a judgment takes no
    part)."""
    unit: I64
    """Non-negative unit numbers (only which entries share one counts)."""
    reviewer: I64
    value: I64
    """Index into ``categories``."""


def coded_table(coded: CodedVariable) -> RatingTable:
    """The item x reviewer table of ``coded``: the units and reviewers with a judgment, the
    reviewers in name order (as :func:`~abp_tui.stats.agreement_data.rating_table` builds it
    from records)."""
    if coded.level not in LEVELS:
        raise AgreementError(
            f"variable {coded.variable!r}: unknown level {coded.level!r}; "
            f"expected one of {', '.join(LEVELS)}"
        )
    level: Level = coded.level
    categories = coded.categories
    if len(categories) > MAX_CATEGORIES:
        raise AgreementError(
            f"variable {coded.variable!r}: {len(categories)} distinct values; agreement is "
            f"computed for at most {MAX_CATEGORIES} categories (declare a scale or bin the values)"
        )
    units = coded.unit.astype(np.int64, copy=False)
    return table_of_codes(
        coded.variable,
        level,
        categories,
        True,
        (units, int(units.max()) + 1 if units.size else 0, lambda _unit: "one unit"),
        (coded.reviewer.astype(np.int64, copy=False), coded.reviewers),
        coded.value.astype(np.int64, copy=False),
    )


def compute_coded_variable(
    coded: CodedVariable,
    *,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
    confidence: float = CONFIDENCE,
    weight_basis: WeightBasis = DEFAULT_WEIGHT_BASIS,
) -> VariableAgreement:
    """Every figure of one variable: what :func:`~abp_tui.stats.agreement.compute_variable`
    gives the same judgments as records on the same declared scale."""
    check_settings(seed, resamples, pair_resamples, confidence, weight_basis)
    return compute_table(
        coded_table(coded), seed, resamples, pair_resamples, confidence, weight_basis
    )


def compute_coded(
    variables: Iterable[CodedVariable],
    seed: int = 0,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
    confidence: float = CONFIDENCE,
    weight_basis: WeightBasis = DEFAULT_WEIGHT_BASIS,
) -> AgreementReport:
    """Agreement figures for every variable, in order: what
    :func:`~abp_tui.stats.agreement.compute_all` gives the same judgments as records. Each
    variable's table is built, computed and dropped before the next one's."""
    check_settings(seed, resamples, pair_resamples, confidence, weight_basis)
    out = tuple(
        compute_table(coded_table(v), seed, resamples, pair_resamples, confidence, weight_basis)
        for v in variables
    )
    return AgreementReport(
        variables=out,
        seed=seed,
        resamples=resamples,
        pair_resamples=pair_resamples,
        confidence=confidence,
        weight_basis=weight_basis,
    )
