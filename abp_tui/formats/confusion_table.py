"""A confusion matrix of two raters as a CSV file: ``abp-tui stats kappa`` reads it here.

The file is square: q rows of q counts, rater A's categories down the rows and rater B's across
the columns, in the same order. An optional first row names the categories (a first row with a
cell that is not a number is a header); when that header starts with an empty cell, every row
starts with its category's label (the way to name numeric categories such as 0, 1, 2). Without
a header the categories are named 1..q. Bad input raises an InputError naming the file, the line
and the column; nothing here computes a statistic.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from abp_tui.errors import InputError
from abp_tui.formats.base import check_input_file

__all__ = ["numeric_labels", "read_confusion_table"]


def _whole(text: str) -> int | None:
    text = text.strip()
    if text.isascii() and text.isdigit():
        return int(text)
    return None


def _number(text: str) -> bool:
    try:
        float(text.strip())
    except ValueError:
        return False
    return True


def numeric_labels(labels: list[str]) -> list[str | int | float] | None:
    """The labels as numbers when every one is a finite number ("0", "1.5"), else None: an
    ordered scale then weighs the categories by their values, not their positions."""
    out: list[str | int | float] = []
    for label in labels:
        try:
            value = float(label)
        except ValueError:
            return None
        if not math.isfinite(value):
            return None
        out.append(int(value) if value.is_integer() and "." not in label else value)
    return out


def read_confusion_table(path: Path) -> tuple[list[str], list[list[int]]]:
    """The categories and the counts of the square confusion matrix in ``path``."""
    where = str(path)
    check_input_file(path, where)
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows = [row for row in csv.reader(handle) if any(cell.strip() for cell in row)]
    except OSError as exc:
        raise InputError(where, f"cannot read the file: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InputError(where, f"not a UTF-8 CSV file: {exc}") from None
    if not rows:
        raise InputError(where, "the file is empty: expected a square table of counts")
    first_line = 1
    labels: list[str] | None = None
    row_labels = False
    if rows[0][0].strip() == "" or not all(_number(cell) for cell in rows[0]):
        header = [cell.strip() for cell in rows[0]]
        row_labels = header[0] == ""
        labels = header[1:] if row_labels else header
        rows = rows[1:]
        first_line = 2
        if not rows:
            raise InputError(where, "the file has a header row but no counts")
    counts: list[list[int]] = []
    for offset, row in enumerate(rows):
        line = first_line + offset
        cells = row[1:] if row_labels else row
        values: list[int] = []
        for column, cell in enumerate(cells, start=2 if row_labels else 1):
            value = _whole(cell)
            if value is None:
                raise InputError(
                    where,
                    f"column {column}: {cell.strip()!r} is not a count "
                    "(expected a whole number >= 0)",
                    line=line,
                )
            values.append(value)
        counts.append(values)
    q = len(counts)
    for offset, values in enumerate(counts):
        if len(values) != q:
            raise InputError(
                where,
                f"{len(values)} counts in a table of {q} rows: the table must be square",
                line=first_line + offset,
            )
    if labels is None:
        labels = [str(k + 1) for k in range(q)]
    elif len(labels) != q:
        raise InputError(
            where,
            f"the header names {len(labels)} categories for a {q} x {q} table",
            line=1,
        )
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise InputError(where, f"the header names {duplicates[0]!r} twice", line=1)
    if row_labels:
        for offset, row in enumerate(rows):
            if row[0].strip() != labels[offset]:
                raise InputError(
                    where,
                    f"row label {row[0].strip()!r} does not match column {labels[offset]!r}: "
                    "rows and columns must list the categories in the same order",
                    line=first_line + offset,
                )
    return labels, counts
