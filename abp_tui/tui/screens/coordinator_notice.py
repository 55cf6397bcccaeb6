"""The question asked before someone first sees a study's coordinator figures.

Whoever could still join an open design of a study and opens its agreement, disagreements,
results or AI judges' report becomes, for good, its coordinator: their look is recorded and
they may never judge its designs (:mod:`abp_tui.services.coordinator_identity`). In the demo a
reviewer pressing ``k`` before judging lost their queue without a word. Now
:func:`ask_before_viewing` reads (off the UI thread) whether the look would be the first one
recorded and, if so, asks with :class:`CoordinatorNoticeScreen` before the screen opens; only
"view as coordinator" opens it (and its service records the look). The default, the focused
button and Escape, is the choice that changes nothing: go back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from abp_tui.services.coordinator_notice import view_notice
from abp_tui.tui.workers import run_in_background


class CoordinatorNoticeScreen(ModalScreen[bool]):
    """Ask whether to view a study's figures as its coordinator (True) or go back (False)."""

    CSS_PATH: ClassVar = ["../styles/dialogs.tcss", "../styles/coordinator_notice.tcss"]
    AUTO_FOCUS = "#go-back"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,b",
            "choose(False)",
            "Go back",
            id="coordinator_notice.back",
            tooltip="Go back without seeing the figures: you can still judge this study.",
        ),
        Binding(
            "c",
            "choose(True)",
            "View as coordinator",
            id="coordinator_notice.view",
            tooltip="See the figures; you will not be able to judge this study's open designs.",
        ),
    ]

    def __init__(self, notice: str) -> None:
        super().__init__()
        self.notice = notice
        """The service's sentence (record text already made safe); shown as text, never markup."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("View as coordinator?", style="bold"), classes="dialog-title")
            yield Static(
                Text.assemble(
                    (self.notice, "bold"),
                    "\n\nThese figures summarize other people's judgments; someone who has seen "
                    "them would no longer judge independently. Go back to judge first.",
                ),
                id="coordinator-notice-text",
                classes="dialog-text",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Go back (esc)", id="go-back", variant="primary")
                yield Button("View as coordinator (c)", id="view", variant="warning")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id == "view")

    def action_choose(self, view: bool) -> None:
        self.dismiss(view)


def ask_before_viewing(
    app: App[Any],
    db_path: Path,
    viewer: str | None,
    figure: str,
    study: str | None,
    design_pk: int | None,
    show: Callable[[], None],
) -> None:
    """Run ``show`` (open the screen of ``figure``) once ``viewer`` has agreed to become the
    study's coordinator, or at once when opening it changes nothing for them."""

    def find() -> None:
        notice = view_notice(db_path, viewer, figure, study, design_pk)
        app.call_from_thread(ask_then, app, notice, show)

    run_in_background(
        app, find, group="coordinator-notice", description="Reading the study", exclusive=True
    )


def ask_then(app: App[Any], notice: str | None, show: Callable[[], None]) -> None:
    """Run ``show`` at once (``notice`` None: nothing to ask), or once the viewer has chosen to
    view as coordinator. On the UI thread."""
    if notice is None:
        show()
        return

    def answered(view: bool | None) -> None:
        if view:
            show()

    app.push_screen(CoordinatorNoticeScreen(notice), answered)


__all__ = ["CoordinatorNoticeScreen", "ask_before_viewing", "ask_then"]
