"""Tables and charts of agreement and results, drawn as ``rich`` renderables.

The screens build these in worker threads (a heat map per reviewer pair and variable, a bar
chart per set of conditions) and only mount the finished renderables. Every proportion is shown
with its denominator (x/n) beside its interval, and every undefined figure says
"undefined: <reason>", never NaN. Names of conditions, variables and reviewers are data: they
enter as ``rich.text.Text`` of safe strings, never as markup.

This module does not import textual.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.color import Color
from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text

from abp_tui.models import ResultState
from abp_tui.services.results_report import Comparison, GroupResult, ResultsReport
from abp_tui.stats.agreement import (
    ConfusionMatrix,
    Figure,
    PairAgreement,
    VariableAgreement,
)
from abp_tui.stats.inference import PositionBias, Proportion
from abp_tui.text.safe import safe_line

STATE_HEADERS: Final = {
    ResultState.MODEL_PASS: "PASS",
    ResultState.MODEL_FAIL: "FAIL",
    ResultState.PROVIDER_BLOCK: "PROV BLOCK",
    ResultState.INFRA_ERROR: "INFRA",
    ResultState.INVALID_TEST: "INVALID",
    ResultState.GRADER_DISPUTE: "DISPUTE",
}
UNDEFINED_STYLE: Final = "italic yellow"
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


def _table(*columns: str, title: str | None = None, expand: bool = False) -> Table:
    table = Table(
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
        table.add_column(column)
    return table


# -- agreement -------------------------------------------------------------------------------------
def figure_value(fig: Figure) -> Text:
    """``0.812 [0.701, 0.905]`` (95% bootstrap interval) or ``undefined: reason``."""
    if fig.value is None:
        return undefined(fig.undefined_reason)
    text = Text(f"{fig.value:.3f}", style="bold")
    if fig.interval is not None:
        text.append(f" [{fig.interval.low:.3f}, {fig.interval.high:.3f}]")
    return text


def figure_short(fig: Figure) -> Text:
    """The value alone, or "undefined" (the reason is in the variable's detail)."""
    if fig.value is None:
        return Text("undefined", style=UNDEFINED_STYLE, justify="right")
    return Text(f"{fig.value:.3f}", justify="right")


def _figures(variable: VariableAgreement) -> tuple[Figure, ...]:
    return (
        variable.percent_agreement,
        variable.fleiss_kappa,
        variable.fleiss_kappa_generalized,
        variable.krippendorff_alpha,
        variable.gwet_ac1,
        variable.gwet_ac2,
    )


def figures_table(variable: VariableAgreement) -> Table:
    """Every multi-reviewer figure of a variable with its own denominators and its note."""
    table = _table("Figure", "Value [95% interval]", "Items", "Reviewers", "Judgments", "Note")
    table.columns[0].no_wrap = True
    for column in table.columns[2:5]:
        column.justify = "right"
    table.columns[5].ratio = 1
    for fig in _figures(variable):
        note = Text()
        if fig.value is not None and fig.interval is None and fig.interval_note:
            note = Text(f"no interval: {safe_line(fig.interval_note)}", style="dim")
        elif fig.interval is not None:
            note = Text(
                f"{fig.interval.resamples_used}/{fig.interval.resamples} resamples", style="dim"
            )
        items = f"{fig.n_items}"
        if fig.n_items_chance is not None and fig.n_items_chance != fig.n_items:
            items += f" ({fig.n_items_chance} in chance)"
        table.add_row(
            plain(fig.name),
            figure_value(fig),
            Text(items),
            Text(str(fig.n_reviewers)),
            Text(str(fig.n_judgments)),
            note,
        )
    return table


def pairs_table(variable: VariableAgreement) -> Table:
    """Cohen's kappa (unweighted, linear, quadratic) and percent agreement of each pair."""
    table = _table("Reviewers", "Items", "Agreement", "Cohen κ", "κ linear", "κ quadratic")
    table.columns[1].justify = "right"
    for pair in variable.pairs:
        table.add_row(
            Text.assemble(plain(pair.reviewer_a, 20), " × ", plain(pair.reviewer_b, 20)),
            Text(str(pair.n_items)),
            figure_value(pair.percent_agreement),
            figure_value(pair.cohen_kappa),
            figure_value(pair.cohen_kappa_linear),
            figure_value(pair.cohen_kappa_quadratic),
        )
    return table


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
    table = Table(box=None, padding=(0, 0), pad_edge=False, show_edge=False)
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
    parts: list[RenderableType] = [head, Text(""), figures_table(variable)]
    if variable.pairs:
        parts += [Text(""), Text("Reviewer pairs", style="bold"), pairs_table(variable)]
        for pair in variable.pairs:
            parts += [Text(""), pair_heat_map(pair)]
        parts += [Text(""), HEAT_LEGEND]
    else:
        parts += [Text(""), Text("No pair of reviewers judged this variable on the same items.")]
    return Group(*parts)


def pair_heat_map(pair: PairAgreement) -> RenderableType:
    return heat_map(pair.confusion)


# -- results ---------------------------------------------------------------------------------------
def proportion_text(p: Proportion) -> Text:
    """``x/n = 0.917 [0.646, 0.985]`` or ``x/n undefined: reason``."""
    if p.point is None or p.low is None or p.high is None:
        return Text.assemble(f"{p.x}/{p.n} ", undefined(p.undefined_reason))
    return Text.assemble((f"{p.x}/{p.n}", "bold"), f" = {p.point:.3f} [{p.low:.3f}, {p.high:.3f}]")


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


def pass_rate_chart(groups: Sequence[GroupResult], label: str = "Condition") -> Table:
    """Pass rate per group: bar to the estimate, Wilson 95% interval as whiskers, x/n."""
    table = _table(label, "Pass rate, 0 to 1 (● estimate, ├─┤ Wilson 95%)", "x/n = rate [95%]")
    table.columns[0].no_wrap = True
    table.columns[1].no_wrap = True
    for g in groups:
        name = plain(g.condition, 28) if g.task is None else plain(f"{g.condition} · {g.task}", 40)
        table.add_row(name, interval_bar(g.pass_rate), proportion_text(g.pass_rate))
    table.add_row(Text(""), _axis(), Text(""))
    return table


def groups_table(groups: Sequence[GroupResult], by_task: bool) -> Table:
    """Counts of all six states, pass rate x/n with interval, fatal failures and acceptance."""
    columns = ["Condition", *(["Task"] if by_task else []), "Runs", "Unjudged"]
    columns += [*STATE_HEADERS.values(), "Pass rate x/n [Wilson 95%]", "Fatal", "Accepted"]
    table = _table(*columns)
    for column in table.columns[(2 if by_task else 1) :]:
        column.justify = "right"
    table.columns[0].no_wrap = True
    # An undefined pass rate's reason wraps inside its cell rather than widening the table.
    table.columns[-3].max_width = 36
    for g in groups:
        table.add_row(
            plain(g.condition, 24),
            *([plain(g.task or "", 24)] if by_task else []),
            Text(str(g.runs)),
            Text(str(g.unjudged)),
            *(Text(str(g.states.get(s.value, 0))) for s in STATE_HEADERS),
            proportion_text(g.pass_rate),
            Text(f"{g.fatal_failures.x}/{g.fatal_failures.n}"),
            Text(f"{g.acceptance.x}/{g.acceptance.n}"),
        )
    return table


def dimensions_table(groups: Sequence[GroupResult]) -> Table:
    """Each dimension's distribution per condition as score:count, with its n."""
    dims = sorted({d for g in groups for d in g.dimensions})
    table = _table("Condition", *dims)
    for g in groups:
        cells = []
        for d in dims:
            counts = g.dimensions.get(d, {})
            n = g.dimension_n.get(d, 0)
            shown = "  ".join(f"{s}:{c}" for s, c in counts.items())
            cells.append(Text(f"{shown} (n={n})" if shown else f"(n={n})"))
        table.add_row(plain(g.condition, 24), *cells)
    return table


def _p(p_value: float | None, reason: str | None) -> Text:
    if p_value is None:
        return undefined(reason)
    return Text(f"p = {p_value:.4g}")


def comparisons_table(comparisons: Sequence[Comparison]) -> Table:
    """Paired pass/fail (exact McNemar with the discordant counts) and preferences."""
    table = _table(
        "Contrast a vs b",
        "Pairs",
        "Both pass",
        "a pass, b fail",
        "a fail, b pass",
        "Both fail",
        "Exact McNemar",
        "Prefer a / b / tie / insufficient",
        "a's share of decisive",
        "Exact binomial",
    )
    for column in table.columns[1:6]:
        column.justify = "right"
    for c in comparisons:
        p, m, f = c.paired, c.paired.mcnemar, c.preferences
        table.add_row(
            Text.assemble(plain(c.a, 16), " vs ", plain(c.b, 16)),
            Text(str(p.pairs)),
            Text(str(p.both_pass)),
            Text(str(p.a_pass_b_fail)),
            Text(str(p.a_fail_b_pass)),
            Text(str(p.both_fail)),
            _p(m.p_value, m.undefined_reason),
            Text(f"{f.wins_a} / {f.wins_b} / {f.ties} / {f.insufficient}"),
            proportion_text(f.a_share),
            _p(f.test.p_value, f.test.undefined_reason),
        )
    return table


def left_out_table(comparisons: Sequence[Comparison]) -> Table:
    """Runs left out of each paired comparison, and why."""
    table = _table("Contrast a vs b", "Excluded a / b", "Unjudged a / b", "Unpaired a / b")
    for c in comparisons:
        p = c.paired
        table.add_row(
            Text.assemble(plain(c.a, 16), " vs ", plain(c.b, 16)),
            Text(f"{p.excluded_a} / {p.excluded_b}"),
            Text(f"{p.unjudged_a} / {p.unjudged_b}"),
            Text(f"{p.unpaired_a} / {p.unpaired_b}"),
        )
    return table


def efficiency_table(comparisons: Sequence[Comparison]) -> Table:
    """Relative median differences (b vs a) with their seeded bootstrap intervals."""
    table = _table(
        "Contrast a vs b",
        "Metric",
        "Median a (n, missing)",
        "Median b (n, missing)",
        "Relative difference [95% bootstrap]",
    )
    for c in comparisons:
        for e in c.efficiency:
            d = e.difference

            def median(m: float | None, n: int, missing: int) -> Text:
                shown = f"{m:g}" if m is not None else "missing"
                return Text(f"{shown} ({n}, {missing})")

            if d.point is None:
                value = undefined(d.undefined_reason)
            else:
                value = Text(f"{d.point:+.3f}", style="bold")
                if d.low is not None and d.high is not None:
                    value.append(
                        f" [{d.low:+.3f}, {d.high:+.3f}] seed {d.seed}, "
                        f"{d.resamples_used}/{d.resamples} resamples"
                    )
                elif d.undefined_reason:
                    value.append(" interval ")
                    value.append_text(undefined(d.undefined_reason))
            table.add_row(
                Text.assemble(plain(c.a, 16), " vs ", plain(c.b, 16)),
                plain(e.metric),
                median(d.median_a, d.n_a, d.missing_a),
                median(d.median_b, d.n_b, d.missing_b),
                value,
            )
    return table


def position_text(bias: PositionBias) -> Text:
    return Text.assemble(
        ("Position bias: ", "bold"),
        f"the left placement was preferred in {bias.left_preferred} of {bias.decisive} decisive "
        f"judgments (right: {bias.right_preferred}); share ",
        proportion_text(bias.left_share),
        "; exact binomial against 0.5: ",
        _p(bias.test.p_value, bias.test.undefined_reason),
    )


def results_heading(report: ResultsReport) -> Text:
    return Text.assemble(
        ("Results of ", "bold"),
        plain(report.study, style="bold"),
        " / ",
        plain(report.design, style="bold"),
        f" v{report.design_version} (rubric ",
        plain(report.rubric),
        ")  ·  unblinded by ",
        plain(report.unblinded_by, style="bold"),
        f" at {safe_line(report.unblinded_at)}",
    )


def results_body(report: ResultsReport) -> RenderableType:
    """The whole results page, in reading order."""
    parts: list[RenderableType] = [
        Text("Pass rate by condition", style="bold underline"),
        Text(
            "MODEL_PASS / (MODEL_PASS + MODEL_FAIL); the other four states never enter the "
            "denominator and are counted in the table below.",
            style="dim",
        ),
        pass_rate_chart(report.conditions),
        Text(""),
        Text("By condition: all six result states", style="bold underline"),
        groups_table(report.conditions, by_task=False),
        Text(""),
        Text(
            "Rubric dimensions (score:count over runs judged by a person)", style="bold underline"
        ),
        dimensions_table(report.conditions),
        Text(""),
    ]
    if report.comparisons:
        parts += [
            Text("Paired comparisons (same task and trial)", style="bold underline"),
            comparisons_table(report.comparisons),
            Text(""),
            Text("Left out of the pairing", style="bold underline"),
            left_out_table(report.comparisons),
            Text(""),
        ]
        if any(c.efficiency for c in report.comparisons):
            parts += [
                Text("Efficiency (relative median difference, b vs a)", style="bold underline"),
                efficiency_table(report.comparisons),
                Text(""),
            ]
    parts += [position_text(report.position_bias), Text("")]
    if report.by_task:
        parts += [
            Text("Pass rate by task and condition", style="bold underline"),
            pass_rate_chart(report.by_task, label="Condition · task"),
            Text(""),
            Text("By task: all six result states", style="bold underline"),
            groups_table(report.by_task, by_task=True),
            Text(""),
        ]
    parts += [Text("Notes", style="bold underline")]
    parts += [Text(f"• {safe_line(n)}") for n in report.notes]
    return Group(*parts)
