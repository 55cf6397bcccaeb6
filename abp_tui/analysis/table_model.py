"""The neutral table model: typed columns, rows of typed cells, and what a cell says.

A :class:`Table` has an id, a title, columns, rows and notes. Each :class:`Column` has a kind
(count, tally x/n, proportion x/n with its point and interval, interval, p-value, number, text,
...) and, for the machine-readable files, the names of the CSV fields its cells fill. The
builders (:mod:`abp_tui.analysis.results.tables`, :mod:`abp_tui.analysis.agreement.tables`) fill
tables; the faces only write them, every cell's text from :func:`spans`.

Pure: no I/O, no ``rich``, no ``textual``, no database.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter
from typing import Any, Final, Literal

from abp_tui.analysis.made_when_read import MadeWhenRead
from abp_tui.analysis.results.tallies import confidence_label
from abp_tui.stats.agreement import REFUSED
from abp_tui.stats.inference import Proportion


class Kind(StrEnum):
    """What a column holds, which decides how every face writes its cells."""

    TEXT = "text"
    """A string (or a tuple of strings, written "a; b"), possibly from a record."""
    COUNT = "count"
    """A whole number."""
    FLAG = "flag"
    """True or false."""
    NUMBER = "number"
    """A number (:class:`Number`, or a bare int or float), or missing."""
    TALLY = "tally"
    """x of n with no estimate (:class:`Tally`)."""
    COUNTS = "counts"
    """Several counts read together, "a / b / c" (:class:`Counts`)."""
    PAIR = "pair"
    """Two names side by side, "a vs b" (:class:`Pair`)."""
    PROPORTION = "proportion"
    """x/n with its point and interval (:class:`~abp_tui.stats.inference.Proportion`)."""
    INTERVAL = "interval"
    """A point estimate with its interval (:class:`Estimate`)."""
    P_VALUE = "p-value"
    """A p-value (:class:`PValue`)."""
    DISTRIBUTION = "distribution"
    """Counts by score with their total, "0:1  2:3 (n=4)" (:class:`Distribution`)."""


NUMERIC: Final = frozenset({Kind.COUNT, Kind.NUMBER})
"""Kinds whose cells are one number (faces align them as numbers)."""


@dataclass(frozen=True)
class Tally:
    x: int
    n: int


@dataclass(frozen=True)
class Counts:
    values: tuple[int, ...]


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    joiner: str = " vs "


@dataclass(frozen=True)
class Number:
    """A number, or its absence: missing (with the count of measurements) or undefined."""

    value: float | None
    n: int | None = None
    """Measurements behind it, shown with ``missing`` as "(n, missing)"."""
    missing: int | None = None
    reason: str | None = None
    """Why it is undefined; a face short of space shows "undefined" and leaves the reason to
    the figure's own table."""


@dataclass(frozen=True)
class Estimate:
    """A point estimate and its interval, or the reason it is undefined.

    With a point and no interval, ``reason`` says why the interval is undefined. ``seed`` and the
    resample counts are shown beside the interval when set (a bootstrap the row must describe).
    """

    point: float | None
    low: float | None = None
    high: float | None = None
    reason: str | None = None
    confidence: float | None = None
    seed: int | None = None
    resamples: int | None = None
    resamples_used: int | None = None


@dataclass(frozen=True)
class PValue:
    p: float | None
    reason: str | None = None


@dataclass(frozen=True)
class Distribution:
    counts: tuple[tuple[str, int], ...]
    """(score, count) for the scores given, in scale order."""
    n: int


@dataclass(frozen=True)
class FigureValue:
    """An agreement figure: its value, its large-sample interval (a kappa's) and its bootstrap
    interval, each present or with the reason it is not.

    Written "0.484 [0.214, 0.755] boot [0.190, 0.760]": the unlabelled brackets are the
    large-sample interval, "boot" the percentile bootstrap's, with "(n of N usable)" when some
    resamples were left out. A bootstrap reason is shown only when resamples were drawn.
    """

    point: float | None
    reason: str | None = None
    """Why the figure is undefined."""
    se: float | None = None
    se_low: float | None = None
    se_high: float | None = None
    se_reason: str | None = None
    """Why a defined kappa has no large-sample interval."""
    se_null: float | None = None
    z: float | None = None
    p: float | None = None
    """Two-sided p of the test of kappa = 0."""
    low: float | None = None
    high: float | None = None
    boot_reason: str | None = None
    """Why there is no bootstrap interval (written only when resamples were drawn)."""
    resamples: int | None = None
    resamples_used: int | None = None
    confidence: float | None = None


Cell = (
    str
    | int
    | float
    | bool
    | tuple[str, ...]
    | None
    | Tally
    | Counts
    | Pair
    | Number
    | Proportion
    | Estimate
    | PValue
    | Distribution
    | FigureValue
)

Part = str
"""A part of a cell written to its own CSV field: "value" for a one-value cell; for others the
attribute ("x", "n", "point", "low", "high", "reason", "p", "a", "b", ...) or, for Counts, the
position ("0", "1", ...)."""


@dataclass(frozen=True)
class Column:
    key: str
    label: str = ""
    """The header people read (the key when empty)."""
    kind: Kind = Kind.TEXT
    csv: tuple[tuple[str, Part], ...] | None = None
    """(CSV header, part of the cell) for each CSV field of the column; None: one field named
    by the key holding the whole cell; (): the column is not in the CSV file."""
    shown: bool = True
    """False: the column is in the CSV file only (its figures are shown elsewhere, or are the
    long form of a shown cell)."""
    short: str = ""
    """A header for narrow tables (the workstation's), when it differs from the label."""
    digits: int | None = None
    """Decimals of a NUMBER or INTERVAL (None: as many as needed, up to six significant)."""
    signed: bool = False
    """Show the sign of an INTERVAL's numbers (a difference)."""
    empty: str = ""
    """What people read for an empty cell (an empty text or a missing value), so that a blank
    is not taken for missing data ("none" of a list of items); the CSV field stays empty."""
    cut: int = 0
    """Words of a text cell people read at most (0: all): a longer list (of item codes) is cut
    and says how many more there are (:func:`cut_list`); the CSV field keeps them all."""

    @property
    def header(self) -> str:
        return self.label or self.key

    @property
    def short_header(self) -> str:
        return self.short or self.header

    @property
    def fields(self) -> tuple[tuple[str, Part], ...]:
        return ((self.key, "value"),) if self.csv is None else self.csv


class MadeRows(MadeWhenRead[tuple[Cell, ...]]):
    """A table's rows, each made from its source by ``make`` when it is read (a long table, one
    row a task and condition, is written a row at a time and never held whole). Equal to any
    sequence of the same rows."""

    def __init__(self, sources: Sequence[Any], make: Callable[[Any], tuple[Cell, ...]]) -> None:
        self._sources = sources
        self._make = make

    def __len__(self) -> int:
        return len(self._sources)

    def _at(self, index: int) -> tuple[Cell, ...]:
        return self._make(self._sources[index])

    def __iter__(self) -> Iterator[tuple[Cell, ...]]:
        return map(self._make, self._sources)


@dataclass(frozen=True)
class Table:
    id: str
    title: str
    columns: tuple[Column, ...]
    rows: Sequence[tuple[Cell, ...]]
    """Its rows: a tuple, or a sequence making each row when it is read (a long table a
    bundle writes, never whole in memory: its rows are not checked here)."""
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        keys = [c.key for c in self.columns]
        if len(set(keys)) != len(keys):
            raise ValueError(f"table {self.id}: duplicate column keys")
        for row in self.rows if isinstance(self.rows, tuple) else ():
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.id}: a row of {len(row)} cells, not {len(keys)}")

    @property
    def shown(self) -> tuple[Column, ...]:
        """The columns people read, in order."""
        return tuple(c for c in self.columns if c.shown)

    def index(self, key: str) -> int:
        for i, c in enumerate(self.columns):
            if c.key == key:
                return i
        raise KeyError(f"table {self.id} has no column {key!r}")

    def cells(self, row: Sequence[Cell]) -> list[tuple[Column, Cell]]:
        """The shown columns of ``row`` with their cells."""
        return [(c, v) for c, v in zip(self.columns, row, strict=True) if c.shown]

    def value(self, row: Sequence[Cell], key: str) -> Cell:
        return row[self.index(key)]


# -- cells as text ---------------------------------------------------------------------------------
Role = Literal["", "figure", "undefined"]
Span = tuple[str, Role]
"""A piece of a cell's text and what it is: "figure" (the value a reader looks for first),
"undefined" (the undefined marker and its reason) or "" (anything else)."""


def _undefined(reason: str | None) -> Span:
    return (f"undefined: {reason or 'no reason given'}", "undefined")


def _number(value: float, digits: int | None = None, signed: bool = False) -> str:
    if digits is None:
        return f"{value:+g}" if signed else f"{value:g}"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def spans(column: Column, value: Cell) -> tuple[Span, ...]:
    """The text of one cell, as every face shows it, in styled pieces."""
    kind = column.kind
    if column.empty and (value is None or value == ""):
        return ((column.empty, ""),)
    if value is None:
        return ()
    if isinstance(value, bool):
        return (("true" if value else "false", ""),)
    if isinstance(value, str):
        return ((cut_list(value, column.cut) if column.cut else value, ""),)
    if isinstance(value, tuple):
        return (("; ".join(value), ""),)
    if isinstance(value, int | float):
        return ((str(value) if isinstance(value, int) else _number(value, column.digits), ""),)
    if isinstance(value, Tally):
        return ((f"{value.x}/{value.n}", ""),)
    if isinstance(value, Counts):
        return ((" / ".join(str(v) for v in value.values), ""),)
    if isinstance(value, Pair):
        return ((f"{value.a}{value.joiner}{value.b}", ""),)
    if isinstance(value, Distribution):
        shown = "  ".join(f"{s}:{c}" for s, c in value.counts)
        return ((f"{shown} (n={value.n})" if shown else f"(n={value.n})", ""),)
    if isinstance(value, Number):
        return _number_spans(column, value)
    if isinstance(value, Proportion):
        head = f"{value.x}/{value.n}"
        if value.point is None or value.low is None or value.high is None:
            return ((f"{head} ", ""), _undefined(value.undefined_reason))
        return ((head, "figure"), (f" = {value.point:.3f} [{value.low:.3f}, {value.high:.3f}]", ""))
    if isinstance(value, PValue):
        if value.p is None:
            return (_undefined(value.reason),)
        return ((f"p = {value.p:.4g}", ""),)
    if isinstance(value, Estimate):
        return _estimate_spans(column, value)
    if isinstance(value, FigureValue):
        return _figure_value_spans(value)
    raise TypeError(f"column {column.key} ({kind}): no text for {type(value).__name__}")


def _number_spans(column: Column, value: Number) -> tuple[Span, ...]:
    counted = f" ({value.n}, {value.missing})" if value.n is not None else ""
    if value.value is not None:
        return ((_number(value.value, column.digits) + counted, ""),)
    if value.reason is not None:
        return (("undefined", "undefined"),)
    return (("missing" + counted, ""),) if counted else ()


def _estimate_spans(column: Column, e: Estimate) -> tuple[Span, ...]:
    if e.point is None:
        return (_undefined(e.reason),)
    digits = 3 if column.digits is None else column.digits
    out: list[Span] = [(_number(e.point, digits, column.signed), "figure")]
    if e.low is not None and e.high is not None:
        low, high = (_number(v, digits, column.signed) for v in (e.low, e.high))
        out.append((f" [{low}, {high}]", ""))
        if e.seed is not None:
            level = f"{confidence_label(e.confidence)} " if e.confidence is not None else ""
            out.append(
                (
                    f" ({level}bootstrap, seed {e.seed}, {e.resamples_used}/{e.resamples} "
                    "resamples)",
                    "",
                )
            )
    elif e.reason:
        out += [(" (interval ", ""), _undefined(e.reason), (")", "")]
    return tuple(out)


def _unprefixed(reason: str) -> str:
    return reason.removeprefix(REFUSED)


def _figure_value_spans(v: FigureValue) -> tuple[Span, ...]:
    if v.point is None:
        return (_undefined(v.reason),)
    out: list[Span] = [(f"{v.point:.3f}", "figure")]
    if v.se_low is not None and v.se_high is not None:
        out.append((f" [{v.se_low:.3f}, {v.se_high:.3f}]", ""))
    elif v.se == 0:
        # The reason is long (in the figure's own note); the cell says what it is.
        out += [(" (", ""), ("no interval: SE 0", "undefined"), (")", "")]
    elif v.se_reason:
        out += [(" (interval ", ""), _undefined(_unprefixed(v.se_reason)), (")", "")]
    if v.low is not None and v.high is not None:
        out.append((f" boot [{v.low:.3f}, {v.high:.3f}]", ""))
        if v.resamples and v.resamples_used is not None and v.resamples_used < v.resamples:
            out.append((f" ({v.resamples_used} of {v.resamples} usable)", ""))
    elif v.boot_reason:
        out += [(" (boot ", ""), _undefined(_unprefixed(v.boot_reason)), (")", "")]
    return tuple(out)


def cut_list(text: str, most: int) -> str:
    """``text``, a list of words (item codes) separated by spaces, cut after ``most`` of them
    with how many more there are: a large study's thousands of unresolved items would make a
    row people cannot read."""
    words = text.split(" ", most)
    if len(words) <= most or " " not in words[-1]:  # "and 1 more" says no less than the code
        return text
    more = text.count(" ", len(text) - len(words[-1])) + 1
    return f"{' '.join(words[:most])} and {more:,} more"


def cell_text(column: Column, value: Cell) -> str:
    """The plain text of a cell (the spans joined)."""
    kind = type(value)
    if isinstance(value, str) and kind is str:  # most cells of a long table: no spans
        return (cut_list(value, column.cut) if column.cut else value) or column.empty
    if kind is int:  # as spans writes a count (not a bool: its type is not int)
        return str(value)
    if value is None:
        return column.empty
    if isinstance(value, tuple) and kind is tuple:
        return "; ".join(value)
    # A long table's tallies and proportions: the text of their spans, written at once.
    if isinstance(value, Tally) and kind is Tally:
        return f"{value.x}/{value.n}"
    if isinstance(value, Proportion) and kind is Proportion:
        if value.point is None or value.low is None or value.high is None:
            return f"{value.x}/{value.n} undefined: {value.undefined_reason or 'no reason given'}"
        return f"{value.x}/{value.n} = {value.point:.3f} [{value.low:.3f}, {value.high:.3f}]"
    return "".join(text for text, _role in spans(column, value))


# -- cells as CSV fields ---------------------------------------------------------------------------
def _part(value: Cell, part: Part) -> Any:
    if part == "value":
        return value.value if isinstance(value, Number) else value
    if isinstance(value, Counts):
        return value.values[int(part)]
    if isinstance(value, Proportion | PValue | Estimate) and part == "reason":
        return value.undefined_reason if isinstance(value, Proportion) else value.reason
    return getattr(value, part)


def csv_rows(table: Table) -> tuple[list[str], list[list[Any]]]:
    """The table's CSV header and rows of raw values (numbers, None, strings, tuples)."""
    header = [name for c in table.columns for name, _part_name in c.fields]
    values = csv_values(table.columns)
    return header, [values(row) for row in table.rows]


def csv_cells(columns: Sequence[Column]) -> Callable[[Sequence[Cell]], list[Any]] | None:
    """A function giving a row's CSV fields as :func:`csv_values` gives them, except that a
    cell of a one-field column is given as it is, not read for its value: the writer reads it
    (:func:`csv_value`) when it writes it. None when each column is one such field: a row's
    fields are then its cells. A run of one-field columns is taken as one slice of the row,
    a column of several fields by one call for each cell (:func:`_parts_of`)."""
    if all(len(c.fields) == 1 and c.fields[0][1] == "value" for c in columns):
        return None
    width = len(columns)
    steps: list[tuple[int, int, tuple[Part, ...]]] = []
    """(first column, column after the last, ()) for a run of one-field columns; (column, -1,
    its parts) for a column of several fields."""
    for i, c in enumerate(columns):
        if not c.fields:
            continue
        if len(c.fields) == 1 and c.fields[0][1] == "value":
            if steps and steps[-1][1] == i:
                steps[-1] = (steps[-1][0], i + 1, ())
            else:
                steps.append((i, i + 1, ()))
        else:
            steps.append((i, -1, tuple(p for _n, p in c.fields)))
    getters: dict[tuple[type, int], Callable[[Any], Sequence[Any]]] = {}

    def cells(row: Sequence[Cell]) -> list[Any]:
        if len(row) != width:
            raise ValueError(f"a row of {len(row)} cells, not {width}")
        out: list[Any] = []
        for i, end, parts in steps:
            if end >= 0:
                out += row[i:end]
                continue
            v = row[i]
            key = (type(v), i)
            getter = getters.get(key)
            if getter is None:
                getter = getters[key] = _parts_of(type(v), parts)
            out += getter(v)
        return out

    return cells


def csv_value(value: Cell) -> Any:
    """The raw CSV value of a cell written as one field: a :class:`Number`'s value, any other
    cell as it is."""
    return value.value if isinstance(value, Number) else value


def csv_values(columns: Sequence[Column]) -> Callable[[Sequence[Cell]], list[Any]]:
    """A function giving a row's raw CSV values, as :func:`csv_rows` gives them: a row of
    columns of one field each (most of a long table's) without the steps per field, and a
    column of several fields by one call for each cell (:func:`_parts_of`)."""
    plan = tuple((i, part) for i, c in enumerate(columns) for _n, part in c.fields)
    width = len(columns)
    whole = len(plan) == width and all(part == "value" for _i, part in plan)
    steps = tuple(
        (
            i,
            c.fields[0][1] == "value" if len(c.fields) == 1 else None,
            tuple(p for _n, p in c.fields),
        )
        for i, c in enumerate(columns)
        if c.fields
    )
    getters: dict[tuple[type, int], Callable[[Any], Sequence[Any]]] = {}

    def values(row: Sequence[Cell]) -> list[Any]:
        if len(row) != width:
            raise ValueError(f"a row of {len(row)} cells, not {width}")
        if whole:
            return [v.value if isinstance(v, Number) else v for v in row]
        out: list[Any] = []
        for i, one, parts in steps:
            v = row[i]
            if one:  # the cell's one field is its value
                out.append(v.value if isinstance(v, Number) else v)
                continue
            key = (type(v), i)
            getter = getters.get(key)
            if getter is None:
                getter = getters[key] = _parts_of(type(v), parts)
            out.extend(getter(v))
        return out

    return values


def _parts_of(kind: type, parts: tuple[Part, ...]) -> Callable[[Any], Sequence[Any]]:
    """A function giving the fields :func:`_part` gives a cell of type ``kind`` for ``parts``:
    one call reading each attribute when every part is one, else :func:`_part` for each."""
    names: list[str] = []
    for part in parts:
        if part == "value" or issubclass(kind, Counts) or part.isdigit():
            return lambda v: [_part(v, p) for p in parts]
        if part == "reason" and issubclass(kind, Proportion):
            names.append("undefined_reason")
        else:
            names.append(part)
    if len(names) == 1:
        name = names[0]
        return lambda v: (getattr(v, name),)
    return attrgetter(*names)


def count_column(key: str, label: str = "", shown: bool = True) -> Column:
    """A column of counts (``shown``: in the tables people read, not only the CSV file)."""
    return Column(key, label, Kind.COUNT, shown=shown)
