"""Prediction-powered inference for a mean (a pass rate, a win rate) from a judge and people.

Angelopoulos, Bates, Fannjiang, Jordan and Zrnic (2023), "Prediction-powered inference",
Science 382:669-674. People judged a random subset of n runs (Y, with the judge's Ŷ on the same
runs); the judge alone judged N more (Ŷ'). The estimate is the judge's mean on the N runs
corrected by its measured error on the n:

    theta = lam * mean(Ŷ') + mean(Y - lam * Ŷ),
    se = sqrt(lam^2 var(Ŷ') / N + var(Y - lam * Ŷ) / n)   (variances with divisor n, N),

and the interval theta -/+ z se (z the exact normal quantile of the confidence) is valid
whatever the judge's quality, when the subset is a random one. lam = 1 is the paper's PPI;
``tuned`` picks lam as PPI++ does (Angelopoulos, Duchi and Zrnic 2023, "PPI++: efficient
prediction-powered inference"): lam = Cov(Y, Ŷ) / ((1 + n / N) Var(Ŷ, Ŷ')), clipped to [0, 1],
so a useless judge costs nothing over people alone (lam = 0 is the classical interval). The
figures are those of the ``ppi-python`` package's ``ppi_mean_ci`` (the tests compare them).
Bounds are not clipped to [0, 1] (as the package).

The effective number of human judgments is the number of people's judgments alone that would
give the same standard error, var(Y) / se^2: above n when the judge helps. Pure: numbers in,
a model out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt
from pydantic import FiniteFloat, NonNegativeInt

from abp_tui.models.base import Model
from abp_tui.stats.inference import normal_quantile

Values = Sequence[float] | npt.NDArray[np.float64]

SOURCE: Final = (
    "Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), Prediction-powered inference, "
    "Science 382:669-674; lam tuned as PPI++ (Angelopoulos, Duchi & Zrnic 2023); the figures "
    "of ppi-python's ppi_mean_ci"
)


class MeanEstimate(Model):
    """A mean with its normal interval (classical: people alone, or the judge alone)."""

    n: NonNegativeInt
    point: FiniteFloat | None = None
    low: FiniteFloat | None = None
    high: FiniteFloat | None = None
    undefined_reason: str | None = None


class PredictionPowered(Model):
    """A prediction-powered mean beside the human-only and judge-only estimates."""

    n_human: NonNegativeInt
    """Runs judged by people (and by the judge): n."""
    n_judge_only: NonNegativeInt
    """Runs judged by the judge alone: N."""
    confidence: FiniteFloat
    lam: FiniteFloat | None = None
    """The weight of the judge's predictions (1: the paper's PPI; tuned: PPI++)."""
    tuned: bool
    point: FiniteFloat | None = None
    low: FiniteFloat | None = None
    high: FiniteFloat | None = None
    standard_error: FiniteFloat | None = None
    human_only: MeanEstimate
    """The classical estimate from people's judgments alone (the same n)."""
    judge_only: MeanEstimate
    """The judge's mean over every run it judged: biased by its errors, no valid interval."""
    effective_human_judgments: FiniteFloat | None = None
    """var(Y) / se^2: how many human judgments alone would give the same precision."""
    human_judgments_saved: FiniteFloat | None = None
    """effective_human_judgments - n (negative: the judge costs precision; tuning prevents it)."""
    undefined_reason: str | None = None
    method: str
    source: str = SOURCE


def _classical(values: npt.NDArray[np.float64], z: float) -> MeanEstimate:
    n = len(values)
    if n == 0:
        return MeanEstimate(n=0, undefined_reason="no observations (n = 0)")
    mean = float(values.mean())
    half = z * float(values.std()) / math.sqrt(n)
    return MeanEstimate(n=n, point=mean, low=mean - half, high=mean + half)


def tuned_lambda(
    y: npt.NDArray[np.float64],
    yhat: npt.NDArray[np.float64],
    yhat_unlabeled: npt.NDArray[np.float64],
) -> float:
    """PPI++'s lam for a mean, clipped to [0, 1] (as ppi-python's ``_calc_lam_glm``)."""
    n, big_n = len(y), len(yhat_unlabeled)
    cov = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    var = float(np.var(np.concatenate([yhat, yhat_unlabeled]), ddof=1))
    if var <= 0:
        return 0.0
    return float(min(1.0, max(0.0, cov / ((1 + n / big_n) * var))))


def ppi_mean(
    human: Values,
    judge_on_human: Values,
    judge_only: Values,
    *,
    confidence: float = 0.95,
    tuned: bool = False,
) -> PredictionPowered:
    """The prediction-powered mean of people's ``human`` values (the judge gave
    ``judge_on_human`` on the same runs) and the judge's ``judge_only`` values on the rest."""
    y = np.asarray(human, dtype=np.float64)
    yhat = np.asarray(judge_on_human, dtype=np.float64)
    unlabeled = np.asarray(judge_only, dtype=np.float64)
    if len(y) != len(yhat):
        raise ValueError("human and judge_on_human must have one value per run each")
    z = normal_quantile(confidence)
    everything = np.concatenate([yhat, unlabeled])
    judge_alone = _classical(everything, z)
    judge_alone = judge_alone.model_copy(update={"low": None, "high": None})
    method = (
        "PPI++ (lam tuned, clipped to [0, 1])" if tuned else "PPI (lam = 1)"
    ) + f", normal interval z = {z:.6f}"
    base = {
        "n_human": len(y),
        "n_judge_only": len(unlabeled),
        "confidence": confidence,
        "tuned": tuned,
        "human_only": _classical(y, z),
        "judge_only": judge_alone,
        "method": method,
    }
    if len(y) < 2:
        return PredictionPowered(
            undefined_reason=f"{len(y)} runs judged by people: the correction needs 2 or more",
            **base,
        )
    if len(unlabeled) == 0:
        return PredictionPowered(
            undefined_reason="every run the judge judged was judged by people too: nothing "
            "for the judge to add",
            **base,
        )
    lam = tuned_lambda(y, yhat, unlabeled) if tuned else 1.0
    rectifier = y - lam * yhat
    point = float(lam * unlabeled.mean() + rectifier.mean())
    se = math.sqrt(
        (lam * lam) * float(unlabeled.var()) / len(unlabeled) + float(rectifier.var()) / len(y)
    )
    effective = saved = None
    if se > 0:
        effective = float(y.var()) / (se * se)
        saved = effective - len(y)
    return PredictionPowered(
        lam=lam,
        point=point,
        low=point - z * se,
        high=point + z * se,
        standard_error=se,
        effective_human_judgments=effective,
        human_judgments_saved=saved,
        **base,
    )


__all__ = ["SOURCE", "MeanEstimate", "PredictionPowered", "ppi_mean", "tuned_lambda"]
