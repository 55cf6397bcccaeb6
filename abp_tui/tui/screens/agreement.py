"""The agreement screen: how far a design's reviewers agree, variable by variable.

Top: every variable (rubric dimensions, total, result state, fatal flags, preference) with its
denominators and each figure's value, or "undefined". Below: the highlighted variable's figures
with their own denominators, intervals and the reason any figure is undefined; each reviewer pair's
Cohen's kappa (unweighted, linear, quadratic) and confusion-matrix heat map. The statistics and
every heat map are computed in a worker thread
(:func:`abp_tui.services.agreement_report.study_agreement`, the
same function as ``abp-tui agreement``); the screen only shows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.markup import escape as escape_markup
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import get_current_worker

from abp_tui.services.coordinator import DesignChoice, read_agreement
from abp_tui.stats.agreement import AgreementReport, VariableAgreement
from abp_tui.text.safe import safe_line
from abp_tui.tui.charts import VARIABLE_COLUMNS, variable_detail, variable_row
from abp_tui.tui.messages import AgreementComputed, WorkerFailed
from abp_tui.tui.screens.base import DesignScreen
from abp_tui.tui.workers import background

SEED = 0
RESAMPLES = 1000
VARIABLE_WIDTH = 34
DEFINITION = (
    "Percent agreement: mean pairwise agreement over items with at least two judgments. "
    "Each reviewer's first submitted judgment counts (before they could see anyone else's)."
)


@dataclass(frozen=True)
class ShownAgreement:
    """The report and, per variable, its detail (figures, pairs, heat maps), built off-thread."""

    report: AgreementReport
    details: tuple[RenderableType, ...]


def build(report: AgreementReport) -> ShownAgreement:
    return ShownAgreement(report, tuple(variable_detail(v) for v in report.variables))


def _row(v: VariableAgreement) -> list[Text]:
    return variable_row(v, VARIABLE_WIDTH)


COLUMNS = VARIABLE_COLUMNS


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
            "escape",
            "back",
            "Back",
            key_display="esc",
            id="agreement.back",
            tooltip="Back to the previous screen.",
        ),
    ]

    def __init__(self, db_path: Path, design: DesignChoice) -> None:
        super().__init__(db_path, design)
        self.shown: ShownAgreement | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Computing agreement…"), id="agreement-summary")
        yield DataTable[Text](id="variables", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="variable-detail"):
            yield Static("", id="detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#variable-detail").border_title = "Highlighted variable"
        self.compute()

    @background(group="agreement", description="Computing agreement", exclusive=True)
    def compute(self) -> None:
        report = read_agreement(self.db_path, self.design, seed=SEED, resamples=RESAMPLES)
        shown = build(report)
        if not get_current_worker().is_cancelled:
            self.post_message(AgreementComputed(shown))

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
            f"  ·  {len(report.variables)} variables  ·  seed {report.seed}, "
            f"{report.resamples} bootstrap resamples ({report.pair_resamples} per pair), "
            f"{report.confidence:.0%} percentile intervals\n",
            (DEFINITION, "dim"),
        )
        self.query_one("#agreement-summary", Static).update(summary)
        table: DataTable[Text] = self.query_one(DataTable)
        previous = table.cursor_row if table.row_count else 0
        table.clear(columns=True)
        rows = [_row(v) for v in report.variables]
        for index, label in enumerate(COLUMNS):
            width = max([len(label), *(r[index].cell_len for r in rows)])
            table.add_column(Text(label), key=label, width=width)
        for i, cells in enumerate(rows):
            table.add_row(*cells, key=str(i))
        if rows:
            table.move_cursor(row=min(previous, len(rows) - 1))
            self.show_variable(table.cursor_row)
        else:
            self.query_one("#detail", Static).update(
                Text("No judgments yet: agreement needs two reviewers judging the same items.")
            )

    @on(DataTable.RowHighlighted, "#variables")
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_variable(event.cursor_row)

    def show_variable(self, index: int) -> None:
        if self.shown is None or not 0 <= index < len(self.shown.details):
            return
        self.query_one("#detail", Static).update(self.shown.details[index])
        variable = self.shown.report.variables[index]
        # A variable's name can hold a task's fatal criterion: record text, never markup.
        self.query_one("#variable-detail").border_title = f"Variable {index + 1}: " + escape_markup(
            safe_line(variable.variable)[:100]
        )

    def action_reload(self) -> None:
        self.query_one("#agreement-summary", Static).update(Text("Computing agreement…"))
        self.compute()

    def action_back(self) -> None:
        self.dismiss(None)
