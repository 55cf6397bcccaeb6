"""A coefficient is its declaration and its kernel: declared, it is computed, carried in the
documents and listed by every face, with nothing else to change.

The toy coefficient here (the share of items every judgment of which agrees, on the items with
two or more) is declared by the test alone and withdrawn after it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from abp_tui.analysis.agreement_tables import agreement_table, figures_table, variables_table
from abp_tui.analysis.table_model import Number
from abp_tui.stats.agreement import (
    VARIABLE_COEFFICIENTS,
    Coefficient,
    compute_all,
    compute_variable,
)
from abp_tui.stats.agreement_kernels import Sums, Values
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
