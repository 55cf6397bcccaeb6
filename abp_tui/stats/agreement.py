"""Inter-rater agreement for one variable or many, computed from a long table of judgments.

Input: records ``(item, reviewer, value)`` for one variable, its level of measurement (nominal,
ordinal, interval, ratio) and optionally its declared scale, e.g. ``(0, 1, 2)``. A missing judgment
is an absent record or a value of None. Output: pydantic models in which every figure carries its
denominators (items, reviewers, judgments behind it), its definition and its source, and either a
value or the reason it is undefined. Degenerate data (one reviewer, no variation, no overlap,
fewer than two items) gives ``undefined_reason``, never NaN, inf or an exception.

Each coefficient is declared once (:class:`Coefficient`: its key, label, short label, what it
measures, its formula, its source, whether the compact list of variables shows it, the levels it
applies to and, for a multi-reviewer one, its kernel and when its figure is undefined) in
:data:`VARIABLE_COEFFICIENTS` and :data:`PAIR_COEFFICIENTS`; the figures follow the declarations
(:func:`_declared_figure` builds each multi-reviewer figure from its declaration and its
kernel's values, :func:`abp_tui.stats.agreement_pairs.pair_values` and ``pair_figures`` each
pair's) and every face (command line, workstation, CSV, JSON, report) lists them from there. A
new coefficient is its declaration and its kernel (:mod:`abp_tui.stats.agreement_kernels`),
nothing else.

This module does not read the database, decide which judgments belong to a study or import the
UI; the caller collects the judgments (:mod:`abp_tui.formats.agreement_table` reads them from a
CSV file). The item x reviewer table is built in :mod:`abp_tui.stats.agreement_data`, the scales
and weights in :mod:`abp_tui.stats.agreement_scales`, the vectorised arithmetic in
:mod:`abp_tui.stats.agreement_kernels`. The declarations are
:mod:`abp_tui.stats.agreement_coefficients`', the documents :mod:`abp_tui.stats.agreement_models`',
one figure's intervals :mod:`abp_tui.stats.agreement_figures`' and a pair of reviewers' figures
:mod:`abp_tui.stats.agreement_pairs`'; every public name is importable from here.

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
from typing import Final

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement_coefficients import (
    AC2_WEIGHTS,
    GWET_AC2,
    PAIR_COEFFICIENTS,
    VARIABLE_COEFFICIENTS,
    Coefficient,
    basis_text,
)
from abp_tui.stats.agreement_data import (
    Index,
    RatingTable,
    count_patterns,
    generator,
    rating_table,
)
from abp_tui.stats.agreement_figures import (
    _Base,
    _figure,
    bootstrap_interval,
    check_settings,
)
from abp_tui.stats.agreement_kernels import (
    MIN_USABLE_SHARE,
    Sums,
    multi_kernel,
)
from abp_tui.stats.agreement_models import (
    BENCH_GOAL_RATIO,
    CONFIDENCE,
    DEFAULT_PAIR_RESAMPLES,
    DEFAULT_RESAMPLES,
    DEFAULT_WEIGHT_BASIS,
    REFUSED,
    AgreementReport,
    ConfusionMatrix,
    Figure,
    Interval,
    LargeSample,
    PairAgreement,
    VariableAgreement,
    VariableSpec,
    unsided,
)
from abp_tui.stats.agreement_pairs import (
    _pair,
    declared_pair_weights,
    pair_from_counts,
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
    "AC2_WEIGHTS",
    "BENCH_GOAL_RATIO",
    "CONFIDENCE",
    "DEFAULT_PAIR_RESAMPLES",
    "DEFAULT_RESAMPLES",
    "DEFAULT_WEIGHT_BASIS",
    "GWET_AC2",
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
    "unsided",
    "weight_matrix",
]

F64 = npt.NDArray[np.float64]


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
    check_settings(seed, resamples, pair_resamples, confidence, weight_basis)
    table = rating_table(records, level, scale, variable)
    return compute_table(table, seed, resamples, pair_resamples, confidence, weight_basis)


def compute_table(
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
    patterns: F64 = np.zeros((0, q))
    weights: F64 = np.zeros((1, 0))
    if n_judged:
        patterns, freq = count_patterns(counts)
        weights = freq[None, :].astype(np.float64)
        if boot:
            # Resampling items with replacement = multinomial counts of their count patterns.
            rng = generator(seed, table.variable)
            weights = np.vstack([weights, rng.multinomial(n_judged, freq / n_judged, size=boot)])
        k = multi_kernel(patterns, weights, q, level, coords(cats), weight_sets)

    sums = Sums(
        patterns=patterns,
        weights=weights,
        q=q,
        level=level,
        coords=coords(cats),
        weight_sets=weight_sets,
        shared=k,
        resamples=boot,
        judgments_per_item=(int(per_item.min()), int(per_item.max())) if n_judged else (0, 0),
        no_variation=no_variation,
    )
    reasons = _Reasons(common_reason, chance_reason, weights_reason)
    bases = (
        _Base(n2, n_reviewers, judgments_two, resamples, seed, confidence, "items"),
        _Base(n2, n_reviewers, n_judgments, resamples, seed, confidence, "items", n_judged),
    )
    figures = {
        c.key: _declared_figure(c, sums, reasons, bases, weight_basis)
        for c in VARIABLE_COEFFICIENTS
    }

    declared_weights = declared_pair_weights(level, cats, weight_basis)
    pairs = tuple(
        _pair(
            table,
            a,
            b,
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
        pairs=pairs,
        **figures,
    )


@dataclass(frozen=True)
class _Reasons:
    """Why every figure of a variable is undefined (``common``), every chance-corrected one
    (``chance``: also a scale of one category), every weighted one (``weights``)."""

    common: str | None
    chance: str | None
    weights: str | None


def _declared_figure(
    c: Coefficient,
    sums: Sums,
    reasons: _Reasons,
    bases: tuple[_Base, _Base],
    weight_basis: WeightBasis,
) -> Figure:
    """The figure of a declared coefficient, from its kernel's values and its declaration."""
    level = sums.level
    base = bases[0] if c.pairable_only else bases[1]
    kind = c.weighting(level)
    weighted = kind in WEIGHTINGS
    definition = c.formula.format(
        level=level, weights=kind or "ordered", basis=basis_text(weight_basis)
    )
    if not c.applies(level):  # the level says why, whatever else is missing
        why = f"nominal variable: {c.nominal_reason}"
        return _figure(base, c, math.nan, None, why, definition=definition)
    assert c.kernel is not None, f"{c.key} is declared without a kernel"
    values = c.kernel(sums, kind)
    reason = reasons.chance if c.chance_corrected else reasons.common
    if reason is None and weighted:
        reason = reasons.weights
    if reason is None:
        reason = values.reason
    rows = values.rows
    return _figure(
        base,
        c,
        float(rows[0]) if rows is not None else math.nan,
        rows[1:] if rows is not None and sums.resamples else None,
        reason,
        name=c.name.format(label=c.label, level=level, weights=kind),
        definition=definition,
        source=c.source + f", weights = '{kind}'" if c.by_level is not None else None,
        weights=kind,
        weight_basis=weight_basis if weighted else None,
        pa=float(values.observed[0]) if values.observed is not None else None,
        pe=float(values.chance[0]) if values.chance is not None else None,
        boot_note=values.boot_note,
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
    check_settings(seed, resamples, pair_resamples, confidence, weight_basis)
    scales = scales or {}
    missing = [name for name in records_by_variable if name not in levels]
    if missing:
        raise AgreementError(f"no level declared for variable(s) {', '.join(map(repr, missing))}")
    # The variables usually share their items and reviewers: one index each serves them all.
    items, reviewers = Index(), Index()
    out = tuple(
        compute_table(
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
