"""Trying a refused save again, later each time, until the database takes it.

A save the database refused because it stayed busy (another process writing), was read-only or
the disk was full may succeed a moment later, and the reviewer should not have to notice and
press a key for it. :class:`Retry` keeps the state of one such save: why it failed, when it is
tried next (a timer on the event loop, so nothing waits; the attempt itself runs in a worker) and
what the status line says about it. The delays grow (:data:`DELAYS`), so a database that stays
unavailable is not hammered, and stop growing at the last one: the save is tried for as long as
the screen is open, and leaving the screen asks first (:mod:`abp_tui.tui.screens.unsaved`).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message_pump import MessagePump
from textual.timer import Timer

DELAYS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0)
"""Seconds before each new attempt after a failure (the last one repeats)."""


class Retry:
    """One save that failed, tried again by ``attempt`` (which starts a worker) after a delay."""

    def __init__(self, owner: MessagePump, attempt: Callable[[], None]) -> None:
        self.owner = owner
        self.attempt = attempt
        self.reason: str | None = None
        """Why the last attempt failed; None while nothing is waiting to be saved again."""
        self.failures = 0
        """Attempts failed in a row."""
        self.trying = False
        """An attempt made after a failure is running."""
        self._timer: Timer | None = None

    @property
    def pending(self) -> bool:
        """Something the database refused is still not stored."""
        return self.reason is not None

    @property
    def delay(self) -> float:
        return DELAYS[min(self.failures, len(DELAYS)) - 1] if self.failures else DELAYS[0]

    def failed(self, reason: str) -> bool:
        """An attempt failed: try again after the next delay. True for the first failure of a
        run of them (the one worth a notification; the status line says the rest)."""
        first = self.reason is None
        self.reason = reason
        self.failures += 1
        self.trying = False
        self._cancel()
        self._timer = self.owner.set_timer(self.delay, self._fire)
        return first

    def started(self) -> None:
        """An attempt is starting (the timer's, or one a key asked for): no timer is needed."""
        self._cancel()
        if self.pending:
            self.trying = True

    def now(self) -> None:
        """Try again at once (the reviewer asked)."""
        self.started()
        self.attempt()

    def succeeded(self) -> None:
        self._cancel()
        self.reason = None
        self.failures = 0
        self.trying = False

    def stop(self) -> None:
        """Give up on it (the reviewer chose to discard what was not saved)."""
        self.succeeded()

    def status(self) -> str:
        """What the status line adds after the reason: when the next attempt comes."""
        if self.trying:
            return "retrying…"
        return f"retrying in {self.delay:g} s"

    def _fire(self) -> None:
        self._timer = None
        self.now()

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
