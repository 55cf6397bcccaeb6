"""The agreement screen's reliability section: the report of ``abp-tui reliability`` drawn to
the width it is given.

The prose is the command line's (:mod:`abp_tui.analysis.reliability.text`), wrapped to the
screen; the annotators and each confusion matrix are tables whose cells hold the same figures.
Where a table's one-line rows do not fit, each figure's interval goes to a second line inside
its cell (and an annotator's kind under its name), so the columns stay aligned on a narrow
terminal instead of wrapping line by line.

This module does not import textual.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table as RichTable
from rich.text import Text

from abp_tui.analysis.reliability.model import AnnotatorReliability, ReliabilityReport
from abp_tui.analysis.reliability.text import (
    MATRICES_HEADING,
    accuracy_figure,
    annotators_heading,
    cell_figure,
    cells_of,
    head_lines,
    matrix_title,
    tail_lines,
)
from abp_tui.text.safe import safe_line

INDENT: Final = 2
"""The annotators and each matrix's title stand this far in; a matrix twice as far."""


UNBOUNDED: Final = 10_000
"""Wider than any terminal: a table measured at this width tells its natural width."""


class FirstFit:
    """The first of ``choices`` whose natural width fits the width given (the last one
    otherwise): one table in its widest readable form."""

    def __init__(self, *choices: RenderableType) -> None:
        self.choices = choices

    def _chosen(self, console: Console, options: ConsoleOptions) -> RenderableType:
        unbounded = options.update_width(UNBOUNDED)  # a measurement is cut to the width
        for choice in self.choices[:-1]:
            if Measurement.get(console, unbounded, choice).maximum <= options.max_width:
                return choice
        return self.choices[-1]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self._chosen(console, options)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self._chosen(console, options))


def _grid() -> RichTable:
    return RichTable(
        box=None,
        padding=(0, 0, 0, 2),
        pad_edge=False,
        show_edge=False,
        show_header=False,
        collapse_padding=True,
    )


def _split(figure: str) -> Text:
    """``0.333 [0.000, 1.000]`` as the value over its interval (a figure without one as is)."""
    value, _, interval = figure.partition(" ")
    return Text(value + ("\n" + interval if interval else ""), justify="right")


def _annotators(annotators: Sequence[AnnotatorReliability], stacked: bool) -> RenderableType:
    table = _grid()
    table.add_column(no_wrap=True)
    if not stacked:
        table.add_column(no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(ratio=1 if stacked else None)  # the interval's note wraps
    for a in annotators:
        name = Text(safe_line(a.name))
        note = Text(f"({safe_line(a.interval_note)})" if a.interval_note else "", style="dim")
        labels = f"{a.n_labels} labels"
        if stacked:
            name.append(f"\n{a.kind}", style="dim")
            table.add_row(name, labels, _split(accuracy_figure(a)), note)
        else:
            table.add_row(name, a.kind, labels, Text(accuracy_figure(a)), note)
    return Padding(table, (0, 0, 0, INDENT))


def _matrix(
    annotator: AnnotatorReliability, categories: Sequence[str], stacked: bool
) -> RenderableType:
    cells = cells_of(annotator)
    table = RichTable(
        box=None, padding=(0, 0, 0, 2), pad_edge=False, show_edge=False, header_style="bold"
    )
    table.add_column(Text("category"), no_wrap=True)
    for label in categories:
        table.add_column(Text(safe_line(label)), justify="right", no_wrap=True)
    for k in categories:
        figures = [cell_figure(cells[(k, label)]) for label in categories]
        table.add_row(
            Text(safe_line(k), style="bold"),
            *(_split(f) if stacked else Text(f) for f in figures),
        )
    return Padding(table, (0, 0, 0, 2 * INDENT))


def reliability_view(report: ReliabilityReport) -> RenderableType:
    """The report as the agreement screen shows it: the command line's prose and figures,
    with the annotators and matrices aligned at any width."""
    parts: list[RenderableType] = [Text(line) for line in head_lines(report)]
    parts += [Text(""), Text(annotators_heading(report))]
    parts.append(
        FirstFit(_annotators(report.annotators, False), _annotators(report.annotators, True))
    )
    if report.model == "dawid-skene" and any(a.confusion for a in report.annotators):
        parts += [Text(""), Text(MATRICES_HEADING)]
        for a in report.annotators:
            parts.append(Padding(Text(matrix_title(a)), (0, 0, 0, INDENT)))
            parts.append(
                FirstFit(_matrix(a, report.categories, False), _matrix(a, report.categories, True))
            )
    parts += [Text(line) for line in tail_lines(report)]
    return Group(*parts)
