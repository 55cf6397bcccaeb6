"""The help screen: the keys active on the screen it was opened from, and what each one does.

The list is built by the app from the live bindings (so keys a user remapped show as remapped);
this screen only displays it, with the lines the screen it was opened from adds about its keys
(``HELP_HINTS``: how search works, why a key is not the one other programs use).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


@dataclass(frozen=True)
class KeyHelp:
    """One action as the help lists it, with every key that triggers it."""

    keys: tuple[str, ...]
    description: str
    tooltip: str


TABLE_HINT = (
    "In a table, the arrow keys, Page Up/Down, Home/End or the mouse move the highlight; "
    "Tab and Shift+Tab move between tables."
)


def keys_table(keys: list[KeyHelp]) -> Table:
    table = Table(box=None, expand=True, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("Key", no_wrap=True, style="bold")
    table.add_column("Action", no_wrap=True)
    table.add_column("What it does", ratio=1)
    for item in keys:
        description = item.description[:1].upper() + item.description[1:]
        table.add_row(Text(", ".join(item.keys)), Text(description), Text(item.tooltip))
    return table


class HelpScreen(ModalScreen[None]):
    """A modal list of keys; Escape, q or ? closes it."""

    CSS_PATH = "../styles/help.tcss"
    AUTO_FOCUS = "#help-scroll"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,q,question_mark",
            "close",
            "Close",
            key_display="esc",
            id="help.close",
            tooltip="Close this list and go back.",
        ),
    ]

    def __init__(self, keys: list[KeyHelp], hints: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.keys = keys
        self.hints = hints
        """What the screen it was opened from says about its keys beyond the list."""

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Static(Text("Keys", style="bold"), id="help-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(keys_table(self.keys), id="help-keys")
                for hint in self.hints:
                    yield Static(Text(hint), classes="help-screen-hint")
            yield Static(Text(TABLE_HINT), id="help-hint")
            yield Static(Text("Press Escape, q or ? to close."), id="help-close-hint")

    def action_close(self) -> None:
        self.dismiss(None)
