"""The judging screens' typing guard: text typed while no text field has the focus is held back.

Keys act at once on the compare and adjudication screens (a score, a submit, the next item), so a
sentence typed into the screen instead of a field would score, submit or leave the item letter by
letter. A printable key that nothing on the screen binds starts a burst of typing: it and every
key that follows it closely are held back, with one notice per burst. A key that submits or leaves
the item is also held back when it follows another key that was not a score very closely (the
"h" of "the"). Scores typed in a burst ("2221") still act.

The first key of a burst cannot be told from a deliberate key when it arrives, so:

- a key that submits or leaves is *deferred* by :data:`DEFER_SECONDS`: if a printable key follows
  within that time, it was the first letter of a word and is dropped with the burst (the "h" of
  "hello" no longer sends the reviewer Home); otherwise it acts;
- a letter that changed a decision (a preference, a state, a validity check, a fatal criterion)
  acts at once, but is *tentative* for :data:`FOLLOW_SECONDS`: if a printable key follows that
  soon, wherever it goes (a text field the letter focused included), the decision is undone and
  the reviewer is told (the "i" of "i think" no longer makes the preference "insufficient").
  Digits are scores and stay, so scores typed in a burst still act.

The rules are pure: the screen tells :meth:`TypingGuard.holds_back` what it knows about a key
(:mod:`abp_tui.tui.typing_shield` does, and carries out the verdict). Nothing here imports
Textual.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

TYPING_SECONDS = 0.6
"""After a key typed as text outside a text field, keys this close together are held back."""
FOLLOW_SECONDS = 0.25
"""A key that leaves the item this soon after a key that was not a score is taken as typing; a
letter's decision this soon before another printable key is undone."""
DEFER_SECONDS = 0.25
"""How long a key that submits or leaves waits for a following letter before it acts (0: at
once; the test suite's own clock makes every key a person's, so it sets 0)."""
LEAVING_KEYS = frozenset(
    {
        "compare.submit",
        "compare.next_unfinished",
        "compare.queue",
        "compare.home",
        "compare.finding",
        "compare.toggle_form",
        # The adjudication screen: recording, moving to another disagreement or the list, and
        # the keys whose effect a following letter could not take back (the reviewers' names
        # shown are recorded as seen; the form filled from a reviewer's judgment).
        "adjudicate.record",
        "adjudicate.next",
        "adjudicate.previous",
        "adjudicate.back",
        "adjudicate.toggle_names",
        "adjudicate.prefill",
        "adjudicate.toggle_form",
        "app.quit",
        "app.help",
        "app.judge",
        "app.disagreements",
        "app.agreement",
        "app.results",
    }
)
"""Keys that submit, or leave the item or the screen, or switch a narrow terminal between the texts
and the form (and, on the adjudication screen, reveal the reviewers' names or replace the form):
never taken from a burst of typing."""
CLOCK: Callable[[], float] = time.monotonic
"""The guards' clock unless one is given (the test suite's moves a person's pace per key)."""


@dataclass(frozen=True)
class KeyFacts:
    """What the screen knows about a key as it arrives."""

    in_text_field: bool
    """A text field has the focus (typing is where it belongs)."""
    printable: bool
    bound: bool = False
    """A binding of the screen, the focused widget or the app runs the key now."""
    binding_id: str | None = None
    """That binding's id."""
    bound_elsewhere: bool = False
    """Some other part of the screen binds the key (a row that does not have the focus)."""
    score: bool = False
    """The key is a focused scoring row's own key (a score, a tick, a choice)."""


@dataclass(frozen=True)
class Verdict:
    hold: bool
    """Ignore the key."""
    announce: bool
    """Tell the reviewer (the first key of a burst)."""
    defer: bool = False
    """Hold the key for :data:`DEFER_SECONDS`, then let it act unless :attr:`cancel` came."""
    cancel: bool = False
    """Drop the key deferred before this one: it was the first letter of a word."""
    undo: bool = False
    """Undo the decision the letter before this key made: it was the first letter of a word."""


class TypingGuard:
    """Remembers the keys of the last moments and decides whether the next one is typing."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self.clock = clock if clock is not None else CLOCK
        """Seconds, for the distance between keys (monotonic)."""
        self._typing_until = 0.0
        self._last_key: tuple[float, bool] = (0.0, False)
        """When the last printable key came, and whether it was a score."""
        self._tentative_at: float | None = None
        """When a letter last changed a decision (undone if a printable key follows soon)."""
        self._deferred_at: float | None = None
        """When a key that submits or leaves was deferred (dropped if a printable key follows)."""
        self.defer_seconds = DEFER_SECONDS

    def decided(self, letter: bool) -> None:
        """The key just let through changed a decision; a letter's decision is tentative."""
        self._tentative_at = self._last_key[0] if letter else None

    def deferred_done(self) -> None:
        """The deferred key acted (nothing followed it in time)."""
        self._deferred_at = None

    def holds_back(self, key: KeyFacts, at: float | None = None) -> Verdict:
        """The verdict on ``key``, which came now (or at ``at`` on this guard's clock: a key
        that waited for the form is judged at the pace it was typed)."""
        now = self.clock() if at is None else at
        undo = cancel = False
        if key.printable:
            # A run of decisions ("yyny", "2221") stays: only a key that is not one of the
            # focused row's own keys shows the letter before it to have been typing.
            chained = key.score and key.bound and not key.in_text_field
            soon = self._tentative_at is not None and now - self._tentative_at < FOLLOW_SECONDS
            undo = soon and not chained
            if self._deferred_at is not None and now - self._deferred_at < self.defer_seconds:
                cancel = True
            self._tentative_at = self._deferred_at = None
        if key.in_text_field:
            self._typing_until = now + TYPING_SECONDS if (undo or cancel) else 0.0
            return Verdict(False, undo or cancel, cancel=cancel, undo=undo)
        if not key.printable:
            return Verdict(False, False)
        if not key.bound and key.bound_elsewhere and not (undo or cancel):
            # A key of another row (a stray "Y" after the gate): ignored as it always was.
            return Verdict(False, False)
        last_time, last_was_score = self._last_key
        self._last_key = (now, key.score)
        typing = (
            undo
            or cancel
            or now < self._typing_until
            or not key.bound
            or (
                key.binding_id in LEAVING_KEYS
                and now - last_time < FOLLOW_SECONDS
                and not last_was_score
            )
        )
        if not typing:
            if key.binding_id in LEAVING_KEYS and self.defer_seconds > 0:
                self._deferred_at = now
                return Verdict(True, False, defer=True)
            return Verdict(False, False)
        announce = now >= self._typing_until
        self._typing_until = now + TYPING_SECONDS
        return Verdict(True, announce, cancel=cancel, undo=undo)
