"""A table laid out for the width it is drawn at: whole when it fits, its long texts cut when
that is enough, else each row stacked as "label: value" pairs that wrap to the width.

A results or agreement page is drawn into a screen of any width: a table wider than its room
would be clipped (or scroll sideways, where nothing says that more is there). :class:`FittedTable`
is a Rich renderable that decides at drawing time, from the width Rich gives it, which of three
forms to draw; the cells are the same ``Text`` in each, so no figure changes between them.
Nothing here imports Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table as RichTable
from rich.text import Text

from abp_tui.tui.widgets.fitted_columns import Give, cut, fit_columns

COLUMN_GAP = 2
"""Cells between two columns of a results table (one of padding each side)."""
WRAPPED_LEAST = 24
"""Least cells a wrapping column (a note) keeps when the table is whole."""
SEPARATOR = "  ·  "


@dataclass(frozen=True)
class FitColumn:
    header: str
    """The header in a table (short)."""
    label: str
    """The label of a stacked pair (the full header)."""
    key: str
    right: bool = False
    wraps: bool = False
    """Wraps inside its cell rather than widening the table (a note, a reason)."""
    cuttable: int | None = None
    """A text that may be cut with an ellipsis, down to this many cells."""
    cap: int | None = None
    """Wrap inside the cell beyond this width (an undefined figure's reason)."""
    name: bool = False
    """A name leading the row (condition, task): a stacked row's title."""
    lead: int = 0
    """Blank cells before the column's text: a text beside a right-justified count would
    otherwise read as one with it."""


def _longest_word(header: str) -> int:
    return max((len(word) for word in header.split()), default=0)


def _widest_line(text: Text) -> int:
    return max((line.cell_len for line in text.split("\n")), default=0)


def column_widths(
    columns: Sequence[FitColumn],
    rows: Sequence[Sequence[Text]],
    *,
    whole_headers: bool = True,
    capped: bool = True,
) -> list[int]:
    """Each column's cells with nothing cut: its widest line, or its header (or the header's
    longest word, when headers wrap); ``capped``: no wider than its cap (its cells wrap)."""
    widths = []
    for index, column in enumerate(columns):
        header = len(column.header) if whole_headers else _longest_word(column.header)
        width = max([header, *(_widest_line(row[index]) for row in rows)])
        if capped and column.cap is not None:
            width = min(width, column.cap)
        widths.append(column.lead + width)
    return widths


def laid_out(columns: Sequence[FitColumn], widths: Sequence[int], room: int) -> list[int] | None:
    """The widths in ``room`` cells, a wrapping column (a note) given what is left down to
    :data:`WRAPPED_LEAST`; None when they do not fit."""
    gaps = COLUMN_GAP * max(len(columns) - 1, 0)
    fixed = sum(w for c, w in zip(columns, widths, strict=True) if not c.wraps)
    wrapping = [i for i, c in enumerate(columns) if c.wraps]
    least = sum(min(widths[i], WRAPPED_LEAST) for i in wrapping)
    if fixed + least + gaps > room:
        return None
    out = list(widths)
    left = room - fixed - gaps
    for i in wrapping:
        out[i] = max(min(widths[i], left // len(wrapping)), min(widths[i], WRAPPED_LEAST))
    return out


def stacked(
    columns: Sequence[FitColumn], rows: Sequence[Sequence[Text]], width: int, console: Console
) -> Text:
    """Each row as its leading name cells (bold, joined by " · ") over its other cells as
    "label: value" pairs, as many to a line as fit in ``width``; a pair too long for a line
    wraps under itself; an empty cell is left out."""
    names = 1
    while names < len(columns) and columns[names].name:
        names += 1
    out = Text()
    indent = "  "
    for number, row in enumerate(rows):
        if number:
            out.append("\n")
        title = Text(" · ").join(row[:names])
        title.stylize("bold")
        out.append_text(title)
        line = 0
        for column, value in zip(columns[names:], row[names:], strict=True):
            if not value.plain.strip():
                continue
            pair = Text.assemble((f"{column.label}: ", "dim"), value)
            if line and line + len(SEPARATOR) + pair.cell_len <= width:
                out.append(SEPARATOR, style="dim")
                out.append_text(pair)
                line += len(SEPARATOR) + pair.cell_len
                continue
            lines = pair.wrap(console, max(width - len(indent), 1))
            for part in lines:
                out.append("\n" + indent)
                out.append_text(part)
            line = len(indent) + (lines[-1].cell_len if lines else 0)
    return out


class FittedTable:
    """A table drawn whole when it fits the width, with its cuttable texts cut when that is
    enough, else stacked (:func:`stacked`)."""

    def __init__(
        self,
        columns: Sequence[FitColumn],
        rows: Sequence[Sequence[Text]],
        build: Callable[[Sequence[int], Sequence[Sequence[Text]]], RichTable],
    ) -> None:
        self.columns = tuple(columns)
        self.rows = tuple(tuple(row) for row in rows)
        self.build = build
        """The Rich table with these column widths and rows."""
        self.console: Console | None = None
        """The console drawing the table (it wraps the stacked form's long pairs)."""

    def form(self, width: int) -> RichTable | Text:
        # Headers on one line and every cell on one line if there is room; else the headers
        # wrap; else the long cells (an undefined figure's reason) wrap at their caps.
        for whole, capped in ((True, False), (False, False), (False, True)):
            natural = column_widths(self.columns, self.rows, whole_headers=whole, capped=capped)
            widths = laid_out(self.columns, natural, width)
            if widths is not None:
                return self.build(widths, self.rows)
        gives = [Give(c.key, c.cuttable) for c in self.columns if c.cuttable is not None]
        if gives:
            natural = column_widths(self.columns, self.rows, whole_headers=False)
            fitted = fit_columns(
                [
                    ("x" * min(w, WRAPPED_LEAST) if c.wraps else "x" * w, c.key)
                    for c, w in zip(self.columns, natural, strict=True)
                ],
                [],
                width + COLUMN_GAP,
                gives,
            )
            limits = [w for _, w in fitted.columns]
            rows = [
                [
                    cut(cell, limit) if column.cuttable is not None else cell
                    for column, cell, limit in zip(self.columns, row, limits, strict=True)
                ]
                for row in self.rows
            ]
            widths = laid_out(
                self.columns, column_widths(self.columns, rows, whole_headers=False), width
            )
            if widths is not None:
                return self.build(widths, rows)
        return stacked(self.columns, self.rows, width, self.console or Console(width=width))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.console = console
        yield self.form(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        self.console = console
        return Measurement.get(console, options, self.form(options.max_width))
