"""The import's progress bar: on a terminal's stderr, once an import has run for about a second.

Short imports never show it (a bar that flashes for 0.2 s is noise), and neither does ``--json``
or an import whose stderr is not a terminal (a pipe, a log file, CI): there it would only write
control codes into someone's output. Rich is imported the moment the bar first appears, so a
short or scripted import never pays for it. File names are untrusted text: they are made safe
and shown without markup parsing.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TextIO

from abp_tui.runtime import reporting
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
    out = _terminal(args, stream)
    if out is None:
        return None, lambda: None
    bar = ProgressBar(out)
    return bar.update, bar.close


class StatusLine:
    """What a long command is doing (``export bundle``, ``verify``), on one line of a terminal's
    stderr once it has run ``delay`` seconds: a spinner, the step the core last said
    (:func:`abp_tui.runtime.phase`) and the seconds so far, cleared when it ends. A short
    command never shows it. Steps name files of the bundle: made safe, never read as markup."""

    def __init__(
        self,
        stream: TextIO,
        command: str,
        clock: Callable[[], float] = time.monotonic,
        delay: float = DELAY_SECONDS,
    ) -> None:
        import threading

        self._stream = stream
        self._command = command
        self._clock = clock
        self._began = clock()
        self._step = ""
        self._live: Any = None
        self._closed = False
        self._lock = threading.Lock()
        # Shown by a timer, not by the next step: one step alone can take minutes.
        self._timer = threading.Timer(delay, self.show)
        self._timer.daemon = True
        self._timer.start()

    @property
    def shown(self) -> bool:
        return self._live is not None

    def update(self, step: str) -> None:
        self._step = safe_line(step)

    def text(self) -> str:
        """The line as shown now."""
        seconds = int(self._clock() - self._began)
        doing = f": {self._step}" if self._step else ""
        return f"{self._command}{doing} ({seconds} s)"

    def show(self) -> None:
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner
        from rich.text import Text

        with self._lock:
            if self._closed or self._live is not None:
                return
            spinner = Spinner("dots")

            def render() -> Spinner:
                spinner.update(text=Text(self.text(), no_wrap=True, overflow="ellipsis"))
                return spinner

            self._live = Live(
                get_renderable=render,
                console=Console(file=self._stream, force_terminal=True),
                transient=True,
                refresh_per_second=4,
            )
            self._live.start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._timer.cancel()
            if self._live is not None:
                self._live.stop()
                self._live = None


@contextlib.contextmanager
def step_status(
    args: argparse.Namespace, command: str, stream: TextIO | None = None
) -> Iterator[StatusLine | None]:
    """Within the block, the core's steps on a :class:`StatusLine` of ``stream`` (stderr): none
    with ``--json`` or when it is not a terminal (a pipe, a log file, CI)."""
    out = _terminal(args, stream)
    if out is None:
        yield None
        return
    line = StatusLine(out, command)
    try:
        with reporting(line.update):
            yield line
    finally:
        line.close()


def _terminal(args: argparse.Namespace, stream: TextIO | None) -> TextIO | None:
    """Where a command's progress goes: ``stream`` (default stderr) when it is a terminal and
    the command does not print ``--json``; else None (nothing is shown)."""
    out = stream if stream is not None else sys.stderr
    return None if getattr(args, "json", False) or not out.isatty() else out
