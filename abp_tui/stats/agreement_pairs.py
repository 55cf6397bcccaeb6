"""Agreement of two reviewers from their confusion matrix: every declared pair coefficient
(:data:`~abp_tui.stats.agreement_coefficients.PAIR_COEFFICIENTS`: percent agreement and Cohen's
kappa of each weighting, with its large-sample standard error and bootstrap), for a variable's
reviewer pairs and for a confusion matrix or counts given as such.

A pair's figures come from its declarations: :func:`pair_values` calls each declared
coefficient's kernel on the pair's sums (:class:`~abp_tui.stats.agreement_kernels.PairSums`)
and :func:`pair_figures` turns the values into figures; the batch of
:mod:`abp_tui.stats.agreement_batch` goes through both as well."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement_coefficients import (
    PAIR_COEFFICIENTS,
    basis_text,
    pair_weightings,
)
from abp_tui.stats.agreement_data import (
    RatingTable,
    generator,
)
from abp_tui.stats.agreement_figures import (
    _PAIR_NOT_REQUESTED,
    _Base,
    _figure,
    _large_sample,
    check_settings,
)
from abp_tui.stats.agreement_kernels import (
    PairSums,
    Values,
    pair_sums,
)
from abp_tui.stats.agreement_models import (
    CONFIDENCE,
    DEFAULT_WEIGHT_BASIS,
    ConfusionMatrix,
    Figure,
    LargeSample,
    PairAgreement,
)
from abp_tui.stats.agreement_scales import (
    LEVELS,
    WEIGHTINGS,
    AgreementError,
    Category,
    WeightBasis,
    basis_weights,
    category_label,
    weight_matrix,
)

F64 = npt.NDArray[np.float64]

CONFUSION_ROWS: Final = "A (rows)"
CONFUSION_COLUMNS: Final = "B (columns)"
PAIR_WHAT: Final = "items judged by both"
UNWEIGHTED: Final = "(unweighted: every disagreement counts in full)"

PairValues = dict[str, tuple[Values | None, str | None]]
"""Each declared pair coefficient's key -> its kernel's values (None: not computed) and why its
figure is undefined (None: defined, as far as the reasons before its value go)."""


def declared_pair_weights(
    level: str, categories: tuple[Category, ...], weight_basis: WeightBasis
) -> dict[str, F64] | None:
    """The pairs' weights on the declared scale, one set per weighting the declared pair
    coefficients use at ``level`` (None: the observed basis, built on each pair's own ranks)."""
    if weight_basis != "declared":
        return None
    return {kind: weight_matrix(kind, categories) for kind in pair_weightings(level)}


def _pair(
    table: RatingTable,
    a: int,
    b: int,
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
        table.level,
        declared_weights,
        weight_basis,
        (table.variable, table.reviewers[a], table.reviewers[b]),
        seed,
        resamples,
        confidence,
    )


def pair_base(n: int, seed: int, resamples: int, confidence: float) -> _Base:
    """The denominators and bootstrap settings of a pair's figures."""
    return _Base(
        n, 2, 2 * n, resamples, seed, confidence, PAIR_WHAT, not_requested=_PAIR_NOT_REQUESTED
    )


def pair_reasons(n: int, categories: tuple[Category, ...]) -> tuple[str | None, str | None]:
    """Why every pair figure is undefined (too few items judged by both), and why every
    chance-corrected one is (also a scale of one category)."""
    reason: str | None = None
    if n == 0:
        reason = "no item was judged by both reviewers"
    elif n < 2:
        reason = "fewer than 2 items were judged by both reviewers (1)"
    chance = reason
    if chance is None and len(categories) < 2:
        chance = f"the scale has a single category ({category_label(categories[0])})"
    return reason, chance


def make_pair_sums(
    freq: F64,
    occupied: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    categories: tuple[Category, ...],
    level: str,
    declared_weights: Mapping[str, F64] | None,
    weight_basis: WeightBasis,
    resamples: int,
    shared: Mapping[str, F64] | None = None,
) -> PairSums:
    """A pair's sums from its occupied cells' counts (row 0 the data, then each resample):
    the weights of each weighting the declared coefficients use at ``level`` (on the declared
    scale, or on the ranks of the categories the pair used), and :func:`pair_sums` (unless
    ``shared`` holds them already)."""
    q = len(categories)
    n = int(counts.sum())
    used = sorted(set((occupied // q).tolist()) | set((occupied % q).tolist()))
    observed = np.zeros(q, dtype=bool)
    observed[used] = True
    weight_sets: dict[str, F64] = {}
    weights_reason: dict[str, str] = {}
    for kind in pair_weightings(level):
        if declared_weights is not None:
            w: F64 | None = declared_weights[kind]
        elif kind == "identity":  # no partial credit: nothing to build on
            w = np.eye(q)
        else:
            w = basis_weights(kind, categories, weight_basis, observed)
        if w is None:
            weights_reason[kind] = (
                f"only one category was used ({category_label(categories[used[0]])}); "
                "weights on the observed ranks need two"
            )
            continue
        weight_sets[kind] = w
    missing = {k: w for k, w in weight_sets.items() if shared is None or f"po_{k}" not in shared}
    found = dict(shared or {})
    if missing:
        found.update(pair_sums(freq, occupied, q, n, missing))
    return PairSums(
        freq=freq,
        occupied=occupied,
        q=q,
        n=n,
        weight_sets=weight_sets,
        weights_reason=weights_reason,
        shared=found,
        resamples=resamples,
        counts=counts,
        used=tuple(used),
        used_labels=", ".join(category_label(categories[i]) for i in used),
    )


def pair_values(
    sums: PairSums | None, level: str, reason: str | None, chance_reason: str | None
) -> PairValues:
    """Each declared pair coefficient's values from its kernel, or why its figure is
    undefined: too few items (``reason``), a single category (``chance_reason``, for a
    chance-corrected one), the level (an ordered one on a nominal scale), or its kernel's own
    reason."""
    out: PairValues = {}
    for c in PAIR_COEFFICIENTS:
        why = chance_reason if c.chance_corrected else reason
        if why is None and not c.applies(level):
            why = f"nominal variable: {c.nominal_reason}"
        if why is not None or sums is None:
            out[c.key] = (None, why)
            continue
        assert c.pair_kernel is not None, f"{c.key} is declared without a pair kernel"
        values = c.pair_kernel(sums, c.weights)
        out[c.key] = (values, values.reason)
    return out


def _first(rows: F64 | None) -> float | None:
    return float(rows[0]) if rows is not None else None


@lru_cache(maxsize=64)
def _definition(formula: str, level: str, weights: str | None, basis: str) -> str:
    return formula.format(level=level, weights=weights, basis=basis)


def pair_figures(
    values: PairValues,
    sums: PairSums | None,
    base: _Base,
    level: str,
    weight_basis: WeightBasis,
    bounds: Mapping[str, tuple[float, float, int]] | None = None,
) -> dict[str, Figure]:
    """Each declared pair coefficient's figure from its values (:func:`pair_values`), a kappa
    with its large-sample standard error; ``bounds`` holds the percentile bounds of each
    coefficient's resamples when they were read already (the batch)."""
    out: dict[str, Figure] = {}
    for c in PAIR_COEFFICIENTS:
        found, why = values[c.key]
        kind = c.weights
        weighted = kind in WEIGHTINGS
        basis = UNWEIGHTED if kind == "identity" else basis_text(weight_basis)
        defined = why is None and found is not None and found.rows is not None
        point = math.nan
        samples: F64 | None = None
        large: tuple[LargeSample | None, str | None] = (None, None)
        if defined and found is not None and found.rows is not None and sums is not None:
            point = float(found.rows[0])
            samples = found.rows[1:] if sums.resamples else None
            if c.large_sample and math.isfinite(point):
                w = sums.weight_sets[kind or "identity"]
                sub = np.ix_(sums.used, sums.used)
                cells = sums.counts[sub].astype(np.float64)
                large = _large_sample(cells, w[sub], base.confidence)
        out[c.key] = _figure(
            base,
            c,
            point,
            samples,
            why,
            name=c.name.format(label=c.label, level=level, weights=kind),
            definition=_definition(c.formula, level, kind, basis),
            weights=kind,
            weight_basis=weight_basis if weighted else None,
            pa=_first(found.observed) if defined and found is not None else None,
            pe=_first(found.chance) if defined and found is not None else None,
            boot_note=found.boot_note if defined and found is not None else None,
            large_sample=large,
            bounds=bounds.get(c.key) if bounds is not None else None,
        )
    return out


def pair_agreement(
    square: npt.NDArray[np.int64],
    categories: tuple[Category, ...],
    names: tuple[str, str],
    figures: Mapping[str, Figure],
) -> PairAgreement:
    """The document of a pair: its figures under their keys and its confusion matrix."""
    return PairAgreement(
        reviewer_a=names[0],
        reviewer_b=names[1],
        n_items=int(square.sum()),
        confusion=ConfusionMatrix(
            rows=names[0],
            columns=names[1],
            categories=categories,
            counts=tuple(map(tuple, square.tolist())),
        ),
        **figures,
    )


def _pair_counts(
    square: npt.NDArray[np.int64],
    cats: tuple[Category, ...],
    names: tuple[str, str],
    level: str,
    declared_weights: Mapping[str, F64] | None,
    weight_basis: WeightBasis,
    stream: tuple[str, ...],
    seed: int,
    resamples: int,
    confidence: float,
) -> PairAgreement:
    """Every declared pair figure and the confusion matrix of a pair, from its q x q counts.
    ``declared_weights`` holds the variable's weights on its declared scale; with the observed
    basis each pair's weights are built on the categories the pair used. ``stream`` names the
    pair's own bootstrap generator (with ``seed``:
    :func:`~abp_tui.stats.agreement_data.generator`)."""
    q = len(cats)
    cells = square.reshape(q * q)
    n = int(cells.sum())
    reason, chance_reason = pair_reasons(n, cats)
    base = pair_base(n, seed, resamples, confidence)
    sums: PairSums | None = None
    if reason is None:
        # Only the occupied cells can be drawn: resampling the shared items is a multinomial
        # draw of the confusion matrix's cells.
        nz = np.flatnonzero(cells)
        freq = cells[nz].astype(np.float64)[None, :]
        if resamples:
            rng = generator(seed, *stream)
            draws = rng.multinomial(n, cells[nz] / n, size=resamples)
            freq = np.vstack([freq, draws])
        sums = make_pair_sums(
            freq, nz, square, cats, level, declared_weights, weight_basis, resamples
        )
    values = pair_values(sums, level, reason, chance_reason)
    figures = pair_figures(values, sums, base, level, weight_basis)
    return pair_agreement(square, cats, names, figures)


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
    """Every declared pair figure (percent agreement, Cohen's kappa; with a bootstrap interval
    when ``resamples``) of two raters from their q x q confusion matrix, computed from the cell
    counts alone: the figures :func:`compute_variable` gives the pair ``reviewers`` of variable
    ``variable`` (and the same bootstrap draws) on the items the matrix counts, when
    ``reviewers`` are in sorted order as it lists them. One implementation: every reviewer
    pair goes through here too.

    ``counts[k][l]``: items the first reviewer put in category k and the second in l, the
    categories in ``categories``' order (a declared scale: unobserved ones count). For callers
    that already hold the counts (the AI judge report's thousands of verdicts): nothing is
    unrolled into items. Raises AgreementError for a matrix that does not match its categories
    or holds a negative count.
    """
    check_settings(seed, resamples, 0, confidence, weight_basis)
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
    cats = tuple(categories)
    return _pair_counts(
        square.astype(np.int64),
        cats,
        reviewers,
        level,
        declared_pair_weights(level, cats, weight_basis),
        weight_basis,
        (variable, *reviewers),
        seed,
        resamples,
        confidence,
    )
