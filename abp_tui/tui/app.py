"""The Textual application: the factory the CLI and the tests use, app-wide keys and the help.

The app only shows what the core reads from the store; it never runs SQL and never parses input
files itself. Screens load their data in worker threads and receive it as messages; a worker
that fails, on any screen, ends in the app's one handler (:meth:`AbpApp.show_failure`), which
shows it the same way everywhere and keeps the app running.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import events, on
from textual.app import App
from textual.binding import Binding, BindingType

from abp_tui.services.roles import signed_in
from abp_tui.text.safe import safe_line
from abp_tui.tui import typing_guard
from abp_tui.tui.commands import JudgeCommands, ReviewCommands
from abp_tui.tui.messages import WorkerFailed
from abp_tui.tui.responsive import COLLECTOR_HELD_AT_MOST, release_collector
from abp_tui.tui.screens.designs import open_judging, open_review_screen
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.unsaved import GuardsLeaving, UnsavedScreen
from abp_tui.tui.typing_shield import HoldsBackTyping
from abp_tui.tui.workers import run_in_background

DEFAULT_REVIEWER = "demo"


class AbpApp(App[None]):
    """The adjudication workstation.

    Opens on the compare screen at the reviewer's resume item when there is a study design they
    can judge (assigned to them, or open), with the home screen (the list of studies) beneath it;
    otherwise on the home screen.
    """

    # The first screens' styles too (the compare screen, the home screen beneath it): a screen
    # with a style sheet of its own makes Textual parse every rule again and restyle every
    # widget as it is pushed; given here they are parsed once, as the app starts. Their screens
    # keep naming them (another app showing them alone reads them then), in the same order.
    CSS_PATH: ClassVar = ["styles/app.tcss", "styles/home.tcss", "styles/compare.tcss"]
    TITLE = "abp-tui"
    COMMANDS = App.COMMANDS | {JudgeCommands, ReviewCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "q",
            "quit",
            "Quit",
            id="app.quit",
            tooltip="Leave abp-tui (work is saved as you go; asks first if a save failed).",
        ),
        Binding(
            "question_mark",
            "help",
            "Keys",
            key_display="?",
            id="app.help",
            tooltip="List every key of the current screen and what it does.",
        ),
        Binding(
            "j",
            "judge",
            "Judge",
            show=True,
            id="app.judge",
            tooltip="Judge your next study design, where you left off (blind).",
        ),
        Binding(
            "a",
            "review('disagreements')",
            "Disagreements",
            show=True,
            id="app.disagreements",
            tooltip="List the items whose reviewers disagree, and adjudicate them.",
        ),
        Binding(
            "k",
            "review('agreement')",
            "Agreement",
            show=True,
            id="app.agreement",
            tooltip="Agreement between reviewers, with denominators and confusion heat maps.",
        ),
        Binding(
            "v",
            "review('results')",
            "Results",
            show=True,
            id="app.results",
            tooltip=(
                "Results by condition, or the ranking of imported preferences (shown only "
                "after an audited unblinding)."
            ),
        ),
    ]

    def __init__(self, db_path: Path, reviewer: str) -> None:
        super().__init__()
        self.db_path = db_path
        self.reviewer = reviewer
        self.failures: list[WorkerFailed] = []
        """Every worker failure shown since the app started (the tests read it too)."""
        self.lost_work: list[str] = []
        """Work a closing screen could not store (the CLI prints it and exits with status 1)."""
        self.home: HomeScreen | None = None
        self._early_keys: list[tuple[str, str | None, float]] | None = []
        """Keys typed before the first screen is there (None once it is)."""

    @on(WorkerFailed)
    def show_failure(self, message: WorkerFailed) -> None:
        """A worker failed somewhere: say what and why (a screen may also say it in its own
        status line)."""
        self.failures.append(message)
        reason = safe_line(message.reason)
        if message.internal:
            self.notify(
                f"{reason}\nThis is a bug; your saved work is in the database. Run with "
                "ABP_TUI_DEBUG=1 to see the traceback.",
                title=f"Internal error: {message.description}",
                severity="error",
                timeout=20,
                markup=False,
            )
        else:
            self.notify(
                reason,
                title=f"{message.description} failed",
                severity="error",
                timeout=10,
                markup=False,
            )

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and self._early_keys is not None:
            # Typed before the first screen is there: kept for it, in order, with their time.
            self._early_keys.append((event.key, event.character, typing_guard.CLOCK()))
            return
        # Before any key binding: the compare and adjudication screens may hold back keys typed
        # as text outside a text field (they would otherwise score, submit or leave the screen).
        if (
            isinstance(event, events.Key)
            and not event.is_forwarded
            and isinstance(self.screen, HoldsBackTyping)
            and self.screen.holds_back(event)
        ):
            return
        await super().on_event(event)

    def leave_guarded(self, then: Callable[[], None], *, whole_stack: bool = True) -> None:
        """Run ``then`` once every screen that may hold unsaved work (a draft the database
        refused, an unrecorded adjudication, changes to a submitted judgment) has asked its
        question: the top one first (``whole_stack`` False: the current screen only)."""
        if isinstance(self.screen, UnsavedScreen):
            return  # the question is on the screen already (ctrl+q reaches the app from it)
        stack = reversed(self.screen_stack) if whole_stack else [self.screen]
        guards = [screen for screen in stack if isinstance(screen, GuardsLeaving)]

        def step(index: int) -> None:
            if index == len(guards):
                then()
            else:
                guards[index].leave_then(lambda: step(index + 1))

        step(0)

    async def action_quit(self) -> None:
        # Every screen beneath the current one closes too: each is asked, never lost silently.
        self.leave_guarded(self.exit)

    def on_mount(self) -> None:
        # The collector held back as the workstation started runs again by then at the latest.
        self.set_timer(COLLECTOR_HELD_AT_MOST, release_collector, name="collector")
        self.sub_title = f"reviewer: {safe_line(self.reviewer)}"
        member = signed_in()
        if member is not None:  # a team session: the key's person, in their role
            self.sub_title += f" ({member.role} of the team)"
        # The first screen is pushed once the reviewer's design is looked up: the compare
        # screen with the home screen (the list of studies) beneath it, whose widgets are built
        # and studies read only when it is shown; or the home screen alone.
        open_judging(
            self, self.db_path, self.reviewer, None, then=self._home_shown, beneath=self._push_home
        )

    def _push_home(self) -> HomeScreen:
        """The home screen, at the bottom of the stack (pushed the first time it is asked for,
        just before the first item's screen if there is one); the keys typed until then go to
        the screen on top once it is there."""
        if self.home is None:
            self.home = HomeScreen(self.db_path, later=True)
            self.push_screen(self.home)
            self.call_next(self._pass_early_keys)
        return self.home

    def _home_shown(self) -> None:
        """The look-up of the first screen is over: the home screen is shown unless an item is."""
        self._push_home().when_shown()
        self.set_timer(FIGURES_LOADED_AFTER, self._load_figures, name="figures")

    def _load_figures(self) -> None:
        run_in_background(
            self, _import_figures, group="figures", description="Loading the figures' screens"
        )

    def _pass_early_keys(self) -> None:
        keys, self._early_keys = self._early_keys or [], None
        if isinstance(self.screen, HoldsBackTyping):
            self.screen.typed_before(keys)  # with their time: the typing guard judges them
        else:
            for key, character, _ in keys:
                self.post_message(events.Key(key, character))

    def open_judging(
        self, design_pk: int | None, *, include_open: bool = False, study: str | None = None
    ) -> None:
        """Open the compare screen on a design (None: the reviewer's next one, if any)."""

        def go() -> None:
            open_judging(
                self, self.db_path, self.reviewer, design_pk, include_open=include_open, study=study
            )

        if design_pk is None:
            go()  # never replaces the screen shown: it opens over it, or not at all
        else:
            self.leave_guarded(go, whole_stack=False)  # replaces a compare screen shown

    def action_judge(self) -> None:
        self.open_judging(None, include_open=True)

    def action_review(self, purpose: str) -> None:
        """Open the disagreements, agreement or results screen on the current study design."""
        self.leave_guarded(
            lambda: open_review_screen(self, self.db_path, self.reviewer, purpose),
            whole_stack=False,
        )

    def action_help(self) -> None:
        from abp_tui.tui.screens.help import HelpScreen, KeyHelp  # when the help is first asked

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
        self.push_screen(HelpScreen(keys, getattr(self.screen, "HELP_HINTS", ())))


FIGURES_LOADED_AFTER = 2.0
"""Seconds after the first screen is shown when the disagreements, agreement and results
screens and the statistics they compute with (SciPy) are imported, in a worker thread: the
first `a`, `k` or `v` then opens at once rather than after about two seconds of imports, and
the first screen never waits for them."""


def _import_figures() -> None:
    """Import the modules the figures' screens need (each once per process)."""
    import abp_tui.tui.screens.agreement
    import abp_tui.tui.screens.disagreements
    import abp_tui.tui.screens.results  # noqa: F401


def make_app(db_path: Path, reviewer: str | None = None) -> AbpApp:
    """The workstation on the database at ``db_path``, judging as ``reviewer`` (default "demo")."""
    return AbpApp(db_path=db_path, reviewer=reviewer or DEFAULT_REVIEWER)
