"""The queue screen: the reviewer's items in their order, with status, a filter and a jump.

Rows carry blind codes only. The queue is read by a worker through the desk; Enter returns the
chosen code to the compare screen, which opens it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import get_current_worker

from abp_tui.services.desk import Desk, QueueRow, QueueView
from abp_tui.text.safe import safe_line
from abp_tui.tui.messages import QueueLoaded, WorkerFailed
from abp_tui.tui.workers import background

FILTERS = ("all", "unfinished", "todo", "draft", "submitted")
STATUS_STYLE = {"todo": "", "draft": "yellow", "submitted": "green"}


def shown(rows: list[QueueRow], status_filter: str) -> list[QueueRow]:
    if status_filter == "all":
        return rows
    if status_filter == "unfinished":
        return [r for r in rows if r.status != "submitted"]
    return [r for r in rows if r.status == status_filter]


class QueueScreen(Screen[str | None]):
    """My items; Enter opens the highlighted one, f changes the filter, Escape goes back."""

    CSS_PATH = "../styles/queue.tcss"
    AUTO_FOCUS = "#queue"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "open",
            "Open",
            id="queue.open",
            tooltip="Open the highlighted item on the compare screen.",
        ),
        Binding(
            "f",
            "filter",
            "Filter",
            id="queue.filter",
            tooltip="Show all items, unfinished ones, or only to do / drafts / submitted.",
        ),
        Binding(
            "escape,l",
            "back",
            "Back",
            key_display="esc",
            id="queue.back",
            tooltip="Back to the item you were judging.",
        ),
    ]

    def __init__(self, desk: Desk, current: str | None, status_filter: str = "all") -> None:
        super().__init__()
        self.desk = desk
        self.current = current
        self.status_filter = status_filter
        self.view: QueueView | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Reading your queue…"), id="queue-summary")
        yield DataTable[Text](id="queue", cursor_type="row", zebra_stripes=True)
        yield Static("", id="queue-empty")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    @background(group="queue-load", description="Reading the queue", exclusive=True)
    def load(self) -> None:
        view = self.desk.queue()
        if not get_current_worker().is_cancelled:
            self.post_message(QueueLoaded(view))

    @on(QueueLoaded)
    def loaded(self, message: QueueLoaded) -> None:
        self.view = message.view
        self.fill()

    @on(WorkerFailed)
    def failed(self, message: WorkerFailed) -> None:
        self.query_one("#queue-summary", Static).update(
            Text.assemble(("Cannot read the queue: ", "bold red"), safe_line(message.reason))
        )

    def fill(self) -> None:
        if self.view is None:
            return
        rows = self.view.rows
        counts = {s: sum(1 for r in rows if r.status == s) for s in ("todo", "draft", "submitted")}
        summary = Text.assemble(
            (safe_line(f"{self.view.study_id} / {self.view.design_name}"), "bold"),
            f"  ·  {len(rows)} items: {counts['submitted']} submitted, {counts['draft']} in "
            f"draft, {counts['todo']} to do  ·  showing: ",
            (self.status_filter, "bold"),
            " (f changes)",
        )
        self.query_one("#queue-summary", Static).update(summary)
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear(columns=True)
        for label, width in (("#", 4), ("Item", 12), ("Kind", 8), ("Status", 10), ("Saves", 6)):
            table.add_column(Text(label), key=label, width=width)
        visible = shown(rows, self.status_filter)
        for row in visible:
            table.add_row(
                Text(str(row.order_index + 1), justify="right"),
                Text(safe_line(row.code), style="bold" if row.code == self.current else ""),
                Text(row.kind),
                Text(row.status, style=STATUS_STYLE.get(row.status, "")),
                Text(str(row.revisions), justify="right"),
                key=row.code,
            )
        codes = [r.code for r in visible]
        if self.current in codes:
            table.move_cursor(row=codes.index(self.current))
        empty = self.query_one("#queue-empty", Static)
        empty.display = not visible
        empty.update(Text(f"No items are {self.status_filter}. Press f to change the filter."))

    def action_filter(self) -> None:
        self.status_filter = FILTERS[(FILTERS.index(self.status_filter) + 1) % len(FILTERS)]
        self.fill()

    def action_open(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        self.dismiss(key)

    @on(DataTable.RowSelected)
    def row_clicked(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def action_back(self) -> None:
        self.dismiss(None)
