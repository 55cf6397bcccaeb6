"""A small dialog that creates (or versions) a study design from a TOML or JSON file.

The same as ``abp-tui study create FILE``: the dialog collects a path; the home screen calls
the core in a worker and reports what happened.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static


class NewDesignScreen(ModalScreen[str | None]):
    """Ask for the path of a design file; dismiss with it (None: cancelled)."""

    CSS_PATH = "../styles/dialogs.tcss"
    AUTO_FOCUS = "#design-path"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "cancel",
            "Back",
            id="new-design.cancel",
            tooltip="Close the dialog without creating anything.",
        ),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("New study design", style="bold"), classes="dialog-title")
            yield Static(
                Text(
                    "Path of a design file (TOML or JSON; examples in fixtures/designs). The same "
                    "as `abp-tui study create FILE`: a changed design under an existing name "
                    "becomes a new version once the old one has been judged."
                ),
                classes="dialog-text",
            )
            yield Input(placeholder="fixtures/designs/afp-pilot-demo.toml", id="design-path")
            yield Static("", id="design-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Create", id="create", variant="primary")
                yield Button("Back", id="cancel")

    @on(Input.Submitted, "#design-path")
    @on(Button.Pressed, "#create")
    def create(self) -> None:
        path = self.query_one("#design-path", Input).value.strip()
        if not path:
            self.query_one("#design-error", Static).update(Text("A file path is required."))
            return
        self.dismiss(path)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
