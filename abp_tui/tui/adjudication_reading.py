"""The adjudication screen's reading aids: the compare screen's transcripts, search and folds.

An adjudicator weighs what the agents did as much as what they answered, so the Trace tabs show
each response's full transcript (every step's message, tool call with arguments, result, error,
tokens and time), read through the core masked like the outputs and in the screen's
blind-swapped placement (:mod:`abp_tui.services.adjudication_transcripts`). ``/`` searches the
panes shown, ``n`` / ``N`` (or ``>`` / ``<``) jump between hits, as on the compare screen. The
folds' keys are ``z`` / ``Z`` here: ``e`` goes to the note, as it always has on this screen.

:class:`AdjudicationReading` is mixed into the screen: its handlers follow Textual's naming
(``on_<message>``), which a mixin can carry, and delegate to
:class:`~abp_tui.tui.reading_aids.ReadingAids`, the same object the compare screen uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from abp_tui.tui.messages import TranscriptsRead
from abp_tui.tui.reading_aids import reading_bindings
from abp_tui.tui.widgets.response_pair import ResponsePair
from abp_tui.tui.widgets.search_bar import SearchBar

if TYPE_CHECKING:
    from abp_tui.services.coordinator import AdjudicationItem
    from abp_tui.tui.reading_aids import ReadingAids

FOLD_KEY = "z"
"""Unfolds here (``e`` goes to the note); the fold markers name it."""
READING_KEYS = reading_bindings("adjudicate", fold=FOLD_KEY)
HELP_HINT = (
    "Transcripts (r): each step with its message, tool calls, results and errors; / searches "
    "the panes shown, n and N jump between hits; z unfolds the first long block in view, Z all."
)


class AdjudicationReading:
    """Transcript, search and fold handlers of the adjudication screen."""

    aids: ReadingAids
    item: AdjudicationItem | None

    def on_response_pair_transcripts_wanted(self, _message: ResponsePair.TranscriptsWanted) -> None:
        if self.item is not None:
            self.aids.read(self.item.code)

    def on_transcripts_read(self, message: TranscriptsRead) -> None:
        if self.item is not None and message.code == self.item.code:
            self.aids.pair.show_transcripts(message.shown)

    def on_search_bar_submitted(self, message: SearchBar.Submitted) -> None:
        self.aids.search(message.query)

    def on_search_bar_closed(self, _message: SearchBar.Closed) -> None:
        self.aids.search("")

    def on_response_pair_search_changed(self, _message: ResponsePair.SearchChanged) -> None:
        self.aids.show_status()

    def action_search(self) -> None:
        self.aids.open_search()

    def action_next_hit(self, step: int) -> None:
        self.aids.next_hit(step)

    def action_jump_hit(self, step: int) -> None:
        self.aids.next_hit(step)

    def action_fold(self) -> None:
        self.aids.fold(every=False)

    def action_fold_all(self) -> None:
        self.aids.fold(every=True)

    @property
    def searching(self) -> bool:
        """Whether a search is on: ``n`` / ``N`` then jump between its hits (even on a gate
        row, where ``n`` would otherwise answer "fails")."""
        return self.aids.searching


__all__ = ["FOLD_KEY", "HELP_HINT", "READING_KEYS", "AdjudicationReading"]
