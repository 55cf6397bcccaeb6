"""Inter-rater agreement: published values, the krippendorff package, properties and the CSV table.

Published values come from the sources named at each dataset; the data tables are reproduced as
published. Where a value is checked against a second implementation (the krippendorff package,
a plain per-item loop written here from the published formulas), the test says so.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abp_tui.bench.agreement import bench_agreement
from abp_tui.errors import InputError
from abp_tui.formats.agreement_table import agreement_table
from abp_tui.stats.agreement import (
    AgreementError,
    AgreementReport,
    Figure,
    Level,
    Observation,
    VariableAgreement,
    compute_all,
    compute_variable,
    weight_matrix,
)
from tests.agreement_data import (
    ABSTRACTORS,
    ANXIETY,
    DIAGNOSES,
    DISTRIB_6RATERS,
    NA,
    PROPERTY_SETTINGS,
    RAW_4RATERS,
    _counts,
    rating_tables,
    records_from_columns,
    records_from_distribution,
    records_from_table,
    to_records,
)

# --------------------------------------------------------------------------------------------
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers,
# twelve units, values 1-5, missing values. Published: nominal .743, ordinal .815, interval .849,
# ratio .797.

KRIPPENDORFF_2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, NA, NA, NA],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NA, 3],
    "C": [NA, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NA],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NA],
}


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_worked_example(level: Level, published: float) -> None:
    result = compute_variable(records_from_columns(KRIPPENDORFF_2011), level, (1, 2, 3, 4, 5))
    alpha = result.krippendorff_alpha
    assert alpha.value is not None
    assert round(alpha.value, 3) == published
    # The krippendorff package on the same reliability data agrees to rounding error.
    matrix = np.array(
        [[np.nan if v is None else v for v in col] for col in KRIPPENDORFF_2011.values()], float
    )
    package = krippendorff.alpha(matrix, level_of_measurement=level, value_domain=[1, 2, 3, 4, 5])
    assert alpha.value == pytest.approx(package, abs=1e-12)
    # Denominators as in the paper: 11 pairable units (unit 12 has a single value), 4 observers,
    # n = 40 pairable values (41 values in all).
    assert (alpha.n_items, alpha.n_reviewers, alpha.n_judgments) == (11, 4, 40)
    assert result.n_items_judged == 12 and result.n_judgments == 41


def test_krippendorff_2011_nominal_labels_need_no_order() -> None:
    labels = {1: "very low", 2: "low", 3: "mid", 4: "high", 5: "very high"}
    columns = {
        r: [None if v is None else labels[v] for v in vs] for r, vs in KRIPPENDORFF_2011.items()
    }
    result = compute_variable(records_from_columns(columns), "nominal")
    assert result.krippendorff_alpha.value is not None
    assert round(result.krippendorff_alpha.value, 3) == 0.743
    scale = tuple(labels.values())
    ordinal = compute_variable(records_from_columns(columns), "ordinal", scale)
    assert ordinal.krippendorff_alpha.value is not None
    assert round(ordinal.krippendorff_alpha.value, 3) == 0.815


# --------------------------------------------------------------------------------------------
# Gwet's irrCAC R package, dataset cac.raw4raters (Gwet 2014, Handbook, 4th ed., p. 120), as
# printed in the package README and the "weighting" vignette:
#   pa.coeff.raw       pa 0.8181818
#   gwet.ac1.raw       AC1 0.77544, pa 0.8181818, pe 0.1903212
#   fleiss.kappa.raw   0.76117, pe 0.2387153
#   krippen.alpha.raw  0.74342
#   weights = "quadratic": pa 0.9753788; AC2 0.914, pe 0.7137044; alpha 0.84911
# and the irrCAC Python port's tests (3 decimals): AC2 with ordinal weights 0.899 (pa 0.968,
# pe 0.685).


def test_irrcac_raw4raters_unweighted() -> None:
    result = compute_variable(records_from_columns(RAW_4RATERS), "nominal")
    assert result.categories == (1, 2, 3, 4, 5)
    pa = result.percent_agreement
    assert pa.value == pytest.approx(0.8181818, abs=1e-7)
    ac1 = result.gwet_ac1
    assert ac1.value == pytest.approx(0.77544, abs=5e-6)
    assert ac1.observed_agreement == pytest.approx(0.8181818, abs=1e-7)
    assert ac1.chance_agreement == pytest.approx(0.1903212, abs=1e-7)
    gen = result.fleiss_kappa_generalized
    assert gen.value == pytest.approx(0.76117, abs=5e-6)
    assert gen.chance_agreement == pytest.approx(0.2387153, abs=1e-7)
    assert result.krippendorff_alpha.value == pytest.approx(0.74342, abs=5e-6)
    # Reviewers per item differ (1 to 4): the classic Fleiss kappa is undefined, with the reason.
    assert result.fleiss_kappa.value is None
    assert "reviewers per item differ (1 to 4)" in (result.fleiss_kappa.undefined_reason or "")
    # Denominators: 11 items with two or more judgments, 12 in the chance term, 4 reviewers.
    assert (ac1.n_items, ac1.n_items_chance, ac1.n_reviewers, ac1.n_judgments) == (11, 12, 4, 41)
    assert (pa.n_items, pa.n_judgments) == (11, 40)


def test_irrcac_raw4raters_weighted() -> None:
    interval = compute_variable(records_from_columns(RAW_4RATERS), "interval", (1, 2, 3, 4, 5))
    ac2 = interval.gwet_ac2
    assert ac2.weights == "quadratic"
    assert ac2.value == pytest.approx(0.914, abs=5e-6)
    assert ac2.observed_agreement == pytest.approx(0.9753788, abs=1e-7)
    assert ac2.chance_agreement == pytest.approx(0.7137044, abs=1e-7)
    # irrCAC's quadratic-weighted alpha is Krippendorff's interval alpha.
    assert interval.krippendorff_alpha.value == pytest.approx(0.84911, abs=5e-6)
    ordinal = compute_variable(records_from_columns(RAW_4RATERS), "ordinal", (1, 2, 3, 4, 5))
    assert ordinal.gwet_ac2.weights == "ordinal"
    assert round(ordinal.gwet_ac2.value or 0, 3) == 0.899
    assert round(ordinal.gwet_ac2.observed_agreement or 0, 3) == 0.968
    assert round(ordinal.gwet_ac2.chance_agreement or 0, 3) == 0.685


# --------------------------------------------------------------------------------------------
# irrCAC R README, dataset distrib.6raters (15 of Fleiss's 1971 patients, 6 psychiatrists, 5
# diagnoses), distribution of raters by subject and category:
#   gwet.ac1.dist 0.4448007 (pa 0.5511111, pe 0.1914815); fleiss.kappa.dist 0.4139265
#   (pe 0.2340741); krippen.alpha.dist 0.4204384; and, in the weighting vignette, with
#   quadratic.weights(1:5): gwet.ac1.dist 0.4837438 (pa 0.8544444, pe 0.7180556).


def test_irrcac_distrib_6raters() -> None:
    records = records_from_distribution(DISTRIB_6RATERS, DIAGNOSES)
    result = compute_variable(records, "nominal", DIAGNOSES)
    assert result.gwet_ac1.value == pytest.approx(0.4448007, abs=1e-7)
    assert result.gwet_ac1.observed_agreement == pytest.approx(0.5511111, abs=1e-7)
    assert result.gwet_ac1.chance_agreement == pytest.approx(0.1914815, abs=1e-7)
    # Six judgments for every subject: classic and generalized Fleiss' kappa are one number.
    assert result.fleiss_kappa.value == pytest.approx(0.4139265, abs=1e-7)
    assert result.fleiss_kappa_generalized.value == result.fleiss_kappa.value
    assert result.fleiss_kappa.chance_agreement == pytest.approx(0.2340741, abs=1e-7)
    assert result.krippendorff_alpha.value == pytest.approx(0.4204384, abs=1e-7)
    quadratic = compute_variable(
        records_from_distribution(DISTRIB_6RATERS, (1, 2, 3, 4, 5)), "interval", (1, 2, 3, 4, 5)
    )
    assert quadratic.gwet_ac2.value == pytest.approx(0.4837438, abs=1e-7)
    assert quadratic.gwet_ac2.observed_agreement == pytest.approx(0.8544444, abs=1e-7)
    assert quadratic.gwet_ac2.chance_agreement == pytest.approx(0.7180556, abs=1e-7)


# --------------------------------------------------------------------------------------------
# Fleiss (1971), "Measuring nominal scale agreement among many raters": 30 patients, 6 raters
# each, 5 diagnoses; published kappa = .430 (R irr kappam.fleiss: 0.4302445). The raw table is
# R irr's "diagnoses" dataset (as reproduced in statsmodels' tests); its category totals
# (26, 26, 30, 55, 43) are checked so that a transcription error cannot pass unnoticed.

FLEISS_1971 = [
    [4, 4, 4, 4, 4, 4],
    [2, 2, 2, 5, 5, 5],
    [2, 3, 3, 3, 3, 5],
    [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4],
    [1, 1, 3, 3, 3, 3],
    [3, 3, 3, 3, 5, 5],
    [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4],
    [5, 5, 5, 5, 5, 5],
    [1, 4, 4, 4, 4, 4],
    [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3],
    [1, 4, 4, 4, 4, 4],
    [2, 2, 4, 4, 4, 5],
    [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5],
    [1, 1, 1, 1, 1, 2],
    [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5],
    [2, 4, 4, 4, 4, 4],
    [2, 2, 4, 5, 5, 5],
    [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5],
    [2, 2, 2, 2, 2, 4],
    [1, 1, 1, 1, 5, 5],
    [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3],
    [5, 5, 5, 5, 5, 5],
]


def test_fleiss_1971_thirty_patients() -> None:
    assert np.bincount(np.array(FLEISS_1971).ravel())[1:].tolist() == [26, 26, 30, 55, 43]
    records = [
        (f"patient{i + 1}", f"rater{j + 1}", value)
        for i, row in enumerate(FLEISS_1971)
        for j, value in enumerate(row)
    ]
    result = compute_variable(records, "nominal", (1, 2, 3, 4, 5))
    fleiss = result.fleiss_kappa
    assert fleiss.value is not None
    assert round(fleiss.value, 3) == 0.430
    assert fleiss.value == pytest.approx(0.4302445, abs=1e-7)
    assert result.fleiss_kappa_generalized.value == pytest.approx(fleiss.value, abs=1e-15)
    assert (fleiss.n_items, fleiss.n_reviewers, fleiss.n_judgments) == (30, 6, 180)
    assert result.min_judgments_per_item == result.max_judgments_per_item == 6


# Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories; kappa 0.210.
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_wikipedia_fleiss_example() -> None:
    result = compute_variable(
        records_from_distribution(WIKIPEDIA_FLEISS, (1, 2, 3, 4, 5)), "nominal", (1, 2, 3, 4, 5)
    )
    assert result.fleiss_kappa.value is not None
    assert round(result.fleiss_kappa.value, 3) == 0.210


# --------------------------------------------------------------------------------------------
# Cohen's kappa


def test_wikipedia_cohen_example() -> None:
    # Wikipedia, "Cohen's kappa": 50 proposals, 20 yes/yes, 5 A-yes/B-no, 10 A-no/B-yes,
    # 15 no/no: p_o = 0.7, p_e = 0.5, kappa = 0.4.
    records = records_from_table([[20, 5], [10, 15]], ("yes", "no"))
    result = compute_variable(records, "nominal")
    (pair,) = result.pairs
    assert pair.cohen_kappa.value == pytest.approx(0.4, abs=1e-12)
    assert pair.cohen_kappa.observed_agreement == pytest.approx(0.7, abs=1e-12)
    assert pair.cohen_kappa.chance_agreement == pytest.approx(0.5, abs=1e-12)
    assert pair.n_items == 50 and pair.cohen_kappa.n_judgments == 100
    # Categories are sorted labels ("no" before "yes"); rows are reviewer A.
    assert pair.matrix().categories == ("no", "yes")
    assert pair.matrix().counts == ((15, 10), (5, 20))
    assert pair.cohen_kappa_linear.value is None
    assert "nominal" in (pair.cohen_kappa_linear.undefined_reason or "")


def test_irrcac_cont3x3abstractors() -> None:
    # irrCAC README / weighting vignette, 100 pregnancies classified by 2 abstractors:
    # kappa2.table 0.7964094 (quadratic.weights(1:3): 0.8921569); scott2.table 0.7962397;
    # gwet.ac1.table 0.8493305 (quadratic: 0.9402369); krippen2.table 0.7972585 (quadratic:
    # 0.8926487); pa2.table 0.89.
    records = records_from_table(ABSTRACTORS, (1, 2, 3))
    nominal = compute_variable(records, "nominal", (1, 2, 3))
    (pair,) = nominal.pairs
    assert pair.cohen_kappa.value == pytest.approx(0.7964094, abs=1e-7)
    assert pair.percent_agreement.value == pytest.approx(0.89, abs=1e-12)
    # Fleiss' kappa with two reviewers is Scott's pi.
    assert nominal.fleiss_kappa.value == pytest.approx(0.7962397, abs=1e-7)
    assert nominal.gwet_ac1.value == pytest.approx(0.8493305, abs=1e-7)
    assert nominal.krippendorff_alpha.value == pytest.approx(0.7972585, abs=1e-7)
    interval = compute_variable(records, "interval", (1, 2, 3))
    (pair,) = interval.pairs
    assert pair.cohen_kappa_quadratic.value == pytest.approx(0.8921569, abs=1e-7)
    assert interval.gwet_ac2.value == pytest.approx(0.9402369, abs=1e-7)
    assert interval.krippendorff_alpha.value == pytest.approx(0.8926487, abs=1e-7)


def test_sas_weighted_kappa_example() -> None:
    # SAS PROC FREQ printout reproduced in statsmodels' tests: simple kappa 0.4842, weighted
    # kappa 0.4701 with Cicchetti-Allison (linear) weights on scores 0, 1, 2.
    records = records_from_table([[0, 4, 1], [0, 8, 0], [0, 1, 5]], (0, 1, 2))
    (pair,) = compute_variable(records, "ordinal", (0, 1, 2)).pairs
    assert pair.cohen_kappa.value == pytest.approx(0.4842, abs=5e-5)
    assert pair.cohen_kappa_linear.value == pytest.approx(0.4701, abs=5e-5)


"""R irr's "anxiety" dataset: 20 subjects x 3 raters (one row per rater above)."""


def test_r_irr_anxiety_kappa2() -> None:
    # R irr, kappa2(anxiety[, 2:3]) with weights "unweighted" -0.006289308, "equal" 0.1459075,
    # "squared" 0.2520325. irr weighs the observed levels 1, 2, 3, 4, 6 by position, which is
    # what a scale of labels does here (labels are placed at 1..q, as in irrCAC).
    columns = {
        "rater2": [str(v) for v in ANXIETY[:, 1]],
        "rater3": [str(v) for v in ANXIETY[:, 2]],
    }
    (pair,) = compute_variable(
        records_from_columns(columns), "ordinal", ("1", "2", "3", "4", "6")
    ).pairs
    assert pair.cohen_kappa.value == pytest.approx(-0.006289308, abs=1e-9)
    assert pair.cohen_kappa_linear.value == pytest.approx(0.1459075, abs=1e-7)
    assert pair.cohen_kappa_quadratic.value == pytest.approx(0.2520325, abs=1e-7)


def test_declared_scale_counts_unobserved_categories() -> None:
    # Hand-computed. A = a, b, d, d and B = a, d, d, b on the ordinal labels (a, b, c, d), c never
    # used. Labels sit at positions 1..4, so linear weights give w(a, b) = 2/3, w(b, d) = 1/3,
    # w(a, d) = 0: p_o = 2/3, p_e = 13/24, kappa = 3/11. On the observed labels alone
    # (positions 1..3) it would be 3/7.
    records = records_from_columns({"A": ["a", "b", "d", "d"], "B": ["a", "d", "d", "b"]})
    (pair,) = compute_variable(records, "ordinal", ("a", "b", "c", "d")).pairs
    assert pair.cohen_kappa_linear.value == pytest.approx(3 / 11, abs=1e-12)
    assert pair.cohen_kappa_linear.observed_agreement == pytest.approx(2 / 3, abs=1e-12)
    assert pair.cohen_kappa_linear.chance_agreement == pytest.approx(13 / 24, abs=1e-12)
    assert pair.matrix().counts == ((1, 0, 0, 0), (0, 0, 0, 1), (0, 0, 0, 0), (0, 1, 0, 1))
    (observed_only,) = compute_variable(records, "ordinal", ("a", "b", "d")).pairs
    assert observed_only.cohen_kappa_linear.value == pytest.approx(3 / 7, abs=1e-12)
    # Gwet's chance term divides by q - 1 over the declared categories: the yes/no data of
    # Wikipedia's kappa example (pi_yes = 0.55) with a third, unused answer "maybe" gives
    # P_e = 0.495 / 2 and AC1 = (0.7 - 0.2475) / 0.7525; with two answers (0.7 - 0.495) / 0.505.
    yes_no = records_from_table([[20, 5], [10, 15]], ("yes", "no"))
    three = compute_variable(yes_no, "nominal", ("yes", "no", "maybe"))
    assert three.gwet_ac1.value == pytest.approx(0.4525 / 0.7525, abs=1e-12)
    two = compute_variable(yes_no, "nominal", ("yes", "no"))
    assert two.gwet_ac1.value == pytest.approx(0.205 / 0.505, abs=1e-12)
    # Kappa, alpha and Fleiss' kappa do not move: an unused category has no share of chance.
    assert three.pairs[0].cohen_kappa.value == pytest.approx(two.pairs[0].cohen_kappa.value or 0)
    assert three.krippendorff_alpha.value == pytest.approx(two.krippendorff_alpha.value or 0)


def test_weight_matrices_match_irrcac() -> None:
    # irrCAC weighting vignette, categories 1:3.
    assert weight_matrix("linear", (1, 2, 3)).tolist() == [
        [1.0, 0.5, 0.0],
        [0.5, 1.0, 0.5],
        [0.0, 0.5, 1.0],
    ]
    assert weight_matrix("quadratic", (1, 2, 3)).tolist() == [
        [1.0, 0.75, 0.0],
        [0.75, 1.0, 0.75],
        [0.0, 0.75, 1.0],
    ]
    assert np.allclose(
        weight_matrix("ordinal", (1, 2, 3)),
        [[1, 2 / 3, 0], [2 / 3, 1, 2 / 3], [0, 2 / 3, 1]],
    )
    assert weight_matrix("identity", (1, 2, 3)).tolist() == np.eye(3).tolist()


def test_cohen_kappa_agrees_with_scikit_learn() -> None:
    from sklearn import metrics

    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, 300)
    b = np.where(rng.random(300) < 0.6, a, rng.integers(0, 4, 300))
    records = records_from_columns({"a": a.tolist(), "b": b.tolist()})
    (pair,) = compute_variable(records, "ordinal", (0, 1, 2, 3)).pairs
    for figure, weights in (
        (pair.cohen_kappa, None),
        (pair.cohen_kappa_linear, "linear"),
        (pair.cohen_kappa_quadratic, "quadratic"),
    ):
        expected = metrics.cohen_kappa_score(a, b, weights=weights)
        assert figure.value == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------------------------
# Plain reference implementations written from the published formulas (per item, no tricks),
# to cross-check the vectorised code on random data.


def reference_multi(matrix: np.ndarray, q: int) -> dict[str, float]:
    counts = _counts(matrix, q)
    counts = counts[counts.sum(axis=1) >= 1]
    r = counts.sum(axis=1)
    two = r >= 2
    pa = float(
        np.mean(
            [(c * (c - 1)).sum() / (m * (m - 1)) for c, m in zip(counts[two], r[two], strict=True)]
        )
    )
    pi = np.mean(counts / r[:, None], axis=0)
    pe_fleiss = float((pi**2).sum())
    pe_ac1 = float((pi * (1 - pi)).sum() / (q - 1))
    return {
        "pa": pa,
        "fleiss": (pa - pe_fleiss) / (1 - pe_fleiss) if pe_fleiss < 1 else math.nan,
        "ac1": (pa - pe_ac1) / (1 - pe_ac1),
    }


def reference_cohen(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> float:
    both = (a >= 0) & (b >= 0)
    a, b = a[both], b[both]
    n = a.size
    q = w.shape[0]
    table = np.zeros((q, q))
    for x, y in zip(a, b, strict=True):
        table[x, y] += 1
    p = table / n
    po = float((w * p).sum())
    pe = float((w * np.outer(p.sum(axis=1), p.sum(axis=0))).sum())
    return (po - pe) / (1 - pe)


@PROPERTY_SETTINGS
@given(rating_tables())
def test_alpha_matches_the_krippendorff_package(
    table: tuple[np.ndarray, tuple[int, ...], Level],
) -> None:
    matrix, scale, level = table
    result = compute_variable(to_records(matrix, scale), level, scale, resamples=0)
    reliability = np.where(matrix >= 0, np.array(scale, float)[np.maximum(matrix, 0)], np.nan).T
    pairable = (matrix >= 0).sum(axis=1) >= 2
    try:
        with np.errstate(all="ignore"):
            package = float(
                krippendorff.alpha(reliability, level_of_measurement=level, value_domain=scale)
            )
    except ValueError:  # the package refuses: no unit with two values
        package = math.nan
    alpha = result.krippendorff_alpha
    if alpha.value is not None:
        assert alpha.value == pytest.approx(package, abs=1e-9)
    elif math.isfinite(package):
        # Ours is undefined only for a stated reason the package does not check.
        assert pairable.sum() < 2 or len({int(c) for c in matrix[pairable].ravel() if c >= 0}) < 2
        assert alpha.undefined_reason


@PROPERTY_SETTINGS
@given(rating_tables())
def test_fleiss_ac1_and_percent_agreement_match_reference(
    table: tuple[np.ndarray, tuple[int, ...], Level],
) -> None:
    matrix, scale, level = table
    result = compute_variable(to_records(matrix, scale), level, scale, resamples=0)
    if result.n_items < 2 or result.n_reviewers < 2:
        assert result.percent_agreement.value is None and result.gwet_ac1.value is None
        return
    ref = reference_multi(matrix, len(scale))
    assert result.percent_agreement.value == pytest.approx(ref["pa"], abs=1e-12)
    assert result.gwet_ac1.value == pytest.approx(ref["ac1"], abs=1e-12)
    if math.isfinite(ref["fleiss"]):
        assert result.fleiss_kappa_generalized.value == pytest.approx(ref["fleiss"], abs=1e-12)
    else:
        assert result.fleiss_kappa_generalized.value is None


@PROPERTY_SETTINGS
@given(rating_tables())
def test_cohen_kappa_matches_reference(table: tuple[np.ndarray, tuple[int, ...], Level]) -> None:
    matrix, scale, level = table
    result = compute_variable(to_records(matrix, scale), level, scale, resamples=0)
    for pair in result.pairs:
        a = matrix[:, int(pair.reviewer_a[3:])]
        b = matrix[:, int(pair.reviewer_b[3:])]
        for figure, kind in (
            (pair.cohen_kappa, "identity"),
            (pair.cohen_kappa_linear, "linear"),
            (pair.cohen_kappa_quadratic, "quadratic"),
        ):
            if figure.value is None:
                continue
            expected = reference_cohen(a, b, weight_matrix(kind, scale))
            assert figure.value == pytest.approx(expected, abs=1e-12)
        both = (a >= 0) & (b >= 0)
        assert pair.n_items == int(both.sum())
        assert sum(map(sum, pair.matrix().counts)) == pair.n_items


def _multi_figures(result: VariableAgreement) -> dict[str, Any]:
    """Every declared multi-reviewer figure, by key."""
    return {c.key: f.model_dump() for c, f in result.figures()}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rating_tables(), st.randoms(use_true_random=False))
def test_invariant_to_item_order_and_reviewer_names(
    table: tuple[np.ndarray, tuple[int, ...], Level], shuffler: random.Random
) -> None:
    matrix, scale, level = table
    records = to_records(matrix, scale)
    base = compute_variable(records, level, scale, resamples=100, pair_resamples=100, seed=3)
    shuffled = list(records)
    shuffler.shuffle(shuffled)
    # The whole report, bootstrap intervals included, ignores the order of the records.
    assert (
        compute_variable(shuffled, level, scale, resamples=100, pair_resamples=100, seed=3) == base
    )
    # Renaming the reviewers (reversing their order) changes no multi-reviewer figure, and each
    # pair keeps its kappas.
    n = matrix.shape[1]
    renamed = [(item, f"z{n - int(rev[3:])}", value) for item, rev, value in records]
    other = compute_variable(renamed, level, scale, resamples=100, pair_resamples=100, seed=3)
    if base.n_reviewers == 1:  # the reason names the lone reviewer
        assert other.percent_agreement.undefined_reason == (
            f"only one reviewer ({_lone(renamed)!r}) judged this variable"
        )
        return
    assert _multi_figures(other) == _multi_figures(base)
    assert _pair_kappas(other) == _pair_kappas(base)


def _lone(records: list[Observation]) -> str:
    (name,) = {reviewer for _, reviewer, _ in records}
    return name


def _pair_kappas(result: VariableAgreement) -> list[tuple[int, str, str]]:
    """Each pair's size and kappas, rounded so that summation order cannot show."""

    def shown(value: float | None) -> str:
        return "undefined" if value is None else f"{round(value, 11) + 0.0:.11f}"

    return sorted(
        (p.n_items, shown(p.cohen_kappa.value), shown(p.cohen_kappa_quadratic.value))
        for p in result.pairs
    )


@PROPERTY_SETTINGS
@given(rating_tables())
def test_values_are_in_range_and_never_nan(
    table: tuple[np.ndarray, tuple[int, ...], Level],
) -> None:
    matrix, scale, level = table
    result = compute_variable(
        to_records(matrix, scale), level, scale, resamples=100, pair_resamples=100
    )
    text = result.model_dump_json()
    assert "NaN" not in text and "Infinity" not in text
    figures: list[Figure] = list(_figure_objects(result))
    for figure in figures:
        assert (figure.value is None) != (figure.undefined_reason is None)
        if figure.value is None:
            continue
        assert figure.value <= 1 + 1e-12
        if figure.name == "percent agreement":
            assert 0 <= figure.value <= 1
        if figure.interval is not None:
            assert figure.interval.low < figure.interval.high <= 1 + 1e-12
        large = figure.large_sample
        if large is not None:
            # Not clipped to [-1, 1] (as SAS), but always around the value.
            assert large.standard_error >= 0
            if large.low is not None and large.high is not None:
                assert large.low < figure.value < large.high
            else:
                assert large.standard_error == 0 and large.interval_note


def _figure_objects(result: VariableAgreement) -> list[Figure]:
    out = [f for _c, f in result.figures()]
    for pair in result.pairs:
        out += [f for _c, f in pair.figures()]
    return out


@PROPERTY_SETTINGS
@given(
    st.integers(2, 30),
    st.integers(2, 5),
    st.sampled_from(["nominal", "ordinal", "interval", "ratio"]),
    st.data(),
)
def test_perfect_agreement_gives_one(
    items: int, reviewers: int, level: str, data: st.DataObject
) -> None:
    truth = data.draw(st.lists(st.integers(0, 2), min_size=items, max_size=items))
    if len(set(truth)) < 2:
        truth[0] = (truth[1] + 1) % 3
    scale = (1, 2, 3)
    records = [(f"i{i}", f"r{r}", scale[t]) for i, t in enumerate(truth) for r in range(reviewers)]
    result = compute_variable(records, level, scale, resamples=0)
    for figure in _figure_objects(result):
        if level == "nominal" and (figure.undefined_reason or "").startswith("nominal variable"):
            continue  # a weighted figure: it needs ordered categories
        assert figure.value == pytest.approx(1.0, abs=1e-12), figure.name


# --------------------------------------------------------------------------------------------
# The bootstrap


def test_pattern_bootstrap_matches_resampling_items() -> None:
    # Drawing multinomial counts of count patterns is the same distribution as drawing items:
    # the percentile interval agrees with a plain loop resampling item rows.
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 3, 300)
    matrix = np.where(rng.random((300, 3)) < 0.7, truth[:, None], rng.integers(0, 3, (300, 3)))
    matrix[rng.random((300, 3)) < 0.1] = -1
    matrix = matrix[(matrix >= 0).any(axis=1)]
    records = to_records(matrix, (0, 1, 2))
    result = compute_variable(records, "nominal", (0, 1, 2), resamples=4000, seed=5)
    ours = result.gwet_ac1.interval
    assert ours is not None and ours.resamples == 4000
    counts = _counts(matrix, 3)
    assert result.gwet_ac1.value == pytest.approx(reference_multi(matrix, 3)["ac1"], abs=1e-12)

    def ac1(c: np.ndarray) -> float:  # Gwet's AC1 from an items x categories count matrix
        m = c.sum(axis=1)
        two = m >= 2
        pa = np.mean((c[two] * (c[two] - 1)).sum(axis=1) / (m[two] * (m[two] - 1)))
        pi = np.mean(c / m[:, None], axis=0)
        pe = (pi * (1 - pi)).sum() / 2
        return float((pa - pe) / (1 - pe))

    n = counts.shape[0]
    plain = [ac1(counts[rng.integers(0, n, n)]) for _ in range(4000)]
    low, high = np.quantile(plain, [0.025, 0.975])
    assert ours.low == pytest.approx(low, abs=0.01)
    assert ours.high == pytest.approx(high, abs=0.01)
    assert ours.low < (result.gwet_ac1.value or 0) < ours.high


def test_bootstrap_is_seeded_and_reported() -> None:
    records = records_from_columns(KRIPPENDORFF_2011)
    one = compute_variable(records, "ordinal", (1, 2, 3, 4, 5), seed=1, pair_resamples=200)
    again = compute_variable(records, "ordinal", (1, 2, 3, 4, 5), seed=1, pair_resamples=200)
    other = compute_variable(records, "ordinal", (1, 2, 3, 4, 5), seed=2, pair_resamples=200)
    assert one == again
    assert one.krippendorff_alpha.interval != other.krippendorff_alpha.interval
    interval = one.krippendorff_alpha.interval
    assert interval is not None
    assert (interval.resamples, interval.seed, interval.confidence) == (1000, 1, 0.95)
    assert interval.resamples_used <= 1000
    assert "items resampled with replacement" in interval.method
    pair_interval = one.pairs[0].cohen_kappa.interval
    assert pair_interval is not None and pair_interval.resamples == 200
    assert "items judged by both" in pair_interval.method


def test_default_has_no_pair_intervals_and_says_why() -> None:
    result = compute_variable(records_from_columns(KRIPPENDORFF_2011), "ordinal", (1, 2, 3, 4, 5))
    assert result.gwet_ac1.interval is not None
    kappa = result.pairs[0].cohen_kappa
    assert kappa.value is not None and kappa.interval is None
    # The variable was resampled, the pairs were not: the note names the pairs' own setting.
    assert kappa.interval_note == (
        "no bootstrap of the reviewer pairs: pair_resamples = 0 (--pair-resamples N draws N "
        "resamples for each pair)"
    )
    assert "not requested" not in (result.pairs[0].percent_agreement.interval_note or "")
    # The kappa still has its large-sample interval.
    assert kappa.large_sample is not None and kappa.large_sample.low is not None
    none = compute_variable(records_from_columns(KRIPPENDORFF_2011), "ordinal", resamples=0)
    assert none.krippendorff_alpha.interval is None
    assert none.krippendorff_alpha.interval_note == "bootstrap not requested (resamples = 0)"


# --------------------------------------------------------------------------------------------
# Degenerate cases: an explicit reason, never NaN, inf or an exception


def _all_undefined_multi(result: VariableAgreement, reason: str) -> None:
    for name in _multi_figures(result):
        figure: Figure = getattr(result, name)
        assert figure.value is None, name
        if name == "gwet_ac2" and result.level == "nominal":
            assert figure.undefined_reason == (
                "nominal variable: AC2 needs ordered categories; see Gwet's AC1"
            )
            continue
        if (
            result.level == "nominal"
            and name.startswith(("gwet_ac2_", "fleiss_kappa_"))
            and (name != "fleiss_kappa_generalized")
        ):
            assert (figure.undefined_reason or "").startswith(
                "nominal variable: weights need ordered categories; see "
            ), name
            continue
        assert reason in (figure.undefined_reason or ""), (name, figure.undefined_reason)


def test_one_reviewer() -> None:
    result = compute_variable(
        [("a", "solo", 1), ("b", "solo", 2), ("c", "solo", 1)], "ordinal", (0, 1, 2)
    )
    _all_undefined_multi(result, "only one reviewer ('solo')")
    assert result.pairs == ()
    assert (result.n_items, result.n_items_judged, result.n_reviewers) == (0, 3, 1)


def test_no_judgments_at_all() -> None:
    result = compute_variable([("a", "x", None), ("a", "y", None)], "nominal", ("p", "q"))
    _all_undefined_multi(result, "no judgments")
    assert (result.n_judgments, result.n_reviewers, result.pairs) == (0, 0, ())
    empty = compute_variable([], "interval", (0, 1))
    _all_undefined_multi(empty, "no judgments")


def test_no_variation() -> None:
    records = records_from_columns({"A": [1, 1, 1, 1], "B": [1, 1, 1, 1]})
    result = compute_variable(records, "ordinal", (0, 1, 2), pair_resamples=100)
    for figure in (
        result.krippendorff_alpha,
        result.fleiss_kappa,
        result.fleiss_kappa_generalized,
    ):
        assert figure.value is None
        assert figure.undefined_reason == "no variation: every judgment is 1"
    (pair,) = result.pairs
    for figure in (pair.cohen_kappa, pair.cohen_kappa_linear, pair.cohen_kappa_quadratic):
        assert figure.value is None
        assert figure.undefined_reason == (
            "no variation: chance agreement is 1 (both reviewers used only 1)"
        )
    # Percent agreement, AC1 and AC2 stay defined (their chance term does not reach 1), as in
    # irrCAC: every pair of judgments agrees.
    assert result.percent_agreement.value == 1.0
    assert result.gwet_ac1.value == 1.0
    assert result.gwet_ac2.value == 1.0


def test_no_overlap_between_a_pair() -> None:
    records = records_from_columns({"A": [1, 2, NA, NA], "B": [NA, NA, 1, 2], "C": [1, 2, 1, 2]})
    result = compute_variable(records, "ordinal", (1, 2), pair_resamples=100)
    by_pair = {(p.reviewer_a, p.reviewer_b): p for p in result.pairs}
    ab = by_pair[("A", "B")]
    assert ab.n_items == 0
    assert ab.cohen_kappa.undefined_reason == "no item was judged by both reviewers"
    assert ab.percent_agreement.undefined_reason == "no item was judged by both reviewers"
    assert ab.matrix().counts == ((0, 0), (0, 0))
    assert by_pair[("A", "C")].cohen_kappa.value == 1.0
    assert result.krippendorff_alpha.value == 1.0


def test_fewer_than_two_items() -> None:
    result = compute_variable(records_from_columns({"A": [1, 2], "B": [1, NA]}), "nominal")
    _all_undefined_multi(result, "fewer than 2 items were judged by two or more reviewers (1)")
    (pair,) = result.pairs
    assert (
        pair.cohen_kappa.undefined_reason == "fewer than 2 items were judged by both reviewers (1)"
    )


def test_single_category_scale() -> None:
    result = compute_variable(
        records_from_columns({"A": ["x", "x"], "B": ["x", "x"]}), "nominal", ("x",)
    )
    assert result.percent_agreement.value == 1.0
    for name in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1"):
        assert getattr(result, name).undefined_reason == "the scale has a single category ('x')"


def test_nan_value_is_a_missing_judgment() -> None:
    records = records_from_columns(KRIPPENDORFF_2011)
    with_nan = [(i, r, math.nan if v is None else v) for i, r, v in records]
    assert compute_variable(with_nan, "interval", resamples=0) == compute_variable(
        records, "interval", resamples=0
    )


# --------------------------------------------------------------------------------------------
# Input contract errors


def test_value_off_the_declared_scale() -> None:
    with pytest.raises(
        AgreementError,
        match=r"reviewer 'B' gave item 'unit02' the value 7, which is not on the scale \(0, 1, 2\)",
    ):
        compute_variable(records_from_columns({"A": [0, 1], "B": [1, 7]}), "ordinal", (0, 1, 2))


def test_duplicate_judgment() -> None:
    with pytest.raises(AgreementError, match="reviewer 'A' judged item 'x' more than once"):
        compute_variable([("x", "A", 1), ("x", "B", 1), ("x", "A", 2)], "nominal")


def test_levels_need_fitting_values() -> None:
    with pytest.raises(AgreementError, match="needs numeric values or a declared scale"):
        compute_variable([("x", "A", "low"), ("x", "B", "high")], "ordinal")
    with pytest.raises(AgreementError, match="needs numbers"):
        compute_variable([("x", "A", "low")], "interval", ("low", "high"))
    with pytest.raises(AgreementError, match="unknown level 'fuzzy'"):
        compute_variable([("x", "A", 1)], "fuzzy")
    with pytest.raises(AgreementError, match="repeats a category"):
        compute_variable([("x", "A", 1)], "nominal", (1, 2, 1))
    with pytest.raises(AgreementError, match=r"no level declared for variable\(s\) 'b'"):
        compute_all({"a": [], "b": []}, {"a": "nominal"})


# --------------------------------------------------------------------------------------------
# Several variables


def test_compute_all_reports_each_variable_with_its_own_level() -> None:
    k2011 = records_from_columns(KRIPPENDORFF_2011)
    report = compute_all(
        {"score": k2011, "label": records_from_table([[20, 5], [10, 15]], ("yes", "no"))},
        {"score": "interval", "label": "nominal"},
        {"score": (1, 2, 3, 4, 5)},
        seed=9,
    )
    assert isinstance(report, AgreementReport)
    assert [v.variable for v in report.variables] == ["score", "label"]
    assert (report.seed, report.resamples, report.pair_resamples) == (9, 1000, 0)
    assert round(report.variables[0].krippendorff_alpha.value or 0, 3) == 0.849
    assert report.variables[1].pairs[0].cohen_kappa.value == pytest.approx(0.4)
    # A variable's figures do not depend on which other variables are computed with it.
    alone = compute_all({"score": k2011}, {"score": "interval"}, {"score": (1, 2, 3, 4, 5)}, seed=9)
    assert alone.variables[0] == report.variables[0]
    json.loads(report.model_dump_json())


# --------------------------------------------------------------------------------------------
# The CSV table


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def k2011_csv() -> str:
    lines = ["item,reviewer,variable,value"]
    for item, reviewer, value in records_from_columns(KRIPPENDORFF_2011):
        lines.append(f"{item},{reviewer},score,{'' if value is None else value}")
    return "\n".join(lines) + "\n"


def test_table_single_variable_with_level_and_scale(tmp_path: Path) -> None:
    path = write(tmp_path / "judgments.csv", k2011_csv())
    report = agreement_table(path, level="ordinal", scale=(1, 2, 3, 4, 5))
    (variable,) = report.variables
    assert variable.variable == "score"
    assert round(variable.krippendorff_alpha.value or 0, 3) == 0.815
    # Blank values are missing judgments: 48 rows, 41 judgments.
    assert variable.n_judgments == 41
    direct = compute_variable(
        records_from_columns(KRIPPENDORFF_2011), "ordinal", (1, 2, 3, 4, 5), variable="score"
    )
    assert variable == direct


def test_table_several_variables_with_header(tmp_path: Path) -> None:
    rows = [k2011_csv().rstrip("\n")]
    for item, reviewer, value in records_from_table([[20, 5], [10, 15]], ("yes", "no")):
        rows.append(f"{item},{reviewer},accepted,{value}")
    path = write(tmp_path / "judgments.csv", "\n".join(rows) + "\n")
    header = write(
        tmp_path / "variables.toml",
        '[variables.score]\nlevel = "interval"\nscale = [1, 2, 3, 4, 5]\n\n'
        '[variables.accepted]\nlevel = "nominal"\nscale = ["yes", "no"]\n',
    )
    report = agreement_table(path, header=header, seed=4)
    by_name = {v.variable: v for v in report.variables}
    assert round(by_name["score"].krippendorff_alpha.value or 0, 3) == 0.849
    accepted = by_name["accepted"]
    assert accepted.categories == ("yes", "no")
    assert accepted.pairs[0].cohen_kappa.value == pytest.approx(0.4)
    assert accepted.pairs[0].matrix().counts == ((20, 5), (10, 15))


def test_table_columns_in_any_order_and_extra_columns(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.csv",
        "value,note,reviewer,item,variable\n1,,a,x,v\n1,ok,b,x,v\n2,,a,y,v\n2,,b,y,v\n",
    )
    (variable,) = agreement_table(path, level="nominal").variables
    assert variable.krippendorff_alpha.value == 1.0
    assert variable.categories == ("1", "2")  # nominal labels stay as written


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [
        (
            "item,reviewer,value\nx,a,1\n",
            {"level": "nominal"},
            r"t\.csv:1: missing column 'variable': expected columns item, reviewer, variable, "
            "value",
        ),
        (
            "item,reviewer,variable,value\nx,a,v\n",
            {"level": "nominal"},
            r"t\.csv:2: expected 4 fields as in the header row, found 3",
        ),
        (
            "item,reviewer,variable,value\nx,a,v,high\n",
            {"level": "ordinal"},
            r"t\.csv:2: value: expected a number for the ordinal variable 'v', got 'high'",
        ),
        (
            "item,reviewer,variable,value\nx,a,v,1\nx,b,v,3\n",
            {"level": "ordinal", "scale": (0, 1, 2)},
            r"t\.csv:3: value: '3' is not on the declared scale \(0, 1, 2\) of variable 'v'",
        ),
        (
            "item,reviewer,variable,value\nx,a,v,1\nx,a,v,2\n",
            {"level": "nominal"},
            r"t\.csv:3: reviewer 'a' already judged item 'x' for variable 'v' on line 2",
        ),
        (
            "item,reviewer,variable,value\n,a,v,1\n",
            {"level": "nominal"},
            r"t\.csv:2: item: empty item: expected a item name",
        ),
        (
            "item,reviewer,variable,value\nx,a,v,1\nx,a,w,1\n",
            {"level": "nominal"},
            r"t\.csv: the table holds 2 variables \('v', 'w'\)",
        ),
        ("", {"level": "nominal"}, r"t\.csv:1: empty file"),
        ("item,reviewer,variable,value\n", {"level": "nominal"}, r"t\.csv:2: no judgments"),
        ("item,reviewer,variable,value\nx,a,v,1\n", {}, r"t\.csv: no level given"),
        (
            "item,reviewer,variable,value\nx,a,v,1\n",
            {"level": "fuzzy"},
            r"t\.csv: unknown level 'fuzzy'",
        ),
        (
            "item,reviewer,variable,value\nx,a,v,inf\n",
            {"level": "interval"},
            r"t\.csv:2: value: expected a finite number",
        ),
        (
            'item,reviewer,variable,value\nx,a,v,"1\n',
            {"level": "nominal"},
            r"t\.csv:\d+: malformed CSV",
        ),
    ],
)
def test_table_bad_input(tmp_path: Path, text: str, kwargs: dict[str, Any], expected: str) -> None:
    path = write(tmp_path / "t.csv", text)
    with pytest.raises(InputError, match=expected):
        agreement_table(path, **kwargs)


def test_table_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read file"):
        agreement_table(tmp_path / "absent.csv", level="nominal")
    bad = tmp_path / "latin1.csv"
    bad.write_bytes("item,reviewer,variable,value\nx,a,v,caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="invalid UTF-8"):
        agreement_table(bad, level="nominal")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            "[variables.v]\nlevel = 'fuzzy'\n",
            r"h\.toml: \$\.variables\.v\.level: Input should be 'nominal', 'ordinal', "
            "'interval' or 'ratio'",
        ),
        ("[variables.v\n", r"h\.toml: malformed TOML"),
        (
            "[variables.v]\nlevel = 'interval'\nscale = ['a', 'b']\n",
            r"h\.toml: \$\.variables\.v\.scale: variable 'v': an interval scale needs numbers",
        ),
        (
            "[variables.w]\nlevel = 'nominal'\n",
            r"t\.csv:2: variable: variable 'v' is not declared in the header file",
        ),
    ],
)
def test_table_bad_header(tmp_path: Path, header: str, expected: str) -> None:
    path = write(tmp_path / "t.csv", "item,reviewer,variable,value\nx,a,v,1\nx,b,v,1\n")
    head = write(tmp_path / "h.toml", header)
    with pytest.raises(InputError, match=expected):
        agreement_table(path, header=head)


# --------------------------------------------------------------------------------------------
# The benchmark function (no timing assertions)


def test_bench_agreement_small() -> None:
    result = bench_agreement(items=200, reviewers=3, variables=5, repeat=1)
    for key in (
        "ours_seconds",
        "baseline_seconds",
        "ratio",
        "goal_ratio",
        "goal_met",
        "resamples",
        "pair_resamples",
        "judgments",
        "alpha_max_abs_difference_from_package",
    ):
        assert key in result
    assert isinstance(result["goal_met"], bool)
    assert result["goal_ratio"] == 3.0
    assert result["alpha_max_abs_difference_from_package"] < 1e-9
    assert sorted(result["levels"].values()) == [
        "interval",
        "nominal",
        "nominal",
        "nominal",
        "ordinal",
    ]
    json.dumps(result)
