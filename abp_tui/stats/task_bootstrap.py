"""Figures over tasks rather than runs: a proportion's interval that resamples tasks (a cluster
bootstrap) and a sample's median and quartiles.

Seed 002: "Repeat attempts are not 72 independent task types." A Wilson interval over runs treats
every attempt as independent; when a condition has several attempts per task, the attempts of one
task are alike, and an interval that resamples whole tasks (each with all of its attempts) says
how much the figure depends on which tasks were drawn. Both are reported, each named.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from abp_tui.models import Model
from abp_tui.stats.resampling import check_resamples

TASK_RESAMPLES: Final = 2000
"""Resamples of the task bootstrap (the efficiency bootstrap's count)."""


class TaskInterval(Model):
    """A proportion over runs with the percentile interval of its task bootstrap."""

    x: int
    n: int
    tasks: int
    """Distinct tasks (clusters) the runs belong to."""
    point: float | None
    low: float | None = None
    high: float | None = None
    confidence: float
    seed: int
    resamples: int
    resamples_used: int = 0
    """Resamples whose drawn tasks hold at least one run in the denominator."""
    undefined_reason: str | None = None


def task_bootstrap(
    clusters: Sequence[tuple[int, int]],
    *,
    seed: int,
    confidence: float,
    resamples: int = TASK_RESAMPLES,
) -> TaskInterval:
    """The proportion sum(x) / sum(n) over ``clusters`` ((x, n) per task) with the percentile
    interval of a bootstrap that draws as many tasks as there are, with replacement, from
    ``numpy.random.default_rng(seed)`` (one ``integers`` call of shape (resamples, tasks)), and
    takes the (1-c)/2 and (1+c)/2 quantiles (numpy's linear interpolation) of the resampled
    proportions; resamples whose drawn tasks have n = 0 are left out and counted."""
    check_resamples(resamples, "resamples")
    kept = [(x, n) for x, n in clusters if n > 0]
    x_all = sum(x for x, _n in kept)
    n_all = sum(n for _x, n in kept)
    base = TaskInterval(
        x=x_all,
        n=n_all,
        tasks=len(kept),
        point=x_all / n_all if n_all else None,
        confidence=confidence,
        seed=seed,
        resamples=resamples,
    )
    if n_all == 0:
        return base.model_copy(update={"undefined_reason": "no run in the denominator"})
    if len(kept) < 2:
        return base.model_copy(
            update={"undefined_reason": "one task: resampling tasks needs at least two"}
        )
    xs = np.array([x for x, _n in kept], dtype=np.int64)
    ns = np.array([n for _x, n in kept], dtype=np.int64)
    draws = np.random.default_rng(seed).integers(0, len(kept), size=(resamples, len(kept)))
    num = xs[draws].sum(axis=1)
    den = ns[draws].sum(axis=1)
    shares = num[den > 0] / den[den > 0]
    low, high = np.quantile(shares, [(1 - confidence) / 2, (1 + confidence) / 2])
    return base.model_copy(
        update={"low": float(low), "high": float(high), "resamples_used": int(shares.size)}
    )


class Quartiles(Model):
    """A sample's median and quartiles, or none when nothing was measured."""

    n: int
    """Measurements."""
    missing: int
    """Cases with no measurement: published as missing, never as zero."""
    q1: float | None = None
    median: float | None = None
    q3: float | None = None


def quartiles(values: Sequence[float | None]) -> Quartiles:
    """Median and quartiles of the measured values (Hyndman & Fan 1996, definition 7, the
    default of R's ``quantile`` and numpy's ``quantile``); a None is missing and counted."""
    measured = [float(v) for v in values if v is not None]
    missing = len(values) - len(measured)
    if not measured:
        return Quartiles(n=0, missing=missing)
    q1, median, q3 = (float(q) for q in np.quantile(measured, [0.25, 0.5, 0.75]))
    return Quartiles(n=len(measured), missing=missing, q1=q1, median=median, q3=q3)
