"""A one-line search field with a status, opened with ``/`` and closed with Escape.

The bar only collects the text: Enter posts :class:`SearchBar.Submitted` (the screen searches
and gives the focus back where it was, so single keys act again), Escape posts
:class:`SearchBar.Closed` (the search is cleared). The status beside the field is whatever the
screen says about the hits. The typed text is the reviewer's own, shown as plain text. The bar's
field and status are made when it is first opened: a screen shows its first item without them.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static


class SearchBar(Horizontal):
    """``/`` text, Enter to search, Escape to close; a status of the hits beside it."""

    DEFAULT_CSS = """
    SearchBar {
        height: 1;
        display: none;
        background: $panel;
        & > .search-label { width: auto; padding: 0 1; text-style: bold; }
        & > Input { width: 40; height: 1; border: none; padding: 0 1; }
        & > .search-status { width: 1fr; padding: 0 1; }
        &.-open { display: block; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "close",
            "Close search",
            show=False,
            id="search.close",
            tooltip="Clear the search and close its field.",
        ),
    ]

    class Submitted(Message):
        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Closed(Message):
        """The reviewer closed the search (its hits are cleared)."""

    def __init__(self, placeholder: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.placeholder = placeholder
        self._input: Input | None = None
        self._status: Static | None = None

    def compose(self) -> ComposeResult:
        return iter(())  # the field and its status are made when the bar is first opened

    @property
    def input(self) -> Input:
        """The search field (made, with the status beside it, when first asked for)."""
        if self._input is None:
            self._input = Input(placeholder=self.placeholder, compact=True, classes="search-input")
            self._status = Static("", classes="search-status")
            self.mount(Static(Text("/"), classes="search-label"), self._input, self._status)
        return self._input

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        """Show the field and put the cursor in it (the last search stays, selected)."""
        self.add_class("-open")
        self.input.focus()

    def close(self, *, announce: bool = True) -> None:
        self.remove_class("-open")
        if self._input is not None:
            self._input.value = ""
        self.set_status(Text(""))
        if announce:
            self.post_message(self.Closed())

    def set_status(self, status: Text) -> None:
        if self._status is not None:
            self._status.update(status)

    def action_close(self) -> None:
        self.close()

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Submitted(event.value))
