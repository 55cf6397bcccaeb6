"""The arithmetic of the agreement coefficients, vectorised over bootstrap resamples.

Every function takes arrays and returns arrays (or plain floats): no figures, no models, no
reasons. :mod:`abp_tui.stats.agreement` turns the results into figures. The multi-reviewer
kernels depend on an item only through its vector of category counts (its "pattern"), so each
row of ``weights`` (resamples x patterns) says how many items of each pattern a resample holds
and one matrix product evaluates every resample; row 0 is the data themselves.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

__all__ = [
    "MIN_USABLE_SHARE",
    "Kernel",
    "PairKernel",
    "PairSums",
    "Sums",
    "Values",
    "alpha_kernel",
    "chance_corrected",
    "kappa_standard_errors",
    "multi_kernel",
    "ordinal_fits",
    "pair_sums",
    "percentile_bounds",
]

F64 = npt.NDArray[np.float64]

EPS: Final = 1e-12
DENSE_LIMIT: Final = 4_000_000
"""Largest array (elements) built per call for a dense formulation; larger inputs use another."""

MIN_USABLE_SHARE: Final = 0.95
"""A bootstrap interval needs the figure defined in at least this share of the resamples.

The percentile interval is read from the usable resamples alone, which makes it conditional on
the figure being defined. With a share d of resamples dropped, the interval's coverage of the
unconditional distribution lies between c(1 - d) and c(1 - d) + d at nominal level c (90.25% to
95.25% for a 95% interval at d = 5%): at most d away from what it claims. Beyond 5% the interval
is refused rather than reported as if the dropped resamples did not exist.
"""


def multi_kernel(
    patterns: F64,
    weights: F64,
    q: int,
    level: str,
    coords: F64,
    weight_sets: Mapping[str, tuple[F64, int]],
) -> dict[str, F64]:
    """Every multi-reviewer figure for each row of ``weights`` (resamples x patterns).

    ``weight_sets`` maps a weighting's name to its q x q weights and the number of categories
    they span (the scale's q, or the observed categories' m): for each, the weighted P_o, AC2
    (Gwet 2014) and the weighted generalised Fleiss kappa (irrCAC ``fleiss.kappa.raw``).
    Values undefined in a resample come out as NaN; callers keep finite ones.
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
        n2_safe = np.where(ok, n2, 1.0)
        pa = np.where(ok, (weights @ agree) / n2_safe, np.nan)
        share = p / np.where(m > 0, m, 1.0)[:, None]
        pi = (weights @ share) / np.where(n1 > 0, n1, 1.0)[:, None]
        out["pa"] = pa
        pe_f = (pi**2).sum(axis=1)
        out["fleiss_pe"] = pe_f
        out["fleiss"] = chance_corrected(pa, pe_f)
        spread = (pi * (1 - pi)).sum(axis=1)
        if q >= 2:
            pe_1 = spread / (q - 1)
            out["ac1_pe"] = pe_1
            out["ac1"] = chance_corrected(pa, pe_1)
        for kind, (w, span) in weight_sets.items():
            # n*_ik = sum_l w_kl n_il: each judgment's partial credit with the item's others.
            starred = p @ w.T
            agree_w = np.where(two, (p * (starred - 1)).sum(axis=1) / denom, 0.0)
            pa_w = np.where(ok, (weights @ agree_w) / n2_safe, np.nan)
            out[f"pa_{kind}"] = pa_w
            if span >= 2:
                pe_2 = w.sum() * spread / (span * (span - 1))
                out[f"ac2_pe_{kind}"] = pe_2
                out[f"ac2_{kind}"] = chance_corrected(pa_w, pe_2)
            pe_w = ((pi @ w) * pi).sum(axis=1)
            out[f"fleiss_pe_{kind}"] = pe_w
            out[f"fleiss_{kind}"] = chance_corrected(pa_w, pe_w)
        out["alpha"] = alpha_kernel(p, m, two, weights, level, coords)
    return out


@dataclass(frozen=True)
class Sums:
    """What a multi-reviewer coefficient's kernel reads for one variable.

    Row 0 of ``weights`` (and of every array a kernel returns) is the data, the other rows the
    bootstrap resamples (``resamples`` of them; none when the figures are not resampled).
    """

    patterns: F64
    """The distinct count vectors of the items (patterns x categories)."""
    weights: F64
    """How many items of each pattern each row holds (rows x patterns)."""
    q: int
    """Categories of the scale."""
    level: str
    coords: F64
    """Numeric values of the categories (positions 1..q for labels)."""
    weight_sets: Mapping[str, tuple[F64, int]]
    """Weighting -> its q x q weights and the categories they span (:func:`multi_kernel`)."""
    shared: Mapping[str, F64]
    """:func:`multi_kernel`'s sums, computed once for every declared coefficient."""
    resamples: int
    judgments_per_item: tuple[int, int]
    """The fewest and the most judgments of an item."""
    no_variation: str | None
    """"no variation: every judgment is ..." when one category alone was used, else None."""

    def row(self, key: str) -> F64 | None:
        """One of :attr:`shared`'s arrays (None: not computed for these data)."""
        return self.shared.get(key)

    def point(self, key: str) -> float:
        found = self.shared.get(key)
        return float(found[0]) if found is not None else math.nan


@dataclass(frozen=True)
class Values:
    """What a kernel gives: the coefficient for each row, and what its figure carries."""

    rows: F64 | None
    """Row 0 the value, the others the resamples (NaN where undefined); None: not computed."""
    observed: F64 | None = None
    """P_o (row 0 is reported), for a coefficient with a chance term."""
    chance: F64 | None = None
    """P_e (row 0 is reported)."""
    reason: str | None = None
    """Why the figure is undefined for these data, beyond what makes every figure undefined."""
    boot_note: str | None = None
    """Why its resamples were not computed, when they were not."""


Kernel = Callable[[Sums, str | None], Values]
"""A coefficient's kernel: its values from a variable's sums, under a weighting (None:
unweighted)."""


def _chance_is_one(sums: Sums, key: str) -> str | None:
    if sums.point(key) >= 1 - EPS:
        return sums.no_variation or "chance agreement is 1"
    return None


def percent_agreement_kernel(sums: Sums, _weights: str | None) -> Values:
    return Values(sums.row("pa"))


def fleiss_generalized_kernel(sums: Sums, _weights: str | None) -> Values:
    return Values(
        sums.row("fleiss"),
        sums.row("pa"),
        sums.row("fleiss_pe"),
        _chance_is_one(sums, "fleiss_pe"),
    )


def fleiss_kernel(sums: Sums, weights: str | None) -> Values:
    """Fleiss' kappa: the generalized one, defined only when every item has the same number of
    judgments."""
    found = fleiss_generalized_kernel(sums, weights)
    low, high = sums.judgments_per_item
    if low != high:
        return Values(
            found.rows,
            found.observed,
            found.chance,
            f"reviewers per item differ ({low} to {high}); see Fleiss' kappa generalized",
        )
    return found


def fleiss_weighted_kernel(sums: Sums, weights: str | None) -> Values:
    return Values(
        sums.row(f"fleiss_{weights}"),
        sums.row(f"pa_{weights}"),
        sums.row(f"fleiss_pe_{weights}"),
        _chance_is_one(sums, f"fleiss_pe_{weights}"),
    )


def alpha_values_kernel(sums: Sums, _weights: str | None) -> Values:
    reason = None
    if not math.isfinite(sums.point("alpha")):
        reason = sums.no_variation or "no variation among the pairable judgments"
    note = None
    patterns = int(sums.patterns.shape[0])
    if (
        sums.resamples
        and sums.level == "ordinal"
        and not ordinal_fits(patterns, sums.q, sums.resamples + 1)
    ):
        note = (
            f"bootstrap not computed for ordinal alpha with {sums.q} categories (too large "
            "to vectorise)"
        )
    return Values(sums.row("alpha"), reason=reason, boot_note=note)


def ac1_kernel(sums: Sums, _weights: str | None) -> Values:
    return Values(sums.row("ac1"), sums.row("pa"), sums.row("ac1_pe"))


def ac2_kernel(sums: Sums, weights: str | None) -> Values:
    return Values(
        sums.row(f"ac2_{weights}"), sums.row(f"pa_{weights}"), sums.row(f"ac2_pe_{weights}")
    )


# -- a pair of reviewers ---------------------------------------------------------------------
@dataclass(frozen=True)
class PairSums:
    """What a reviewer-pair coefficient's kernel reads: the pair's confusion matrix.

    A pair's figures depend on nothing else, so its resamples are draws of the occupied cells:
    row 0 of ``freq`` (and of every array a kernel returns) is the data, the other rows the
    bootstrap resamples (``resamples`` of them).
    """

    freq: F64
    """How many items each occupied cell holds in each row (rows x occupied cells)."""
    occupied: npt.NDArray[np.int64]
    """The occupied cells, as flat indices k * q + l (row category k, column category l)."""
    q: int
    """Categories of the scale."""
    n: int
    """Items judged by both reviewers."""
    weight_sets: Mapping[str, F64]
    """Weighting -> its q x q weights, for each weighting a declared coefficient applying at
    the variable's level uses (identity always)."""
    weights_reason: Mapping[str, str]
    """Weighting -> why it has no weights for this pair (weights on the observed ranks of a
    pair that used one category)."""
    shared: Mapping[str, F64]
    """:func:`pair_sums`' arrays, computed once for every declared coefficient."""
    resamples: int
    counts: npt.NDArray[np.int64]
    """The data's q x q table of counts."""
    used: tuple[int, ...]
    """The categories the pair used (their positions on the scale)."""
    used_labels: str
    """The categories the pair used, as their labels list them."""

    def row(self, key: str) -> F64 | None:
        """One of :attr:`shared`'s arrays (None: not computed for this pair)."""
        return self.shared.get(key)

    def cells(self) -> F64:
        """Every row's full q x q table of counts (rows x q x q)."""
        full = np.zeros((self.freq.shape[0], self.q * self.q))
        full[:, self.occupied] = self.freq
        return full.reshape(-1, self.q, self.q)


PairKernel = Callable[[PairSums, str | None], Values]
"""A reviewer-pair coefficient's kernel: its values from the pair's sums, under a weighting."""


def pair_sums(
    freq: F64, occupied: npt.NDArray[np.int64], q: int, n: int, weight_sets: Mapping[str, F64]
) -> dict[str, F64]:
    """For each weighting of ``weight_sets`` and each row of ``freq``: the observed agreement
    p_o = sum_kl w_kl p_kl (``po_<weighting>``), the chance agreement p_e = sum_kl w_kl p_k.
    p_.l (``pe_<weighting>``) and Cohen's kappa (``kappa_<weighting>``)."""
    rows_k, cols_k = occupied // q, occupied % q
    eye = np.eye(q)
    row_m = freq @ eye[rows_k] / n
    col_m = freq @ eye[cols_k] / n
    out: dict[str, F64] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for kind, w in weight_sets.items():
            po = freq @ w[rows_k, cols_k] / n
            pe = ((row_m @ w) * col_m).sum(axis=1)
            out[f"po_{kind}"] = po
            out[f"pe_{kind}"] = pe
            out[f"kappa_{kind}"] = chance_corrected(po, pe)
    return out


def pair_percent_agreement_kernel(sums: PairSums, _weights: str | None) -> Values:
    return Values(sums.row("po_identity"))


def cohen_kernel(sums: PairSums, weights: str | None) -> Values:
    """Cohen's kappa under ``weights`` (unweighted: identity)."""
    kind = weights or "identity"
    if kind in sums.weights_reason:
        return Values(None, reason=sums.weights_reason[kind])
    kappa = sums.row(f"kappa_{kind}")
    reason = None
    if kappa is not None and not math.isfinite(float(kappa[0])):
        used = sums.used_labels
        reason = f"no variation: chance agreement is 1 (both reviewers used only {used})"
    return Values(kappa, sums.row(f"po_{kind}"), sums.row(f"pe_{kind}"), reason)


def kappa_standard_errors(cells: F64, w: F64) -> tuple[float, float, float, float, float]:
    """Weighted kappa of a q x q table of counts and its large-sample standard errors.

    Returns (kappa, p_o, p_e, SE under the alternative, SE under kappa = 0), the SEs NaN when
    their variance is not positive. Fleiss, Cohen and Everitt (1969), as in Fleiss, Levin and
    Paik (2003, section 18.1) and SAS PROC FREQ: with p_ij the cell shares, p_i. and p_.j the
    margins, wbar_i. = sum_j p_.j w_ij and wbar_.j = sum_i p_i. w_ij,
    Var = [sum_ij p_ij (w_ij - (wbar_i. + wbar_.j)(1 - kappa))^2 - (kappa - p_e(1 - kappa))^2]
    / (n (1 - p_e)^2) and Var_0 = [sum_ij p_i. p_.j (w_ij - (wbar_i. + wbar_.j))^2 - p_e^2]
    / (n (1 - p_e)^2). Identity weights give the unweighted kappa's formulas.
    """
    n = float(cells.sum())
    p = cells / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    po = float((w * p).sum())
    expected = np.outer(rows, cols)
    pe = float((w * expected).sum())
    gap = 1 - pe
    if gap <= EPS:
        return math.nan, po, pe, math.nan, math.nan
    kappa = (po - pe) / gap
    wbar = (w @ cols)[:, None] + (rows @ w)[None, :]
    var = (float((p * (w - wbar * (1 - kappa)) ** 2).sum()) - (kappa - pe * (1 - kappa)) ** 2) / (
        n * gap**2
    )
    var0 = (float((expected * (w - wbar) ** 2).sum()) - pe**2) / (n * gap**2)
    # Rounding can leave a true zero a hair below it: perfect agreement has variance 0.
    scale = EPS / max(n, 1.0)
    se = math.sqrt(var) if var > scale else (0.0 if var > -scale else math.nan)
    se0 = math.sqrt(var0) if var0 > scale else math.nan
    return kappa, po, pe, se, se0


def percentile_bounds(samples: F64, confidence: float) -> tuple[float, float, int]:
    """(low, high, usable) of the two-sided percentile interval over the finite samples, with
    numpy's default linear interpolation; low and high are NaN when none is finite."""
    finite = np.sort(samples[np.isfinite(samples)])
    n = int(finite.size)
    if n == 0:
        return math.nan, math.nan, 0
    tail = (1 - confidence) / 2
    bounds = []
    for quantile in (tail, 1 - tail):
        pos = quantile * (n - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, n - 1)
        bounds.append(float(finite[lo] + (pos - lo) * (finite[hi] - finite[lo])))
    return bounds[0], bounds[1], n


def chance_corrected(pa: F64, pe: F64) -> F64:
    gap = 1 - pe
    return np.where(gap > EPS, (pa - pe) / np.where(gap > EPS, gap, 1.0), np.nan)


def alpha_kernel(
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
        if not ordinal_fits(p.shape[0], v, weights.shape[0]):
            return _alpha_ordinal_rows(p, inv, weights, nv)
        coinc = (p[:, :, None] * p[:, None, :] - p[:, :, None] * np.eye(v)) * inv[:, None, None]
        o = (weights @ coinc.reshape(-1, v * v)).reshape(-1, v, v)
        d = _ordinal_distance(nv)
        do = (o * d).sum(axis=(1, 2))
        de_num = np.einsum("bi,bij,bj->b", nv, d, nv)
    else:
        # d is fixed and its diagonal zero, so an item's share of sum o_ck d_ck is
        # (n_i. d n_i.^T) / (n_i - 1).
        dist = alpha_distance(level, coords)
        do = weights @ (((p @ dist) * p).sum(axis=1) * inv)
        de_num = ((nv @ dist) * nv).sum(axis=1)
    de = de_num / np.where(n > 1, n - 1, 1.0)
    ok = (n > 1) & (de > EPS * np.maximum(1.0, np.abs(do)))
    return np.where(ok, 1 - do / np.where(ok, de, 1.0), np.nan)


def ordinal_fits(patterns: int, categories: int, rows: int) -> bool:
    """Whether ordinal alpha can be vectorised over resamples within the memory bound."""
    square = categories * categories
    return patterns * square <= DENSE_LIMIT and rows * square <= 4 * DENSE_LIMIT


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
    if de > EPS:
        out[0] = 1 - float((o * d).sum()) / de
    return out


def alpha_distance(level: str, coords: F64) -> F64:
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
