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
(:class:`abp_tui.analysis.tables.Kind`), and their numbers reach the writer as numbers. A reader
of the file who needs the original text drops one leading quote from a text cell that begins
with ``'`` followed by one of these characters.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Final, TextIO

FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r", "\x00")
"""The first characters that make a spreadsheet read a cell as a formula (OWASP, ASVS)."""


class Figure(str):
    """A number already formatted as text (``"-0.25"``): written as it is, never neutralised."""

    __slots__ = ()


Cell = str | int | float | None
"""What a row holds: text (neutralised), a number or a :class:`Figure` (as is), or None (an
empty cell)."""


def neutralise(text: str) -> str:
    """``text`` as a spreadsheet shows it as text: a single quote before a formula's start."""
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


def write_csv(handle: TextIO, header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> None:
    """Write a CSV table to ``handle`` (``\n`` line ends, minimal quoting): the header row and
    ``rows``, every text cell neutralised."""
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow([neutralise(name) for name in header])
    writer.writerows([safe_cell(value) for value in row] for row in rows)


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> str:
    """:func:`write_csv`'s table as a string."""
    out = io.StringIO()
    write_csv(out, header, rows)
    return out.getvalue()


__all__ = [
    "FORMULA_STARTS",
    "Cell",
    "Figure",
    "csv_text",
    "neutralise",
    "safe_cell",
    "write_csv",
]
