"""The compare screen's typing guard: text typed while no text field has the focus is held back.

Keys act at once on the compare screen (a score, a submit, the next item), so a sentence typed
into the screen instead of a field would score, submit or leave the item letter by letter. A
printable key that nothing on the screen binds starts a burst of typing: it and every key that
follows it closely are held back, with one notice per burst. A key that submits or leaves the
item is also held back when it follows another key that was not a score very closely (the "h"
of "the"). Scores typed in a burst ("2221") still act.

The rules are pure: the screen tells :meth:`TypingGuard.holds_back` what it knows about a key.
Nothing here imports Textual.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

TYPING_SECONDS = 0.6
"""After a key typed as text outside a text field, keys this close together are held back."""
FOLLOW_SECONDS = 0.25
"""A key that leaves the item this soon after a key that was not a score is taken as typing."""
LEAVING_KEYS = frozenset(
    {
        "compare.submit",
        "compare.next_unfinished",
        "compare.queue",
        "compare.home",
        "compare.finding",
        "app.quit",
        "app.help",
        "app.judge",
        "app.disagreements",
        "app.agreement",
        "app.results",
    }
)
"""Keys that submit, or leave the item or the screen: never taken from a burst of typing."""


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


class TypingGuard:
    """Remembers the keys of the last moments and decides whether the next one is typing."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        """Seconds, for the distance between keys (monotonic)."""
        self._typing_until = 0.0
        self._last_key: tuple[float, bool] = (0.0, False)
        """When the last printable key came, and whether it was a score."""

    def holds_back(self, key: KeyFacts) -> Verdict:
        now = self.clock()
        if key.in_text_field:
            self._typing_until = 0.0
            return Verdict(False, False)
        if not key.printable:
            return Verdict(False, False)
        if not key.bound and key.bound_elsewhere:
            # A key of another row (a stray "Y" after the gate): ignored as it always was.
            return Verdict(False, False)
        last_time, last_was_score = self._last_key
        self._last_key = (now, key.score)
        typing = (
            now < self._typing_until
            or not key.bound
            or (
                key.binding_id in LEAVING_KEYS
                and now - last_time < FOLLOW_SECONDS
                and not last_was_score
            )
        )
        if not typing:
            return Verdict(False, False)
        announce = now >= self._typing_until
        self._typing_until = now + TYPING_SECONDS
        return Verdict(True, announce)
