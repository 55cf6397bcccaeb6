"""The first item: its texts are drawn before its judgment form is built, and keys typed before the
form is there wait for it instead of being lost or taken as typing.

The texts come first because building the form (its rows, their options, the rationale fields)
is most of a paint's work at start-up (``abp-tui bench startup``). A reviewer who starts typing
scores meanwhile must find them on the rows they were meant for, judged by the typing guard at the
pace they were typed.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from abp_tui.models import Rubric
from abp_tui.services import studies
from abp_tui.services.desk import Desk, judgeable_designs
from abp_tui.tui.app import make_app
from abp_tui.tui.responsive import DiffRunner
from abp_tui.tui.screens import designs, home
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.widgets.choices import ChoiceRow
from abp_tui.tui.widgets.judgment_form import JudgmentForm
from abp_tui.tui.widgets.response_scoring import DimensionRow
from abp_tui.tui.widgets.textlayout import DiffMarks
from abp_tui.tui.widgets.textpane import TextPane
from tests.tui_helpers import (
    TIMEOUT,
    drive,
    pair_design,
    pair_study,
    press,
    settle,
    study_database,
    until,
)

SIZE = (160, 50)


def _slow_disk(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Items open only once the returned event is set (the disk answers when the test says so)."""
    disk = threading.Event()
    open_item = Desk.open

    def slow(self: Desk, code: str | None = None) -> Any:
        disk.wait(TIMEOUT)
        return open_item(self, code)

    monkeypatch.setattr(Desk, "open", slow)
    return disk


def _compare(app: Any) -> CompareScreen | None:
    screen = app.screen
    return screen if isinstance(screen, CompareScreen) else None


async def test_keys_typed_before_the_form_is_there_act_on_its_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    disk = _slow_disk(monkeypatch)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: _compare(app) is not None, "the compare screen")
        screen = _compare(app)
        assert screen is not None and screen.item is None and not screen.query(DimensionRow)
        # The gate's five checks, then the first score of Response 1: at a person's pace (the
        # test suite's clock), before the item has even been read.
        await press(pilot, *"yyyyy", "2", settled=False)
        assert screen.item is None and not app._notifications  # waiting, not "typing ignored"
        disk.set()
        await until(pilot, lambda: screen.item is not None, "the first item")
        await settle(pilot)
        judgment = screen.form.judgment
        assert judgment.validity == dict.fromkeys(judgment.validity, True)
        assert len(judgment.validity) == 5
        first = judgment.responses["1"].scores
        assert list(first.values()) == [2]
        # The score moved the focus on to the next dimension, as it does once the form is there.
        rubric = screen.form.rubric
        assert rubric is not None and isinstance(app.focused, DimensionRow)
        assert app.focused.id == "dim-1-" + rubric.dimensions[1].id
        assert screen.drafts.judgment == judgment  # stored as a draft like any decision
        assert not app._notifications


async def test_a_sentence_typed_before_the_form_is_there_is_still_typing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    disk = _slow_disk(monkeypatch)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: _compare(app) is not None, "the compare screen")
        screen = _compare(app)
        assert screen is not None
        clock = [50_000.0]
        screen.guard.clock = lambda: clock[0]
        for char in "yes i think":  # ten keys a second: typing, however long the form takes
            clock[0] += 0.1
            await press(pilot, "space" if char == " " else char, settled=False)
        disk.set()
        await until(pilot, lambda: screen.item is not None, "the first item")
        await settle(pilot)
        gate = screen.query_one("#check-consistent", ChoiceRow)
        # "y" acted and "e" showed it to be the start of a word: undone, like every key after it.
        assert gate.value is None and screen.form.judgment.preference is None
        assert app.focused is gate
        notices = [n.message for n in app._notifications]
        assert sum("keys act at once" in m for m in notices) == 1
        assert any("was the start of typing" in m for m in notices)


async def test_the_texts_are_drawn_before_the_form_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    seen: list[tuple[str, ...]] = []
    build = JudgmentForm.build

    async def watched(self: JudgmentForm, rubric: Rubric, timing_rule: str | None = None) -> bool:
        if self.rubric is None:
            panes = self.screen.query(TextPane)
            seen.append(tuple(p.text for p in panes if p.id in ("text-1", "text-2")))
        return await build(self, rubric, timing_rule)

    monkeypatch.setattr(JudgmentForm, "build", watched)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: (s := _compare(app)) is not None and s.item is not None)
        await settle(pilot)
        screen = _compare(app)
        assert screen is not None and screen.item is not None
        assert len(seen) == 1
        texts = seen[0]
        assert len(texts) == 2 and all("The launch moves to May." in t for t in texts)
        # The form is whole and the focus on its first unanswered row.
        assert app.focused is screen.query_one("#check-consistent", ChoiceRow)


async def test_the_first_item_does_not_wait_for_the_diff_process_to_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    started = threading.Event()
    warm_up, diff = DiffRunner.warm_up, DiffRunner.diff

    def slow_start(self: DiffRunner) -> None:
        started.wait(TIMEOUT)  # the process answers when the test says so
        warm_up(self)

    def slow_diff(self: DiffRunner, left: str, right: str) -> DiffMarks:
        started.wait(TIMEOUT)
        return diff(self, left, right)

    monkeypatch.setattr(DiffRunner, "warm_up", slow_start)
    monkeypatch.setattr(DiffRunner, "diff", slow_diff)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: (s := _compare(app)) is not None and s.item is not None)
        screen = _compare(app)
        assert screen is not None and screen.pair.marks is None  # the texts, not the diff yet
        started.set()
        await until(pilot, lambda: screen.pair.marks is not None, "the diff")
        await settle(pilot)
        assert screen.pair.marks is not None and screen.pair.marks.hunks


async def test_the_home_screen_beneath_the_first_item_reads_its_studies_once_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    reads: list[Path] = []
    read = studies.read_studies

    def counted(path: Path) -> Any:
        reads.append(path)
        return read(path)

    # The home screen imports it from there as it reads (the first item is shown without it).
    monkeypatch.setattr(studies, "read_studies", counted)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: (s := _compare(app)) is not None and s.item is not None)
        await settle(pilot)
        beneath = app.screen_stack[-2]
        assert isinstance(beneath, home.HomeScreen)
        home_screen: home.HomeScreen = beneath
        assert reads == []  # the first item came first; nothing read for a screen not shown
        assert not beneath.query(DataTable)  # nor built: styling it would delay the first item
        await press(pilot, "h")
        await until(pilot, lambda: beneath.table("studies").row_count == 1, "the studies")
        assert app.screen is beneath and reads == [db_path]
        assert home_screen.shown_study == "pilot"


async def test_the_first_paint_of_the_compare_screen_is_its_first_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At start-up the item is read before its screen is pushed, so the screen is never laid
    # out and drawn empty only to be drawn again a moment later with the texts.
    db_path = study_database(tmp_path, pair_study(), pair_design())
    painted: list[tuple[str, ...]] = []
    paint = CompareScreen._compositor_refresh

    def watched(self: CompareScreen) -> None:
        panes = self.query(TextPane)
        painted.append(tuple(p.text for p in panes if p.id in ("text-1", "text-2")))
        paint(self)

    monkeypatch.setattr(CompareScreen, "_compositor_refresh", watched)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: (s := _compare(app)) is not None and s.item is not None)
        await settle(pilot)
        assert painted
        first = painted[0]
        assert len(first) == 2 and all("The launch moves to May." in t for t in first)


async def test_a_slow_first_item_shows_its_screen_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    disk = _slow_disk(monkeypatch)
    opened: list[str | None] = []
    slow_open = Desk.open

    def counted(self: Desk, code: str | None = None) -> Any:
        opened.append(code)
        return slow_open(self, code)

    monkeypatch.setattr(Desk, "open", counted)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        # The screen is pushed without its item (keys typed from now on reach it and wait).
        await until(pilot, lambda: _compare(app) is not None, "the compare screen")
        screen = _compare(app)
        assert screen is not None and screen.item is None
        disk.set()
        await until(pilot, lambda: screen.item is not None, "the first item")
        await settle(pilot)
        assert app.screen is screen
        assert opened == [None]  # read once, where the reviewer left off


async def test_keys_typed_before_any_screen_is_there_act_on_the_first_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A reviewer who types as soon as the program starts, before their design is even looked up
    # (the first screen is pushed once it has been), finds the keys on the first item's form.
    db_path = study_database(tmp_path, pair_study(), pair_design())
    looked_up = threading.Event()

    def slow(db: Path, reviewer: str) -> Any:
        looked_up.wait(TIMEOUT)
        return judgeable_designs(db, reviewer)

    monkeypatch.setattr(designs, "judgeable_designs", slow)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        assert not app.screen_stack[1:]  # no screen of ours yet
        await press(pilot, "y", "y", settled=False)
        looked_up.set()
        await until(pilot, lambda: (s := _compare(app)) is not None and s.item is not None)
        await settle(pilot)
        screen = _compare(app)
        assert screen is not None
        validity = screen.form.judgment.validity
        assert list(validity.values()).count(True) == 2
        assert not app._notifications


async def test_a_first_item_that_cannot_be_read_ahead_is_read_by_its_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The disk refuses once, as the item is read before its screen: the screen opens anyway and
    # reads the item itself.
    db_path = study_database(tmp_path, pair_study(), pair_design())
    opened: list[str | None] = []
    open_item = Desk.open

    def refused_once(self: Desk, code: str | None = None) -> Any:
        opened.append(code)
        if len(opened) == 1:
            raise sqlite3.OperationalError("disk I/O error")
        return open_item(self, code)

    monkeypatch.setattr(Desk, "open", refused_once)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: (s := _compare(app)) is not None and s.item is not None)
        await settle(pilot)
        assert len(opened) == 2 and not app.failures
