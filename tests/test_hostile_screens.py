"""Every screen of the workstation with hostile text in every record field (issue 15).

The attack: a task title holding ``[/]`` crashed the adjudication screen (Textual parses a
title as markup, and ``[/]`` closes nothing), and ``[@click=app.quit]`` in the agreement
screen's detail title rendered a live action. Here every text field a record can carry (study,
task, condition, run, trace, rubric, design, reviewer names, rationales, justifications,
overrides, findings) holds such text, tagged with the field's name
(``tests/hostile_records.py``), and each screen a reviewer or a coordinator meets is opened in
the real app. On each: the app is still running, no drawn segment carries an action or a link
from the records, no escape sequence from a record reaches the terminal, every field the screen
shows is there literally (markup and all), and a blind screen shows no condition, model, engine,
provider or run id, nor another reviewer's judgment.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable

from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.screens.agreement import AgreementScreen
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.coordinator_notice import CoordinatorNoticeScreen
from abp_tui.tui.screens.designs import DesignPickerScreen
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from abp_tui.tui.screens.finding import FindingScreen
from abp_tui.tui.screens.help import HelpScreen
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.judges import JudgesScreen
from abp_tui.tui.screens.newdesign import NewDesignScreen
from abp_tui.tui.screens.queue import QueueScreen
from abp_tui.tui.screens.results import ResultsScreen, UnblindScreen
from abp_tui.tui.screens.revise import ReviseScreen
from tests.hostile_records import ACTION, R1, R2, STUDY, hostile, hostile_database
from tests.tui_helpers import compare_screen, drive, press, screen_text, settle, until

SIZE = (160, 45)
IDENTITY: tuple[str, ...] = ("condA", "condC", "labelA", "labelC", "instrA", "instrC")
IDENTITY += ("model", "provider", "engine", "run")
"""Tags of the fields that tell which condition, model or engine wrote a response."""
RUBRIC = ("rubricfatal", "gate-consistent", "dim-task_correctness", "anchor0", "anchor2")
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
TAGS = re.compile(r"([A-Za-z0-9_-]+)(?:\[/\])?" + re.escape(ACTION))


def _drawn_problems(pilot: Pilot[Any]) -> list[str]:
    """Actions, links and control characters in what the current screen draws."""
    found = []
    for strip in pilot.app.screen._compositor.render_strips():
        for segment in strip:
            style = segment.style
            meta = (style.meta or {}) if style is not None else {}
            if "@click" in meta:  # what markup's [@click=...] makes (scrollbars use others)
                found.append(f"action {meta['@click']} on {segment.text!r}")
            if style is not None and style.link and "evil" in style.link:
                found.append(f"link {style.link} on {segment.text!r}")
            if CONTROL.search(segment.text):
                found.append(f"control character in {segment.text!r}")
    return found


def _shown_tags(text: str) -> set[str]:
    return set(TAGS.findall(text))


async def _check(
    pilot: Pilot[Any],
    screen: type[object],
    shows: tuple[str, ...] = (),
    hides: tuple[str, ...] = (),
) -> str:
    """The current screen is ``screen``, draws nothing live from the records, shows each field
    tagged in ``shows`` literally and none tagged in ``hides``; returns its text."""
    await settle(pilot)
    app = pilot.app
    assert app.is_running, f"the app ended on {screen.__name__}"
    assert isinstance(app.screen, screen), f"{type(app.screen).__name__}, not {screen.__name__}"
    assert _drawn_problems(pilot) == [], screen.__name__
    text = screen_text(pilot)
    tags = _shown_tags(text)
    assert set(shows) <= tags, f"{screen.__name__} does not show {sorted(set(shows) - tags)}"
    leaked = sorted(t for t in hides if f"{t}[" in text)
    assert leaked == [], f"{screen.__name__} shows {leaked}"
    return text


async def _to(pilot: Pilot[Any], screen: type[object], *keys: str) -> None:
    await press(pilot, *keys)
    await until(pilot, lambda: isinstance(pilot.app.screen, screen), screen.__name__)
    await settle(pilot)


def _task(tag: str) -> tuple[str, ...]:
    return tuple(f"{field}-{tag}" for field in ("title", "prompt", "evidence", "expected"))


def _item(tag: str) -> tuple[str, ...]:
    return (f"fatal-{tag}", f"risk-{tag}", f"out-{tag}-1", f"out-{tag}-2")


# -- a reviewer ------------------------------------------------------------------------------------
async def test_every_screen_a_reviewer_meets_shows_hostile_records_as_text(
    tmp_path: Path,
) -> None:
    app = make_app(hostile_database(tmp_path), reviewer=R1)
    async with drive(app, SIZE) as pilot:
        compare = await compare_screen(pilot)
        assert compare.item is not None
        task = (
            "T2" if "title-T2" in compare.item.task.title else "T1"
        )  # the item rev1 has not judged
        others = ("why-r2", "justify-r2", "override", "rev2")
        blind = IDENTITY + others
        await _check(
            pilot,
            CompareScreen,
            (*_task(task), *_item(task), *RUBRIC, "study", "design", "rev1"),
            blind,
        )
        await press(pilot, "r")  # the trace
        await _check(pilot, CompareScreen, ("kind", "tool"), blind)
        await press(pilot, "r", "right_square_bracket")  # the item rev1 submitted
        await until(
            pilot,
            lambda: compare.item is not None and f"title-{task}" not in compare.item.task.title,
        )
        await _check(pilot, CompareScreen, ("justify-r1",), blind)
        await _to(pilot, FindingScreen, "f")
        await _check(pilot, FindingScreen, ("study", "design"), blind)
        await _to(pilot, CompareScreen, "escape")
        await _to(pilot, QueueScreen, "l")
        await _check(pilot, QueueScreen, ("title-T1", "title-T2"), blind)
        await _to(pilot, CompareScreen, "escape")
        await _to(pilot, HelpScreen, "question_mark")
        await _check(pilot, HelpScreen, (), blind)
        await _to(pilot, CompareScreen, "escape")
        assert compare.item is not None
        app.push_screen(ReviseScreen(compare.item.code, allow_discard=True))
        await until(pilot, lambda: isinstance(app.screen, ReviseScreen), "the revise dialog")
        await _check(pilot, ReviseScreen, (), blind)
        await _to(pilot, CompareScreen, "escape")
        await _to(pilot, HomeScreen, "h")
        await _check(pilot, HomeScreen, ("studyname", "studydesc", "design", "second", "T1", "T2"))
        await _to(pilot, NewDesignScreen, "n")
        await _check(pilot, NewDesignScreen, ("condA", "condC", "labelA", "rubric"))
        await _to(pilot, HomeScreen, "escape")
        await _to(pilot, JudgesScreen, "g")
        await _check(pilot, JudgesScreen)


# -- a coordinator ---------------------------------------------------------------------------------
async def _pick_first_design(
    pilot: Pilot[Any], key: str, screen: type[object], *, notice: bool = False
) -> None:
    await _to(pilot, DesignPickerScreen, key)
    await _check(pilot, DesignPickerScreen, ("design", "second"))
    await press(pilot, "home")  # the list's first (the design created last is highlighted)
    if not notice:
        await _to(pilot, screen, "enter")
        return
    # carol could still join the second (open) design: her first look is asked about first.
    await _to(pilot, CoordinatorNoticeScreen, "enter")
    await _check(pilot, CoordinatorNoticeScreen, ("study",))  # over the home screen
    await _to(pilot, screen, "c")


async def test_every_screen_a_coordinator_meets_shows_hostile_records_as_text(
    tmp_path: Path,
) -> None:
    app = make_app(hostile_database(tmp_path), reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "the home screen")
        await _check(pilot, HomeScreen, ("studyname", "T1", "T2", "condA", "labelC"))
        await _pick_first_design(pilot, "a", DisagreementsScreen, notice=True)
        await until(pilot, lambda: app.screen.query_one(DataTable).row_count == 1)
        await _check(pilot, DisagreementsScreen, ("study", "design", "dim-task_correctness"))
        await _to(pilot, AdjudicationScreen, "enter")
        await until(
            pilot,
            lambda: isinstance(shown := app.screen, AdjudicationScreen) and shown.item is not None,
            "the item to adjudicate",
        )
        judged = ("why-r2", "justify-r1", "justify-r2", "override")
        await _check(
            pilot,
            AdjudicationScreen,
            (*_task("T1"), "fatal-T1", "out-T1-1", "out-T1-2", *judged, *RUBRIC),
            (*IDENTITY, "rev1", "rev2"),  # reviewers' names are hidden until asked for
        )
        await press(pilot, "v")
        await _check(pilot, AdjudicationScreen, ("rev1", "rev2", *judged), IDENTITY)
        await _to(pilot, DisagreementsScreen, "l")
        await _to(pilot, HomeScreen, "escape")
        await _pick_first_design(pilot, "k", AgreementScreen)
        await until(pilot, lambda: getattr(app.screen, "shown", None) is not None, "agreement")
        table = app.screen.query_one("#variables", DataTable)
        seen: set[str] = set()
        for row in range(table.row_count):  # each variable's detail, its title included
            table.move_cursor(row=row)
            seen |= _shown_tags(await _check(pilot, AgreementScreen, ("study", "design")))
        assert {"fatal-T1", "rubricfatal", "rev1", "rev2"} <= seen, seen
        await _to(pilot, HomeScreen, "escape")
        await _pick_first_design(pilot, "v", ResultsScreen)
        await until(pilot, lambda: getattr(app.screen, "shown", None) is not None, "results")
        await _check(pilot, ResultsScreen, ("study", "design"), IDENTITY)
        await _to(pilot, UnblindScreen, "u")
        await _check(pilot, UnblindScreen, ("study",), IDENTITY)
        await _to(pilot, ResultsScreen, "escape")


async def test_the_results_after_unblinding_show_the_conditions_as_text(tmp_path: Path) -> None:
    db_path = hostile_database(tmp_path)
    db = connect(db_path)
    try:
        unblind(db, STUDY, hostile("coordinator"))
    finally:
        db.close()
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "the home screen")
        await _pick_first_design(pilot, "v", ResultsScreen, notice=True)
        await until(pilot, lambda: getattr(app.screen, "shown", None) is not None, "results")
        await _check(pilot, ResultsScreen, ("study", "design", "condA", "condC"))
    assert R2  # both reviewers' names were hostile too (tests/hostile_records.py)
