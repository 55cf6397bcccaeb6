"""The import's progress bar: on a terminal's stderr, once an import has run for about a second.

Short imports never show it (a bar that flashes for 0.2 s is noise), and neither does ``--json``
or an import whose stderr is not a terminal (a pipe, a log file, CI): there it would only write
control codes into someone's output. Rich is imported the moment the bar first appears, so a
short or scripted import never pays for it. File names are untrusted text: they are made safe
and shown without markup parsing.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from abp_tui.text.safe import safe_line

if TYPE_CHECKING:
    from abp_tui.services.import_plan import ImportProgress

DELAY_SECONDS = 1.0
"""An import shows its bar once it has run this long."""
REFRESH_SECONDS = 0.1
"""The bar is redrawn at most this often."""

Report = Callable[["ImportProgress"], None]


class ProgressBar:
    """Draws an import's progress on ``stream`` (a terminal) once ``delay`` seconds have passed."""

    def __init__(
        self,
        stream: TextIO,
        clock: Callable[[], float] = time.monotonic,
        delay: float = DELAY_SECONDS,
    ) -> None:
        self._stream = stream
        self._clock = clock
        self._delay = delay
        self._began = clock()
        self._drawn_at = float("-inf")
        self._bar: Any = None
        self._task: Any = None

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def update(self, progress: ImportProgress) -> None:
        now = self._clock()
        if self._bar is None:
            if now - self._began < self._delay:
                return
            self._start(progress.total)
        if now - self._drawn_at < REFRESH_SECONDS and progress.done < progress.total:
            return
        self._drawn_at = now
        name = safe_line(progress.file)
        self._bar.update(
            self._task,
            completed=progress.done,
            total=progress.total,
            description=f"[{progress.number}/{progress.files}] {name[-48:]}",
        )
        self._bar.refresh()

    def _start(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            DownloadColumn(),
            TimeRemainingColumn(),
            console=Console(file=self._stream, force_terminal=True),
            transient=True,
            auto_refresh=False,
        )
        self._task = self._bar.add_task("importing", total=total)
        self._bar.start()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def import_progress(
    args: argparse.Namespace, stream: TextIO | None = None
) -> tuple[Report | None, Callable[[], None]]:
    """The progress callback for an import and the function that closes the bar: none with
    ``--json`` or when ``stream`` (stderr) is not a terminal."""
    out = stream if stream is not None else sys.stderr
    if getattr(args, "json", False) or not out.isatty():
        return None, lambda: None
    bar = ProgressBar(out)
    return bar.update, bar.close
