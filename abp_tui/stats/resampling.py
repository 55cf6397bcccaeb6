"""How many resamples a bootstrap percentile interval needs: one rule for every bootstrap.

A percentile interval's bounds are order statistics of the resamples: at 95%, the 2.5th and
97.5th percentiles. From 1 or 2 resamples both bounds are the same one or two draws, and the
"interval" says nothing about the figure's precision (``ranking --resamples 1`` once printed a
score of 1120.8 "in [1131.4, 1131.4]"). With :data:`MIN_RESAMPLES` resamples each 2.5% tail
holds at least 2 draws; Efron and Tibshirani (An Introduction to the Bootstrap, 1993) ask for
about 1000 for percentile intervals, the default everywhere here. A count of 0 asks for no
interval at all, which stays allowed.

Every bootstrap (the ranking's over tasks, the agreement figures' and each reviewer pair's over
items, the AI judges' kappas, the task bootstrap of results, the relative median difference)
checks its count with :func:`resamples_refusal`; the command line refuses a count below the
minimum as a usage error (:func:`resample_count`) before anything is read.
"""

from __future__ import annotations

import argparse
from typing import Final

MIN_RESAMPLES: Final = 100
"""Fewest resamples a percentile interval is drawn from (0: no interval)."""
RULE: Final = f"0 (no interval) or at least {MIN_RESAMPLES}"


def resamples_refusal(count: object) -> str | None:
    """Why ``count`` is no number of resamples for a percentile interval, as the end of a
    sentence naming the setting (None: it is 0, no interval, or at least MIN_RESAMPLES)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        return f"expected a count of {RULE}, got {count!r}"
    if 0 < count < MIN_RESAMPLES:
        return (
            f"expected {RULE}, got {count}: a percentile interval from so few resamples is "
            "a handful of draws at each end, no measure of precision"
        )
    return None


def check_resamples(count: int, name: str = "resamples") -> int:
    """``count``, or ValueError naming ``name`` and the rule (:func:`resamples_refusal`)."""
    refusal = resamples_refusal(count)
    if refusal is not None:
        raise ValueError(f"{name}: {refusal}")
    return count


def resample_count(text: str) -> int:
    """An ``argparse`` type for ``--resamples N``: a usage error (exit 2) unless the rule holds."""
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count of {RULE}, got {text!r}") from None
    refusal = resamples_refusal(count)
    if refusal is not None:
        raise argparse.ArgumentTypeError(refusal)
    return count


__all__ = ["MIN_RESAMPLES", "RULE", "check_resamples", "resample_count", "resamples_refusal"]
