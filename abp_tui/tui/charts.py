"""The workstation's writer of neutral tables, and the drawings that are only visual.

:func:`rich_table` writes any :class:`~abp_tui.analysis.tables.Table` as a ``rich`` table; the
results and agreement pages are those tables in reading order, beside two drawings: a bar chart
of pass rates with their Wilson intervals, and a heat map per reviewer pair's confusion matrix.
What a cell says comes from :func:`abp_tui.analysis.tables.spans`, so the workstation shows the
same characters as the command line and the report; this module only adds styles and layout
(widths, wrapping, alignment). The screens build these in worker threads and only mount the
finished renderables.

Names of conditions, variables and reviewers are data: they enter as ``rich.text.Text`` of safe
strings (:func:`abp_tui.text.safe.safe_line`), never as markup; so do the column headers.

This module does not import textual.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from rich.color import Color
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.table import Table as RichTable
from rich.text import Text

from abp_tui.analysis.agreement.labels import SIDES_WITHHELD
from abp_tui.analysis.results.tallies import confidence_label
from abp_tui.analysis.tables import (
    Cell,
    Column,
    Kind,
    Pair,
    ResultsSource,
    ResultsTables,
    Role,
    Table,
    cell_text,
    figures_table,
    pairs_table,
    results_tables,
    spans,
    variables_table,
)
from abp_tui.services.results_report import ResultsReport
from abp_tui.stats.agreement import ConfusionMatrix, PairAgreement, VariableAgreement
from abp_tui.stats.inference import Proportion
from abp_tui.text.safe import safe_line
from abp_tui.tui.fitted_tables import COLUMN_GAP, FitColumn, FittedTable

UNDEFINED_STYLE: Final = "italic yellow"
STYLES: Final[Mapping[Role, str]] = {"": "", "figure": "bold", "undefined": UNDEFINED_STYLE}
BAR_WIDTH: Final = 40
"""Cells of a bar chart's track, from 0 to 1."""
HEAT_LOW: Final = Color.from_rgb(36, 52, 84)
HEAT_HIGH: Final = Color.from_rgb(96, 170, 255)


def plain(value: object, limit: int | None = None, style: str = "") -> Text:
    """Untrusted text as one safe line, cut to ``limit`` cells with an ellipsis."""
    text = Text(safe_line(str(value)), style=style, no_wrap=limit is not None, end="")
    if limit is not None and text.cell_len > limit:
        text.truncate(limit - 1)
        text.append("…")
    return text


def undefined(reason: str | None) -> Text:
    return Text(f"undefined: {safe_line(reason or 'no reason given')}", style=UNDEFINED_STYLE)


# -- the table writer ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Layout:
    """How the workstation lays out one table (by column key); nothing here changes a cell's
    text except ``limits``, which cut long names to fit."""

    limits: Mapping[str, int] = field(default_factory=dict)
    """Cut a text (each name of a pair) to this many cells."""
    right: frozenset[str] = frozenset()
    """Right-justified, beside the counts (always right-justified)."""
    nowrap: frozenset[str] = frozenset()
    max_width: Mapping[str, int] = field(default_factory=dict)
    """Wrap inside the cell beyond this width rather than widen the table."""
    ratio: Mapping[str, int] = field(default_factory=dict)
    dim: frozenset[str] = frozenset()
    """Remarks beside the figures, drawn dimmed."""
    cuttable: Mapping[str, int] = field(default_factory=dict)
    """On a narrow screen, cut this text (besides the ``limits`` names) down to these cells."""


_GROUP_LAYOUT: Final = Layout(
    limits={"condition": 24, "task": 24},
    right=frozenset({"pass_rate", "fatal", "acceptance"}),
    nowrap=frozenset({"condition"}),
    # An undefined pass rate's reason wraps inside its cell rather than widening the table.
    max_width={"pass_rate": 36},
)
LAYOUTS: Final[Mapping[str, Layout]] = {
    "conditions": _GROUP_LAYOUT,
    "tasks": _GROUP_LAYOUT,
    "dimensions": Layout(limits={"condition": 24}),
    "comparisons": Layout(limits={"contrast": 16}),
    "left-out": Layout(limits={"contrast": 16}),
    "efficiency": Layout(limits={"contrast": 16}),
    "figures": Layout(
        right=frozenset({"items"}),
        cuttable={"figure": 16},
        nowrap=frozenset({"figure"}),
        ratio={"note": 1},
        dim=frozenset({"note"}),
    ),
    "pairs": Layout(limits={"reviewers": 20}),
}


def _justified_right(column: Column, layout: Layout) -> bool:
    return column.kind is Kind.COUNT or column.key in layout.right


def cell(column: Column, value: Cell, layout: Layout | None = None) -> Text:
    """One cell as ``rich`` text: the spans every face shows, styled by their role."""
    layout = layout or Layout()
    limit = layout.limits.get(column.key)
    style = "dim" if column.key in layout.dim else ""
    if isinstance(value, Pair):
        return Text.assemble(plain(value.a, limit), value.joiner, plain(value.b, limit))
    if column.kind is Kind.TEXT:
        shown = cell_text(column, value)
        return plain(shown, limit, style) if shown else Text()
    parts = [(safe_line(text), STYLES[role]) for text, role in spans(column, value)]
    if not parts:
        return Text(style=style)
    if len(parts) == 1:
        return Text(parts[0][0], style=parts[0][1] or style)
    if column.kind is Kind.INTERVAL:
        # The estimate's style covers its interval: they read as one figure.
        (head, head_style), *rest = parts
        text = Text(head, style=head_style)
        for part, part_style in rest:
            text.append(part, style=part_style or None)
        return text
    return Text.assemble(*parts)


def rich_table(table: Table, *, title: str | None = None, short: bool = True) -> RichTable:
    """The shown columns of ``table`` with the workstation's layout for its id; ``short`` headers
    where the column has one."""
    layout = LAYOUTS.get(table.id, Layout())
    shown = table.shown
    out = _table(*(c.short_header if short else c.header for c in shown), title=title)
    rows = [[cell(c, v, layout) for c, v in table.cells(row)] for row in table.rows]
    for index, (column, rich_column) in enumerate(zip(shown, out.columns, strict=True)):
        if column.kind not in (Kind.TEXT, Kind.PAIR):
            # A narrow terminal squeezes the columns: a figure may wrap at its spaces ("0.571"
            # over "[0.167, 0.875]") but is never cut to "[0.16…" (a long name may still be).
            rich_column.min_width = max(
                (len(word) for r in rows for word in r[index].plain.split()), default=0
            )
        if _justified_right(column, layout):
            rich_column.justify = "right"
        if column.key in layout.nowrap:
            rich_column.no_wrap = True
        if column.key in layout.max_width:
            rich_column.max_width = layout.max_width[column.key]
        if column.key in layout.ratio:
            rich_column.ratio = layout.ratio[column.key]
    for cells in rows:
        out.add_row(*cells)
    return out


FIGURE_LEAST: Final = 16
"""An undefined figure's reason wraps down to this width when its table would not fit
otherwise (a defined figure never wraps)."""
UNWRAPPED: Final = frozenset({Kind.TEXT, Kind.COUNT, Kind.PAIR})


def _figure_cap(index: int, rows: Sequence[Sequence[Text]]) -> int:
    """The width a figure column may wrap down to: its widest defined figure (never broken)."""
    defined = [row[index].cell_len for row in rows if "undefined" not in row[index].plain]
    return max([FIGURE_LEAST, *defined])


CUT_NAMES_TO: Final = 10
"""Least cells of a name (condition, task, contrast, reviewers) cut to fit a narrow screen."""


def fitted_table(table: Table, *, short: bool = True) -> FittedTable:
    """``table`` drawn to the width it is given: whole, its names cut, or stacked
    (:class:`~abp_tui.tui.fitted_tables.FittedTable`); the layout is that of :func:`rich_table`."""
    layout = LAYOUTS.get(table.id, Layout())
    shown = table.shown
    right = [_justified_right(c, layout) for c in shown]
    rows = [[cell(c, v, layout) for c, v in table.cells(row)] for row in table.rows]
    columns = [
        FitColumn(
            header=safe_line(c.short_header if short else c.header),
            label=safe_line(c.header),
            key=c.key,
            right=right[i],
            wraps=c.key in layout.ratio,
            cuttable=layout.cuttable.get(c.key, CUT_NAMES_TO if c.key in layout.limits else None),
            cap=layout.max_width.get(c.key) if c.kind in UNWRAPPED else _figure_cap(i, rows),
            name=c.key in layout.limits and all(k.key in layout.limits for k in shown[:i]),
            lead=1 if i and right[i - 1] and not right[i] else 0,
        )
        for i, c in enumerate(shown)
    ]

    def build(widths: Sequence[int], rows: Sequence[Sequence[Text]]) -> RichTable:
        out = _table(*(" " * f.lead + f.header for f in columns))
        for fit, rich_column, width in zip(columns, out.columns, widths, strict=True):
            rich_column.width = width
            if fit.right:
                rich_column.justify = "right"
            if fit.key in layout.nowrap:
                rich_column.no_wrap = True
        for row in rows:
            out.add_row(
                *(
                    Text(" " * f.lead).append_text(v) if f.lead else v
                    for f, v in zip(columns, row, strict=True)
                )
            )
        return out

    return FittedTable(columns, rows, build)


def row_cells(table: Table, row: Sequence[Cell], layout: Layout | None = None) -> list[Text]:
    """One row's cells for a ``DataTable``, which has no column alignment of its own: numbers
    carry their justification."""
    layout = layout or LAYOUTS.get(table.id, Layout())
    out = []
    for column, value in table.cells(row):
        text = cell(column, value, layout)
        if column.kind in (Kind.COUNT, Kind.NUMBER):
            text.justify = "right"
        out.append(text)
    return out


def _table(*columns: str, title: str | None = None, expand: bool = False) -> RichTable:
    table = RichTable(
        title=title,
        title_justify="left",
        title_style="bold",
        header_style="bold",
        expand=expand,
        pad_edge=False,
        show_edge=False,
        box=None,
        padding=(0, 1),
    )
    for column in columns:
        table.add_column(Text(safe_line(column)))
    return table


# -- agreement -------------------------------------------------------------------------------------
VARIABLE_COLUMNS: Final = tuple(c.short_header for c in variables_table(()).shown)
"""Headers of the list of variables: their denominators, then every declared figure."""


def variable_row(variable: VariableAgreement, width: int) -> list[Text]:
    """A variable (its name cut to ``width``), its denominators and each declared figure's
    value alone, or "undefined" (the reason is in the variable's detail)."""
    table = variables_table((variable,))
    return row_cells(table, table.rows[0], Layout(limits={"variable": width}))


def _blend(t: float) -> Color:
    low, high = HEAT_LOW.get_truecolor(), HEAT_HIGH.get_truecolor()
    return Color.from_rgb(
        low.red + (high.red - low.red) * t,
        low.green + (high.green - low.green) * t,
        low.blue + (high.blue - low.blue) * t,
    )


def heat_cell(count: int, largest: int, diagonal: bool) -> Text:
    """A count on a background whose intensity grows with the count (none for zero); every
    cell is as wide as the largest count needs, so the shading forms an even grid."""
    label = f"{count:^{max(5, len(str(largest)) + 2)}}"
    if count == 0 or largest == 0:
        return Text(label, style="dim")
    t = count / largest
    style = Style(
        bgcolor=_blend(t),
        color=Color.from_rgb(10, 10, 10) if t > 0.6 else Color.from_rgb(240, 240, 240),
        bold=diagonal,
    )
    return Text(label, style=style)


def heat_map(matrix: ConfusionMatrix) -> RenderableType:
    """A confusion matrix under a title line: rows are one reviewer's categories, columns the
    other's; row and column sums at the edges."""
    largest = max((c for row in matrix.counts for c in row), default=0)
    total = sum(sum(row) for row in matrix.counts)
    width = max(5, len(str(largest)) + 2)
    agreed = sum(matrix.counts[k][k] for k in range(len(matrix.categories)))
    title = Text.assemble(
        plain(matrix.rows, 32, style="bold"),
        " (rows) × ",
        plain(matrix.columns, 32, style="bold"),
        f" (columns): {agreed}/{total} items on the diagonal",
    )
    table = RichTable(box=None, padding=(0, 0), pad_edge=False, show_edge=False)
    table.add_column(Text(""), no_wrap=True)
    for category in matrix.categories:
        table.add_column(plain(category, 14, style="bold"), justify="center", no_wrap=True)
    table.add_column(Text("Σ", style="dim"), justify="right", min_width=4)
    for k, category in enumerate(matrix.categories):
        row = matrix.counts[k]
        table.add_row(
            Text.assemble(plain(category, 20, style="bold"), " "),
            *(heat_cell(c, largest, k == m) for m, c in enumerate(row)),
            Text(str(sum(row)), style="dim"),
        )
    sums = [sum(row[m] for row in matrix.counts) for m in range(len(matrix.categories))]
    table.add_row(
        Text("Σ ", style="dim"),
        *(Text(f"{s:^{width}}", style="dim") for s in sums),
        Text(str(total), style="dim"),
    )
    return Group(title, table)


HEAT_LEGEND: Final = Text.assemble(
    ("Heat map: ", "bold"),
    "each cell counts the items one reviewer put in the row's category and the other in the "
    "column's; the brighter the cell, the more items; the diagonal (bold) is where they agree; "
    "categories are the declared scale, unobserved ones included.",
)


def variable_detail(variable: VariableAgreement) -> RenderableType:
    """Everything about one variable: denominators, figures, pairs and their heat maps."""
    scale = "declared scale" if variable.scale_declared else "observed values"
    head = Text.assemble(
        plain(variable.variable, style="bold"),
        f"  ({variable.level}; {scale}: ",
        plain(", ".join(str(c) for c in variable.categories), 80),
        ")\n",
        f"{variable.n_items} items with 2+ judgments, {variable.n_items_judged} judged at all, "
        f"{variable.n_reviewers} reviewers, {variable.n_judgments} judgments "
        f"({variable.min_judgments_per_item} to {variable.max_judgments_per_item} per item)",
    )
    figures = figures_table(variable)
    left: list[RenderableType] = [fitted_table(figures)]
    left += [plain(note, style="dim") for note in figures.notes]  # what does not apply, once
    if not variable.pairs:
        text = Text("No pair of reviewers judged this variable on the same items.")
        return Group(head, Text(""), *left, Text(""), text)
    left += [Text(""), Text("Reviewer pairs", style="bold"), fitted_table(pairs_table(variable))]
    if all(pair.confusion is None for pair in variable.pairs):  # withheld: the study is blind
        return Group(head, Text(""), *left, Text(""), WITHHELD_MAP)
    maps: list[RenderableType] = []
    for pair in variable.pairs:
        maps += [Text(""), pair_heat_map(pair)] if maps else [pair_heat_map(pair)]
    # On a wide terminal the heat maps stand beside the figures, else under them.
    beside = Beside(Group(*left), Group(*maps))
    return Group(head, Text(""), beside, Text(""), HEAT_LEGEND)


class Beside:
    """Two renderables side by side when the width holds both at their natural widths (a wide
    terminal), else one under the other with a blank line between."""

    def __init__(self, left: RenderableType, right: RenderableType, gap: int = 4) -> None:
        self.left = left
        self.right = right
        self.gap = gap

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        left = Measurement.get(console, options, self.left).maximum
        right = Measurement.get(console, options, self.right).maximum
        if left + self.gap + right <= options.max_width:
            grid = RichTable.grid(padding=(0, self.gap, 0, 0))
            grid.add_column(width=left)
            grid.add_column(width=right)
            grid.add_row(self.left, self.right)
            yield grid
        else:
            yield Group(self.left, Text(""), self.right)


WITHHELD_MAP: Final = Text(f"Heat maps: {SIDES_WITHHELD}.", style="dim")


def pair_heat_map(pair: PairAgreement) -> RenderableType:
    if pair.confusion is None:
        return WITHHELD_MAP
    return heat_map(pair.confusion)


# -- results ---------------------------------------------------------------------------------------
def interval_bar(p: Proportion, width: int = BAR_WIDTH) -> Text:
    """A bar from 0 to the point estimate, with the interval drawn over it as whiskers.

    Cells left of the estimate have the bar's background; ``├──┤`` spans the interval and ``●``
    marks the estimate; the track runs from 0 (left) to 1 (right).
    """
    if p.point is None or p.low is None or p.high is None:
        return Text("·" * width, style="dim")

    def cell(value: float) -> int:
        return min(width - 1, max(0, int(value * width)))

    low, high, point = cell(p.low), cell(p.high), cell(p.point)
    filled = round(p.point * width)
    text = Text()
    for i in range(width):
        if i == point:
            glyph = "●"
        elif i == low:
            glyph = "├"
        elif i == high:
            glyph = "┤"
        elif low < i < high:
            glyph = "─"
        else:
            glyph = " "
        style = "bold white on dark_cyan" if i < filled else "bold bright_white on grey23"
        text.append(glyph, style=style)
    return text


def _axis(width: int = BAR_WIDTH) -> Text:
    marks = [" "] * width
    for value, label in ((0.0, "0"), (0.5, "0.5"), (1.0, "1")):
        at = min(width - len(label), int(value * width) - (len(label) // 2 if value else 0))
        for i, ch in enumerate(label):
            marks[at + i] = ch
    return Text("".join(marks), style="dim")


class PassRateChart:
    """:func:`pass_rate_chart` drawn to the width it is given: the bar as long as the names
    and figures leave room for, the names cut when the bar would be shorter than
    :data:`FAIR_BAR`."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def chart(self, room: int) -> RichTable:
        return pass_rate_chart(self.table, *chart_widths(self.table, room))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.chart(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.chart(options.max_width))


LEAST_BAR: Final = 12
FAIR_BAR: Final = 20
"""A bar shorter than this cuts the names first (down to :data:`LEAST_NAME`)."""
LEAST_NAME: Final = 12
FIGURE_WRAP: Final = 30
"""An undefined pass rate's reason wraps beyond this width in the chart."""


def chart_widths(table: Table, room: int) -> tuple[int, int | None]:
    """The bar's cells (up to :data:`BAR_WIDTH`) and the names' limit (None: as they are)
    in ``room`` cells."""
    by_task = any(c.key == "task" for c in table.columns)
    header = len("Condition · task" if by_task else "Condition")
    names = max([header, *(_chart_name(table, row).cell_len for row in table.rows)])
    rate = table.index("pass_rate")
    figures = max((cell(table.columns[rate], row[rate]).cell_len for row in table.rows), default=0)
    free = room - min(figures, FIGURE_WRAP) - 2 * COLUMN_GAP
    limit = None
    if free - names < FAIR_BAR:
        limit = max(LEAST_NAME, header, free - FAIR_BAR)
        names = min(names, limit)
    return max(LEAST_BAR, min(BAR_WIDTH, free - names)), limit


def _chart_name(table: Table, row: Sequence[Cell], limit: int | None = None) -> Text:
    condition = table.value(row, "condition")
    if any(c.key == "task" for c in table.columns):
        return plain(f"{condition} · {table.value(row, 'task')}", min(limit or 40, 40))
    return plain(condition, min(limit or 28, 28))


def pass_rate_chart(
    table: Table, width: int = BAR_WIDTH, name_limit: int | None = None
) -> RichTable:
    """Pass rate per row of a by-condition or by-task table: a bar to the estimate, the Wilson
    interval as whiskers (its level named), and x/n."""
    by_task = any(c.key == "task" for c in table.columns)
    rate = table.index("pass_rate")
    first = table.rows[0][rate] if table.rows else None
    level = confidence_label(first.confidence if isinstance(first, Proportion) else 0.95)
    chart = _table(
        "Condition · task" if by_task else "Condition",
        f"Pass rate, 0 to 1 (● estimate, ├─┤ Wilson {level})",
        f"x/n = rate [{level}]",
    )
    chart.columns[0].no_wrap = True
    chart.columns[1].min_width = chart.columns[1].max_width = width  # the header wraps above
    chart.columns[2].max_width = max(FIGURE_WRAP, len("x/n = rate [95%]"))
    figures = (cell(table.columns[rate], row[rate]).cell_len for row in table.rows)
    chart.columns[2].min_width = min(max(figures, default=0), FIGURE_WRAP)  # never squeezed
    for row in table.rows:
        p = row[rate]
        assert isinstance(p, Proportion)
        chart.add_row(
            _chart_name(table, row, name_limit),
            interval_bar(p, width),
            cell(table.columns[rate], p),
        )
    chart.add_row(Text(""), _axis(width), Text(""))
    return chart


def position_text(table: Table) -> Text:
    """The position-bias table as the sentence the results page reads it as."""
    (row,) = table.rows
    columns = {c.key: (c, v) for c, v in zip(table.columns, row, strict=True)}
    return Text.assemble(
        ("Position bias: ", "bold"),
        f"the left placement was preferred in {columns['left_preferred'][1]} of "
        f"{columns['decisive'][1]} decisive judgments (right: {columns['right_preferred'][1]}); "
        "share ",
        cell(*columns["left_share"]),
        "; exact binomial against 0.5: ",
        cell(*columns["test"]),
        *(
            (
                f"; held back until adjudicated: {columns['unresolved'][1]} decisive judgments "
                "of unresolved items ",
                cell(*columns["unresolved_items"]),
            )
            if columns["unresolved"][1]
            else ()
        ),
    )


def results_heading(report: ResultsReport) -> Text:
    if report.verdict_source == "automated":
        scope = Text("automated outcomes alone (no study design)", style="bold")
    else:
        scope = Text.assemble(
            plain(report.design, style="bold"),
            f" v{report.design_version} (rubric ",
            plain(report.rubric),
            ")",
        )
    return Text.assemble(
        ("Results of ", "bold"),
        plain(report.study, style="bold"),
        " / ",
        scope,
        "  ·  unblinded by ",
        plain(report.unblinded_by, style="bold"),
        f" at {safe_line(report.unblinded_at)}",
    )


def _section(table: Table) -> list[RenderableType]:
    parts: list[RenderableType] = [
        Text(safe_line(table.title), style="bold underline"),
        fitted_table(table),
    ]
    parts += [Text(safe_line(n), style="dim") for n in table.notes]
    return [*parts, Text("")]


def results_body(
    results: ResultsSource | ResultsTables, watching: list[str] | None = None
) -> RenderableType:
    """The whole results page, in reading order: the answer to the design's question, the
    ``watching`` lines (confidence sequences and the stopping rule), every results table, the
    pass-rate charts before the tables they draw, position bias as a sentence."""
    if isinstance(results, ResultsTables):
        tables = results
    else:
        pref = isinstance(results, ResultsReport) and results.preference_only
        tables = results_tables(results, preference_only=pref)
    parts: list[RenderableType] = []
    if tables.headline:  # the answer to the design's question leads
        parts += [Text("Answer", style="bold underline")]
        parts += [Text(safe_line(h)) for h in tables.headline]
        parts += [Text("")]
    if watching:
        parts += [Text("Watching", style="bold underline")]
        parts += [
            Text(safe_line(w), style="bold" if w.startswith("  stop:") else "") for w in watching
        ]
        parts += [Text("")]
    for table in tables.in_order:
        if table is tables.conditions:
            parts += [
                Text("Pass rate by condition", style="bold underline"),
                Text(
                    "MODEL_PASS / (MODEL_PASS + MODEL_FAIL); the other four states never enter "
                    "the denominator and are counted in the table below.",
                    style="dim",
                ),
                PassRateChart(table),
                Text(""),
            ]
        elif table is tables.tasks:
            parts += [
                Text("Pass rate by task and condition", style="bold underline"),
                PassRateChart(table),
                Text(""),
            ]
        if table is tables.position_bias:
            parts += [position_text(table), Text("")]
        else:
            parts += _section(table)
    parts += [Text("Notes", style="bold underline")]
    parts += [Text(f"• {safe_line(n)}") for n in tables.notes]
    return Group(*parts)
