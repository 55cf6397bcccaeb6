"""The reading aids of the compare and adjudication screens: transcripts, search and folds.

- Transcripts: the Trace tabs show each response's transcript, read (masked by the core, laid
  out and wrapped in a worker: :mod:`abp_tui.tui.transcripts`) the first time a Trace tab is
  shown for an item, and again for each item while the tabs stay shown.
- Search: ``/`` opens a field under the responses; Enter searches the panes shown (the outputs,
  or the transcripts), every hit highlighted, and gives the focus back where it was so that
  single keys act again; ``n`` / ``N`` (or ``>`` / ``<``) jump between hits, Escape in the field
  clears them. While a search is on, ``n`` jumps even on a validity-gate row (where it would
  otherwise answer "fails"): a reviewer meaning to jump must never fail a check instead. With
  no search on, ``n`` is the gate's key again.
- Folds: a transcript's long blocks (a tool's result, its arguments, a step's fields) are
  folded; ``e`` unfolds or folds back the first one in view, ``E`` all of them.

The keys are declared here once (:data:`READING_BINDINGS`) and listed with the screen's own.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget

from abp_tui.tui.screen_keys import screen_binding
from abp_tui.tui.transcripts import TranscriptReader, TranscriptSource
from abp_tui.tui.widgets.response_pair import ResponsePair
from abp_tui.tui.widgets.search_bar import SearchBar
from abp_tui.tui.widgets.task_panel import TaskPanel


def reading_bindings(screen: str, fold: str = "e") -> list[BindingType]:
    """The reading keys with ids ``<screen>.<name>``; ``fold`` is the unfold key (its capital
    unfolds all): ``e``, but ``z`` where ``e`` is taken (the adjudication's note)."""

    def _key(
        key: str, action: str, description: str, tooltip: str, name: str, display: str
    ) -> Binding:
        return screen_binding(
            screen, key, action, description, tooltip, show=False, name=name, key_display=display
        )

    return [
        _key(
            "slash",
            "search",
            "Search",
            "Search the outputs, or the transcripts when the Trace tabs are shown.",
            "search",
            "/",
        ),
        _key(
            "n",
            "jump_hit(1)",
            "Next hit",
            "Jump to the next hit of the search (while a search is on).",
            "search_next",
            "n",
        ),
        _key(
            "N",
            "jump_hit(-1)",
            "Previous hit",
            "Jump to the previous hit of the search (while a search is on).",
            "search_previous",
            "shift+n",
        ),
        _key(
            "greater_than_sign",
            "next_hit(1)",
            "Next hit",
            "Jump to the next hit of the search.",
            "next_hit",
            ">",
        ),
        _key(
            "less_than_sign",
            "next_hit(-1)",
            "Previous hit",
            "Jump to the previous hit of the search.",
            "previous_hit",
            "<",
        ),
        _key(
            fold,
            "fold",
            "Unfold",
            "Unfold (or fold back) the first long block in view of each transcript shown.",
            "fold",
            fold,
        ),
        _key(
            fold.upper(),
            "fold_all",
            "Unfold all",
            "Unfold every long block of the transcripts shown, or fold them all back.",
            "fold_all",
            f"shift+{fold}",
        ),
    ]


READING_BINDINGS: list[BindingType] = reading_bindings("compare")
HELP_HINTS = (
    "Search: / opens the search field (Enter searches the outputs, or the transcripts when the "
    "Trace tabs are shown; Esc clears it); n and N (or > and <) jump between the hits. While a "
    "search is on, n jumps even on a validity check; clear the search to answer a check with n.",
    "Transcripts (r): long blocks are folded; e unfolds the first one in view, E all of them; "
    "a click on a fold's marker unfolds it too. A block holding a search hit is unfolded.",
)


class ReadingAids:
    """Transcripts, search and folds of one screen's response pair."""

    def __init__(
        self,
        screen: Screen[Any],
        desk: TranscriptSource,
        pair: ResponsePair,
        bar: SearchBar,
        fold_key: str = "e",
    ):
        self.screen = screen
        self.pair = pair
        self.bar = bar
        self.reader = TranscriptReader(screen, desk, fold_key)
        self._return: Widget | None = None

    def item_shown(self, code: str) -> None:
        """A new item is in the pair: its search is gone, its transcripts are read if shown."""
        if self.bar.is_open:
            self.bar.close(announce=False)  # a search is of the item it was typed on
        if self.pair.showing_trace and self.pair.ask_transcripts():
            self.read(code)

    def read(self, code: str) -> None:
        pair = self.pair
        self.reader.read(code, pair.wrap_widths(), pair.query_text)

    # -- search -----------------------------------------------------------------------------
    def open_search(self) -> None:
        for panel in self.screen.query(TaskPanel):
            panel.read_in_full(False)  # the responses searched come back in the task's place
        focused = self.screen.focused
        if focused is not self.bar.input:
            self._return = focused
        self.bar.open()

    def search(self, query: str) -> None:
        """Search for ``query`` ("" clears), then give the focus back where it was."""
        self.pair.search(query)
        target, self._return = self._return, None
        if target is not None and target.is_attached and target.focusable:
            target.focus(scroll_visible=False)
        else:
            self.screen.set_focus(None)

    def show_status(self) -> None:
        if self.bar.is_open:
            self.bar.set_status(self.pair.search_status())

    @property
    def searching(self) -> bool:
        """Whether a search is on (``n`` / ``N`` then jump between its hits)."""
        return bool(self.pair.query_text)

    def next_hit(self, step: int) -> None:
        self._say(self.pair.next_hit(step))

    # -- folds ------------------------------------------------------------------------------
    def fold(self, *, every: bool) -> None:
        pair = self.pair
        self._say(pair.toggle_all_folds() if every else pair.toggle_fold_in_view())

    def _say(self, notice: str | None) -> None:
        if notice is not None:
            self.screen.notify(notice, markup=False)
