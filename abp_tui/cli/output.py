"""What the commands print: one JSON document with ``--json``, else plain text, and the exit
status. Untrusted text reaches this module already made safe (``abp_tui.text.safe``); nothing
here parses markup.

Exit status: 0 success; 1 bad input or a refused operation (the message says what and where);
2 a usage error (unknown command or option); 3 an internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

ProgressCallback = Callable[[str, int, int], None]

_LARGE_FILE = 8 << 20
"""Files smaller than this import in well under a second: a bar would only flicker."""


def emit(args: argparse.Namespace, document: Any, text: str) -> None:
    """Print ``document`` as JSON when ``--json`` was given, else ``text``."""
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        sys.stdout.write(text + ("\n" if text and not text.endswith("\n") else ""))


def progress_bar(args: argparse.Namespace) -> tuple[ProgressCallback | None, Callable[[], None]]:
    """A rich progress bar on stderr for large files (not with --json or when not a tty).

    Returns the callback to pass to the import and the function that closes the bar. Rich is
    imported only when a bar can be shown, so a piped or scripted import never pays for it.
    """
    if getattr(args, "json", False) or not sys.stderr.isatty():
        return None, lambda: None
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn
    from rich.text import Text

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    tasks: dict[str, TaskID] = {}
    started = False

    def update(display: str, pos: int, size: int) -> None:
        nonlocal started
        if size < _LARGE_FILE:
            return
        if not started:
            progress.start()
            started = True
        if display not in tasks:
            # A file name is untrusted text: Text(...).plain never reads it as markup.
            tasks[display] = progress.add_task(Text(display).plain[-40:], total=size)
        progress.update(tasks[display], completed=pos)

    def finish() -> None:
        if started:
            progress.stop()

    return update, finish
