"""Judgments made elsewhere: a CSV table (item, reviewer, variable, value) and a TOML header.

``abp-tui agreement --table`` reads these files into the long table of judgments that
:mod:`abp_tui.stats.agreement` computes figures from. Bad input raises an InputError naming the
file, the line and the column, with what was expected. What a scale or a cell means (``1`` and
``1.0`` are one value) is :mod:`abp_tui.formats.agreement_scale`'s. Reading computes no
statistic; :func:`agreement_table` hands what was read to the statistics.

Reading goes column by column: the csv module parses the file in C, a few thousand rows at a
time, and every check and conversion then runs over whole columns (``map``, ``dict.fromkeys``,
NumPy) or over a column's distinct values (a scale has a handful), not as Python code per row,
which used to be half the time of the whole command on a large table. Line numbers are needed
only to report an error, so they are worked out then, by reading the file a second time.
"""

from __future__ import annotations

import csv
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, islice, repeat
from operator import is_not, itemgetter
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt
from pydantic import Field

from abp_tui.errors import AbpError, InputError
from abp_tui.formats.agreement_scale import OffScale, cell_reader, check_scale, parse_scale
from abp_tui.formats.base import check_input_file, validate
from abp_tui.models.base import Model
from abp_tui.runtime import collector_paused
from abp_tui.stats.agreement import (
    CONFIDENCE,
    DEFAULT_PAIR_RESAMPLES,
    DEFAULT_RESAMPLES,
    DEFAULT_WEIGHT_BASIS,
    LEVELS,
    AgreementError,
    AgreementReport,
    Category,
    Level,
    Observation,
    VariableSpec,
    WeightBasis,
    compute_all,
)

__all__ = [
    "JudgmentTable",
    "TableAgreementReport",
    "agreement_table",
    "read_header",
    "read_table",
]

_COLUMNS: Final = ("item", "reviewer", "variable", "value")

I64 = npt.NDArray[np.int64]


class TableAgreementReport(AgreementReport):
    """The agreement figures of a table, and whom the table lists without a judgment."""

    reviewers_without_judgments: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Per variable, the reviewers on that variable's rows whose every value is blank (sorted).
    They are in no figure's denominators; a variable none of whose reviewers is such is absent."""


@dataclass(frozen=True)
class JudgmentTable:
    """A table of judgments as read, ready for :func:`abp_tui.stats.agreement.compute_all`."""

    records: dict[str, list[Observation]]
    """(item, reviewer, value) per variable, in the order the variables first appear."""
    levels: dict[str, Level]
    scales: dict[str, tuple[Category, ...] | None]
    reviewers_without_judgments: dict[str, tuple[str, ...]]
    """Per variable, the reviewers listed on its rows with every value blank."""


# -- the header file -------------------------------------------------------------------------------


class _TableHeader(Model):
    variables: dict[str, VariableSpec]


def read_header(path: Path | str) -> dict[str, VariableSpec]:
    """Per-variable levels and scales from a TOML file.

    Each variable is a table ``[variables.NAME]`` with ``level = "ordinal"`` and optionally
    ``scale = [0, 1, 2]`` (or labels, ``["low", "mid", "high"]``, in their order).
    """
    path = Path(path)
    display = str(path)
    check_input_file(path, display)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(
            display, "invalid UTF-8: expected UTF-8 text", raw.count(b"\n", 0, exc.start) + 1
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(display, f"malformed TOML: {exc}") from None
    except RecursionError:
        raise InputError(display, "arrays or tables nested too deeply to read") from None
    header = validate(_TableHeader, data, display)
    specs: dict[str, VariableSpec] = {}
    for name, spec in header.variables.items():
        if spec.scale is not None:
            try:
                scale = check_scale(spec.level, spec.scale, f"variable {name!r}")
            except AbpError as exc:
                raise InputError(display, str(exc), None, f"$.variables.{name}.scale") from None
            spec = VariableSpec(level=spec.level, scale=scale)
        specs[name] = spec
    return specs


# -- the table -------------------------------------------------------------------------------------


_CHUNK: Final = 1024
"""Rows parsed at a time. One chunk's rows are freed before the next is parsed, so memory holds
the columns, not every parsed row (allocating that much cost more than the parsing), and a chunk
stays in the processor's cache while its columns are taken (1024 was the fastest measured)."""


def _header(head: list[str] | None, display: str) -> tuple[list[int], int]:
    """Where the four columns are, and how many fields a row has."""
    if head is None:
        raise InputError(
            display, "empty file: expected a header row item,reviewer,variable,value", 1
        )
    names = [h.strip().lower() for h in head]
    for column in _COLUMNS:
        if column not in names:
            raise InputError(
                display, f"missing column {column!r}: expected columns {', '.join(_COLUMNS)}", 1
            )
    if len(set(names)) != len(names):
        raise InputError(display, "a column name is repeated in the header row", 1)
    return [names.index(c) for c in _COLUMNS], len(names)


class _Rows:
    """The four columns of a table's rows, and the rows' line numbers on demand.

    Equal texts in a column are one string object (a column of a long table repeats a few
    thousand names), which keeps memory small and makes every later lookup an identity match.
    """

    def __init__(self, path: Path, display: str) -> None:
        self.path, self.display = path, display
        self.kept: list[int] | None = None
        """Positions among the parsed rows of the rows kept (None: every row, no blank lines)."""
        self._lines: list[int] | None = None
        check_input_file(path, display)
        try:
            with path.open(encoding="utf-8-sig", newline="") as handle:
                reader = csv.reader(handle, strict=True)
                try:
                    at, width = _header(next(reader, None), display)
                    self.columns = self._read(reader, at, width)
                except csv.Error as exc:
                    raise InputError(display, f"malformed CSV: {exc}", reader.line_num) from None
        except OSError as exc:
            raise InputError(display, f"cannot read file: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise InputError(
                display, "invalid UTF-8: expected UTF-8 text", self._bad_utf8()
            ) from None
        if not self.columns[0]:
            raise InputError(display, "no judgments: expected rows after the header row", 2)

    def _read(self, reader: Iterator[list[str]], at: list[int], width: int) -> list[list[str]]:
        columns: list[list[str]] = [[] for _ in at]
        seen: list[dict[str, str]] = [{} for _ in at]
        parsed = 0
        while chunk := list(islice(reader, _CHUNK)):
            count = len(chunk)
            if self.kept is not None or list(map(len, chunk)).count(width) != count:
                chunk = self._keep(chunk, parsed, width)
            parsed += count
            if not chunk:
                continue
            fields = list(zip(*chunk, strict=True))  # the chunk's columns
            for column, canonical, i in zip(columns, seen, at, strict=True):
                column += map(canonical.setdefault, fields[i], fields[i])
        return columns

    def _keep(self, chunk: list[list[str]], start: int, width: int) -> list[list[str]]:
        """The chunk without its blank lines; a row of another width is an error."""
        if self.kept is None:
            self.kept = list(range(start))
        rows = []
        for position, row in enumerate(chunk, start):
            size = len(row)
            if size == width:
                self.kept.append(position)
                rows.append(row)
            elif size and not (size == 1 and not row[0].strip()):
                raise InputError(
                    self.display,
                    f"expected {width} fields as in the header row, found {size}",
                    self._line_of(position),
                )
        return rows

    def _bad_utf8(self) -> int | None:
        try:
            data = self.path.read_bytes()
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return data.count(b"\n", 0, exc.start) + 1
        except OSError:
            return None
        return None

    def _line_of(self, parsed: int) -> int:
        if self._lines is None:
            with self.path.open(encoding="utf-8-sig", newline="") as handle:
                reader = csv.reader(handle, strict=True)
                next(reader)
                lines: list[int] = []
                try:
                    for _ in reader:
                        lines.append(reader.line_num)
                except csv.Error:
                    pass  # a malformed row after the one asked about
                self._lines = lines
        return self._lines[parsed]

    def line(self, position: int) -> int:
        """The line (of the file, from 1) on which the kept row at ``position`` ends."""
        return self._line_of(position if self.kept is None else self.kept[position])

    def error(self, message: str, position: int, column: str | None = None) -> InputError:
        return InputError(self.display, message, self.line(position), column)


@dataclass(frozen=True)
class _Ids:
    """A column of names (items, reviewers or variables), stripped, and each name's code."""

    values: list[str]
    codes: I64
    ids: dict[str, int]
    """Each distinct name and its code, in the order names first appear."""


def _ids(table: _Rows, values: list[str], column: str) -> _Ids:
    # The checks look at the distinct names, a few thousand at most, not at every row.
    distinct = dict.fromkeys(values)
    if any(name != name.strip() for name in distinct):
        stripped = {name: name.strip() for name in distinct}
        values = list(map(stripped.__getitem__, values))
        distinct = dict.fromkeys(values)
    if "" in distinct:
        raise table.error(f"empty {column}: expected a {column} name", values.index(""), column)
    ids = {name: k for k, name in enumerate(distinct)}
    codes = np.fromiter(map(ids.__getitem__, values), dtype=np.int64, count=len(values))
    return _Ids(values, codes, ids)


def _columns(table: _Rows) -> tuple[_Ids, _Ids, _Ids, list[str]]:
    """The item, reviewer and variable columns with their codes, and the value column."""
    item, reviewer, variable, value = table.columns
    return (
        _ids(table, item, "item"),
        _ids(table, reviewer, "reviewer"),
        _ids(table, variable, "variable"),
        value,
    )


def _refuse_duplicates(table: _Rows, item: _Ids, reviewer: _Ids, variable: _Ids) -> None:
    """One judgment per reviewer, item and variable (a blank one included)."""
    n_items, n_reviewers = len(item.ids), len(reviewer.ids)
    if len(variable.ids) * n_reviewers * n_items < 2**62:
        key = (variable.codes * n_reviewers + reviewer.codes) * n_items + item.codes
        key.sort()
        if not np.any(key[1:] == key[:-1]):
            return
    elif len(set(zip(item.values, reviewer.values, variable.values, strict=True))) == len(
        item.values
    ):
        return
    first: dict[tuple[str, str, str], int] = {}
    for position, triple in enumerate(
        zip(item.values, reviewer.values, variable.values, strict=True)
    ):
        if triple in first:
            name, who, what = triple
            raise table.error(
                f"reviewer {who!r} already judged item {name!r} for variable {what!r} on line "
                f"{table.line(first[triple])}",
                position,
            )
        first[triple] = position


def _take(values: list[str], positions: list[int]) -> list[str]:
    if len(positions) == 1:
        return [values[positions[0]]]
    return list(itemgetter(*positions)(values))


def _specs(
    display: str,
    level: str | None,
    scale: str | Sequence[Category] | None,
    header: Path | str | None,
) -> tuple[VariableSpec | None, dict[str, VariableSpec], str | None]:
    """(the spec of a single variable, the header's specs, the header's name)."""
    if header is not None:
        if level is not None or scale is not None:
            raise AbpError(
                "a header file declares each variable's level and scale: give either a level "
                "(and scale) or a header file, not both"
            )
        return None, read_header(header), str(header)
    if level is None:
        raise InputError(
            display, "no level given: give the level (and scale) or a header file declaring each"
        )
    if level not in LEVELS:
        raise InputError(display, f"unknown level {level!r}; expected one of {', '.join(LEVELS)}")
    if scale is None:
        cats = None
    elif isinstance(scale, str):
        cats = parse_scale(scale, level)
    else:
        cats = check_scale(level, scale, "the declared scale")
    lvl: Level = level
    return VariableSpec(level=lvl, scale=cats), {}, None


def read_table(
    path: Path | str,
    *,
    level: str | None = None,
    scale: str | Sequence[Category] | None = None,
    header: Path | str | None = None,
) -> JudgmentTable:
    """Judgments from a CSV file with columns item, reviewer, variable, value.

    A blank value is a missing judgment; other columns are ignored. Give ``level`` (and
    optionally ``scale``, as typed, see :func:`parse_scale`, or as categories) when the file holds
    a single variable, or ``header``, a TOML file declaring each variable (see
    :func:`read_header`). At a numeric level a value is a number ("1" and "1.0" are the same);
    with a scale it is one of the scale's categories. Bad input raises InputError naming the
    file, the line and the column, with what was expected.
    """
    path = Path(path)
    display = str(path)
    single, specs, header_name = _specs(display, level, scale, header)
    with collector_paused():
        return _read(path, display, single, specs, header_name)


def _read(
    path: Path,
    display: str,
    single: VariableSpec | None,
    specs: dict[str, VariableSpec],
    header_name: str | None,
) -> JudgmentTable:
    table = _Rows(path, display)
    item, reviewer, variable, value = _columns(table)
    var_ids = variable.ids
    if single is not None:
        if len(var_ids) > 1:
            names = ", ".join(repr(v) for v in list(var_ids)[:5])
            raise InputError(
                display,
                f"the table holds {len(var_ids)} variables ({names}); a level applies to one "
                "variable: declare each in a header file",
            )
        specs = dict.fromkeys(var_ids, single)
    for name in var_ids:
        if name not in specs:
            raise table.error(
                f"variable {name!r} is not declared in the header file {header_name}",
                variable.values.index(name),
                "variable",
            )
    _refuse_duplicates(table, item, reviewer, variable)

    records: dict[str, list[Observation]] = {}
    missing: dict[str, tuple[str, ...]] = {}
    groups: list[tuple[str, list[int] | None]]
    if len(var_ids) == 1:
        groups = [(next(iter(var_ids)), None)]
    else:
        order = np.argsort(variable.codes, kind="stable")
        ends = np.cumsum(np.bincount(variable.codes, minlength=len(var_ids))).tolist()
        groups = [
            (name, order[start:end].tolist())
            for name, start, end in zip(var_ids, [0, *ends[:-1]], ends, strict=True)
        ]
    for name, positions in groups:
        if positions is None:
            items, reviewers, cells = item.values, reviewer.values, value
        else:
            items, reviewers = _take(item.values, positions), _take(reviewer.values, positions)
            cells = _take(value, positions)
        read = cell_reader(specs[name], name)
        meaning: dict[str, Category | None] = {}
        for text in dict.fromkeys(cells):
            try:
                meaning[text] = read(text.strip())
            except OffScale as exc:
                at = cells.index(text)
                raise table.error(
                    str(exc), at if positions is None else positions[at], "value"
                ) from None
        values = list(map(meaning.__getitem__, cells))
        records[name] = list(zip(items, reviewers, values, strict=True))
        if None in meaning.values():
            judged = set(compress(reviewers, map(is_not, values, repeat(None))))
            blank = sorted(set(reviewers) - judged)
            if blank:
                missing[name] = tuple(blank)
    return JudgmentTable(
        records=records,
        levels={name: specs[name].level for name in records},
        scales={name: specs[name].scale for name in records},
        reviewers_without_judgments=missing,
    )


def agreement_table(
    path: Path | str,
    *,
    level: str | None = None,
    scale: str | Sequence[Category] | None = None,
    header: Path | str | None = None,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
    confidence: float = CONFIDENCE,
    weight_basis: WeightBasis = DEFAULT_WEIGHT_BASIS,
) -> TableAgreementReport:
    """Agreement figures for the judgments of a CSV table (see :func:`read_table`)."""
    judgments = read_table(path, level=level, scale=scale, header=header)
    try:
        report = compute_all(
            judgments.records,
            judgments.levels,
            judgments.scales,
            seed,
            resamples=resamples,
            pair_resamples=pair_resamples,
            confidence=confidence,
            weight_basis=weight_basis,
        )
    except AgreementError as exc:
        raise InputError(str(path), str(exc)) from None
    return TableAgreementReport(
        **dict(report),
        reviewers_without_judgments=judgments.reviewers_without_judgments,
    )
