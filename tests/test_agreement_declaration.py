"""A coefficient is its declaration and its kernel: declared, it is computed, carried in the
documents and listed by every face, with nothing else to change.

The toy coefficients here are declared by the test alone and withdrawn after it: over all
reviewers, the share of items every judgment of which agrees, on the items with two or more;
for each pair of reviewers, Scott's pi (Scott 1955), whose chance term pools the two
reviewers' margins.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from abp_tui.analysis.agreement.tables import (
    agreement_table,
    figures_table,
    pairs_table,
    variables_table,
)
from abp_tui.analysis.table_model import FigureValue, Number
from abp_tui.stats.agreement import (
    PAIR_COEFFICIENTS,
    VARIABLE_COEFFICIENTS,
    Coefficient,
    PairAgreement,
    compute_all,
    compute_variable,
    pair_from_counts,
)
from abp_tui.stats.agreement_batch import CountTable, pairs_from_counts
from abp_tui.stats.agreement_kernels import PairSums, Sums, Values
from tests.factories import Cli

KEY = "unanimous_share"


def unanimous_kernel(sums: Sums, _weights: str | None) -> Values:
    """For each row (the data, then each resample): the share of the items with two or more
    judgments whose judgments are all one category."""
    per_item = sums.patterns.sum(axis=1)
    two = per_item >= 2
    unanimous = two & (sums.patterns.max(axis=1) == per_item)
    pairable = sums.weights @ two.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rows = np.where(pairable > 0, (sums.weights @ unanimous) / pairable, np.nan)
    return Values(rows)


UNANIMOUS = Coefficient(
    key=KEY,
    label="unanimous items",
    short="Unanimous",
    measures="how many items every reviewer put in the same category",
    formula="share of the items judged two or more times whose judgments are all one category",
    source="a toy coefficient declared by tests/test_agreement_declaration.py",
    kernel=unanimous_kernel,
    pairable_only=True,
    chance_corrected=False,
)


@pytest.fixture
def declared() -> Iterator[Coefficient]:
    VARIABLE_COEFFICIENTS.declare(UNANIMOUS)
    try:
        yield UNANIMOUS
    finally:
        VARIABLE_COEFFICIENTS.withdraw(KEY)


# Four items, two reviewers: x and z unanimous, y and w not; u judged once (not pairable).
JUDGMENTS = [
    ("x", "a", 1),
    ("x", "b", 1),
    ("y", "a", 1),
    ("y", "b", 2),
    ("z", "a", 2),
    ("z", "b", 2),
    ("w", "a", 1),
    ("w", "b", 2),
    ("u", "a", 2),
]


def test_a_declared_coefficient_is_computed_and_carried(declared: Coefficient) -> None:
    variable = compute_variable(JUDGMENTS, "nominal", resamples=200, seed=3)
    figure = dict((c.key, f) for c, f in variable.figures())[KEY]
    assert figure.value == pytest.approx(0.5)
    assert (figure.name, figure.definition, figure.source) == (
        declared.label,
        declared.formula,
        declared.source,
    )
    assert (figure.n_items, figure.n_judgments) == (4, 8)  # the pairable items alone
    assert figure.interval is not None and figure.interval.resamples == 200
    document = json.loads(variable.model_dump_json())
    assert document[KEY]["value"] == pytest.approx(0.5)
    # The document reads back as the same figures.
    assert type(variable).model_validate(document) == variable
    # The declarations before it give exactly the figures they gave without it.
    VARIABLE_COEFFICIENTS.withdraw(KEY)
    try:
        without = compute_variable(JUDGMENTS, "nominal", resamples=200, seed=3)
    finally:
        VARIABLE_COEFFICIENTS.declare(declared)
    assert {k: v for k, v in document.items() if k != KEY} == json.loads(without.model_dump_json())


def test_a_declared_coefficient_is_listed_by_every_table(declared: Coefficient) -> None:
    variable = compute_variable(JUDGMENTS, "nominal", resamples=0)
    compact = variables_table([variable])
    assert compact.columns[-1].key == KEY
    last = compact.rows[0][-1]
    assert isinstance(last, Number) and last.value == pytest.approx(0.5)
    assert declared.label in [row[0] for row in figures_table(variable).rows]
    report = compute_all({"v": JUDGMENTS}, {"v": "nominal"}, resamples=0)
    assert [row for row in agreement_table(report).rows if KEY in row] != []


def test_a_declared_coefficient_reaches_the_command_and_its_json(
    declared: Coefficient, tmp_path: Path, cli: Cli
) -> None:
    path = tmp_path / "judgments.csv"
    path.write_text(
        "item,reviewer,variable,value\n"
        + "".join(f"{i},{r},v,{value}\n" for i, r, value in JUDGMENTS),
        encoding="utf-8",
    )
    shown = cli("agreement", "--table", path, "--level", "nominal", "--resamples", "0")
    assert shown.code == 0, shown.err
    assert "unanimous items" in shown.out
    document = cli("agreement", "--table", path, "--level", "nominal", "--resamples", "0", "--json")
    assert document.code == 0, document.err
    (variable,) = json.loads(document.out)["variables"]
    assert variable[KEY]["value"] == pytest.approx(0.5)
    assert variable[KEY]["name"] == declared.label


def test_a_figure_of_no_declared_coefficient_is_refused() -> None:
    variable = compute_variable(JUDGMENTS, "nominal", resamples=0)
    document = json.loads(variable.model_dump_json())
    document[KEY] = document["percent_agreement"]
    with pytest.raises(ValueError, match=f"no coefficient is declared as {KEY}"):
        type(variable).model_validate(document)
    assert KEY not in VARIABLE_COEFFICIENTS.declared_keys()


# -- a pair coefficient ----------------------------------------------------------------------
PAIR_KEY = "scott_pi"


def scott_kernel(sums: PairSums, _weights: str | None) -> Values:
    """Scott's pi for each row (the data, then each resample): (p_o - p_e) / (1 - p_e), p_e the
    sum of the squared mean margins of the two reviewers."""
    cells = sums.cells() / sums.n
    po = np.trace(cells, axis1=1, axis2=2)
    pooled = (cells.sum(axis=2) + cells.sum(axis=1)) / 2
    pe = (pooled**2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rows = np.where(pe < 1, (po - pe) / (1 - pe), np.nan)
    return Values(rows, po, pe)


SCOTT = Coefficient(
    key=PAIR_KEY,
    label="Scott's pi",
    short="Scott π",
    measures="agreement of two reviewers beyond chance, their margins pooled",
    formula="(p_o - p_e) / (1 - p_e), p_e = sum_k ((p_k. + p_.k) / 2)^2",
    source="Scott (1955), Reliability of content analysis; a toy declared by this test",
    pair_kernel=scott_kernel,
)


@pytest.fixture
def pair_declared() -> Iterator[Coefficient]:
    PAIR_COEFFICIENTS.declare(SCOTT)
    try:
        yield SCOTT
    finally:
        PAIR_COEFFICIENTS.withdraw(PAIR_KEY)


# Reviewers a and b on six items: rows a, columns b: [[3, 2], [0, 1]]. p_o = 4/6; a's margins
# 5/6, 1/6 and b's 1/2, 1/2 pool to 2/3, 1/3: p_e = 5/9 and pi = (1/9) / (4/9) = 0.25 (Cohen's
# kappa, with p_e = 1/2, is 1/3).
PAIR_JUDGMENTS = [
    (f"i{item}", reviewer, value)
    for item, (first, second) in enumerate([(1, 1), (1, 1), (1, 1), (2, 2), (1, 2), (1, 2)])
    for reviewer, value in (("a", first), ("b", second))
]
SCOTT_PI = 0.25


def test_a_declared_pair_coefficient_is_computed_and_carried(pair_declared: Coefficient) -> None:
    variable = compute_variable(PAIR_JUDGMENTS, "nominal", resamples=0, pair_resamples=300, seed=5)
    (pair,) = variable.pairs
    found = dict((c.key, f) for c, f in pair.figures())
    figure = found[PAIR_KEY]
    assert figure.value == pytest.approx(SCOTT_PI)
    assert found["cohen_kappa"].value == pytest.approx(1 / 3)  # its neighbours unchanged
    assert (figure.observed_agreement, figure.chance_agreement) == pytest.approx((4 / 6, 5 / 9))
    assert (figure.name, figure.definition, figure.source) == (
        pair_declared.label,
        pair_declared.formula,
        pair_declared.source,
    )
    assert (figure.n_items, figure.n_reviewers, figure.n_judgments) == (6, 2, 12)
    # Its bootstrap: the pair's own resamples, the draws its kappas use.
    assert figure.interval is not None and figure.interval.resamples == 300
    assert figure.interval.method == found["cohen_kappa"].interval.method  # type: ignore[union-attr]
    assert figure.large_sample is None  # declared without one
    document = json.loads(variable.model_dump_json())
    assert document["pairs"][0][PAIR_KEY]["value"] == pytest.approx(SCOTT_PI)
    assert type(variable).model_validate(document) == variable
    # The declarations before it give exactly the figures they gave without it.
    PAIR_COEFFICIENTS.withdraw(PAIR_KEY)
    try:
        without = compute_variable(
            PAIR_JUDGMENTS, "nominal", resamples=0, pair_resamples=300, seed=5
        )
    finally:
        PAIR_COEFFICIENTS.declare(pair_declared)
    del document["pairs"][0][PAIR_KEY]
    assert document == json.loads(without.model_dump_json())


def test_a_declared_pair_coefficient_comes_from_counts_and_the_batch(
    pair_declared: Coefficient,
) -> None:
    counts = np.array([[3, 2], [0, 1]])
    single = pair_from_counts(counts, (1, 2), ("a", "b"), resamples=200, seed=2)
    assert getattr(single, PAIR_KEY).value == pytest.approx(SCOTT_PI)
    assert getattr(single, PAIR_KEY).interval is not None
    # The batch (the AI judge report's tables) gives each table pair_from_counts' model.
    table = CountTable(counts, (1, 2), ("a", "b"), "value")
    assert pairs_from_counts([table], resamples=200, seed=2) == [single]
    assert pairs_from_counts([table], resamples=0) == [pair_from_counts(counts, (1, 2), ("a", "b"))]


def test_a_declared_pair_coefficient_is_listed_by_every_table(
    pair_declared: Coefficient, tmp_path: Path, cli: Cli
) -> None:
    variable = compute_variable(PAIR_JUDGMENTS, "nominal", resamples=0)
    pairs = pairs_table(variable)
    assert pairs.columns[-1].key == PAIR_KEY
    last = pairs.rows[0][-1]
    assert isinstance(last, FigureValue) and last.point == pytest.approx(SCOTT_PI)
    report = compute_all({"v": PAIR_JUDGMENTS}, {"v": "nominal"}, resamples=0)
    assert [row for row in agreement_table(report).rows if PAIR_KEY in row] != []
    path = tmp_path / "judgments.csv"
    path.write_text(
        "item,reviewer,variable,value\n"
        + "".join(f"{i},{r},v,{value}\n" for i, r, value in PAIR_JUDGMENTS),
        encoding="utf-8",
    )
    shown = cli("agreement", "--table", path, "--level", "nominal", "--resamples", "0")
    assert shown.code == 0, shown.err
    assert "Scott's pi" in shown.out
    document = cli("agreement", "--table", path, "--level", "nominal", "--resamples", "0", "--json")
    assert document.code == 0, document.err
    (pair,) = json.loads(document.out)["variables"][0]["pairs"]
    assert pair[PAIR_KEY]["value"] == pytest.approx(SCOTT_PI)
    assert pair[PAIR_KEY]["name"] == pair_declared.label


def test_an_ordered_pair_coefficient_is_not_applicable_to_a_nominal_scale() -> None:
    ordered = Coefficient(**{**SCOTT.__dict__, "ordered": True, "nominal_reason": "no order"})
    PAIR_COEFFICIENTS.declare(ordered)
    try:
        variable = compute_variable(PAIR_JUDGMENTS, "nominal", resamples=0)
        figure = getattr(variable.pairs[0], PAIR_KEY)
        assert figure.undefined_reason == "nominal variable: no order"
        assert "Scott's pi" in figures_table(variable).notes[0]
        assert PAIR_KEY not in [c.key for c in pairs_table(variable).columns]
        ordinal = compute_variable(PAIR_JUDGMENTS, "ordinal", resamples=0)
        assert getattr(ordinal.pairs[0], PAIR_KEY).value == pytest.approx(SCOTT_PI)
    finally:
        PAIR_COEFFICIENTS.withdraw(PAIR_KEY)


def test_a_pair_figure_of_no_declared_coefficient_is_refused() -> None:
    (pair,) = compute_variable(PAIR_JUDGMENTS, "nominal", resamples=0).pairs
    document = json.loads(pair.model_dump_json())
    document[PAIR_KEY] = document["percent_agreement"]
    with pytest.raises(ValueError, match=f"no coefficient is declared as {PAIR_KEY}"):
        PairAgreement.model_validate(document)
    # Once declared, a pair's document without its figure is refused.
    del document[PAIR_KEY]
    PAIR_COEFFICIENTS.declare(SCOTT)
    try:
        with pytest.raises(ValueError, match=f"no figure of the declared {PAIR_KEY}"):
            PairAgreement.model_validate(document)
    finally:
        PAIR_COEFFICIENTS.withdraw(PAIR_KEY)
    assert PairAgreement.model_validate(document) == pair


def test_a_coefficient_without_the_kernel_of_its_kind_is_not_declared() -> None:
    with pytest.raises(ValueError, match="'scott_pi' has no kernel"):
        VARIABLE_COEFFICIENTS.declare(SCOTT)
    with pytest.raises(ValueError, match="'unanimous_share' has no pair_kernel"):
        PAIR_COEFFICIENTS.declare(UNANIMOUS)
    assert PAIR_KEY not in VARIABLE_COEFFICIENTS.declared_keys()
    assert KEY not in PAIR_COEFFICIENTS.declared_keys()
