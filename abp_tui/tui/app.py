"""The Textual application: the factory the CLI and the tests use, app-wide keys and the help.

The app only shows what the core reads from the store; it never runs SQL and never parses input
files itself. Screens load their data in worker threads and receive it as messages.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from abp_tui.textsafe import safe_line
from abp_tui.tui.screens.help import HelpScreen, KeyHelp
from abp_tui.tui.screens.home import HomeScreen

DEFAULT_REVIEWER = "demo"


class AbpApp(App[None]):
    """The adjudication workstation. Opens on the home screen (the list of studies)."""

    CSS_PATH = "styles/app.tcss"
    TITLE = "abp-tui"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "q",
            "quit",
            "Quit",
            id="app.quit",
            tooltip="Leave abp-tui. Everything is read from and saved to the database file.",
        ),
        Binding(
            "question_mark",
            "help",
            "Keys",
            key_display="?",
            id="app.help",
            tooltip="List every key of the current screen and what it does.",
        ),
    ]

    def __init__(self, db_path: Path, reviewer: str) -> None:
        super().__init__()
        self.db_path = db_path
        self.reviewer = reviewer

    def on_mount(self) -> None:
        self.sub_title = f"reviewer: {safe_line(self.reviewer)}"
        self.push_screen(HomeScreen(self.db_path))

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        grouped: dict[tuple[str, str], list[str]] = {}
        tooltips: dict[tuple[str, str], str] = {}
        # This workstation's own keys (they all have ids) first, then the widgets' standard keys.
        active_bindings = sorted(
            self.screen.active_bindings.values(), key=lambda active: active.binding.id is None
        )
        for active in active_bindings:
            binding = active.binding
            if not binding.description or binding.system:
                continue
            group = (binding.action, binding.description)
            grouped.setdefault(group, []).append(self.get_key_display(binding))
            tooltips.setdefault(group, binding.tooltip or active.tooltip)
        keys = [
            KeyHelp(keys=tuple(shown), description=group[1], tooltip=tooltips[group])
            for group, shown in grouped.items()
        ]
        self.push_screen(HelpScreen(keys))


def make_app(db_path: Path, reviewer: str | None = None) -> App[None]:
    """The workstation on the database at ``db_path``, judging as ``reviewer`` (default "demo")."""
    return AbpApp(db_path=db_path, reviewer=reviewer or DEFAULT_REVIEWER)
