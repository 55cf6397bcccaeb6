"""Cohen's kappa's large-sample standard errors, intervals and test of kappa = 0.

Sources of the published values:
- SAS PROC FREQ printout of the 3 x 3 table [[0, 4, 1], [0, 8, 0], [0, 1, 5]] (scores 0, 1, 2),
  as reproduced in statsmodels' tests (statsmodels/stats/tests/test_inter_rater.py): simple
  kappa 0.4842, ASE 0.1380, 95% confidence limits 0.2137 and 0.7547; ASE under H0 0.1484,
  Z 3.2626, one-sided Pr > Z 0.0006, two-sided Pr > |Z| 0.0011; weighted kappa (Cicchetti-Allison
  weights, i.e. linear on the scores) 0.4701, ASE 0.1457, limits 0.1845 and 0.7558; ASE under H0
  0.1426, Z 3.2971, one-sided 0.0005, two-sided 0.0010.
- irrCAC, vignette "Weighted Chance-corrected Agreement Coefficients" (Gwet, 2019):
  kappa2.table(cont3x3abstractors, weights = quadratic.weights(1:3)) gives coeff.val 0.8921569
  and coeff.se 0.03535151 (its interval uses a t quantile, so only the standard error is
  compared).
- R irr's kappa2(anxiety[, 2:3]), as reproduced in statsmodels' tests: unweighted kappa
  -0.006289308, z = -0.0604067, p = 0.9518317; "equal" weights 0.1459075, z = 1.282472,
  p = 0.1996772; "squared" 0.2520325, z = 1.437451, p = 0.1505898. irr's z is kappa over the
  standard error under the null (Fleiss, Cohen and Everitt 1969) and its weights sit on the ranks
  of the levels observed, which is ``weight_basis="observed"`` here.
- The standard normal quantiles z(0.975) = 1.959964 and z(0.95) = 1.644854 (any normal table).
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abp_tui.analysis.tables import agreement_table, cell_text, pairs_table
from abp_tui.cli import main
from abp_tui.cli.text import agreement_text
from abp_tui.export.tables import table_csv
from abp_tui.stats.agreement import (
    Figure,
    compute_all,
    compute_variable,
    pair_from_confusion,
    weight_matrix,
)
from tests.agreement_data import ABSTRACTORS, ANXIETY, records_from_columns, records_from_table

SAS_TABLE = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]


def _large(figure: Figure) -> tuple[float, float, float, float, float, float]:
    ls = figure.large_sample
    assert ls is not None and ls.low is not None and ls.high is not None
    assert ls.standard_error_null is not None and ls.z is not None and ls.p_value is not None
    return ls.standard_error, ls.low, ls.high, ls.standard_error_null, ls.z, ls.p_value


def test_sas_simple_and_weighted_kappa_with_their_standard_errors() -> None:
    pair = pair_from_confusion(SAS_TABLE, [0, 1, 2], "ordinal")
    kappa, linear = pair.cohen_kappa, pair.cohen_kappa_linear
    assert round(kappa.value or 0, 4) == 0.4842
    se, low, high, se0, z, p = _large(kappa)
    assert (round(se, 4), round(low, 4), round(high, 4)) == (0.1380, 0.2137, 0.7547)
    assert (round(se0, 4), round(z, 4), round(p, 4)) == (0.1484, 3.2626, 0.0011)
    assert round(p / 2, 4) == 0.0006  # SAS's one-sided Pr > Z
    assert round(linear.value or 0, 4) == 0.4701
    se, low, high, se0, z, p = _large(linear)
    assert (round(se, 4), round(low, 4), round(high, 4)) == (0.1457, 0.1845, 0.7558)
    assert (round(se0, 4), round(z, 4), round(p, 4)) == (0.1426, 3.2971, 0.0010)
    assert round(p / 2, 4) == 0.0005
    # The convention is named in the figure, so every face shows it.
    large = kappa.large_sample
    assert large is not None and large.quantile == pytest.approx(1.959964, abs=5e-7)
    assert "Fleiss, Cohen and Everitt (1969)" in large.method
    assert "Fleiss, Cohen and Everitt (1969)" in kappa.source
    assert "Fleiss, Cohen and Everitt (1969)" in linear.source


def test_the_same_standard_errors_for_every_reviewer_pair() -> None:
    # The long table of the same judgments gives the same figures as the confusion matrix.
    records = records_from_table(SAS_TABLE, (0, 1, 2))
    (pair,) = compute_variable(records, "ordinal", (0, 1, 2)).pairs
    direct = pair_from_confusion(SAS_TABLE, [0, 1, 2], "ordinal")
    for ours, theirs in (
        (pair.cohen_kappa, direct.cohen_kappa),
        (
            pair.cohen_kappa_linear,
            direct.cohen_kappa_linear,
        ),
    ):
        assert ours.large_sample == theirs.large_sample


def test_irrcac_quadratic_weighted_kappa_standard_error() -> None:
    records = records_from_table(ABSTRACTORS, (1, 2, 3))
    (pair,) = compute_variable(records, "interval", (1, 2, 3)).pairs
    quadratic = pair.cohen_kappa_quadratic
    assert quadratic.value == pytest.approx(0.8921569, abs=1e-7)
    assert quadratic.large_sample is not None
    assert quadratic.large_sample.standard_error == pytest.approx(0.03535151, abs=1e-8)


@pytest.mark.parametrize(
    ("key", "kappa", "z", "p"),
    [
        ("cohen_kappa", -0.006289308, -0.0604067, 0.9518317),
        ("cohen_kappa_linear", 0.1459075, 1.282472, 0.1996772),
        ("cohen_kappa_quadratic", 0.2520325, 1.437451, 0.1505898),
    ],
)
def test_r_irr_kappa2_test_of_kappa_zero_on_the_observed_ranks(
    key: str, kappa: float, z: float, p: float
) -> None:
    # The anxiety ratings are 1..6 but raters 2 and 3 never gave a 5: irr weighs the levels they
    # used by rank (1, 2, 3, 4, 6 at 1..5), which the observed basis does on the declared scale.
    columns = {"rater2": ANXIETY[:, 1].tolist(), "rater3": ANXIETY[:, 2].tolist()}
    records = records_from_columns(columns)
    (pair,) = compute_variable(
        records, "interval", (1, 2, 3, 4, 5, 6), weight_basis="observed"
    ).pairs
    figure = getattr(pair, key)
    assert figure.value == pytest.approx(kappa, abs=1e-7)  # irr prints 7 significant digits
    large = figure.large_sample
    assert large is not None and large.z is not None and large.p_value is not None
    assert large.z == pytest.approx(z, abs=1e-6)
    assert large.p_value == pytest.approx(p, abs=1e-7)


def test_confidence_sets_the_exact_normal_quantile() -> None:
    at_90 = pair_from_confusion(SAS_TABLE, [0, 1, 2], "ordinal", confidence=0.90).cohen_kappa
    large = at_90.large_sample
    assert large is not None and large.low is not None and large.high is not None
    assert large.quantile == pytest.approx(1.644854, abs=5e-7)
    assert large.confidence == 0.90
    value = at_90.value or 0
    assert large.low == pytest.approx(value - 1.6448536269514722 * large.standard_error, abs=1e-12)
    assert large.high == pytest.approx(value + 1.6448536269514722 * large.standard_error, abs=1e-12)
    # The report's confidence reaches every pair.
    report = compute_all(
        {"v": records_from_table(SAS_TABLE, (0, 1, 2))}, {"v": "ordinal"}, confidence=0.90
    )
    assert report.variables[0].pairs[0].cohen_kappa.large_sample == large


def test_perfect_agreement_has_no_zero_width_interval() -> None:
    pair = pair_from_confusion([[6, 0], [0, 4]], ["yes", "no"])
    kappa = pair.cohen_kappa
    assert kappa.value == 1.0
    large = kappa.large_sample
    assert large is not None and large.standard_error == 0
    assert large.low is None and large.high is None
    assert (large.interval_note or "").startswith("undefined: the large-sample standard error is 0")
    # The test of kappa = 0 stands: its variance under the null is positive.
    assert large.z is not None and large.z > 3
    # The faces say so briefly, never "[1.000, 1.000]".
    table = pairs_table(
        compute_variable(records_from_table([[6, 0], [0, 4]], ("yes", "no")), "nominal")
    )
    column = table.index("cohen_kappa")
    assert cell_text(table.columns[column], table.rows[0][column]) == "1.000 (no interval: SE 0)"


def _plain_fce(table: np.ndarray) -> tuple[float, float, float]:
    """Unweighted kappa and its variances as Fleiss, Levin and Paik (2003, section 18.1) and the
    SAS documentation write them, term by term (A + B - C), not through a weight matrix."""
    n = table.sum()
    p = table / n
    q = p.shape[0]
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    po = sum(p[i, i] for i in range(q))
    pe = sum(rows[i] * cols[i] for i in range(q))
    if pe >= 1 - 1e-12:
        return math.nan, math.nan, math.nan
    kappa = (po - pe) / (1 - pe)
    a = sum(p[i, i] * (1 - (rows[i] + cols[i]) * (1 - kappa)) ** 2 for i in range(q))
    b = (1 - kappa) ** 2 * sum(
        p[i, j] * (cols[i] + rows[j]) ** 2 for i in range(q) for j in range(q) if i != j
    )
    c = (kappa - pe * (1 - kappa)) ** 2
    var = (a + b - c) / (n * (1 - pe) ** 2)
    var0 = (pe + pe**2 - sum(rows[i] * cols[i] * (rows[i] + cols[i]) for i in range(q))) / (
        n * (1 - pe) ** 2
    )
    return kappa, var, var0


def _plain_weighted(table: np.ndarray, w: np.ndarray) -> tuple[float, float, float]:
    """Weighted kappa and its variances, cell by cell (Fleiss, Cohen and Everitt 1969)."""
    n = table.sum()
    p = table / n
    q = p.shape[0]
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    po = sum(w[i, j] * p[i, j] for i in range(q) for j in range(q))
    pe = sum(w[i, j] * rows[i] * cols[j] for i in range(q) for j in range(q))
    if pe >= 1 - 1e-12:
        return math.nan, math.nan, math.nan
    kappa = (po - pe) / (1 - pe)
    wi = [sum(cols[j] * w[i, j] for j in range(q)) for i in range(q)]
    wj = [sum(rows[i] * w[i, j] for i in range(q)) for j in range(q)]
    var = (
        sum(
            p[i, j] * (w[i, j] - (wi[i] + wj[j]) * (1 - kappa)) ** 2
            for i in range(q)
            for j in range(q)
        )
        - (kappa - pe * (1 - kappa)) ** 2
    ) / (n * (1 - pe) ** 2)
    var0 = (
        sum(
            rows[i] * cols[j] * (w[i, j] - (wi[i] + wj[j])) ** 2 for i in range(q) for j in range(q)
        )
        - pe**2
    ) / (n * (1 - pe) ** 2)
    return kappa, var, var0


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda q: st.lists(st.integers(0, 12), min_size=q * q, max_size=q * q).map(
            lambda cells: np.array(cells).reshape(q, q)
        )
    )
)
def test_standard_errors_match_the_published_formulas_term_by_term(table: np.ndarray) -> None:
    q = table.shape[0]
    labels = list(range(q))
    if table.sum() < 2:
        return
    pair = pair_from_confusion(table.tolist(), labels, "ordinal")
    checks = (
        (pair.cohen_kappa, _plain_fce(table.astype(float))),
        (
            pair.cohen_kappa_linear,
            _plain_weighted(table.astype(float), weight_matrix("linear", labels)),
        ),
        (
            pair.cohen_kappa_quadratic,
            _plain_weighted(table.astype(float), weight_matrix("quadratic", labels)),
        ),
    )
    for figure, (kappa, var, var0) in checks:
        assert (figure.value is None) == math.isnan(kappa)
        if figure.value is None:
            continue
        assert figure.value == pytest.approx(kappa, abs=1e-12)
        large = figure.large_sample
        assert large is not None
        # Variances, not their roots: a true 0 computed as 1e-16 would be 1e-8 after sqrt.
        assert large.standard_error**2 == pytest.approx(var, abs=1e-12)
        if large.standard_error_null is None:
            assert var0 < 1e-12  # not positive: no test of kappa = 0
        else:
            assert large.standard_error_null**2 == pytest.approx(var0, abs=1e-12)


# -- the faces ------------------------------------------------------------------------------------
def test_every_face_shows_each_pairs_interval_and_standard_error() -> None:
    records = records_from_table(SAS_TABLE, (0, 1, 2))
    report = compute_all({"score": records}, {"score": "ordinal"}, {"score": (0, 1, 2)})
    text = agreement_text(report, "the SAS table")
    assert "0.484 [0.214, 0.755]" in text and "0.470 [0.184, 0.756]" in text
    assert "Fleiss, Cohen and Everitt 1969" in text
    rows = list(csv.DictReader(io.StringIO(table_csv(agreement_table(report)).decode())))
    by_key = {r["coefficient"]: r for r in rows if r["reviewers"] != "all"}
    kappa = by_key["cohen_kappa"]
    assert round(float(kappa["standard_error"]), 4) == 0.1380
    assert round(float(kappa["large_sample_low"]), 4) == 0.2137
    assert round(float(kappa["standard_error_null"]), 4) == 0.1484
    assert round(float(kappa["z_kappa_0"]), 4) == 3.2626
    assert round(float(kappa["p_value_kappa_0"]), 4) == 0.0011
    assert by_key["cohen_kappa_linear"]["weight_basis"] == "declared"
    # The first fields keep their place: the files only gained fields.
    header = next(csv.reader(io.StringIO(table_csv(agreement_table(report)).decode())))
    assert header[:12] == [
        "variable",
        "level",
        "reviewers",
        "figure",
        "value",
        "interval_low",
        "interval_high",
        "n_items",
        "n_reviewers",
        "n_judgments",
        "weights",
        "undefined_or_note",
    ]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_stats_kappa_prints_the_sas_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "scores.csv"
    table.write_text(",0,1,2\n0,0,4,1\n1,0,8,0\n2,0,1,5\n", encoding="utf-8")
    code, out, err = run(capsys, "stats", "kappa", str(table), "--level", "ordinal")
    assert code == 0, err
    assert "Cohen's kappa = 0.484163" in out
    assert "SE = 0.138014, 95% interval [0.213661, 0.754665] (z = 1.959964)" in out
    assert "test of kappa = 0: SE_0 = 0.148398, z = 3.262591" in out
    assert "Cohen's kappa (linear weights) = 0.470120" in out
    assert "SE = 0.145746, 95% interval [0.184463, 0.755777]" in out
    code, out, err = run(
        capsys, "stats", "kappa", str(table), "--level", "ordinal", "--confidence", "0.9", "--json"
    )
    assert code == 0, err
    doc = json.loads(out)
    large = doc["cohen_kappa"]["large_sample"]
    assert large["confidence"] == 0.9 and large["quantile"] == pytest.approx(1.644854, abs=5e-7)
    assert round(doc["cohen_kappa_linear"]["large_sample"]["standard_error"], 4) == 0.1457
    assert doc["weight_basis"] == "declared" and doc["level"] == "ordinal"
    # A nominal table has no weighted kappa.
    code, out, _ = run(capsys, "stats", "kappa", str(table), "--json")
    assert "cohen_kappa_linear" not in json.loads(out)


def test_stats_kappa_numeric_labels_are_weighed_by_their_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Scores 0, 1, 4: linear weights by value give w(0, 1) = 3/4, by position 1/2.
    table = tmp_path / "scores.csv"
    table.write_text(",0,1,4\n0,3,2,0\n1,1,3,1\n4,0,1,4\n", encoding="utf-8")
    code, out, err = run(capsys, "stats", "kappa", str(table), "--level", "interval", "--json")
    assert code == 0, err
    by_value = json.loads(out)["cohen_kappa_linear"]["value"]
    expected = _plain_weighted(
        np.array([[3, 2, 0], [1, 3, 1], [0, 1, 4]], float), weight_matrix("linear", (0, 1, 4))
    )[0]
    assert by_value == pytest.approx(expected, abs=1e-12)
    code, out, _ = run(
        capsys, "stats", "kappa", str(table), "--level", "interval", "--weight-basis", "observed"
    )
    by_rank = _plain_weighted(
        np.array([[3, 2, 0], [1, 3, 1], [0, 1, 4]], float), weight_matrix("linear", (1, 2, 3))
    )[0]
    assert f"Cohen's kappa (linear weights) = {by_rank:.6f}" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--confidence", "1.5"), "stats kappa: --confidence 1.5 is not a confidence level"),
        (("--level", "interval"), "an interval scale needs numbers"),
    ],
)
def test_stats_kappa_bad_settings_are_one_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    table = tmp_path / "t.csv"
    table.write_text("yes,no\n20,5\n10,15\n", encoding="utf-8")
    code, out, err = run(capsys, "stats", "kappa", str(table), *argv)
    assert code == 1 and out == ""
    assert message in err and "Traceback" not in err
