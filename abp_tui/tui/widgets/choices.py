"""The scoring panel's building blocks: a row of choices picked by key or click, the one-line
text field of the panel and the echo that shows a long field's text whole.

A row is one focus stop; its option keys are priority bindings of the focused row, so a choice
that moves the focus on lets the very next key reach the next row (a fast typist, a burst of
keys). Labels and anchors come from study files and are shown as ``rich.text.Text`` of safe
strings, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.events import Click
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

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


def row_key(key: str, action: str, description: str, **kwargs: Any) -> Binding:
    """A key of a focused scoring row. Such keys are priority bindings: Textual resolves them
    as it reads each key, so when a choice moves the focus on, the very next key (a fast typist,
    a burst of keys) already goes to the next row."""
    kwargs["priority"] = True
    return Binding(key, action, description, **kwargs)


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

    def on_focus(self) -> None:
        self.cursor_position = len(self.value)  # writing goes on at the end

    def on_blur(self) -> None:
        self.cursor_position = 0  # once left, the field shows its text from the start

    def action_enter(self) -> None:
        self.post_message(self.Submitted(self, self.value))
        if self.after_enter is not None:
            self.after_enter(self)


class FieldEcho(Static):
    """The whole of what a one-line field holds, wrapped under it, while it is longer than the
    field shows: the field scrolls to keep its cursor in view, and a reviewer writing a long
    justification reads it back whole before submitting. Hidden while the text fits."""

    DEFAULT_CSS = """
    FieldEcho { display: none; color: $text-muted; padding: 0 1 0 3; }
    FieldEcho.-shown { display: block; }
    """

    def follow(self, field: Input) -> None:
        """Show ``field``'s text when it does not fit in the field; else hide."""
        room = field.content_region.width
        long = room > 0 and len(field.value) >= room
        self.set_class(long, "-shown")
        self.update(safe(field.value) if long else "")
