"""Search on the compare screen (outputs and transcripts: ``/``, then ``n`` / ``N`` or ``>`` /
``<``) and the queue screen's text filter (``/``), driven with the keyboard on a real database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from abp_tui.tui.app import make_app
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.help import HelpScreen
from abp_tui.tui.screens.queue import QueueScreen
from abp_tui.tui.widgets.gate import CheckRow
from abp_tui.tui.widgets.response import ResponseView
from abp_tui.tui.widgets.search_bar import SearchBar
from tests.transcript_helpers import agent_database, transcripts_shown
from tests.tui_helpers import (
    compare_screen,
    drive,
    pair_design,
    pair_study,
    plain,
    press,
    screen_text,
    settle,
    study_database,
    type_text,
    until,
)

SIZE = (160, 48)


def _outputs() -> dict[tuple[str, str], str]:
    """Outputs in which "owner" occurs 3 times (A) and once (C) for T1 and T2 alike."""
    return {
        (task, cond): (
            "The Owner is Ana.\nShe is the owner of the checklist; no other OWNER."
            if cond == "A"
            else "Ana is the owner of the checklist."
        )
        for task in ("T1", "T2")
        for cond in ("A", "C")
    }


async def _search(pilot: Pilot[Any], query: str) -> None:
    await press(pilot, "slash")
    assert isinstance(pilot.app.focused, Input)
    await type_text(pilot, query)
    await press(pilot, "enter")


def _bar(screen: CompareScreen) -> str:
    return plain(screen.search_bar.query_one(".search-status").render())


async def test_slash_searches_both_outputs_and_keys_jump_between_hits(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(_outputs()), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        focused = screen.focused
        # The field is made when the bar is first opened: the item is shown without it.
        assert not screen.search_bar.query(Input)
        await _search(pilot, "owner")
        pair = screen.pair
        await until(pilot, lambda: pair.hits and not pair.searching, "the hits")
        # case-insensitive, in both outputs; the focus is back where it was
        assert len(pair.hits) == 4
        panes = [v.pane for v in pair.views()]
        counts = sorted(len(p.hits) for p in panes)
        assert counts == [1, 3]
        for pane in panes:
            assert all(pane.text[a:b].lower() == "owner" for a, b in pane.hits)
        assert screen.focused is focused
        assert pair.hit_index == 0 and "1 of 4 hits" in _bar(screen)
        # > and < walk the hits in order (Response 1's, then Response 2's) and wrap round
        seen = [pair.hits[pair.hit_index]]
        for _ in range(3):
            await press(pilot, "greater_than_sign")
            assert pair.hit_index is not None
            seen.append(pair.hits[pair.hit_index])
        assert seen == pair.hits
        target, (start, end) = seen[-1]
        assert pair.views()[target].pane.current_hit == (start, end)
        assert "4 of 4" in _bar(screen)
        await press(pilot, "greater_than_sign")
        assert pair.hit_index == 0
        await press(pilot, "less_than_sign")
        assert pair.hit_index == 3
        # Esc in the field clears every highlight
        await press(pilot, "slash", "escape")
        assert not pair.hits and all(not p.hits for p in panes)
        assert not screen.search_bar.is_open


async def test_a_query_is_text_not_a_pattern_and_no_hits_is_said(tmp_path: Path) -> None:
    outputs = _outputs()
    outputs[("T1", "A")] = outputs[("T2", "A")] = "Use a.b or [x]* here; axb is not it."
    db_path = study_database(tmp_path, pair_study(outputs), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        await _search(pilot, "a.b")
        pair = screen.pair
        await until(pilot, lambda: not pair.searching, "the search")
        assert len(pair.hits) == 1  # "axb" is not a hit
        await press(pilot, "slash", "escape")
        await _search(pilot, "[x]*")
        await until(pilot, lambda: not pair.searching, "the search")
        assert len(pair.hits) == 1
        await press(pilot, "slash", "escape")
        await _search(pilot, "nowhere at all")
        await until(pilot, lambda: not pair.searching, "the search")
        assert not pair.hits and "no hits" in _bar(screen)
        await press(pilot, "greater_than_sign")
        assert any("No hits" in str(n.message) for n in app._notifications)


async def test_the_search_follows_the_trace_tabs_and_unfolds_a_hit(tmp_path: Path) -> None:
    app = make_app(agent_database(tmp_path), reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        views = await transcripts_shown(pilot, screen)
        # test_case_059 is deep inside each folded test result
        assert all("test_case_059" not in v.transcript_pane.text for v in views)
        await _search(pilot, "TEST_CASE_059")
        pair = screen.pair
        await until(pilot, lambda: len(pair.hits) == 2 and not pair.searching, "the hits")
        for view in views:
            pane = view.transcript_pane
            assert "test_case_059" in pane.text  # the block holding it unfolded
            ((a, b),) = pane.hits
            assert pane.text[a:b] == "test_case_059"
        assert "·  transcripts" in _bar(screen)
        # the hit jumped to is in view
        target, (start, _end) = pair.hits[pair.hit_index or 0]
        pane = views[target].transcript_pane

        def in_view() -> bool:
            top, bottom = pane.visible_range()
            return top <= start <= bottom

        # Scrolled after the hits are found, on the next refresh: waited for on a loaded machine.
        await until(pilot, in_view, "the hit scrolled into view")
        top, bottom = pane.visible_range()
        assert top <= start <= bottom
        # back to the outputs: the same search runs there (no hits in the outputs)
        await press(pilot, "r")
        await until(pilot, lambda: not pair.searching, "the search of the outputs")
        assert not pair.hits
        # clearing folds the block back
        await press(pilot, "r", "slash", "escape")
        await until(
            pilot,
            lambda: all("test_case_059" not in v.transcript_pane.text for v in views),
            "folded again",
        )


async def test_hits_keys_never_answer_a_validity_check(tmp_path: Path) -> None:
    """While a search is on, n / N and > / < jump, and only jump, even on a validity-gate row;
    with no search on, n answers the check again."""
    lines = pair_study(_outputs())
    lines[0]["rubric_id"] = "afp-v0.1"
    db_path = study_database(tmp_path, lines, pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        gate = screen.query(CheckRow).first()
        gate.focus()
        await settle(pilot)
        await _search(pilot, "owner")
        await until(pilot, lambda: screen.pair.hits and not screen.pair.searching, "hits")
        assert screen.focused is gate
        await press(pilot, "greater_than_sign", "greater_than_sign")
        assert screen.pair.hit_index == 2
        assert screen.drafts.judgment.validity == {}
        # n / N jump too while the search is on, even on the gate row: no check is failed
        await press(pilot, "n")
        assert screen.pair.hit_index == 3
        await press(pilot, "N", "N")
        assert screen.pair.hit_index == 1
        assert screen.drafts.judgment.validity == {}
        # the help screen says which keys jump, and what n does on a check
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(pilot)
        assert "Next hit" in text and ">" in text and "n jumps even on a validity check" in text
        await press(pilot, "escape")
        await until(pilot, lambda: app.screen is screen, "back on the compare screen")
        # with the search cleared, n is the gate's "fails" again
        await press(pilot, "slash", "escape")
        assert not screen.pair.hits
        gate.focus()
        await settle(pilot)
        await press(pilot, "n")
        assert screen.drafts.judgment.validity == {gate.check_id: False}


async def test_the_search_is_of_the_item_it_was_typed_on(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(_outputs()), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        await _search(pilot, "owner")
        await until(pilot, lambda: screen.pair.hits and not screen.pair.searching, "hits")
        code = screen.item.code if screen.item else ""
        await press(pilot, "right_square_bracket")
        await until(pilot, lambda: screen.item is not None and screen.item.code != code, "next")
        assert not screen.pair.hits and not screen.search_bar.is_open
        assert all(not v.pane.hits for v in screen.query(ResponseView))


# -- the queue --------------------------------------------------------------------------------
def _queue_study() -> list[dict[str, Any]]:
    lines = pair_study()
    for line in lines:
        if line.get("type") == "task":
            line["title"] = {"T1": "Vendor exit clause", "T2": "Launch checklist"}[line["id"]]
    return lines


async def test_slash_filters_the_queue_by_task_text_code_and_status(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, _queue_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        first = screen.item.code if screen.item else ""
        screen.set_focus(None)
        await press(pilot, "l")
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        await until(pilot, lambda: queue.view is not None, "the queue")
        table = queue.query_one(DataTable)
        assert table.row_count == 2
        codes = [r.code for r in queue.view.rows] if queue.view else []

        def listed() -> list[str]:
            return [
                str(table.coordinate_to_cell_key(Coordinate(i, 0)).row_key.value)
                for i in range(table.row_count)
            ]

        # task text, as typed (any case), filters as one types
        await press(pilot, "slash")
        await type_text(pilot, "exit CLAUSE")
        assert table.row_count == 1
        (vendor,) = listed()
        assert "Vendor exit clause" in screen_text(pilot)
        assert "1 of 2 items" in plain(
            queue.query_one(SearchBar).query_one(".search-status").render()
        )
        # a blind code
        field = queue.query_one(SearchBar).input
        field.value = ""
        await type_text(pilot, codes[1].lower())
        assert listed() == [codes[1]]
        # a status: the item shown first was opened, so it is the one in draft or to do
        field.value = ""
        await type_text(pilot, "todo")
        assert set(listed()) <= set(codes) and table.row_count >= 1
        # nothing matches: said so
        field.value = ""
        await type_text(pilot, "no such words")
        assert table.row_count == 0
        assert "No item matches no such words" in screen_text(pilot)
        # Esc clears; Enter on the list opens the chosen item
        await press(pilot, "escape")
        assert table.row_count == 2 and isinstance(app.focused, DataTable)
        await press(pilot, "slash")
        await type_text(pilot, "launch checklist")
        await press(pilot, "enter")  # from the field to the list
        assert isinstance(app.focused, DataTable) and table.row_count == 1
        (launch,) = listed()
        assert launch != vendor
        await press(pilot, "enter")
        await until(
            pilot,
            lambda: app.screen is screen and screen.item is not None and screen.item.code == launch,
            "the chosen item",
        )
        assert first in codes
