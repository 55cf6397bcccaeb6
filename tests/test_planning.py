"""How many human judgments reach a half-width (abp_tui.stats.planning): closed forms, and the
planned n reaches the width while n - 1 does not."""

from __future__ import annotations

import math

import numpy as np
import pytest

from abp_tui.stats.inference import normal_quantile, wilson
from abp_tui.stats.planning import (
    binary_cells,
    kappa_n,
    kappa_unit_variance,
    normal_n,
    ppi_n,
    ppi_standard_error,
    wilson_half_width,
    wilson_n,
)
from abp_tui.stats.ppi import ppi_mean

Z = normal_quantile(0.95)


def test_the_normal_count_is_the_textbook_one() -> None:
    # p = 0.5, +/- 0.05 at 95%: 1.959964^2 * 0.25 / 0.0025 = 384.1 -> 385 (the survey classic).
    assert normal_n(0.25, 0.05) == 385
    assert normal_n(0.25, 0.03) == math.ceil(Z * Z * 0.25 / 0.0009)


@pytest.mark.parametrize(("p", "w"), [(0.5, 0.05), (0.5, 0.1), (0.2, 0.04), (0.9, 0.03)])
def test_the_wilson_count_reaches_the_width_and_one_fewer_does_not(p: float, w: float) -> None:
    n = wilson_n(p, w)
    assert wilson_half_width(p, n) <= w < wilson_half_width(p, n - 1)
    # The half-width is the printed Wilson interval's, where x = p n is a whole number.
    for count in (n, n - 1):
        if (p * count).is_integer():
            interval = wilson(int(p * count), count)
            assert interval.low is not None and interval.high is not None
            half = (interval.high - interval.low) / 2
            assert (half <= w + 1e-12) == (count == n)


def test_the_wilson_half_width_is_the_interval_of_inference_wilson() -> None:
    interval = wilson(50, 100)
    assert interval.low is not None and interval.high is not None
    assert wilson_half_width(0.5, 100) == pytest.approx(
        (interval.high - interval.low) / 2, abs=1e-15
    )


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.8, 0.95])
def test_a_tuned_judge_with_correlation_rho_needs_1_minus_rho_squared_of_the_count(
    rho: float,
) -> None:
    # N infinite, lam tuned: se^2 = s_y^2 (1 - rho^2) / n, so n = z^2 s_y^2 (1 - rho^2) / w^2.
    var_y, var_f = 0.2, 0.24  # lam = rho s_y / s_f stays below 1: no clipping
    cov = rho * math.sqrt(var_y * var_f)
    n = ppi_n(0.03, var_y, var_f, cov)
    expected = math.ceil(Z * Z * var_y * (1 - rho**2) / 0.03**2 - 1e-9)
    assert n == max(expected, 2)


def test_plain_ppi_needs_the_variance_of_the_judges_errors() -> None:
    # lam = 1, N infinite: n = z^2 Var(Y - f) / w^2.
    var_y, var_f, cov = 0.25, 0.25, 0.2
    n = ppi_n(0.04, var_y, var_f, cov, tuned=False)
    assert n == math.ceil(Z * Z * (var_y - 2 * cov + var_f) / 0.04**2)


@pytest.mark.parametrize("tuned", [True, False])
def test_the_planned_ppi_count_reaches_the_width_with_a_finite_unlabelled_set(tuned: bool) -> None:
    args = (0.25, 0.22, 0.17, 3000.0)
    n = ppi_n(0.03, *args, tuned=tuned)
    assert n is not None
    assert Z * ppi_standard_error(n, *args, tuned=tuned) <= 0.03
    assert Z * ppi_standard_error(n - 1, *args, tuned=tuned) > 0.03


def test_no_count_reaches_a_width_the_judges_own_term_exceeds() -> None:
    # lam = 1: the judge's term var_f / N = 0.25 / 100 alone gives z se > 0.05.
    assert ppi_n(0.05, 0.25, 0.25, 0.2, 100.0, tuned=False) is None


@pytest.mark.parametrize(("p", "k"), [(0.3, 0.6), (0.5, 0.2), (0.8, 0.9), (0.1, 0.0)])
def test_kappas_large_sample_variance_is_bloch_and_kraemers_closed_form(p: float, k: float) -> None:
    # Two raters with the same rate p: Fleiss, Cohen and Everitt's variance reduces to
    # Bloch & Kraemer (1989) eq. (3.2): n Var = (1 - k)[(1 - k)(1 - 2k) + k(2 - k) / (2 p q)].
    q = 1 - p
    closed = (1 - k) * ((1 - k) * (1 - 2 * k) + k * (2 - k) / (2 * p * q))
    assert kappa_unit_variance(binary_cells(p, k)) == pytest.approx(closed, rel=1e-12)


def test_the_planned_kappa_count_reaches_the_width() -> None:
    cells = binary_cells(0.4, 0.7)
    n = kappa_n(cells, 0.1)
    assert n is not None
    unit = kappa_unit_variance(cells)
    assert Z * math.sqrt(unit / n) <= 0.1 < Z * math.sqrt(unit / (n - 1))
    # A table of counts in those shares has the same unit variance.
    assert kappa_unit_variance(cells * 1000) == pytest.approx(unit, rel=1e-12)


def test_a_table_with_no_variance_plans_nothing() -> None:
    assert kappa_n(np.array([[10.0, 0.0], [0.0, 0.0]]), 0.1) is None


@pytest.mark.parametrize("w", [0.0, -0.1, math.nan])
def test_a_half_width_must_be_positive(w: float) -> None:
    with pytest.raises(ValueError, match="half-width"):
        wilson_n(0.5, w)


def test_the_planned_ppi_count_gives_the_width_on_drawn_data() -> None:
    # People pass 40%; the judge agrees with people 90% of the time. The population moments
    # plan n; PPI++ on n drawn labels and N judge-only units then has that half-width, up to
    # the noise of the estimated variances (a few percent at these sizes).
    p, accuracy, big_n, w = 0.4, 0.9, 40_000, 0.03
    q_f = p * accuracy + (1 - p) * (1 - accuracy)  # the judge's pass rate
    cov = p * accuracy - p * q_f  # E[Y f] - E[Y] E[f]
    n = ppi_n(w, p * (1 - p), q_f * (1 - q_f), cov, big_n)
    assert n is not None and n < normal_n(p * (1 - p), w)
    rng = np.random.default_rng(12)
    widths = []
    for _ in range(20):
        truth = (rng.random(n + big_n) < p).astype(float)
        judge = np.where(rng.random(n + big_n) < accuracy, truth, 1 - truth)
        est = ppi_mean(truth[:n], judge[:n], judge[n:], tuned=True)
        assert est.low is not None and est.high is not None
        widths.append((est.high - est.low) / 2)
    assert float(np.mean(widths)) == pytest.approx(w, rel=0.03)
