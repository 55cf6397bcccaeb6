"""A small dialog for changing a submitted judgment: a revised submission needs a reason.

It only collects the decision (resubmit with a reason, discard the changes, or go back); the
compare screen submits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from abp_tui.text.safe import safe_line


@dataclass(frozen=True)
class Revision:
    """What the reviewer decided about their changes to a submitted judgment."""

    resubmit: bool
    """True: submit the changed judgment as a new revision; False: discard the changes."""
    reason: str = ""


class ReviseScreen(ModalScreen[Revision | None]):
    """Ask why a submitted judgment changes (and, when leaving the item, whether to keep it)."""

    CSS_PATH = "../styles/dialogs.tcss"
    AUTO_FOCUS = "#reason"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "cancel",
            "Back",
            id="revise.cancel",
            tooltip="Go back to the item without submitting or discarding anything.",
        ),
    ]

    def __init__(self, code: str, *, allow_discard: bool) -> None:
        super().__init__()
        self.code = code
        self.allow_discard = allow_discard

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Text.assemble(
                    ("Revise submitted judgment ", "bold"), (safe_line(self.code), "bold")
                ),
                classes="dialog-title",
            )
            yield Static(
                Text(
                    "This item was already submitted. The change is stored as a new revision "
                    "(the earlier one is kept); say why it changes."
                ),
                classes="dialog-text",
            )
            yield Input(placeholder="Reason for the change (required)", id="reason")
            yield Static("", id="reason-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Resubmit", id="resubmit", variant="primary")
                if self.allow_discard:
                    yield Button("Discard my changes", id="discard", variant="warning")
                yield Button("Back", id="cancel")

    @on(Input.Submitted, "#reason")
    @on(Button.Pressed, "#resubmit")
    def resubmit(self) -> None:
        reason = self.query_one("#reason", Input).value.strip()
        if not reason:
            self.query_one("#reason-error", Static).update(
                Text("A reason is required to change a submitted judgment.")
            )
            self.query_one("#reason", Input).focus()
            return
        self.dismiss(Revision(True, reason))

    @on(Button.Pressed, "#discard")
    def discard(self) -> None:
        self.dismiss(Revision(False))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
