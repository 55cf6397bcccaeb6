"""Reading items for the compare screen, off the event loop: opening one, reading the next one
ahead, entering a read-ahead item, the word diff of a pair, and the automated judge's outcome of
an item the reviewer has submitted (never read ahead: it is read for the item shown).

Each method starts a worker that reads through the reviewer's desk (and diffs in the helper
process, :class:`~abp_tui.tui.responsive.DiffRunner`) and posts what it found to the screen as
a message of :mod:`abp_tui.tui.messages`; a failure becomes a ``WorkerFailed``. Which item to
read is the navigator's business (:mod:`abp_tui.tui.navigation`); showing it is the screen's.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.screen import Screen
from textual.worker import get_current_worker

from abp_tui.services.desk import Desk
from abp_tui.services.reviewing import BlindItem
from abp_tui.tui.messages import (
    AutomatedOutcomeRead,
    DiffComputed,
    DraftsStored,
    ItemEntered,
    ItemOpened,
    ItemReadAhead,
    QueueEndReached,
    QueueFoundEmpty,
)
from abp_tui.tui.navigation import Move, QueueEnd, destination, prepare
from abp_tui.tui.responsive import DiffRunner
from abp_tui.tui.workers import EXPECTED_ERRORS, run_in_background

INLINE_DIFF_CHARACTERS = 500_000
"""A pair this long or shorter (both texts) is diffed before it is shown (a few tenths of a second
at most): the texts and their highlighting arrive in one paint, and the screen's layout never
competes with the diff. A longer pair shows its texts first and its diff when it is ready."""
OPEN_GROUP = "compare-open"
ENTER_GROUP = "compare-enter"


class ItemReader:
    """The compare screen's reading workers, over one desk and one diff process."""

    def __init__(self, screen: Screen[Any], desk: Desk) -> None:
        self.screen = screen
        self.desk = desk
        self.differ = DiffRunner()
        self.title = ""
        """``study / design``, read with the first item."""

    def close(self) -> None:
        self.differ.close()

    def _differ_for(self, item: BlindItem, diff: bool) -> DiffRunner | None:
        """The differ to prepare ``item`` with: a pair short enough is diffed before it shows,
        once the diff process is there (the first item never waits for it to start: its
        texts show first, its diff when the process is ready)."""
        short = sum(len(r.text) for r in item.responses) <= INLINE_DIFF_CHARACTERS
        return self.differ if diff and short and self.differ.ready else None

    def warm_up(self) -> None:
        """Start the diff process now, before the first pair needs it."""
        run_in_background(
            self.screen,
            self.differ.warm_up,
            group="compare-warm-up",
            description="Starting the diff process",
        )

    def open(
        self,
        code: str | None,
        request: int,
        widths: tuple[int, ...] = (),
        diff: bool = True,
        *,
        after: str | None = None,
        move: Move | None = None,
    ) -> None:
        """Open ``code`` (None: where the reviewer left off), or where ``move`` leads from
        ``after``; posts ``ItemOpened`` for ``request`` (or why there is no item)."""
        run_in_background(
            self.screen,
            partial(self._open, code, request, widths, diff, after, move),
            group=OPEN_GROUP,
            description="Opening an item",
            exclusive=True,
        )

    def _open(
        self,
        code: str | None,
        request: int,
        widths: tuple[int, ...],
        diff: bool,
        after: str | None,
        move: Move | None,
    ) -> None:
        worker = get_current_worker()
        if not self.title:
            self.title = self.desk.title
        if after is not None and move is not None:
            found = destination(self.desk, after, move)
            if isinstance(found, QueueEnd):
                if not worker.is_cancelled:
                    self.screen.post_message(QueueEndReached(found.text))
                return
            code = found
        item = self.desk.open(code)
        if item is None:
            self.screen.post_message(QueueFoundEmpty())
            return
        shown = prepare(item, widths, self._differ_for(item, diff))
        if not worker.is_cancelled:
            self.screen.post_message(ItemOpened(shown, request))

    def read_ahead(self, after: str, widths: tuple[int, ...], diff: bool) -> None:
        """Read the item after ``after`` (nothing is written); posts ``ItemReadAhead``."""
        run_in_background(
            self.screen,
            partial(self._read_ahead, after, widths, diff),
            group="compare-ahead",
            description="Reading ahead",
            exclusive=True,
        )

    def _read_ahead(self, after: str, widths: tuple[int, ...], diff: bool) -> None:
        worker = get_current_worker()
        try:
            item = self.desk.peek_after(after)
        except EXPECTED_ERRORS:
            return  # opening the item for real reports the problem
        if item is None or worker.is_cancelled:
            return
        shown = prepare(item, widths, self._differ_for(item, diff), read_ahead=True)
        if not worker.is_cancelled:
            self.screen.post_message(ItemReadAhead(after, shown))

    def enter(self, code: str, restart_clock: bool = True) -> None:
        """Make ``code`` the reviewer's current item (their place, its clock); posts
        ``ItemEntered`` with its newest revision, after any drafts this stored."""
        run_in_background(
            self.screen,
            partial(self._enter, code, restart_clock),
            group=ENTER_GROUP,
            description="Opening an item",
            exclusive=True,
        )

    def _enter(self, code: str, restart_clock: bool) -> None:
        revision, stored = self.desk.enter(code, restart_clock)
        if stored:
            self.screen.post_message(DraftsStored(stored))
        self.screen.post_message(ItemEntered(code, revision))

    def diff(self, code: str, left: str, right: str) -> None:
        """Word-diff item ``code``'s two outputs; posts ``DiffComputed``."""
        run_in_background(
            self.screen,
            partial(self._diff, code, left, right),
            group="compare-diff",
            description="Computing the word diff",
            exclusive=True,
        )

    def _diff(self, code: str, left: str, right: str) -> None:
        marks = self.differ.diff(left, right)
        if not get_current_worker().is_cancelled:
            self.screen.post_message(DiffComputed(code, marks))

    def automated(self, code: str, *, submitted_now: bool) -> None:
        """The automated judge's outcome of ``code``, which the reviewer has submitted (the
        desk answers None otherwise); posts ``AutomatedOutcomeRead``."""
        run_in_background(
            self.screen,
            partial(self._automated, code, submitted_now),
            group="compare-automated",
            description="Reading the automated judge's outcome",
        )

    def _automated(self, code: str, submitted_now: bool) -> None:
        found = self.desk.automated(code)
        self.screen.post_message(AutomatedOutcomeRead(code, found, submitted_now=submitted_now))
