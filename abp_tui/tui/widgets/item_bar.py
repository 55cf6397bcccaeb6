"""The compare screen's item bar: one line saying which item is shown, where its judgment is on
its way to the database, what a submission still lacks, and the state of the word diff.

The bar is one line of fixed size, so every update is a repaint without measuring the screen
again (``layout=False``): it changes with nearly every key a reviewer presses. An item that
takes long to arrive is announced here, but only after ``OPENING_NOTICE_SECONDS``: a quick item
replaces the old one in the same frame, and announcing at once would cost a frame of its own.
"""

from __future__ import annotations

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from abp_tui.services.reviewing import BlindItem
from abp_tui.text.safe import safe_line

OPENING_NOTICE_SECONDS = 0.15
"""An item that takes longer than this to arrive is announced in the item bar."""


def duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


class ItemBar(Static):
    """The line above the compare screen's workspace."""

    def __init__(self, *, id: str = "item-bar") -> None:
        super().__init__(Text("Opening your next item…"), id=id)
        self._opening: Timer | None = None

    def show_item(
        self,
        item: BlindItem,
        *,
        title: str,
        status: Text,
        missing: int | None,
        diff: Text | None,
    ) -> None:
        """``status``: where the judgment is; ``missing``: what a submission lacks (None once
        submitted); ``diff``: the word diff's state (None for a single response)."""
        parts: list[Text] = [
            Text(safe_line(item.code), style="bold"),
            Text(f"item {item.index + 1} of {item.total}"),
            Text("pair" if len(item.responses) > 1 else "single response"),
            status,
        ]
        if missing is not None:
            parts.append(
                Text(f"{missing} to do before submitting", style="dim")
                if missing
                else Text("ready to submit (s)", style="bold")
            )
        if item.seconds_spent >= 1:
            parts.append(Text(f"time so far {duration(item.seconds_spent)}", style="dim"))
        if diff is not None:
            parts.append(diff)
        line = Text("  ·  ").join(parts)
        if title:
            line = Text.assemble(Text(safe_line(title), style="dim"), "  │  ", line)
        self.update(line, layout=False)

    def say(self, text: Text) -> None:
        """Show ``text`` instead of an item (no item, or it could not be opened)."""
        self.arrived()
        self.update(text)

    def opening(self) -> None:
        """An item was asked for: say so if it does not arrive soon."""

        def announce() -> None:
            self.update(Text("Opening…", style="dim"), layout=False)

        self.arrived()
        self._opening = self.set_timer(OPENING_NOTICE_SECONDS, announce)

    def arrived(self) -> None:
        """The item asked for arrived (or will not): no announcement."""
        if self._opening is not None:
            self._opening.stop()
            self._opening = None
