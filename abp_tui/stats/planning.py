"""How many human judgments reach a target half-width: for a pass rate or a win rate, with and
without an AI judge, and for Cohen's kappa. The half-width is that of a two-sided interval at
``confidence``, with z the exact normal quantile; every count is the smallest n that reaches
the width (the tests check that n does and n - 1 does not).

- **A rate, people alone**, Wilson's score interval (Wilson 1927), the one the results print:
  at an observed rate p its half-width is z sqrt(n p (1 - p) + z^2 / 4) / (n + z^2), which
  falls with n; equating it to w gives the quadratic w^2 (n + z^2)^2 = z^2 (n p (1 - p) + z^2/4),
  whose larger root is rounded up. The normal (Wald) count z^2 p (1 - p) / w^2 is given too.
- **A rate with a judge**, prediction-powered inference (Angelopoulos et al. 2023; PPI++,
  Angelopoulos, Duchi and Zrnic 2023): with N units the judge alone judged, people's values Y
  of variance s_y^2, the judge's f of variance s_f^2 and covariance c,
  se^2(n) = lam^2 s_f^2 / N + (s_y^2 - 2 lam c + lam^2 s_f^2) / n, lam = 1 (PPI) or
  lam = c / ((1 + n / N) s_f^2) clipped to [0, 1] (PPI++). With N infinite and lam tuned,
  se^2 = s_y^2 (1 - rho^2) / n: a judge with correlation rho to people divides the count by
  1 / (1 - rho^2). When the judge's own term lam^2 s_f^2 / N alone exceeds (w / z)^2, no n
  reaches the width (None).
- **Cohen's kappa**, the large-sample variance of Fleiss, Cohen and Everitt (1969), as
  ``stats kappa`` computes it: for a table of cell shares it is V / n, so n = z^2 V / w^2.
  Before any data, :func:`binary_cells` builds the shares of two raters with the same pass
  rate p and kappa k (p_11 = p^2 + k p q, p_00 = q^2 + k p q, p_10 = p_01 = p q (1 - k)).
  The judge does not help here: kappa measures the judge against people.

Pure: numbers in, numbers out.
"""

from __future__ import annotations

import math
from typing import Final

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement_kernels import kappa_standard_errors
from abp_tui.stats.inference import normal_quantile

F64 = npt.NDArray[np.float64]
LIMIT: Final = 10**9
"""Counts beyond this are reported as unreachable (None)."""


def _check(half_width: float, confidence: float) -> float:
    if not (math.isfinite(half_width) and half_width > 0):
        raise ValueError(f"the half-width must be a positive number, got {half_width!r}")
    return normal_quantile(confidence)


def wilson_half_width(p: float, n: int, confidence: float = 0.95) -> float:
    """The half-width of Wilson's interval at observed rate ``p`` over ``n`` judgments."""
    z = normal_quantile(confidence)
    return z * math.sqrt(n * p * (1 - p) + z * z / 4) / (n + z * z)


def wilson_n(p: float, half_width: float, confidence: float = 0.95) -> int:
    """The smallest n whose Wilson interval at rate ``p`` is at most ``half_width`` wide on
    each side (the larger root of the quadratic, rounded up, then checked)."""
    z = _check(half_width, confidence)
    if not 0 <= p <= 1:
        raise ValueError(f"the rate must be in [0, 1], got {p!r}")
    if half_width >= 0.5:
        return 1 if wilson_half_width(p, 1, confidence) <= half_width else 2
    w2, z2, pq = half_width**2, z * z, p * (1 - p)
    b = 2 * w2 * z2 - z2 * pq
    disc = z2 * z2 * (pq * pq - 4 * w2 * pq + w2)
    n = max(1, math.ceil((-b + math.sqrt(max(disc, 0.0))) / (2 * w2)))
    while n > 1 and wilson_half_width(p, n - 1, confidence) <= half_width:
        n -= 1  # rounding of the root: the smallest n that reaches the width
    while wilson_half_width(p, n, confidence) > half_width:
        n += 1
    return n


def normal_n(variance: float, half_width: float, confidence: float = 0.95) -> int:
    """z^2 variance / w^2 rounded up: the normal interval's count for a unit variance."""
    z = _check(half_width, confidence)
    return max(1, math.ceil(z * z * variance / half_width**2 - 1e-9))


def ppi_standard_error(
    n: int,
    var_y: float,
    var_f: float,
    cov: float,
    n_unlabelled: float = math.inf,
    tuned: bool = True,
) -> float:
    """The prediction-powered standard error with n labelled units (see the module's text)."""
    ratio = 0.0 if math.isinf(n_unlabelled) else n / n_unlabelled
    lam = 1.0
    if tuned:
        lam = min(1.0, max(0.0, cov / ((1 + ratio) * var_f))) if var_f > 0 else 0.0
    judge_term = 0.0 if math.isinf(n_unlabelled) else lam * lam * var_f / n_unlabelled
    rectifier = max(var_y - 2 * lam * cov + lam * lam * var_f, 0.0)
    return math.sqrt(judge_term + rectifier / n)


def ppi_n(
    half_width: float,
    var_y: float,
    var_f: float,
    cov: float,
    n_unlabelled: float = math.inf,
    *,
    tuned: bool = True,
    confidence: float = 0.95,
) -> int | None:
    """The smallest n whose prediction-powered interval is at most ``half_width`` on each side
    (at least 2, as the estimate needs), None when no n up to 10^9 reaches it."""
    z = _check(half_width, confidence)

    def reaches(n: int) -> bool:
        return z * ppi_standard_error(n, var_y, var_f, cov, n_unlabelled, tuned) <= half_width

    if not reaches(LIMIT):
        return None
    low, high = 1, LIMIT  # reaches(high); the answer is in (low, high]
    while high - low > 1:
        mid = (low + high) // 2
        if reaches(mid):
            high = mid
        else:
            low = mid
    return max(high, 2)


def binary_cells(rate: float, kappa: float) -> F64:
    """The cell shares of two raters with the same pass rate and Cohen's kappa ``kappa``."""
    if not 0 < rate < 1:
        raise ValueError(f"the rate must be strictly between 0 and 1, got {rate!r}")
    pq = rate * (1 - rate)
    cells = np.array(
        [[(1 - rate) ** 2 + kappa * pq, pq * (1 - kappa)], [pq * (1 - kappa), rate**2 + kappa * pq]]
    )
    if np.any(cells < 0):
        raise ValueError(f"no table has rate {rate} and kappa {kappa}")
    return cells


def kappa_unit_variance(cells: F64, weights: F64 | None = None) -> float:
    """n Var(kappa): the large-sample variance of Cohen's kappa (Fleiss, Cohen and Everitt
    1969) for one item, from a table of counts or shares; NaN when not positive."""
    table = np.asarray(cells, dtype=np.float64)
    w = np.eye(len(table)) if weights is None else np.asarray(weights, dtype=np.float64)
    n = float(table.sum())
    _kappa, _po, _pe, se, _se0 = kappa_standard_errors(table, w)
    return se * se * n if math.isfinite(se) else math.nan


def kappa_n(cells: F64, half_width: float, confidence: float = 0.95) -> int | None:
    """The smallest n whose large-sample kappa interval is at most ``half_width`` on each side,
    for a table with the shares of ``cells``; None when the variance is not positive."""
    z = _check(half_width, confidence)
    unit = kappa_unit_variance(cells)
    if not (math.isfinite(unit) and unit > 0):
        return None
    return max(2, math.ceil(z * z * unit / half_width**2 - 1e-9))


__all__ = [
    "binary_cells",
    "kappa_n",
    "kappa_unit_variance",
    "normal_n",
    "ppi_n",
    "ppi_standard_error",
    "wilson_half_width",
    "wilson_n",
]
