"""One response's rubric judgment: each dimension's score with its rationale, the fatal
criteria, the result the rubric gives, and an override (INVALID_TEST, GRADER_DISPUTE, or the
record's own PROVIDER_BLOCK / INFRA_ERROR confirmed) with its reason.

The section posts its whole judgment (``ResponseScoring.Changed``) whenever the reviewer changes
it; the judgment form takes it from there. Dimension names and anchors come from rubric files
and are shown as ``rich.text.Text`` of safe strings.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from abp_tui.analysis.scoring import result_state, total
from abp_tui.models import Dimension, ResponseJudgment, ResultState, Rubric
from abp_tui.services.reviewing import RECORD_STATES
from abp_tui.text.safe import safe_line
from abp_tui.tui.widgets.choices import Choice, ChoiceRow, FieldInput, OptionLabel, row_key
from abp_tui.tui.widgets.fatal_list import FatalList

SCORE_GROUP = Binding.Group("Score", compact=True)
RECLASSIFY = "RECLASSIFY"
"""The override row's value for "the record's failure does not stand: the scores decide"."""
RECLASSIFY_LABEL = "reclassify: scores decide"


class DimensionRow(ChoiceRow):
    """A rubric dimension: its scale with the anchor text of each score."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(
            row_key(
                str(n),
                f"choose('{n}')",
                f"Score {n}",
                group=SCORE_GROUP,
                id=f"score.{n}",
                tooltip=f"Score the focused dimension {n} (its anchor text is shown beside it).",
            )
            for n in range(3)
        ),
        row_key(
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


class RationaleInput(FieldInput):
    """A dimension's rationale: a Tab stop only while it is required or written (the response
    section decides), opened by a click at any time."""

    def on_click(self) -> None:
        if not self.can_focus:
            self.can_focus = True
            self.focus()


class OverrideRow(ChoiceRow):
    """Instead of the rubric's result: INVALID_TEST, GRADER_DISPUTE, or confirm the record."""

    BINDINGS: ClassVar[list[BindingType]] = [
        row_key(
            "i",
            "choose('INVALID_TEST')",
            "Invalid test",
            id="override.invalid",
            tooltip="The test itself is invalid (a reason is required).",
        ),
        row_key(
            "g",
            "choose('GRADER_DISPUTE')",
            "Grader dispute",
            id="override.dispute",
            tooltip="The grader's expectation is disputed (a reason is required).",
        ),
        row_key(
            "c",
            "confirm_record",
            "Confirm record",
            id="override.confirm",
            tooltip="Confirm the state the record gives this run (PROVIDER_BLOCK or INFRA_ERROR).",
        ),
        row_key(
            "x",
            "reclassify_record",
            "Reclassify",
            id="override.reclassify",
            tooltip="Set aside the record's PROVIDER_BLOCK or INFRA_ERROR: the scores decide "
            "(a reason is required).",
        ),
        row_key(
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
        self.manual = True

    def choose(self, value: str | None) -> None:
        if not self.manual and value in ("INVALID_TEST", "GRADER_DISPUTE"):
            from abp_tui.services.reclassify import SCORED_NOT_EXCLUDED

            self.notify(
                f"{value} cannot be set by hand here: {SCORED_NOT_EXCLUDED}.",
                severity="warning",
                markup=False,
            )
            return
        super().choose(value)

    def compose(self) -> ComposeResult:
        yield Static(self.title, classes="choice-title")
        with Horizontal():
            yield OptionLabel(Choice("i", "INVALID_TEST", "INVALID_TEST"), True)
            yield OptionLabel(Choice("g", "GRADER_DISPUTE", "GRADER_DISPUTE"), True)
            for state in RECORD_STATES:
                yield OptionLabel(Choice("c", state, f"confirm {state}"), True)
            yield OptionLabel(Choice("x", RECLASSIFY, RECLASSIFY_LABEL), True)

    def set_record_state(self, state: str | None, manual: bool = True) -> None:
        """Offer "confirm STATE" only for the state the run's record gives; INVALID_TEST and
        GRADER_DISPUTE only where a reviewer may exclude a run by hand (``manual``: not on a
        rubric that scores abstention, seed 004), and reclassifying only there too."""
        self.record_state = state
        self.manual = manual
        self.choices = (
            [
                Choice("i", "INVALID_TEST", "INVALID_TEST"),
                Choice("g", "GRADER_DISPUTE", "GRADER_DISPUTE"),
            ]
            if manual
            else []
        )
        if state is not None:
            self.choices.append(Choice("c", state, f"confirm {state}"))
            if manual:
                self.choices.append(Choice("x", RECLASSIFY, RECLASSIFY_LABEL))
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

    def action_reclassify_record(self) -> None:
        if self.record_state is None:
            self.notify(
                "The record gives this run no PROVIDER_BLOCK or INFRA_ERROR state to reclassify.",
                severity="warning",
                markup=False,
            )
            return
        self.choose(RECLASSIFY)


class ResponseScoring(Vertical):
    """One response's rubric judgment: scores with rationales, fatal hits, result, override."""

    class Changed(Message):
        """The reviewer changed this response's judgment; ``urgent`` unless it is typing."""

        def __init__(self, position: str, state: ResponseJudgment, urgent: bool) -> None:
            super().__init__()
            self.position = position
            self.state = state
            self.urgent = urgent

    def __init__(
        self,
        position: str,
        rubric: Rubric,
        *,
        id: str | None = None,
        timing_rule: str | None = None,
    ) -> None:
        super().__init__(id=id, classes="response-scoring")
        self.position = position
        self.rubric = rubric
        self.timing_rule = timing_rule
        """Seed 002: when the design states one, the minutes to bring the output to brief."""
        self.dimensions = [d for d in rubric.dimensions if d.scored]
        self.state = ResponseJudgment.model_construct()
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
            rationale = RationaleInput(
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
        reason = FieldInput(
            "Reason for the override (required)",
            id=f"override-reason-{self.position}",
            classes="override-reason",
        )
        reason.after_enter = self._reason_entered
        yield reason
        if self.timing_rule is not None:
            minutes = FieldInput(
                "Correction minutes to 'meets brief' (optional; "
                + safe_line(self.timing_rule)
                + ")",
                id=f"minutes-{self.position}",
                classes="correction-minutes",
            )
            minutes.after_enter = self._reason_entered
            yield minutes

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
                    "row), or reclassify it with a reason (x) and judge the output; scores "
                    "alone never change it.",
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
            override.set_record_state(record_state, manual=not self.rubric.allows_abstention)
            override.set_value(
                RECLASSIFY
                if state.reclassified
                else state.state_override.value
                if state.state_override
                else None
            )
            self.query_one(".override-reason", Input).value = state.override_reason
            for minutes in self.query(".correction-minutes").results(Input):
                shown = state.correction_minutes
                minutes.value = "" if shown is None else f"{shown:g}"
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
            state_override=ResultState(override) if override and override != RECLASSIFY else None,
            override_reason=self.query_one(".override-reason", Input).value if override else "",
            reclassified=override == RECLASSIFY,
            correction_minutes=self._minutes(),
        )

    def _minutes(self) -> float | None:
        """The minutes typed, or None when blank or not a number of minutes (flagged)."""
        for field in self.query(".correction-minutes").results(Input):
            text = field.value.strip()
            try:
                value = float(text) if text else None
            except ValueError:
                value = None
            valid = value is None or 0 <= value <= 100_000
            field.set_class(bool(text) and (value is None or not valid), "-required")
            return value if valid else None
        return self.state.correction_minutes  # not asked for: whatever is stored stays

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
            # Tab goes from one decision to the next: a rationale is a stop only when asked for
            # or already written (a click still opens any of them).
            rationale.can_focus = needed or bool(rationale.value.strip()) or rationale.has_focus
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
        if self._record_state is not None and not (
            state.reclassified or state.state_override is not None
        ):
            return Text.assemble(
                ("Result: ", "bold"),
                (self._record_state, "bold yellow"),
                ("  (the record's: confirm it, or reclassify it to let the scores decide)", "dim"),
            )
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
            elif state.reclassified:
                text.append(f"  (reclassified from {self._record_state})", "dim")
            elif state.fatal_hits:
                hits = len(state.fatal_hits)
                text.append(f"  ({hits} fatal hit{'' if hits == 1 else 's'})", "dim")
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
            rationale.can_focus = True
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
        if state.state_override is not None or state.reclassified:
            if not state.override_reason.strip():
                return self.query_one(".override-reason", Input)
            if state.state_override is not None:
                return None
        for dim in self.dimensions:
            score = state.scores.get(dim.id)
            if score is None:
                return self.query_one(f"#dim-{self.position}-{dim.id}", DimensionRow)
            if score < max(dim.scale) and not state.rationales.get(dim.id, "").strip():
                return self.query_one(f"#rationale-{self.position}-{dim.id}", Input)
        return None
