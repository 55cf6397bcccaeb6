"""A rubric's validity gate (seed 000's five checks for the AFP rubrics), each check answered
"holds" or "fails" before scoring. A rubric without a gate has no panel.

The panel posts its whole answer (``GatePanel.Changed``) whenever the reviewer changes it; the
judgment form takes it from there. Check texts come from rubric files: shown as safe text.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from abp_tui.models import ValidityCheck
from abp_tui.text.safe import safe_line
from abp_tui.tui.widgets.choices import Choice, ChoiceRow, row_key


class CheckRow(ChoiceRow):
    """One check of the validity gate: passed or failed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        row_key(
            "y", "choose('yes')", "Passed", id="gate.yes", tooltip="This validity check holds."
        ),
        row_key(
            "n",
            "choose('no')",
            "Failed",
            id="gate.no",
            tooltip="This check fails: the item then needs INVALID_TEST or GRADER_DISPUTE.",
        ),
        row_key(
            "Y",
            "all_pass",
            "All pass",
            key_display="shift+y",
            id="gate.all",
            tooltip="Mark every validity check as holding (read them first).",
        ),
        row_key(
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
        super().__init__(Text(safe_line(text)), choices, inline=True, id=f"check-{check_id}")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While a search is on, n jumps to the next hit (the screen's binding) instead of
        # failing this check: a reviewer meaning to jump must never fail a check by accident.
        searching = bool(getattr(self.screen, "searching", False))
        if action == "choose" and parameters == ("no",) and searching:
            return False
        return super().check_action(action, parameters)

    def action_all_pass(self) -> None:
        gate = next((a for a in self.ancestors if isinstance(a, GatePanel)), None)
        if gate is not None:
            gate.all_pass()


class GatePanel(Vertical):
    """A rubric's validity gate: its checks, answered before quality scoring."""

    class Changed(Message):
        def __init__(self, validity: dict[str, bool]) -> None:
            super().__init__()
            self.validity = validity

    def __init__(self, checks: tuple[ValidityCheck, ...], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.checks = checks

    def compose(self) -> ComposeResult:
        yield Static(Text("Validity gate", style="bold"), classes="section-title")
        for check in self.checks:
            row = CheckRow(check.id, check.text)
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
