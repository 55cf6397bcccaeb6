"""Laying out a transcript for a text pane: one display text, its styled spans, its folds.

A :class:`~abp_tui.analysis.transcript.Transcript` (already masked and made safe by the core)
becomes the text a :class:`~abp_tui.tui.widgets.textpane.TextPane` draws line by line: a heading
per step (its number, kind, time and tokens), the message, each tool call with its arguments,
result and error, and the step's other fields. Long blocks (a tool's result, arguments, fields,
a long prompt) are folded to a few lines and a marker saying what is hidden; the assistant's own
words never are. A block holding a search hit is unfolded, so a hit is always in view.

Pure functions, no Textual: they run in worker threads (a transcript of thousands of steps is
laid out, wrapped and searched there, never on the event loop) and are tested without a terminal.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field

from abp_tui.analysis.transcript import Step, StepTokens, Transcript
from abp_tui.text.search import contains, find_all
from abp_tui.tui.widgets.textlayout import TAB_SIZE, Range, wrap_offsets

FOLD_LINES = 12
"""A block with more lines than this is folded."""
FOLD_CHARACTERS = 2_000
"""A block with more characters than this is folded (one huge line folds too)."""
PREVIEW_LINES = 4
PREVIEW_CHARACTERS = 400
INDENT = "  "

Style = tuple[int, int, str]
"""(start, end, name): ``name`` is a TextPane style (``heading``, ``tool``, ``error``...)."""
FoldKey = tuple[int, int]
"""(step index, block index within the step): stable for one transcript."""


@dataclass(frozen=True)
class Fold:
    """A long block: folded (a preview and a marker) or unfolded (all of it and a marker)."""

    key: FoldKey
    start: int
    """Offset of the block's first line."""
    marker: Range
    """The marker's line, from its start (a click or ``e`` on it folds or unfolds the block)."""
    folded: bool


@dataclass(frozen=True)
class TranscriptLayout:
    text: str
    ranges: list[Range]
    """Where the text's own styles apply: sorted, disjoint."""
    names: list[str]
    """The style of each range (a TextPane style name: ``heading``, ``tool``, ``error``...)."""
    folds: tuple[Fold, ...] = ()

    @property
    def styles(self) -> list[Style]:
        return [(a, b, name) for (a, b), name in zip(self.ranges, self.names, strict=True)]

    def fold_at(self, offset: int) -> Fold | None:
        """The fold whose marker line holds ``offset``."""
        return next((f for f in self.folds if f.marker[0] <= offset <= f.marker[1]), None)

    def fold_of(self, key: FoldKey) -> Fold | None:
        return next((f for f in self.folds if f.key == key), None)


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.ranges: list[Range] = []
        self.names: list[str] = []
        self.folds: list[Fold] = []
        self.at = 0

    def add(self, text: str, style: str | None = None) -> None:
        if not text:
            return
        if style is not None:
            self.ranges.append((self.at, self.at + len(text)))
            self.names.append(style)
        self.parts.append(text)
        self.at += len(text)

    def end_line(self) -> None:
        self.add("\n")

    def line(self, indent: str, text: str, style: str | None = None) -> None:
        self.add(indent)
        self.add(text, style)
        self.end_line()


def _seconds(ms: float) -> str:
    return f"{ms / 1000:,.1f} s" if ms >= 1000 else f"{ms:,.0f} ms"


def _token_parts(tokens: StepTokens | None) -> list[str]:
    if tokens is None:
        return []
    names = (
        ("in", tokens.input),
        ("out", tokens.output),
        ("cache read", tokens.cache_read),
        ("cache write", tokens.cache_write),
    )
    return [f"{name} {value:,}" for name, value in names if value is not None]


def _heading(step: Step, number: int) -> tuple[str, str]:
    """The step's title and what is known about it (time, duration, tokens, subagent)."""
    meta = []
    if step.elapsed_ms is not None:
        meta.append(f"+{step.elapsed_ms / 1000:,.1f} s")
    if step.duration_ms is not None:
        meta.append(_seconds(step.duration_ms))
    meta.extend(_token_parts(step.tokens))
    if step.branch:
        meta.append(f"subagent {step.branch}")
    if step.seq is not None:
        meta.append(f"event {step.seq}")
    return f"{number} {step.kind}", "  ·  ".join(meta)


class _Layout:
    def __init__(
        self,
        expanded: frozenset[FoldKey],
        collapsed: frozenset[FoldKey],
        query: str,
        fold_key: str = "e",
    ):
        self.out = _Writer()
        self.fold_key = fold_key
        """The key the markers name (the screen's unfold key)."""
        self.expanded = expanded
        self.collapsed = collapsed
        self.query = query

    def block(self, indent: str, text: str, key: FoldKey | None, style: str | None = None) -> None:
        """A block of text, indented; folded when it is long and ``key`` lets it fold."""
        out = self.out
        text = text.expandtabs(TAB_SIZE).strip("\n")
        lines = text.split("\n")
        long = len(lines) > FOLD_LINES or len(text) > FOLD_CHARACTERS
        if key is None or not long:
            for line in lines:
                out.line(indent, line, style)
            return
        shown = key in self.expanded or (bool(self.query) and contains(text, self.query))
        folded = key in self.collapsed or not shown
        start = out.at
        if folded:
            budget = PREVIEW_CHARACTERS
            preview = []
            for line in lines[:PREVIEW_LINES]:
                preview.append(line[:budget] + ("…" if len(line) > budget else ""))
                budget -= len(line)
                if budget <= 0:
                    break
            for line in preview:
                out.line(indent, line, style)
            hidden = len(lines) - len(preview)
            what = f"{hidden:,} more line{'s' if hidden != 1 else ''}" if hidden else "the rest"
            marker = f"▸ {what} folded ({len(text):,} chars) · {self.fold_key} unfolds"
        else:
            for line in lines:
                out.line(indent, line, style)
            marker = f"▴ {self.fold_key} folds this back"
        begin = out.at
        out.add(indent)
        out.add(marker, "fold")
        out.folds.append(Fold(key, start, (begin, out.at), folded))
        out.end_line()

    def labelled(self, indent: str, label: str, text: str, key: FoldKey, style: str | None) -> None:
        self.out.line(indent, label, "label")
        self.block(indent + INDENT, text, key, style)

    def step(self, index: int, step: Step) -> None:
        out = self.out
        indent = INDENT * step.depth
        body = indent + INDENT
        title, meta = _heading(step, index + 1)
        out.add(indent)
        out.add("▌" + title, "heading")
        if meta:
            out.add("  ·  " + meta, "muted")
        out.end_line()
        blocks = 0

        def key() -> FoldKey:
            nonlocal blocks
            blocks += 1
            return (index, blocks)

        if step.text:
            # The agent's own words are what a reviewer reads: never folded.
            self.block(body, step.text, None if step.kind == "assistant" else key())
        for call in step.calls:
            out.add(body)
            out.add("→ ", "muted")
            out.add(call.name, "tool")
            if call.duration_ms is not None:
                out.add("  ·  " + _seconds(call.duration_ms), "muted")
            out.end_line()
            inner = body + INDENT
            if call.arguments:
                self.labelled(inner, "arguments", call.arguments, key(), None)
            if call.result is not None:
                self.labelled(inner, "result", call.result or "(empty)", key(), None)
            if call.error:
                self.labelled(inner, "error", call.error, key(), "error")
        if step.error:
            self.labelled(body, "error", step.error, key(), "error")
        if step.details:
            self.labelled(body, "fields", step.details, key(), "muted")
        out.end_line()

    def header(self, transcript: Transcript) -> None:
        out = self.out
        steps = len(transcript.steps)
        title = f"{transcript.source} · {steps:,} step{'s' if steps != 1 else ''}"
        calls = transcript.tool_calls
        if calls:
            title += f" · {calls:,} tool call{'s' if calls != 1 else ''}"
        out.line("", title, "heading")
        if transcript.masked:
            noun = "term" if transcript.masked == 1 else "terms"
            out.line(INDENT, f"{transcript.masked:,} identity {noun} masked", "muted")
        for line in transcript.summary:
            out.line(INDENT, line, "muted")
        for note in transcript.notes:
            self.block(INDENT, note, None, "note")
        out.end_line()


def layout_transcript(
    transcript: Transcript,
    expanded: Iterable[FoldKey] = (),
    collapsed: Iterable[FoldKey] = (),
    query: str = "",
    fold_key: str = "e",
) -> TranscriptLayout:
    """The transcript as display text with styles and folds (``expanded``: unfolded by the
    reviewer; ``collapsed``: folded back although they hold a hit of ``query``; ``fold_key``:
    the key the fold markers name)."""
    layout = _Layout(frozenset(expanded), frozenset(collapsed), query, fold_key)
    layout.header(transcript)
    for index, step in enumerate(transcript.steps):
        layout.step(index, step)
    out = layout.out
    text = "".join(out.parts).rstrip("\n")
    kept = bisect_left(out.ranges, (len(text), len(text)))  # none in the trailing newlines
    return TranscriptLayout(text, out.ranges[:kept], out.names[:kept], tuple(out.folds))


@dataclass(frozen=True)
class ShownTranscript:
    """A transcript ready for its pane (prepared in a worker): laid out, wrapped, searched."""

    transcript: Transcript
    layout: TranscriptLayout
    wrapped: tuple[int, list[Range]] | None
    """Wrapped to the pane's width when it was prepared (None: no width known)."""
    query: str = ""
    hits: list[Range] = field(default_factory=list)
    expanded: frozenset[FoldKey] = frozenset()
    collapsed: frozenset[FoldKey] = frozenset()
    fold_key: str = "e"
    """The key its fold markers name (kept when it is laid out again)."""


def prepare_transcript(
    transcript: Transcript,
    width: int,
    *,
    expanded: frozenset[FoldKey] = frozenset(),
    collapsed: frozenset[FoldKey] = frozenset(),
    query: str = "",
    fold_key: str = "e",
) -> ShownTranscript:
    """Lay out, wrap to ``width`` and search a transcript (slow for long ones: in a worker)."""
    layout = layout_transcript(transcript, expanded, collapsed, query, fold_key)
    wrapped = (width, wrap_offsets(layout.text, width)) if width > 0 else None
    hits = find_all(layout.text, query) if query else []
    return ShownTranscript(transcript, layout, wrapped, query, hits, expanded, collapsed, fold_key)
