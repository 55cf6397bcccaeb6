"""Cohen's kappa of many confusion matrices at once: the AI judge report's dozens of tables.

:func:`pairs_from_counts` gives, for each table, exactly what
:func:`abp_tui.stats.agreement.pair_from_counts` gives it (nominal level, declared scale): the
same figures, the same bootstrap draws from the same per-pair generator, the same models. The
draws stay one multinomial call per table (its own seeded stream, so a table's interval does
not depend on which other tables share the batch); what is shared is the arithmetic after
them: the margins, percent agreement and kappa of every table and resample in a few array
operations, every resampled kappa and percent agreement sorted in one call and their
percentile bounds read at once (every declared coefficient's resamples with them). Each
table's figures are then the declared pair coefficients'
(:func:`~abp_tui.stats.agreement_pairs.pair_values`, ``pair_figures``): a coefficient declared
later is computed here from its kernel, as for every reviewer pair. Tables outside the common
case (fewer than two items, a single category or eight and more, chance agreement of 1) go
through ``pair_from_counts`` itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement_data import generator
from abp_tui.stats.agreement_figures import check_settings
from abp_tui.stats.agreement_kernels import PairSums, chance_corrected
from abp_tui.stats.agreement_models import PairAgreement
from abp_tui.stats.agreement_pairs import (
    declared_pair_weights,
    make_pair_sums,
    pair_agreement,
    pair_base,
    pair_figures,
    pair_from_counts,
    pair_values,
)
from abp_tui.stats.agreement_scales import Category, weight_matrix

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


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
    cells: I64
    """Resamples + 1 rows of the q x q cells, flattened."""


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
            _Drawn(c.index, c.table, c.n, po[j], pe[j], kappa[j], c.cells)
            for j, c in enumerate(group)
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


def _sums(d: _Drawn, resamples: int) -> PairSums:
    """The table's sums as :func:`~abp_tui.stats.agreement_pairs.pair_from_counts` builds them
    (nominal, declared scale), with the observed and chance agreement and kappa computed
    above for every table at once."""
    t = d.table
    q = len(t.categories)
    nz = np.flatnonzero(d.cells[0])
    return make_pair_sums(
        d.cells[:, nz].astype(np.float64),
        nz,
        d.cells[0].reshape(q, q),
        t.categories,
        "nominal",
        declared_pair_weights("nominal", t.categories, "declared"),
        "declared",
        resamples,
        {"po_identity": d.po, "pe_identity": d.pe, "kappa_identity": d.kappa},
    )


def _models(
    drawn: list[_Drawn], seed: int, resamples: int, confidence: float
) -> list[PairAgreement]:
    """Each table's PairAgreement, every declared pair coefficient's figure from its kernel
    (the tests hold each model equal to ``pair_from_counts``'s, field for field), every
    resampled figure's percentile bounds read in one call."""
    sums = [_sums(d, resamples) for d in drawn]
    values = [pair_values(s, "nominal", None, None) for s in sums]
    bounds: list[dict[str, tuple[float, float, int]]] = [{} for _ in drawn]
    if resamples:
        resampled = [
            (j, key, found.rows[1:])
            for j, per_table in enumerate(values)
            for key, (found, why) in per_table.items()
            if why is None and found is not None and found.rows is not None
        ]
        if resampled:
            low, high, used = _bounds(np.stack([rows for _j, _k, rows in resampled]), confidence)
            for i, (j, key, _rows) in enumerate(resampled):
                bounds[j][key] = (float(low[i]), float(high[i]), int(used[i]))
    out = []
    for d, s, v, b in zip(drawn, sums, values, bounds, strict=True):
        base = pair_base(d.n, seed, resamples, confidence)
        figures = pair_figures(v, s, base, "nominal", "declared", b)
        out.append(pair_agreement(s.counts, d.table.categories, d.table.reviewers, figures))
    return out


def pairs_from_counts(
    tables: Sequence[CountTable],
    *,
    seed: int = 0,
    resamples: int = 0,
    confidence: float = 0.95,
) -> list[PairAgreement]:
    """Each table's :func:`~abp_tui.stats.agreement.pair_from_counts` (nominal, declared scale,
    ``seed``, ``resamples``, ``confidence``), in order (see the module notes)."""
    check_settings(seed, resamples, 0, confidence, "declared")
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
    for d, pair in zip(drawn, _models(drawn, seed, resamples, confidence), strict=True):
        out[d.index] = pair
    return [pair for pair in out if pair is not None]


__all__ = ["CountTable", "pairs_from_counts"]
