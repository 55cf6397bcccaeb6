"""The pair's preference (which response is better, as shown) and its justification.

The panel posts both (``PreferencePanel.Changed``) whenever the reviewer changes them; the
judgment form takes it from there.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input

from abp_tui.models import PreferenceChoice
from abp_tui.tui.widgets.choices import Choice, ChoiceRow, FieldEcho, FieldInput, row_key

PREFER: Final = Binding.Group("Prefer")
"""The four choices, one entry of the key bar ("1 2 t i Prefer"): a narrow bar showed the
first alone ("1 Response 1") and left the others behind its "+13"."""


class PreferenceRow(ChoiceRow):
    """Which response is better, as shown."""

    BINDINGS: ClassVar[list[BindingType]] = [
        row_key(
            "1",
            "choose('response_1')",
            "Response 1",
            id="preference.1",
            group=PREFER,
            tooltip="Response 1 is better.",
        ),
        row_key(
            "2",
            "choose('response_2')",
            "Response 2",
            id="preference.2",
            group=PREFER,
            tooltip="Response 2 is better.",
        ),
        row_key(
            "t",
            "choose('tie')",
            "Tie",
            id="preference.tie",
            group=PREFER,
            tooltip="Neither is better.",
        ),
        row_key(
            "i",
            "choose('insufficient_evidence')",
            "Insufficient",
            id="preference.insufficient",
            group=PREFER,
            tooltip="The evidence is not enough to prefer either response.",
        ),
        row_key(
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
        field = FieldInput("Justification of the preference (required)", id="justification")
        field.after_enter = self._entered
        yield field
        yield FieldEcho(id="justification-echo")

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
        self.query_one(FieldEcho).follow(box)

    def on_resize(self) -> None:
        self.query_one(FieldEcho).follow(self.query_one("#justification", Input))

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
