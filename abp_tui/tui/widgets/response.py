"""One blind response: its output and its transcript (each a TextPane), in two tabs.

The tabs are Textual's tab bar (:class:`~textual.widgets.Tabs`) over the two panes, one shown at
a time; the bar is made when it is first shown (a response with a trace, or its Trace tab
opened) and the transcript's pane when it is first needed (the Trace tab shown, or its
transcript read). Textual's ``TabbedContent`` looked the same and, made for every response
whether shown or not, was a third of the widgets the compare screen styled before its first item.

Nothing here knows which run or condition the response is: it shows a ``BlindResponse`` (masked
output and trace, already stripped of identity by the review session) under "Response N", and a
transcript the core masked the same way. The transcript is not read with the item: the first
time the Trace tab is shown the view asks for it (:class:`ResponseView.TranscriptWanted`), and
until it arrives the tab says so. Folding and unfolding a block lays the transcript out again in
a worker (a long transcript is never laid out on the event loop), keeping the reader's place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static, Tab, Tabs
from textual.worker import get_current_worker

from abp_tui.services.reviewing import BlindResponse
from abp_tui.tui.widgets.textlayout import Range
from abp_tui.tui.widgets.textpane import TextPane
from abp_tui.tui.workers import background

if TYPE_CHECKING:
    # Transcripts are laid out when first shown: the first item without them.
    from abp_tui.tui.widgets.transcriptlayout import Fold, FoldKey, ShownTranscript

EMPTY_OUTPUT = "(empty output)"
READING = "Reading the transcript…"
NO_STEPS = "(no steps)"


class ResponseView(Vertical):
    """A response pane: a note line, then the Output and Trace tabs (the tab bar only when the
    response has a trace, or its Trace tab is open)."""

    class TranscriptWanted(Message):
        """The Trace tab is shown and the view has no transcript yet."""

        def __init__(self, view: ResponseView) -> None:
            super().__init__()
            self.view = view

    class TranscriptShown(Message):
        """A transcript (or a new layout of it) is in the pane: its hits may have changed."""

        def __init__(self, view: ResponseView) -> None:
            super().__init__()
            self.view = view

    class LaidOut(Message):
        """A worker laid the transcript out again (folds changed, or a new search)."""

        def __init__(self, generation: int, shown: ShownTranscript, anchor: FoldKey | None):
            super().__init__()
            self.generation = generation
            self.shown = shown
            self.anchor = anchor

    def __init__(self, position: str, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="response-view")
        self.position = position
        self.border_title = f"Response {position}"
        self.response: BlindResponse | None = None
        self.shown: ShownTranscript | None = None
        """The transcript in the Trace tab (None: not read yet)."""
        self._generation = 0
        self._note: tuple[str | None, int] | None = None
        self._trace_label = "Trace"
        self._output_id = f"output-{position}"
        self._trace_id = f"trace-{position}"
        self._trace_open = False
        self._tabs: Tabs | None = None
        """The tab bar, once it has been shown."""
        self._pane = TextPane(id=f"text-{position}")
        self._transcript: TextPane | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="response-note")
        yield self._pane

    @property
    def pane(self) -> TextPane:
        """The output's pane."""
        return self._pane

    @property
    def transcript_pane(self) -> TextPane:
        """The transcript's pane (made, hidden unless its tab is shown, when first asked for)."""
        if self._transcript is None:
            self._transcript = TextPane(id=f"transcript-{self.position}", classes="transcript")
            self._transcript.display = self.showing_trace
            self.mount(self._transcript)
        return self._transcript

    def visible_pane(self) -> TextPane:
        """The pane of the tab shown: the output or the transcript."""
        return self.transcript_pane if self.showing_trace else self.pane

    def wrap_width(self) -> int:
        """The width the panes wrap to (whichever tab has been laid out)."""
        if self._transcript is None:
            return self.pane.wrap_width()
        return max(self.pane.wrap_width(), self._transcript.wrap_width())

    def show(
        self,
        title: str,
        response: BlindResponse,
        display: str,
        wrapped: tuple[int, list[Range]] | None = None,
    ) -> None:
        """Show a response: ``display`` is its output in display form (``wrapped``: see
        ``TextPane.show``). Its transcript is read again when the Trace tab asks for it."""
        if self.border_title != title:
            self.border_title = title
        self.response = response
        # Widgets whose content is unchanged are left alone: an update would measure the
        # whole screen again for nothing.
        note_key = (response.record_state, response.masked)
        if note_key != self._note:
            self._note = note_key
            self._show_note(response)
        self.pane.show(display, EMPTY_OUTPUT, wrapped)
        self._generation += 1
        self.shown = None
        if self.showing_trace:
            self.transcript_pane.show("", READING)
        label = f"Trace ({len(response.trace)})"
        if label != self._trace_label:
            self._trace_label = label
            if self._tabs is not None:
                self._tabs.query_one(f"#{self._trace_id}", Tab).label = Text(label)
        self._show_tab_bar()

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

    # -- the tabs ---------------------------------------------------------------------------
    @property
    def showing_trace(self) -> bool:
        return self._trace_open

    def show_trace(self, show: bool) -> None:
        self._trace_open = show
        self._switch_panes()
        bar = self._tabs
        self._show_tab_bar()  # a new bar starts on the tab shown
        if bar is not None:
            active = self._trace_id if show else self._output_id
            if bar.is_mounted:
                bar.active = active
            else:  # made a moment ago: its tabs are not there yet
                self.call_after_refresh(setattr, bar, "active", active)
        self._want_transcript()

    def _want_transcript(self) -> None:
        """The Trace tab shown with no transcript yet: ask for it."""
        if self._trace_open and self.shown is None and self.response is not None:
            self.transcript_pane.show("", READING)
            self.post_message(self.TranscriptWanted(self))

    def _switch_panes(self) -> None:
        """Show the pane of the active tab, the other hidden."""
        trace = self.showing_trace
        if self.pane.display == trace:
            self.pane.display = not trace
        if trace or self._transcript is not None:
            transcript = self.transcript_pane
            if transcript.display != trace:
                transcript.display = trace

    def _show_tab_bar(self) -> None:
        """The Output and Trace tabs are shown when there is a trace, or its tab is open: a
        response without a trace shows no tab bar (two lines more of its text); its Trace tab
        still opens with the trace key, and the bar then comes back."""
        response = self.response
        shown = response is not None and (bool(response.trace) or self.showing_trace)
        bar = self._tabs
        if bar is None:
            if not shown:
                return
            active = self._trace_id if self._trace_open else self._output_id
            bar = self._tabs = Tabs(
                Tab("Output", id=self._output_id),
                Tab(Text(self._trace_label), id=self._trace_id),
                active=active,
            )
            self.mount(bar, before=self._pane)
        elif bar.display != shown:
            bar.display = shown  # the bar alone: no class that would restyle the whole view

    @on(Tabs.TabActivated)
    def tab_shown(self, event: Tabs.TabActivated) -> None:
        event.stop()
        trace = event.tab.id == self._trace_id
        if trace != self._trace_open:  # a tab clicked, or chosen with the arrow keys
            self._trace_open = trace
            self._switch_panes()
            self._want_transcript()

    # -- the transcript ---------------------------------------------------------------------
    def show_transcript(self, shown: ShownTranscript, *, top: int = 0) -> None:
        """Put a prepared transcript in the Trace tab, from offset ``top``."""
        self.shown = shown
        layout = shown.layout
        spans = (layout.ranges, layout.names)
        self.transcript_pane.show(layout.text, NO_STEPS, shown.wrapped, spans, top=top)
        self.transcript_pane.set_hits(shown.hits)
        self.post_message(self.TranscriptShown(self))

    def relayout(
        self,
        *,
        expanded: frozenset[FoldKey] | None = None,
        collapsed: frozenset[FoldKey] | None = None,
        query: str | None = None,
        anchor: FoldKey | None = None,
    ) -> bool:
        """Lay the transcript out again (in a worker) with other folds or another search;
        ``anchor``: the fold whose place in view is kept. False when there is no transcript."""
        shown = self.shown
        if shown is None:
            return False
        self._generation += 1
        self._lay_out(
            self._generation,
            shown,
            shown.expanded if expanded is None else expanded,
            shown.collapsed if collapsed is None else collapsed,
            shown.query if query is None else query,
            anchor,
            self.wrap_width(),
        )
        return True

    @background(group="transcript-layout", description="Laying out a transcript")
    def _lay_out(
        self,
        generation: int,
        shown: ShownTranscript,
        expanded: frozenset[FoldKey],
        collapsed: frozenset[FoldKey],
        query: str,
        anchor: FoldKey | None,
        width: int,
    ) -> None:
        from abp_tui.tui.widgets.transcriptlayout import prepare_transcript

        again = prepare_transcript(
            shown.transcript,
            width,
            expanded=expanded,
            collapsed=collapsed,
            query=query,
            fold_key=shown.fold_key,
        )
        if not get_current_worker().is_cancelled:
            self.post_message(self.LaidOut(generation, again, anchor))

    @on(LaidOut)
    def laid_out(self, message: LaidOut) -> None:
        message.stop()
        if message.generation != self._generation or self.shown is None:
            return
        pane = self.transcript_pane
        top = pane.top_offset()
        old = self.shown.layout.fold_of(message.anchor) if message.anchor else None
        new = message.shown.layout.fold_of(message.anchor) if message.anchor else None
        if old is not None and new is not None and top > new.start:
            # The reader was inside the block that changed: go to its start. Above it, nothing
            # moved, so the same offset is the same place.
            top = new.start
        self.show_transcript(message.shown, top=top)

    def fold_in_view(self) -> Fold | None:
        """The first long block whose marker is in view."""
        if self.shown is None or not self.showing_trace:
            return None
        start, end = self.transcript_pane.visible_range()
        return next((f for f in self.shown.layout.folds if start <= f.marker[0] <= end), None)

    def toggle_fold(self, fold: Fold) -> None:
        shown = self.shown
        if shown is None:
            return
        expanded, collapsed = set(shown.expanded), set(shown.collapsed)
        if fold.folded:
            expanded.add(fold.key)
            collapsed.discard(fold.key)
        else:
            expanded.discard(fold.key)
            collapsed.add(fold.key)
        self.relayout(expanded=frozenset(expanded), collapsed=frozenset(collapsed), anchor=fold.key)

    def toggle_all(self, unfold: bool) -> None:
        """Unfold every long block, or fold them all."""
        shown = self.shown
        if shown is None:
            return
        keys = frozenset(f.key for f in shown.layout.folds)
        if unfold:
            self.relayout(expanded=keys | shown.expanded, collapsed=frozenset())
        else:
            self.relayout(expanded=frozenset(), collapsed=keys | shown.collapsed)

    @on(TextPane.Clicked)
    def pane_clicked(self, event: TextPane.Clicked) -> None:
        if event.pane is not self._transcript or self.shown is None:
            return
        event.stop()
        fold = self.shown.layout.fold_at(event.offset)
        if fold is not None:
            self.toggle_fold(fold)
