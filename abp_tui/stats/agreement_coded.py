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
from abp_tui.stats.agreement_data import MAX_CATEGORIES, RatingTable
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
    unit_codes, n = _compact(coded.unit)
    rev_codes, _r = _compact(coded.reviewer)
    used_revs = np.flatnonzero(np.bincount(coded.reviewer) > 0)
    names = [str(coded.reviewers[i]) for i in used_revs.tolist()]
    order = sorted(range(len(names)), key=names.__getitem__)
    if order != list(range(len(names))):
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        rev_codes = rank[rev_codes]
    reviewer_names = tuple(names[i] for i in order)
    r, v = len(reviewer_names), len(categories)
    cats = coded.value.astype(np.int64, copy=False)
    codes = np.full((n, r), -1, dtype=np.int32)
    codes[unit_codes, rev_codes] = cats
    if int(np.count_nonzero(codes >= 0)) != cats.size:
        cell = unit_codes * r + rev_codes
        dup = int(np.flatnonzero(np.bincount(cell, minlength=n * r)[cell] > 1)[0])
        raise AgreementError(
            f"variable {coded.variable!r}: reviewer {reviewer_names[rev_codes[dup]]!r} judged "
            f"one unit more than once"
        )
    counts = np.bincount(unit_codes * v + cats, minlength=n * v).reshape(n, v)
    return RatingTable(
        variable=coded.variable,
        level=level,
        categories=categories,
        scale_declared=True,
        reviewers=reviewer_names,
        codes=codes,
        counts=counts,
    )


def _compact(codes: I64) -> tuple[I64, int]:
    """Codes renumbered over the values that occur (in their order), and how many occur."""
    if not codes.size:
        return codes.astype(np.int64), 0
    seen = np.bincount(codes) > 0
    n = int(np.count_nonzero(seen))
    if n == seen.size:
        return codes.astype(np.int64, copy=False), n
    return (np.cumsum(seen) - 1)[codes], n


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
