"""The ranges the settings of the statistics take, one place for every face (the command
line refuses a value outside them before it opens anything; the functions refuse it too).

A bootstrap of :data:`MAX_RESAMPLES` draws already pins a 95% percentile interval to about a
tenth of a percent of its width; more only costs memory (a resample is a row of indices) and
time. A seed is a 64-bit signed integer, the range SQLite stores and a design records; a
bootstrap's seed is one of its non-negative values (``numpy.random.default_rng`` takes no other).
"""

from __future__ import annotations

from typing import Final

from abp_tui.stats.resampling import RULE, resamples_refusal

MAX_RESAMPLES: Final = 100_000
"""The most bootstrap resamples any figure draws."""
MIN_SEED: Final = -(2**63)
"""The smallest seed a design records."""
MAX_SEED: Final = 2**63 - 1
"""The largest seed a design or a bootstrap takes."""
MAX_PRIOR: Final = 1_000_000.0
"""The most pseudo-ties a ranking's ``--prior`` adds to each compared pair: far past any
number of votes, where every score is already the systems' mean."""


def resamples_problem(count: int) -> str | None:
    """Why ``count`` is not a number of bootstrap resamples, or None: 0 (no interval) or from
    :data:`~abp_tui.stats.resampling.MIN_RESAMPLES` (a percentile interval needs draws in its
    tails) to :data:`MAX_RESAMPLES`."""
    if count < 0 or count > MAX_RESAMPLES:
        return f"expected a count of {RULE}, at most {MAX_RESAMPLES}, got {count}"
    return resamples_refusal(count)


def prior_problem(prior: float) -> str | None:
    """Why ``prior`` is not a number of pseudo-ties, or None (NaN and infinities included)."""
    if not 0 <= prior <= MAX_PRIOR:
        return f"expected a number of pseudo-ties from 0 to {MAX_PRIOR:g}, got {prior}"
    return None
