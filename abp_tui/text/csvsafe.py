"""CSV cells a spreadsheet opens as text, never as a formula: every CSV this program writes.

A cell that begins with ``=``, ``+``, ``-`` or ``@`` is a formula to Excel, LibreOffice Calc and
Google Sheets (``=HYPERLINK(...)``, ``=cmd|' /C calc'!A0``, ``@SUM(...)``), and so is one that
begins with a tab or a carriage return; a rationale, a justification, a finding or an id is
text a reviewer or a run record wrote, so an exported table would run it when opened. OWASP's
advice ("CSV Injection", owasp.org/www-community/attacks/CSV_Injection) is to prefix such a cell
with a single quote, which the spreadsheet takes as "this is text" and does not display; OWASP
ASVS 5.0 requirement 1.2.10 names the same characters and adds NUL.

The decision is by the column's type, not by the cell's look: a *text* cell is neutralised
whatever it holds; a *number* (an ``int`` or ``float``, or a :class:`Figure`, a number already
formatted) is written as it is, so a negative difference such as -0.25 stays a number a
spreadsheet can add up. Tables declare which columns are which
(:class:`abp_tui.analysis.tables.Kind`), and their numbers reach the writer as numbers.

A text cell may hold line breaks (a rationale of several lines), and a line after one is where a
reader that splits the file into lines, or a spreadsheet that takes a bare carriage return for
the end of a row, starts a new row. So every line of a text cell is neutralised, not only its
first: a quote goes after each line break that a formula's start follows; and every cell with a
line break in it is quoted, whichever break it is (:data:`LINE_BREAKS`: CR and LF, and the
vertical tab, form feed, the file, group and record separators, NEL and the Unicode line and
paragraph separators, which Python's ``str.splitlines`` and some spreadsheets also honour), so
that a CSV reader keeps the cell whole. (Python's own CSV writer quotes a cell with a line feed
but leaves a bare carriage return unquoted when its rows end with a line feed.) A reader of the
file who needs the original text drops one quote that begins a text cell, or follows a line
break in one, before one of these characters.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from typing import Final, TextIO

FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r", "\x00")
"""The first characters that make a spreadsheet read a cell as a formula (OWASP, ASVS)."""
LINE_BREAKS: Final = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character a CSV reader, a spreadsheet or a line split may take for the end of a line."""
_LINE_START = re.compile(
    "(?<=[" + re.escape(LINE_BREAKS) + "])(?=[" + re.escape("=+-@\t\x00") + "])"
)
"""Where a line inside a text cell begins with a formula's start."""
_QUOTED = re.compile('[,"' + re.escape(LINE_BREAKS) + "]")
"""A cell that holds one of these is quoted."""


class Figure(str):
    """A number already formatted as text (``"-0.25"``): written as it is, never neutralised."""

    __slots__ = ()


Cell = str | int | float | None
"""What a row holds: text (neutralised), a number or a :class:`Figure` (as is), or None (an
empty cell)."""


def neutralise(text: str) -> str:
    """``text`` as a spreadsheet shows it as text: a single quote before a formula's start, at
    the start of the cell and at the start of every line in it."""
    text = _LINE_START.sub("'", text)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def safe_cell(value: Cell) -> str:
    """A cell's text: numbers and figures as they are, text neutralised, None empty."""
    if value is None:
        return ""
    if isinstance(value, Figure):
        return str.__str__(value)
    if isinstance(value, str):
        return neutralise(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _field(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if _QUOTED.search(text) else text


def field_text(text: str) -> str:
    """A cell's text already made safe (:func:`safe_cell`) as a field of a row: quoted when it
    holds a comma, a quote or a line break."""
    return _field(text)


def _row(cells: list[str]) -> str:
    if cells == [""]:  # a row of one empty cell, told from a blank line (as Python's writer does)
        return '""\n'
    return ",".join(_field(cell) for cell in cells) + "\n"


def write_csv(handle: TextIO, header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> None:
    """Write a CSV table to ``handle`` (``\\n`` line ends, minimal quoting, every cell with a
    line break quoted): the header row and ``rows``, every text cell neutralised."""
    handle.write(_row([neutralise(name) for name in header]))
    for row in rows:
        handle.write(_row([safe_cell(value) for value in row]))


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> str:
    """:func:`write_csv`'s table as a string."""
    out = io.StringIO()
    write_csv(out, header, rows)
    return out.getvalue()


__all__ = [
    "FORMULA_STARTS",
    "LINE_BREAKS",
    "Cell",
    "Figure",
    "csv_text",
    "field_text",
    "neutralise",
    "safe_cell",
    "write_csv",
]
