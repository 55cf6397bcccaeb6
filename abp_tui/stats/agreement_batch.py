"""Cohen's kappa of many confusion matrices at once: the AI judge report's dozens of tables.

:func:`pairs_from_counts` gives, for each table, exactly what
:func:`abp_tui.stats.agreement.pair_from_counts` gives it (nominal level, declared scale): the
same figures, the same bootstrap draws from the same per-pair generator, the same models. The
draws stay one multinomial call per table (its own seeded stream, so a table's interval does
not depend on which other tables share the batch); what is shared is the arithmetic after
them: the margins, percent agreement and kappa of every table and resample in a few array
operations, every resampled kappa and percent agreement sorted in one call and their
percentile bounds read at once. Tables outside the common case (fewer than two items, a
single category or eight and more, chance agreement of 1) go through ``pair_from_counts``
itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement_coefficients import (
    _COHEN_BY_WEIGHTS,
    PAIR_PERCENT_AGREEMENT,
    basis_text,
)
from abp_tui.stats.agreement_data import generator
from abp_tui.stats.agreement_figures import (
    _PAIR_NOT_REQUESTED,
    _check_settings,
    _large_sample,
    bootstrap_interval,
)
from abp_tui.stats.agreement_kernels import chance_corrected
from abp_tui.stats.agreement_models import ConfusionMatrix, Figure, Interval, PairAgreement
from abp_tui.stats.agreement_pairs import pair_from_counts
from abp_tui.stats.agreement_scales import Category, weight_matrix

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
WHAT: Final = "items judged by both"
UNWEIGHTED: Final = "(unweighted: every disagreement counts in full)"
NOMINAL: Final = "nominal variable: weighted kappa needs ordered categories"


@dataclass(frozen=True)
class CountTable:
    """One pair's q x q confusion matrix and how its figures are named."""

    counts: I64
    categories: tuple[Category, ...]
    reviewers: tuple[str, str]
    variable: str


@dataclass
class _Drawn:
    """A common-case table after its draws: row 0 the data, rows 1.. the resamples."""

    index: int
    table: CountTable
    n: int
    po: F64
    pe: F64
    kappa: F64


@dataclass
class _Cells:
    """A table's counts and its resampled counts (rows: the data, then each resample)."""

    index: int
    table: CountTable
    n: int
    q: int
    cells: I64
    """Resamples + 1 rows of the q x q cells, flattened."""


@lru_cache(maxsize=64)
def _identity_is_eye(categories: tuple[Category, ...]) -> bool:
    """The scale's identity weights are the identity matrix (what the arithmetic below uses)."""
    return bool(np.array_equal(weight_matrix("identity", categories), np.eye(len(categories))))


@lru_cache(maxsize=8)
def _definition(kind: str) -> str:
    basis = UNWEIGHTED if kind == "identity" else basis_text("declared")
    return _COHEN_BY_WEIGHTS[kind].formula.format(weights=kind, basis=basis)


def _resample(index: int, t: CountTable, seed: int, resamples: int) -> _Cells | None:
    """The table's cells and their resamples, drawn as ``pair_from_counts`` draws them (the
    occupied cells, from the pair's own generator); None outside the common case."""
    square = np.asarray(t.counts)
    q = len(t.categories)
    if not 2 <= q < 8 or square.shape != (q, q) or square.dtype.kind not in "iu":
        return None
    if not _identity_is_eye(t.categories):
        return None
    flat = square.astype(np.int64).reshape(q * q)
    n = int(flat.sum())
    if n < 2 or int(flat.min()) < 0:
        return None
    cells = np.zeros((resamples + 1, q * q), dtype=np.int64)
    cells[0] = flat
    if resamples:
        nz = np.flatnonzero(flat)
        rng = generator(seed, t.variable, *t.reviewers)
        cells[1:, nz] = rng.multinomial(n, flat[nz] / n, size=resamples)
    return _Cells(index, t, n, q, cells)


def _total(parts: Iterable[I64]) -> I64:
    """The sum of whole-number arrays (exact)."""
    found = iter(parts)
    total = next(found).copy()
    for part in found:
        total += part
    return total


def _kappas(found: list[_Cells], resamples: int) -> list[_Drawn]:
    """Percent agreement, chance agreement and kappa of every table and resample at once.

    ``pair_from_counts`` gets its margins and diagonal by matrix products of the counts with
    0/1 matrices: sums of whole numbers, exact in any order, so these integer sums give the
    same floats; the chance term adds the q products of margins in category order, as its
    sum over q < 8 values does."""
    out: list[_Drawn] = []
    for q in sorted({c.q for c in found}):
        group = [c for c in found if c.q == q]
        cells = np.stack([c.cells for c in group]).reshape(len(group), resamples + 1, q, q)
        n = np.array([float(c.n) for c in group])[:, None]
        rows = [_total(cells[:, :, k, m] for m in range(q)) / n for k in range(q)]
        cols = [_total(cells[:, :, m, k] for m in range(q)) / n for k in range(q)]
        po = _total(cells[:, :, k, k] for k in range(q)) / n
        pe = rows[0] * cols[0]
        for k in range(1, q):
            pe = pe + rows[k] * cols[k]
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = chance_corrected(po, pe)
        out.extend(
            _Drawn(c.index, c.table, c.n, po[j], pe[j], kappa[j]) for j, c in enumerate(group)
        )
    return out


def _bounds(samples: F64, confidence: float) -> tuple[F64, F64, I64]:
    """Per row of ``samples`` (tables x resamples): the percentile bounds of its finite values
    and how many there are, as :func:`~abp_tui.stats.agreement_kernels.percentile_bounds`
    reads them (numpy's linear interpolation), for every row in one sort."""
    finite = np.isfinite(samples)
    used = finite.sum(axis=1)
    # Non-finite values sort last (as +inf), so each row's first `used` entries are its finite
    # values in order.
    ordered = np.sort(np.where(finite, samples, np.inf), axis=1)
    tail = (1 - confidence) / 2
    rows = np.arange(samples.shape[0])
    out = []
    for quantile in (tail, 1 - tail):
        pos = quantile * (used - 1)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, used - 1)
        safe_lo, safe_hi = np.maximum(lo, 0), np.maximum(hi, 0)
        a, b = ordered[rows, safe_lo], ordered[rows, safe_hi]
        with np.errstate(invalid="ignore"):
            out.append(np.where(used > 0, a + (pos - lo) * (b - a), np.nan))
    return out[0], out[1], used


Bounds = tuple[tuple[float, float, int], tuple[float, float, int]]


def _model(
    d: _Drawn, bounds: Bounds | None, seed: int, resamples: int, confidence: float
) -> PairAgreement:
    """The table's PairAgreement with the fields ``pair_from_counts`` gives it (the tests hold
    each model equal to ``pair_from_counts``'s, field for field)."""
    t = d.table
    q = len(t.categories)
    square = np.asarray(t.counts).astype(np.int64).reshape(q, q)
    common: dict[str, Any] = {
        "n_items": d.n,
        "n_items_chance": None,
        "n_reviewers": 2,
        "n_judgments": 2 * d.n,
    }
    notes: list[tuple[Interval | None, str | None]] = [
        bootstrap_interval(low, high, used, resamples, seed, WHAT, confidence)
        for low, high, used in bounds or ()
    ]
    if not notes:
        notes = [(None, _PAIR_NOT_REQUESTED)] * 2
    percent = PAIR_PERCENT_AGREEMENT
    po, pe = float(d.po[0]), float(d.pe[0])
    nz = np.flatnonzero(square.reshape(q * q))
    used_cats = sorted(set((nz // q).tolist()) | set((nz % q).tolist()))
    sub = np.ix_(used_cats, used_cats)
    large, large_note = _large_sample(square[sub].astype(np.float64), np.eye(q)[sub], confidence)
    identity = _COHEN_BY_WEIGHTS["identity"]

    def weighted(kind: str) -> Figure:
        coefficient = _COHEN_BY_WEIGHTS[kind]
        return Figure(
            undefined_reason=NOMINAL,
            name=coefficient.label,
            definition=_definition(kind),
            source=coefficient.source,
            weights=kind,
            weight_basis="declared",
            **common,
        )

    return PairAgreement(
        reviewer_a=t.reviewers[0],
        reviewer_b=t.reviewers[1],
        n_items=d.n,
        percent_agreement=Figure(
            value=po,
            interval=notes[1][0],
            interval_note=notes[1][1],
            large_sample=None,
            large_sample_note=None,
            observed_agreement=None,
            chance_agreement=None,
            name=percent.label,
            definition=percent.formula,
            source=percent.source,
            weights=None,
            weight_basis=None,
            **common,
        ),
        cohen_kappa=Figure(
            value=float(d.kappa[0]),
            interval=notes[0][0],
            interval_note=notes[0][1],
            large_sample=large,
            large_sample_note=large_note,
            observed_agreement=po if math.isfinite(po) else None,
            chance_agreement=pe if math.isfinite(pe) else None,
            name=identity.label,
            definition=_definition("identity"),
            source=identity.source,
            weights="identity",
            weight_basis=None,
            **common,
        ),
        cohen_kappa_linear=weighted("linear"),
        cohen_kappa_quadratic=weighted("quadratic"),
        confusion=ConfusionMatrix(
            rows=t.reviewers[0],
            columns=t.reviewers[1],
            categories=t.categories,
            counts=tuple(map(tuple, square.tolist())),
        ),
    )


def pairs_from_counts(
    tables: Sequence[CountTable],
    *,
    seed: int = 0,
    resamples: int = 0,
    confidence: float = 0.95,
) -> list[PairAgreement]:
    """Each table's :func:`~abp_tui.stats.agreement.pair_from_counts` (nominal, declared scale,
    ``seed``, ``resamples``, ``confidence``), in order (see the module notes)."""
    _check_settings(seed, resamples, 0, confidence, "declared")
    out: list[PairAgreement | None] = [None] * len(tables)
    found: list[_Cells] = []
    for i, t in enumerate(tables):
        c = _resample(i, t, seed, resamples)
        if c is not None:
            found.append(c)
    drawn = [d for d in (_kappas(found, resamples) if found else []) if np.isfinite(d.kappa[0])]
    fast = {d.index for d in drawn}
    for i, t in enumerate(tables):
        if i not in fast:
            out[i] = pair_from_counts(
                t.counts,
                t.categories,
                t.reviewers,
                variable=t.variable,
                seed=seed,
                resamples=resamples,
                confidence=confidence,
            )
    if drawn:
        bounds: list[Bounds | None]
        if resamples:
            samples = np.concatenate(
                [np.stack([d.kappa[1:] for d in drawn]), np.stack([d.po[1:] for d in drawn])]
            )
            low, high, used = _bounds(samples, confidence)
            k = len(drawn)
            bounds = [
                (
                    (float(low[j]), float(high[j]), int(used[j])),
                    (float(low[k + j]), float(high[k + j]), int(used[k + j])),
                )
                for j in range(k)
            ]
        else:
            bounds = [None] * len(drawn)
        for d, b in zip(drawn, bounds, strict=True):
            out[d.index] = _model(d, b, seed, resamples, confidence)
    return [pair for pair in out if pair is not None]


__all__ = ["CountTable", "pairs_from_counts"]
