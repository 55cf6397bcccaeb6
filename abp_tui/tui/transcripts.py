"""Reading the transcripts of the item shown, off the event loop, for compare and adjudication.

The worker asks the reviewer's desk for the item's transcripts (masked by the core, in the order
the responses are shown), lays each one out, wraps it to its pane's width and searches it (a
transcript of thousands of steps takes a while: never on the event loop), then posts
:class:`~abp_tui.tui.messages.TranscriptsRead`. Transcripts are read only when a Trace tab is
shown, never while reading ahead: most items are judged on their outputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from textual.screen import Screen
from textual.worker import get_current_worker

from abp_tui.tui.messages import TranscriptsRead
from abp_tui.tui.workers import run_in_background

if TYPE_CHECKING:
    from abp_tui.analysis.transcript import Transcript

READ_GROUP = "compare-transcripts"


class TranscriptSource(Protocol):
    """Where a screen's transcripts come from, masked and in the order shown: the reviewer's
    desk (compare) or :class:`abp_tui.services.adjudication_transcripts.AdjudicationTranscripts`."""

    def transcripts(self, code: str) -> Sequence[Transcript]: ...


class TranscriptReader:
    """A screen's transcript worker, over the reviewer's desk or the adjudicator's item."""

    def __init__(self, screen: Screen[Any], desk: TranscriptSource, fold_key: str = "e") -> None:
        self.screen = screen
        self.desk = desk
        self.fold_key = fold_key
        """The screen's unfold key, which the fold markers name."""

    def read(self, code: str, widths: tuple[int, ...], query: str = "") -> None:
        """Read item ``code``'s transcripts, wrapped to ``widths`` and searched for ``query``."""
        run_in_background(
            self.screen,
            partial(self._read, code, widths, query),
            group=READ_GROUP,
            description="Reading the transcripts",
            exclusive=True,
        )

    def _read(self, code: str, widths: tuple[int, ...], query: str) -> None:
        # Laid out when first read (a Trace tab opened): the first item is shown without it.
        from abp_tui.tui.widgets.transcriptlayout import prepare_transcript

        transcripts = self.desk.transcripts(code)
        worker = get_current_worker()
        shown = []
        for i, transcript in enumerate(transcripts):
            if worker.is_cancelled:
                return
            width = widths[i] if i < len(widths) else 0
            shown.append(prepare_transcript(transcript, width, query=query, fold_key=self.fold_key))
        if not worker.is_cancelled:
            self.screen.post_message(TranscriptsRead(code, tuple(shown)))
