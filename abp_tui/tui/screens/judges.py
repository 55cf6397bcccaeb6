"""The Judges screen: how far each AI judge of a study agrees with people, and with itself.

The report is :func:`abp_tui.services.judges.judge_report`'s, computed in a worker thread (the
same function as ``abp-tui judges``), and shown as the same lines the command prints
(:func:`abp_tui.analysis.judge_view.view_lines`), as plain text: judge ids and run ids come
from records and are never markup. A coordinator's screen: it shows AI verdicts' figures, never
a reviewer's blind item; a reviewer who opens it sees nothing touching the items they have not
submitted (held back from every figure, and counted on the second line).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static
from textual.worker import get_current_worker

from abp_tui.analysis.judge_view import view_lines
from abp_tui.services.judges import read_judge_report
from abp_tui.text.safe import safe_line
from abp_tui.tui.messages import JudgesComputed, WorkerFailed
from abp_tui.tui.workers import background


class JudgesScreen(Screen[None]):
    """Every AI judge of one study, measured against its human reference."""

    CSS_PATH = "../styles/judges.tcss"
    AUTO_FOCUS = "#judges-report"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "r",
            "reload",
            "Recompute",
            id="judges.reload",
            tooltip="Read the verdicts and the human reference again and recompute the report.",
        ),
        Binding(
            "escape",
            "back",
            "Back",
            key_display="esc",
            id="judges.back",
            tooltip="Back to the previous screen.",
        ),
    ]

    def __init__(self, db_path: Path, study: str | None) -> None:
        super().__init__()
        self.db_path = db_path
        self.study = study
        self.lines: list[str] = []
        """The report as shown (the tests read it)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Computing the judge report…"), id="judges-summary")
        with VerticalScroll(id="judges-report"):
            yield Static("", id="judges-body")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#judges-report").border_title = "AI judges against people"
        self.compute()

    @background(group="judges", description="Computing the judge report", exclusive=True)
    def compute(self) -> None:
        viewer = getattr(self.app, "reviewer", None)
        report = read_judge_report(self.db_path, self.study, viewer)
        lines = view_lines(report)
        if not get_current_worker().is_cancelled:
            self.post_message(JudgesComputed(lines))

    @on(WorkerFailed)
    def failed(self, message: WorkerFailed) -> None:
        self.query_one("#judges-summary", Static).update(
            Text.assemble(("No judge report: ", "bold red"), safe_line(message.reason))
        )

    @on(JudgesComputed)
    def computed(self, message: JudgesComputed) -> None:
        self.lines = message.lines
        head, body = message.lines[:2], message.lines[2:]  # what it is, whose view it is
        self.query_one("#judges-summary", Static).update(Text("\n".join(head), style="bold"))
        self.query_one("#judges-body", Static).update(Text("\n".join(body)))

    def action_reload(self) -> None:
        self.compute()

    def action_back(self) -> None:
        self.app.pop_screen()
