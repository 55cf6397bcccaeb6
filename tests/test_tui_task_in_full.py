"""The whole task is read from the keyboard at any size, and the task key decides nothing.

The faults: at 80x24 the task panel showed three lines of a PandaLM task (its instruction, then
the sentence to rewrite) and no key reached the rest (PgDn and the arrows scrolled the
responses, Shift+Tab went to the form, and the task key only folded the panel). That key was
``t``, which on the preference row records a tie: a newcomer folding the task on a
preference-only design recorded a tie instead. ``ctrl+t`` now gives the whole task the
responses' place and the focus (arrows, PgUp and PgDn scroll it; ``ctrl+t`` or Escape gives the
responses back), and no letter of the form is a task key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from abp_tui.models import StudyDesign
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.help import HelpScreen
from abp_tui.tui.widgets.preference import PreferenceRow
from abp_tui.tui.widgets.response_pair import ResponsePair
from abp_tui.tui.widgets.task_panel import TaskPanel
from tests.tui_helpers import (
    adjudicating,
    compare_screen,
    drive,
    pair_design,
    pair_study,
    preference_admin_database,
    press,
    screen_text,
    settle,
    study_database,
    svg_text,
    until,
)

INSTRUCTION = (
    "The sentence you are given might be too wordy, complicated, or unclear. Rewrite the "
    "sentence and make your writing clearer by keeping it concise. Whenever possible, break "
    "complex sentences into multiple sentences and eliminate unnecessary words."
)
SENTENCE = (
    "If you have any questions about my rate or if you find it necessary to increase or "
    "decrease the scope for this project, please let me know."
)
LAST_WORDS = "Invents an owner for T"
"""The task's last line (its fatal criterion, after the sentence): below the panel's edge beside
the responses on a short terminal."""


def _pandalm_like_study() -> list[dict[str, Any]]:
    """The TUI's pair study with a PandaLM task: an instruction, then the sentence to rewrite."""
    lines = pair_study()
    for line in lines:
        if line["type"] == "task":
            line["prompt"] = INSTRUCTION
            line["evidence"] = SENTENCE
    return lines


def _preference_only(tmp_path: Path) -> Path:
    design = pair_design().model_copy(update={"name": "prefs", "rubric": "none"})
    assert isinstance(design, StudyDesign)
    return study_database(tmp_path, _pandalm_like_study(), design)


def _visible(pilot: Pilot[Any]) -> str:
    return " ".join(svg_text(pilot.app.export_screenshot()).split())


def _task_scroll(screen: object) -> VerticalScroll:
    assert isinstance(screen, CompareScreen)
    return screen.task_panel.query_one("#task-scroll", VerticalScroll)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_ctrl_t_reads_the_whole_task_and_escape_gives_the_responses_back(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = make_app(_preference_only(tmp_path), reviewer="ana")
    async with drive(app, size) as pilot:
        screen = await compare_screen(pilot)
        row = app.focused
        assert isinstance(row, PreferenceRow)  # a preference-only design's form
        if size == (80, 24):
            assert LAST_WORDS not in _visible(pilot)  # below the panel's edge
            assert "^t Task" in _visible(pilot)  # the footer names the key
        await press(pilot, "ctrl+t")
        scroll = _task_scroll(screen)
        assert screen.task_panel.full and app.focused is scroll
        assert not screen.query_one(ResponsePair).display
        assert "Esc: the responses" in _visible(pilot)
        await press(pilot, "end")
        await until(pilot, lambda: scroll.scroll_y >= scroll.max_scroll_y, "the task's end")
        assert LAST_WORDS in _visible(pilot)
        if scroll.max_scroll_y > 0:  # PgUp, the arrows: the task, not the responses
            await press(pilot, "pageup")
            await until(pilot, lambda: scroll.scroll_y == 0, "the task's top")
            await press(pilot, "down")
            await until(pilot, lambda: scroll.scroll_y == 1, "a line down")
        await press(pilot, "escape")
        assert not screen.task_panel.full
        assert screen.query_one(ResponsePair).display
        assert app.focused is row  # back on the form, where it was
        await press(pilot, "ctrl+t")
        assert screen.task_panel.full
        await press(pilot, "ctrl+t")
        assert not screen.task_panel.full and app.focused is row
        assert screen.drafts.judgment.preference is None  # nothing was decided


async def test_the_task_in_full_gives_way_to_the_next_item(tmp_path: Path) -> None:
    app = make_app(_preference_only(tmp_path), reviewer="ana")
    async with drive(app, (80, 24)) as pilot:
        screen = await compare_screen(pilot)
        first = screen.item.code if screen.item else ""
        await press(pilot, "ctrl+t", "right_square_bracket")
        await until(pilot, lambda: screen.item is not None and screen.item.code != first)
        await settle(pilot)
        assert not screen.task_panel.full
        assert screen.query_one(ResponsePair).display
        assert isinstance(app.focused, PreferenceRow)


async def test_t_on_a_preference_only_design_is_a_tie_and_no_task_key(tmp_path: Path) -> None:
    app = make_app(_preference_only(tmp_path), reviewer="ana")
    async with drive(app, (80, 24)) as pilot:
        screen = await compare_screen(pilot)
        keys = {b.key for _, b, enabled, _ in screen.active_bindings.values() if enabled}
        assert "t" in keys
        task_keys = [b for b in CompareScreen.BINDINGS if getattr(b, "action", "") in TASK]
        assert [getattr(b, "key", "") for b in task_keys] == ["ctrl+t"]
        await press(pilot, "t")
        assert screen.drafts.judgment.preference is not None
        assert screen.drafts.judgment.preference.value == "tie"
        assert not screen.task_panel.full


TASK = ("task_in_full", "toggle_task")
"""The task's actions: no letter (a decision key on some design) runs either."""


async def test_no_letter_of_any_row_runs_a_task_action_on_a_rubric_design(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, _pandalm_like_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (160, 48)) as pilot:
        screen = await compare_screen(pilot)
        panel = screen.task_panel
        collapsed = panel.collapsed
        # Away from the preference row (on the validity gate), t neither folds nor opens the task.
        await press(pilot, "t")
        assert panel.collapsed == collapsed and not panel.full
        for binding in CompareScreen.BINDINGS:
            if getattr(binding, "action", "") in TASK:
                assert len(getattr(binding, "key", "")) > 1  # never a single letter


async def test_ctrl_t_reads_the_task_in_full_on_the_adjudication_screen(tmp_path: Path) -> None:
    db_path, _pk, codes = preference_admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (80, 24)) as pilot:
        screen = await adjudicating(pilot)
        panel = screen.query_one(TaskPanel)
        await press(pilot, "ctrl+t")
        assert panel.full
        assert app.focused is panel.query_one("#task-scroll", VerticalScroll)
        assert not screen.query_one(ResponsePair).display
        assert not screen.query_one("#judgments").display
        await press(pilot, "escape")
        assert not panel.full and screen.code == codes[0] and app.screen is screen
        assert screen.query_one(ResponsePair).display


async def test_the_help_lists_the_task_key_beside_the_tie(tmp_path: Path) -> None:
    app = make_app(_preference_only(tmp_path), reviewer="ana")
    async with drive(app, (80, 24)) as pilot:
        await compare_screen(pilot)
        await press(pilot, "question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        listed = screen_text(pilot)
        assert "Neither is better." in listed  # t: a tie, on the preference row
        assert "Read the whole task" in listed  # and the task's own key


async def test_a_search_or_the_traces_give_the_responses_back(tmp_path: Path) -> None:
    app = make_app(_preference_only(tmp_path), reviewer="ana")
    async with drive(app, (80, 24)) as pilot:
        screen = await compare_screen(pilot)
        await press(pilot, "ctrl+t", "slash")
        assert not screen.task_panel.full
        assert screen.query_one(ResponsePair).display
        assert app.focused is screen.search_bar.input  # typed where it is seen
        await press(pilot, "escape", "ctrl+t", "r")
        assert not screen.task_panel.full and screen.query_one(ResponsePair).display
