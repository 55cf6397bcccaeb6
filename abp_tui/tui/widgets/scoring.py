"""The scoring panel's widgets: rows of choices chosen by key or click, and the three sections
built from them (the validity gate, one response's rubric judgment, the pair's preference).

Each section owns its part of the judgment and posts it as a message whenever the reviewer
changes it; the compare screen assembles the whole judgment and saves it. Rubric texts, anchors
and fatal criteria come from study files and are shown as ``rich.text.Text`` of safe strings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Click
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from abp_tui.analysis.scoring import result_state, total
from abp_tui.models import (
    VALIDITY_CHECKS,
    Dimension,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    Rubric,
)
from abp_tui.services.reviewing import RECORD_STATES
from abp_tui.text.safe import safe_line, safe_text


def safe(value: str, style: str = "") -> Text:
    """Untrusted text for a widget: visible control characters, never markup."""
    return Text(safe_text(value), style=style)


@dataclass(frozen=True)
class Choice:
    """One option of a row: the key that picks it, its value, label and optional detail."""

    key: str
    value: str
    label: str
    detail: str = ""


class OptionLabel(Static):
    """One option of a ChoiceRow; a click picks it. The chosen one is marked (not only coloured)."""

    def __init__(self, choice: Choice, inline: bool) -> None:
        super().__init__(classes="option")
        self.choice = choice
        self.inline = inline
        self.selected = False
        self.update(self._content())

    def _content(self) -> Text | Table:
        marker = "●" if self.selected else "○"
        words = Text(safe_line(self.choice.label))
        if self.choice.detail:
            if words:
                words.append("  ")
            words.append(safe_line(self.choice.detail))
        if self.inline:
            return Text.assemble(marker, " ", (self.choice.key, "bold"), " ", words)
        # A grid keeps wrapped anchor text indented under itself, clear of the key.
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=1)
        grid.add_row(marker, Text(self.choice.key, style="bold"), words)
        return grid

    def set_selected(self, selected: bool) -> None:
        if selected != self.selected:
            self.selected = selected
            # Same size, other marker: no layout pass (it would re-measure the whole screen).
            self.update(self._content(), layout=False)
        self.set_class(selected, "-selected")

    def on_click(self, event: Click) -> None:
        event.stop()
        row = next((a for a in self.ancestors if isinstance(a, ChoiceRow)), None)
        if row is not None:
            row.focus()
            row.choose(self.choice.value)


class ChoiceRow(Widget, can_focus=True):
    """A title and a set of options; one focus stop. Subclasses bind the option keys."""

    DEFAULT_CSS = """
    ChoiceRow {
        height: auto;
        padding: 0 1;
        & > .choice-title { text-style: bold; }
        & .option { width: 1fr; padding-left: 1; color: $text-muted; }
        & .option.-selected { color: $text; background: $accent 30%; text-style: bold; }
        & Horizontal { height: auto; }
        & Horizontal > .option { width: auto; padding: 0 1; margin-right: 1; }
        &:focus { background: $boost; }
        &:focus > .choice-title { color: $text-accent; }
        &.-missing > .choice-title { color: $text-warning; }
    }
    """

    class Chosen(Message):
        """The reviewer picked an option (``value`` None: cleared)."""

        def __init__(self, row: ChoiceRow, value: str | None) -> None:
            super().__init__()
            self.row = row
            self.value = value

        @property
        def control(self) -> ChoiceRow:
            return self.row

    def __init__(
        self,
        title: Text,
        choices: list[Choice],
        *,
        value: str | None = None,
        inline: bool = False,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.title = title
        self.choices = choices
        self.value = value
        self.inline = inline
        self.after_choice: Callable[[ChoiceRow], None] | None = None
        """Called as soon as a choice is made (before the next key is read): moves the focus."""

    def compose(self) -> ComposeResult:
        yield Static(self.title, classes="choice-title")
        labels = [OptionLabel(c, self.inline) for c in self.choices]
        if self.inline:
            with Horizontal():
                yield from labels
        else:
            yield from labels

    def on_mount(self) -> None:
        self._show()

    def set_value(self, value: str | None) -> None:
        """Show ``value`` as chosen without posting a message."""
        self.value = value
        self._show()

    def set_title(self, title: Text) -> None:
        self.title = title
        if self.is_mounted:
            self.query_one(".choice-title", Static).update(title)

    def _show(self) -> None:
        if not self.is_mounted:
            return
        for label in self.query(OptionLabel):
            label.set_selected(label.choice.value == self.value)

    def choose(self, value: str | None) -> None:
        if value is not None and value not in {c.value for c in self.choices}:
            self.app.bell()
            return
        self.set_value(value)
        self.post_message(self.Chosen(self, value))
        if value is not None and self.after_choice is not None:
            self.after_choice(self)

    def action_choose(self, value: str) -> None:
        self.choose(value)

    def action_clear(self) -> None:
        self.choose(None)

    def on_click(self) -> None:
        self.focus()


def _key(key: str, action: str, description: str, **kwargs: Any) -> Binding:
    """A key of a focused scoring row. Such keys are priority bindings: Textual resolves them
    as it reads each key, so when a choice moves the focus on, the very next key (a fast typist,
    a burst of keys) already goes to the next row."""
    kwargs["priority"] = True
    return Binding(key, action, description, **kwargs)


SCORE_GROUP = Binding.Group("Score", compact=True)


class DimensionRow(ChoiceRow):
    """A rubric dimension: its scale with the anchor text of each score."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(
            _key(
                str(n),
                f"choose('{n}')",
                f"Score {n}",
                group=SCORE_GROUP,
                id=f"score.{n}",
                tooltip=f"Score the focused dimension {n} (its anchor text is shown beside it).",
            )
            for n in range(3)
        ),
        _key(
            "backspace",
            "clear",
            "Clear",
            show=False,
            id="score.clear",
            tooltip="Remove the score of the focused dimension.",
        ),
    ]

    def __init__(self, dimension: Dimension, *, id: str | None = None) -> None:
        self.dimension = dimension
        choices = [
            Choice(str(n), str(n), "", dimension.anchors.get(n, "")) for n in dimension.scale
        ]
        super().__init__(Text(safe_line(dimension.name)), choices, id=id, classes="dimension")

    @property
    def score(self) -> int | None:
        return None if self.value is None else int(self.value)


class CheckRow(ChoiceRow):
    """One check of the validity gate: passed or failed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        _key("y", "choose('yes')", "Passed", id="gate.yes", tooltip="This validity check holds."),
        _key(
            "n",
            "choose('no')",
            "Failed",
            id="gate.no",
            tooltip="This check fails: the item then needs INVALID_TEST or GRADER_DISPUTE.",
        ),
        _key(
            "Y",
            "all_pass",
            "All pass",
            key_display="shift+y",
            id="gate.all",
            tooltip="Mark all five validity checks as holding (read them first).",
        ),
        _key(
            "backspace",
            "clear",
            "Clear",
            show=False,
            id="gate.clear",
            tooltip="Remove the answer to this check.",
        ),
    ]

    def __init__(self, check_id: str, text: str) -> None:
        self.check_id = check_id
        choices = [Choice("y", "yes", "holds"), Choice("n", "no", "fails")]
        super().__init__(Text(text), choices, inline=True, id=f"check-{check_id}")

    def action_all_pass(self) -> None:
        gate = next((a for a in self.ancestors if isinstance(a, GatePanel)), None)
        if gate is not None:
            gate.all_pass()


class PreferenceRow(ChoiceRow):
    """Which response is better, as shown."""

    BINDINGS: ClassVar[list[BindingType]] = [
        _key(
            "1",
            "choose('response_1')",
            "Response 1",
            id="preference.1",
            tooltip="Response 1 is better.",
        ),
        _key(
            "2",
            "choose('response_2')",
            "Response 2",
            id="preference.2",
            tooltip="Response 2 is better.",
        ),
        _key("t", "choose('tie')", "Tie", id="preference.tie", tooltip="Neither is better."),
        _key(
            "i",
            "choose('insufficient_evidence')",
            "Insufficient",
            id="preference.insufficient",
            tooltip="The evidence is not enough to prefer either response.",
        ),
        _key(
            "backspace",
            "clear",
            "Clear",
            show=False,
            id="preference.clear",
            tooltip="Remove the preference.",
        ),
    ]

    def __init__(self) -> None:
        choices = [
            Choice("1", PreferenceChoice.RESPONSE_1.value, "Response 1 is better"),
            Choice("2", PreferenceChoice.RESPONSE_2.value, "Response 2 is better"),
            Choice("t", PreferenceChoice.TIE.value, "Tie"),
            Choice("i", PreferenceChoice.INSUFFICIENT.value, "Insufficient evidence"),
        ]
        super().__init__(Text("Preference"), choices, id="preference-row")


class OverrideRow(ChoiceRow):
    """Instead of the rubric's result: INVALID_TEST, GRADER_DISPUTE, or confirm the record."""

    BINDINGS: ClassVar[list[BindingType]] = [
        _key(
            "i",
            "choose('INVALID_TEST')",
            "Invalid test",
            id="override.invalid",
            tooltip="The test itself is invalid (a reason is required).",
        ),
        _key(
            "g",
            "choose('GRADER_DISPUTE')",
            "Grader dispute",
            id="override.dispute",
            tooltip="The grader's expectation is disputed (a reason is required).",
        ),
        _key(
            "c",
            "confirm_record",
            "Confirm record",
            id="override.confirm",
            tooltip="Confirm the state the record gives this run (PROVIDER_BLOCK or INFRA_ERROR).",
        ),
        _key(
            "backspace",
            "clear",
            "No override",
            id="override.clear",
            tooltip="Use the result the rubric gives instead of an override.",
        ),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text("Override (instead of the rubric result)"), [], id=id)
        self.record_state: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(self.title, classes="choice-title")
        with Horizontal():
            yield OptionLabel(Choice("i", "INVALID_TEST", "INVALID_TEST"), True)
            yield OptionLabel(Choice("g", "GRADER_DISPUTE", "GRADER_DISPUTE"), True)
            for state in RECORD_STATES:
                yield OptionLabel(Choice("c", state, f"confirm {state}"), True)

    def set_record_state(self, state: str | None) -> None:
        """Offer "confirm STATE" only for the state the run's record gives."""
        self.record_state = state
        self.choices = [
            Choice("i", "INVALID_TEST", "INVALID_TEST"),
            Choice("g", "GRADER_DISPUTE", "GRADER_DISPUTE"),
        ]
        if state is not None:
            self.choices.append(Choice("c", state, f"confirm {state}"))
        for label in self.query(OptionLabel):
            label.display = label.choice.value in {c.value for c in self.choices}

    def action_confirm_record(self) -> None:
        if self.record_state is None:
            self.notify(
                "The record gives this run no PROVIDER_BLOCK or INFRA_ERROR state to confirm.",
                severity="warning",
                markup=False,
            )
            return
        self.choose(self.record_state)


class FatalOption(Widget):
    """One fatal criterion of a FatalList (drawn from its list's state); a click toggles it."""

    DEFAULT_CSS = """
    FatalOption {
        height: auto;
        color: $text-muted;
        &.-hit { color: $text-error; text-style: bold; }
        &.-cursor { background: $accent 25%; }
    }
    """

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index

    def _list(self) -> FatalList | None:
        return self.parent if isinstance(self.parent, FatalList) else None

    def render(self) -> Table | Text:
        owner = self._list()
        if owner is None or self.index >= len(owner.criteria):
            return Text("")
        hit = self.index in owner.hits
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True, width=1)
        grid.add_column(ratio=1)
        key = str(self.index + 1) if self.index < 9 else " "
        grid.add_row("☒" if hit else "☐", Text(key, style="bold"), safe(owner.criteria[self.index]))
        return grid

    def on_click(self, event: Click) -> None:
        event.stop()
        owner = self._list()
        if owner is not None:
            owner.focus()
            owner.cursor = self.index
            owner.toggle(self.index)


class FatalList(Widget, can_focus=True):
    """The fatal criteria as a checklist: one focus stop, a cursor, keys to tick."""

    DEFAULT_CSS = """
    FatalList {
        height: auto;
        padding: 0 1 0 2;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        _key("up", "move(-1)", "Up", show=False, id="fatal.up", tooltip="Previous criterion."),
        _key("down", "move(1)", "Down", show=False, id="fatal.down", tooltip="Next criterion."),
        _key(
            "space,x",
            "toggle_cursor",
            "Hit",
            key_display="space",
            id="fatal.toggle",
            tooltip="Tick or untick the highlighted fatal criterion.",
        ),
        # Enter means "done" here as in every field of the panel: it never ticks a criterion.
        _key(
            "enter",
            "done",
            "Done",
            key_display="⏎",
            id="fatal.done",
            tooltip="Leave the fatal criteria as they are and go to the next field.",
        ),
        *(
            _key(
                str(n),
                f"tick({n - 1})",
                f"Criterion {n}",
                show=False,
                id=f"fatal.{n}",
                tooltip=f"Tick or untick fatal criterion {n}.",
            )
            for n in range(1, 10)
        ),
    ]

    class Changed(Message):
        """The reviewer ticked or unticked a criterion."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.criteria: tuple[str, ...] = ()
        self.hits: set[int] = set()
        self.cursor = 0

    def load(self, criteria: tuple[str, ...], hits: set[int]) -> None:
        """Show ``criteria`` with ``hits`` ticked (no message is posted)."""
        # The same criteria (the next item of the same task or rubric) keep their sizes: the
        # options are only repainted, without measuring the screen again.
        layout = criteria != self.criteria
        repaint = layout or set(hits) != self.hits
        self.criteria = criteria
        self.hits = set(hits)
        self.cursor = 0
        options = list(self.query(FatalOption))
        if len(options) < len(criteria):
            self.mount_all([FatalOption(i) for i in range(len(options), len(criteria))])
        self._show(layout=layout, repaint=repaint)

    def _show(self, layout: bool = False, repaint: bool = True) -> None:
        for option in self.query(FatalOption):
            option.display = option.index < len(self.criteria)
            option.set_class(option.index in self.hits, "-hit")
            option.set_class(self.has_focus and option.index == self.cursor, "-cursor")
            if repaint:
                option.refresh(layout=layout)

    def toggle(self, index: int) -> None:
        if not 0 <= index < len(self.criteria):
            self.app.bell()
            return
        self.hits ^= {index}
        self.cursor = index
        self._show()
        self.post_message(self.Changed())

    def action_tick(self, index: int) -> None:
        self.toggle(index)

    def action_toggle_cursor(self) -> None:
        self.toggle(self.cursor)

    def action_done(self) -> None:
        self.screen.focus_next()

    def action_move(self, step: int) -> None:
        if not self.criteria:
            return
        self.cursor = max(0, min(len(self.criteria) - 1, self.cursor + step))
        self._show()
        for option in self.query(FatalOption):
            if option.index == self.cursor:
                option.scroll_visible(animate=False)

    def on_focus(self) -> None:
        self._show()

    def on_blur(self) -> None:
        self._show()


class FieldInput(Input):
    """A one-line text field of the scoring panel; Enter stores it and moves on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "enter",
            "Done",
            priority=True,
            id="field.enter",
            tooltip="Store this text and move on to the next row.",
        ),
    ]

    def __init__(self, placeholder: str, *, id: str, classes: str = "") -> None:
        super().__init__(
            placeholder=placeholder, id=id, compact=True, classes=classes, select_on_focus=False
        )
        self.after_enter: Callable[[FieldInput], None] | None = None

    def action_enter(self) -> None:
        self.post_message(self.Submitted(self, self.value))
        if self.after_enter is not None:
            self.after_enter(self)


def _compact_input(placeholder: str, id: str, classes: str = "") -> FieldInput:
    return FieldInput(placeholder, id=id, classes=classes)


class GatePanel(Vertical):
    """Seed 000's validity gate: five checks answered before quality scoring."""

    class Changed(Message):
        def __init__(self, validity: dict[str, bool]) -> None:
            super().__init__()
            self.validity = validity

    def compose(self) -> ComposeResult:
        yield Static(Text("Validity gate", style="bold"), classes="section-title")
        for check_id, text in VALIDITY_CHECKS:
            row = CheckRow(check_id, text)
            row.after_choice = self._answered
            yield row

    def _answered(self, row: ChoiceRow) -> None:
        self.screen.focus_next()

    def load(self, validity: dict[str, bool]) -> None:
        for row in self.query(CheckRow):
            answer = validity.get(row.check_id)
            row.set_value(None if answer is None else ("yes" if answer else "no"))

    def validity(self) -> dict[str, bool]:
        return {row.check_id: row.value == "yes" for row in self.query(CheckRow) if row.value}

    def all_pass(self) -> None:
        for row in self.query(CheckRow):
            row.set_value("yes")
        self.post_message(self.Changed(self.validity()))
        rows = list(self.query(CheckRow))
        if rows and self.screen.focused in rows:
            self.screen.focus_next()
            while self.screen.focused in rows:
                self.screen.focus_next()

    @on(ChoiceRow.Chosen, "CheckRow")
    def check_chosen(self, event: ChoiceRow.Chosen) -> None:
        event.stop()
        self.post_message(self.Changed(self.validity()))

    def first_missing(self) -> Widget | None:
        return next((row for row in self.query(CheckRow) if row.value is None), None)


class ResponseScoring(Vertical):
    """One response's rubric judgment: scores with rationales, fatal hits, result, override."""

    class Changed(Message):
        """The reviewer changed this response's judgment; ``urgent`` unless it is typing."""

        def __init__(self, position: str, state: ResponseJudgment, urgent: bool) -> None:
            super().__init__()
            self.position = position
            self.state = state
            self.urgent = urgent

    def __init__(self, position: str, rubric: Rubric, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="response-scoring")
        self.position = position
        self.rubric = rubric
        self.dimensions = [d for d in rubric.dimensions if d.scored]
        self.state = ResponseJudgment()
        self.fatal: tuple[str, ...] = ()
        self._title = f"Response {position}"
        self._record_state: str | None = None
        self._result_shown: tuple[object, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(Text(self._title, style="bold"), classes="section-title")
        yield Static("", classes="record-note")
        for dim in self.dimensions:
            row = DimensionRow(dim, id=f"dim-{self.position}-{dim.id}")
            row.after_choice = self._scored
            yield row
            rationale = _compact_input(
                "Rationale (required below 2)",
                id=f"rationale-{self.position}-{dim.id}",
                classes="rationale",
            )
            rationale.after_enter = self._rationale_entered
            yield rationale
        yield Static(
            Text("Fatal criteria (a hit fails the response whatever the scores)", style="bold"),
            classes="fatal-title",
        )
        yield FatalList(id=f"fatal-{self.position}", classes="fatal")
        yield Static("", classes="result")
        override = OverrideRow(id=f"override-{self.position}")
        override.after_choice = self._overridden
        yield override
        reason = _compact_input(
            "Reason for the override (required)",
            id=f"override-reason-{self.position}",
            classes="override-reason",
        )
        reason.after_enter = self._reason_entered
        yield reason

    # -- loading ----------------------------------------------------------------------------
    def load(
        self, state: ResponseJudgment, fatal: tuple[str, ...], record_state: str | None, title: str
    ) -> None:
        """Show a stored judgment (no change messages are posted)."""
        self.state = state
        if title != self._title:
            self._title = title
            self.query_one(".section-title", Static).update(Text(title, style="bold"))
        note = self.query_one(".record-note", Static)
        note.display = record_state is not None
        if record_state is not None and record_state != self._record_state:
            note.update(
                Text(
                    f"The record marks this run {record_state}: confirm it (c on the override "
                    "row) or judge the output.",
                )
            )
        self._record_state = record_state
        with self.prevent(Input.Changed):
            for dim in self.dimensions:
                row = self.query_one(f"#dim-{self.position}-{dim.id}", DimensionRow)
                score = state.scores.get(dim.id)
                row.set_value(None if score is None else str(score))
                self.query_one(
                    f"#rationale-{self.position}-{dim.id}", Input
                ).value = state.rationales.get(dim.id, "")
            self._load_fatal(fatal)
            override = self.query_one(OverrideRow)
            override.set_record_state(record_state)
            override.set_value(state.state_override.value if state.state_override else None)
            self.query_one(".override-reason", Input).value = state.override_reason
        self._refresh()

    def _load_fatal(self, fatal: tuple[str, ...]) -> None:
        self.fatal = fatal + tuple(h for h in self.state.fatal_hits if h not in fatal)
        hits = set(self.state.fatal_hits)
        self.query_one(FatalList).load(
            self.fatal, {i for i, text in enumerate(self.fatal) if text in hits}
        )

    # -- reading the widgets ----------------------------------------------------------------
    def _read(self) -> ResponseJudgment:
        scores: dict[str, int] = {}
        rationales: dict[str, str] = {}
        for dim in self.dimensions:
            row = self.query_one(f"#dim-{self.position}-{dim.id}", DimensionRow)
            if row.score is not None:
                scores[dim.id] = row.score
            text = self.query_one(f"#rationale-{self.position}-{dim.id}", Input).value
            if text.strip():
                rationales[dim.id] = text
        ticked = self.query_one(FatalList).hits
        hits = tuple(text for i, text in enumerate(self.fatal) if i in ticked)
        override = self.query_one(OverrideRow).value
        return ResponseJudgment(
            scores=scores,
            rationales=rationales,
            fatal_hits=hits,
            state_override=ResultState(override) if override else None,
            override_reason=self.query_one(".override-reason", Input).value if override else "",
        )

    def _changed(self, urgent: bool) -> None:
        state = self._read()
        self._refresh()
        if state != self.state:
            self.state = state
            self.post_message(self.Changed(self.position, state, urgent))

    def _refresh(self) -> None:
        state = self._read()
        for dim in self.dimensions:
            score = state.scores.get(dim.id)
            rationale = self.query_one(f"#rationale-{self.position}-{dim.id}", Input)
            needed = score is not None and score < max(dim.scale)
            rationale.set_class(needed and not rationale.value.strip(), "-required")
        override = self.query_one(OverrideRow)
        reason = self.query_one(".override-reason", Input)
        reason.display = override.value is not None
        reason.set_class(not reason.value.strip(), "-required")
        result = self.result_text(state)
        shown = (result.plain, tuple(result.spans))
        if shown != self._result_shown:
            self._result_shown = shown
            self.query_one(".result", Static).update(result, layout=False)

    def result_text(self, state: ResponseJudgment) -> Text:
        derived = result_state(self.rubric, state)
        summed = total(self.rubric, state)
        scored = sum(1 for d in self.dimensions if d.id in state.scores)
        text = Text("Result: ", style="bold")
        if derived is None:
            text.append(f"not decided yet ({scored} of {len(self.dimensions)} scored)", "dim")
        else:
            style = {
                ResultState.MODEL_PASS: "bold green",
                ResultState.MODEL_FAIL: "bold red",
            }.get(derived, "bold yellow")
            text.append(derived.value, style)
            if state.state_override is not None:
                text.append("  (override)", "dim")
            elif state.fatal_hits:
                text.append(f"  ({len(state.fatal_hits)} fatal hit)", "dim")
            if summed is not None:
                text.append(f"  total {summed}/{self.rubric.max_total}", "dim")
        return text

    # -- events -----------------------------------------------------------------------------
    # -- moving on ---------------------------------------------------------------------------
    # ``screen.set_focus`` (not ``widget.focus``, which waits for the event loop) so a reviewer
    # typing fast has their next key reach the next row.
    def _scored(self, row: ChoiceRow) -> None:
        if not isinstance(row, DimensionRow) or row.score is None:
            return
        rationale = self.query_one(f"#rationale-{self.position}-{row.dimension.id}", Input)
        below_top = row.score < max(row.dimension.scale)
        if below_top and not rationale.value.strip():
            self.screen.set_focus(rationale)
        else:
            self._focus_after(row)

    def _focus_after(self, row: DimensionRow) -> None:
        rows = list(self.query(DimensionRow))
        index = rows.index(row)
        if index + 1 < len(rows):
            self.screen.set_focus(rows[index + 1])
        else:
            self.screen.set_focus(self.query_one(FatalList))

    def _rationale_entered(self, field: FieldInput) -> None:
        dim_id = (field.id or "").removeprefix(f"rationale-{self.position}-")
        self._focus_after(self.query_one(f"#dim-{self.position}-{dim_id}", DimensionRow))

    def _overridden(self, row: ChoiceRow) -> None:
        reason = self.query_one(".override-reason", Input)
        reason.display = True
        self.screen.set_focus(reason)

    def _reason_entered(self, field: FieldInput) -> None:
        self.screen.focus_next()

    # -- events -----------------------------------------------------------------------------
    @on(ChoiceRow.Chosen, "DimensionRow")
    @on(ChoiceRow.Chosen, "OverrideRow")
    def chosen(self, event: ChoiceRow.Chosen) -> None:
        event.stop()
        self._changed(urgent=True)

    @on(FatalList.Changed)
    def fatal_changed(self, event: FatalList.Changed) -> None:
        event.stop()
        self._changed(urgent=True)

    @on(Input.Changed)
    def typed(self, event: Input.Changed) -> None:
        event.stop()
        self._changed(urgent=False)

    @on(Input.Submitted)
    def entered(self, event: Input.Submitted) -> None:
        event.stop()
        self._changed(urgent=True)

    def first_missing(self) -> Widget | None:
        """The first widget still needing an answer (for a submission that was refused)."""
        state = self.state
        if state.state_override is not None:
            if not state.override_reason.strip():
                return self.query_one(".override-reason", Input)
            return None
        for dim in self.dimensions:
            score = state.scores.get(dim.id)
            if score is None:
                return self.query_one(f"#dim-{self.position}-{dim.id}", DimensionRow)
            if score < max(dim.scale) and not state.rationales.get(dim.id, "").strip():
                return self.query_one(f"#rationale-{self.position}-{dim.id}", Input)
        return None


class PreferencePanel(Vertical):
    """The pair's preference and its justification."""

    class Changed(Message):
        def __init__(
            self, preference: PreferenceChoice | None, justification: str, urgent: bool
        ) -> None:
            super().__init__()
            self.preference = preference
            self.justification = justification
            self.urgent = urgent

    def compose(self) -> ComposeResult:
        row = PreferenceRow()
        row.after_choice = self._chosen
        yield row
        field = _compact_input("Justification of the preference (required)", id="justification")
        field.after_enter = self._entered
        yield field

    def _chosen(self, row: ChoiceRow) -> None:
        self.screen.set_focus(self.query_one("#justification", Input))

    def _entered(self, field: FieldInput) -> None:
        # Back on the row, single keys act again (s submits).
        self.screen.set_focus(self.query_one(PreferenceRow))

    def load(self, preference: PreferenceChoice | None, justification: str) -> None:
        self.query_one(PreferenceRow).set_value(preference.value if preference else None)
        with self.prevent(Input.Changed):
            self.query_one("#justification", Input).value = justification
        self._refresh()

    def _refresh(self) -> None:
        box = self.query_one("#justification", Input)
        box.set_class(not box.value.strip(), "-required")

    def _post(self, urgent: bool) -> None:
        value = self.query_one(PreferenceRow).value
        self._refresh()
        self.post_message(
            self.Changed(
                PreferenceChoice(value) if value else None,
                self.query_one("#justification", Input).value,
                urgent,
            )
        )

    @on(ChoiceRow.Chosen, "PreferenceRow")
    def chosen(self, event: ChoiceRow.Chosen) -> None:
        event.stop()
        self._post(urgent=True)

    @on(Input.Changed, "#justification")
    def typed(self, event: Input.Changed) -> None:
        event.stop()
        self._post(urgent=False)

    @on(Input.Submitted, "#justification")
    def done(self, event: Input.Submitted) -> None:
        event.stop()
        self._post(urgent=True)

    def first_missing(self) -> Widget | None:
        row = self.query_one(PreferenceRow)
        if row.value is None:
            return row
        box = self.query_one("#justification", Input)
        return box if not box.value.strip() else None
