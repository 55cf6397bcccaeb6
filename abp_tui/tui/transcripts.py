"""Reading the transcripts of the item shown, off the event loop, for the compare screen.

The worker asks the reviewer's desk for the item's transcripts (masked by the core, in the order
the responses are shown), lays each one out, wraps it to its pane's width and searches it (a
transcript of thousands of steps takes a while: never on the event loop), then posts
:class:`~abp_tui.tui.messages.TranscriptsRead`. Transcripts are read only when a Trace tab is
shown, never while reading ahead: most items are judged on their outputs.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.screen import Screen
from textual.worker import get_current_worker

from abp_tui.services.desk import Desk
from abp_tui.tui.messages import TranscriptsRead
from abp_tui.tui.widgets.transcriptlayout import prepare_transcript
from abp_tui.tui.workers import run_in_background

READ_GROUP = "compare-transcripts"


class TranscriptReader:
    """The compare screen's transcript worker, over the reviewer's desk."""

    def __init__(self, screen: Screen[Any], desk: Desk) -> None:
        self.screen = screen
        self.desk = desk

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
        transcripts = self.desk.transcripts(code)
        worker = get_current_worker()
        shown = []
        for i, transcript in enumerate(transcripts):
            if worker.is_cancelled:
                return
            width = widths[i] if i < len(widths) else 0
            shown.append(prepare_transcript(transcript, width, query=query))
        if not worker.is_cancelled:
            self.screen.post_message(TranscriptsRead(code, tuple(shown)))
