"""The question asked before leaving work the database does not have yet.

A screen whose work may be unsaved (a draft the database refused, an adjudication not recorded)
implements :class:`GuardsLeaving`: everything that would take the reviewer away from it (quit,
home, another item, another screen) goes through its ``leave_then``, which runs the move at once
when nothing is at stake and otherwise shows :class:`UnsavedScreen`. The dialog only collects
the answer; the screen saves, stays or discards. Its default (the focused button, Escape) is
the choice that loses nothing: keep editing.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any, ClassVar, Protocol, runtime_checkable

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from abp_tui.text.safe import safe_line


@runtime_checkable
class GuardsLeaving(Protocol):
    """A screen that may hold work not stored yet."""

    def leave_then(self, then: Callable[[], None]) -> None:
        """Run ``then`` once nothing unsaved is at stake (asking first when something is)."""
        ...


class Leaving(Enum):
    """The answer to "this is not saved: what now?"."""

    SAVE = "save"
    """Try to store it now; leave only once it is stored."""
    KEEP = "keep"
    """Stay, with everything as it is (the default)."""
    DISCARD = "discard"
    """Leave; what was not stored is dropped."""


class UnsavedScreen(ModalScreen[Leaving]):
    """Ask what to do with unsaved work before leaving it."""

    CSS_PATH: ClassVar = ["../styles/dialogs.tcss", "../styles/unsaved.tcss"]
    AUTO_FOCUS = "#keep"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,k",
            "choose('keep')",
            "Keep editing",
            id="unsaved.keep",
            tooltip="Stay where you are; nothing is lost (the save is still retried).",
        ),
        Binding(
            "r",
            "choose('save')",
            "Retry now",
            id="unsaved.save",
            tooltip="Try to store it now, then leave once it is stored.",
        ),
        Binding(
            "d",
            "choose('discard')",
            "Leave and discard",
            id="unsaved.discard",
            tooltip="Leave; what was not stored is lost.",
        ),
    ]

    def __init__(
        self, title: str, text: str, reason: str | None = None, save_label: str | None = "Retry now"
    ) -> None:
        """``reason``: why the last save failed; ``save_label``: the button that stores first
        (None: nothing can be stored as it is, e.g. a required field is empty)."""
        super().__init__()
        self.title_text = title
        self.text = text
        self.reason = reason
        self.save_label = save_label

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(safe_line(self.title_text), style="bold"), classes="dialog-title")
            yield Static(Text(self.text), classes="dialog-text")
            if self.reason is not None:
                yield Static(
                    Text.assemble(("Not saved: ", "bold"), safe_line(self.reason)),
                    id="unsaved-reason",
                    classes="dialog-error",
                )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Keep editing (k)", id="keep", variant="primary")
                if self.save_label is not None:
                    yield Button(f"{self.save_label} (r)", id="save")
                yield Button("Leave and discard (d)", id="discard", variant="error")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters == ("save",):
            return self.save_label is not None
        return True

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id or "keep")

    def action_choose(self, choice: str) -> None:
        self.dismiss(Leaving(choice))


@runtime_checkable
class KeepsLostWork(Protocol):
    """An app that says, as it closes, what could not be stored (the CLI prints it, exit 1)."""

    lost_work: list[str]


def report_lost(app: App[Any], text: str) -> None:
    """Work could not be stored as its screen closed: never silently. Shown while the app runs,
    and kept for the terminal once it has closed."""
    if isinstance(app, KeepsLostWork):
        app.lost_work.append(text)
    app.notify(safe_line(text), title="NOT SAVED", severity="error", timeout=30, markup=False)
