"""The adjudication screen: a disputed item, every reviewer's judgment, and the final judgment.

Left: the task and the two responses, blind and swapped (the reverse of the placement the first
reviewer saw), above each reviewer's judgment side by side in this screen's positions, where the
rows that differ are marked. Reviewers are "Reviewer 1", "Reviewer 2" in the order they
submitted; a key shows their names, and whether names were shown is recorded with the
adjudication. Right: the final judgment (the compare screen's scoring widgets) and a mandatory
note. Recording appends an adjudication; the reviewers' judgments are never changed.

An adjudicator who is a reviewer of the item and has not submitted is refused (the core's
BlindingError) and sees nothing of the others' judgments. The screen never runs SQL; the
coordinator functions it calls run in worker threads.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Collapsible, Footer, Header, Input, Static
from textual.worker import get_current_worker

from abp_tui.analysis.scoring import problems, result_state, total
from abp_tui.errors import AbpError
from abp_tui.models import (
    VALIDITY_CHECKS,
    Judgment,
    PreferenceChoice,
    ResponseJudgment,
    Rubric,
)
from abp_tui.services.coordinator import (
    AdjudicationItem,
    BlindingError,
    DesignChoice,
    ReviewerJudgment,
    open_adjudication,
    record_adjudication,
)
from abp_tui.services.reviewing import BlindTask
from abp_tui.text.safe import safe_line, safe_text
from abp_tui.tui.screens.base import DesignScreen
from abp_tui.tui.widgets.response import ResponseView
from abp_tui.tui.widgets.scoring import ChoiceRow, GatePanel, PreferencePanel, ResponseScoring
from abp_tui.tui.widgets.textlayout import display_text

_ERRORS = (AbpError, sqlite3.Error, OSError)
PREFERENCE_TEXT = {
    PreferenceChoice.RESPONSE_1: "Response 1 is better",
    PreferenceChoice.RESPONSE_2: "Response 2 is better",
    PreferenceChoice.TIE: "Tie",
    PreferenceChoice.INSUFFICIENT: "Insufficient evidence",
}
NOTE_REQUIRED = "A note is required: say why this is the final judgment."


@dataclass(frozen=True)
class ShownAdjudication:
    """An item to adjudicate and its responses' texts in display form (prepared in a worker)."""

    item: AdjudicationItem
    texts: tuple[str, ...]


def _binding(
    key: str,
    action: str,
    description: str,
    tooltip: str,
    *,
    show: bool = True,
    name: str | None = None,
    key_display: str | None = None,
    priority: bool = False,
) -> Binding:
    """An adjudication-screen key; its id is ``adjudicate.`` + ``name`` or the action."""
    return Binding(
        key,
        action,
        description,
        show=show,
        key_display=key_display,
        priority=priority,
        id=f"adjudicate.{name or action}",
        tooltip=tooltip,
    )


# -- what the screen shows, as rich renderables (pure functions) ----------------------------------
def task_text(task: BlindTask) -> Text:
    body = Text()

    def section(label: str, value: str) -> None:
        if value.strip():
            if body:
                body.append("\n\n")
            body.append(f"{label}\n", style="bold")
            body.append(safe_text(value.strip()))

    section("Title", task.title)
    section("Prompt", task.prompt)
    section("Base instruction", task.base_instruction)
    section("Evidence", task.evidence)
    section("Expected behaviour (for the grader)", task.expected_behaviour)
    if task.fatal_criteria:
        body.append("\n\nFatal criteria\n", style="bold")
        body.append("\n".join(f"• {safe_line(c)}" for c in task.fatal_criteria))
    if not body:
        body = Text("This task has no prompt, evidence or criteria recorded.", style="dim")
    return body


def reviewer_heading(reviewer: ReviewerJudgment, show_names: bool) -> Text:
    text = Text(reviewer.label, style="bold")
    if show_names:
        text.append(f"\n{safe_line(reviewer.name)}", style="italic")
    if reviewer.revision > 1:
        text.append(f"\nrevision {reviewer.revision}", style="dim")
    return text


def _gate(judgment: Judgment) -> Text:
    if not judgment.validity:
        return Text("not answered", style="dim")
    failed = [key for key, ok in judgment.validity.items() if not ok]
    missing = [key for key, _ in VALIDITY_CHECKS if key not in judgment.validity]
    if failed:
        return Text("fails: " + ", ".join(failed), style="bold red")
    if missing:
        return Text(f"{len(missing)} not answered", style="dim")
    return Text(f"all {len(VALIDITY_CHECKS)} hold")


def _score(response: ResponseJudgment, dim_id: str) -> Text:
    score = response.scores.get(dim_id)
    if score is None:
        return Text("—", style="dim")
    text = Text(str(score), style="bold")
    rationale = response.rationales.get(dim_id, "").strip()
    if rationale:
        text.append("  ")
        text.append(safe_text(rationale), style="italic")
    return text


def _result(rubric: Rubric, response: ResponseJudgment) -> Text:
    state = result_state(rubric, response)
    if state is None:
        return Text("not decided", style="dim")
    text = Text(state.value, style="bold")
    if response.state_override is not None:
        text.append(" (override)", style="dim")
        if response.override_reason.strip():
            text.append("\n")
            text.append(safe_text(response.override_reason.strip()), style="italic")
    return text


def _fatal(response: ResponseJudgment) -> Text:
    if not response.fatal_hits:
        return Text("none", style="dim")
    return Text("\n".join(f"☒ {safe_line(h)}" for h in response.fatal_hits), style="red")


def judgments_table(item: AdjudicationItem, show_names: bool) -> Table:
    """Each reviewer's judgment in a column, rows in this screen's positions; a row whose
    answers differ is marked ``≠``."""
    table = Table(
        expand=True, show_lines=False, box=None, padding=(0, 1), header_style="bold", pad_edge=False
    )
    table.add_column("", no_wrap=True, width=24)
    for reviewer in item.reviewers:
        table.add_column(reviewer_heading(reviewer, show_names), ratio=1)

    def row(label: str, cells: list[Text], values: Sequence[object], style: str = "") -> None:
        differs = len({repr(v) for v in values}) > 1
        head = Text(("≠ " if differs else "  ") + label, style="bold yellow" if differs else style)
        table.add_row(head, *cells)

    judgments = [r.judgment for r in item.reviewers]
    row(
        "Validity gate",
        [_gate(j) for j in judgments],
        [sorted(j.validity.items()) for j in judgments],
    )
    dims = [d for d in item.rubric.dimensions if d.scored]
    positions = [str(i + 1) for i in range(len(item.responses))]
    for position in positions:
        table.add_row(
            Text(f"Response {position}" if item.is_pair else "Response", style="bold underline")
        )
        responses = [j.responses.get(position, ResponseJudgment()) for j in judgments]
        for dim in dims:
            row(
                safe_line(dim.name),
                [_score(r, dim.id) for r in responses],
                [r.scores.get(dim.id) for r in responses],
            )
        totals = [total(item.rubric, r) for r in responses]
        row(
            "Total",
            [
                Text(f"{t}/{item.rubric.max_total}") if t is not None else Text("—", style="dim")
                for t in totals
            ],
            totals,
        )
        row("Fatal hits", [_fatal(r) for r in responses], [sorted(r.fatal_hits) for r in responses])
        row(
            "Result",
            [_result(item.rubric, r) for r in responses],
            [result_state(item.rubric, r) for r in responses],
        )
    if item.is_pair:
        table.add_row(Text("The pair", style="bold underline"))
        row(
            "Preference",
            [
                Text(PREFERENCE_TEXT[j.preference], style="bold")
                if j.preference is not None
                else Text("—", style="dim")
                for j in judgments
            ],
            [j.preference for j in judgments],
        )
        table.add_row(
            Text("  Justification"),
            *(Text(safe_text(j.justification.strip()), style="italic") for j in judgments),
        )
    return table


def past_text(item: AdjudicationItem, show_names: bool) -> Text:
    past = item.latest
    if past is None:
        return Text(
            "Not adjudicated yet. The form starts empty; p fills it from a reviewer's judgment.",
            style="dim",
        )
    who = f" by {safe_line(past.adjudicator)}" if show_names else ""
    text = Text.assemble(
        (f"Adjudicated{who} (revision {past.revision}, {safe_line(past.created_at)}). ", "bold"),
        "The form shows that final judgment; recording again adds revision "
        f"{past.revision + 1}.\nIts note: ",
    )
    text.append(safe_text(past.note), style="italic")
    return text


class AdjudicationScreen(DesignScreen):
    """Adjudicate the disputed items of a design, one at a time."""

    CSS_PATH = "../styles/adjudicate.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        _binding(
            "s",
            "record",
            "Record",
            "Record the final judgment with its note (the reviewers' judgments are kept).",
        ),
        _binding(
            "v",
            "toggle_names",
            "Names",
            "Show or hide the reviewers' names (recorded with the adjudication if shown).",
        ),
        _binding(
            "p",
            "prefill",
            "Prefill",
            "Fill the final judgment from Reviewer 1's (again: the next reviewer's), then edit.",
        ),
        _binding("e", "note", "Note", "Go to the note field (required to record)."),
        _binding(
            "right_square_bracket",
            "step(1)",
            "Next",
            "Open the next disagreement of the list.",
            key_display="]",
            name="next",
        ),
        _binding(
            "left_square_bracket",
            "step(-1)",
            "Prev",
            "Open the previous disagreement of the list.",
            key_display="[",
            name="previous",
        ),
        _binding("t", "toggle_task", "Task", "Show or hide the task, evidence and criteria."),
        _binding("r", "toggle_trace", "Trace", "Switch both responses between output and trace."),
        _binding(
            "l",
            "back",
            "List",
            "Back to the disagreement list (asks again if the form has unrecorded changes).",
        ),
        _binding(
            "tab",
            "app.focus_next",
            "Next field",
            "Move to the next row or field.",
            show=False,
            name="next_field",
            priority=True,
        ),
        _binding(
            "shift+tab",
            "app.focus_previous",
            "Previous field",
            "Move to the previous row or field.",
            show=False,
            name="previous_field",
            priority=True,
        ),
        _binding(
            "escape",
            "leave_field",
            "Leave field",
            "Leave a text field so single keys act again; elsewhere, back to the list.",
            show=False,
        ),
    ]

    # -- messages (facts the workers report) --------------------------------------------------
    class ItemOpened(Message):
        def __init__(self, shown: ShownAdjudication) -> None:
            super().__init__()
            self.shown = shown

    class ItemRefused(Message):
        """The adjudicator may not see this item's judgments (BlindingError)."""

        def __init__(self, code: str, reason: str) -> None:
            super().__init__()
            self.code = code
            self.reason = reason

    class ItemAdjudicated(Message):
        def __init__(self, code: str, revision: int) -> None:
            super().__init__()
            self.code = code
            self.revision = revision

    class AdjudicationRefused(Message):
        def __init__(self, code: str, problems: list[str]) -> None:
            super().__init__()
            self.code = code
            self.problems = problems

    def __init__(
        self,
        db_path: Path,
        design: DesignChoice,
        adjudicator: str,
        code: str,
        codes: list[str] | None = None,
    ) -> None:
        super().__init__(db_path, design)
        self.adjudicator = adjudicator
        self.code = code
        self.codes = list(codes or [code])
        self.item: AdjudicationItem | None = None
        self.texts: tuple[str, ...] = ()
        self.final = Judgment()
        self.loaded = Judgment()
        self.show_names = False
        self.names_seen = False
        """Whether names were shown at any moment on this item (recorded with the adjudication)."""
        self.recording = False
        self.recorded: dict[str, int] = {}
        self.prefill_next = 0
        self.refused_reason: str | None = None
        self._leave_armed = False
        self._scoring_built = False

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Opening the item…"), id="item-bar")
        yield Static("", id="reasons")
        yield Static("", id="refused")
        with Horizontal(id="workspace"):
            with Vertical(id="reading"):
                with (
                    Collapsible(title="Task", collapsed=True, id="task"),
                    VerticalScroll(id="task-scroll"),
                ):
                    yield Static("", id="task-body")
                with Horizontal(id="responses"):
                    yield ResponseView("1", id="response-1")
                    yield ResponseView("2", id="response-2")
                with VerticalScroll(id="judgments"):
                    yield Static("", id="judgments-table")
            with Vertical(id="final-column"):
                yield Static(
                    Text.assemble(
                        ("Final judgment", "bold"),
                        f" by {safe_line(self.adjudicator)} (the originals are kept)",
                    ),
                    id="final-title",
                )
                yield Static("", id="past")
                with VerticalScroll(id="final"):
                    yield GatePanel(id="gate")
                    yield Static(Text("Note (required)", style="bold"), classes="section-title")
                    yield Input(placeholder="Why this is the final judgment (required)", id="note")
                    yield Static("", id="note-error")
                    yield Static("", id="missing")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#final", VerticalScroll).can_focus = False
        self.query_one("#task-scroll", VerticalScroll).can_focus = False
        self.query_one(
            "#judgments"
        ).border_title = "Each reviewer's judgment (≠ marks a difference)"
        self.open_item(self.code)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Without an item (refused, or still opening) only moving on and leaving make sense.
        if action in ("record", "toggle_names", "prefill", "note", "toggle_task", "toggle_trace"):
            return self.item is not None
        return True

    # -- opening (worker) -------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="adjudicate-open", description="Opening an item")
    def open_item(self, code: str) -> None:
        worker = get_current_worker()
        pk = self.design.pk
        try:
            if pk is None:
                raise AbpError("this study has no study design: nothing to adjudicate")
            item = open_adjudication(self.db_path, pk, code, self.adjudicator)
        except BlindingError as exc:
            if not worker.is_cancelled:
                self.post_message(self.ItemRefused(code, str(exc)))
            return
        except _ERRORS as exc:
            if not worker.is_cancelled:
                self.post_message(self.LoadFailed(str(exc)))
            return
        texts = tuple(display_text(r.text) for r in item.responses)
        if not worker.is_cancelled:
            self.post_message(self.ItemOpened(ShownAdjudication(item, texts)))

    @on(ItemRefused)
    def item_refused(self, message: ItemRefused) -> None:
        self.item = None
        self.code = message.code
        self.refused_reason = message.reason
        self.set_class(True, "-refused")
        self.query_one("#refused", Static).update(
            Text.assemble(
                ("Refused: ", "bold"),
                safe_line(message.reason),
                "\n\nJudge the item yourself first (j opens your queue), or ask another person "
                "to adjudicate it. ] and [ move to other disagreements; l goes back to the list.",
            )
        )
        self._update_bar()
        self.refresh_bindings()
        self.notify(safe_line(message.reason), title="Refused", severity="error", markup=False)

    @on(DesignScreen.LoadFailed)
    def load_failed(self, message: DesignScreen.LoadFailed) -> None:
        self.query_one("#item-bar", Static).update(
            Text.assemble(("Cannot open the item: ", "bold red"), safe_line(message.reason))
        )
        self.notify(safe_line(message.reason), title="Database", severity="error", markup=False)

    @on(ItemOpened)
    async def item_opened(self, message: ItemOpened) -> None:
        item = message.shown.item
        if not self._scoring_built:
            await self.query_one("#final", VerticalScroll).mount_all(
                [
                    ResponseScoring("1", item.rubric, id="score-1"),
                    ResponseScoring("2", item.rubric, id="score-2"),
                    PreferencePanel(id="preference"),
                ],
                after=self.query_one(GatePanel),
            )
            self._scoring_built = True
        self.refused_reason = None
        self.set_class(False, "-refused")
        self.item = item
        self.code = item.code
        self.texts = message.shown.texts
        self.show_names = False
        self.names_seen = False
        self.prefill_next = 0
        self._leave_armed = False
        self.set_class(not item.is_pair, "-single")
        self.refresh_bindings()
        self.query_one("#task-body", Static).update(task_text(item.task))
        title = f"Task: {safe_line(item.task.title or item.task.prompt)}"
        self.query_one("#task", Collapsible).title = title[:120]
        titles = ["Response 1", "Response 2"] if item.is_pair else ["Response"]
        views = [self.query_one("#response-1", ResponseView)]
        if item.is_pair:
            views.append(self.query_one("#response-2", ResponseView))
        for view, response, text, heading in zip(
            views, item.responses, self.texts, titles, strict=False
        ):
            view.show(heading, response, text)
        reasons = Text("Why they disagree: ", style="bold")
        reasons.append("; ".join(safe_line(r) for r in item.reasons) or "no rule is broken now")
        self.query_one("#reasons", Static).update(reasons)
        start = item.latest.judgment if item.latest is not None else Judgment()
        self._load_form(start)
        self.loaded = start
        note = self.query_one("#note", Input)
        note.value = ""
        self.query_one("#note-error", Static).update("")
        self._show_names()
        form = self.query_one("#final", VerticalScroll)
        if item.latest is not None:
            # Already adjudicated: the form holds that judgment; a new revision needs a note.
            self.set_focus(note, scroll_visible=False)
            form.call_after_refresh(note.scroll_visible, animate=False)
        else:
            self.set_focus(self.query_one(GatePanel).query(ChoiceRow).first(), scroll_visible=False)
            form.scroll_home(animate=False)

    def _load_form(self, judgment: Judgment) -> None:
        item = self.item
        if item is None:
            return
        self.final = judgment
        self.query_one(GatePanel).load(judgment.validity)
        titles = ["Response 1", "Response 2"] if item.is_pair else ["Response"]
        for i, (heading, response) in enumerate(zip(titles, item.responses, strict=False)):
            position = str(i + 1)
            self.query_one(f"#score-{position}", ResponseScoring).load(
                judgment.responses.get(position, ResponseJudgment()),
                item.task.fatal_criteria,
                response.record_state,
                heading,
            )
        self.query_one(PreferencePanel).load(judgment.preference, judgment.justification)
        self._update_missing()

    # -- names ------------------------------------------------------------------------------
    def _show_names(self) -> None:
        item = self.item
        if item is None:
            return
        self.query_one("#judgments-table", Static).update(judgments_table(item, self.show_names))
        self.query_one("#past", Static).update(past_text(item, self.show_names))
        self._update_bar()

    def action_toggle_names(self) -> None:
        if self.item is None:
            return
        self.show_names = not self.show_names
        self.names_seen = self.names_seen or self.show_names
        self._show_names()
        if self.show_names:
            self.notify(
                "Reviewer names are shown; the adjudication will record that they were seen.",
                markup=False,
            )

    # -- the form ---------------------------------------------------------------------------
    @on(GatePanel.Changed)
    def gate_changed(self, event: GatePanel.Changed) -> None:
        self._change(validity=event.validity)

    @on(ResponseScoring.Changed)
    def response_changed(self, event: ResponseScoring.Changed) -> None:
        responses = dict(self.final.responses)
        responses[event.position] = event.state
        self._change(responses=responses)

    @on(PreferencePanel.Changed)
    def preference_changed(self, event: PreferencePanel.Changed) -> None:
        self._change(preference=event.preference, justification=event.justification)

    def _change(self, **update: object) -> None:
        if self.item is None:
            return
        self.final = self.final.model_copy(update=update)
        self._leave_armed = False
        self._update_missing()
        self._update_bar()

    @on(Input.Changed, "#note")
    def note_typed(self) -> None:
        self._leave_armed = False
        if self.query_one("#note", Input).value.strip():
            self.query_one("#note-error", Static).update("")
        self._update_bar()

    def action_prefill(self) -> None:
        item = self.item
        if item is None or not item.reviewers:
            return
        reviewer = item.reviewers[self.prefill_next % len(item.reviewers)]
        self.prefill_next += 1
        self._load_form(reviewer.judgment)
        self._update_bar()
        following = item.reviewers[self.prefill_next % len(item.reviewers)].label
        self.notify(
            f"The form now holds {reviewer.label}'s judgment: change what you disagree with, "
            f"write the note, then s records it. p again fills it from {following}'s.",
            markup=False,
        )

    def action_note(self) -> None:
        if self.item is not None:
            self.set_focus(self.query_one("#note", Input))

    def _missing(self) -> list[str]:
        item = self.item
        if item is None:
            return []
        positions = [str(i + 1) for i in range(len(item.responses))]
        return problems(item.rubric, self.final, positions, item.is_pair)

    def _update_missing(self) -> None:
        box = self.query_one("#missing", Static)
        missing = self._missing()
        if missing:
            text = Text(f"Still needed before recording ({len(missing)}):\n", style="bold")
            text.append("\n".join(f"• {safe_line(p)}" for p in missing))
            box.update(text)
        else:
            box.update(Text("The final judgment is complete: write the note, then s.", "bold"))

    @property
    def dirty(self) -> bool:
        note = self.query_one("#note", Input).value.strip()
        return self.item is not None and (self.final != self.loaded or bool(note))

    # -- recording --------------------------------------------------------------------------
    @on(Input.Submitted, "#note")
    def note_entered(self) -> None:
        self.action_record()

    def action_record(self) -> None:
        item = self.item
        if item is None or self.recording:
            return
        note_box = self.query_one("#note", Input)
        note = note_box.value.strip()
        missing = self._missing()
        self.query_one("#missing", Static).set_class(bool(missing), "-refused")
        if missing:
            self.notify(
                "\n".join(f"• {safe_line(p)}" for p in missing[:6]),
                title="The final judgment is incomplete",
                severity="error",
                markup=False,
            )
            return
        if not note:
            self.query_one("#note-error", Static).update(Text(NOTE_REQUIRED))
            self.set_focus(note_box)
            note_box.scroll_visible(animate=False)
            self.notify(NOTE_REQUIRED, title="Not recorded", severity="error", markup=False)
            return
        self.recording = True
        self._update_bar()
        self.record(
            item.code, self.final, dict(item.placement), note, self.names_seen or self.show_names
        )

    @work(thread=True, group="adjudicate-record", description="Recording the adjudication")
    def record(
        self, code: str, final: Judgment, placement: dict[str, int], note: str, names: bool
    ) -> None:
        pk = self.design.pk
        try:
            if pk is None:
                raise AbpError("this study has no study design")
            revision = record_adjudication(
                self.db_path, pk, code, self.adjudicator, final, placement, note, names
            )
        except _ERRORS as exc:
            self.post_message(self.AdjudicationRefused(code, [str(exc)]))
            return
        self.post_message(self.ItemAdjudicated(code, revision))

    @on(AdjudicationRefused)
    def adjudication_refused(self, message: AdjudicationRefused) -> None:
        self.recording = False
        self._update_bar()
        self.notify(
            "\n".join(safe_line(p) for p in message.problems),
            title=f"{safe_line(message.code)} not recorded",
            severity="error",
            markup=False,
            timeout=10,
        )

    @on(ItemAdjudicated)
    def item_adjudicated(self, message: ItemAdjudicated) -> None:
        self.recording = False
        self.recorded[message.code] = message.revision
        self.notify(
            f"{safe_line(message.code)}: adjudication recorded (revision {message.revision}).",
            title="Adjudicated",
            markup=False,
        )
        if message.code != self.code:
            return
        following = self._next_code(1, skip_recorded=True)
        if following is None:
            self.dismiss(None)
        else:
            self.open_item(following)

    # -- moving -----------------------------------------------------------------------------
    def _next_code(self, step: int, skip_recorded: bool = False) -> str | None:
        if self.code not in self.codes:
            return self.codes[0] if self.codes else None
        i = self.codes.index(self.code)
        for k in range(1, len(self.codes) + 1):
            j = i + step * k
            if not 0 <= j < len(self.codes):
                return None
            if not skip_recorded or self.codes[j] not in self.recorded:
                return self.codes[j]
        return None

    def _leave(self, then_what: str) -> bool:
        """True when leaving may go ahead; a first attempt with unrecorded changes warns."""
        if self.dirty and not self._leave_armed and self.code not in self.recorded:
            self._leave_armed = True
            self.notify(
                f"The final judgment is not recorded. Press {then_what} again to leave it "
                "unrecorded, or s to record it.",
                severity="warning",
                markup=False,
            )
            return False
        return True

    def action_step(self, step: int) -> None:
        code = self._next_code(step)
        if code is None:
            self.notify(
                "This is the last disagreement of the list."
                if step > 0
                else "This is the first disagreement of the list.",
                markup=False,
            )
            return
        if self._leave("]" if step > 0 else "["):
            self.query_one("#item-bar", Static).update(Text("Opening…", style="dim"))
            self.open_item(code)

    def action_back(self) -> None:
        if self._leave("l"):
            self.dismiss(None)

    def action_leave_field(self) -> None:
        if isinstance(self.focused, Input):
            self.set_focus(None)
            return
        self.action_back()

    def action_toggle_task(self) -> None:
        task = self.query_one("#task", Collapsible)
        task.collapsed = not task.collapsed

    def action_toggle_trace(self) -> None:
        views = [self.query_one("#response-1", ResponseView)]
        if self.item is not None and self.item.is_pair:
            views.append(self.query_one("#response-2", ResponseView))
        show = not views[0].showing_trace
        for view in views:
            view.show_trace(show)

    # -- status -----------------------------------------------------------------------------
    def _update_bar(self) -> None:
        bar = self.query_one("#item-bar", Static)
        parts: list[Text] = [Text(safe_line(self.code), style="bold")]
        if self.code in self.codes:
            parts.append(
                Text(f"disagreement {self.codes.index(self.code) + 1} of {len(self.codes)}")
            )
        item = self.item
        if self.refused_reason is not None:
            parts.append(Text("refused", style="bold red"))
        elif item is not None:
            parts.append(Text(f"{len(item.reviewers)} reviewers"))
            if self.recording:
                parts.append(Text("recording…", style="bold"))
            elif self.code in self.recorded:
                parts.append(
                    Text(f"✓ recorded (revision {self.recorded[self.code]})", style="bold green")
                )
            elif item.latest is not None:
                parts.append(Text(f"adjudicated (revision {item.latest.revision})", style="green"))
            else:
                parts.append(Text("open", style="bold yellow"))
            parts.append(
                Text("names shown (v)", style="bold yellow")
                if self.show_names
                else Text("names hidden (v)", style="dim")
            )
            missing = len(self._missing())
            note = self.query_one("#note", Input).value.strip()
            if missing:
                parts.append(Text(f"{missing} to do", style="dim"))
            elif not note:
                parts.append(Text("note needed (e)", style="dim"))
            else:
                parts.append(Text("ready to record (s)", style="bold"))
        line = Text(" · ").join(parts)
        bar.update(Text.assemble(Text(safe_line(self.design.label), style="dim"), " │ ", line))
