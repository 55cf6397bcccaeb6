"""A judge-assisted mean from a units table (abp_tui.stats.ppi_units, ``stats ppi``): the
uniform-sample figures are ppi-python's; the weighted ones are Zrnic & Candès's estimator,
checked by hand and by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate
from ppi_py.baselines import classical_mean_ci

from abp_tui.stats.inference import normal_quantile
from abp_tui.stats.ppi_units import estimate_from_units


def _units(
    seed: int = 5, n_units: int = 1500, n_labelled: int = 180
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = (rng.random(n_units) < 0.64).astype(float)
    judge = np.where(rng.random(n_units) < 0.92, truth, 1 - truth)
    label = np.full(n_units, np.nan)
    chosen = rng.choice(n_units, n_labelled, replace=False)
    label[chosen] = truth[chosen]
    return judge, label


@pytest.mark.parametrize(("method", "lam"), [("ppi", 1), ("ppi++", None)])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_the_uniform_sample_is_ppi_pythons(
    method: str, lam: float | None, confidence: float
) -> None:
    f, y = _units()
    labelled = ~np.isnan(y)
    ours = estimate_from_units(f, y, method=method, confidence=confidence)  # type: ignore[arg-type]
    low, high = ppi_mean_ci(y[labelled], f[labelled], f[~labelled], alpha=1 - confidence, lam=lam)
    point = ppi_mean_pointestimate(y[labelled], f[labelled], f[~labelled], lam=lam)
    assert ours.point == pytest.approx(float(np.ravel(point)[0]), abs=1e-12)
    assert ours.low == pytest.approx(float(low[0]), abs=1e-12)
    assert ours.high == pytest.approx(float(high[0]), abs=1e-12)
    assert ours.n_labelled == 180 and ours.n_units == 1500
    assert (
        ours.effective_labels is not None and ours.effective_labels > 180
    )  # a judge right 92% of the time helps
    if method == "ppi":
        assert ours.lam == 1.0
    else:
        assert ours.lam is not None and 0 < ours.lam < 1


def test_classical_is_ppi_pythons_classical_mean_ci() -> None:
    f, y = _units(seed=9)
    labelled = y[~np.isnan(y)]
    ours = estimate_from_units(f, y, method="classical", confidence=0.9)
    low, high = classical_mean_ci(labelled, alpha=0.1)
    assert ours.low == pytest.approx(float(low), abs=1e-12)
    assert ours.high == pytest.approx(float(high), abs=1e-12)
    assert ours.lam == 0.0
    assert ours.effective_labels == pytest.approx(len(labelled))


def test_the_weighted_estimate_by_hand() -> None:
    # Four units; people judged units 1 and 3, sent with chances 0.5 and 0.25.
    f = np.array([0.8, 0.2, 0.6, 1.0])
    y = np.array([1.0, np.nan, 0.0, np.nan])
    pi = np.array([0.5, np.nan, 0.25, np.nan])
    ours = estimate_from_units(f, y, pi, method="ppi", confidence=0.95)
    terms = np.array([0.8 + (1 - 0.8) / 0.5, 0.2, 0.6 + (0 - 0.6) / 0.25, 1.0])  # f + (y - f) xi/pi
    assert ours.point == pytest.approx(terms.mean(), abs=1e-15)
    se = math.sqrt(((terms - terms.mean()) ** 2).mean() / 4)
    assert ours.standard_error == pytest.approx(se, abs=1e-15)
    z = normal_quantile(0.95)
    assert ours.low == pytest.approx(terms.mean() - z * se, abs=1e-15)
    assert ours.lam == 1.0 and ours.design == "known probabilities"
    classical = estimate_from_units(f, y, pi, method="classical")
    assert classical.point == pytest.approx((1 / 0.5 + 0 / 0.25) / 4, abs=1e-15)  # Horvitz-Thompson


def test_the_tuned_weight_minimises_the_weighted_variance() -> None:
    rng = np.random.default_rng(3)
    n = 2000
    truth = (rng.random(n) < 0.4).astype(float)
    f = np.clip(truth * 0.7 + rng.random(n) * 0.3, 0, 1)
    pi = np.clip(0.05 + 0.3 * np.abs(f - 0.5), 0.05, 1)
    sent = rng.random(n) < pi
    y = np.where(sent, truth, np.nan)
    tuned = estimate_from_units(f, y, pi, method="ppi++")
    assert tuned.lam is not None and tuned.standard_error is not None
    for lam_method in ("ppi", "classical"):
        other = estimate_from_units(f, y, pi, method=lam_method)
        assert other.standard_error is not None
        assert tuned.standard_error <= other.standard_error + 1e-15


def test_the_weighted_interval_covers_the_mean_in_simulation() -> None:
    # Units sent to people with unequal known chances (the judge's unsure ones more often):
    # the interval covers the units' mean of people's values in about 90% of the draws.
    rng = np.random.default_rng(21)
    n, draws, covered = 800, 400, 0
    truth = (rng.random(n) < 0.55).astype(float)
    f = np.where(rng.random(n) < 0.75, truth, 1 - truth) * 0.8 + 0.1
    pi = np.where(np.abs(f - 0.5) < 0.35, 0.3, 0.08)
    target = truth.mean()
    for _ in range(draws):
        sent = rng.random(n) < pi
        y = np.where(sent, truth, np.nan)
        est = estimate_from_units(f, y, pi, method="ppi++", confidence=0.9)
        assert est.low is not None and est.high is not None
        covered += est.low <= target <= est.high
    assert covered / draws >= 0.9 - 3 * math.sqrt(0.9 * 0.1 / draws)


def test_too_few_labels_are_undefined_with_a_reason() -> None:
    est = estimate_from_units(np.array([0.5, 0.5, 0.2]), np.array([1.0, np.nan, np.nan]))
    assert est.point is None and est.undefined_reason and "2 or more" in est.undefined_reason
