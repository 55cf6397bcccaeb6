"""A judge-assisted mean from a table of units: each unit's judge value, its human value when
people judged it, and (optionally) the chance it had of being sent to people.

Three methods, one family ``theta(lam)`` indexed by the weight ``lam`` of the judge's values:
``classical`` (lam = 0: people's values alone), ``ppi`` (lam = 1) and ``ppi++`` (lam tuned to
minimise the variance, clipped to [0, 1], so the judge never costs precision in large samples).

**A uniform sample** (no probabilities): the units people judged are a simple random sample of
all the units, and the estimate is the prediction-powered mean of Angelopoulos, Bates,
Fannjiang, Jordan and Zrnic (2023, Science 382:669-674) over two disjoint sets, the n labelled
units and the N others, exactly as :func:`abp_tui.stats.ppi.ppi_mean` and ppi-python's
``ppi_mean_ci`` / ``ppi_mean_pointestimate`` compute it (lam tuned as PPI++, Angelopoulos, Duchi
and Zrnic 2023, for ``ppi++``); ``classical`` is ppi-python's ``classical_mean_ci``: the mean of
people's values, standard deviation with divisor n.

**Known probabilities** (``probability`` given where people judged): units were sent to people
by a known design, each with its own probability pi_i (active labelling). The estimate is the
inverse-probability-weighted estimator of Zrnic and Candès (2024), "Active Statistical
Inference" (ICML), over all N units, xi_i = 1 when unit i was labelled:

    z_i = lam * f_i + (y_i - lam * f_i) * xi_i / pi_i,    theta = mean(z),
    se = sd(z) / sqrt(N)   (sd with divisor N),            interval theta -/+ z_q se,

unbiased for the mean of people's values whatever the judge's quality, provided every unit had
a positive probability and the draws were independent given the units. lam = 1 is the brief's
mean(f) + mean((y - f) xi / pi); lam = 0 is Horvitz-Thompson; ``ppi++`` takes the lam
minimising the variance of z, -Cov(y xi / pi, f (1 - xi / pi)) / Var(f (1 - xi / pi)), clipped
to [0, 1] (the paper's power tuning). A unit people did not judge needs no probability: its
term is lam * f_i.

The effective number of labels is var(y) / se^2 (var over the labelled units, divisor n): how
many human judgments of a uniform sample, alone, would give the same standard error. Bounds
are not clipped to [0, 1] (as ppi-python). Pure: arrays in, a model out.
"""

from __future__ import annotations

import math
from typing import Final, Literal

import numpy as np
import numpy.typing as npt
from pydantic import FiniteFloat, NonNegativeInt

from abp_tui.models.base import Model
from abp_tui.stats.inference import normal_quantile
from abp_tui.stats.ppi import ppi_mean

F64 = npt.NDArray[np.float64]
Method = Literal["classical", "ppi", "ppi++"]
METHODS: Final[tuple[Method, ...]] = ("classical", "ppi", "ppi++")

UNIFORM_SOURCE: Final = (
    "Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), Prediction-powered inference, "
    "Science 382:669-674; lam tuned as PPI++ (Angelopoulos, Duchi & Zrnic 2023); the figures of "
    "ppi-python's ppi_mean_ci and classical_mean_ci"
)
WEIGHTED_SOURCE: Final = (
    "Zrnic & Candès (2024), Active Statistical Inference, ICML: the inverse-probability-weighted "
    "estimator with a CLT interval over the units' terms"
)


class UnitsEstimate(Model):
    """A mean of people's values from a table of units, with its normal interval."""

    method: Method
    design: Literal["uniform sample", "known probabilities"]
    convention: str
    """The estimator and its interval, in one line."""
    source: str
    confidence: FiniteFloat
    quantile: FiniteFloat
    n_units: NonNegativeInt
    n_labelled: NonNegativeInt
    lam: FiniteFloat | None = None
    """The judge's weight: 0 classical, 1 PPI, tuned for PPI++; None when undefined."""
    point: FiniteFloat | None = None
    low: FiniteFloat | None = None
    high: FiniteFloat | None = None
    standard_error: FiniteFloat | None = None
    effective_labels: FiniteFloat | None = None
    """var(y) / se^2: human judgments of a uniform sample alone giving the same precision."""
    undefined_reason: str | None = None


def _convention(method: Method, weighted: bool, z: float) -> str:
    interval = f"interval point -/+ {z:.6f} se, not clipped to [0, 1]"
    lam = {"classical": "lam = 0", "ppi": "lam = 1", "ppi++": "lam tuned, clipped to [0, 1]"}
    if weighted:
        return (
            f"inverse-probability weighted, {lam[method]}: mean over all units of lam f + "
            f"(y - lam f) xi / pi; se = sd(terms, divisor N) / sqrt(N); {interval}"
        )
    if method == "classical":
        return f"mean of people's values; se = sd(y, divisor n) / sqrt(n); {interval}"
    return (
        f"prediction-powered, {lam[method]}: lam mean(f unlabelled) + mean(y - lam f labelled); "
        f"se^2 = lam^2 var(f unlabelled) / N + var(y - lam f) / n (divisors N, n); {interval}"
    )


def _tuned_weighted_lambda(a: F64, b: F64) -> float:
    var = float(np.var(b))
    if var <= 0:
        return 0.0
    cov = float(np.mean((a - a.mean()) * (b - b.mean())))
    return float(min(1.0, max(0.0, -cov / var)))


def estimate_from_units(
    prediction: F64,
    label: F64,
    probability: F64 | None = None,
    *,
    method: Method = "ppi++",
    confidence: float = 0.95,
) -> UnitsEstimate:
    """The mean of people's values over the units.

    ``prediction``: the judge's value of every unit; ``label``: people's value, NaN where
    people did not judge the unit; ``probability``: the chance each unit had of being sent to
    people (NaN allowed where unlabelled), or None for a uniform sample. Values are taken as
    checked (in [0, 1], probabilities in (0, 1] where labelled)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    z = normal_quantile(confidence)
    f = np.asarray(prediction, dtype=np.float64)
    y_all = np.asarray(label, dtype=np.float64)
    if f.shape != y_all.shape:
        raise ValueError("prediction and label must have one value per unit each")
    labelled = ~np.isnan(y_all)
    y = y_all[labelled]
    n = len(y)
    weighted = probability is not None
    base = {
        "method": method,
        "design": "known probabilities" if weighted else "uniform sample",
        "convention": _convention(method, weighted, z),
        "source": WEIGHTED_SOURCE if weighted else UNIFORM_SOURCE,
        "confidence": confidence,
        "quantile": z,
        "n_units": len(f),
        "n_labelled": n,
    }
    if n < 2:
        return UnitsEstimate(
            undefined_reason=f"{n} unit(s) judged by people: a standard error needs 2 or more",
            **base,
        )
    if weighted:
        assert probability is not None
        pi = np.asarray(probability, dtype=np.float64)
        w = np.zeros_like(f)
        w[labelled] = 1.0 / pi[labelled]
        a = np.where(labelled, np.nan_to_num(y_all), 0.0) * w
        b = f * (1.0 - w)
        lam = {"classical": 0.0, "ppi": 1.0}.get(method)
        if lam is None:
            lam = _tuned_weighted_lambda(a, b)
        terms = a + lam * b
        point = float(terms.mean())
        se = float(terms.std()) / math.sqrt(len(terms))
    elif method == "classical":
        lam, point = 0.0, float(y.mean())
        se = float(y.std()) / math.sqrt(n)
    else:
        found = ppi_mean(
            y, f[labelled], f[~labelled], confidence=confidence, tuned=method == "ppi++"
        )
        if found.point is None or found.standard_error is None or found.lam is None:
            return UnitsEstimate(undefined_reason=found.undefined_reason, **base)
        lam, point, se = found.lam, found.point, found.standard_error
    effective = float(y.var()) / (se * se) if se > 0 else None
    return UnitsEstimate(
        lam=lam,
        point=point,
        low=point - z * se,
        high=point + z * se,
        standard_error=se,
        effective_labels=effective,
        **base,
    )


__all__ = ["METHODS", "Method", "UnitsEstimate", "estimate_from_units"]
