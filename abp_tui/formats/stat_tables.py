"""Small CSV tables that ``abp-tui stats ppi`` and ``abp-tui stats cs`` read, so a reader can
check a judge-assisted estimate or a confidence sequence by hand.

- A **units table** (``stats ppi``): a header row with the columns ``unit``, ``prediction`` (the
  judge's value, in [0, 1]), ``label`` (people's value in [0, 1], blank when people did not
  judge the unit) and optionally ``probability`` (the chance the unit had of being sent to
  people, in (0, 1] where it was labelled; the column absent or blank on every labelled unit
  means a uniform sample). Other columns are ignored.
- A **stream** (``stats cs``): values in [0, 1] in the order they were observed, in the column
  named ``value`` (or the one given, or the only column), under a header row.

Bad input raises an InputError naming the file, the line and the column, with what was
expected. Blank lines are skipped. Nothing here computes a statistic.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from abp_tui.errors import InputError
from abp_tui.formats.base import check_input_file

__all__ = ["UnitsTable", "read_stream", "read_units_table"]

F64 = npt.NDArray[np.float64]
_UNIT_COLUMNS: Final = ("unit", "prediction", "label")


@dataclass(frozen=True)
class UnitsTable:
    """A units table as read: one entry per unit, in the file's order."""

    units: tuple[str, ...]
    prediction: F64
    label: F64
    """NaN where people did not judge the unit."""
    probability: F64 | None
    """None: a uniform sample; else NaN where not given (units people did not judge)."""


def _rows(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header (names stripped, lower case) and the other non-blank rows with their lines."""
    where = str(path)
    check_input_file(path, where)  # a named pipe or a folder: refused unopened, never waited on
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, strict=True)
            rows: list[tuple[int, list[str]]] = []
            head: list[str] | None = None
            try:
                for row in reader:
                    if not any(cell.strip() for cell in row):
                        continue
                    if head is None:
                        head = [cell.strip().lower() for cell in row]
                    else:
                        rows.append((reader.line_num, row))
            except csv.Error as exc:
                raise InputError(where, f"malformed CSV: {exc}", reader.line_num) from None
    except OSError as exc:
        raise InputError(where, f"cannot read the file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(where, "invalid UTF-8: expected a UTF-8 CSV file") from None
    if head is None:
        raise InputError(where, "empty file: expected a header row", 1)
    seen: set[str] = set()
    for name in head:
        if name and name in seen:
            raise InputError(where, f"column {name!r} is named twice in the header row", 1)
        seen.add(name)
    return head, rows


def _cell(where: str, line: int, row: list[str], at: int, width: int) -> str:
    if len(row) != width:
        raise InputError(
            where, f"expected {width} fields as in the header row, found {len(row)}", line
        )
    return row[at].strip()


def _fraction(where: str, line: int, column: str, text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        if not text:
            raise InputError(where, f"column {column}: blank: expected {what}", line) from None
        raise InputError(
            where, f"column {column}: {text[:40]!r} is not a number: expected {what}", line
        ) from None
    if not math.isfinite(value):
        raise InputError(
            where, f"column {column}: {text[:40]!r} is not a finite number: expected {what}", line
        )
    if not 0 <= value <= 1:
        raise InputError(
            where, f"column {column}: {text[:40]!r} is out of range: expected {what}", line
        )
    return value


def read_units_table(path: Path) -> UnitsTable:
    """The units of a ``stats ppi`` table, checked."""
    where = str(path)
    head, rows = _rows(path)
    for column in _UNIT_COLUMNS:
        if column not in head:
            raise InputError(
                where,
                f"missing column {column!r}: expected columns unit, prediction, label "
                "(and optionally probability)",
                1,
            )
    at = {name: head.index(name) for name in (*_UNIT_COLUMNS, "probability") if name in head}
    width = len(head)
    units: list[str] = []
    first_line: dict[str, int] = {}
    prediction: list[float] = []
    label: list[float] = []
    probability: list[float] = []
    given_on: int | None = None  # a labelled unit's line that gives a probability
    blank_on: int | None = None  # a labelled unit's line that does not
    for line, row in rows:
        unit = _cell(where, line, row, at["unit"], width)
        if not unit:
            raise InputError(where, "column unit: blank: expected the unit's name", line)
        if unit in first_line:
            raise InputError(
                where,
                f"column unit: {unit[:40]!r} is listed twice (first on line "
                f"{first_line[unit]}): expected one row per unit",
                line,
            )
        first_line[unit] = line
        units.append(unit)
        prediction.append(
            _fraction(
                where,
                line,
                "prediction",
                row[at["prediction"]].strip(),
                "the judge's value in [0, 1]",
            )
        )
        text = row[at["label"]].strip()
        value = (
            math.nan
            if not text
            else _fraction(where, line, "label", text, "people's value in [0, 1], or blank")
        )
        label.append(value)
        chance = row[at["probability"]].strip() if "probability" in at else ""
        if not chance:
            probability.append(math.nan)
            if text:
                blank_on = blank_on or line
            continue
        p = _fraction(where, line, "probability", chance, "a probability in (0, 1]")
        if text:
            if p == 0:
                raise InputError(
                    where,
                    "column probability: 0 on a unit people judged: expected the chance it "
                    "had of being sent to people, in (0, 1]",
                    line,
                )
            given_on = given_on or line
        probability.append(p)
    if not units:
        raise InputError(where, "no units: expected rows after the header row", 2)
    if not any(not math.isnan(v) for v in label):
        raise InputError(
            where, "column label: blank on every unit: expected people's value on some units"
        )
    if given_on is not None and blank_on is not None:
        raise InputError(
            where,
            f"column probability: blank on a unit people judged, while line {given_on} gives "
            "one: expected a probability on every labelled unit, or on none (a uniform sample)",
            blank_on,
        )
    return UnitsTable(
        units=tuple(units),
        prediction=np.asarray(prediction, dtype=np.float64),
        label=np.asarray(label, dtype=np.float64),
        probability=np.asarray(probability, dtype=np.float64) if given_on is not None else None,
    )


def read_stream(path: Path, column: str | None = None) -> F64:
    """The values, in order, of a ``stats cs`` stream: the column ``column``, else ``value``,
    else the only column."""
    where = str(path)
    head, rows = _rows(path)
    if column is not None:
        name = column.strip().lower()
    elif "value" in head:
        name = "value"
    elif len(head) == 1:
        name = head[0]
    else:
        name = "value"
    if name not in head:
        raise InputError(
            where,
            f"missing column {name!r}: expected a column of values in [0, 1] (value, or "
            "--column NAME)",
            1,
        )
    at, width = head.index(name), len(head)
    values = [
        _fraction(where, line, name, _cell(where, line, row, at, width), "a value in [0, 1]")
        for line, row in rows
    ]
    if not values:
        raise InputError(where, "no values: expected rows after the header row", 2)
    return np.asarray(values, dtype=np.float64)
