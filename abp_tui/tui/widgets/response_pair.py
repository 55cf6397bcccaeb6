"""The responses of a blind item side by side ("Response 1", "Response 2"; one for a single
response), each with its output and trace tabs.

On the compare screen the two outputs scroll together (scrolling one brings the other to the
passage that lines up with it, through the word diff's alignment) and the word diff is
highlighted, toggled and jumped through here. The diff itself is computed elsewhere (in the
helper process, see :mod:`abp_tui.tui.responsive`) and handed in as ``DiffMarks``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal

from abp_tui.services.reviewing import BlindResponse
from abp_tui.tui.widgets.response import ResponseView
from abp_tui.tui.widgets.textlayout import Alignment, DiffMarks, Range
from abp_tui.tui.widgets.textpane import TextPane


class ResponsePair(Horizontal):
    """Both responses of an item; ``follow`` scrolls them together and shows the word diff."""

    def __init__(self, *, follow: bool = True, id: str = "responses") -> None:
        super().__init__(id=id)
        self.follow = follow
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
        n = len(self.marks.hunks)
        diff = Text(f"diff: {n} change{'s' if n != 1 else ''}")
        if self.hunk_index is not None and n:
            diff.append(f" (at {self.hunk_index + 1})")
        return diff

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
    def toggle_trace(self) -> None:
        """Switch every response shown between its output and its trace."""
        views = self.views()
        show = not views[0].showing_trace
        for view in views:
            view.show_trace(show)

    def scroll_page(self, direction: int) -> None:
        pane = self.panes()[0]
        if direction > 0:
            pane.scroll_page_down(animate=False)
        else:
            pane.scroll_page_up(animate=False)
