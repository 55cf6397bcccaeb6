"""The neutral table model and its writers: CSV, the report's HTML, rich and the command line.

Each agreement coefficient is declared once; these tests prove every face lists exactly the
declared figures, that the CSV files keep their contract, and that a cell reads the same in
every face (undefined values with their reason, never NaN).
"""

from __future__ import annotations

import csv
import io
import math
from importlib.resources import files
from pathlib import Path

import pytest
import sqlite_utils
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from abp_tui.analysis import tables as model
from abp_tui.analysis.agreement import tables as agreement_tables
from abp_tui.analysis.tables import (
    Column,
    Counts,
    Distribution,
    Estimate,
    Kind,
    Number,
    Pair,
    PValue,
    Table,
    Tally,
    agreement_table,
    cell_text,
    comparisons_table,
    csv_rows,
    efficiency_table,
    figures_table,
    group_table,
    pairs_table,
    position_table,
    spans,
    variables_table,
)
from abp_tui.cli.text import agreement_text, table_lines
from abp_tui.export.report import _environment
from abp_tui.export.tables import table_csv
from abp_tui.models.builtin_rubrics import BUSINESS_V1
from abp_tui.services.publishing import export_bundle
from abp_tui.stats import agreement_models
from abp_tui.stats.agreement import (
    GWET_AC2,
    PAIR_COEFFICIENTS,
    VARIABLE_COEFFICIENTS,
    AgreementReport,
    Figure,
    PairAgreement,
    VariableAgreement,
    compute_all,
)
from abp_tui.stats.inference import Proportion, position_bias, wilson
from abp_tui.tui import charts
from tests.factories import afp_judged


def _report(resamples: int = 100) -> AgreementReport:
    """Three reviewers on an ordinal 0..2 scale, one reviewer missing an item."""
    values: dict[str, list[int | None]] = {
        "ann": [0, 1, 2, 2, 1, 0, 2],
        "bob": [0, 1, 2, 1, 1, 0, None],
        "cy": [1, 1, 2, 2, 0, 0, 2],
    }
    records = [
        (f"item-{i}", reviewer, v)
        for reviewer, column in values.items()
        for i, v in enumerate(column)
    ]
    return compute_all(
        {"score": records}, {"score": "ordinal"}, {"score": (0, 1, 2)}, seed=3, resamples=resamples
    )


def _rendered(renderable: object, width: int = 240) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(renderable)
    return out.getvalue()


# -- one declaration per coefficient ---------------------------------------------------------------
def _figure_fields(model_type: type[VariableAgreement] | type[PairAgreement]) -> list[str]:
    return [k for k, f in model_type.model_fields.items() if f.annotation in (Figure, "Figure")]


def test_the_models_hold_exactly_the_declared_figures_in_order() -> None:
    assert _figure_fields(VariableAgreement) == [c.key for c in VARIABLE_COEFFICIENTS]
    assert _figure_fields(PairAgreement) == [c.key for c in PAIR_COEFFICIENTS]
    for c in (*VARIABLE_COEFFICIENTS, *PAIR_COEFFICIENTS):
        assert c.label and c.short and c.measures and c.formula and c.source


def test_each_figure_carries_its_declaration() -> None:
    variable = _report().variables[0]
    for c, f in variable.figures():
        assert f.name.startswith(c.label) and f.source.startswith(c.source)
    for c, f in variable.pairs[0].figures():
        assert f.name == c.label and f.source == c.source


def test_every_face_lists_every_declared_figure(tmp_path: Path, db: sqlite_utils.Database) -> None:
    report = _report()
    variable = report.variables[0]
    names = [f.name for _c, f in variable.figures()]
    pair_labels = [c.label for c in PAIR_COEFFICIENTS]
    # The command line: a row per figure, a column per pair figure.
    text = agreement_text(report, "a table")
    for name in [*names, *pair_labels]:
        assert name in text
    # The workstation: the list's columns, the figures table, the pairs table.
    assert charts.VARIABLE_COLUMNS[5:] == tuple(c.short for c in VARIABLE_COEFFICIENTS if c.compact)
    assert len(charts.variable_row(variable, 34)) == len(charts.VARIABLE_COLUMNS)
    detail = _rendered(charts.variable_detail(variable))
    for shown in [*names, *(c.short for c in PAIR_COEFFICIENTS)]:
        assert shown in detail
    # The CSV file: one row per variable figure and per pair figure.
    rows = list(csv.DictReader(io.StringIO(table_csv(agreement_table(report)).decode())))
    assert [r["figure"] for r in rows if r["reviewers"] == "all"] == names
    pair_rows = [r["figure"] for r in rows if r["reviewers"] != "all"]
    assert pair_rows == pair_labels * len(variable.pairs)
    # The report: each declaration with what it measures, each figure in the agreement table.
    bundle = export_bundle(db, afp_judged(db), tmp_path / "bundle")
    html = (bundle.folder / "report.html").read_text("utf-8")
    for c in (*VARIABLE_COEFFICIENTS, *PAIR_COEFFICIENTS):
        assert f"<dd>{c.measures} (" in html.replace("&#x27;", "'")
        assert f"<td>{c.label}".replace("'", "&#x27;") in html


def test_a_coefficient_left_out_of_the_declarations_leaves_every_face(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No face keeps a list of its own: drop AC2's declaration and it is gone everywhere."""
    report = _report()
    fewer = tuple(c for c in VARIABLE_COEFFICIENTS if c is not GWET_AC2)
    monkeypatch.setattr(agreement_models, "VARIABLE_COEFFICIENTS", fewer)
    monkeypatch.setattr(agreement_tables, "VARIABLE_COEFFICIENTS", fewer)
    variable = report.variables[0]
    gone = variable.gwet_ac2.name
    assert gone not in agreement_text(report, "a table")
    assert gone not in _rendered(charts.variable_detail(variable))
    assert gone not in table_csv(agreement_table(report)).decode()
    assert [c.key for c in variables_table([variable]).columns][5:] == [c.key for c in fewer]


# -- the CSV files' contract -----------------------------------------------------------------------
def test_csv_headers_are_the_bundle_files_contract() -> None:
    header, rows = csv_rows(group_table([], by_task=True, rubric=BUSINESS_V1))
    assert rows == []
    # Unresolved runs got a column of their own (issue 14): the files gained "unresolved" and
    # "unresolved_items".
    assert header[:14] == [
        "condition",
        "task",
        "runs",
        "unjudged",
        "unresolved",
        "MODEL_PASS",
        "MODEL_FAIL",
        "PROVIDER_BLOCK",
        "INFRA_ERROR",
        "INVALID_TEST",
        "GRADER_DISPUTE",
        "pass_x",
        "pass_n",
        "pass_rate",
    ]
    scored = [d for d in BUSINESS_V1.dimensions if d.scored]
    expected_dims = [
        name for d in scored for name in (*(f"{d.id}={s:g}" for s in d.scale), f"{d.id}_n")
    ]
    assert header[14:] == [
        "wilson95_low",
        "wilson95_high",
        "pass_rate_undefined",
        "fatal_x",
        "fatal_n",
        "acceptance_x",
        "acceptance_n",
        "unresolved_items",
        *expected_dims,
    ]
    assert csv_rows(comparisons_table([]))[0] == [
        "a",
        "b",
        "pairs",
        "both_pass",
        "a_pass_b_fail",
        "a_fail_b_pass",
        "both_fail",
        "excluded_a",
        "excluded_b",
        "unjudged_a",
        "unjudged_b",
        "unpaired_a",
        "unpaired_b",
        "mcnemar_discordant",
        "mcnemar_p_exact",
        "mcnemar_undefined",
        "pref_wins_a",
        "pref_wins_b",
        "pref_ties",
        "pref_insufficient",
        "pref_total",
        "pref_decisive",
        "pref_a_share",
        "pref_a_share_low",
        "pref_a_share_high",
        "pref_p_exact",
        "pref_undefined",
        # Preferences of unresolved items are counted apart (issue 14), and the level of the
        # share's Wilson interval is named (the files only gained fields).
        "pref_unresolved",
        "pref_unresolved_items",
        "pref_a_share_confidence",
    ]
    assert csv_rows(efficiency_table([]))[0] == [
        "a",
        "b",
        "metric",
        "n_a",
        "n_b",
        "missing_a",
        "missing_b",
        "median_a",
        "median_b",
        "relative_median_difference",
        "bootstrap_low",
        "bootstrap_high",
        "confidence",
        "seed",
        "resamples",
        "resamples_used",
        "undefined",
    ]


def test_position_bias_csv_keeps_its_fields_and_values() -> None:
    data = table_csv(position_table(position_bias(3, 1))).decode().splitlines()
    assert data[0] == (
        "left_preferred,right_preferred,decisive,left_share,wilson95_low,wilson95_high,"
        "p_exact,undefined,unresolved,unresolved_items"  # the last two: issue 14
    )
    assert data[1].startswith("3,1,4,0.75,")
    undefined = table_csv(position_table(position_bias(0, 0))).decode().splitlines()[1]
    assert undefined.startswith("0,0,0,,,,,") and "decisive" in undefined


def test_agreement_csv_keeps_undefined_figures_as_blank_values_with_their_reason() -> None:
    lone = compute_all({"v": [("i", "ann", 1)]}, {"v": "ordinal"}, {"v": (0, 1, 2)}, resamples=0)
    rows = list(csv.DictReader(io.StringIO(table_csv(agreement_table(lone)).decode())))
    assert len(rows) == len(VARIABLE_COEFFICIENTS)
    for row in rows:
        assert row["value"] == "" and "only one reviewer" in row["undefined_or_note"]


# -- one cell, the same characters in every face ---------------------------------------------------
@pytest.mark.parametrize(
    ("column", "value", "shown"),
    [
        (Column("p", kind=Kind.PROPORTION), wilson(11, 12), "11/12 = 0.917 [0.646, 0.985]"),
        (
            Column("p", kind=Kind.PROPORTION),
            wilson(0, 0),
            "0/0 undefined: no observations in the denominator (n = 0)",
        ),
        (Column("t", kind=Kind.TALLY), Tally(2, 5), "2/5"),
        (Column("c", kind=Kind.COUNTS), Counts((1, 0, 2)), "1 / 0 / 2"),
        (Column("x", kind=Kind.PAIR), Pair("A", "B"), "A vs B"),
        (Column("m", kind=Kind.P_VALUE), PValue(0.03125), "p = 0.03125"),
        (
            Column("m", kind=Kind.P_VALUE),
            PValue(None, "no discordant pairs"),
            "undefined: no discordant pairs",
        ),
        (Column("n", kind=Kind.NUMBER), Number(238.5, 14, 0), "238.5 (14, 0)"),
        (Column("n", kind=Kind.NUMBER), Number(None, 3, 3), "missing (3, 3)"),
        (Column("n", kind=Kind.NUMBER, digits=3), Number(None, reason="why"), "undefined"),
        (
            Column("d", kind=Kind.DISTRIBUTION),
            Distribution((("0", 1), ("2", 3)), 4),
            "0:1  2:3 (n=4)",
        ),
        (Column("d", kind=Kind.DISTRIBUTION), Distribution((), 0), "(n=0)"),
        (Column("e", kind=Kind.INTERVAL), Estimate(0.8125, 0.7, 0.9), "0.812 [0.700, 0.900]"),
        (
            Column("e", kind=Kind.INTERVAL, signed=True),
            Estimate(-0.4, -0.5, -0.3, None, 0.95, 7, 2000, 1990),
            "-0.400 [-0.500, -0.300] (95% bootstrap, seed 7, 1990/2000 resamples)",
        ),
        (
            Column("e", kind=Kind.INTERVAL, signed=True),
            Estimate(0.2, reason="fewer than 2 values"),
            "+0.200 (interval undefined: fewer than 2 values)",
        ),
        (
            Column("e", kind=Kind.INTERVAL),
            Estimate(None, reason="no variation"),
            "undefined: no variation",
        ),
        (Column("f", kind=Kind.FLAG), True, "true"),
        (Column("s"), ("a", "b"), "a; b"),
        (Column("s"), None, ""),
    ],
)
def test_a_cell_reads_the_same_in_every_face(column: Column, value: model.Cell, shown: str) -> None:
    assert cell_text(column, value) == shown
    table = Table("t", "T", (column,), ((value,),))
    assert table_lines(table)[1].strip() == shown
    assert charts.cell(column, value).plain == shown


@given(
    x=st.integers(0, 50),
    extra=st.integers(0, 50),
    reason=st.text(min_size=1, max_size=30),
)
def test_no_cell_says_nan_and_every_undefined_one_gives_its_reason(
    x: int, extra: int, reason: str
) -> None:
    p = wilson(x, x + extra)
    assert "nan" not in cell_text(Column("p", kind=Kind.PROPORTION), p).lower()
    for column, value in (
        (Column("p", kind=Kind.PROPORTION), Proportion(x=x, n=0, undefined_reason=reason)),
        (Column("m", kind=Kind.P_VALUE), PValue(None, reason)),
        (Column("e", kind=Kind.INTERVAL), Estimate(None, reason=reason)),
    ):
        assert f"undefined: {reason}" in cell_text(column, value)
        roles = [role for _text, role in spans(column, value)]
        assert "undefined" in roles


def test_estimate_digits_never_round_a_defined_value_away() -> None:
    shown = cell_text(Column("e", kind=Kind.INTERVAL), Estimate(math.pi, 3.0, 3.5))
    assert shown == "3.142 [3.000, 3.500]"


# -- untrusted text --------------------------------------------------------------------------------
HOSTILE = "[bold red]x[/]\x1b[31m\u202eevil\n"


def test_untrusted_text_is_data_in_every_face() -> None:
    table = Table(
        "t",
        "T",
        (Column("who"), Column("pair", kind=Kind.PAIR)),
        ((HOSTILE, Pair(HOSTILE, "b")),),
    )
    for line in table_lines(table):
        assert "\x1b" not in line and "\u202e" not in line and "\n" not in line
    rendered = charts.rich_table(table)
    out = _rendered(rendered)
    assert "[bold red]x[/]" in out and "\x1b" not in out
    cells = [charts.cell(c, v) for c, v in table.cells(table.rows[0])]
    assert all(isinstance(c, Text) and not c.spans for c in cells[:1])
    html = _environment().from_string("{{ v }}").render(v=HOSTILE)
    assert html == "[bold red]x[/]␛[31m⟨U+202E⟩evil\n"
    tag = _environment().from_string("<td>{{ v }}</td>").render(v="<script>\"'&")
    assert tag == "<td>&lt;script&gt;&quot;&#x27;&amp;</td>"


def test_the_report_template_ships_as_package_data() -> None:
    templates = files("abp_tui.export") / "templates"
    assert (templates / "report.html.j2").is_file()
    assert (templates / "report.css").is_file()


# -- the table model -------------------------------------------------------------------------------
def test_a_table_refuses_rows_that_do_not_fit_its_columns() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        Table("t", "T", (Column("a"), Column("a")), ())
    with pytest.raises(ValueError, match="a row of 1 cells"):
        Table("t", "T", (Column("a"), Column("b")), (("x",),))


def test_machine_only_columns_stay_out_of_the_tables_people_read() -> None:
    table = comparisons_table([])
    shown = [c.key for c in table.shown]
    assert "excluded_a" not in shown and "pref_total" not in shown
    assert "excluded_a" in csv_rows(table)[0]


def test_figures_and_pairs_tables_follow_the_declarations() -> None:
    variable = _report().variables[0]
    figures = figures_table(variable)
    assert [row[0] for row in figures.rows] == [f.name for _c, f in variable.figures()]
    pairs = pairs_table(variable)
    assert [c.key for c in pairs.columns][2:] == [c.key for c in PAIR_COEFFICIENTS]
    assert len(pairs.rows) == len(variable.pairs) == 3


# -- a nominal variable: what does not apply, said once ----------------------------------------
def test_a_nominal_variables_tables_list_once_what_does_not_apply() -> None:
    records = [
        (f"i{k}", r, "yes" if (k + (r == "b") * (k % 4 == 0)) % 3 else "no")
        for k in range(40)
        for r in "ab"
    ]
    report = compute_all({"verdict": records}, {"verdict": "nominal"}, seed=1, resamples=0)
    (variable,) = report.variables
    weighted = [
        c
        for c in (*VARIABLE_COEFFICIENTS, *PAIR_COEFFICIENTS)
        if c.weights not in (None, "identity")
    ]
    line = "not applicable to a nominal scale (no order for partial credit): " + "; ".join(
        c.label for c in (*weighted[:3], GWET_AC2, *weighted[3:])
    )
    # The command line: the one line, no row of "undefined" for a weighted figure.
    text = agreement_text(report, "a table")
    assert " ".join(text.split()).count(line) == 1  # wrapped to 80 columns
    assert all(len(row) <= 80 for row in text.splitlines())
    assert "weights need ordered categories" not in text and "AC2 needs ordered" not in text
    assert "undefined" not in text
    # The figures and pairs tables hold only the coefficients that apply.
    figures = figures_table(variable)
    assert figures.notes == (line,)
    assert [r[0] for r in figures.rows] == [
        f.name
        for c, f in variable.figures()
        if c.weights in (None, "identity") and c is not GWET_AC2
    ]
    assert [c.key for c in pairs_table(variable).columns][2:] == [
        "percent_agreement",
        "cohen_kappa",
    ]
    # The workstation's detail of the variable says it once too.
    shown = _rendered(charts.variable_detail(variable))
    assert shown.count("not applicable to a nominal scale") == 1
    assert "ordered categories" not in shown
    # The CSV file and the report: no row for them, one note naming the nominal variables.
    table = agreement_table(report)
    assert table.notes == (f"verdict: {line}",)
    assert not any("ordered categories" in str(cell) for row in table.rows for cell in row)
    assert len(table.rows) == 5 + 2  # five figures over all reviewers, two for the pair
