"""Importing run records from the workstation: a path with completion, the import in a worker
with its progress, and the command line's words for what happened.

It calls :func:`abp_tui.services.importing.import_into`, the same :func:`import_paths` as
``abp-tui import`` (formats detected, all or nothing), so the two faces import alike. Success ends
with the command line's one summary line (:attr:`ImportReport.summary`); a refusal is shown as
the command line's lines (:func:`refusal_lines`); any other error as its one line. File names
and record text are untrusted: shown as text, never markup.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Button, Input, ProgressBar, Static

from abp_tui.errors import AbpError, ImportFailed
from abp_tui.services.import_plan import ImportProgress
from abp_tui.services.importing import import_into, refusal_lines
from abp_tui.text.safe import safe_line

REFRESH_SECONDS = 0.1
"""The progress is redrawn at most this often (the import reports far more often)."""


def completion(value: str) -> str | None:
    """``value`` completed as far as the file system allows: to the one file or folder whose
    name starts with its last part (a folder with a trailing separator), or to the longest
    prefix those names share; None when nothing (more) matches. Hidden files only when asked."""
    if not value:
        return None
    expanded = os.path.expanduser(value)
    folder, stem = (expanded, "") if expanded.endswith(os.sep) else os.path.split(expanded)
    try:
        entries = [
            entry.name + (os.sep if entry.is_dir() else "")
            for entry in os.scandir(folder or ".")
            if entry.name.startswith(stem) and (stem.startswith(".") or entry.name[:1] != ".")
        ]
    except OSError:
        return None
    if not entries:
        return None
    common = os.path.commonprefix(entries)  # noqa: RUF071 (names, not paths)
    added = common[len(stem) :]
    return value + added if added else None


class PathSuggester(Suggester):
    """Suggests :func:`completion` of the path typed (right arrow or Tab accepts)."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        return completion(value)


class PathInput(Input):
    """An input whose Tab accepts the completion shown (and moves on when there is none)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "complete", "Complete", show=False),
    ]

    def action_complete(self) -> None:
        before = self.value
        if self.cursor_at_end:
            self.action_cursor_right()  # accepts the suggestion shown, if any
        if self.value == before:
            self.screen.focus_next()


class ImportScreen(ModalScreen[str | None]):
    """Import a file or a folder into the workstation's database; dismissed with the summary
    line after an import, None when closed without one."""

    CSS_PATH: ClassVar = ["../styles/dialogs.tcss", "../styles/import_files.tcss"]
    AUTO_FOCUS = "#import-path"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="import.close", tooltip="Close without importing."),
    ]

    def __init__(self, db_path: Path) -> None:
        super().__init__()
        self.db_path = db_path
        self.running = False
        self._drawn_at = float("-inf")
        self._lock = threading.Lock()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Import run records", style="bold"), classes="dialog-title")
            yield Static(
                Text(
                    "A file or a folder (Tab completes): its formats are detected, and nothing "
                    "is written unless every record is valid, as `abp-tui import` does."
                ),
                classes="dialog-text",
            )
            yield PathInput(
                placeholder="path/to/records", id="import-path", suggester=PathSuggester()
            )
            yield ProgressBar(id="import-progress", show_eta=False)
            yield Static("", id="import-status", classes="dialog-text")
            yield Static("", id="import-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Import", id="import", variant="primary")
                yield Button("Close (esc)", id="close")

    def on_mount(self) -> None:
        self.query_one(ProgressBar).display = False

    @on(Input.Submitted)
    @on(Button.Pressed, "#import")
    def action_import(self) -> None:
        if self.running:
            return
        value = self.query_one(PathInput).value.strip()
        error = self.query_one("#import-error", Static)
        if not value:
            error.update(Text("Type the path of a file or a folder to import."))
            return
        path = Path(os.path.expanduser(value))
        if not path.exists():
            error.update(Text(f"{safe_line(value)}: no such file or folder"))
            return
        error.update("")
        self.running = True
        bar = self.query_one(ProgressBar)
        bar.update(total=None, progress=0)
        bar.display = True
        self.query_one("#import-status", Static).update(Text(f"Importing {safe_line(value)}…"))
        self.run_import(path)

    @work(thread=True, exclusive=True, group="import", description="Importing run records")
    def run_import(self, path: Path) -> None:
        try:
            report = import_into(self.db_path, [path], progress=self._progress)
        except ImportFailed as exc:
            self.app.call_from_thread(self._refused, refusal_lines(exc))
        except (AbpError, OSError) as exc:
            self.app.call_from_thread(self._refused, [safe_line(str(exc))])
        else:
            self.app.call_from_thread(self._done, report.summary)

    def _progress(self, progress: ImportProgress) -> None:
        """Called in the worker thread, far more often than is drawn."""
        now = time.monotonic()
        with self._lock:
            if now - self._drawn_at < REFRESH_SECONDS and progress.done < progress.total:
                return
            self._drawn_at = now
        self.app.call_from_thread(self._show_progress, progress)

    def _show_progress(self, progress: ImportProgress) -> None:
        self.query_one(ProgressBar).update(total=max(progress.total, 1), progress=progress.done)
        self.query_one("#import-status", Static).update(
            Text(f"[{progress.number}/{progress.files}] {safe_line(progress.file)[-60:]}")
        )

    def _refused(self, lines: list[str]) -> None:
        self.running = False
        self.query_one(ProgressBar).display = False
        self.query_one("#import-status", Static).update("")
        self.query_one("#import-error", Static).update(Text("\n".join(lines)))

    def _done(self, summary: str) -> None:
        self.running = False
        self.dismiss(summary)

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        if not self.running:  # an import under way finishes (all or nothing) before closing
            self.dismiss(None)


__all__ = ["ImportScreen", "PathInput", "PathSuggester", "completion"]
