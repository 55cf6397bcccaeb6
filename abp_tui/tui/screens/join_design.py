"""The question asked before a reviewer joins an open study design.

Opening an open design enrols whoever opens it: they get its items for good, and someone
enrolled can no longer adjudicate items they have not judged, nor see the study's coordinator
figures without giving up judging it. Pressing Enter on a study on the home screen used to do that
without a word. Now :func:`ask_to_join` asks with :class:`JoinDesignScreen` first; only "Yes"
opens the design (and so enrols). The default, the focused button and Escape, is "No": nothing is
recorded and the reviewer stays where they were.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from abp_tui.text.safe import safe_line


class JoinDesignScreen(ModalScreen[bool]):
    """Ask whether to join an open design (True) or not (False, the default)."""

    CSS_PATH: ClassVar = ["../styles/dialogs.tcss", "../styles/join_design.tcss"]
    AUTO_FOCUS = "#no"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,n",
            "choose(False)",
            "No",
            id="join_design.no",
            tooltip="Do not join: nothing is recorded.",
        ),
        Binding(
            "y",
            "choose(True)",
            "Yes, join",
            id="join_design.yes",
            tooltip="Join the design and judge its items.",
        ),
    ]

    def __init__(self, reviewer: str, design: str, items: int) -> None:
        super().__init__()
        self.reviewer = reviewer
        self.design = design
        self.items = items

    def compose(self) -> ComposeResult:
        items = f"{self.items} item{'s' if self.items != 1 else ''}"
        with Vertical(classes="dialog"):
            yield Static(Text("Join this study design?", style="bold"), classes="dialog-title")
            yield Static(
                Text.assemble(
                    "Join ",
                    (safe_line(self.design), "bold"),
                    " as ",
                    (safe_line(self.reviewer), "bold"),
                    f" and judge its {items}? It is an open design: joining gives you its items "
                    "for good, and you could then no longer adjudicate items you have not judged "
                    "nor see the study's figures as its coordinator.",
                ),
                id="join-design-text",
                classes="dialog-text",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("No (esc)", id="no", variant="primary")
                yield Button("Yes, join (y)", id="yes", variant="warning")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id == "yes")

    def action_choose(self, join: bool) -> None:
        self.dismiss(join)


def ask_to_join(
    app: App[Any], reviewer: str, design: str, items: int, join: Callable[[], None]
) -> None:
    """Run ``join`` (open the design, which enrols ``reviewer``) once they said yes. On the UI
    thread."""

    def answered(yes: bool | None) -> None:
        if yes:
            join()

    app.push_screen(JoinDesignScreen(reviewer, design, items), answered)


__all__ = ["JoinDesignScreen", "ask_to_join"]
