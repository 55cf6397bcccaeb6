"""The results page and the agreement detail on an 80-column terminal: no sideways scrolling,
every line within the screen, the key figures readable whole (the tables stacked as "label:
value" rows or their names cut, whichever fits), and the tables whole where there is room."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, Static

from abp_tui.analysis.table_model import Column, Kind, Table
from abp_tui.services.results_report import unblind
from abp_tui.stats.inference import wilson
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.charts import VARIABLE_COLUMNS, PassRateChart, fitted_table
from abp_tui.tui.screens.agreement import AgreementScreen
from abp_tui.tui.screens.designs import open_review_screen
from abp_tui.tui.screens.results import ResultsScreen
from tests.factories import Cli, labelled_pairs_judged
from tests.snapshot_helpers import admin_app, agreement_shown, results_shown
from tests.tui_helpers import drive, settle, svg_text, until


def _lines(widget: Widget) -> list[str]:
    """The widget's lines as drawn (its whole height, scrolled or not)."""
    region = Region(0, 0, widget.size.width, widget.virtual_size.height or widget.size.height)
    return [strip.text.rstrip() for strip in widget.render_lines(region)]


async def _results_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> tuple[list[str], int]:
    app = admin_app(tmp_path, monkeypatch, unblinded=True)
    async with app.run_test(size=size) as pilot:
        await results_shown(pilot)
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, ResultsScreen)
        scroll = screen.query_one("#results-scroll")
        body = screen.query_one("#results-body", Static)
        # Nothing to scroll sideways to: the page is as wide as the room on the screen.
        assert scroll.max_scroll_x == 0
        assert body.virtual_size.width <= scroll.scrollable_content_region.width
        return _lines(body), body.size.width


async def test_results_page_fits_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines, width = await _results_page(tmp_path, monkeypatch, (80, 24))
    assert width <= 80
    assert all(len(line) <= width for line in lines)
    page = "\n".join(lines)
    words = " ".join(page.split())
    # The answer and the watching lines wrap to the width, nothing cut off.
    assert "Compared A, C: 2 of 2 planned items judged blind by 2 reviewers." in page
    assert (
        "C vs A: no decisive item yet (1 tie, 0 insufficient evidence); "
        "no preference can be stated." in words
    )
    assert "pass rate of C: 1.000, sequence [0.000, 1.000] after 1 run" in page
    # The six states' table, too wide for 80 columns, is stacked: each figure beside its label.
    assert "Pass rate x/n [Wilson 95%]: 1/1 = 1.000 [0.207, 1.000]" in page
    assert re.search(r"Unresolved items: P-[0-9A-Z]+", page)
    assert "Unresolved judgments: 2" in page
    # The chart's figures are whole beside their bars.
    assert page.count("1/1 = 1.000 [0.207, 1.000]") >= 4


async def test_results_page_keeps_its_tables_whole_at_160_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines, width = await _results_page(tmp_path, monkeypatch, (160, 48))
    assert all(len(line) <= width for line in lines)
    page = "\n".join(lines)
    assert "Condition  Runs  Unjudged  Unresolved  PASS  FAIL" in page
    # A count right-justified beside a left-justified code reads as two cells.
    (pairs,) = [line for line in lines if line.startswith("C vs A ") and "P-" in line]
    assert re.search(r" 2   P-[0-9A-Z]+$", pairs)


async def test_agreement_detail_fits_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = admin_app(tmp_path, monkeypatch, unblinded=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await agreement_shown(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, AgreementScreen)
        detail = screen.query_one("#detail", Static)
        assert screen.query_one("#variable-detail").max_scroll_x == 0
        lines, width = _lines(detail), detail.size.width
    assert [line for line in lines if len(line) > width] == []
    page = "\n".join(lines)
    # Headers are never squeezed to a few letters; every figure is whole beside its label.
    assert "Revie…" not in page and "Judgme…" not in page
    assert "percent agreement" in page
    assert "Reviewers: 2" in page and "Judgments: 8" in page


FIGURES = VARIABLE_COLUMNS[VARIABLE_COLUMNS.index("Judgments") + 1 :]
"""The list of variables' figure columns (after the name, level and denominators)."""


@asynccontextmanager
async def _variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> AsyncIterator[tuple[Pilot[Any], DataTable[Any]]]:
    """The agreement screen's list of variables at ``size``, once shown, with the app driving
    it."""
    app = admin_app(tmp_path, monkeypatch, unblinded=False)
    async with app.run_test(size=size) as pilot:
        await agreement_shown(pilot)
        yield pilot, pilot.app.screen.query_one("#variables", DataTable)


def _right_edges(table: DataTable[Any]) -> dict[str, int]:
    """Each column's right edge, in cells from the table's left edge, in the order shown."""
    edges, right = {}, 0
    for column in table.ordered_columns:
        right += column.get_render_width(table)
        edges[str(column.key.value)] = right
    return edges


async def test_the_list_of_variables_shows_every_figure_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _variables(tmp_path, monkeypatch, (80, 24)) as (pilot, table):
        room = table.scrollable_content_region.width
        edges = _right_edges(table)
        shot = svg_text(pilot.app.export_screenshot())
        first = [str(c) for c in table.get_row_at(0)]
    # Every figure within the visible width: none needs sideways scrolling to be read.
    assert {label: edges[label] <= room for label in FIGURES} == dict.fromkeys(FIGURES, True)
    # The figures come straight after the names; their headers and values are on the screen.
    assert list(edges)[1 : 1 + len(FIGURES)] == list(FIGURES)
    assert "Agreement" in shot and "Krippendorff" in shot
    row = next(line for line in shot.splitlines() if first[0][:8] in line and "0." in line)
    assert all(value.strip() in row for value in first[1 : 1 + len(FIGURES)])


async def test_the_list_of_variables_is_whole_at_160_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _variables(tmp_path, monkeypatch, (160, 48)) as (_pilot, table):
        edges = _right_edges(table)
        assert table.header_height == 1
        assert max(edges.values()) <= table.scrollable_content_region.width
    # Denominators before the figures, as always, with nothing left out.
    assert tuple(edges) == VARIABLE_COLUMNS


async def test_the_list_of_variables_is_laid_out_again_when_the_terminal_widens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _variables(tmp_path, monkeypatch, (80, 24)) as (pilot, table):
        assert list(_right_edges(table))[1] == FIGURES[0]
        await pilot.resize_terminal(160, 48)
        await until(pilot, lambda: tuple(_right_edges(table)) == VARIABLE_COLUMNS, "whole list")
        assert table.header_height == 1


async def _reliability_lines(db_path: Path, size: tuple[int, int]) -> tuple[list[str], int]:
    """The agreement screen's reliability section as drawn, and its width."""
    app = make_app(db_path, reviewer="cy")
    async with drive(app, size) as pilot:
        await settle(pilot)
        open_review_screen(app, db_path, "cy", "agreement")
        await until(pilot, lambda: getattr(app.screen, "shown", None) is not None, "agreement")
        section = app.screen.query_one("#reliability", Static)
        await until(pilot, lambda: "Computing" not in str(section.render()), "reliability")
        await settle(pilot)
        return _lines(section), section.size.width


FIGURE = r"\[\S+ \S+\]|-?\d\.\d{3}"
"""A figure of the reliability section: a value, or an interval."""


def _ends(line: str) -> list[int]:
    return [m.end() for m in re.finditer(FIGURE, line)]


def _unblinded_pairs(db_path: Path, folder: Path) -> None:
    """Labelled pairs judged, the study unblinded: the annotators' matrices are shown (a blind
    study withholds them)."""
    labelled_pairs_judged(db_path, folder, study="pandalm-testset-v1")
    db = connect(db_path)
    try:
        unblind(db, "pandalm-testset-v1", "coordinator")
    finally:
        db.close()


async def test_the_reliability_matrices_stay_aligned_at_80_columns(tmp_path: Path) -> None:
    # The label sets' names are as long as PandaLM's: "pandalm-testset-v1:annotator1".
    db_path = tmp_path / "panda.db"
    _unblinded_pairs(db_path, tmp_path)
    lines, width = await _reliability_lines(db_path, (80, 24))
    assert width <= 80
    assert [line for line in lines if len(line) > width] == []
    # Each matrix's header names every category on one line (not "tie" alone under it).
    heads = [i for i, line in enumerate(lines) if line.strip().startswith("category")]
    assert len(heads) == 5  # ann, bo and the three label sets
    assert all(lines[i].split() == ["category", "a", "b", "tie"] for i in heads)
    # An interval never starts a line of its own at the edge: it stands under its value, in
    # the value's column, inside the cell.
    assert not any(line.startswith("[") for line in lines)
    for i in heads:
        ends = [m.end() for m in re.finditer(r"\S+", lines[i])][1:]
        for line in lines[i + 1 : i + 7]:
            assert _ends(line) == ends, line
    # Each annotator's accuracy beside its name and its kind, its interval right under it.
    named = [i for i, line in enumerate(lines) if re.match(r"  \S+ +\d+ labels +\d\.\d{3}$", line)]
    assert len(named) == 5
    for i in named:
        assert re.match(r"  (reviewer|imported labels) +\[", lines[i + 1]), lines[i + 1]
        assert _ends(lines[i + 1]) == _ends(lines[i])


async def test_the_reliability_matrices_keep_one_line_rows_at_160_columns(
    tmp_path: Path,
) -> None:
    db_path = tmp_path / "panda.db"
    _unblinded_pairs(db_path, tmp_path)
    lines, _width = await _reliability_lines(db_path, (160, 48))
    rows = [line for line in lines if re.match(r" +(a|b|tie) +\d\.\d{3} \[", line)]
    assert len(rows) == 15 and all(len(_ends(row)) == 6 for row in rows)  # value, interval
    named = [
        line for line in lines if re.match(r"  \S+ +(reviewer|imported labels) +\d+ labels", line)
    ]
    assert len(named) == 5 and all(line.endswith("]") for line in named)


def test_the_labels_table_of_abp_tui_agreement_fits_80_columns(cli: Cli, tmp_path: Path) -> None:
    labelled_pairs_judged(cli.db_path, tmp_path)
    text = cli("agreement", "--reviewer", "cy", "--resamples", "100")
    assert text.code == 0, text.err
    lines = text.out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Against imported labels"))
    end = lines.index("", start)
    section = lines[start:end]
    assert [line for line in section if len(line) > 80] == []
    # Each reviewer against each label set: a block of "label: value" lines under its name.
    assert section.count("  ann") == 3 and section.count("  bo") == 3
    assert "    Against imported labels: panda:annotator1" in section
    assert any(
        line.startswith("    Cohen's kappa [95% large-sample] boot [95%") for line in section
    )
    assert any(line.startswith("    Percent agreement boot [95% bootstrap]: ") for line in section)


def _table(name: str) -> Table:
    columns = (
        Column("condition", "Condition"),
        Column("runs", "Runs", Kind.COUNT),
        Column("note", "A long header that wraps"),
    )
    rows = ((name, 12, "a remark"), ("B", 3, ""))
    return Table("sample", "Sample", columns, rows)


def _render(renderable: Any, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None, legacy_windows=False)
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_a_table_is_whole_where_it_fits_and_stacked_where_it_does_not() -> None:
    table = fitted_table(_table("Alpha"))
    wide = _render(table, 80)
    assert wide[0].split() == ["Condition", "Runs", "A", "long", "header", "that", "wraps"]
    assert wide[1].split() == ["Alpha", "12", "a", "remark"]
    narrow = _render(table, 20)
    assert all(len(line) <= 20 for line in narrow)
    assert narrow[:3] == ["Alpha", "  Runs: 12", "  A long header that"]
    # An empty cell is left out of its row.
    assert narrow[-2:] == ["B", "  Runs: 3"]


def test_a_long_name_is_cut_before_a_table_is_stacked() -> None:
    layout_name = "conditions"  # names (conditions) may be cut there
    columns = (Column("condition", "Condition"), Column("runs", "Runs", Kind.COUNT))
    rows = (("a-very-long-condition-name", 12),)
    table = fitted_table(Table(layout_name, "Sample", columns, rows))
    lines = _render(table, 20)
    assert lines[1].startswith("a-very-long") and "…" in lines[1]
    assert lines[1].rstrip().endswith("12")
    assert all(len(line) <= 20 for line in lines)


def test_the_pass_rate_chart_cuts_long_names_before_its_figures() -> None:
    columns = (
        Column("condition", "Condition"),
        Column("task", "Task"),
        Column("pass_rate", "Pass rate", Kind.PROPORTION),
    )
    rows = (
        ("demo-engine-alpha", "fx-csv-quoted-commas", wilson(3, 3)),
        ("demo-engine-beta", "fx-iso-timezone", wilson(2, 3)),
    )
    chart = PassRateChart(Table("tasks", "By task", columns, rows))
    wide = _render(chart, 160)
    assert any("demo-engine-alpha · fx-csv-quoted-commas" in line for line in wide)
    narrow = _render(chart, 77)
    assert all(len(line) <= 77 for line in narrow)
    # Each figure stays whole on its row; the name gives way (cut with an ellipsis).
    (alpha,) = [line for line in narrow if line.startswith("demo-engine-alpha")]
    assert "…" in alpha and alpha.endswith("3/3 = 1.000 [0.439, 1.000]")
    assert any(line.endswith("2/3 = 0.667 [0.208, 0.939]") for line in narrow)
