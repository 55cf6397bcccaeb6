"""Keys that never betray typing: a sentence typed where no text field has the focus changes no
decision, leaves no screen and submits nothing, and the reviewer is told.

The typing guard's clock is the test's own here (keys come when the test says they do), and a
key that submits or leaves waits its moment for a following letter, as it does for a person.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

from abp_tui.models import PreferenceChoice
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.typing_guard import FOLLOW_SECONDS
from abp_tui.tui.widgets.choices import ChoiceRow, FieldEcho
from tests.tui_helpers import (
    compare_screen,
    drive,
    pair_design,
    pair_study,
    press,
    study_database,
    type_text,
)

SIZE = (160, 50)
KEY_GAP = 0.1
"""Seconds between the keys of a sentence: a person typing about ten keys a second."""
DEFER = 0.25


def _key(char: str) -> str:
    return "space" if char == " " else char


class _Clock:
    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


async def _type_sentence(pilot: object, clock: _Clock, sentence: str) -> None:
    for char in sentence:
        clock.now += KEY_GAP
        await press(pilot, _key(char), settled=False)  # type: ignore[arg-type]


def _preference(screen: CompareScreen) -> PreferenceChoice | None:
    return screen.form.judgment.preference


def _notices(app: object) -> list[str]:
    return [n.message for n in app._notifications]  # type: ignore[attr-defined]


async def _screen(pilot: object) -> tuple[CompareScreen, _Clock]:
    screen = await compare_screen(pilot)  # type: ignore[arg-type]
    clock = _Clock()
    screen.guard.clock = clock
    screen.guard.defer_seconds = DEFER
    return screen, clock


@pytest.mark.parametrize("sentence", ["i think the first is better", "tie, I would say"])
async def test_a_sentence_typed_after_a_preference_keeps_the_preference(
    tmp_path: Path, sentence: str
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen, clock = await _screen(pilot)
        row = screen.query_one("#preference-row", ChoiceRow)
        row.focus()
        await pilot.pause()
        clock.now += 5
        await press(pilot, "1")  # Response 1 is better; the justification takes the focus
        assert screen.form.judgment.preference is PreferenceChoice.RESPONSE_1
        clock.now += 5
        await press(pilot, "escape")  # back on the row, where letters are choices
        clock.now += 5
        await _type_sentence(pilot, clock, sentence)
        await asyncio.sleep(DEFER + 0.1)
        await pilot.pause()
        # The first letter chose a preference ("i": insufficient, "t": tie) and the sentence
        # went on: it was typing, so the choice was undone and the letter became text.
        assert screen.form.judgment.preference is PreferenceChoice.RESPONSE_1
        assert screen.form.judgment.justification == sentence
        assert any("was the start of typing" in m for m in _notices(app))
        # The words are in the field: the reviewer is not told that they were ignored.
        assert not any("typing was ignored" in m for m in _notices(app)), _notices(app)
        # A deliberate choice, with time to read before typing, stays.
        clock.now += 5
        await press(pilot, "escape")
        clock.now += 5
        await press(pilot, "t")
        clock.now += FOLLOW_SECONDS + 1
        await press(pilot, "x")
        assert _preference(screen) == PreferenceChoice.TIE


@pytest.mark.parametrize("sentence", ["i think the first is better", "tie, I would say"])
async def test_a_sentence_that_arrives_in_one_burst_keeps_the_preference(
    tmp_path: Path, sentence: str
) -> None:
    """A terminal may hand over a whole line of keys at once (a fast typist, a multiplexer):
    every key is in the queue before the first letter's choice reaches the form. The choice is
    still undone, and the reviewer told."""
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen, clock = await _screen(pilot)
        screen.query_one("#preference-row", ChoiceRow).focus()
        await pilot.pause()
        clock.now += 5
        await press(pilot, "1")
        clock.now += 5
        await press(pilot, "escape")
        clock.now += 5
        for char in sentence:  # all queued before any is handled, at one moment
            app.post_message(events.Key(_key(char), char))
        await asyncio.sleep(DEFER + 0.1)
        await pilot.pause()
        assert _preference(screen) is PreferenceChoice.RESPONSE_1
        assert any("was the start of typing" in m for m in _notices(app))


async def test_a_sentence_typed_on_a_scoring_row_changes_nothing_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen, clock = await _screen(pilot)
        gate = screen.query_one("#check-consistent", ChoiceRow)
        assert app.focused is gate
        before = screen.form.judgment
        code = screen.item.code if screen.item else None
        clock.now += 5
        # "h" is Home, "s" submits, "n" and "y" answer the validity check: none of them acts.
        for sentence in ("hello world", "so yes", "no way", "yes sir"):
            clock.now += 5
            await _type_sentence(pilot, clock, sentence)
            await asyncio.sleep(DEFER + 0.1)
            await pilot.pause()
            assert app.screen is screen, sentence
            assert screen.item is not None and screen.item.code == code, sentence
            assert screen.form.judgment == before, sentence
            assert screen.drafts.status != "submitted", sentence
        assert any("Typing ignored" in (n.title or "") for n in app._notifications)
        # A run of answers typed quickly is not typing: each key is the focused row's own.
        clock.now += 5
        await _type_sentence(pilot, clock, "yy")
        assert screen.form.judgment.validity.get("consistent") is True


async def test_a_leaving_key_alone_acts_after_its_moment(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen, clock = await _screen(pilot)
        clock.now += 5
        await press(pilot, "h", settled=False)
        assert app.screen is screen  # held for its moment ...
        await asyncio.sleep(DEFER + 0.2)
        await pilot.pause()
        assert app.screen is not screen  # ... then Home, as asked
        assert not isinstance(app.screen, CompareScreen)


async def test_a_notice_replaces_the_ones_before_it(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        code = screen.item.code if screen.item else None
        await press(pilot, "s")  # nothing decided yet: refused, and said
        assert any("Cannot submit" in (n.title or n.message) for n in app._notifications)
        await press(pilot, *"YYYY")  # shift+y: all five checks hold
        await press(pilot, *"2222", "tab", "tab", *"2222", "tab", "tab", "t")
        await type_text(pilot, "same")
        await press(pilot, "enter", "s")
        assert screen.item is not None and screen.item.code != code
        shown = [f"{n.title} {n.message}" for n in app._notifications]
        assert any("Submitted" in m for m in shown)
        assert not any("Cannot submit" in m for m in shown), shown


@pytest.mark.parametrize("burst", [False, True], ids=["paced", "burst"])
async def test_a_letter_that_chose_what_was_chosen_undoes_nothing_and_says_nothing_of_undoing(
    tmp_path: Path, burst: bool
) -> None:
    """ "Insufficient evidence" already chosen, then "i think ..." typed on the row: the "i"
    chose what was chosen. Nothing is undone, so the reviewer is not told that a decision
    was; and a decision key pressed just after the sentence stands (nothing is waiting to be
    undone)."""
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    sentence = "i think the first is better"
    async with drive(app, SIZE) as pilot:
        screen, clock = await _screen(pilot)
        row = screen.query_one("#preference-row", ChoiceRow)
        row.focus()
        await pilot.pause()
        clock.now += 5
        await press(pilot, "i")  # insufficient evidence; the justification takes the focus
        assert _preference(screen) is PreferenceChoice.INSUFFICIENT
        clock.now += 5
        await press(pilot, "escape")
        app.clear_notifications()
        clock.now += 5
        if burst:
            for char in sentence:
                app.post_message(events.Key(_key(char), char))
        else:
            await _type_sentence(pilot, clock, sentence)
        await asyncio.sleep(DEFER + 0.1)
        await pilot.pause()
        assert _preference(screen) is PreferenceChoice.INSUFFICIENT
        if not burst:  # the letter went to the field it moved the focus to, with the rest
            assert screen.form.judgment.justification == sentence
        assert not any("undone" in m for m in _notices(app)), _notices(app)
        # A deliberate choice made at once after the sentence is the reviewer's.
        await press(pilot, "escape")
        assert app.focused is row
        clock.now += 0.2
        await press(pilot, "1")
        await asyncio.sleep(0.2)
        await pilot.pause()
        assert _preference(screen) is PreferenceChoice.RESPONSE_1


async def test_a_long_justification_is_shown_whole_as_it_is_written(tmp_path: Path) -> None:
    """The one-line field scrolls to its cursor; the echo under it holds the whole text while
    it is longer than the field, and nothing while it fits."""
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (80, 24)) as pilot:
        screen = await compare_screen(pilot)
        field = screen.query_one("#justification", Input)
        echo = screen.query_one("#justification-echo", FieldEcho)
        screen.set_focus(field)
        await type_text(pilot, "Short.")
        assert not echo.has_class("-shown")
        sentence = " The second answers every part of the task and the first leaves out the budget."
        await type_text(pilot, sentence)
        assert field.content_region.width < len(field.value)
        assert echo.has_class("-shown")
        assert " ".join(str(echo.render()).split()) == "Short." + sentence
        await press(pilot, "enter")  # done: the field shows its start again
        assert screen.focused is not field and field.cursor_position == 0
        screen.set_focus(field)
        await pilot.pause()
        await type_text(pilot, "!")
        assert field.value == "Short." + sentence + "!"
