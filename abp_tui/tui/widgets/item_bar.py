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


SEPARATOR = "  ·  "


def packed(parts: list[Text], width: int, separator: str = SEPARATOR) -> tuple[Text, int]:
    """``parts`` joined by ``separator``, a line break in a separator's place where the next
    part would not fit in ``width`` cells, and the lines it takes: a narrow terminal's bar wraps
    between its parts ("not started" is never cut in two), each part whole where it fits. A
    part ending in a rule (the study's name, "│") is followed by the separator's spaces."""
    line = Text()
    used = 0
    lines = 1
    between = separator
    for part in parts:
        size = part.cell_len
        if used and width > 0 and used + len(between) + size > width:
            line.append("\n")
            used = 0
            lines += 1
        elif used:
            line.append(between)
            used += len(between)
        line.append_text(part)
        used += size
        between = separator[: len(separator) // 2] if part.plain.endswith("│") else separator
    return line, lines


def fitted(
    parts: list[tuple[Text, int]], width: int, height: int, separator: str = SEPARATOR
) -> Text:
    """:func:`packed` ``parts``, each given with the order it gives way in (0: never) while they
    take more than ``height`` lines of ``width`` cells: the least needed left out first."""
    shown = list(parts)
    line, lines = packed([p for p, _rank in shown], width, separator)
    for rank in sorted({r for _p, r in parts if r}):
        if lines <= height or width <= 0:
            break
        shown = [(p, r) for p, r in shown if r != rank]
        line, lines = packed([p for p, _rank in shown], width, separator)
    return line


TITLE_RANK = 3
"""The study's and design's names give way last (after the time spent and a pair's kind)."""


def titled(name: Text, width: int) -> Text:
    """``name`` cut to ``width`` cells at most (an ellipsis in the last one; whole when the
    width is not known yet), followed by a rule."""
    if width > 1 and name.cell_len > width:
        name = name.copy()
        name.truncate(width, overflow="ellipsis")
    return Text.assemble(name, "  │")


class ItemBar(Static):
    """The line above the compare screen's workspace."""

    def __init__(self, *, id: str = "item-bar") -> None:
        super().__init__(Text("Opening your next item…"), id=id)
        self._opening: Timer | None = None
        self._parts: list[tuple[Text, int]] = []

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
        # Each part with the order it gives way in when the bar's lines cannot hold them all
        # (0: never): the time spent first, then the kind of a pair (the usual one), then the
        # study's and design's names.
        parts: list[tuple[Text, int]] = []
        if title:
            parts.append((Text(safe_line(title), style="dim"), TITLE_RANK))
            # The header (shown on a tall terminal) names the study and design beside the
            # reviewer; the bar then leaves them out (:meth:`_show`).
            named = f"{self.app.sub_title}  ·  {safe_line(title)}"
            if self.screen.sub_title != named:
                self.screen.sub_title = named
        parts += [
            (Text(safe_line(item.code), style="bold"), 0),
            (Text(f"item {item.index + 1} of {item.total}"), 0),
            (Text("pair"), 2) if len(item.responses) > 1 else (Text("single response"), 0),
            (status, 0),
        ]
        if missing is not None:
            parts.append(
                (Text(f"{missing} to do before submitting", style="dim"), 0)
                if missing
                else (Text("ready to submit (s)", style="bold"), 0)
            )
        if item.seconds_spent >= 1:
            parts.append((Text(f"time so far {duration(item.seconds_spent)}", style="dim"), 1))
        if diff is not None:
            parts.append((diff, 0))
        self._parts = parts
        self._show()

    def _show(self) -> None:
        """The item's parts fitted to the bar's size (:func:`fitted`). The study's and design's
        names are the header's on a tall terminal; on a short one (no header) the bar's, cut to
        a third of its width at most (a long name does not push the item's state off it)."""
        size = self.size
        width = size.width  # the content area: its padding left out
        header = not self.screen.has_class("-short")  # the screen's header names them
        parts = [
            (titled(part, width // 3), rank) if rank == TITLE_RANK else (part, rank)
            for part, rank in self._parts
            if not (header and rank == TITLE_RANK)
        ]
        self.update(fitted(parts, width, max(1, size.height)), layout=False)

    def on_resize(self) -> None:
        """The item's line packed again for the bar's new size."""
        if self._parts:
            self._show()

    def say(self, text: Text) -> None:
        """Show ``text`` instead of an item (no item, or it could not be opened)."""
        self.arrived()
        self._parts = []
        self.update(text)

    def opening(self) -> None:
        """An item was asked for: say so if it does not arrive soon."""

        def announce() -> None:
            self._parts = []
            self.update(Text("Opening…", style="dim"), layout=False)

        self.arrived()
        self._opening = self.set_timer(OPENING_NOTICE_SECONDS, announce)

    def arrived(self) -> None:
        """The item asked for arrived (or will not): no announcement."""
        if self._opening is not None:
            self._opening.stop()
            self._opening = None
