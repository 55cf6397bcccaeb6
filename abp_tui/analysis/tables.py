"""Results and agreement as neutral tables: typed columns, rows of typed cells, computed once.

A :class:`Table` has an id, a title, columns, rows and notes. Each :class:`Column` has a kind
(count, tally x/n, proportion x/n with its point and interval, interval, p-value, number, text,
...) and, for the machine-readable files, the names of the CSV fields its cells fill. The
builders below turn results (by condition, by task, rubric dimensions, comparisons, the runs left
out of them, efficiency, position bias), agreement (every variable x every declared figure,
reviewer pairs) and disagreements into tables once; the faces only write them: CSV
(:mod:`abp_tui.export.tables`), the report's HTML (:mod:`abp_tui.export.report`), ``rich``
renderables (:mod:`abp_tui.tui.charts`) and the command line's text (:mod:`abp_tui.cli.text`).

Every face shows a cell with the same characters, from :func:`spans`: a proportion is x/n beside
its interval, an undefined value says "undefined: <reason>", never NaN. Spans carry a role
(figure, undefined) that a face may style; they are never markup. Text from records stays as it
came: each face makes it safe for where it goes (:mod:`abp_tui.text.safe`).

This module is pure: no I/O, no ``rich``, no ``textual``, no database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final, Literal, Protocol

from abp_tui.analysis.abp_efficiency import HEAD_TO_HEAD_NOTE, STRICT_ORDER, EngineEfficiency
from abp_tui.analysis.agreement_labels import ReferenceAgreement
from abp_tui.analysis.automated import JudgeTally
from abp_tui.analysis.results import (
    DEFAULT_CONFIDENCE,
    PASS_RATE_NOTE,
    RESULTS_NOTES,
    RUN_NOTES,
    Comparison,
    GroupResult,
    PositionBiasResult,
    VerdictSource,
    confidence_label,
)
from abp_tui.analysis.verdicts import Disagreement
from abp_tui.models import ResultState, Rubric
from abp_tui.stats.agreement import (
    PAIR_COEFFICIENTS,
    REFUSED,
    VARIABLE_COEFFICIENTS,
    AgreementReport,
    Coefficient,
    Figure,
    VariableAgreement,
)
from abp_tui.stats.inference import (
    BinomialTest,
    McNemar,
    PositionBias,
    Proportion,
    RelativeMedianDifference,
)
from abp_tui.stats.task_bootstrap import TaskInterval

__all__ = [
    "NUMERIC",
    "STATE_LABELS",
    "Cell",
    "Column",
    "Counts",
    "Distribution",
    "Estimate",
    "FigureValue",
    "Kind",
    "Number",
    "PValue",
    "Pair",
    "ResultsSource",
    "ResultsTables",
    "Role",
    "Span",
    "Table",
    "Tally",
    "agreement_table",
    "bootstrap_csv",
    "bootstrap_estimate",
    "cell_text",
    "comparisons_table",
    "csv_rows",
    "dimensions_table",
    "disagreements_table",
    "efficiency_table",
    "engine_efficiency_table",
    "figures_table",
    "group_table",
    "head_to_head_table",
    "judge_table",
    "left_out_table",
    "pairs_table",
    "position_table",
    "references_table",
    "results_tables",
    "spans",
    "variables_table",
]


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

    @property
    def header(self) -> str:
        return self.label or self.key

    @property
    def short_header(self) -> str:
        return self.short or self.header

    @property
    def fields(self) -> tuple[tuple[str, Part], ...]:
        return ((self.key, "value"),) if self.csv is None else self.csv


@dataclass(frozen=True)
class Table:
    id: str
    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        keys = [c.key for c in self.columns]
        if len(set(keys)) != len(keys):
            raise ValueError(f"table {self.id}: duplicate column keys")
        for row in self.rows:
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
    if value is None:
        return ()
    if isinstance(value, bool):
        return (("true" if value else "false", ""),)
    if isinstance(value, str):
        return ((value, ""),)
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


def cell_text(column: Column, value: Cell) -> str:
    """The plain text of a cell (the spans joined)."""
    if type(value) is str:  # most cells of the long tables: no spans to build
        return value
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
    rows = [
        [_part(v, part) for c, v in zip(table.columns, row, strict=True) for _n, part in c.fields]
        for row in table.rows
    ]
    return header, rows


# -- results ---------------------------------------------------------------------------------------
STATE_LABELS: Final = {
    ResultState.MODEL_PASS: "PASS",
    ResultState.MODEL_FAIL: "FAIL",
    ResultState.PROVIDER_BLOCK: "PROV BLOCK",
    ResultState.INFRA_ERROR: "INFRA",
    ResultState.INVALID_TEST: "INVALID",
    ResultState.GRADER_DISPUTE: "DISPUTE",
}
"""All six result states, always columns, in this order."""


def _wilson(confidence: float) -> str:
    """A Wilson interval's name in a header: "Wilson 95%"."""
    return f"Wilson {confidence_label(confidence)}"


def _wilson_fields(confidence: float) -> tuple[str, str]:
    """The CSV fields of a Wilson interval's bounds, named by its level: wilson95_low (the
    files' names at the default level), wilson90_low, wilson97.5_low."""
    level = confidence_label(confidence).rstrip("%")
    return f"wilson{level}_low", f"wilson{level}_high"


def _pass_rate_csv(confidence: float) -> tuple[tuple[str, Part], ...]:
    low, high = _wilson_fields(confidence)
    return (
        ("pass_x", "x"),
        ("pass_n", "n"),
        ("pass_rate", "point"),
        (low, "low"),
        (high, "high"),
        ("pass_rate_undefined", "reason"),
    )


_JUDGED_COLUMNS: Final = frozenset({"fatal", "acceptance", "unresolved_items"})
"""What people's judgments of runs give: not shown (the CSV keeps its fields) when nobody
judged."""


_JUDGMENT_NOTES: Final = frozenset(RESULTS_NOTES) - {PASS_RATE_NOTE}
"""Notes on preferences and reviewers' disagreements: not printed when nobody judged."""


def _count(key: str, label: str = "", shown: bool = True) -> Column:
    return Column(key, label, Kind.COUNT, shown=shown)


def bootstrap_estimate(b: RelativeMedianDifference | TaskInterval) -> Estimate:
    """The cell of a seeded percentile bootstrap: the row shows its seed and resamples beside
    it."""
    return Estimate(
        b.point,
        b.low,
        b.high,
        b.undefined_reason,
        b.confidence,
        b.seed,
        b.resamples,
        b.resamples_used,
    )


def bootstrap_csv(point: str, low: str, high: str) -> tuple[tuple[str, Part], ...]:
    """The CSV fields of a :func:`bootstrap_estimate` cell: the figure's own names for its point
    and bounds, then the settings every seeded bootstrap publishes to be redrawn."""
    return (
        (point, "point"),
        (low, "low"),
        (high, "high"),
        ("confidence", "confidence"),
        ("seed", "seed"),
        ("resamples", "resamples"),
        ("resamples_used", "resamples_used"),
        ("undefined", "reason"),
    )


def group_table(
    groups: Sequence[GroupResult],
    *,
    by_task: bool,
    rubric: Rubric | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    judged: bool = True,
) -> Table:
    """Runs, unjudged and unresolved runs, all six result states, pass rate (its Wilson interval
    at ``confidence``, named in the header and the CSV fields), fatal failures and acceptance
    per group; the CSV lists the unresolved items by blind code.

    With ``rubric``, the CSV also gets each scored dimension's count per score of its declared
    scale (unobserved scores included) and its n; people read those in :func:`dimensions_table`.
    ``judged`` False (automated outcomes alone): fatal failures, acceptance and unresolved items
    are not shown, since nobody judged (every cell would be 0/0 or empty); the CSV keeps them.
    """
    columns = [
        Column("condition", "Condition"),
        *([Column("task", "Task")] if by_task else []),
        _count("runs", "Runs"),
        _count("unjudged", "Unjudged"),
        _count("unresolved", "Unresolved"),
        *(_count(s.value, label) for s, label in STATE_LABELS.items()),
        Column(
            "pass_rate",
            f"Pass rate x/n [{_wilson(confidence)}]",
            Kind.PROPORTION,
            csv=_pass_rate_csv(confidence),
        ),
        Column("fatal", "Fatal", Kind.TALLY, csv=(("fatal_x", "x"), ("fatal_n", "n"))),
        Column(
            "acceptance",
            "Accepted",
            Kind.TALLY,
            csv=(("acceptance_x", "x"), ("acceptance_n", "n")),
        ),
        Column("unresolved_items", "Unresolved items"),
    ]
    if not judged:
        columns = [replace(c, shown=False) if c.key in _JUDGED_COLUMNS else c for c in columns]
    dims = [d for d in rubric.dimensions if d.scored] if rubric is not None else []
    for d in dims:
        columns += [_count(f"{d.id}={s:g}", shown=False) for s in d.scale]
        columns.append(_count(f"{d.id}_n", shown=False))
    rows = []
    for g in groups:
        row: list[Cell] = [g.condition, *([g.task] if by_task else [])]
        row += [g.runs, g.unjudged, g.unresolved]
        row += [g.states.get(s.value, 0) for s in STATE_LABELS]
        row += [
            g.pass_rate,
            Tally(g.fatal_failures.x, g.fatal_failures.n),
            Tally(g.acceptance.x, g.acceptance.n),
            " ".join(g.unresolved_items),
        ]
        for d in dims:
            counts = g.dimensions.get(d.id, {})
            row += [counts.get(f"{s:g}", 0) for s in d.scale]
            row.append(g.dimension_n.get(d.id, 0))
        rows.append(tuple(row))
    return Table(
        "tasks" if by_task else "conditions",
        f"By {'task' if by_task else 'condition'}: all six result states",
        tuple(columns),
        tuple(rows),
    )


def dimensions_table(groups: Sequence[GroupResult]) -> Table:
    """Each rubric dimension's distribution per condition as score:count, with its n."""
    dims = sorted({d for g in groups for d in g.dimensions})
    columns = (
        Column("condition", "Condition"),
        *(Column(d, d, Kind.DISTRIBUTION, csv=()) for d in dims),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            g.condition,
            *(
                Distribution(
                    tuple((s, c) for s, c in g.dimensions.get(d, {}).items()),
                    g.dimension_n.get(d, 0),
                )
                for d in dims
            ),
        )
        for g in groups
    )
    return Table(
        "dimensions", "Rubric dimensions (score:count over runs judged by a person)", columns, rows
    )


def _p_value(test: McNemar | BinomialTest) -> PValue:
    return PValue(test.p_value, test.undefined_reason)


_PREFERENCE_COLUMNS: Final = frozenset(
    {"preferences", "a_share", "binomial", "pref_unresolved", "pref_unresolved_items"}
)
"""What people judged of a pair: not shown (the CSV keeps its fields) when nobody judged."""


_PASS_FAIL_COLUMNS: Final = frozenset(
    {"pairs", "both_pass", "a_pass_b_fail", "a_fail_b_pass", "both_fail", "mcnemar"}
)
"""Paired pass/fail: not shown (the CSV keeps its fields) when no run has a verdict."""


def comparisons_table(
    comparisons: Sequence[Comparison],
    confidence: float = DEFAULT_CONFIDENCE,
    *,
    judged: bool = True,
    paired: bool = True,
) -> Table:
    """Paired pass/fail (exact McNemar beside the discordant counts) and preferences, with the
    preference judgments of items whose reviewers disagree (not adjudicated) counted apart.
    ``judged`` False (automated outcomes alone, no design): the preference columns are not
    shown, since no person could prefer anything. ``paired`` False (a preference-only design
    whose runs have no verdict): the pass/fail columns are not shown, since they cannot have
    data, and the table is the preference tally."""
    columns: tuple[Column, ...] = (
        Column("contrast", "Contrast a vs b", Kind.PAIR, csv=(("a", "a"), ("b", "b"))),
        _count("pairs", "Pairs"),
        _count("both_pass", "Both pass"),
        _count("a_pass_b_fail", "a pass, b fail"),
        _count("a_fail_b_pass", "a fail, b pass"),
        _count("both_fail", "Both fail"),
        *(
            _count(f"{what}_{side}", shown=False)
            for what in ("excluded", "unjudged", "unpaired")
            for side in ("a", "b")
        ),
        _count("mcnemar_discordant", shown=False),
        Column(
            "mcnemar",
            "Exact McNemar",
            Kind.P_VALUE,
            csv=(("mcnemar_p_exact", "p"), ("mcnemar_undefined", "reason")),
        ),
        Column(
            "preferences",
            "Prefer a / b / tie / insufficient",
            Kind.COUNTS,
            csv=(
                ("pref_wins_a", "0"),
                ("pref_wins_b", "1"),
                ("pref_ties", "2"),
                ("pref_insufficient", "3"),
            ),
        ),
        _count("pref_total", shown=False),
        _count("pref_decisive", shown=False),
        Column(
            "a_share",
            f"a's share of decisive [{_wilson(confidence)}]",
            Kind.PROPORTION,
            csv=(
                ("pref_a_share", "point"),
                ("pref_a_share_low", "low"),
                ("pref_a_share_high", "high"),
            ),
        ),
        Column(
            "binomial",
            "Exact binomial",
            Kind.P_VALUE,
            csv=(("pref_p_exact", "p"), ("pref_undefined", "reason")),
        ),
        # Last, so that the files only gained fields (issue 14).
        Column("pref_unresolved", "Unresolved prefs", Kind.COUNT, short="Unres."),
        Column("pref_unresolved_items", "Unresolved items", short="Unres. items"),
        Column("pref_a_share_confidence", kind=Kind.NUMBER, shown=False),
    )
    hidden = (set() if judged else _PREFERENCE_COLUMNS) | (set() if paired else _PASS_FAIL_COLUMNS)
    if hidden:
        columns = tuple(replace(c, shown=False) if c.key in hidden else c for c in columns)
    rows = []
    for c in comparisons:
        p, f = c.paired, c.preferences
        rows.append(
            (
                Pair(c.a, c.b),
                p.pairs,
                p.both_pass,
                p.a_pass_b_fail,
                p.a_fail_b_pass,
                p.both_fail,
                p.excluded_a,
                p.excluded_b,
                p.unjudged_a,
                p.unjudged_b,
                p.unpaired_a,
                p.unpaired_b,
                p.mcnemar.n,
                _p_value(p.mcnemar),
                Counts((f.wins_a, f.wins_b, f.ties, f.insufficient)),
                f.total,
                f.decisive,
                f.a_share,
                _p_value(f.test),
                f.unresolved_judgments,
                " ".join(f.unresolved_items),
                f.a_share.confidence,
            )
        )
    title = (
        "Paired comparisons (same task and trial)"
        if paired
        else "Preferences by pair of conditions (same task and trial)"
    )
    return Table("comparisons", title, columns, tuple(rows))


def left_out_table(comparisons: Sequence[Comparison]) -> Table:
    """Runs left out of each paired comparison, and why."""
    columns = (
        Column("contrast", "Contrast a vs b", Kind.PAIR),
        Column("excluded", "Excluded a / b", Kind.COUNTS),
        Column("unjudged", "Unjudged or unresolved a / b", Kind.COUNTS),
        Column("unpaired", "Unpaired a / b", Kind.COUNTS),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            Pair(c.a, c.b),
            Counts((c.paired.excluded_a, c.paired.excluded_b)),
            Counts((c.paired.unjudged_a, c.paired.unjudged_b)),
            Counts((c.paired.unpaired_a, c.paired.unpaired_b)),
        )
        for c in comparisons
    )
    return Table("left-out", "Left out of the pairing", columns, rows)


EFFICIENCY_NOTE: Final = (
    "Relative median difference (median b - median a) / median a over the runs that are "
    "measurements (not excluded), with a seeded percentile bootstrap interval; a missing "
    "measurement is left out and counted, never read as zero."
)


def efficiency_table(
    comparisons: Sequence[Comparison], confidence: float = DEFAULT_CONFIDENCE
) -> Table:
    """Relative median differences (b vs a) with their seeded bootstrap intervals."""
    columns = (
        Column("contrast", "Contrast a vs b", Kind.PAIR, csv=(("a", "a"), ("b", "b"))),
        Column("metric", "Metric"),
        *(_count(k, shown=False) for k in ("n_a", "n_b", "missing_a", "missing_b")),
        Column("median_a", "Median a (n, missing)", Kind.NUMBER),
        Column("median_b", "Median b (n, missing)", Kind.NUMBER),
        Column(
            "relative",
            f"Relative difference [{confidence_label(confidence)} bootstrap]",
            Kind.INTERVAL,
            csv=bootstrap_csv("relative_median_difference", "bootstrap_low", "bootstrap_high"),
            digits=3,
            signed=True,
        ),
    )
    rows = []
    for c in comparisons:
        for e in c.efficiency:
            d = e.difference
            rows.append(
                (
                    Pair(c.a, c.b),
                    e.metric,
                    d.n_a,
                    d.n_b,
                    d.missing_a,
                    d.missing_b,
                    Number(d.median_a, d.n_a, d.missing_a),
                    Number(d.median_b, d.n_b, d.missing_b),
                    bootstrap_estimate(d),
                )
            )
    return Table(
        "efficiency",
        "Efficiency (relative median difference, b vs a)",
        columns,
        tuple(rows),
        (EFFICIENCY_NOTE,),
    )


def engine_efficiency_table(engines: Sequence[EngineEfficiency]) -> Table:
    """Each engine's own medians (normalised diff, tokens, wall clock, cost) with the runs that
    measured each and those that did not, over the runs that are measurements (not excluded)."""
    labels = dict(STRICT_ORDER)
    metrics = [field for field, _label in STRICT_ORDER]
    columns = (
        Column("engine", "Condition"),
        *(
            Column(
                f"median_{m}",
                f"Median {labels[m]} (n, missing)",
                Kind.NUMBER,
                csv=((f"median_{m}", "value"), (f"n_{m}", "n"), (f"missing_{m}", "missing")),
            )
            for m in metrics
        ),
    )
    rows: list[tuple[Cell, ...]] = []
    for e in engines:
        by_metric = {m.metric: m for m in e.medians}
        rows.append(
            (
                e.engine,
                *(
                    Number(by_metric[m].median, by_metric[m].n, by_metric[m].missing)
                    if m in by_metric
                    else None
                    for m in metrics
                ),
            )
        )
    measured = any(m.n for e in engines for m in e.medians)
    return Table(
        "engine-efficiency",
        "Efficiency by engine (medians over the runs that are measurements)",
        columns,
        tuple(rows) if measured else (),
        (
            "Each engine's own medians; engine errors and other excluded runs are not "
            "measurements. (n, missing): runs that measured it, and runs that did not.",
        )
        if measured
        else (),
    )


def head_to_head_table(comparisons: Sequence[Comparison]) -> Table:
    """Each engine pair's wins, losses and ties in seed 003's strict efficiency order, over the
    pairs both resolved, beside the resolution McNemar test on the same pairing."""
    steps = [label for _f, label in STRICT_ORDER]
    columns = (
        Column("contrast", "Contrast a vs b", Kind.PAIR, csv=(("a", "a"), ("b", "b"))),
        Column(
            "wins",
            "a wins / b wins / ties / undecided",
            Kind.COUNTS,
            csv=(("wins_a", "0"), ("wins_b", "1"), ("ties", "2"), ("undecided", "3")),
        ),
        _count("resolved_pairs", "Both resolved (n)"),
        # The two texts people read; the CSV has their counts in the columns after them.
        Column("decided_by", "Decided by", csv=()),
        Column(
            "discordant",
            "Resolved by a only / b only (of n paired)",
            Kind.TEXT,
            csv=(),
        ),
        Column(
            "mcnemar",
            "Exact McNemar (resolution)",
            Kind.P_VALUE,
            csv=(("mcnemar_p_exact", "p"), ("mcnemar_undefined", "reason")),
        ),
        *(_count(k, shown=False) for k in ("pairs", "a_pass_b_fail", "a_fail_b_pass")),
        *(_count(f"decided_by_{f}", shown=False) for f, _label in STRICT_ORDER),
        *(_count(f"undecided_by_{f}", shown=False) for f, _label in STRICT_ORDER),
    )
    rows: list[tuple[Cell, ...]] = []
    for c in comparisons:
        h = c.head_to_head
        if h is None:
            continue
        decided = "; ".join(
            f"{step} {h.decided_by[step]}/{h.resolved_pairs}"
            for step in steps
            if step in h.decided_by
        )
        missing = "; ".join(
            f"{step} missing {h.undecided_by[step]}/{h.resolved_pairs}"
            for step in steps
            if step in h.undecided_by
        )
        p = c.paired
        rows.append(
            (
                Pair(c.a, c.b),
                Counts((h.wins_a, h.wins_b, h.ties, h.undecided)),
                h.resolved_pairs,
                "; ".join(x for x in (decided, missing) if x),
                f"{p.a_pass_b_fail} / {p.a_fail_b_pass} (of {p.pairs})",
                _p_value(p.mcnemar),
                p.pairs,
                p.a_pass_b_fail,
                p.a_fail_b_pass,
                *(h.decided_by.get(step, 0) for step in steps),
                *(h.undecided_by.get(step, 0) for step in steps),
            )
        )
    return Table(
        "head-to-head",
        "Head-to-head efficiency (seed 003 strict order, pairs both resolved)",
        columns,
        tuple(rows),
        (HEAD_TO_HEAD_NOTE,) if rows else (),
    )


def position_table(bias: PositionBias, confidence: float = DEFAULT_CONFIDENCE) -> Table:
    """How often the response shown first (left) was preferred among decisive judgments; the
    decisive judgments of items whose reviewers disagree (not adjudicated) are counted apart."""
    low, high = _wilson_fields(confidence)
    columns = (
        _count("left_preferred", "Left preferred"),
        _count("right_preferred", "Right preferred"),
        _count("decisive", "Decisive"),
        Column(
            "left_share",
            f"Left share [{_wilson(confidence)}]",
            Kind.PROPORTION,
            csv=(("left_share", "point"), (low, "low"), (high, "high")),
        ),
        Column(
            "test",
            "Exact binomial against 0.5",
            Kind.P_VALUE,
            csv=(("p_exact", "p"), ("undefined", "reason")),
        ),
        _count("unresolved", "Unresolved"),
        Column("unresolved_items", "Unresolved items"),
    )
    held = bias if isinstance(bias, PositionBiasResult) else None
    row = (
        bias.left_preferred,
        bias.right_preferred,
        bias.decisive,
        bias.left_share,
        _p_value(bias.test),
        held.unresolved_judgments if held else 0,
        " ".join(held.unresolved_items) if held else "",
    )
    return Table("position-bias", "Position bias", columns, (row,))


def judge_table(tallies: Sequence[JudgeTally]) -> Table:
    """The automated judge's own account per condition and dimension: how many of the runs it
    scored passed, failed, or were left unscored (never counted as a fail or a zero)."""
    columns = (
        Column("condition", "Condition"),
        Column("dimension", "Dimension"),
        _count("pass", "Pass"),
        _count("fail", "Fail"),
        _count("unscored", "Unscored"),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (t.condition, t.dimension, t.passed, t.failed, t.unscored) for t in tallies
    )
    return Table(
        "automated-judge",
        "Automated judge (per dimension, over the runs it scored)",
        columns,
        rows,
        notes=(
            "The automated judge's own outcomes, beside the outcome that counts (a person's "
            "verdict supersedes it); an unscored dimension is neither a pass nor a fail.",
        )
        if rows
        else (),
    )


class ResultsSource(Protocol):
    """What the results tables are built from: a design's results (``abp-tui results``) or a
    bundle's summary, which share these fields."""

    @property
    def conditions(self) -> Sequence[GroupResult]: ...
    @property
    def by_task(self) -> Sequence[GroupResult]: ...
    @property
    def comparisons(self) -> Sequence[Comparison]: ...
    @property
    def position_bias(self) -> PositionBias: ...
    @property
    def notes(self) -> Sequence[str]: ...
    @property
    def confidence(self) -> float: ...
    @property
    def verdict_source(self) -> VerdictSource: ...
    @property
    def automated_judge(self) -> Sequence[JudgeTally]: ...


@dataclass(frozen=True)
class ResultsTables:
    """Every table of a design's results, and the notes that go with them."""

    conditions: Table
    dimensions: Table
    comparisons: Table
    left_out: Table
    efficiency: Table
    position_bias: Table
    tasks: Table
    notes: tuple[str, ...]
    confidence: float = DEFAULT_CONFIDENCE
    """The level of every interval in these tables."""
    judge: Table = field(default_factory=lambda: judge_table(()))
    """The automated judge's per-dimension outcomes (no rows when it scored nothing)."""
    automated: bool = False
    """Every verdict is an automated outcome (no study design): no person scored or preferred."""
    preference_only: bool = False
    """A preference-only design: people preferred one response of a pair and scored nothing."""
    verdicts: bool = True
    """Some run has a result state to count (a person's verdict, an automated outcome or its
    record's state); a preference alone gives a run none."""
    head_to_head: Table = field(default_factory=lambda: head_to_head_table(()))
    """Engines' wins, losses and ties in seed 003's strict efficiency order (rows for engines)."""
    warnings: tuple[str, ...] = ()
    """What every face leads with: engines that did not run on the same model."""
    headline: tuple[str, ...] = ()
    """The answer to the design's question (:mod:`abp_tui.analysis.headline`), after the
    warnings and before every table."""
    engine_efficiency: Table = field(default_factory=lambda: engine_efficiency_table(()))
    """Engines' own efficiency medians (rows for engines that measured any)."""
    business: tuple[Table, ...] = ()
    """Seed 002's tables (:mod:`abp_tui.analysis.business_tables`), for a business design."""
    reclassified: Table | None = None
    """Seed 000: record failures reviewers reclassified (:mod:`abp_tui.analysis.rule_tables`)."""
    scibench: tuple[Table, ...] = ()
    """Seed 004's condition and dimension counts and excluded runs, which replace the pass-rate
    tables for a rubric that scores abstention (no top-line accuracy)."""

    @property
    def in_order(self) -> tuple[Table, ...]:
        """Every table in reading order, with the reclassified record failures when any."""
        found = self._in_order()
        if self.reclassified is not None and self.reclassified.rows:
            found = (*found, self.reclassified)
        return found

    def _in_order(self) -> tuple[Table, ...]:
        """The tables in reading order; comparisons, the runs left out of them, efficiency,
        the automated judge and the by-task table only when they have rows; rubric dimensions
        and position bias only when people judged (a design's results).

        A preference-only design leads with its preference tally (the comparisons) and position
        bias, and shows no rubric dimensions; its pass-rate and result-state tables only when
        some run has a verdict to count there (an automated outcome), since otherwise every
        cell of them would be 0/0."""
        if self.scibench:  # seed 004: counts, no pass rate, no position bias without pairs
            return (
                *self.scibench,
                *((self.judge,) if self.judge.rows and not self.automated else ()),
                *(t for t in (self.comparisons, self.left_out, self.efficiency) if t.rows),
            )
        if self.preference_only:
            runs = (self.conditions, self.left_out) if self.verdicts else ()
            return (
                *((self.comparisons,) if self.comparisons.rows else ()),
                self.position_bias,
                *(t for t in (*runs, self.efficiency) if t.rows),
                *((self.judge,) if self.judge.rows else ()),
                *((self.tasks,) if self.verdicts and self.tasks.rows else ()),
            )
        optional = (
            self.engine_efficiency,
            self.comparisons,
            self.head_to_head,
            self.left_out,
            self.efficiency,
        )
        human = () if self.automated else (self.dimensions,)
        return (
            self.conditions,
            *((self.judge,) if self.judge.rows else ()),
            *human,
            *(t for t in optional if t.rows),
            *(() if self.automated else (self.position_bias,)),
            *((self.tasks,) if self.tasks.rows else ()),
            *self.business,
        )


def results_tables(
    results: ResultsSource, rubric: Rubric | None = None, *, preference_only: bool | None = None
) -> ResultsTables:
    """The results as tables, every interval named by the results' level; ``rubric`` adds the
    per-score columns of the CSV files. ``preference_only`` (default: what ``rubric`` says, else
    False) puts the preference tally first and leaves out the tables that cannot have data."""
    level = results.confidence
    automated = results.verdict_source == "automated"
    if preference_only is None:
        preference_only = rubric is not None and rubric.preference_only
    preference_only = preference_only and not automated
    # A state to count (a person's, automated, a record's): a preference alone gives none.
    verdicts = any(sum(g.states.values()) for g in results.conditions)
    # Imported here: the business tables are built from this module's columns. Only a business
    # design's results carry them (``business``).
    from abp_tui.analysis.business_tables import business_headline, business_tables

    seed002 = getattr(results, "business", None)
    business = business_tables(seed002, level)
    headline = business_headline(seed002)
    from abp_tui.analysis.rule_tables import reclassified_table, sci_tables

    seed004 = getattr(results, "scibench", None)
    rule_notes = tuple(seed004.notes) if seed004 is not None else ()
    return ResultsTables(
        conditions=group_table(
            results.conditions, by_task=False, rubric=rubric, confidence=level, judged=not automated
        ),
        dimensions=dimensions_table(results.conditions),
        comparisons=comparisons_table(
            results.comparisons,
            level,
            judged=not automated,
            paired=verdicts or not preference_only,
        ),
        left_out=left_out_table(results.comparisons),
        efficiency=efficiency_table(results.comparisons, level),
        position_bias=position_table(results.position_bias, level),
        tasks=group_table(
            results.by_task, by_task=True, rubric=rubric, confidence=level, judged=not automated
        ),
        notes=(
            *((headline,) if headline else ()),
            *rule_notes,
            *(
                n
                for n in results.notes
                if (verdicts or not preference_only or n not in RUN_NOTES)
                and (seed004 is None or n != PASS_RATE_NOTE)
                and not (automated and n in _JUDGMENT_NOTES)
            ),
        ),
        confidence=level,
        judge=judge_table(results.automated_judge),
        automated=automated,
        preference_only=preference_only,
        verdicts=verdicts,
        head_to_head=head_to_head_table(results.comparisons),
        # Not every source has warnings (they come with engines that ran on different models).
        warnings=tuple(getattr(results, "warnings", ())),
        headline=tuple(getattr(results, "headline", ())),
        engine_efficiency=engine_efficiency_table(getattr(results, "engine_efficiency", ())),
        business=business,
        reclassified=reclassified_table(getattr(results, "reclassifications", ())),
        scibench=sci_tables(seed004),
    )


# -- agreement -------------------------------------------------------------------------------------
def _estimate(f: Figure) -> Estimate:
    i = f.interval
    return Estimate(
        f.value,
        i.low if i else None,
        i.high if i else None,
        f.undefined_reason,
        resamples=i.resamples if i else None,
        resamples_used=i.resamples_used if i else None,
    )


def _figure_value(f: Figure) -> FigureValue:
    """A figure as one cell: its value, large-sample interval and bootstrap interval."""
    i, ls = f.interval, f.large_sample
    refused = f.interval_note if f.interval_note and f.interval_note.startswith(REFUSED) else None
    return FigureValue(
        point=f.value,
        reason=f.undefined_reason,
        se=ls.standard_error if ls else None,
        se_low=ls.low if ls else None,
        se_high=ls.high if ls else None,
        se_reason=ls.interval_note if ls else f.large_sample_note,
        se_null=ls.standard_error_null if ls else None,
        z=ls.z if ls else None,
        p=ls.p_value if ls else None,
        low=i.low if i else None,
        high=i.high if i else None,
        boot_reason=refused,
        resamples=i.resamples if i else None,
        resamples_used=i.resamples_used if i else None,
        confidence=i.confidence if i else (ls.confidence if ls else None),
    )


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


PAIRS_NOTE: Final = (
    "Cohen's kappa: value [large-sample interval, Fleiss, Cohen and Everitt 1969]; "
    "boot [...]: percentile bootstrap over the items both judged (only with pair resamples)."
)


def agreement_table(report: AgreementReport) -> Table:
    """Every variable x every declared figure, then each reviewer pair's figures: one row each.

    The CSV keeps its first fields (value and bootstrap bounds, denominators, weights, note)
    and gains the figure's key, its weight basis, the bootstrap's resample counts and each
    kappa's large-sample standard errors, interval and test of kappa = 0.
    """
    level = confidence_label(report.confidence)
    columns = (
        Column("variable", "Variable"),
        Column("level", "Level"),
        Column("reviewers", "Among reviewers"),
        Column("figure", "Figure"),
        Column(
            "value",
            f"Value [{level} large-sample] boot [{level} bootstrap]",
            Kind.INTERVAL,
            csv=(("value", "point"), ("interval_low", "low"), ("interval_high", "high")),
        ),
        _count("n_items", "Items"),
        _count("n_reviewers", "Reviewers"),
        _count("n_judgments", "Judgments"),
        Column("weights", "Weights"),
        Column("undefined_or_note", "Undefined, or note"),
        Column("coefficient", shown=False),
        Column("weight_basis", shown=False),
        Column(
            "bootstrap",
            kind=Kind.INTERVAL,
            shown=False,
            csv=(
                ("resamples", "resamples"),
                ("resamples_used", "resamples_used"),
                ("confidence", "confidence"),
            ),
        ),
        Column("standard_error", "SE", Kind.NUMBER, digits=4),
        Column("p_kappa_0", "p (kappa = 0)", Kind.NUMBER, csv=(("p_value_kappa_0", "value"),)),
        Column(
            "large_sample",
            kind=Kind.INTERVAL,
            shown=False,
            csv=(
                ("large_sample_low", "se_low"),
                ("large_sample_high", "se_high"),
                ("standard_error_null", "se_null"),
                ("z_kappa_0", "z"),
                ("large_sample_note", "se_reason"),
            ),
        ),
    )

    def row(v: VariableAgreement, among: str, c: Coefficient, f: Figure) -> tuple[Cell, ...]:
        cell = _figure_value(f)
        return (
            v.variable,
            v.level,
            among,
            f.name,
            cell,
            f.n_items,
            f.n_reviewers,
            f.n_judgments,
            f.weights,
            f.undefined_reason or f.interval_note,
            c.key,
            f.weight_basis,
            cell,
            Number(cell.se),
            Number(cell.p),
            cell,
        )

    rows = []
    for v in report.variables:
        rows += [row(v, "all", c, f) for c, f in v.figures()]
        for p in v.pairs:
            rows += [row(v, f"{p.reviewer_a} | {p.reviewer_b}", c, f) for c, f in p.figures()]
    return Table("agreement", "Agreement between reviewers", columns, tuple(rows))


def variables_table(variables: Iterable[VariableAgreement]) -> Table:
    """One row per variable: its denominators and each declared figure's value alone; the
    figures a declaration keeps out of the compact list are in the CSV file only."""
    columns = (
        Column("variable", "Variable"),
        Column("level", "Level"),
        _count("n_items", "Items 2+"),
        _count("n_reviewers", "Reviewers"),
        _count("n_judgments", "Judgments"),
        *(
            Column(c.key, c.label, Kind.NUMBER, short=c.short, digits=3, shown=c.compact)
            for c in VARIABLE_COEFFICIENTS
        ),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            v.variable,
            v.level,
            v.n_items,
            v.n_reviewers,
            v.n_judgments,
            *(Number(f.value, reason=f.undefined_reason) for _c, f in v.figures()),
        )
        for v in variables
    )
    return Table("agreement-variables", "Agreement by variable", columns, rows)


def _figure_note(f: Figure) -> str:
    parts = []
    if f.value is not None and f.interval is None and f.interval_note:
        note = f.interval_note
        parts.append(note if note.startswith(REFUSED) else f"no interval: {note}")
    if f.interval is not None:
        i = f.interval
        parts.append(
            f"{i.resamples_used} of {i.resamples} resamples usable"
            if i.resamples_used < i.resamples
            else f"{i.resamples} resamples"
        )
    if f.value is not None and f.weight_basis == "observed":
        parts.append("weights on the observed ranks")
    return "; ".join(parts)


def figures_table(variable: VariableAgreement) -> Table:
    """Every declared figure of one variable with its own denominators and its note."""
    columns = (
        Column("figure", "Figure"),
        Column("value", "Value [95% interval]", Kind.INTERVAL),
        Column("items", "Items"),
        _count("reviewers", "Reviewers"),
        _count("judgments", "Judgments"),
        Column("note", "Note"),
    )
    rows = []
    for _c, f in variable.figures():
        items = f"{f.n_items}"
        if f.n_items_chance is not None and f.n_items_chance != f.n_items:
            items += f" ({f.n_items_chance} in chance)"
        rows.append((f.name, _estimate(f), items, f.n_reviewers, f.n_judgments, _figure_note(f)))
    return Table("figures", variable.variable, columns, tuple(rows))


def pairs_table(variable: VariableAgreement) -> Table:
    """Each pair of reviewers: the items both judged and every declared pair figure, each kappa
    with its large-sample interval (and bootstrap interval, when the pairs were resampled)."""
    columns = (
        Column("reviewers", "Reviewers", Kind.PAIR),
        _count("n_items", "Items"),
        *(
            Column(
                c.key,
                c.label,
                Kind.INTERVAL,
                short=c.short,
                csv=((c.key, "point"), (f"{c.key}_se", "se"), (f"{c.key}_reason", "reason")),
            )
            for c in PAIR_COEFFICIENTS
        ),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            Pair(p.reviewer_a, p.reviewer_b, " × "),
            p.n_items,
            *(_figure_value(f) for _c, f in p.figures()),
        )
        for p in variable.pairs
    )
    return Table("pairs", "Reviewer pairs", columns, rows, (PAIRS_NOTE,))


REFERENCES_NOTE: Final = (
    "Each reviewer's first submitted preference against an imported label set, on the pair items "
    "of the design whose two responses the label names (mapped through the runs, whatever order "
    "the reviewer saw them in). Cohen's kappa: value [large-sample interval] boot [percentile "
    "bootstrap over the items both judged]."
)


def references_table(references: Sequence[ReferenceAgreement], confidence: float) -> Table:
    """Each design reviewer against each imported label set: the items both judged, percent
    agreement and Cohen's kappa with its large-sample and bootstrap intervals."""
    level = confidence_label(confidence)
    columns = (
        Column("reviewer", "Reviewer"),
        Column("reference", "Against imported labels"),
        _count("n_items", "Items"),
        Column(
            "percent_agreement",
            f"Percent agreement boot [{level}]",
            Kind.INTERVAL,
            csv=(
                ("percent_agreement", "point"),
                ("percent_agreement_low", "low"),
                ("percent_agreement_high", "high"),
            ),
        ),
        Column(
            "cohen_kappa",
            f"Cohen's kappa [{level} large-sample] boot [{level} bootstrap]",
            Kind.INTERVAL,
            short="Cohen κ",
            csv=(
                ("cohen_kappa", "point"),
                ("cohen_kappa_se", "se"),
                ("cohen_kappa_large_sample_low", "se_low"),
                ("cohen_kappa_large_sample_high", "se_high"),
                ("cohen_kappa_boot_low", "low"),
                ("cohen_kappa_boot_high", "high"),
                ("cohen_kappa_reason", "reason"),
            ),
        ),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            r.reviewer,
            r.reference,
            r.pair.n_items,
            _figure_value(r.pair.percent_agreement),
            _figure_value(r.pair.cohen_kappa),
        )
        for r in references
    )
    return Table("references", "Against imported labels", columns, rows, (REFERENCES_NOTE,))


# -- disagreements ---------------------------------------------------------------------------------
def disagreements_table(disagreements: Sequence[Disagreement]) -> Table:
    columns = (
        Column("item", "Item"),
        Column("reviewers", "Reviewers"),
        Column("reasons", "Reasons"),
        Column("adjudicated", "Adjudicated", Kind.FLAG),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (d.code, tuple(d.reviewers), tuple(d.reasons), d.adjudicated) for d in disagreements
    )
    return Table("disagreements", "Disagreements", columns, rows)
