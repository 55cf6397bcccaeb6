"""The queue screen: the reviewer's items in their order, with status, filters and a jump.

Rows carry blind codes and the task (as the compare screen shows it), never a run or a
condition. The queue is read by a worker through the desk; Enter returns the chosen code to the
compare screen, which opens it. ``f`` cycles the status filter; ``/`` filters by text: every
word typed must appear in the item's blind code, kind, status or task text.

A queue may hold a hundred thousand items: the screen shows a page of :data:`PAGE` rows at a
time (the one holding the current item first; ``]`` and ``[`` page), filtered in the store,
with the counts of the whole queue from the summary the store keeps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, Static
from textual.worker import get_current_worker

from abp_tui.services.desk import Desk, QueuePage
from abp_tui.text.safe import safe_line
from abp_tui.tui.messages import QueueLoaded, WorkerFailed
from abp_tui.tui.widgets.fitted_columns import CELL_PADDING, cut
from abp_tui.tui.widgets.keybar import KeyBar
from abp_tui.tui.widgets.search_bar import SearchBar
from abp_tui.tui.workers import background

FILTERS = ("all", "unfinished", "todo", "draft", "submitted")
PAGE = 200
"""Rows shown at a time."""
STATUS_STYLE = {"todo": "", "draft": "yellow", "submitted": "green"}
COLUMNS = (("#", 4), ("Item", 12), ("Kind", 8), ("Status", 10), ("Saves", 6))
"""The columns before the Task column, with their widths."""
TASK_WIDTH = (24, 100)
"""The Task column's least and most width: the screen's width left by the other columns."""
OTHER_COLUMNS = sum(width for _label, width in COLUMNS) + CELL_PADDING * (len(COLUMNS) + 1)
"""The other columns' width with every column's padding (the Task column's too)."""


def _cut(text: str, width: int) -> str:
    """``text`` (made safe to show) cut to ``width`` cells (:func:`fitted_columns.cut`)."""
    return cut(Text(text), width).plain


def task_lines(tasks: Mapping[str, str], width: int) -> dict[str, str]:
    """Item code -> its task's line in the queue, ``width`` characters at most: its first line,
    or, when another task of the page has other text under the same first line (an instruction
    asked of several inputs), that line cut to a third of the width and then the rest of the
    task, so that the rows read differently where the tasks do. Tasks of the same text (an item
    a contrast; PandaLM's 999 tasks are 170 texts) read alike: they are alike."""
    lines = {
        code: [safe_line(p.strip()) for p in t.splitlines() if p.strip()]
        for code, t in tasks.items()
    }
    # Counted once a task (a task's several items, one a contrast or a condition, share it).
    shared = Counter(parts[0] for parts in {tuple(p) for p in lines.values()} if parts)
    head = max(10, width // 3)
    out = {}
    for code, parts in lines.items():
        if len(parts) > 1 and shared[parts[0]] > 1:
            out[code] = _cut(f"{_cut(parts[0], head)} · {' '.join(parts[1:])}", width)
        else:
            out[code] = _cut(parts[0], width) if parts else ""
    return out


def _joined(parts: list[Text], width: int) -> Text:
    """The parts on lines of ``width``, "  ·  " between two on one line: a line breaks between
    parts, never inside one, so no line ends with a separator."""
    out = Text()
    used = 0
    for part in parts:
        size = part.cell_len
        if used and used + 5 + size > width:
            out.append("\n")
            used = 0
        elif used:
            out.append("  ·  ")
            used += 5
        out.append_text(part)
        used += size
    return out


class QueueTable(DataTable[Text]):
    """The queue's list. Whenever its size changes (the terminal resized, the search bar opened
    or closed above it, rows now overflowing it or not), its screen fits the Task column to
    the width left, once the screen is laid out again."""

    def on_resize(self) -> None:
        screen = self.screen
        if isinstance(screen, QueueScreen):
            self.call_after_refresh(screen.refit)


class QueueScreen(Screen[str | None]):
    """My items; Enter opens the highlighted one, f and / filter, Escape goes back."""

    CSS_PATH = "../styles/queue.tcss"
    AUTO_FOCUS = "#queue"
    HELP_HINTS = (
        "Find (/): type words; only items whose blind code, kind, status or task text has "
        "every one of them stay listed, as you type. Enter goes to the list, Esc in the field "
        "clears it. f still narrows by status.",
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "open",
            "Open",
            priority=True,  # before the table's own Enter, so the key bar shows it
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
            "slash",
            "find",
            "Find",
            key_display="/",
            id="queue.find",
            tooltip="Show only items whose blind code, status or task text has every word typed.",
        ),
        Binding(
            "right_square_bracket",
            "page(1)",
            "Next page",
            key_display="]",
            show=False,
            id="queue.next_page",
            tooltip="The next page of the queue (it is listed a page at a time).",
        ),
        Binding(
            "left_square_bracket",
            "page(-1)",
            "Prev page",
            key_display="[",
            show=False,
            id="queue.previous_page",
            tooltip="The previous page of the queue.",
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
        self.view: QueuePage | None = None
        """The page shown (its rows, their task texts, the queue's counts)."""
        self.text_filter = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Reading your queue…"), id="queue-summary")
        yield SearchBar("blind code, status or task words", id="queue-find")
        yield QueueTable(id="queue", cursor_type="row", zebra_stripes=True)
        yield Static("", id="queue-empty")
        yield KeyBar()

    def on_mount(self) -> None:
        self.load(None)

    def load(self, start: int | None) -> None:
        """Read the page from row ``start`` (None: the page holding the current item)."""
        self._load(start, self.status_filter, self.text_filter.lower().split())

    @background(group="queue-load", description="Reading the queue", exclusive=True)
    def _load(self, start: int | None, status_filter: str, words: list[str]) -> None:
        page = self.desk.queue_page(status_filter, words, start, PAGE, around=self.current)
        if not get_current_worker().is_cancelled:
            self.post_message(QueueLoaded(page))

    @on(QueueLoaded)
    def loaded(self, message: QueueLoaded) -> None:
        self.view = message.page
        self.fill()

    def refit(self) -> None:
        """The Task column takes the width the list has now; the highlighted row stays."""
        if self.view is not None:
            table: DataTable[Text] = self.query_one(DataTable)
            row = table.cursor_row
            self.fill()
            table.move_cursor(row=row)

    @on(WorkerFailed)
    def failed(self, message: WorkerFailed) -> None:
        self.query_one("#queue-summary", Static).update(
            Text.assemble(("Cannot read the queue: ", "bold red"), safe_line(message.reason))
        )

    def fill(self) -> None:
        view = self.view
        if view is None:
            return
        counts = view.counts
        parts = [
            Text(safe_line(f"{view.study_id} / {view.design_name}"), "bold"),
            Text(
                f"{counts.assigned:,} items: {counts.submitted:,} submitted, {counts.drafts:,} "
                f"in draft, {counts.todo:,} to do"
            ),
            Text.assemble("showing: ", (self.status_filter, "bold"), " (f changes)"),
        ]
        if self.text_filter:
            parts.append(
                Text.assemble("matching: ", (safe_line(self.text_filter), "bold"), " (/ changes)")
            )
        if view.matching > len(view.rows):
            first = view.start + 1 if view.rows else 0
            parts.append(
                Text.assemble(
                    f"items {first:,}-{view.start + len(view.rows):,} of {view.matching:,}",
                    (" (] next page, [ previous)", "dim"),
                )
            )
        summary = _joined(parts, max(20, self.size.width - 2))
        self.query_one("#queue-summary", Static).update(summary)
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear(columns=True)
        least, most = TASK_WIDTH
        room = (table.size.width or self.size.width - 2) - OTHER_COLUMNS  # its margin: 1 a side
        if len(view.rows) > table.size.height - 1:  # a scroll bar takes its part of the width
            room -= table.styles.scrollbar_size_vertical
        task_width = max(least, min(most, room))
        for label, width in (*COLUMNS, ("Task", task_width)):
            table.add_column(Text(label), key=label, width=width)
        visible = view.rows
        texts = {row.code: view.tasks.get(row.code, "") for row in visible}
        tasks = task_lines(texts, task_width)
        for row in visible:
            table.add_row(
                Text(str(row.order_index + 1), justify="right"),
                Text(safe_line(row.code), style="bold" if row.code == self.current else ""),
                Text(row.kind),
                Text(row.status, style=STATUS_STYLE.get(row.status, "")),
                Text(str(row.revisions), justify="right"),
                Text(tasks[row.code]),
                key=row.code,
            )
        codes = [r.code for r in visible]
        if self.current in codes:
            table.move_cursor(row=codes.index(self.current))
        empty = self.query_one("#queue-empty", Static)
        empty.display = not visible
        self.refresh_bindings()  # Enter opens only with an item listed
        if self.text_filter:
            empty.update(
                Text.assemble(
                    "No ",
                    "" if self.status_filter == "all" else f"{self.status_filter} ",
                    "item matches ",
                    (safe_line(self.text_filter), "bold"),
                    ". Press / and Esc to clear it, or f to change the status filter.",
                )
            )
        else:
            empty.update(Text(f"No items are {self.status_filter}. Press f to change the filter."))
        bar = self.query_one(SearchBar)
        if bar.is_open:
            bar.set_status(Text(f"{view.matching} of {counts.assigned} items", style="dim"))

    def action_page(self, step: int) -> None:
        view = self.view
        if view is None:
            return
        start = view.start + step * PAGE
        if 0 <= start < view.matching and start != view.start:
            self.load(start)

    def action_filter(self) -> None:
        self.status_filter = FILTERS[(FILTERS.index(self.status_filter) + 1) % len(FILTERS)]
        self.load(None)

    def action_find(self) -> None:
        self.query_one(SearchBar).open()

    @on(Input.Changed, "#queue-find Input")
    def find_typed(self, event: Input.Changed) -> None:
        self.text_filter = event.value
        self.load(None)

    @on(SearchBar.Submitted)
    def find_done(self) -> None:
        self.query_one(DataTable).focus()

    @on(SearchBar.Closed)
    def find_closed(self) -> None:
        self.text_filter = ""
        self.load(None)
        self.query_one(DataTable).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":  # the list's Enter; in the find field Enter is the field's own
            tables = self.query(DataTable)
            return bool(tables) and tables.first().has_focus and tables.first().row_count > 0
        return True

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
