"""Laying out long untrusted texts for the response panes: display form, wrapping, diff marks.

Pure functions, no textual: they run in worker threads and are tested without a terminal.
Offsets are character offsets into the *display* text (the output after ``display_text``), so
the diff, the wrapped lines and the highlighting all speak about the same string.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from functools import lru_cache

from rich.cells import cell_len, get_character_cell_size

from abp_tui.text.diff import Span, word_diff
from abp_tui.text.safe import safe_text

TAB_SIZE = 4
MIN_WIDTH = 8

Range = tuple[int, int]


def display_text(text: str) -> str:
    """The output as shown: CRLF line ends as LF, unsafe characters visible, tabs expanded."""
    return safe_text(text.replace("\r\n", "\n")).expandtabs(TAB_SIZE)


@lru_cache(maxsize=16)
def _wrap_pattern(width: int) -> re.Pattern[str]:
    # Up to `width` characters that end before white space (the white space is kept on the
    # line, the pane crops it), else a hard cut at `width` for a word longer than the line.
    return re.compile(rf"[^\n]{{1,{width}}}(?:\s+|$)|[^\n]{{1,{width}}}")


def _wrap_cells(line: str, start: int, width: int, out: list[Range]) -> None:
    """Greedy wrap by terminal cells, for lines with wide (CJK) or zero-width characters."""
    line_start = 0
    cells = 0
    last_space = -1
    for i, ch in enumerate(line):
        w = get_character_cell_size(ch)
        if cells + w > width and i > line_start:
            cut = last_space + 1 if last_space >= line_start else i
            out.append((start + line_start, start + cut))
            line_start = cut
            cells = cell_len(line[line_start:i])
            last_space = -1
        cells += w
        if ch == " ":
            last_space = i
    out.append((start + line_start, start + len(line)))


def wrap_offsets(text: str, width: int) -> list[Range]:
    """The visual lines of ``text`` wrapped to ``width`` cells, as (start, end) offsets.

    A line break itself belongs to no visual line; an empty line is one empty visual line.
    Lines that are one cell per character (nearly all) are wrapped by a compiled pattern, so a
    1 MB output takes tens of milliseconds.
    """
    width = max(MIN_WIDTH, width)
    pattern = _wrap_pattern(width)
    out: list[Range] = []
    pos = 0
    for line in text.split("\n"):
        n = len(line)
        if n <= width and (line.isascii() or cell_len(line) <= width):
            out.append((pos, pos + n))
        elif line.isascii() or cell_len(line) == n:
            out.extend((pos + m.start(), pos + m.end()) for m in pattern.finditer(line))
        else:
            _wrap_cells(line, pos, width, out)
        pos += n + 1
    return out


@dataclass(frozen=True)
class Hunk:
    """One difference: where it is in each text (an empty range where a side has nothing)."""

    left: Range
    right: Range


class Alignment:
    """Where two texts line up: (left offset, right offset) anchors, mapped piecewise linearly.

    The anchors are the edges of the parts a diff found equal (or just both texts' starts and
    ends), so scrolling one response brings the other to the same passage.
    """

    def __init__(self, anchors: list[Range]) -> None:
        self.anchors = anchors or [(0, 0)]
        self._keys = ([a[0] for a in self.anchors], [a[1] for a in self.anchors])

    @classmethod
    def plain(cls, left_len: int, right_len: int) -> Alignment:
        """Two texts without a diff: their starts and their ends line up."""
        return cls([(0, 0), (left_len, right_len)])

    def map(self, offset: int, from_left: bool = True) -> int:
        """The offset in the other text that lines up with ``offset``."""
        src = 0 if from_left else 1
        dst = 1 - src
        anchors = self.anchors
        i = max(0, bisect_right(self._keys[src], offset) - 1)
        if i >= len(anchors) - 1:
            a = anchors[-1]
            return a[dst] + max(0, offset - a[src]) if len(anchors) == 1 else a[dst]
        a, b = anchors[i], anchors[i + 1]
        span = b[src] - a[src]
        if span <= 0:
            return a[dst]
        return a[dst] + round((offset - a[src]) * (b[dst] - a[dst]) / span)


@dataclass(frozen=True)
class DiffMarks:
    """A word diff of two display texts, ready to highlight, jump through and scroll by."""

    left: list[Range] = field(default_factory=list)
    """Changed ranges of the left text (absent from the right)."""
    right: list[Range] = field(default_factory=list)
    hunks: list[Hunk] = field(default_factory=list)
    alignment: Alignment = field(default_factory=lambda: Alignment([(0, 0)]))
    timed_out: bool = False
    words: int = 0
    """The words of both texts."""
    changed_words: int = 0
    """Of ``words``, those in a changed range: how much of the texts the changes are. The diff
    merges small equalities into the changes around them, so two wholly different texts are one
    change (one hunk to jump to) of every word."""


_WORD = re.compile(r"\w+")


def _words(spans: list[Span]) -> tuple[int, int]:
    """The words of one side's spans, and of those the changed ones."""
    counts = [(len(_WORD.findall(span.text)), span.changed) for span in spans]
    return sum(n for n, _ in counts), sum(n for n, changed in counts if changed)


def diff_marks(left: str, right: str) -> DiffMarks:
    """Word-diff two display texts (slow for long texts: call it from a worker thread). The
    diff runs one way for a pair whichever side each text is shown on (a word diff is not
    symmetric), so every reviewer of an item reads the same changes and figures."""
    if right < left:
        found = _diff_marks(right, left)
        return replace(
            found,
            left=found.right,
            right=found.left,
            hunks=[Hunk(h.right, h.left) for h in found.hunks],
            alignment=Alignment([(b, a) for a, b in found.alignment.anchors]),
        )
    return _diff_marks(left, right)


def _diff_marks(left: str, right: str) -> DiffMarks:
    diff = word_diff(left, right)
    (left_words, left_changed), (right_words, right_changed) = _words(diff.left), _words(diff.right)
    changed_left: list[Range] = []
    changed_right: list[Range] = []
    hunks: list[Hunk] = []
    anchors: list[Range] = [(0, 0)]
    li = ri = lpos = rpos = 0
    while li < len(diff.left) or ri < len(diff.right):
        l_start, r_start = lpos, rpos
        while li < len(diff.left) and diff.left[li].changed:
            lpos += len(diff.left[li].text)
            li += 1
        while ri < len(diff.right) and diff.right[ri].changed:
            rpos += len(diff.right[ri].text)
            ri += 1
        if (lpos, rpos) != (l_start, r_start):
            if lpos > l_start:
                changed_left.append((l_start, lpos))
            if rpos > r_start:
                changed_right.append((r_start, rpos))
            hunks.append(Hunk((l_start, lpos), (r_start, rpos)))
            anchors.append((lpos, rpos))
        if li < len(diff.left) and ri < len(diff.right):
            size = len(diff.left[li].text)
            lpos += size
            rpos += size
            li += 1
            ri += 1
            anchors.append((lpos, rpos))
    return DiffMarks(
        changed_left,
        changed_right,
        hunks,
        Alignment(anchors),
        diff.timed_out,
        words=left_words + right_words,
        changed_words=left_changed + right_changed,
    )


def line_of(starts: list[int], offset: int) -> int:
    """Index of the visual line (by start offsets) that holds ``offset``."""
    return max(0, bisect_right(starts, offset) - 1)
