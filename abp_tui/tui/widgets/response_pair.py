"""The responses of a blind item side by side ("Response 1", "Response 2"; one for a single
response), each with its output and trace tabs.

On the compare screen the two outputs scroll together (scrolling one brings the other to the
passage that lines up with it, through the word diff's alignment) and the word diff is
highlighted, toggled and jumped through here. The diff itself is computed elsewhere (in the
helper process, see :mod:`abp_tui.tui.responsive`) and handed in as ``DiffMarks``.

The Trace tabs show each response's transcript. A screen that reads full transcripts (the
compare screen, through the desk) says so with ``full_transcripts`` and is asked for them with
:class:`ResponsePair.TranscriptsWanted`; elsewhere the transcript is made from the trace events
the blind item carries (kind, tool, tokens, duration). Search (:meth:`search`) looks in the
panes shown, outputs or transcripts: every hit is highlighted and :meth:`next_hit` jumps
between them, Response 1's first, then Response 2's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.worker import get_current_worker

from abp_tui.services.reviewing import BlindResponse
from abp_tui.text.search import find_all
from abp_tui.tui.widgets.response import READING, ResponseView
from abp_tui.tui.widgets.textlayout import Alignment, DiffMarks, Range
from abp_tui.tui.widgets.textpane import TextPane
from abp_tui.tui.workers import background

if TYPE_CHECKING:
    # Transcripts are laid out when first shown or searched: the first item without them.
    from abp_tui.tui.widgets.transcriptlayout import ShownTranscript

Hit = tuple[int, Range]
"""A search hit: the response's index (0: Response 1) and where it is in the pane's text."""


def change_summary(marks: DiffMarks, at: int | None = None) -> Text:
    """The diff for the item bar: how many changes (``c`` jumps through them, ``at`` the one
    jumped to) and how much of the texts they are. Small equalities are merged into the changes
    around them, so two wholly different responses are one change: that says so instead."""
    n = len(marks.hunks)
    if n == 0:
        return Text("diff: identical")
    if marks.words and marks.changed_words == marks.words:
        return Text("diff: wholly different (no passage in common)")
    diff = Text(f"diff: {n} change{'s' if n != 1 else ''}")
    if marks.words:
        share = min(99, max(1, round(100 * marks.changed_words / marks.words)))
        diff.append(f", {share}% of the words differ")
    if at is not None:
        diff.append(f" (at {at + 1})")
    return diff


class ResponsePair(Horizontal):
    """Both responses of an item; ``follow`` scrolls them together and shows the word diff."""

    class TranscriptsWanted(Message):
        """A Trace tab is shown and the item's transcripts are not read yet."""

    class SearchChanged(Message):
        """The search's hits or the hit jumped to changed (the search bar says so)."""

    class Searched(Message):
        """A search worker found the hits of the panes shown."""

        def __init__(
            self,
            generation: int,
            found: list[tuple[int, list[Range] | ShownTranscript]],
        ) -> None:
            super().__init__()
            self.generation = generation
            self.found = found

    def __init__(
        self, *, follow: bool = True, full_transcripts: bool = False, id: str = "responses"
    ) -> None:
        super().__init__(id=id)
        self.follow = follow
        self.full_transcripts = full_transcripts
        """The screen reads full transcripts (else they are made from the trace events)."""
        self.query_text = ""
        """What the reviewer searched for ("": no search)."""
        self.hits: list[Hit] = []
        self.hit_index: int | None = None
        self.searching = False
        self._search_generation = 0
        self._asked = False
        self.texts: tuple[str, ...] = ()
        """The responses' outputs in display form."""
        self.diff_on = True
        self.marks: DiffMarks | None = None
        """The word diff of the pair shown (None: not computed yet)."""
        self.hunk_index: int | None = None
        """The difference last jumped to."""
        self._jump_view: tuple[float, float] | None = None

    def compose(self) -> ComposeResult:
        yield ResponseView("1", id="response-1")
        yield ResponseView("2", id="response-2")

    @property
    def is_pair(self) -> bool:
        return len(self.texts) > 1

    def views(self) -> list[ResponseView]:
        views = [self.query_one("#response-1", ResponseView)]
        if self.is_pair:
            views.append(self.query_one("#response-2", ResponseView))
        return views

    def panes(self) -> list[TextPane]:
        return [view.pane for view in self.views()]

    def widths(self) -> tuple[int, ...]:
        """The widths both panes wrap to (also when the item has one response)."""
        return tuple(self.query_one(f"#response-{n}", ResponseView).pane.wrap_width() for n in "12")

    def show(
        self,
        responses: Sequence[BlindResponse],
        texts: tuple[str, ...],
        wrapped: Sequence[tuple[int, list[Range]] | None] = (),
        marks: DiffMarks | None = None,
    ) -> None:
        """Show an item's responses (``texts``: their outputs in display form; ``wrapped``:
        already wrapped to the panes' widths; ``marks``: the pair's diff, if computed)."""
        self.texts = texts
        self.marks = marks
        self.hunk_index = None
        self._asked = False
        self._clear_search()
        titles = ["Response 1", "Response 2"] if self.is_pair else ["Response"]
        for i, (view, response, text, title) in enumerate(
            zip(self.views(), responses, texts, titles, strict=False)
        ):
            view.show(title, response, text, wrapped[i] if i < len(wrapped) else None)

    # -- the word diff ------------------------------------------------------------------------
    def set_marks(self, marks: DiffMarks | None) -> None:
        self.marks = marks
        self.show_marks()

    def show_marks(self) -> None:
        if not self.is_pair:
            return
        left, right = self.panes()
        if self.diff_on and self.marks is not None:
            hunk = None
            if self.hunk_index is not None and self.hunk_index < len(self.marks.hunks):
                hunk = self.marks.hunks[self.hunk_index]
            left.set_changed(self.marks.left, hunk.left if hunk else None)
            right.set_changed(self.marks.right, hunk.right if hunk else None)
        else:
            left.set_changed([])
            right.set_changed([])

    def toggle_diff(self) -> None:
        self.diff_on = not self.diff_on
        self.show_marks()

    def next_change(self) -> str | None:
        """Scroll both outputs to the next difference; a notice when there is none to go to."""
        if not self.is_pair:
            return "A single response has nothing to compare."
        if not self.diff_on:
            return "The word diff is off: press d to show it."
        if self.marks is None:
            return "The word diff is still being computed."
        hunks = self.marks.hunks
        if not hunks:
            return "The two responses are identical."
        left, right = self.panes()
        view = (left.scroll_y, right.scroll_y)
        if self.hunk_index is not None and view == self._jump_view:
            index = self.hunk_index + 1
        else:
            top = round(left.scroll_y)
            index = next(
                (i for i, h in enumerate(hunks) if left.line_of(h.left[0]) > top + 2), len(hunks)
            )
        notice = None
        if index >= len(hunks):
            index = 0
            if len(hunks) > 1:
                notice = "Back to the first difference."
        self.hunk_index = index
        hunk = hunks[index]
        left.scroll_to_offset(hunk.left[0])
        right.scroll_to_offset(hunk.right[0])
        self._jump_view = (left.scroll_y, right.scroll_y)
        self.show_marks()
        return notice

    def diff_summary(self) -> Text | None:
        """The diff's state for the item bar (None for a single response)."""
        if not self.is_pair:
            return None
        if not self.diff_on:
            return Text("diff off (d)", style="dim")
        if self.marks is None:
            return Text("diff: computing…", style="dim")
        return change_summary(self.marks, self.hunk_index)

    def _alignment(self) -> Alignment:
        if self.marks is not None:
            return self.marks.alignment
        return Alignment.plain(len(self.texts[0]), len(self.texts[1]))

    @on(TextPane.Scrolled)
    def pane_scrolled(self, event: TextPane.Scrolled) -> None:
        """Scrolling one response brings the other to the passage that lines up with it."""
        if not self.follow or not self.is_pair:
            return
        left, right = self.panes()
        if event.pane is left:
            right.scroll_to_offset(self._alignment().map(event.offset, True), context=0)
        elif event.pane is right:
            left.scroll_to_offset(self._alignment().map(event.offset, False), context=0)

    # -- reading ------------------------------------------------------------------------------
    @property
    def showing_trace(self) -> bool:
        return self.views()[0].showing_trace

    def toggle_trace(self) -> None:
        """Switch every response shown between its output and its trace."""
        views = self.views()
        show = not views[0].showing_trace
        for view in views:
            view.show_trace(show)
        if self.query_text:
            self.search(self.query_text)  # the search follows what is shown

    def wrap_widths(self) -> tuple[int, ...]:
        """The widths the responses shown wrap to (output or transcript, whichever is laid out)."""
        return tuple(view.wrap_width() for view in self.views())

    # -- transcripts ------------------------------------------------------------------------
    def ask_transcripts(self) -> bool:
        """Whether the screen should read this item's transcripts now (once per item)."""
        if not self.full_transcripts or self._asked:
            return False
        self._asked = True
        for view in self.views():
            if view.shown is None:
                view.transcript_pane.show("", READING)
        return True

    @on(ResponseView.TranscriptWanted)
    def transcript_wanted(self, event: ResponseView.TranscriptWanted) -> None:
        event.stop()
        if self.full_transcripts:
            if self.ask_transcripts():
                self.post_message(self.TranscriptsWanted())
            return
        view = event.view
        if view.response is not None:
            self._from_trace(view, view.response, view.wrap_width(), self.query_text)

    @background(group="transcript-basic", description="Laying out a trace")
    def _from_trace(
        self, view: ResponseView, response: BlindResponse, width: int, query: str
    ) -> None:
        from abp_tui.analysis.transcript import columns_transcript
        from abp_tui.tui.widgets.transcriptlayout import prepare_transcript

        rows = [
            (e.seq, e.kind, e.tool, e.input_tokens, e.output_tokens, e.duration_ms)
            for e in response.trace
        ]
        shown = prepare_transcript(columns_transcript(rows), width, query=query)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._basic_ready, view, response, shown)

    def _basic_ready(
        self, view: ResponseView, response: BlindResponse, shown: ShownTranscript
    ) -> None:
        if view.response is response and view.shown is None:
            view.show_transcript(shown)

    def show_transcripts(self, shown: Sequence[ShownTranscript]) -> None:
        """Put the item's transcripts (read for it, in the order shown) in the Trace tabs."""
        for view, transcript in zip(self.views(), shown, strict=False):
            view.show_transcript(transcript)

    @on(ResponseView.TranscriptShown)
    def transcript_shown(self, event: ResponseView.TranscriptShown) -> None:
        event.stop()
        if self.showing_trace:
            self._collect_hits()

    def toggle_fold_in_view(self) -> str | None:
        """Unfold (or fold back) the first long block in view of each transcript shown; a
        notice when there is none."""
        if not self.showing_trace:
            return "Folds are in the transcripts: press r to show them."
        found = [(view, view.fold_in_view()) for view in self.views()]
        toggled = 0
        for view, fold in found:
            if fold is not None:
                view.toggle_fold(fold)
                toggled += 1
        return None if toggled else "No folded block in view."

    def toggle_all_folds(self) -> str | None:
        """Unfold every long block of the transcripts shown, or fold them all back."""
        if not self.showing_trace:
            return "Folds are in the transcripts: press r to show them."
        views = [v for v in self.views() if v.shown is not None]
        if not any(v.shown.layout.folds for v in views if v.shown is not None):
            return "Nothing is folded in these transcripts."
        unfold = any(f.folded for v in views if v.shown is not None for f in v.shown.layout.folds)
        for view in views:
            view.toggle_all(unfold)
        return None

    # -- search -----------------------------------------------------------------------------
    def _clear_search(self) -> None:
        self.query_text = ""
        self.hits = []
        self.hit_index = None
        self.searching = False
        self._search_generation += 1

    def search(self, query: str) -> None:
        """Find ``query`` in the panes shown (in a worker); an empty query clears the search."""
        self._search_generation += 1
        self.query_text = query
        self.hits = []
        self.hit_index = None
        self.searching = bool(query)
        if not query:
            for view in self.views():
                view.pane.set_hits([])
                if view.shown is not None and view.shown.query:
                    view.relayout(query="")
                else:
                    view.transcript_pane.set_hits([])
            self.post_message(self.SearchChanged())
            return
        trace = self.showing_trace
        targets: list[tuple[int, str | ShownTranscript, int]] = []
        for i, view in enumerate(self.views()):
            if not trace:
                targets.append((i, view.pane.text, 0))
            elif view.shown is not None:
                targets.append((i, view.shown, view.wrap_width()))
        self._find(self._search_generation, query, targets)
        self.post_message(self.SearchChanged())

    @background(group="search", description="Searching", exclusive=True)
    def _find(
        self, generation: int, query: str, targets: list[tuple[int, str | ShownTranscript, int]]
    ) -> None:
        from abp_tui.tui.widgets.transcriptlayout import prepare_transcript

        found: list[tuple[int, list[Range] | ShownTranscript]] = []
        for i, target, width in targets:
            if isinstance(target, str):
                found.append((i, find_all(target, query)))
            else:
                # Blocks holding a hit unfold, so every hit is in the text shown.
                again = prepare_transcript(
                    target.transcript,
                    width,
                    expanded=target.expanded,
                    collapsed=target.collapsed,
                    query=query,
                    fold_key=target.fold_key,
                )
                found.append((i, again))
        if not get_current_worker().is_cancelled:
            self.post_message(self.Searched(generation, found))

    @on(Searched)
    def searched(self, message: Searched) -> None:
        message.stop()
        if message.generation != self._search_generation:
            return
        self.searching = False
        views = self.views()
        for i, result in message.found:
            if i >= len(views):
                continue
            if isinstance(result, list):  # the hits in an output
                views[i].pane.set_hits(result)
            else:  # a transcript laid out again with its hits
                pane = views[i].transcript_pane
                views[i].show_transcript(result, top=pane.top_offset())
        self._collect_hits()
        if self.hits:
            self.next_hit(1)

    def _collect_hits(self) -> None:
        current = self.hits[self.hit_index] if self.hit_index is not None else None
        self.hits = [
            (i, r) for i, view in enumerate(self.views()) for r in view.visible_pane().hits
        ]
        self.hit_index = self.hits.index(current) if current in self.hits else None
        self.post_message(self.SearchChanged())

    def next_hit(self, step: int) -> str | None:
        """Jump to the next (``step`` 1) or previous (-1) hit; a notice when there is none."""
        if not self.query_text:
            return "Nothing is searched: press / to search."
        if self.searching:
            return "Still searching…"
        if not self.hits:
            return f"No hits for {self.query_text!r}."
        if self.hit_index is None:
            index = 0 if step > 0 else len(self.hits) - 1
        else:
            index = (self.hit_index + step) % len(self.hits)
        self.hit_index = index
        views = self.views()
        target, (start, end) = self.hits[index]
        for i, view in enumerate(views):
            pane = view.visible_pane()
            pane.set_hits(pane.hits, (start, end) if i == target else None)
        pane = views[target].visible_pane()
        # Again once laid out: a text shown in this same turn (a search that unfolded a
        # block) has its new height only after the next refresh.
        pane.scroll_to_offset(start)
        pane.call_after_refresh(pane.scroll_to_offset, start)
        if self.follow and self.is_pair and not self.showing_trace:
            other = views[1 - target].pane
            other.scroll_to_offset(self._alignment().map(start, target == 0))
        self.post_message(self.SearchChanged())
        return None

    def search_status(self) -> Text:
        """What the search bar says: where the reviewer is among the hits."""
        if not self.query_text:
            return Text("")
        if self.searching:
            return Text("searching…", style="dim")
        if not self.hits:
            return Text("no hits", style="bold")
        where = "transcripts" if self.showing_trace else "outputs"
        at = f"{self.hit_index + 1} of " if self.hit_index is not None else ""
        status = Text(f"{at}{len(self.hits):,} hit{'s' if len(self.hits) != 1 else ''}")
        if self.is_pair:
            counts = [sum(1 for i, _ in self.hits if i == n) for n in range(2)]
            status.append(f"  ·  Response 1: {counts[0]:,}  ·  Response 2: {counts[1]:,}")
        status.append(f"  ·  {where}  ·  > <", style="dim")
        return status

    def scroll_page(self, direction: int) -> None:
        # The tab shown: the output, or the transcript when the Trace tab is open.
        pane = self.views()[0].visible_pane()
        if direction > 0:
            pane.scroll_page_down(animate=False)
        else:
            pane.scroll_page_up(animate=False)
