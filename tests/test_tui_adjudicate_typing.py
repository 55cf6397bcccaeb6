"""Keys that never betray typing on the adjudication screen: a sentence typed wherever the focus
is changes no decision of the final judgment, reveals no reviewer's name, records nothing and
leaves no screen; the adjudicator is told. The compare screen's guard (tests/test_tui_typing.py)
is the same code: :mod:`abp_tui.tui.typing_shield`.

The guard's clock is the test's own here, and a key that records or leaves waits its moment for
a following letter, as it does for a person.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.typing_guard import FOLLOW_SECONDS
from abp_tui.tui.widgets.choices import ChoiceRow, FieldEcho
from tests.tui_helpers import (
    adjudicating,
    admin_database,
    drive,
    press,
    rows,
    settle,
    until,
)

KEY_GAP = 0.1
"""Seconds between the keys of a sentence: a person typing about ten keys a second."""
DEFER = 0.25
SENTENCES = (
    "hello world",  # h, l (the list), o (the form), r (the trace)
    "so yes, please",  # s records; y answers a check; p fills the form from a reviewer's
    "very quick",  # v shows the reviewers' names; q quits; k: agreement
    "i think it is a tie, just",  # i: insufficient; t: tie; a: the disagreements; j: judging
    "no way",  # n: a check fails
)


class _Clock:
    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


def _key(char: str) -> str:
    return "space" if char == " " else char


async def _type_sentence(pilot: Pilot[Any], clock: _Clock, sentence: str) -> None:
    for char in sentence:
        clock.now += KEY_GAP
        await press(pilot, _key(char), settled=False)
    screen = next(s for s in pilot.app.screen_stack if isinstance(s, AdjudicationScreen))
    # A key still deferred acts once its moment is over (or a letter cancelled it), and what
    # it started (a recording in a worker) is over before the test looks.
    await until(pilot, lambda: not screen.shield.deferring, "the deferred key's moment")
    await settle(pilot)


def _notices(app: Any, after: set[str] | None = None) -> list[str]:
    """The notices shown (those not among ``after``'s identities)."""
    return [
        f"{n.title} {n.message}"
        for n in app._notifications
        if after is None or n.identity not in after
    ]


def _decisions(judgment: Judgment) -> tuple[object, ...]:
    """What the final judgment decides, without the words of its text fields."""
    responses = {
        key: (r.scores, r.fatal_hits, r.state_override, r.reclassified, r.correction_minutes)
        for key, r in sorted(judgment.responses.items())
    }
    return (responses, judgment.preference, judgment.validity)


def _shown(app: Any) -> set[str]:
    return {n.identity for n in app._notifications}


async def _adjudication(pilot: Pilot[Any]) -> tuple[AdjudicationScreen, _Clock]:
    screen = await adjudicating(pilot)
    clock = _Clock()
    screen.guard.clock = clock
    screen.guard.defer_seconds = DEFER
    return screen, clock


def _focus_states(screen: AdjudicationScreen) -> list[Widget | None]:
    """One widget of each kind that can have the focus, and no focus at all (with the final
    judgment on screen: a narrow terminal shows it in turn with the item)."""
    firsts: dict[str, Widget] = {}
    for widget in screen.focus_chain:
        kind = type(widget).__name__
        firsts.setdefault(f"{kind}:{widget.id}" if isinstance(widget, Input) else kind, widget)
    return [None, *firsts.values()]


@pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=["wide", "narrow"])
async def test_sentences_typed_at_every_focus_change_nothing_and_leave_nothing(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    db_path, _pk, codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, size) as pilot:
        screen, clock = await _adjudication(pilot)
        first_row = app.focused
        assert isinstance(first_row, ChoiceRow)
        narrow = size[0] < 110
        # On a narrow terminal the item is read first, the focus on the form kept out of view.
        assert screen.form_shown is not narrow
        states: list[Widget | None] = [first_row]
        for shown in (False, True):
            screen.show_form(shown)
            await pilot.pause()
            states += [w for w in _focus_states(screen) if w not in states]
        kinds = {type(w).__name__ for w in states if w is not None}
        # Every kind of place the focus can be: the task, the tabs, the texts, the reviewers'
        # judgments, the gate, a score, the fatal criteria, a state, the preference, the
        # justification and the note.
        assert {"CheckRow", "DimensionRow", "PreferenceRow", "TextPane", "Input"} <= kinds
        assert {"FatalList", "OverrideRow", "FieldInput", "VerticalScroll"} <= kinds
        for index, target in enumerate(states):
            for sentence in SENTENCES:
                clock.now += 5
                column = screen.query_one("#final-column")
                in_form = target is not None and column in target.ancestors
                screen.show_form(in_form and index > 0)
                screen.set_focus(target)
                await pilot.pause()
                before = screen.final
                notices = _shown(app)
                await _type_sentence(pilot, clock, sentence)
                where = f"{target!r}: {sentence!r}"
                assert app.screen is screen, where
                assert screen.code == codes[0], where
                assert rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(0,)], where
                assert not screen.show_names and not screen.names_seen, where
                # Words typed in a text field (the focused one, or one a letter moved the
                # focus to) are the field's: no decision changed.
                assert _decisions(screen.final) == _decisions(before), where
                if isinstance(target, Input):
                    assert target.value.endswith(sentence), where
                else:
                    told = _notices(app, notices)
                    # The reviewer is told; never that words now in a field were ignored.
                    kept = any(sentence[1:] in field.value for field in screen.query(Input))
                    assert any(
                        "Typing ignored" in n or "Typing, not a decision" in n for n in told
                    ), (where, told)
                    if kept:
                        assert not any("Typing ignored" in n for n in told), (where, told)
                # The next sentence starts from the same form, with empty fields.
                item = screen.item
                assert item is not None
                screen.form.load(before, item.responses, item.task.fatal_criteria)
                screen.query_one("#note", Input).value = ""


async def test_a_letter_typed_after_a_choice_is_undone_and_said(tmp_path: Path) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 50)) as pilot:
        screen, clock = await _adjudication(pilot)
        row = screen.query_one("#preference-row", ChoiceRow)
        row.focus()
        await pilot.pause()
        clock.now += 5
        await _type_sentence(pilot, clock, "tie it is")
        # "t" chose a tie and moved on to the justification; the sentence went on: the choice
        # was undone, the letter went to the field with the rest of the words.
        assert screen.final.preference is None
        assert screen.final.justification == "tie it is"
        assert any("'t' was the start of typing" in n for n in _notices(app))
        # A deliberate choice, with time to read before typing, stays.
        clock.now += 5
        row.focus()
        await pilot.pause()
        await press(pilot, "t")
        clock.now += FOLLOW_SECONDS + 1
        await press(pilot, "x")
        assert screen.final.preference is PreferenceChoice.TIE


async def test_a_deliberate_key_acts_after_its_moment(tmp_path: Path) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 50)) as pilot:
        screen, clock = await _adjudication(pilot)
        clock.now += 5
        await press(pilot, "v", settled=False)
        assert not screen.show_names  # held for its moment ...
        await asyncio.sleep(DEFER + 0.2)
        await pilot.pause()
        assert screen.show_names  # ... then the names, as asked
        clock.now += 5
        await press(pilot, "l", settled=False)
        await asyncio.sleep(DEFER + 0.2)
        await settle(pilot)
        assert app.screen is not screen  # back to the list


async def test_hiding_the_form_keeps_the_focus_out_of_its_text_fields(tmp_path: Path) -> None:
    """A narrow terminal: o hides the final judgment while the preference row has the focus.
    The focus stays on the row (its keys bring the form back), not on the justification field
    beside it, where the next keys would be typed out of sight."""
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (80, 24)) as pilot:
        screen, clock = await _adjudication(pilot)
        screen.guard.defer_seconds = 0
        screen.show_form(True)
        row = screen.query_one("#preference-row", ChoiceRow)
        row.focus()
        await until(pilot, lambda: app.focused is row, "the preference row focused")
        clock.now += 5
        await press(pilot, "o")
        assert not screen.form_shown
        assert app.focused is row
        clock.now += 5
        await press(pilot, "t")  # the row's key: a tie, on a form brought back on screen
        assert screen.form_shown
        assert screen.final.preference is PreferenceChoice.TIE


async def test_a_long_note_is_shown_whole_under_its_field(tmp_path: Path) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (80, 24)) as pilot:
        screen, _clock = await _adjudication(pilot)
        screen.show_form(True)
        note = screen.query_one("#note", Input)
        echo = screen.query_one("#note-echo", FieldEcho)
        note.value = "Both are fine."
        await pilot.pause()
        assert not echo.has_class("-shown")
        note.value = "The second reviewer read the budget as optional; the task says it is " * 2
        await pilot.pause()
        assert echo.has_class("-shown")
        assert " ".join(str(echo.render()).split()) == note.value.strip()
