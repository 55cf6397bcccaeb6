"""Agreement of two reviewers from their confusion matrix: percent agreement and Cohen's kappa
(each weighting, with its large-sample standard error and bootstrap), for a variable's reviewer
pairs and for a confusion matrix or counts given as such."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement_coefficients import (
    _COHEN_BY_WEIGHTS,
    PAIR_PERCENT_AGREEMENT,
    basis_text,
)
from abp_tui.stats.agreement_data import (
    RatingTable,
    generator,
)
from abp_tui.stats.agreement_figures import (
    _PAIR_NOT_REQUESTED,
    _Base,
    _check_settings,
    _figure,
    _large_sample,
)
from abp_tui.stats.agreement_kernels import (
    chance_corrected,
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
