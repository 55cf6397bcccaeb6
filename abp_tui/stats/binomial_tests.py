"""Exact two-sided binomial tests of many counts at once.

:func:`two_sided_p_values` is ``scipy.stats.binomtest(k, n, p).pvalue`` (alternative
"two-sided") for arrays of k and n: the same rule (the outcomes no more likely than the one seen,
with SciPy's relative tolerance 1 + 1e-7) and the same binary search for the far tail, each step
one ``binom.pmf`` call on every test still searching. A report with a test per AI judge pays
for one search instead of one per judge. Pure.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt
from scipy.stats import binom

F64 = npt.NDArray[np.float64]
RELATIVE_TOLERANCE: Final = 1 + 1e-7
"""SciPy's ``binomtest``: outcomes within this factor of the observed one count as extreme."""


def _search(d: F64, lo: F64, hi: F64, n: F64, p: F64, descending: bool) -> F64:
    """Per test, the index i in [lo, hi] with a(i) <= d < a(i + 1), where a is the pmf (negated
    when ``descending``): SciPy's ``_binary_search_for_binom_tst`` run on every test at once."""
    sign = -1.0 if descending else 1.0
    lo, hi = lo.copy(), hi.copy()
    found = np.full(lo.shape, np.nan)
    active = lo < hi
    while active.any():
        mid = lo + np.floor((hi - lo) / 2)
        midval = sign * binom.pmf(np.where(active, mid, 0), n, p)
        below = active & (midval < d)
        above = active & (midval > d)
        equal = active & ~below & ~above
        found[equal] = mid[equal]
        lo = np.where(below, mid + 1, lo)
        hi = np.where(above, mid - 1, hi)
        active = active & ~equal & (lo < hi)
    rest = np.isnan(found)
    at_lo = sign * binom.pmf(lo, n, p)
    found[rest] = np.where(at_lo <= d, lo, lo - 1)[rest]
    return found


def two_sided_p_values(k: npt.ArrayLike, n: npt.ArrayLike, p: float = 0.5) -> F64:
    """Exact two-sided p-values of k successes in n trials against probability p (n >= 1)."""
    ks = np.asarray(k, dtype=np.float64)
    ns = np.asarray(n, dtype=np.float64)
    if ks.shape != ns.shape or ks.ndim != 1:
        raise ValueError("k and n must be one-dimensional arrays of the same length")
    if ks.size and (ns.min() < 1 or ks.min() < 0 or (ks > ns).any()):
        raise ValueError("each test needs n >= 1 and 0 <= k <= n")
    if not 0 <= p <= 1:
        raise ValueError(f"p must be in [0, 1], got {p}")
    out = np.ones(ks.size)
    if ks.size == 0:
        return out
    ps = np.full(ks.size, float(p))
    d = binom.pmf(ks, ns, ps)
    mode = p * ns
    low = ks < mode
    high = ks > mode
    if low.any():
        # The far tail above the mode: y terms between the mode and n are <= d * rerr.
        kl, nl, pl, dl = ks[low], ns[low], ps[low], d[low]
        ix = _search(-dl * RELATIVE_TOLERANCE, np.ceil(p * nl), nl, nl, pl, True)
        y = nl - ix + (dl * RELATIVE_TOLERANCE == binom.pmf(ix, nl, pl)).astype(np.float64)
        out[low] = binom.cdf(kl, nl, pl) + binom.sf(nl - y, nl, pl)
    if high.any():
        kh, nh, ph, dh = ks[high], ns[high], ps[high], d[high]
        ix = _search(dh * RELATIVE_TOLERANCE, np.zeros(kh.size), np.floor(p * nh), nh, ph, False)
        y = ix + 1
        out[high] = binom.cdf(y - 1, nh, ph) + binom.sf(kh - 1, nh, ph)
    return np.minimum(1.0, out)


__all__ = ["RELATIVE_TOLERANCE", "two_sided_p_values"]
