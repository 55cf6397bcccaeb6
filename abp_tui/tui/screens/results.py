"""The results screen: a design's results by condition, only after the study is unblinded.

While the study is blind the screen says so and offers the unblind action, which asks for the
study id to be typed (:class:`UnblindScreen`) and is recorded in the audit log as the current
reviewer. On a reviewer station (a study opened from a reviewer pack) the action is never offered
and the core refuses it anyway. A reviewer with items of the study still to submit is shown why
the results are held back from them instead of the figures, as the ranking panel below says why
it is. Once unblinded: a bar chart of pass rates with their Wilson
intervals, all six result states, fatal failures, acceptance, rubric dimensions, paired
comparisons, efficiency and position bias, every proportion as x/n. The figures come from
:func:`abp_tui.services.results_report.compute_results` (as ``abp-tui results``) and are drawn in a
worker. A study with automated outcomes and no design is offered too (a choice without a design):
its results are those of its automated outcomes alone, with the automated judge's table when it
scored the runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Header, Input, Static
from textual.worker import get_current_worker

from abp_tui.analysis.results.watching import watch_lines
from abp_tui.services.coordinator import (
    DesignChoice,
    ResultsView,
    read_choice_results,
    unblind_study,
)
from abp_tui.services.ranking_view import labels_only_view
from abp_tui.services.roles import may, refusal
from abp_tui.text.hints import command, quoted
from abp_tui.text.safe import safe_line
from abp_tui.tui.charts import results_body, results_heading
from abp_tui.tui.messages import ResultsComputed, StudyUnblinded, WorkerFailed
from abp_tui.tui.screens.base import DesignScreen
from abp_tui.tui.widgets.keybar import KeyBar
from abp_tui.tui.widgets.ranking_chart import RankingPanel
from abp_tui.tui.workers import background


class UnblindScreen(ModalScreen[bool]):
    """Confirm an unblinding by typing the study id; Escape or Cancel leaves it blind."""

    CSS_PATH = "../styles/review_dialogs.tcss"
    AUTO_FOCUS = "#confirm-study"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "cancel",
            "Cancel",
            id="unblind.cancel",
            tooltip="Leave the study blind and go back.",
        ),
    ]

    def __init__(self, study_id: str, actor: str, *, ranked_only: bool = False) -> None:
        super().__init__()
        self.study_id = study_id
        self.actor = actor
        self.ranked_only = ranked_only
        """Imported labels and no design: what unblinding reveals is the systems' ranking."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Text.assemble(("Unblind study ", "bold"), (safe_line(self.study_id), "bold")),
                classes="dialog-title",
            )
            yield Static(
                Text.assemble(
                    "Unblinding shows "
                    + (
                        "the ranking of its systems (it names them)"
                        if self.ranked_only
                        else "this study's results by condition"
                    )
                    + " to everyone who uses this database. It cannot be undone. It is "
                    "recorded in the audit log as ",
                    (safe_line(self.actor), "bold"),
                    " with the time.\n\n"
                    + (
                        "If people are to judge this study blind, let them judge first: once "
                        "the ranking is visible, their judgments are no longer blind."
                        if self.ranked_only
                        else "Reviewers still judging should finish first: once results are "
                        "visible, a judgment is no longer blind."
                    ),
                ),
                classes="dialog-text",
            )
            yield Input(
                placeholder=f"Type {safe_line(self.study_id)} to confirm", id="confirm-study"
            )
            yield Static("", id="confirm-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Unblind", id="unblind", variant="error")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted, "#confirm-study")
    @on(Button.Pressed, "#unblind")
    def confirm(self) -> None:
        typed = self.query_one("#confirm-study", Input).value.strip()
        if typed != self.study_id:
            self.query_one("#confirm-error", Static).update(
                Text(
                    "Type the study id exactly to confirm: "
                    + safe_line(self.study_id)
                    + (" (that was something else)." if typed else ".")
                )
            )
            self.query_one("#confirm-study", Input).focus()
            return
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


@dataclass(frozen=True)
class ShownResults:
    view: ResultsView
    heading: Text
    body: RenderableType | None
    ranking_only: bool = False
    """An unblinded study with imported labels and no design: no results by condition, only
    its ranking."""
    ranking: RankingPanel.Computed | None = None
    """The ranking below the results, computed in the same worker once they may be shown."""

    @property
    def blind(self) -> bool:
        """No results by condition are shown (blind, a station, or held back)."""
        return self.view.blind and not self.ranking_only

    @property
    def ranked(self) -> bool:
        """The ranking panel is computed: it shows the ranking, or says why not (held back
        from a reviewer still judging, as the results above are)."""
        return not self.blind or self.view.held_back


def build_ranking_only(db_path: Path, choice: DesignChoice) -> ShownResults:
    view, open_ = labels_only_view(db_path, choice)
    heading = Text.assemble(
        (safe_line(choice.study_id), "bold"),
        ": no study design, so no results by condition; "
        + (
            "the ranking of its imported preferences follows (as `abp-tui ranking`)."
            if open_
            else "its imported preferences are ranked once the study is unblinded."
        ),
    )
    return ShownResults(view, heading, None, ranking_only=open_)


def build(view: ResultsView) -> ShownResults:
    if view.report is None:
        return ShownResults(view, Text(safe_line(view.design.label), style="bold"), None)
    heading = results_heading(view.report)
    if view.report.warnings:  # unmatched models lead (seed 003 section 7)
        heading = Text("\n").join(
            [*(Text(safe_line(w), style="bold reverse") for w in view.report.warnings), heading]
        )
    watching = watch_lines(view.watch) if view.watch is not None else None
    body = results_body(view.report, watching)
    return ShownResults(view, heading, body)


class ResultsScreen(DesignScreen):
    """Results of one design by condition, after an explicit, audited unblinding."""

    CSS_PATH = "../styles/results.tcss"
    AUTO_FOCUS = "#results-scroll"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "u",
            "unblind",
            "Unblind",
            id="results.unblind",
            tooltip="Unblind this study (asks you to type its id; recorded in the audit log).",
        ),
        Binding(
            "s",
            "next_source",
            "Ranking source",
            id="results.ranking_source",
            tooltip="Rank the systems from the study's next source of preferences "
            "(verdicts, labels, judge:ID).",
        ),
        Binding(
            "r",
            "reload",
            "Reload",
            id="results.reload",
            tooltip="Read the judgments again and recompute the results.",
        ),
        Binding(
            "escape",
            "back",
            "Back",
            key_display="esc",
            id="results.back",
            tooltip="Back to the previous screen.",
        ),
    ]

    def __init__(self, db_path: Path, design: DesignChoice, reviewer: str) -> None:
        super().__init__(db_path, design)
        self.reviewer = reviewer
        self.shown: ShownResults | None = None
        named = design.name if design.pk is not None else None
        self.ranking = RankingPanel(db_path, design.study_id, named, reviewer)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Reading the results…"), id="results-summary")
        yield Static("", id="blind")
        with VerticalScroll(id="results-scroll"):
            yield Static("", id="results-body")
            yield self.ranking
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "unblind":
            view = self.shown.view if self.shown is not None else None
            blind = self.shown is not None and self.shown.blind
            return (
                view is not None
                and blind
                and not view.design.is_station
                and not view.held_back
                and may("unblind")  # a team's reviewer or adjudicator: not theirs to do
            )
        if action == "next_source":
            return len(self.ranking.sources) > 1
        return True

    # -- reading (worker) -------------------------------------------------------------------
    @background(group="results", description="Computing the results", exclusive=True)
    def load(self) -> None:
        # A choice without a design is a study's automated outcomes, or its imported labels
        # (ranked only).
        if self.design.pk is None and not self.design.is_automated:
            shown = build_ranking_only(self.db_path, self.design)
        else:
            shown = build(read_choice_results(self.db_path, self.design, self.reviewer))
        if shown.ranked:
            shown = replace(shown, ranking=self.ranking.computed())
        if not get_current_worker().is_cancelled:
            self.post_message(ResultsComputed(shown))

    @on(WorkerFailed)
    def failed(self, message: WorkerFailed) -> None:
        # The app shows the failure itself; the summary line says it too.
        self.query_one("#results-summary", Static).update(
            Text.assemble(("Cannot show the results: ", "bold red"), safe_line(message.reason))
        )

    @on(ResultsComputed)
    def computed(self, message: ResultsComputed) -> None:
        self.shown = message.shown
        view = message.shown.view
        # Held back: the reason in place of the results, the ranking panel's own reason below.
        held = message.shown.view.held_back
        self.set_class(message.shown.blind and not held, "-blind")
        self.set_class(held, "-held-back")
        self.query_one("#results-summary", Static).update(message.shown.heading)
        blind = self.query_one("#blind", Static)
        if message.shown.blind:
            study = safe_line(view.design.study_id)
            if view.design.is_station or held:
                text = Text.assemble(
                    ("The results are not shown. ", "bold"), safe_line(view.blind_reason)
                )
            elif not may("unblind"):  # said as the core would refuse it, before any key
                refused = refusal("unblind")
                text = Text.assemble(
                    (f"Study {study} is still blind. ", "bold"), safe_line(str(refused))
                )
            else:
                # Imported labels and no design: nothing but the ranking to unblind.
                ranked_only = view.design.pk is None and not view.design.is_automated
                text = Text.assemble(
                    (f"Study {study} is still blind.", "bold"),
                    (
                        " The ranking of its systems (it names them) appears"
                        if ranked_only
                        else " Results by condition appear"
                    ),
                    " only after an explicit unblinding: it shows every "
                    + ("system's ranking" if ranked_only else "condition's results")
                    + " to everyone using this database, cannot be undone, and is recorded in "
                    "the audit log with who and when.\n\nPress u to unblind as ",
                    (safe_line(self.reviewer), "bold"),
                    " (you will be asked to type the study id), or run this command:\n",
                    (
                        safe_line(
                            command(
                                f"unblind --study {quoted(study)} --yes "
                                f"--reviewer {quoted(self.reviewer)}",
                                self.db_path,
                            )
                        ),
                        "bold",
                    ),
                )
            blind.update(text)
            self.query_one("#results-body", Static).update("")
            if message.shown.ranked:
                self.ranking.show(message.shown.ranking)
        else:
            blind.update("")
            self.query_one("#results-body", Static).update(message.shown.body or "")
            self.ranking.show(message.shown.ranking)
        self.refresh_bindings()

    # -- unblinding -------------------------------------------------------------------------
    def action_unblind(self) -> None:
        view = self.shown.view if self.shown is not None else None
        if view is None or self.shown is None or not self.shown.blind:
            return
        if view.design.is_station or view.held_back:
            self.notify(safe_line(view.blind_reason), severity="warning", markup=False)
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.unblind(view.design.study_id)

        ranked_only = view.design.pk is None and not view.design.is_automated
        self.app.push_screen(
            UnblindScreen(view.design.study_id, self.reviewer, ranked_only=ranked_only), confirmed
        )

    @background(group="results-unblind", description="Unblinding the study", exclusive=True)
    def unblind(self, study_id: str) -> None:
        who, when = unblind_study(self.db_path, study_id, self.reviewer)
        self.post_message(StudyUnblinded(who, when))

    @on(StudyUnblinded)
    def unblinded(self, message: StudyUnblinded) -> None:
        self.notify(
            f"{safe_line(self.design.study_id)} unblinded by {safe_line(message.who)} at "
            f"{safe_line(message.when)} (recorded in the audit log).",
            title="Unblinded",
            markup=False,
        )
        self.load()

    @on(RankingPanel.Computed)
    def ranked(self) -> None:
        self.refresh_bindings()  # the source key, when the study holds several

    def action_next_source(self) -> None:
        self.ranking.next_source()

    def action_reload(self) -> None:
        self.load()

    def action_back(self) -> None:
        self.dismiss(None)
