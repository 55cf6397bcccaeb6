"""A read-only pane for one long untrusted text, drawn line by line (Textual's Line API).

Only the visible lines are ever turned into segments, so a 1 MB output scrolls as freely as a
short one. The text is wrapped to the pane's width once (in a worker thread when it is long) into
(start, end) offsets; each visible line is sliced from the text and styled where a word diff
marks it changed, where an identity term was masked, where a search found a hit, or where the
text's own styles say (a transcript's headings, tool names and errors: spans of offsets, see
:mod:`abp_tui.tui.widgets.transcriptlayout`). Text is never parsed as markup: it is the display
form from ``textlayout.display_text`` (control and invisible characters already made visible).
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import pairwise
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from abp_tui.analysis.blinding import MASK
from abp_tui.tui.widgets.textlayout import Range, line_of, wrap_offsets
from abp_tui.tui.workers import background

WRAP_IN_THREAD = 200_000
"""Texts longer than this (characters) are wrapped in a worker thread."""
_CACHE_LINES = 400
"""Lines kept drawn per pane (a few screens): each is a handful of objects the collector walks."""


class TextPane(ScrollView, can_focus=True):
    """Shows one text, wrapped, with optional changed ranges and a current range highlighted."""

    DEFAULT_CSS = """
    TextPane {
        scrollbar-gutter: stable;
        overflow-x: hidden;
        padding: 0 1;
        background: $surface;
        & > .text-pane--changed { background: $accent 35%; }
        & > .text-pane--current { background: $warning 70%; color: $background; }
        & > .text-pane--masked { color: $text-accent; text-style: italic; }
        & > .text-pane--placeholder { color: $text-muted; text-style: italic; }
        & > .text-pane--heading { color: $text-primary; text-style: bold; }
        & > .text-pane--label { color: $text-secondary; }
        & > .text-pane--tool { color: $text-accent; text-style: bold; }
        & > .text-pane--error { color: $text-error; }
        & > .text-pane--fold { color: $text-warning; text-style: italic; }
        & > .text-pane--muted { color: $text-muted; }
        & > .text-pane--note { color: $text-muted; text-style: italic; }
        & > .text-pane--hit { background: $secondary 45%; }
        & > .text-pane--hit-current { background: $success 80%; color: $background; }
        &:focus { background-tint: $foreground 4%; }
    }
    """

    TEXT_STYLES: ClassVar[frozenset[str]] = frozenset(
        {"heading", "label", "tool", "error", "fold", "muted", "note"}
    )
    """The names a text's own styles may use (``text-pane--<name>``)."""
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "text-pane--changed",
        "text-pane--current",
        "text-pane--masked",
        "text-pane--placeholder",
        "text-pane--hit",
        "text-pane--hit-current",
        *(f"text-pane--{name}" for name in TEXT_STYLES),
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "scroll_up", "Up", show=False, id="pane.up", tooltip="Scroll up a line."),
        Binding("down", "scroll_down", "Down", show=False, id="pane.down", tooltip="Scroll down."),
        Binding("pageup", "page_up", "Page up", show=False, id="pane.page_up", tooltip="Page up."),
        Binding(
            "pagedown",
            "page_down",
            "Page down",
            show=False,
            id="pane.page_down",
            tooltip="Page down.",
        ),
        Binding("home", "scroll_home", "Top", show=False, id="pane.top", tooltip="To the top."),
        Binding("end", "scroll_end", "End", show=False, id="pane.end", tooltip="To the end."),
    ]

    class Scrolled(Message):
        """The reader scrolled this pane; ``offset`` is the text offset now at the top."""

        def __init__(self, pane: TextPane, offset: int) -> None:
            super().__init__()
            self.pane = pane
            self.offset = offset

    class Clicked(Message):
        """The reader clicked the text at ``offset`` (a transcript unfolds a block there)."""

        def __init__(self, pane: TextPane, offset: int) -> None:
            super().__init__()
            self.pane = pane
            self.offset = offset

    class Wrapped(Message):
        """A long text finished wrapping in its worker."""

        def __init__(self, generation: int, width: int, lines: list[Range]) -> None:
            super().__init__()
            self.generation = generation
            self.width = width
            self.lines = lines

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.text = ""
        self.placeholder = ""
        self.changed: list[Range] = []
        self.current: Range | None = None
        self.hits: list[Range] = []
        """Search hits (sorted, disjoint); ``current_hit`` is the one jumped to."""
        self.current_hit: Range | None = None
        self._style_ranges: list[Range] = []
        self._style_names: list[str] = []
        self._lines: list[Range] = []
        self._starts: list[int] = []
        self._wrapped_width = 0
        self._generation = 0
        self._pending_top: int | None = None
        self._cache: dict[tuple[int, int, Style], Strip] = {}
        self._quiet = False
        self._drawing: tuple[Style, int] | None = None

    # -- content ----------------------------------------------------------------------------
    def show(
        self,
        text: str,
        placeholder: str = "",
        wrapped: tuple[int, list[Range]] | None = None,
        styles: tuple[list[Range], list[str]] | None = None,
        *,
        top: int = 0,
    ) -> None:
        """Show a (display-form) text from offset ``top``; ``placeholder`` when it is empty.

        ``wrapped`` is the text already wrapped (``wrap_offsets``) to a width, e.g. in the
        worker that read it: used as it is when the pane still has that width. ``styles`` are
        the text's own spans: their (start, end) ranges, sorted and disjoint, and each one's name
        (``TEXT_STYLES``), kept as they are (a long transcript's are made in a worker).
        """
        self.text = text
        self.placeholder = placeholder
        self.changed = []
        self.current = None
        self.hits = []
        self.current_hit = None
        self._style_ranges, self._style_names = styles if styles is not None else ([], [])
        self._generation += 1
        self._wrapped_width = 0
        self._lines = []
        self._starts = []
        self._pending_top = top
        self._cache.clear()
        if wrapped is not None and wrapped[0] > 0 and wrapped[0] == self.wrap_width():
            self._apply_wrap(*wrapped)
        else:
            self._layout()

    def set_changed(self, changed: list[Range], current: Range | None = None) -> None:
        self.changed = changed
        self.current = current
        self._cache.clear()
        self.refresh()

    def set_hits(self, hits: list[Range], current: Range | None = None) -> None:
        """Highlight search hits, ``current`` (the one jumped to) most of all."""
        self.hits = hits
        self.current_hit = current
        self._cache.clear()
        self.refresh()

    @property
    def line_count(self) -> int:
        return len(self._lines)

    @property
    def is_laid_out(self) -> bool:
        return self._wrapped_width > 0

    def visible_text(self) -> str:
        """The lines currently in view, as plain text (what a reader sees)."""
        top = round(self.scroll_y)
        rows = [self.text[a:b].rstrip() for a, b in self._lines[top : top + self.size.height]]
        if not self.text and self.placeholder:
            rows = [self.placeholder]
        return "\n".join(rows)

    # -- wrapping ---------------------------------------------------------------------------
    def wrap_width(self) -> int:
        """The width the text is wrapped to (0 before the pane is laid out)."""
        return self.scrollable_content_region.width

    def _layout(self) -> None:
        width = self.wrap_width()
        if width <= 0:
            return
        if len(self.text) > WRAP_IN_THREAD:
            self._wrap_in_thread(self._generation, self.text, width)
        else:
            self._apply_wrap(width, wrap_offsets(self.text, width))

    @background(group="wrap", description="Wrapping a long output", exclusive=True)
    def _wrap_in_thread(self, generation: int, text: str, width: int) -> None:
        lines = wrap_offsets(text, width)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Wrapped(generation, width, lines))

    def on_text_pane_wrapped(self, message: TextPane.Wrapped) -> None:
        message.stop()
        if message.generation == self._generation and message.width == self.wrap_width():
            self._apply_wrap(message.width, message.lines)

    def _apply_wrap(self, width: int, lines: list[Range]) -> None:
        top = self._pending_top if self._pending_top is not None else self.top_offset()
        self._pending_top = None
        self._lines = lines if self.text else []
        self._starts = [a for a, _ in self._lines]
        self._wrapped_width = width
        self._cache.clear()
        height = len(self._lines) if self.text else (1 if self.placeholder else 0)
        self.virtual_size = Size(width, height)
        self.scroll_to_offset(top, context=0)
        self.refresh()

    def on_resize(self) -> None:
        width = self.wrap_width()
        if width > 0 and width != self._wrapped_width:
            if self._wrapped_width:
                self._pending_top = self.top_offset()
            self._layout()

    # -- positions --------------------------------------------------------------------------
    def top_offset(self) -> int:
        """The text offset of the first line in view."""
        if not self._lines:
            return 0
        return self._lines[min(len(self._lines) - 1, round(self.scroll_y))][0]

    def line_of(self, offset: int) -> int:
        return line_of(self._starts, offset)

    def scroll_to_offset(self, offset: int, context: int = 2) -> None:
        """Scroll (without telling the other pane) so ``offset`` shows ``context`` lines down."""
        if not self._lines:
            if not self.is_laid_out:
                self._pending_top = offset
            return
        y = max(0, self.line_of(offset) - context)
        self._quiet = True
        try:
            self.scroll_to(y=y, animate=False, immediate=True)
        finally:
            self._quiet = False

    def offset_at_row(self, row: int) -> int | None:
        """The text offset at the start of the visual line ``row`` rows below the top."""
        index = round(self.scroll_y) + row
        if not self._lines or not 0 <= index < len(self._lines):
            return None
        return self._lines[index][0]

    def visible_range(self) -> Range:
        """The offsets of the text in view (from the first line's start to the last's end)."""
        if not self._lines:
            return (0, 0)
        top = min(len(self._lines) - 1, round(self.scroll_y))
        bottom = min(len(self._lines) - 1, top + max(1, self.size.height) - 1)
        return (self._lines[top][0], self._lines[bottom][1])

    def on_click(self, event: events.Click) -> None:
        offset = self.offset_at_row(event.y)
        if offset is not None:
            self.post_message(self.Clicked(self, offset))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self._quiet and round(old_value) != round(new_value):
            self.post_message(self.Scrolled(self, self.top_offset()))

    # -- drawing ----------------------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        # The pane's style and width are the same for every line of one repaint: looked up
        # once (the style walks all ancestors) instead of once per line.
        self._drawing = (self.rich_style, self.scrollable_content_region.width)
        try:
            return super().render_lines(crop)
        finally:
            self._drawing = None

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        if self._drawing is not None:
            base, width = self._drawing
        else:
            base, width = self.rich_style, self.scrollable_content_region.width
        if not self.text:
            if index == 0 and self.placeholder:
                style = base + self.get_component_rich_style("text-pane--placeholder")
                return Strip([Segment(self.placeholder, style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if index >= len(self._lines):
            return Strip.blank(width, base)
        key = (index, width, base)
        strip = self._cache.get(key)
        if strip is None:
            if len(self._cache) > _CACHE_LINES:
                self._cache.clear()
            # Kept at its final width: a repaint reuses it as it is.
            strip = self._build_line(index, base).crop_extend(0, width, base)
            self._cache[key] = strip
        return strip

    def _build_line(self, index: int, base: Style) -> Strip:
        start, end = self._lines[index]
        text = self.text[start:end].rstrip(" ")
        end = start + len(text)
        if not text:
            return Strip([])
        cuts = {0, len(text)}
        styled: list[tuple[Range, str]] = []
        for a, b in _overlapping(self.changed, start, end):
            styled.append(((a - start, b - start), "text-pane--changed"))
        if self.current is not None and self.current[0] < end and self.current[1] > start:
            a, b = max(self.current[0], start), min(self.current[1], end)
            styled.append(((a - start, b - start), "text-pane--current"))
        if self._style_ranges:
            names = self._style_names
            for (a, b), i in _overlapping_indexed(self._style_ranges, start, end):
                styled.append(((a - start, b - start), f"text-pane--{names[i]}"))
        found = text.find(MASK)
        while found != -1:
            styled.append(((found, found + len(MASK)), "text-pane--masked"))
            found = text.find(MASK, found + len(MASK))
        for a, b in _overlapping(self.hits, start, end):
            styled.append(((a - start, b - start), "text-pane--hit"))
        hit = self.current_hit
        if hit is not None and hit[0] < end and hit[1] > start:
            a, b = max(hit[0], start), min(hit[1], end)
            styled.append(((a - start, b - start), "text-pane--hit-current"))
        for (a, b), _name in styled:
            cuts.update((a, b))
        points = sorted(cuts)
        component = {name: self.get_component_rich_style(name) for _r, name in styled}
        segments = []
        for a, b in pairwise(points):
            style = base
            for (sa, sb), name in styled:
                if sa <= a and b <= sb:
                    style = style + component[name]
            segments.append(Segment(text[a:b], style))
        return Strip(segments)


def _overlapping(ranges: list[Range], start: int, end: int) -> list[Range]:
    """The parts of sorted, disjoint ``ranges`` that fall within [start, end)."""
    return [r for r, _ in _overlapping_indexed(ranges, start, end)]


def _overlapping_indexed(ranges: list[Range], start: int, end: int) -> list[tuple[Range, int]]:
    """As :func:`_overlapping`, with each part's index in ``ranges``."""
    if not ranges:
        return []
    i = max(0, bisect_left(ranges, (start, start)) - 1)
    out = []
    while i < len(ranges) and ranges[i][0] < end:
        a, b = ranges[i]
        if b > start:
            out.append(((max(a, start), min(b, end)), i))
        i += 1
    return out
