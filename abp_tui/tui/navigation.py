"""Where a reviewer goes next, and the item read ahead so that going there is instant.

The compare screen owns one :class:`Navigator` and asks it everything about moving: which item a
key leads to (:func:`destination`, called from a worker: it reads the queue through the desk),
whether the item read ahead can be shown at once, and whether an item that arrives is still
the one asked for (only the latest request is shown; a slower, older one is dropped). The
adjudication screen moves through a fixed list of disagreements with a :class:`CodeList`.

An item is made ready to show (:func:`prepare`: display texts, wrapped, diffed) in a worker, so
the event loop only swaps it in. Nothing here imports Textual: moving is tested without a
terminal.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from abp_tui.services.reviewing import BlindItem
from abp_tui.text.hints import command
from abp_tui.tui.responsive import DiffRunner
from abp_tui.tui.widgets.textlayout import DiffMarks, Range, display_text, wrap_offsets


@dataclass(frozen=True)
class ShownItem:
    """A blind item and its responses' texts in display form (prepared in a worker)."""

    item: BlindItem
    texts: tuple[str, ...]
    wrapped: tuple[tuple[int, list[Range]] | None, ...] = ()
    """Each text wrapped to its pane's width when the item was asked for (None: not wrapped)."""
    marks: DiffMarks | None = None
    """The pair's word diff, when it was computed with the item."""
    read_ahead: bool = False
    """Read before the reviewer asked for it: the item is entered once it is shown."""


def prepare(
    item: BlindItem,
    widths: tuple[int, ...],
    differ: DiffRunner | None,
    *,
    read_ahead: bool = False,
) -> ShownItem:
    """An item ready to show (in a worker): display texts, wrapped to ``widths``, and the
    word diff of a pair when ``differ`` is given."""
    texts = tuple(display_text(r.text) for r in item.responses)
    # Wrapped here, off the event loop, to the panes' current widths (the panes use it when
    # their width is still the same).
    wrapped = tuple(
        (width, wrap_offsets(text, width)) if width > 0 else None
        for text, width in zip(texts, widths, strict=False)
    )
    marks = differ.diff(texts[0], texts[1]) if differ is not None and len(texts) == 2 else None
    return ShownItem(item, texts, wrapped, marks, read_ahead)


@dataclass(frozen=True)
class Move:
    """What a key asks for: the next or previous item, the next unfinished one, or a jump."""

    step: int = 1
    """+1 forward, -1 back."""
    unfinished: bool = False
    """Only items not submitted yet (wrapping round to the start of the queue)."""
    code: str | None = None
    """A jump to this item (from the queue screen)."""


@dataclass(frozen=True)
class QueueEnd:
    """There is no item in that direction; ``text`` says so to the reviewer."""

    text: str


class Queue(Protocol):
    """What :func:`destination` reads (the reviewer's desk)."""

    def next_code(self, code: str, step: int = 1, unfinished: bool = False) -> str | None: ...

    def first_unfinished(self, other_than: str | None = None) -> str | None: ...

    @property
    def station(self) -> bool: ...

    db_path: Path


def destination(queue: Queue, current: str, move: Move) -> str | QueueEnd:
    """The code ``move`` leads to from ``current`` (blocking: it reads the store)."""
    if move.code is not None:
        return move.code
    code = queue.next_code(current, move.step or 1, move.unfinished)
    if code is None and move.unfinished:
        # Past the end: an unfinished item earlier in the queue.
        code = queue.first_unfinished(other_than=current)
    if code is not None:
        return code
    if move.unfinished:
        if not queue.station:
            return QueueEnd("Every item of your queue is submitted.")
        # On a reviewer station, the next step is the file to send back.
        ratings = command("pack ratings --out FILE", queue.db_path)
        return QueueEnd(
            f"Every item of your queue is submitted. Next: `{ratings}` writes your signed "
            "ratings file, to send back."
        )
    return QueueEnd("This is your last item." if move.step > 0 else "This is your first item.")


class Navigator:
    """The compare screen's place in the queue: the item shown, the one read ahead, and which
    request for an item is the latest."""

    def __init__(self, *, read_ahead: bool = True) -> None:
        self.read_ahead = read_ahead
        """Read the item after the current one while the reviewer is on it."""
        self.current: str | None = None
        """The code of the item shown."""
        self._ahead: ShownItem | None = None
        self._request = 0

    # -- requests ---------------------------------------------------------------------------
    def new_request(self) -> int:
        """A number for a new opening; an item opened for an older one is not shown."""
        self._request += 1
        return self._request

    def is_latest(self, request: int) -> bool:
        return request == self._request

    def arrived(self, code: str) -> None:
        """Item ``code`` is now shown: what was read ahead was for the item before it."""
        self.current = code
        self._ahead = None

    # -- reading ahead ----------------------------------------------------------------------
    @property
    def ahead(self) -> ShownItem | None:
        """The item after the current one, read ahead for the next-item key."""
        return self._ahead

    def wants_reading_ahead(self) -> bool:
        return self.read_ahead and self.current is not None and self._ahead is None

    def offer(self, after: str, shown: ShownItem) -> None:
        """Keep an item read ahead after ``after``, while ``after`` is still the one shown."""
        if after == self.current:
            self._ahead = shown

    def drop_ahead(self) -> None:
        self._ahead = None

    def ahead_for(self, move: Move) -> ShownItem | None:
        """The item read ahead, when ``move`` leads to it (then it is shown without reading)."""
        ahead = self._ahead
        if (
            ahead is not None
            and move.code in (None, ahead.item.code)
            and move.step == 1
            and (not move.unfinished or ahead.item.status != "submitted")
        ):
            return ahead
        return None


class CodeList:
    """A fixed list of item codes (the disagreements listed) and where a screen is in it."""

    def __init__(self, codes: Sequence[str], current: str) -> None:
        self.codes = tuple(codes) or (current,)
        self.current = current

    def position(self) -> tuple[int, int] | None:
        """(1-based index, count) of the current code, None when it is not in the list."""
        if self.current not in self.codes:
            return None
        return self.codes.index(self.current) + 1, len(self.codes)

    def step(self, step: int, skip: Collection[str] = ()) -> str | None:
        """The code ``step`` places away, passing over codes in ``skip``; None past an end."""
        if self.current not in self.codes:
            return self.codes[0] if self.codes else None
        i = self.codes.index(self.current)
        for k in range(1, len(self.codes) + 1):
            j = i + step * k
            if not 0 <= j < len(self.codes):
                return None
            if self.codes[j] not in skip:
                return self.codes[j]
        return None
