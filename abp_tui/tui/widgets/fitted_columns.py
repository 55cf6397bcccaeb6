"""A table's columns chosen by the width there is: on a narrow terminal the less important
columns go and the long texts are cut (with an ellipsis), instead of the table running off the
screen's edge where nothing says that more is there.

Each table says, in order, what gives way first (:data:`Give`): a column dropped, or a column
narrowed down to a least width. :func:`fit_columns` takes those steps only while the columns
are wider than the room. Nothing here imports Textual: it works on Rich ``Text`` cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

CELL_PADDING = 2
"""Cells a table column takes besides its text (a data table pads each cell by one each side)."""


@dataclass(frozen=True)
class Give:
    """One step of a table giving way: ``key``'s column dropped (``least`` None) or narrowed
    down to no less than ``least`` cells."""

    key: str
    least: int | None = None


@dataclass(frozen=True)
class Fitted:
    """The columns shown: each one's index among the table's columns and its width."""

    columns: tuple[tuple[int, int], ...]

    def cells(self, row: Sequence[Text]) -> list[Text]:
        """A row's cells for the columns shown, each cut to its column's width."""
        return [cut(row[index], width) for index, width in self.columns]


def cut(text: Text, width: int) -> Text:
    """``text`` shortened to ``width`` cells, ending in an ellipsis (unchanged if it fits)."""
    if text.cell_len <= width:
        return text
    shorter = text.copy()
    shorter.truncate(max(width - 1, 0))
    shorter.append("…")
    return shorter


def fit_columns(
    columns: Sequence[tuple[str, str]],
    rows: Sequence[Sequence[Text]],
    room: int,
    gives: Sequence[Give],
) -> Fitted:
    """The columns (``(header, key)`` in display order) of a table whose rows are ``rows``, in
    ``room`` cells: each as wide as its widest cell or header, then ``gives`` taken in order
    while they are too wide (``room`` 0: not laid out yet, every column as is)."""
    widths = {
        key: max([len(label), *(row[index].cell_len for row in rows)])
        for index, (label, key) in enumerate(columns)
    }
    kept = [key for _, key in columns]

    def total() -> int:
        return sum(widths[key] + CELL_PADDING for key in kept)

    for give in gives if room > 0 else ():
        excess = total() - room
        if excess <= 0:
            break
        if give.key not in kept:
            continue
        if give.least is None:
            kept.remove(give.key)
        else:
            # Never wider than it was: a column already narrower than ``least`` stays so.
            widths[give.key] = min(widths[give.key], max(give.least, widths[give.key] - excess))
    index_of = {key: index for index, (_, key) in enumerate(columns)}
    return Fitted(tuple((index_of[key], widths[key]) for key in kept))
