"""Opening screens on a study design: the compare screen (judging) and the coordinator's
screens (disagreements, agreement, results).

Judging opens the reviewer's best design (assigned to them, with work left) or the one asked
for. A coordinator's screen opens on the design the current screen is about (the study
highlighted on the home screen, the design being judged or inspected); when that leaves a
choice, a small dialog lists the designs. The designs are read in a worker thread. What only a
coordinator's screen, a dialog or the queue needs is imported when it is first used, not with
the workstation's first screen.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from abp_tui.services.desk import Desk, JudgeableDesign, judgeable_designs
from abp_tui.text.hints import command
from abp_tui.text.safe import safe_line
from abp_tui.tui.opening import FirstItem
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.workers import EXPECTED_ERRORS, run_in_background

if TYPE_CHECKING:
    from abp_tui.services.design_choices import BlindingError, DesignChoice

PURPOSES: dict[str, str] = {
    "disagreements": "Disagreements and adjudication",
    "agreement": "Agreement between reviewers",
    "results": "Results by condition",
}


class DesignPickerScreen(ModalScreen["DesignChoice | None"]):
    """Choose the study design a coordinator's screen should show."""

    CSS_PATH = "../styles/review_dialogs.tcss"
    AUTO_FOCUS = "#designs"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "cancel",
            "Back",
            id="designs.cancel",
            tooltip="Close this list without opening anything.",
        ),
    ]

    def __init__(self, purpose: str, choices: list[DesignChoice]) -> None:
        super().__init__()
        self.purpose = purpose
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Text(f"{PURPOSES.get(self.purpose, self.purpose)}: which study design?", "bold"),
                classes="dialog-title",
            )
            yield OptionList(
                *(Option(Text(safe_line(c.label)), id=str(i)) for i, c in enumerate(self.choices)),
                id="designs",
            )
            yield Static(
                Text("Enter opens the highlighted design; Escape goes back.", style="dim"),
                classes="dialog-text",
            )

    def on_mount(self) -> None:
        # The first study's design created last is highlighted: the one a command takes
        # without --design (the list stays in order of names).
        first = self.choices[0].study_id if self.choices else None
        made = [(c.pk, i) for i, c in enumerate(self.choices) if c.study_id == first and c.pk]
        if made:
            self.query_one("#designs", OptionList).highlighted = max(made)[1]

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[int(event.option.id or 0)])

    def action_cancel(self) -> None:
        self.dismiss(None)


# -- judging -------------------------------------------------------------------------------------
def open_judging(
    app: App[None],
    db_path: Path,
    reviewer: str,
    design_pk: int | None,
    *,
    include_open: bool = False,
    study: str | None = None,
    then: Callable[[], None] | None = None,
    beneath: Callable[[], object] | None = None,
) -> None:
    """Open the compare screen on ``design_pk`` (None: the reviewer's best design, if any).

    Unasked (``include_open`` False, at start-up) only designs that name the reviewer or that
    they already joined are opened; ``study`` limits the choice to one study's designs.

    The designs are read in a worker thread; with none to judge nothing happens (``design_pk``
    None) or the reviewer is told (a design was asked for). ``then`` runs on the app's thread
    once the look-up is over, whatever it opened (nothing, or after the screen it pushed);
    ``beneath`` runs just before the compare screen is pushed (it may push a screen under it).
    """
    if design_pk is None and _judging(app.screen):
        if then is not None:
            then()
        return

    def find() -> None:
        try:
            look_up()
        finally:
            if then is not None:
                app.call_from_thread(then)

    def look_up() -> None:
        try:
            designs = judgeable_designs(db_path, reviewer)
        except EXPECTED_ERRORS:
            if design_pk is None:
                return  # at start-up: the home screen shows what is wrong with the database
            raise
        if design_pk is not None:
            chosen = [d for d in designs if d.pk == design_pk]
        else:
            # Opening an open design enrols its reviewer, which must be their own choice (an
            # adjudicator who was enrolled could no longer adjudicate items they have not judged).
            chosen = [
                d
                for d in designs
                if (include_open or d.assigned or d.joined)
                and (study is None or d.study_id == study)
            ]
        if not chosen:
            if design_pk is not None or include_open:
                why = (
                    f"{safe_line(reviewer)} cannot judge that study design."
                    if design_pk is not None
                    else _nothing_to_judge(db_path, reviewer, study)
                )
                app.call_from_thread(
                    app.notify,
                    why,
                    severity="warning",
                    markup=False,
                )
            return
        # Refused before any screen opens: the reviewer stays where they were, told why.
        pick = _first_allowed(db_path, reviewer, chosen)
        desk = Desk(db_path, pick.pk, reviewer)
        if (pick.assigned or pick.joined) and beneath is not None:
            # At start-up the first item is read here, before its screen is pushed.
            first = FirstItem(desk, lambda read: _judge(app, desk, pick.study_id, beneath, read))
            app.call_from_thread(first.start, app)
            try:
                first.read()
            finally:  # read or not (a bug), the screen is pushed: unread, it reads it itself
                app.call_from_thread(first.arrived)
        elif pick.assigned or pick.joined:
            app.call_from_thread(_judge, app, desk, pick.study_id, beneath)
        else:  # opening it enrols the reviewer: their own choice, asked first ("No" by default)
            from abp_tui.tui.screens.join_design import ask_to_join

            app.call_from_thread(
                ask_to_join,
                app,
                reviewer,
                pick.label,
                pick.total,
                lambda: _judge(app, desk, pick.study_id, beneath),
            )

    run_in_background(
        app, find, group="open-judging", description="Reading the study designs", exclusive=True
    )


def _judging(screen: object) -> bool:
    """Whether ``screen`` is the compare screen or its queue (the queue's module is imported
    when the queue is first opened: before, no screen can be one)."""
    queue = sys.modules.get("abp_tui.tui.screens.queue")
    return isinstance(screen, CompareScreen) or (
        queue is not None and isinstance(screen, queue.QueueScreen)
    )


def _nothing_to_judge(db_path: Path, reviewer: str, study: str | None) -> str:
    """Why ``reviewer`` has nothing to judge (in ``study``), and what to do about it."""
    from abp_tui.services.design_choices import design_choices

    who = safe_line(reviewer)
    if study is None:
        return f"{who} has no study design to judge: none names {who} and none is open to anyone."
    if not any(c.study_id == study and c.pk is not None for c in design_choices(db_path)):
        return f"Study {safe_line(study)} has no study design yet: press n to create one."
    return (
        f"{who} cannot judge study {safe_line(study)}: its designs name their reviewers and "
        f"{who} is not one of them."
    )


def _first_allowed(db_path: Path, reviewer: str, chosen: list[JudgeableDesign]) -> JudgeableDesign:
    """The first design the reviewer may open: joining an open design is refused to whoever has
    seen its study's coordinator figures (the first refusal is raised when all are refused)."""
    refusal: BlindingError | None = None
    for design in chosen:
        if design.assigned or design.joined:
            return design  # opening it enrols nobody
        from abp_tui.services.coordinator_notice import check_judging
        from abp_tui.services.design_choices import BlindingError

        try:
            check_judging(db_path, design.pk, reviewer)
        except BlindingError as exc:
            refusal = refusal or exc
            continue
        return design
    assert refusal is not None
    raise refusal


def _judge(
    app: App[None],
    desk: Desk,
    study: str,
    beneath: Callable[[], object] | None = None,
    first: FirstItem | None = None,
) -> None:
    while _judging(app.screen):
        app.pop_screen()
    home = beneath() if beneath is not None else None
    for screen in [*app.screen_stack, home]:
        if isinstance(screen, HomeScreen):
            screen.follow(study)  # back home, the study just judged is the one highlighted
            break
    app.push_screen(CompareScreen(desk, first=first))


# -- the coordinator's screens ---------------------------------------------------------------------
def _hint(screen: Screen[object]) -> tuple[str | None, int | None]:
    """(study id, design key) the screen is about, as far as it says."""
    pk = getattr(screen, "design_pk", None)
    if pk is None:
        desk = getattr(screen, "desk", None)
        pk = getattr(desk, "design_pk", None)
    study = getattr(screen, "study_id", None) or getattr(screen, "shown_study", None)
    return (study if isinstance(study, str) else None, pk if isinstance(pk, int) else None)


def open_for_design(
    app: App[None],
    db_path: Path,
    purpose: str,
    opener: Callable[[DesignChoice], Screen[None]],
    viewer: str | None = None,
) -> None:
    """Open ``opener(design)`` for the design the current screen is about, asking if needed
    (which design; and, before ``viewer``'s first look at a study's figures, whether to view
    them as its coordinator)."""
    from abp_tui.services.coordinator_notice import view_notices
    from abp_tui.services.design_choices import design_choices
    from abp_tui.tui.screens.coordinator_notice import ask_then

    study, pk = _hint(app.screen)
    notices: dict[DesignChoice, str | None] = {}

    def show(choice: DesignChoice) -> None:
        def push() -> None:
            app.push_screen(opener(choice))

        ask_then(app, notices.get(choice), push)

    def find() -> None:
        choices = design_choices(
            db_path,
            imported_labels=purpose in ("agreement", "results"),
            automated=purpose == "results",
        )
        places = [(c.study_id, c.pk) for c in choices]
        notices.update(zip(choices, view_notices(db_path, viewer, purpose, places), strict=True))
        app.call_from_thread(_choose, app, db_path, purpose, choices, study, pk, show)

    run_in_background(
        app, find, group="open-design", description="Reading the study designs", exclusive=True
    )


def _choose(
    app: App[None],
    db_path: Path,
    purpose: str,
    choices: list[DesignChoice],
    study: str | None,
    pk: int | None,
    show: Callable[[DesignChoice], None],
) -> None:
    if not choices:
        app.notify(
            "No study design yet. Create one on the home screen (h, then n), or with: "
            f"{command('study create --study STUDY', db_path)} (or a DESIGN.toml file; see "
            "docs/designs.md).",
            title=PURPOSES.get(purpose, purpose),
            severity="warning",
            markup=False,
            timeout=10,
        )
        return
    exact = [c for c in choices if pk is not None and c.pk == pk]
    of_study = [c for c in choices if study is not None and c.study_id == study]
    candidates = exact or of_study or choices
    if len(candidates) == 1:
        show(candidates[0])
        return
    # The study the user was looking at first, then the others.
    ordered = candidates + [c for c in choices if c not in candidates]

    def picked(choice: DesignChoice | None) -> None:
        if choice is not None:
            show(choice)

    app.push_screen(DesignPickerScreen(purpose, ordered), picked)


def open_review_screen(app: App[None], db_path: Path, reviewer: str, purpose: str) -> None:
    """Open the disagreement queue, the agreement or the results screen (``purpose``) on the
    design the current screen is about; nothing happens when that screen is already open."""
    from abp_tui.tui.screens.agreement import AgreementScreen
    from abp_tui.tui.screens.disagreements import DisagreementsScreen
    from abp_tui.tui.screens.results import ResultsScreen

    if purpose == "disagreements":
        if not isinstance(app.screen, DisagreementsScreen):
            open_for_design(
                app, db_path, purpose, lambda d: DisagreementsScreen(db_path, d, reviewer), reviewer
            )
    elif purpose == "agreement":
        if not isinstance(app.screen, AgreementScreen):
            open_for_design(app, db_path, purpose, lambda d: AgreementScreen(db_path, d), reviewer)
    elif purpose == "results":
        if not isinstance(app.screen, ResultsScreen):
            open_for_design(
                app, db_path, purpose, lambda d: ResultsScreen(db_path, d, reviewer), reviewer
            )
    else:
        raise ValueError(f"unknown screen {purpose!r}")
