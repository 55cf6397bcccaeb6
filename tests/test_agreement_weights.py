"""Weighted multi-reviewer figures (Fleiss' generalized kappa, Gwet's AC2 with each weighting)
and the basis of the weights (declared scale or observed ranks).

Sources of the published values:
- irrCAC, vignette "Weighted Chance-corrected Agreement Coefficients" (Gwet, 2019):
  fleiss.kappa.raw(cac.raw4raters, weights = "quadratic") gives pa 0.9753788, pe 0.8177083,
  coeff.val 0.86494; fleiss.kappa.dist(distrib.6raters, weights = quadratic.weights(1:5)) gives
  0.2511909 (pa 0.8544444, pe 0.8056173); gwet.ac1.raw(cac.raw4raters, weights = "quadratic")
  gives AC2 0.914 (pa 0.9753788, pe 0.7137044).
- The irrCAC Python port's tests on cac.raw4raters (afergadis/irrCAC, test/unit/irrCAC/raw/
  test_fleiss.py and test_gwet.py, three decimals): Fleiss with linear weights pa 0.939, pe 0.667,
  0.818; with ordinal weights pa 0.968, pe 0.788, 0.850; AC2 with linear weights pa 0.939,
  pe 0.571, 0.859; with ordinal weights pa 0.968, pe 0.685, 0.899.
- irrCAC's documentation of its raw functions: "categ.labels ... The default value is NULL. In
  this case, only categories reported by the raters are used in the calculations", which is the
  observed basis: on a declared scale with an unused category it gives the figures of the scale
  without it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings

from abp_tui.analysis.tables import figures_table, variables_table
from abp_tui.stats.agreement import (
    AC2_WEIGHTS,
    VARIABLE_COEFFICIENTS,
    compute_all,
    compute_variable,
    weight_matrix,
)
from tests.agreement_data import (
    DISTRIB_6RATERS,
    PROPERTY_SETTINGS,
    RAW_4RATERS,
    _counts,
    rating_tables,
    records_from_columns,
    records_from_distribution,
    to_records,
)

SCALE = (1, 2, 3, 4, 5)


def test_irrcac_weighted_fleiss_kappa_quadratic() -> None:
    result = compute_variable(records_from_columns(RAW_4RATERS), "interval", SCALE)
    fleiss = result.fleiss_kappa_quadratic
    assert fleiss.value == pytest.approx(0.86494, abs=5e-6)
    assert fleiss.observed_agreement == pytest.approx(0.9753788, abs=1e-7)
    assert fleiss.chance_agreement == pytest.approx(0.8177083, abs=1e-7)
    assert (fleiss.weights, fleiss.weight_basis) == ("quadratic", "declared")
    dist = compute_variable(records_from_distribution(DISTRIB_6RATERS, SCALE), "interval", SCALE)
    assert dist.fleiss_kappa_quadratic.value == pytest.approx(0.2511909, abs=1e-7)
    assert dist.fleiss_kappa_quadratic.observed_agreement == pytest.approx(0.8544444, abs=1e-7)
    assert dist.fleiss_kappa_quadratic.chance_agreement == pytest.approx(0.8056173, abs=1e-7)


@pytest.mark.parametrize(
    ("key", "pa", "pe", "value"),
    [
        ("fleiss_kappa_linear", 0.939, 0.667, 0.818),
        ("fleiss_kappa_ordinal", 0.968, 0.788, 0.850),
        ("fleiss_kappa_quadratic", 0.975, 0.818, 0.865),
        ("gwet_ac2_linear", 0.939, 0.571, 0.859),
        ("gwet_ac2_ordinal", 0.968, 0.685, 0.899),
        ("gwet_ac2_quadratic", 0.975, 0.714, 0.914),
    ],
)
def test_irrcac_each_weighting_of_fleiss_and_ac2(
    key: str, pa: float, pe: float, value: float
) -> None:
    # Whatever the level of an ordered variable, each weighting has its own figure.
    for level in ("ordinal", "interval"):
        figure = getattr(compute_variable(records_from_columns(RAW_4RATERS), level, SCALE), key)
        assert round(figure.value, 3) == value
        assert round(figure.observed_agreement, 3) == pa
        assert round(figure.chance_agreement, 3) == pe


def test_gwet_ac2_is_the_levels_default_weighting() -> None:
    for level, kind in AC2_WEIGHTS.items():
        result = compute_variable(records_from_columns(RAW_4RATERS), level, SCALE, seed=2)
        explicit = getattr(result, f"gwet_ac2_{kind}")
        assert result.gwet_ac2.value == explicit.value
        assert result.gwet_ac2.interval == explicit.interval
        assert result.gwet_ac2.name == f"Gwet's AC2 ({kind} weights)"
    quadratic = compute_variable(records_from_columns(RAW_4RATERS), "interval", SCALE)
    assert quadratic.gwet_ac2.value == pytest.approx(0.914, abs=5e-4)


def test_nominal_variables_have_no_weighted_figures_and_say_why() -> None:
    result = compute_variable(records_from_columns(RAW_4RATERS), "nominal")
    for key, see in (
        ("fleiss_kappa_linear", "Fleiss' kappa generalized"),
        ("fleiss_kappa_quadratic", "Fleiss' kappa generalized"),
        ("fleiss_kappa_ordinal", "Fleiss' kappa generalized"),
        ("gwet_ac2_linear", "Gwet's AC1"),
        ("gwet_ac2_quadratic", "Gwet's AC1"),
        ("gwet_ac2_ordinal", "Gwet's AC1"),
    ):
        figure = getattr(result, key)
        assert figure.value is None and figure.interval is None
        assert figure.undefined_reason == (
            f"nominal variable: weights need ordered categories; see {see}"
        )
    assert result.gwet_ac2.undefined_reason == (
        "nominal variable: AC2 needs ordered categories; see Gwet's AC1"
    )


def test_the_compact_list_keeps_its_columns_and_the_detail_lists_every_figure() -> None:
    result = compute_variable(records_from_columns(RAW_4RATERS), "ordinal", SCALE)
    compact = [c.key for c in variables_table([result]).shown][5:]
    assert compact == [
        "percent_agreement",
        "fleiss_kappa",
        "fleiss_kappa_generalized",
        "krippendorff_alpha",
        "gwet_ac1",
        "gwet_ac2",
    ]
    assert [c.key for c in VARIABLE_COEFFICIENTS if not c.compact] == [
        "fleiss_kappa_linear",
        "fleiss_kappa_quadratic",
        "fleiss_kappa_ordinal",
        "gwet_ac2_linear",
        "gwet_ac2_quadratic",
        "gwet_ac2_ordinal",
    ]
    detail = figures_table(result)
    assert [row[0] for row in detail.rows] == [f.name for _c, f in result.figures()]


# -- the weights' basis ---------------------------------------------------------------------------
def test_observed_basis_weighs_only_the_categories_used() -> None:
    # cac.raw4raters uses 1..5. Declaring a sixth, unused category moves AC2 on the declared
    # scale (q and the weights' span grow) but not on the observed ranks, which give irrCAC's
    # figures without categ.labels.
    records = records_from_columns(RAW_4RATERS)
    observed = compute_variable(records, "ordinal", (*SCALE, 6), weight_basis="observed")
    declared = compute_variable(records, "ordinal", (*SCALE, 6))
    for key in ("gwet_ac2_linear", "gwet_ac2_quadratic", "gwet_ac2_ordinal"):
        assert (
            round(getattr(observed, key).value, 3)
            == {
                "gwet_ac2_linear": 0.859,
                "gwet_ac2_quadratic": 0.914,
                "gwet_ac2_ordinal": 0.899,
            }[key]
        )
        assert getattr(declared, key).value != pytest.approx(getattr(observed, key).value)
    assert observed.fleiss_kappa_quadratic.value == pytest.approx(0.86494, abs=5e-6)
    # Unweighted figures do not depend on the basis.
    assert observed.gwet_ac1 == declared.gwet_ac1
    assert observed.krippendorff_alpha == declared.krippendorff_alpha


def test_the_basis_is_named_in_each_weighted_figure_and_carried_in_the_report() -> None:
    records = records_from_columns(RAW_4RATERS)
    report = compute_all({"v": records}, {"v": "ordinal"}, {"v": SCALE}, weight_basis="observed")
    assert report.weight_basis == "observed"
    (variable,) = report.variables
    assert "ranks 1..m of the m distinct values observed" in variable.gwet_ac2_linear.definition
    assert variable.gwet_ac2_linear.weight_basis == "observed"
    kappa = variable.pairs[0].cohen_kappa_linear
    assert kappa.weight_basis == "observed" and "observed" in kappa.definition
    assert variable.pairs[0].cohen_kappa.weight_basis is None  # unweighted: no basis
    default = compute_all({"v": records}, {"v": "ordinal"}, {"v": SCALE})
    assert default.weight_basis == "declared"
    assert "declared scale" in default.variables[0].gwet_ac2_linear.definition
    notes = [str(row[-1]) for row in figures_table(variable).rows]
    assert any("weights on the observed ranks" in note for note in notes)
    with pytest.raises(ValueError, match="weight_basis must be one of declared, observed"):
        compute_variable(records, "ordinal", SCALE, weight_basis="ranks")  # type: ignore[arg-type]


def test_one_observed_category_leaves_rank_weights_undefined() -> None:
    records = records_from_columns({"A": [2, 2, 2], "B": [2, 2, 2]})
    result = compute_variable(records, "ordinal", SCALE, weight_basis="observed")
    assert result.gwet_ac2_linear.value is None
    assert "weights on the observed ranks need two" in (
        result.gwet_ac2_linear.undefined_reason or ""
    )
    (pair,) = result.pairs
    assert pair.cohen_kappa_linear.value is None
    # On the declared scale the same data keep AC2 (every pair agrees), as irrCAC does.
    assert compute_variable(records, "ordinal", SCALE).gwet_ac2_linear.value == 1.0


# -- a plain reference on random data -------------------------------------------------------------
def _reference_weighted(matrix: np.ndarray, w: np.ndarray) -> tuple[float, float, float]:
    """(weighted P_o, AC2, weighted Fleiss kappa) as irrCAC's R code writes them, item by item."""
    q = w.shape[0]
    counts = _counts(matrix, q)
    counts = counts[counts.sum(axis=1) >= 1]
    r = counts.sum(axis=1)
    starred = counts @ w.T
    two = r >= 2
    pa = float(
        np.mean(
            [
                (c * (s - 1)).sum() / (m * (m - 1))
                for c, s, m in zip(counts[two], starred[two], r[two], strict=True)
            ]
        )
    )
    pi = np.mean(counts / r[:, None], axis=0)
    pe_ac2 = w.sum() * float((pi * (1 - pi)).sum()) / (q * (q - 1))
    pe_fleiss = float(pi @ w @ pi)
    fleiss = (pa - pe_fleiss) / (1 - pe_fleiss) if pe_fleiss < 1 - 1e-12 else math.nan
    return pa, (pa - pe_ac2) / (1 - pe_ac2), fleiss


@PROPERTY_SETTINGS
@given(rating_tables())
def test_weighted_figures_match_a_plain_reference(
    table: tuple[np.ndarray, tuple[int, ...], str],
) -> None:
    matrix, scale, level = table
    if level == "nominal":
        level = "ordinal"
    result = compute_variable(to_records(matrix, scale), level, scale, resamples=0)
    if result.n_items < 2 or result.n_reviewers < 2:
        return
    for kind in ("linear", "quadratic", "ordinal"):
        pa, ac2, fleiss = _reference_weighted(matrix, weight_matrix(kind, scale))
        figure = getattr(result, f"gwet_ac2_{kind}")
        assert figure.observed_agreement == pytest.approx(pa, abs=1e-12)
        assert figure.value == pytest.approx(ac2, abs=1e-12)
        weighted = getattr(result, f"fleiss_kappa_{kind}")
        if math.isfinite(fleiss):
            assert weighted.value == pytest.approx(fleiss, abs=1e-12)
        else:
            assert weighted.value is None


@settings(max_examples=30, deadline=None)
@given(rating_tables())
def test_weighted_bootstrap_intervals_hold_the_value(
    table: tuple[np.ndarray, tuple[int, ...], str],
) -> None:
    matrix, scale, level = table
    level = "interval" if level == "nominal" else level
    result = compute_variable(to_records(matrix, scale), level, scale, resamples=200, seed=1)
    for key in ("gwet_ac2_linear", "fleiss_kappa_quadratic"):
        figure = getattr(result, key)
        if figure.interval is not None:
            assert figure.interval.resamples == 200
            assert figure.interval.resamples_used >= 190  # at least 95% usable
            assert figure.interval.low < figure.interval.high


def test_the_basis_leaves_unweighted_kappa_alone() -> None:
    # One category used by both reviewers: no variation, whatever the basis of the weights.
    records = records_from_columns({"A": [2, 2, 2], "B": [2, 2, 2]})
    for basis in ("declared", "observed"):
        (pair,) = compute_variable(records, "ordinal", SCALE, weight_basis=basis).pairs
        assert pair.cohen_kappa.undefined_reason == (
            "no variation: chance agreement is 1 (both reviewers used only 2)"
        )
