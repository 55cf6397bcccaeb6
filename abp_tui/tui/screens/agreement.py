"""The agreement screen: how far a design's reviewers agree, variable by variable.

Top: every variable (rubric dimensions, total, result state, fatal flags, preference) with its
denominators and each figure's value, or "undefined"; with imported labels of two or more sets,
their agreement among themselves as one more row. On a terminal too narrow for all of it the
figures come first, so none needs sideways scrolling (:func:`variables_layout`). Below: the
highlighted variable's figures with their own denominators, intervals and the reason any figure
is undefined; each reviewer pair's Cohen's kappa (unweighted, linear, quadratic) and
confusion-matrix heat map; under the preference, each reviewer against each imported label set.
Under it, reliability beyond agreement: every
annotator (reviewers, imported label sets, AI judges) in Dawid-Skene, computed after the agreement
(:func:`abp_tui.services.reliability.read_reliability`, the function behind
``abp-tui reliability``). The statistics and
every heat map are computed in a worker thread
(:func:`abp_tui.services.agreement_report.study_agreement`, the
same function as ``abp-tui agreement``); the screen only shows them.

The figures are the workstation reviewer's view: the items they have not submitted a judgment of
are held back from every figure (the summary says how many), so opening this screen mid-study
shows nobody's judgment of an item still to judge. A reviewer of none of the items (the
coordinator) sees every item.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.markup import escape as escape_markup
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from abp_tui.analysis.agreement.labels import StudyAgreementReport, view_summary
from abp_tui.analysis.tables import references_table
from abp_tui.services.coordinator import DesignChoice, read_agreement
from abp_tui.services.reliability import read_reliability
from abp_tui.stats.agreement import VariableAgreement
from abp_tui.text.counts import counted
from abp_tui.text.safe import safe_line
from abp_tui.tui.charts import VARIABLE_COLUMNS, fitted_table, variable_detail, variable_row
from abp_tui.tui.messages import AgreementComputed, ReliabilityComputed, WorkerFailed
from abp_tui.tui.reliability_view import reliability_view
from abp_tui.tui.screens.base import DesignScreen
from abp_tui.tui.widgets.keybar import KeyBar
from abp_tui.tui.workers import background

RESAMPLES = 1000
COMPUTING_RELIABILITY = "\nComputing reliability beyond agreement…"
VARIABLE_WIDTH = 34
DEFINITION = (
    "Percent agreement: mean pairwise agreement over items with at least two judgments. "
    "Each reviewer's first submitted judgment counts (before they could see anyone else's)."
)


@dataclass(frozen=True)
class ShownAgreement:
    """The report, the variables listed (the design's, then the imported labels among
    themselves) and each one's detail (figures, pairs, heat maps), built off-thread."""

    report: StudyAgreementReport
    variables: tuple[VariableAgreement, ...]
    details: tuple[RenderableType, ...]


def _references(report: StudyAgreementReport) -> RenderableType:
    names = ", ".join(s.name for s in report.label_sets)
    head = Text.assemble(
        ("Against imported labels", "bold"), " (", Text(safe_line(names)[:200]), ")"
    )
    if not report.references:
        return Group(Text(""), head, Text("No reviewer's preference falls on a labelled item."))
    return Group(
        Text(""), head, fitted_table(references_table(report.references, report.confidence))
    )


def build(report: StudyAgreementReport) -> ShownAgreement:
    variables = report.variables
    if report.label_agreement is not None:
        variables += (report.label_agreement,)
    details: list[RenderableType] = []
    for v in variables:
        detail = variable_detail(v)
        if v.variable == "preference" and report.design is not None and report.label_sets:
            detail = Group(detail, _references(report))
        details.append(detail)
    return ShownAgreement(report, variables, tuple(details))


def reliability_section(db_path: Path, design: DesignChoice, viewer: str) -> RenderableType:
    """The reliability section: a heading, then the report (its tables aligned at the screen's
    width) or why there is none."""
    found = read_reliability(db_path, design.study_id, design.pk, viewer, resamples=RESAMPLES)
    head = Text("\nReliability beyond agreement (abp-tui reliability)")
    if isinstance(found, str):
        return Group(head, Text(f"No model of the annotators: {safe_line(found)}"))
    return Group(head, reliability_view(found))


def _row(v: VariableAgreement, width: int = VARIABLE_WIDTH, narrow: bool = False) -> list[Text]:
    """A variable's cells; ``narrow``: an undefined figure reads "undef." (the detail says
    why), so six figures fit in 80 columns beside the name."""
    cells = variable_row(v, width)
    if narrow:
        for i in range(FIRST_FIGURE, len(cells)):
            if cells[i].plain == UNDEFINED:
                cells[i] = Text(UNDEFINED_SHORT, style=cells[i].style, justify=cells[i].justify)
    return cells


COLUMNS = VARIABLE_COLUMNS
FIRST_FIGURE = 5
"""The columns before it name the variable and count its denominators; the figures follow."""
LEAST_NAME = 12
"""A variable's name is cut down to this many cells before a figure leaves the screen."""
UNDEFINED = "undefined"
UNDEFINED_SHORT = "undef."
"""An undefined figure in the narrow list (the reason is in the variable's detail)."""
CELL_PADDING = 2
"""A ``DataTable`` column's padding, one cell each side."""
STEP_KEYS = Binding.Group("Variable", compact=True)
"""``[`` and ``]`` share one entry of the key bar."""


@dataclass(frozen=True)
class VariablesLayout:
    """The list of variables at one width: the columns in their order (indices into
    :data:`COLUMNS`), each one's width, the names' cut and the header's lines."""

    order: tuple[int, ...]
    widths: tuple[int, ...]
    name_width: int
    header_height: int
    narrow: bool = False
    """Whether the figures lead (an undefined one reads "undef.")."""


def _least(label: str) -> int:
    """The narrowest a header may be: its longest word (the rest wraps to a second line)."""
    return max(Text(word).cell_len for word in label.split())


def variables_layout(variables: tuple[VariableAgreement, ...], room: int) -> VariablesLayout:
    """The list of variables in ``room`` cells. When the whole list fits it is as it always
    was; else the figures, what a reader came for, come straight after the names (cut to
    fit), their headers on two lines, and the level and denominators follow as far as they
    fit (the detail's first lines give them too): no figure needs sideways scrolling."""
    rows = [_row(v) for v in variables]

    def natural(index: int) -> int:
        return max([Text(COLUMNS[index]).cell_len, *(r[index].cell_len for r in rows)])

    whole = tuple(natural(i) for i in range(len(COLUMNS)))
    if sum(w + CELL_PADDING for w in whole) <= room:
        return VariablesLayout(tuple(range(len(COLUMNS))), whole, VARIABLE_WIDTH, 1)
    figures = range(FIRST_FIGURE, len(COLUMNS))
    rows = [_row(v, narrow=True) for v in variables]
    narrow = {i: max([_least(COLUMNS[i]), *(r[i].cell_len for r in rows)]) for i in figures}
    taken = sum(w + CELL_PADDING for w in narrow.values()) + CELL_PADDING
    name = max(LEAST_NAME, min(whole[0], room - taken))
    order = (0, *figures)
    taken += name
    for i in range(1, FIRST_FIGURE):  # the level and denominators, while they fit
        if taken + whole[i] + CELL_PADDING > room:
            break
        order += (i,)
        taken += whole[i] + CELL_PADDING
    widths = tuple(name if i == 0 else narrow.get(i, whole[i]) for i in order)
    wraps = any(Text(COLUMNS[i]).cell_len > narrow[i] for i in figures)
    return VariablesLayout(order, widths, name, 2 if wraps else 1, narrow=True)


class AgreementScreen(DesignScreen):
    """Agreement figures of one design (or a study's imported labels)."""

    CSS_PATH = "../styles/agreement.tcss"
    AUTO_FOCUS = "#variables"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "r",
            "reload",
            "Recompute",
            id="agreement.reload",
            tooltip="Read the judgments again and recompute every figure (same seed).",
        ),
        Binding(
            "d",
            "read_detail",
            "Detail",
            id="agreement.detail",
            tooltip="Read the highlighted variable's detail (Enter on a variable does too): the "
            "list of variables shrinks to give it the room, [ and ] step to the previous and "
            "next variable; d again, or esc, goes back to the list.",
        ),
        Binding(
            "escape",
            "back",
            "Back",
            key_display="esc",
            id="agreement.back",
            tooltip="From the detail, back to the list of variables; from the list, back to the "
            "previous screen.",
        ),
        Binding(
            "left_square_bracket",
            "step(-1)",
            "Previous variable",
            key_display="[",
            group=STEP_KEYS,
            id="agreement.previous",
            tooltip="While reading the detail: the previous variable's.",
        ),
        Binding(
            "right_square_bracket",
            "step(1)",
            "Next variable",
            key_display="]",
            group=STEP_KEYS,
            id="agreement.next",
            tooltip="While reading the detail: the next variable's.",
        ),
    ]

    def __init__(self, db_path: Path, design: DesignChoice, reviewer: str | None = None) -> None:
        super().__init__(db_path, design)
        self.reviewer = reviewer
        """Who looks; None: the workstation's reviewer, read when the screen is mounted."""
        self.shown: ShownAgreement | None = None
        self.listing: VariablesLayout | None = None
        """How the list of variables is laid out (None: not yet listed)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Computing agreement…"), id="agreement-summary")
        yield DataTable[Text](id="variables", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="variable-detail"):
            yield Static("", id="detail")
            yield Static(Text(COMPUTING_RELIABILITY), id="reliability")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#variable-detail").border_title = "Highlighted variable"
        if self.reviewer is None:
            # Fails closed: a workstation always judges as someone, and without a name no item
            # could be held back.
            reviewer = getattr(self.app, "reviewer", None)
            if not isinstance(reviewer, str) or not reviewer.strip():
                raise RuntimeError("the agreement screen needs the workstation's reviewer")
            self.reviewer = reviewer
        self.compute()

    @background(group="agreement", description="Computing agreement", exclusive=True)
    def compute(self) -> None:
        assert self.reviewer is not None
        # The design's seed, as abp-tui agreement and the bundle draw them.
        report = read_agreement(self.db_path, self.design, self.reviewer, resamples=RESAMPLES)
        shown = build(report)
        if get_current_worker().is_cancelled:
            return
        self.post_message(AgreementComputed(shown))
        section = reliability_section(self.db_path, self.design, self.reviewer)
        if not get_current_worker().is_cancelled:
            self.post_message(ReliabilityComputed(section))

    @on(ReliabilityComputed)
    def reliability_computed(self, message: ReliabilityComputed) -> None:
        # Names from records were made safe, and none is markup.
        self.query_one("#reliability", Static).update(message.section)

    @on(WorkerFailed)
    def failed(self, message: WorkerFailed) -> None:
        self.query_one("#agreement-summary", Static).update(
            Text.assemble(("Cannot compute agreement: ", "bold red"), safe_line(message.reason))
        )

    @on(AgreementComputed)
    def computed(self, message: AgreementComputed) -> None:
        self.shown = message.shown
        report = message.shown.report
        summary = Text.assemble(
            (safe_line(self.design.label), "bold"),
            f"  ·  {counted(len(message.shown.variables), 'variable')}  ·  seed {report.seed}, "
            f"{report.resamples} bootstrap resamples, {report.confidence:.0%} percentile "
            "intervals; reviewer pairs: "
            + (
                f"{report.pair_resamples} bootstrap resamples each and large-sample intervals\n"
                if report.pair_resamples
                else "large-sample intervals (no pair bootstrap)\n"
            ),
            (safe_line(view_summary(report)), "bold" if report.items_held_back else ""),
            "\n",
            (DEFINITION, "dim"),
        )
        self.query_one("#agreement-summary", Static).update(summary)
        self.fill_variables()

    def _room(self) -> int:
        """The cells the list of variables has for its columns (its margins and a vertical
        scroll bar's cell left out)."""
        return max(0, self.size.width - 3)

    def fill_variables(self) -> None:
        """The list of variables laid out for the screen's width; the highlighted one kept."""
        if self.shown is None:
            return
        table: DataTable[Text] = self.query_one(DataTable)
        previous = table.cursor_row if table.row_count else 0
        variables = self.shown.variables
        layout = variables_layout(variables, self._room())
        self.listing = layout
        table.clear(columns=True)
        table.header_height = layout.header_height
        table.set_class(layout.header_height > 1, "-two-line-header")
        for index, width in zip(layout.order, layout.widths, strict=True):
            table.add_column(Text(COLUMNS[index]), key=COLUMNS[index], width=width)
        for i, v in enumerate(variables):
            cells = _row(v, layout.name_width, layout.narrow)
            # A name cut to fit ("preference among i…") takes two lines of its row instead,
            # when its words fit them (a word is never cut in two: "task_cor…" stays cut).
            width = layout.name_width
            lines = textwrap.wrap(
                safe_line(v.variable), width, max_lines=2, placeholder=" …", break_long_words=False
            )
            two = len(lines) == 2 and all(Text(line).cell_len <= width for line in lines)
            if two:
                cells[0] = Text("\n".join(lines), style=cells[0].style)
            table.add_row(*(cells[index] for index in layout.order), key=str(i), height=1 + two)
        if variables:
            table.move_cursor(row=min(previous, len(variables) - 1))
            self.show_variable(table.cursor_row)
        else:
            self.query_one("#detail", Static).update(
                Text("No judgments yet: agreement needs two reviewers judging the same items.")
            )

    def on_resize(self, event: events.Resize) -> None:
        shown, listing = self.shown, self.listing
        if shown and listing and variables_layout(shown.variables, self._room()) != listing:
            self.fill_variables()

    # -- reading the detail -------------------------------------------------------------------
    @property
    def reading(self) -> bool:
        """Whether the detail has the focus (the list of variables then gives it its room)."""
        return self.has_class("-reading")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        reading = event.widget.id == "variable-detail"
        if reading != self.reading:
            self.set_class(reading, "-reading")
            self.refresh_bindings()
            # The list's height changed: the highlighted variable in view again.
            table = self._variables
            self.call_after_refresh(lambda: table.move_cursor(row=table.cursor_row))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "step":
            return self.reading  # the list's own keys move it otherwise
        return True

    @property
    def _variables(self) -> DataTable[Text]:
        return self.query_one("#variables", DataTable)

    @on(DataTable.RowSelected, "#variables")
    def selected(self) -> None:
        self.action_read_detail()

    def action_read_detail(self) -> None:
        if self.reading:
            self._variables.focus()
        else:
            self.query_one("#variable-detail").focus()

    def action_step(self, step: int) -> None:
        table = self._variables
        if table.row_count:
            table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + step)))
            self.query_one("#variable-detail").scroll_home(animate=False)

    @on(DataTable.RowHighlighted, "#variables")
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_variable(event.cursor_row)

    def show_variable(self, index: int) -> None:
        if self.shown is None or not 0 <= index < len(self.shown.details):
            return
        self.query_one("#detail", Static).update(self.shown.details[index])
        variable = self.shown.variables[index]
        # A variable's name can hold a task's fatal criterion: record text, never markup.
        self.query_one("#variable-detail").border_title = f"Variable {index + 1}: " + escape_markup(
            safe_line(variable.variable)[:100]
        )

    def action_reload(self) -> None:
        self.query_one("#agreement-summary", Static).update(Text("Computing agreement…"))
        self.query_one("#reliability", Static).update(Text(COMPUTING_RELIABILITY))
        self.compute()

    def action_back(self) -> None:
        if self.reading:
            self._variables.focus()
        else:
            self.dismiss(None)
