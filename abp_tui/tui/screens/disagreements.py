"""The disagreement queue: items whose reviewers disagree, and whether each is adjudicated.

Rows carry blind codes, how many reviewers judged the item and why their judgments disagree
(never who the reviewers are). The items the current user still has to judge (or sharing a
response with one) are not listed, nor counted among the verdict sources: the summary says how
many were held back. An item they may not adjudicate (they reviewed it, or the design names
other adjudicators) says so on its row. Enter opens the adjudication screen on the highlighted
item; the list is read again when that screen closes.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from abp_tui.errors import AbpError
from abp_tui.services.coordinator import DesignChoice, DisagreementQueue, DisagreementRow
from abp_tui.services.coordinator import disagreement_queue as read_queue
from abp_tui.text.safe import safe_line
from abp_tui.tui.messages import DisagreementsLoaded, WorkerFailed
from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.screens.base import DesignScreen
from abp_tui.tui.widgets.keybar import KeyBar
from abp_tui.tui.workers import background

FILTERS = ("open", "all", "adjudicated")
SOURCES = ("adjudicated", "unanimous", "single review", "unresolved")
REASONS_WIDTH = 160
"""Cells of the reasons column at most; longer reasons wrap onto more lines of their row."""
OTHER_COLUMNS = 12 + 12 + 11 + 3 * 2 + 2 + 2 + 2
"""Cells the other columns take (each with its padding), the table's margins, the reasons
column's padding and the scroll bar: the reasons get the rest of the width."""


def verdict_sources(queue: DisagreementQueue) -> Text:
    """Where the final verdicts come from, at the level the design judged: runs (their states
    and scores), pairs (their preferences); both for a design that judges both."""
    lines = []
    counted = (
        ("Final verdicts of judged runs: ", queue.verdict_sources, "runs"),
        ("Final preferences of judged pairs: ", queue.preference_sources, "items"),
    )
    for title, sources, unit in counted:
        total = sum(sources.values())
        if total:
            said = ", ".join(f"{sources.get(s, 0)} {s}" for s in SOURCES)
            lines.append(f"{title}{said} (of {total} {unit})")
    if not lines:  # not a line of zeros "(of 0 runs)"
        lines.append("No final verdict among the items shown yet.")
    return Text("\n".join(lines), style="dim")


def shown(rows: tuple[DisagreementRow, ...], status_filter: str) -> list[DisagreementRow]:
    if status_filter == "open":
        return [r for r in rows if not r.adjudicated]
    if status_filter == "adjudicated":
        return [r for r in rows if r.adjudicated]
    return list(rows)


class DisagreementsScreen(DesignScreen):
    """The disputed items of one study design; Enter adjudicates the highlighted one."""

    CSS_PATH = "../styles/disagreements.tcss"
    AUTO_FOCUS = "#disagreements"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "open",
            "Adjudicate",
            priority=True,  # before the table's own Enter, so the key bar shows it
            id="disagreements.open",
            tooltip="Open the highlighted item: both judgments side by side and the final form.",
        ),
        Binding(
            "f",
            "filter",
            "Filter",
            id="disagreements.filter",
            tooltip="Show open disagreements, all of them, or only adjudicated ones.",
        ),
        Binding(
            "r",
            "reload",
            "Reload",
            id="disagreements.reload",
            tooltip="Read the disagreements again (after a merge or another reviewer's work).",
        ),
        Binding(
            "escape",
            "back",
            "Back",
            key_display="esc",
            id="disagreements.back",
            tooltip="Back to the previous screen.",
        ),
    ]

    def __init__(self, db_path: Path, design: DesignChoice, reviewer: str) -> None:
        super().__init__(db_path, design)
        self.reviewer = reviewer
        self.status_filter = "open"
        self.queue: DisagreementQueue | None = None
        self._filled_width = 0
        self.current: str | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Reading the disagreements…"), id="disagreements-summary")
        yield Static("", id="verdict-sources")
        yield DataTable[Text](id="disagreements", cursor_type="row", zebra_stripes=True)
        yield Static("", id="disagreements-empty")
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()

    def on_resize(self) -> None:
        if self.queue is not None and self.app.size.width != self._filled_width:
            self.fill()  # the reasons column follows the terminal's width

    def on_screen_resume(self) -> None:
        if self.queue is not None:
            self.load()

    @background(
        group="disagreements-load",
        description="Reading the disagreements",
        exclusive=True,
    )
    def load(self) -> None:
        pk = self.design.pk
        if pk is None:
            raise AbpError("this study has no study design: nothing to adjudicate")
        queue = read_queue(self.db_path, pk, self.reviewer)
        if not get_current_worker().is_cancelled:
            self.post_message(DisagreementsLoaded(queue))

    @on(DisagreementsLoaded)
    def loaded(self, message: DisagreementsLoaded) -> None:
        self.queue = message.queue
        self.fill()

    @on(WorkerFailed)
    def failed(self, message: WorkerFailed) -> None:
        self.query_one("#disagreements-summary", Static).update(
            Text.assemble(
                ("Cannot read the disagreements: ", "bold red"), safe_line(message.reason)
            )
        )

    def fill(self) -> None:
        queue = self.queue
        if queue is None:
            return
        rows = queue.rows
        visible = shown(rows, self.status_filter)
        summary = Text.assemble(
            (safe_line(queue.design.label), "bold"),
            f"  ·  {len(rows)} disagreement{'s' if len(rows) != 1 else ''}: {queue.open} open, "
            f"{len(rows) - queue.open} adjudicated  ·  showing: ",
            (self.status_filter, "bold"),
            " (f changes)",
            "  ·  Enter adjudicates the highlighted item" if visible else "",
        )
        if queue.held_back:
            n = queue.held_back
            summary.append(
                f"\n{n} item{'s' if n != 1 else ''} of this design held back: "
                f"{safe_line(self.reviewer)} still has {'them' if n != 1 else 'it'} (or an item "
                "sharing a response) to judge, so whether they are disputed is not shown until "
                "then",
                style="bold",
            )
        self.query_one("#disagreements-summary", Static).update(summary)
        self.query_one("#verdict-sources", Static).update(verdict_sources(queue))
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_column(Text("Item"), key="item", width=12)
        table.add_column(Text("Status"), key="status", width=12)
        table.add_column(Text("Judged by"), key="reviewers", width=11)
        # The reasons take the rest of the terminal's width (wrapping), never cut off at its edge.
        width = max(24, min(REASONS_WIDTH, self.app.size.width - OTHER_COLUMNS))
        self._filled_width = self.app.size.width
        table.add_column(Text("Why they disagree"), key="reasons", width=width)
        for row in visible:
            reasons = Text("; ".join(safe_line(r) for r in row.reasons))
            if row.refused:
                # The why in one clause: the explanation is said when the item is opened.
                short = safe_line(row.refused).split(" (", 1)[0]
                reasons.append(f"\nnot yours to adjudicate: {short}", "dim italic")
            status = (
                Text("adjudicated", style="green")
                if row.adjudicated
                else Text("open", style="bold yellow")
            )
            table.add_row(
                Text(safe_line(row.code), style="bold"),
                status,
                Text(f"{row.reviewers} reviewers"),
                reasons,
                key=row.code,
                height=None,
            )
        codes = [r.code for r in visible]
        if self.current in codes:
            table.move_cursor(row=codes.index(self.current))
        empty = self.query_one("#disagreements-empty", Static)
        empty.display = not visible
        table.display = bool(visible)
        self.refresh_bindings()  # Enter adjudicates only with an item to open
        if not rows and queue.held_back:
            empty.update(
                Text(
                    "No disagreement among the items shown. The items held back are not "
                    "shown, disputed or not, until you have judged them."
                )
            )
        elif not rows:
            empty.update(
                Text(
                    "No disagreements: every item judged by two or more reviewers agrees under "
                    "the design's rules (or no item has two submitted judgments yet)."
                )
            )
        else:
            empty.update(
                Text(f"No {self.status_filter} disagreements. Press f to change the filter.")
            )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":
            return self.queue is not None and bool(shown(self.queue.rows, self.status_filter))
        return True

    def action_filter(self) -> None:
        self.status_filter = FILTERS[(FILTERS.index(self.status_filter) + 1) % len(FILTERS)]
        self.fill()

    def action_reload(self) -> None:
        self.load()

    def _open(self, code: str | None) -> None:
        if code is None or self.queue is None or self.design.pk is None:
            return
        self.current = code
        codes = [r.code for r in shown(self.queue.rows, self.status_filter)]
        self.app.push_screen(
            AdjudicationScreen(self.db_path, self.design, self.reviewer, code, codes)
        )

    def action_open(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        if table.row_count == 0:
            return
        self._open(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    @on(DataTable.RowSelected)
    def row_clicked(self, event: DataTable.RowSelected) -> None:
        self._open(event.row_key.value)

    def action_back(self) -> None:
        self.dismiss(None)
