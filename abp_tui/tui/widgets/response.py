"""One blind response: its output (a TextPane) and its trace (a table), in two tabs.

Nothing here knows which run or condition the response is: it shows a ``BlindResponse`` (masked
output and trace, already stripped of identity by the review session) under "Response N".
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from abp_tui.services.reviewing import BlindResponse
from abp_tui.text.safe import safe_line
from abp_tui.tui.widgets.textlayout import Range
from abp_tui.tui.widgets.textpane import TextPane

EMPTY_OUTPUT = "(empty output)"
TRACE_COLUMNS = ("#", "Kind", "Tool", "Tokens in", "Tokens out", "Duration")


def _number(value: float | None, unit: str = "") -> Text:
    if value is None:
        return Text("—", style="dim", justify="right")
    return Text(f"{value:,.0f}{unit}", justify="right")


class ResponseView(Vertical):
    """A response pane: a note line, then the Output and Trace tabs."""

    def __init__(self, position: str, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="response-view")
        self.position = position
        self.border_title = f"Response {position}"
        self._note: tuple[str | None, int] | None = None
        self._trace_label = ""

    def compose(self) -> ComposeResult:
        yield Static("", classes="response-note")
        with TabbedContent(initial=f"output-{self.position}"):
            with TabPane("Output", id=f"output-{self.position}"):
                yield TextPane(id=f"text-{self.position}")
            with TabPane("Trace", id=f"trace-{self.position}"):
                yield Static(
                    Text("The record has no trace events.", style="dim italic"),
                    classes="trace-empty",
                )
                yield DataTable[Text](
                    id=f"trace-table-{self.position}", cursor_type="row", zebra_stripes=True
                )

    @property
    def pane(self) -> TextPane:
        return self.query_one(TextPane)

    def show(
        self,
        title: str,
        response: BlindResponse,
        display: str,
        wrapped: tuple[int, list[Range]] | None = None,
    ) -> None:
        """Show a response: ``display`` is its output in display form (``wrapped``: see
        ``TextPane.show``)."""
        if self.border_title != title:
            self.border_title = title
        # Widgets whose content is unchanged are left alone: an update would measure the
        # whole screen again for nothing.
        note_key = (response.record_state, response.masked)
        if note_key != self._note:
            self._note = note_key
            self._show_note(response)
        self.pane.show(display, EMPTY_OUTPUT, wrapped)
        self._show_trace(response)

    def _show_note(self, response: BlindResponse) -> None:
        notes: list[Text] = []
        if response.record_state is not None:
            notes.append(
                Text.assemble(
                    ("The record marks this run ", "bold"),
                    (response.record_state, "bold reverse"),
                    (" — confirm it or judge the output.", "bold"),
                )
            )
        if response.masked:
            noun = "term" if response.masked == 1 else "terms"
            notes.append(Text(f"{response.masked} identity {noun} masked", style="dim"))
        note = self.query_one(".response-note", Static)
        note.update(Text("  ·  ").join(notes))
        note.display = bool(notes)
        note.set_class(response.record_state is not None, "-record-state")

    def _show_trace(self, response: BlindResponse) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear(columns=True)
        for label in TRACE_COLUMNS:
            table.add_column(Text(label), key=label)
        for event in response.trace:
            tokens_in = event.input_tokens
            table.add_row(
                Text(str(event.seq), justify="right"),
                Text(safe_line(event.kind)),
                Text(safe_line(event.tool or "")),
                _number(tokens_in),
                _number(event.output_tokens),
                _number(event.duration_ms, " ms"),
            )
        self.query_one(".trace-empty", Static).display = not response.trace
        table.display = bool(response.trace)
        label = f"Trace ({len(response.trace)})"
        if label != self._trace_label:
            self._trace_label = label
            tabs = self.query_one(TabbedContent)
            tabs.get_tab(f"trace-{self.position}").label = Text(label)

    @property
    def showing_trace(self) -> bool:
        return self.query_one(TabbedContent).active == f"trace-{self.position}"

    def show_trace(self, show: bool) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.active = f"{'trace' if show else 'output'}-{self.position}"
