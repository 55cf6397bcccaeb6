"""The workstation's rules that need no terminal: where a key leads, which item read ahead may
be shown, which opening is the latest, and when keys are typing rather than commands.

These modules are kept free of Textual so they can be tested like this: plain objects, no app.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from abp_tui.models import Judgment
from abp_tui.models.builtin_rubrics import AFP_V01
from abp_tui.services.reviewing import BlindItem, BlindTask
from abp_tui.tui.navigation import CodeList, Move, Navigator, QueueEnd, ShownItem, destination
from abp_tui.tui.typing_guard import FOLLOW_SECONDS, TYPING_SECONDS, KeyFacts, TypingGuard

CODES = ("P-1", "P-2", "P-3")


def test_the_rules_load_without_textual() -> None:
    code = (
        "import sys\n"
        "import abp_tui.tui.navigation, abp_tui.tui.typing_guard, abp_tui.tui.responsive\n"
        "print(','.join(m for m in sys.modules if m == 'textual' or m.startswith('textual.')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


# -- where a key leads ----------------------------------------------------------------------------
@dataclass
class FakeQueue:
    """A reviewer's queue in order, with each item's status."""

    status: dict[str, str] = field(default_factory=lambda: dict.fromkeys(CODES, "todo"))
    station: bool = False
    db_path: Path = Path("data/abp.db")

    def next_code(self, code: str, step: int = 1, unfinished: bool = False) -> str | None:
        codes = list(self.status)
        i = codes.index(code) + step
        while 0 <= i < len(codes):
            if not unfinished or self.status[codes[i]] != "submitted":
                return codes[i]
            i += step
        return None

    def first_unfinished(self, other_than: str | None = None) -> str | None:
        return next(
            (c for c, s in self.status.items() if s != "submitted" and c != other_than), None
        )


@pytest.mark.parametrize(
    ("current", "move", "status", "expected"),
    [
        ("P-1", Move(1), {}, "P-2"),
        ("P-2", Move(-1), {}, "P-1"),
        ("P-3", Move(1), {}, QueueEnd("This is your last item.")),
        ("P-1", Move(-1), {}, QueueEnd("This is your first item.")),
        ("P-1", Move(code="P-3"), {}, "P-3"),
        ("P-1", Move(unfinished=True), {"P-2": "submitted"}, "P-3"),
        # Past the end, an unfinished item earlier in the queue.
        ("P-2", Move(unfinished=True), {"P-1": "todo", "P-3": "submitted"}, "P-1"),
        (
            "P-2",
            Move(unfinished=True),
            {"P-1": "submitted", "P-3": "submitted"},
            QueueEnd("Every item of your queue is submitted."),
        ),
    ],
)
def test_destination(
    current: str, move: Move, status: dict[str, str], expected: str | QueueEnd
) -> None:
    queue = FakeQueue()
    queue.status.update(status)
    queue.status[current] = status.get(current, "draft")
    assert destination(queue, current, move) == expected


def test_a_station_whose_queue_is_done_says_how_to_send_the_ratings_back() -> None:
    queue = FakeQueue(station=True, db_path=Path("station.db"))
    queue.status.update(dict.fromkeys(CODES, "submitted"))
    assert destination(queue, "P-2", Move(unfinished=True)) == QueueEnd(
        "Every item of your queue is submitted. Next: `abp-tui pack ratings --out FILE --db "
        "station.db` writes your signed ratings file, to send back."
    )


def _shown(code: str, status: str = "todo", index: int = 0) -> ShownItem:
    task = BlindTask("", "prompt", "", "", "", (), "")
    item = BlindItem(code, "pair", index, 3, task, (), AFP_V01, status, 0, Judgment())
    return ShownItem(item, (), read_ahead=True)


def test_only_the_latest_request_is_shown_and_reading_ahead_belongs_to_the_item_shown() -> None:
    navigator = Navigator()
    first, second = navigator.new_request(), navigator.new_request()
    assert not navigator.is_latest(first) and navigator.is_latest(second)
    navigator.arrived("P-1")
    assert navigator.wants_reading_ahead()
    navigator.offer("P-2", _shown("P-3"))  # read ahead after an item no longer shown
    assert navigator.ahead is None
    navigator.offer("P-1", _shown("P-2"))
    assert navigator.ahead is not None and not navigator.wants_reading_ahead()
    navigator.arrived("P-2")  # showing any item forgets what was read for the one before
    assert navigator.ahead is None
    assert not Navigator(read_ahead=False).wants_reading_ahead()


@pytest.mark.parametrize(
    ("move", "status", "uses_ahead"),
    [
        (Move(1), "todo", True),
        (Move(code="P-2"), "todo", True),
        (Move(unfinished=True), "draft", True),
        (Move(unfinished=True), "submitted", False),
        (Move(-1), "todo", False),
        (Move(code="P-3"), "todo", False),
    ],
)
def test_the_item_read_ahead_is_shown_only_where_the_key_leads(
    move: Move, status: str, uses_ahead: bool
) -> None:
    navigator = Navigator()
    navigator.arrived("P-1")
    navigator.offer("P-1", _shown("P-2", status, 1))
    assert (navigator.ahead_for(move) is not None) is uses_ahead


def test_a_list_of_disagreements_is_stepped_through_passing_recorded_ones() -> None:
    codes = CodeList(CODES, "P-1")
    assert codes.position() == (1, 3)
    assert codes.step(1) == "P-2" and codes.step(-1) is None
    assert codes.step(1, skip={"P-2"}) == "P-3"
    assert codes.step(1, skip={"P-2", "P-3"}) is None
    codes.current = "P-9"  # not listed (the list was read before it was disputed)
    assert codes.position() is None and codes.step(1) == "P-1"


# -- typing outside a text field -----------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _key(
    binding: str | None, *, score: bool = False, elsewhere: bool = False, field: bool = False
) -> KeyFacts:
    return KeyFacts(
        field,
        True,
        bound=binding is not None,
        binding_id=binding,
        bound_elsewhere=elsewhere,
        score=score,
    )


def test_a_burst_of_typing_is_held_back_with_one_notice() -> None:
    clock = Clock()
    guard = TypingGuard(clock)
    verdicts = []
    for facts in (_key(None), _key("compare.submit"), _key("score.2", score=True)):
        clock.now += 0.05
        verdicts.append(guard.holds_back(facts))
    assert [(v.hold, v.announce) for v in verdicts] == [(True, True), (True, False), (True, False)]
    clock.now += TYPING_SECONDS + 0.01
    assert not guard.holds_back(_key("score.2", score=True)).hold


def test_a_leaving_key_right_after_another_key_is_typing_unless_that_was_a_score() -> None:
    clock = Clock()
    guard = TypingGuard(clock)
    assert not guard.holds_back(_key("compare.task")).hold
    clock.now += FOLLOW_SECONDS / 2
    assert guard.holds_back(_key("compare.home")).hold  # the "h" of "th"
    clock.now += 10
    assert not guard.holds_back(_key("score.2", score=True)).hold
    clock.now += FOLLOW_SECONDS / 2
    assert not guard.holds_back(_key("compare.submit")).hold  # "2" then "s": both act
    clock.now += 10
    assert not guard.holds_back(_key(None, elsewhere=True)).hold  # another row's key
    assert not guard.holds_back(_key(None, field=True)).hold  # typing in a field
