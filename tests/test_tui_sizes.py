"""Every main screen on a small terminal (80x24) and a large one (160x48): one SVG snapshot each.

The studies, the apps and the ways to each screen are those of ``tests/test_tui_snapshots.py``;
only the terminal differs. At 80x24 nothing essential may be cut off (the judging screens show
the texts or the form in turn, the key bar keeps what fits and the help key), at 160x48 the
width is used. ``pytest --snapshot-update`` rewrites them; look at the SVG before accepting it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from abp_tui.tui.screens.help import HelpScreen
from abp_tui.tui.screens.judges import JudgesScreen
from abp_tui.tui.screens.newdesign import NewDesignScreen
from abp_tui.tui.screens.queue import QueueScreen
from tests.snapshot_helpers import (
    SnapCompare,
    admin_app,
    agreement_shown,
    judging_app,
    opened,
    results_shown,
)
from tests.tui_helpers import (
    compare_screen,
    home_listed,
    press,
    settle,
    steady,
    until,
)

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]

Before = Callable[[Pilot[Any]], Awaitable[None]]


async def _home(pilot: Pilot[Any]) -> None:
    await until(pilot, lambda: home_listed(pilot.app, "tasks"))
    await settle(pilot)


async def _compare(pilot: Pilot[Any]) -> None:
    await compare_screen(pilot)
    steady(pilot)


async def _compare_form(pilot: Pilot[Any]) -> None:
    await compare_screen(pilot)
    await press(pilot, "tab")  # the form comes on a narrow terminal; the next field elsewhere
    steady(pilot)


async def _queue(pilot: Pilot[Any]) -> None:
    await compare_screen(pilot)
    await press(pilot, "l")
    await until(pilot, lambda: isinstance(pilot.app.screen, QueueScreen), "the queue")
    await until(pilot, lambda: pilot.app.screen.query_one(DataTable).row_count == 2)


async def _help(pilot: Pilot[Any]) -> None:
    await compare_screen(pilot)
    await press(pilot, "question_mark")
    await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")


async def _disagreements(pilot: Pilot[Any]) -> None:
    await opened(pilot, "disagreements", DisagreementsScreen)
    await until(pilot, lambda: pilot.app.screen.query_one(DataTable).row_count == 1)


async def _adjudication(pilot: Pilot[Any]) -> None:
    await _disagreements(pilot)
    await press(pilot, "enter")
    await until(
        pilot,
        lambda: (
            isinstance(shown := pilot.app.screen, AdjudicationScreen) and shown.item is not None
        ),
        "the item to adjudicate",
    )
    await settle(pilot)
    steady(pilot)


async def _adjudication_form(pilot: Pilot[Any]) -> None:
    await _adjudication(pilot)
    await press(pilot, "tab")  # the final judgment comes on a narrow terminal
    steady(pilot)


async def _judges(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await press(pilot, "g")
    await until(pilot, lambda: isinstance(pilot.app.screen, JudgesScreen), "the judges screen")
    await settle(pilot)


async def _new_design(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await press(pilot, "n")
    await until(pilot, lambda: isinstance(pilot.app.screen, NewDesignScreen), "the new design")
    await settle(pilot)


async def _agreement_detail(pilot: Pilot[Any]) -> None:
    await agreement_shown(pilot)
    await press(pilot, "enter")  # the highlighted variable's detail, given the room


JUDGING_SCREENS: dict[str, Before] = {
    "compare": _compare,
    "compare_form": _compare_form,
    "queue": _queue,
    "help": _help,
}
COORDINATING_SCREENS: dict[str, Before] = {
    "home": _home,
    "new_design": _new_design,
    "judges": _judges,
    "disagreements": _disagreements,
    "adjudication": _adjudication,
    "adjudication_form": _adjudication_form,
    "agreement": agreement_shown,
    "agreement_detail": _agreement_detail,
    "results": results_shown,
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("screen", list(JUDGING_SCREENS))
def test_judging_screen(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    snap_compare: SnapCompare,
    screen: str,
    size: tuple[int, int],
) -> None:
    app = judging_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=size, run_before=JUDGING_SCREENS[screen])


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("screen", list(COORDINATING_SCREENS))
def test_coordinating_screen(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    snap_compare: SnapCompare,
    screen: str,
    size: tuple[int, int],
) -> None:
    # The new design's form offers a fresh seed: a fixed one here.
    monkeypatch.setattr("abp_tui.services.designing.fresh_seed", lambda: 20260102)
    app = admin_app(tmp_path, monkeypatch, unblinded=screen == "results")
    assert snap_compare(app, terminal_size=size, run_before=COORDINATING_SCREENS[screen])
