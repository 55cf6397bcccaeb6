"""A narrow terminal (80 columns): the home screen's tables keep to the screen, giving up their
less important columns first, and a response with no trace spends no lines on a tab bar."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import DataTable, Tabs

from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import COLUMNS, HomeScreen
from abp_tui.tui.widgets.fitted_columns import CELL_PADDING, Give, cut, fit_columns
from abp_tui.tui.widgets.response import ResponseView
from tests.transcript_helpers import agent_database
from tests.tui_helpers import (
    compare_screen,
    drive,
    home_listed,
    home_study,
    pair_design,
    pair_study,
    press,
    settle,
    studies_database,
    study_database,
    until,
)

_COLUMNS = [("ID", "id"), ("Runs", "runs"), ("Excluded", "excluded"), ("Label", "label")]
_ROWS = [[Text("condition-a"), Text("12"), Text("0"), Text("A long label for condition a")]]


def _widths(room: int, gives: list[Give]) -> list[tuple[str, int]]:
    fitted = fit_columns(_COLUMNS, _ROWS, room, gives)
    return [(_COLUMNS[index][1], width) for index, width in fitted.columns]


def test_columns_give_way_in_the_order_given_and_only_as_far_as_needed() -> None:
    gives = [Give("label", 16), Give("excluded"), Give("label", 8)]
    natural = [("id", 11), ("runs", 4), ("excluded", 8), ("label", 28)]
    assert _widths(0, gives) == natural  # not laid out yet: as is
    assert _widths(59, gives) == natural  # 51 cells and 4 paddings of 2: it fits
    assert _widths(50, gives) == [("id", 11), ("runs", 4), ("excluded", 8), ("label", 19)]
    # The label goes no narrower than 16 before the Excluded column goes.
    assert _widths(40, gives) == [("id", 11), ("runs", 4), ("label", 16)]
    assert _widths(30, gives) == [("id", 11), ("runs", 4), ("label", 9)]
    # What cannot give way more stays (the table clips it).
    assert _widths(10, gives) == [("id", 11), ("runs", 4), ("label", 8)]
    assert cut(Text("A long label"), 8).plain == "A long …"
    # A column narrower than a step's least width is never widened to it (that only made the
    # table wider still: a short name took 24 cells on a narrow terminal).
    assert _widths(40, [Give("runs", 10), *gives]) == [("id", 11), ("runs", 4), ("label", 16)]
    assert cut(Text("short"), 8).plain == "short"


def _home_fits(home: HomeScreen) -> dict[str, list[str]]:
    shown = {}
    for name in COLUMNS:
        table = home.query_one(f"#{name}", DataTable)
        room = table.scrollable_content_region.width
        widths = [column.width + CELL_PADDING for column in table.columns.values()]
        assert sum(widths) <= room, (name, widths, room)
        shown[name] = [str(key.value) for key in table.columns]
    return shown


async def test_the_home_tables_keep_to_an_80_column_screen(tmp_path: Path) -> None:
    long_name = "A study whose name is longer than the room there is"
    db_path = studies_database(tmp_path, home_study(name=long_name))
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (80, 24)) as pilot:
        await until(pilot, lambda: home_listed(app, "tasks"))
        await settle(pilot)
        home = app.screen
        assert isinstance(home, HomeScreen)
        shown = _home_fits(home)
        assert shown["studies"][0] == "id" and "name" in shown["studies"]
        assert "trace_events" not in shown["studies"]
        assert shown["tasks"][:2] == ["id", "runs"] and "risk" in shown["tasks"]
        name = home.query_one("#studies", DataTable).get_cell("pilot", "name")
        assert name.plain.endswith("…") and long_name.startswith(name.plain[:-1])
        # A wider terminal shows every column again, on the same study.
        await pilot.resize_terminal(160, 48)
        await settle(pilot)
        await pilot.pause()
        shown = _home_fits(home)
        assert shown == {name: [key for _, key in columns] for name, columns in COLUMNS.items()}


def _tab_bars(views: list[ResponseView]) -> list[bool]:
    """Whether each view shows its tab bar (made the first time it is shown)."""
    return [any(bar.display for bar in view.query(Tabs)) for view in views]


async def test_a_response_without_a_trace_has_no_tab_bar_until_its_trace_is_asked_for(
    tmp_path: Path,
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (80, 24)) as pilot:
        screen = await compare_screen(pilot)
        views = list(screen.query(ResponseView))
        assert _tab_bars(views) == [False, False]
        # Not hidden: not made at all until it is first shown (the item is shown without it).
        assert not screen.query(Tabs)
        await press(pilot, "r")  # the Trace tabs: the bar shows which tab is open
        assert all(v.showing_trace for v in views) and _tab_bars(views) == [True, True]
        await press(pilot, "r")
        assert _tab_bars(views) == [False, False]


async def test_a_response_with_a_trace_keeps_its_tab_bar(tmp_path: Path) -> None:
    app = make_app(agent_database(tmp_path), reviewer="ana")
    async with drive(app, (160, 48)) as pilot:
        screen = await compare_screen(pilot)
        views = list(screen.query(ResponseView))
        assert all(v.response is not None and v.response.trace for v in views)
        assert _tab_bars(views) == [True, True]
