"""The fatal criteria of one response as a checklist: one focus stop, a cursor, keys to tick.

A criterion ticked fails the response whatever its scores. Criteria come from task and rubric
files and are drawn as ``rich.text.Text`` of safe strings, never as markup.
"""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.binding import BindingType
from textual.events import Click
from textual.message import Message
from textual.widget import Widget

from abp_tui.tui.widgets.choices import row_key, safe


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
        row_key("up", "move(-1)", "Up", show=False, id="fatal.up", tooltip="Previous criterion."),
        row_key("down", "move(1)", "Down", show=False, id="fatal.down", tooltip="Next criterion."),
        row_key(
            "space,x",
            "toggle_cursor",
            "Hit",
            key_display="space",
            id="fatal.toggle",
            tooltip="Tick or untick the highlighted fatal criterion.",
        ),
        # Enter means "done" here as in every field of the panel: it never ticks a criterion.
        row_key(
            "enter",
            "done",
            "Done",
            key_display="⏎",
            id="fatal.done",
            tooltip="Leave the fatal criteria as they are and go to the next field.",
        ),
        *(
            row_key(
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
