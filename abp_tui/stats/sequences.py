"""Anytime-valid confidence sequences for a mean of values in [0, 1]: a pass rate (0/1
outcomes) or a win rate (1 a win, 0 a loss, 1/2 a tie), which a coordinator may watch after
every judgment and stop on, with the coverage still holding at the stopping time.

A confidence sequence (C_t) covers the true mean at *every* time at once with probability at
least 1 - alpha (Darling and Robbins 1967; Howard, Ramdas, McAuliffe and Sekhon 2021), so the
intersection of its intervals up to t (the running intersection) is valid too, and so is the
interval at any stopping time. Two are given:

**The betting sequence** (Waudby-Smith and Ramdas 2024, "Estimating means of bounded random
variables by betting", JRSS-B 86(1):1-27, the "hedged capital" process of their section 4.3,
with the predictable plug-in bets of their eq. (26)), as the ``confseq`` package's
``betting.hedged_cs`` computes it with its defaults: for each candidate mean m on the grid
0, 1/B, ..., 1 (B = ``breaks`` = 1000),

    K_t(m) = max(theta K+_t(m), (1 - theta) K-_t(m)),   theta = 1/2,
    K+_t(m) = prod_{i <= t} (1 + l+_i(m) (x_i - m)),
    K-_t(m) = prod_{i <= t} (1 - l-_i(m) (x_i - m)),
    l_i = sqrt(2 log(1 / (theta alpha)) / (sigma2_{i-1} i log(1 + i))),
    mu_i = (1/2 + sum_{j <= i} x_j) / (i + 1),
    sigma2_i = (1/4 + sum_{j <= i} (x_j - mu_j)^2) / (i + 1),
    l+_i(m) = l_i clipped to [-c / (1 - m), c / m],  l-_i(m) = l_i clipped to [-c / m, c / (1 - m)],
    c = 1/2,

and C_t = {m : K_t(m) <= 1 / alpha}, reported as [first m in C_t - 1/B, last m in C_t + 1/B]
clipped to [0, 1] ([0, 1] when no grid point is in it), then intersected over time. K is a
nonnegative supermartingale at the true mean, so Ville's inequality gives the coverage; the max
of the two halves (instead of the paper's sum) only makes the set larger. These are exactly the
package's steps (the tests compare the intervals to it on fixed data); the grid widens each
interval by at most 1/B.

**The normal-mixture sequence** (Howard, Ramdas, McAuliffe and Sekhon 2021, "Time-uniform,
nonparametric, nonasymptotic confidence sequences", Annals of Statistics 49(2), eq. (14)), a
closed form for comparison: values in [0, 1] are sub-Gaussian with variance proxy 1/4, so with
V_t = t / 4,

    mean_t -/+ sqrt((V_t + rho) (log(1 + V_t / rho) + 2 log(1 / alpha))) / t,
    rho = (t_opt / 4) / (2 log(1 / alpha) + log(1 + 2 log(1 / alpha))),

tightest near t = t_opt (chosen before the data), clipped to [0, 1]: ``confseq``'s
``conjmix_bounded.conjmix_hoeffding_twosided_cs``. It ignores the variance, so the betting
sequence is narrower on a skewed pass rate.

The stopping rule "the sequence excludes 1/2" (:func:`first_exclusion`) is valid at any time:
the probability that the sequence ever excludes the true mean is at most alpha. Pure: NumPy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]

BETTING_SOURCE: Final = (
    "Waudby-Smith & Ramdas (2024), Estimating means of bounded random variables by betting, "
    "JRSS-B 86(1):1-27: the hedged capital process with predictable plug-in bets, as the "
    "confseq package's betting.hedged_cs"
)
MIXTURE_SOURCE: Final = (
    "Howard, Ramdas, McAuliffe & Sekhon (2021), Time-uniform, nonparametric, nonasymptotic "
    "confidence sequences, Ann. Statist. 49(2): the two-sided normal mixture, sub-Gaussian "
    "variance proxy 1/4 (confseq's conjmix_hoeffding_twosided_cs)"
)
BREAKS: Final = 1000
THETA: Final = 0.5
TRUNCATION: Final = 0.5


@dataclass(frozen=True)
class Sequence:
    """A confidence sequence: the interval after each observation (index t - 1 for time t)."""

    low: F64
    high: F64
    confidence: float
    method: str
    source: str


def _check(values: F64, confidence: float) -> F64:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or len(x) == 0:
        raise ValueError("expected a non-empty sequence of values")
    if not np.all(np.isfinite(x)) or np.any((x < 0) | (x > 1)):
        raise ValueError("every value must be in [0, 1]")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return x


def plug_in_bets(values: F64, alpha: float) -> F64:
    """The predictable plug-in bets l_i of Waudby-Smith & Ramdas eq. (26) (``confseq``'s
    ``lambda_predmix_eb`` with prior mean 1/2, prior variance 1/4, one pseudo-observation and
    no truncation): l_i uses x_1..x_{i-1} only."""
    x = np.asarray(values, dtype=np.float64)
    t = np.arange(1, len(x) + 1, dtype=np.float64)
    mu = np.minimum((0.5 + np.cumsum(x)) / (t + 1), 1)
    sigma2 = (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1)
    previous = np.append(0.25, sigma2[:-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        bets = np.sqrt(2 * math.log(1 / alpha) / (t * np.log(1 + t) * previous))
    bets[np.isnan(bets)] = 0.0
    return np.asarray(bets, dtype=np.float64)


def betting_sequence(
    values: F64, confidence: float = 0.95, *, breaks: int = BREAKS, running: bool = True
) -> Sequence:
    """The hedged-capital betting confidence sequence for the mean of ``values`` in [0, 1]
    (see the module's text), with its running intersection unless ``running`` is False."""
    x = _check(values, confidence)
    alpha = 1 - confidence
    grid = np.arange(0, 1 + 1 / breaks, step=1 / breaks)
    bets_up = plug_in_bets(x, alpha * THETA)
    bets_down = plug_in_bets(x, alpha * (1 - THETA))
    with np.errstate(divide="ignore"):
        cap_low = TRUNCATION / grid  # c / m
        cap_high = TRUNCATION / (1 - grid)  # c / (1 - m)
    threshold = 1 / alpha
    up = np.ones_like(grid)
    down = np.ones_like(grid)
    low = np.zeros(len(x))
    high = np.ones(len(x))
    for i, value in enumerate(x):
        diff = value - grid
        with np.errstate(invalid="ignore", over="ignore"):
            up = up * (1 + np.maximum(np.minimum(bets_up[i], cap_low), -cap_high) * diff)
            down = down * (1 - np.maximum(np.minimum(bets_down[i], cap_high), -cap_low) * diff)
        up[np.isnan(up)] = 0.0
        down[np.isnan(down)] = 0.0
        inside = np.flatnonzero(np.maximum(THETA * up, (1 - THETA) * down) <= threshold)
        if len(inside):
            low[i], high[i] = grid[inside[0]], grid[inside[-1]]
    low = np.maximum(0, low - 1 / breaks)
    high = np.minimum(1, high + 1 / breaks)
    if running:
        low, high = np.maximum.accumulate(low), np.minimum.accumulate(high)
    return Sequence(
        low=low,
        high=high,
        confidence=confidence,
        method=f"betting (hedged capital, plug-in bets, grid of {breaks + 1} means)",
        source=BETTING_SOURCE,
    )


def mixture_rho(t_opt: float, alpha: float) -> float:
    """The normal mixture's rho, tightest at V = t_opt / 4 (Howard et al. 2021, eq. (14);
    ``confseq``'s ``TwoSidedNormalMixture::best_rho``)."""
    log_term = 2 * math.log(1 / alpha)
    return (t_opt / 4) / (log_term + math.log(1 + log_term))


def mixture_sequence(
    values: F64, confidence: float = 0.95, *, t_opt: float = 100, running: bool = True
) -> Sequence:
    """The two-sided normal-mixture (Hoeffding) confidence sequence for the mean of ``values``
    in [0, 1], tuned for time ``t_opt`` (see the module's text)."""
    x = _check(values, confidence)
    if not t_opt >= 1:
        raise ValueError(f"t_opt must be at least 1, got {t_opt!r}")
    alpha = 1 - confidence
    t = np.arange(1, len(x) + 1, dtype=np.float64)
    v = t / 4
    rho = mixture_rho(t_opt, alpha)
    radius = np.sqrt((v + rho) * (np.log(1 + v / rho) + 2 * math.log(1 / alpha))) / t
    mean = np.cumsum(x) / t
    low = np.maximum(mean - radius, 0)
    high = np.minimum(mean + radius, 1)
    if running:
        low, high = np.maximum.accumulate(low), np.minimum.accumulate(high)
    return Sequence(
        low=low,
        high=high,
        confidence=confidence,
        method=f"normal mixture (sub-Gaussian, variance proxy 1/4), tuned for t = {t_opt:g}",
        source=MIXTURE_SOURCE,
    )


def first_exclusion(sequence: Sequence, value: float = 0.5) -> int | None:
    """The first time t (1-based) at which the sequence's interval excludes ``value`` (the
    stopping rule: with ``value`` = 1/2, one side is better), None if it never does."""
    excluded = (sequence.low > value) | (sequence.high < value)
    where = np.flatnonzero(excluded)
    return int(where[0]) + 1 if len(where) else None


__all__ = [
    "BETTING_SOURCE",
    "BREAKS",
    "MIXTURE_SOURCE",
    "Sequence",
    "betting_sequence",
    "first_exclusion",
    "mixture_rho",
    "mixture_sequence",
    "plug_in_bets",
]
