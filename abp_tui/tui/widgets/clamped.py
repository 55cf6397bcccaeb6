"""Text on at most a few lines of its width, its last line ending in "…" when the text goes on."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

ELLIPSIS = "…"


def clamped(text: Text, width: int, lines: int, console: Any) -> Text:
    """``text`` wrapped at ``width`` cells, kept to its first ``lines`` lines; the last one kept
    ends in an ellipsis when more followed (a sentence cut off never reads as whole)."""
    if width <= 0 or lines <= 0:
        return text
    text = text.copy()
    text.rstrip()  # a final line end starts no line of text: nothing follows it to cut
    wrapped = text.wrap(console, width)
    if len(wrapped) <= lines:
        return text
    kept = list(wrapped)[:lines]
    last = kept[-1]
    last.rstrip()
    if last.cell_len > width - len(ELLIPSIS):
        last.truncate(width - len(ELLIPSIS))
        last.rstrip()
    last.append(ELLIPSIS, style=last.get_style_at_offset(console, len(last) - 1) if last else "")
    return Text("\n").join(kept)


class Clamped(Static):
    """A :class:`Static` of untrusted or long text (never parsed as markup) shown on at most
    ``lines`` lines of its width: a text that does not fit is cut at the end of its last line
    with an ellipsis, laid out again at each width."""

    def __init__(self, lines: int, **kwargs: Any) -> None:
        super().__init__(markup=False, **kwargs)
        self.lines = lines
        self._text = Text()

    def show(self, text: Text) -> None:
        """Show ``text`` (clamped when rendered, at the width the widget then has)."""
        self._text = text
        self.update(text)

    def render(self) -> Text:
        return clamped(self._text, self.content_size.width, self.lines, self.app.console)
