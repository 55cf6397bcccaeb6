"""Saves that cannot be lost: a save the database refused is retried, and leaving asks first.

The fault is real: another connection holds the write lock (``BEGIN IMMEDIATE``), as an import
or another reviewer's process does, and the busy timeout is lowered so that a save gives up
after a fifth of a second instead of five. Before these rules, a reviewer who pressed ``q``
after "NOT SAVED" left with exit status 0 and nothing stored.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Button, Input

from abp_tui.store import db as store_db
from abp_tui.tui import app as app_module
from abp_tui.tui.app import AbpApp, make_app
from abp_tui.tui.retrying import DELAYS, Retry
from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.designs import open_review_screen
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from abp_tui.tui.screens.unsaved import UnsavedScreen
from tests.factories import Cli
from tests.tui_helpers import (
    admin_database,
    compare_screen,
    drive,
    pair_design,
    pair_study,
    press,
    rows,
    settle,
    showing,
    static_text,
    study_database,
    type_text,
    until,
)

SIZE = (160, 50)


@pytest.fixture(autouse=True)
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Saves wait 0.2 s for the lock instead of 5 s (read when a connection opens)."""
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 200)


class WriteLock:
    """Another process writing: a connection holding the database's write lock."""

    def __init__(self, db_path: Path) -> None:
        self.conn = sqlite3.connect(db_path, isolation_level=None, timeout=0)
        self.conn.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
        self.conn.close()


@pytest.fixture
def locks() -> Iterator[list[WriteLock]]:
    held: list[WriteLock] = []
    yield held
    for lock in held:
        lock.release()


def _drafts(db_path: Path) -> list[dict[str, Any]]:
    found = rows(db_path, "SELECT payload FROM judgments WHERE reviewer = 'ana'")
    return [json.loads(payload) for (payload,) in found]


def _bar(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen
    if not isinstance(screen, CompareScreen | AdjudicationScreen):
        return ""
    return static_text(pilot, "#item-bar")


async def _refused_draft(pilot: Pilot[Any], db_path: Path, locks: list[WriteLock]) -> None:
    """Answer a gate check (stored at once) while another process holds the write lock."""
    await compare_screen(pilot)
    locks.append(WriteLock(db_path))
    await press(pilot, "y", settled=False)
    await until(pilot, lambda: "NOT SAVED" in _bar(pilot), "the save to be refused")


def _unsaved_dialog(pilot: Pilot[Any]) -> UnsavedScreen:
    screen = pilot.app.screen
    assert isinstance(screen, UnsavedScreen), f"expected the question, got {screen!r}"
    return screen


# -- the compare screen ---------------------------------------------------------------------------
async def test_quitting_after_a_refused_save_asks_and_retry_saves(
    tmp_path: Path, locks: list[WriteLock]
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await _refused_draft(pilot, db_path, locks)
        await press(pilot, "q", settled=False)
        # Before: the app exited with status 0 and nothing stored. Now it asks first.
        dialog = _unsaved_dialog(pilot)
        assert app.is_running and _drafts(db_path) == []
        # Asking again while the question is shown (ctrl+q reaches the app) adds nothing.
        depth = len(app.screen_stack)
        await press(pilot, "ctrl+q", settled=False)
        assert app.is_running and app.screen is dialog and len(app.screen_stack) == depth
        # The default is the choice that loses nothing, and the dialog says why it asks.
        assert app.focused is dialog.query_one("#keep", Button)
        assert "stayed busy" in static_text(pilot, "#unsaved-reason")
        locks.pop().release()
        await press(pilot, "r", settled=False)  # retry now: store, then leave
        await until(pilot, lambda: not app.is_running, "the app to quit once saved")
    assert app.return_code in (None, 0) and app.lost_work == []
    assert [d["validity"] for d in _drafts(db_path)] == [{"consistent": True}]


async def test_a_refused_save_is_retried_with_backoff_until_it_is_stored(
    tmp_path: Path, locks: list[WriteLock]
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await _refused_draft(pilot, db_path, locks)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        assert "retrying" in _bar(pilot)
        # Tried again by itself, more than once, without a key; said once, not at every try.
        await until(pilot, lambda: screen.drafts.retry.failures >= 3, "three failed attempts")
        notices = [n for n in app._notifications if n.title == "Storing the draft failed"]
        assert len(notices) == 1
        assert _drafts(db_path) == []
        locks.pop().release()
        await until(pilot, lambda: "draft saved" in _bar(pilot), "the retry to store the draft")
        assert "NOT SAVED" not in _bar(pilot) and not screen.drafts.unsaved
        assert [d["validity"] for d in _drafts(db_path)] == [{"consistent": True}]
        await press(pilot, "q")  # nothing unsaved now: no question
        assert not app.is_running


@pytest.mark.parametrize(
    "key",
    ["q", "ctrl+q", "h", "right_square_bracket", "left_square_bracket", "u", "k"],
    ids=["quit", "ctrl-q", "home", "next", "previous", "unfinished", "another-screen"],
)
async def test_every_way_out_asks_and_keep_editing_stays(
    tmp_path: Path, locks: list[WriteLock], key: str
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await _refused_draft(pilot, db_path, locks)
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.item is not None
        code = screen.item.code
        await press(pilot, key, settled=False)
        _unsaved_dialog(pilot)
        await press(pilot, "enter", settled=False)  # the focused default: keep editing
        assert app.is_running and showing(pilot, screen)
        assert screen.item is not None and screen.item.code == code
        await press(pilot, key, settled=False)
        _unsaved_dialog(pilot)
        await press(pilot, "escape", settled=False)
        assert showing(pilot, screen) and screen.drafts.unsaved
        # The decision is still there and is stored once the lock goes.
        locks.pop().release()
        await until(pilot, lambda: not screen.drafts.unsaved, "the retry to store the draft")
    assert [d["validity"] for d in _drafts(db_path)] == [{"consistent": True}]


async def test_leave_and_discard_leaves_without_storing_and_without_waiting(
    tmp_path: Path, locks: list[WriteLock]
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await _refused_draft(pilot, db_path, locks)
        await press(pilot, "q", settled=False)
        _unsaved_dialog(pilot)
        await press(pilot, "d", settled=False)
        await until(pilot, lambda: not app.is_running, "the app to quit")
    # The reviewer chose to discard: nothing stored, nothing reported as lost.
    assert app.lost_work == [] and _drafts(db_path) == []


async def test_retry_now_that_fails_again_stays_and_says_so(
    tmp_path: Path, locks: list[WriteLock]
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await _refused_draft(pilot, db_path, locks)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        shown = len(app.failures)
        await press(pilot, "h", settled=False)
        _unsaved_dialog(pilot)
        await press(pilot, "r", settled=False)  # the lock is still held
        await until(pilot, lambda: len(app.failures) > shown, "the retry to fail")
        assert app.is_running and showing(pilot, screen) and screen.drafts.unsaved
        assert "NOT SAVED" in _bar(pilot)


def test_a_draft_refused_as_the_app_closes_is_printed_and_exits_1(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, locks: list[WriteLock]
) -> None:
    """The app closed without asking (the terminal went away): the last attempt to store the
    draft fails under the lock, and the command says so with exit status 1."""
    db_path = study_database(tmp_path, pair_study(), pair_design())

    async def close_without_asking(pilot: Pilot[Any]) -> None:
        await _refused_draft(pilot, db_path, locks)
        pilot.app.exit()

    def headless(db_path: Path, reviewer: str | None = None) -> AbpApp:
        app = make_app(db_path, reviewer)
        run: Callable[[], Any] = partial(
            App.run, app, headless=True, size=SIZE, auto_pilot=close_without_asking
        )
        monkeypatch.setattr(app, "run", run)
        return app

    monkeypatch.setattr(app_module, "make_app", headless)
    result = cli("tui", "--db", db_path, "--reviewer", "ana")
    assert result.code == 1
    assert result.err.startswith("abp-tui: NOT SAVED: a draft was not saved: ")
    assert "stayed busy" in result.err and len(result.err.strip().splitlines()) == 1
    assert _drafts(db_path) == []


# -- the adjudication screen ----------------------------------------------------------------------
async def _adjudicating(pilot: Pilot[Any]) -> AdjudicationScreen:
    app: Any = pilot.app
    await settle(pilot)
    open_review_screen(app, app.db_path, app.reviewer, "disagreements")
    await settle(pilot)
    await press(pilot, "enter")
    screen = app.screen
    assert isinstance(screen, AdjudicationScreen) and screen.item is not None
    return screen


async def test_an_unrecorded_adjudication_asks_and_a_refused_recording_is_retried(
    tmp_path: Path, locks: list[WriteLock]
) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        screen = await _adjudicating(pilot)
        await press(pilot, "Y")  # the form changed: leaving asks, even before any note
        await press(pilot, "q")
        dialog = _unsaved_dialog(pilot)
        assert not dialog.query("#save")  # nothing can be recorded yet (no note)
        await press(pilot, "escape")
        assert app.screen is screen
        await press(pilot, "p", "e")
        await type_text(pilot, "Reviewer 1 follows the evidence")
        locks.append(WriteLock(db_path))
        await press(pilot, "escape", "s", settled=False)
        await until(pilot, lambda: "NOT RECORDED" in _bar(pilot), "the recording to be refused")
        assert "retrying" in _bar(pilot)
        await press(pilot, "l", settled=False)
        _unsaved_dialog(pilot)
        assert str(app.screen.query_one("#save", Button).label) == "Retry now (r)"
        locks.pop().release()
        await press(pilot, "r", settled=False)
        await until(pilot, lambda: isinstance(app.screen, DisagreementsScreen), "the list")
    found = rows(db_path, "SELECT adjudicator, note FROM adjudications")
    assert found == [("carol", "Reviewer 1 follows the evidence")]


async def test_a_retry_that_records_while_the_dialog_is_open_leaves_on_the_answer(
    tmp_path: Path, locks: list[WriteLock]
) -> None:
    # The timer's retry can record the adjudication while "not recorded: what now?" is open.
    # The screen under the dialog must not move on by itself (it is not the active screen);
    # the reviewer's answer then leaves, with the adjudication recorded once.
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await _adjudicating(pilot)
        await press(pilot, "p", "e")
        await type_text(pilot, "Reviewer 1 follows the evidence")
        locks.append(WriteLock(db_path))
        await press(pilot, "escape", "s", settled=False)
        await until(pilot, lambda: "NOT RECORDED" in _bar(pilot), "the recording to be refused")
        await press(pilot, "l", settled=False)
        dialog = _unsaved_dialog(pilot)
        locks.pop().release()
        await until(
            pilot,
            lambda: rows(db_path, "SELECT count(*) FROM adjudications") == [(1,)],
            "the timer's retry to record the adjudication",
        )
        await pilot.pause(0.2)
        assert app.screen is dialog  # still asking: nothing moved under it
        await press(pilot, "r", settled=False)
        await until(pilot, lambda: isinstance(app.screen, DisagreementsScreen), "the list")
    found = rows(db_path, "SELECT adjudicator, note FROM adjudications")
    assert found == [("carol", "Reviewer 1 follows the evidence")]


async def test_a_refused_recording_is_retried_without_a_key(
    tmp_path: Path, locks: list[WriteLock]
) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        screen = await _adjudicating(pilot)
        await press(pilot, "p", "e")
        await type_text(pilot, "as Reviewer 1")
        locks.append(WriteLock(db_path))
        await press(pilot, "escape", "s", settled=False)
        await until(pilot, lambda: screen.retry.failures >= 2, "two failed attempts")
        notices = [n for n in app._notifications if n.title == "Recording the adjudication failed"]
        assert len(notices) == 1
        locks.pop().release()
        await until(pilot, lambda: isinstance(app.screen, DisagreementsScreen), "the list")
    assert rows(db_path, "SELECT note FROM adjudications") == [("as Reviewer 1",)]


async def test_leaving_an_adjudication_and_discarding_records_nothing(tmp_path: Path) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        screen = await _adjudicating(pilot)
        await press(pilot, "p", "e")
        await type_text(pilot, "not sure yet")
        await press(pilot, "escape", "l")
        dialog = _unsaved_dialog(pilot)
        assert str(dialog.query_one("#save", Button).label) == "Record now (r)"
        await press(pilot, "k")
        assert app.screen is screen
        assert screen.query_one("#note", Input).value == "not sure yet"
        await press(pilot, "l")
        _unsaved_dialog(pilot)
        await press(pilot, "d")
        assert isinstance(app.screen, DisagreementsScreen)
    assert rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(0,)]


# -- the schedule --------------------------------------------------------------------------------
class _Clock:
    """Records the delays asked for instead of running timers."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def set_timer(self, delay: float, callback: Callable[[], None]) -> Any:
        self.delays.append(delay)
        return _Timer()


class _Timer:
    def stop(self) -> None:
        pass


def test_retries_come_later_each_time_up_to_a_ceiling_and_reset_on_success() -> None:
    clock = _Clock()
    attempts: list[int] = []
    retry = Retry(clock, lambda: attempts.append(1))  # type: ignore[arg-type]
    firsts = [retry.failed("busy") for _ in range(7)]
    assert firsts == [True] + [False] * 6
    assert clock.delays == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert DELAYS[-1] == 8.0 and retry.status() == "retrying in 8 s"
    retry.now()
    assert attempts == [1] and retry.status() == "retrying…"
    retry.succeeded()
    assert not retry.pending
    assert retry.failed("busy") and clock.delays[-1] == 0.5
