"""The home screen: lists the studies of a real database with their counts, shows untrusted text
literally, explains what to do when the database is empty, and opens the key help.

Its look is in ``test_tui_snapshots.py``; waiting and reading are ``tests/tui_helpers.py``'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.studies import TASK_PAGE
from abp_tui.store import connect
from abp_tui.tui.app import AbpApp, make_app
from abp_tui.tui.screens.help import HelpScreen
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.widgets.clamped import clamped
from tests.factories import write_jsonl
from tests.tui_helpers import (
    compare_screen,
    drive,
    home_study,
    pair_design,
    pair_study,
    press,
    settle,
    static_text,
    studies_database,
    study_database,
    type_text,
    until,
)

SIZE = (120, 40)


def _table(pilot: Pilot[Any], name: str) -> DataTable[Text]:
    return pilot.app.screen.query_one(f"#{name}", DataTable)


def _rows(table: DataTable[Text]) -> list[list[str]]:
    return [[cell.plain for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_home_lists_studies_with_counts_and_the_highlighted_study(tmp_path: Path) -> None:
    other = [
        {"type": "study", "id": "zeta", "name": "Real runs"},
        {"type": "condition", "id": "engine-a"},
        {"type": "task", "id": "X1"},
        {"type": "run", "id": "x", "task_id": "X1", "condition_id": "engine-a", "output": "o"},
    ]
    app = make_app(studies_database(tmp_path, home_study(), other), reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert app.sub_title == "reviewer: ana"
        assert _rows(_table(pilot, "studies")) == [
            ["pilot", "SYNTHETIC", "native", "3", "2", "5", "1", "3", "Pilot study"],
            ["zeta", "", "native", "1", "1", "1", "0", "0", "Real runs"],
        ]
        assert _rows(_table(pilot, "conditions")) == [
            ["A", "2", "0", "Model only"],
            ["B", "3", "1", "General instructions"],
        ]
        assert _rows(_table(pilot, "tasks")) == [
            ["T1", "2", "0", "Source conflict"],
            ["T2", "2", "1", "Missing evidence"],
            ["T3", "1", "0", "—"],
        ]
        assert "SYNTHETIC DEMO DATA" in static_text(pilot, "#banner")
        assert "pilot" in static_text(pilot, "#banner")

        await press(pilot, "down")
        assert _rows(_table(pilot, "conditions")) == [["engine-a", "1", "0", ""]]
        assert _rows(_table(pilot, "tasks")) == [["X1", "1", "0", "—"]]
        assert "1 of 2 studies are marked SYNTHETIC" in static_text(pilot, "#banner")
        assert not pilot.app.screen.has_class("-synthetic-shown")

        await press(pilot, "q")
        assert app.return_code == 0


async def test_hostile_study_text_is_shown_literally(tmp_path: Path) -> None:
    hostile = home_study(study_id="evil\x1b[31m", name="[bold red]x[/]")
    hostile[0]["description"] = "[link=https://example.invalid]click[/link] \u202eoops"
    hostile[1]["label"] = "[/]"
    app = make_app(studies_database(tmp_path, hostile), reviewer="[b]rev[/b]")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        studies = _rows(_table(pilot, "studies"))
        assert (studies[0][0], studies[0][-1]) == ("evil␛[31m", "[bold red]x[/]")
        assert _rows(_table(pilot, "conditions"))[0][3] == "[/]"
        info = static_text(pilot, "#study-info")
        assert "[link=https://example.invalid]click[/link] ⟨U+202E⟩oops" in info
        assert app.sub_title == "reviewer: [b]rev[/b]"
        screenshot = app.export_screenshot()
        assert "[bold\xa0red]x[/]" in screenshot.replace("&#160;", "\xa0")
        assert "\x1b" not in screenshot


async def test_a_long_description_is_cut_with_an_ellipsis_on_its_last_line(
    tmp_path: Path,
) -> None:
    """At 80 columns the study's line wraps to its two lines and stops: the sentence cut off
    ends in "…", never as if it were whole (it read "... of that model's condition. The")."""
    study = home_study()
    study[0]["description"] = (
        "Two-turn questions; each model's answers to both turns are one run of that model's "
        "condition. The AI judge's verdicts are kept apart from people's judgments."
    )
    app = make_app(studies_database(tmp_path, study))
    async with drive(app, (80, 24)) as pilot:
        await settle(pilot)
        info = pilot.app.screen.query_one("#study-info", Static)
        assert "kept apart from people's judgments." in static_text(pilot, "#study-info")
        shown = [line.rstrip() for line in str(info.render()).splitlines()]
        assert len(shown) == 2 and shown[-1].endswith("…"), shown
        assert all(cell_len(line) <= info.content_region.width for line in shown)
        await pilot.resize_terminal(200, 24)  # room for it all: shown whole, no ellipsis
        await settle(pilot)
        shown = str(info.render()).splitlines()
        assert shown[-1].rstrip().endswith("judgments."), shown


def test_clamped_text_ends_in_an_ellipsis_only_when_text_was_cut() -> None:
    console = Console(width=200)
    assert clamped(Text("abc\n"), 5, 1, console).plain == "abc"  # a final line end cuts nothing
    assert clamped(Text("one\ntwo\n"), 10, 2, console).plain == "one\ntwo"
    assert clamped(Text("one\ntwo\nthree"), 10, 2, console).plain == "one\ntwo…"
    assert clamped(Text("word " * 10), 9, 2, console).plain == "word word\nword wor…"
    assert clamped(Text("翻訳してください"), 4, 1, console).plain == "翻…"  # by cells
    assert clamped(Text("abc"), 1, 1, console).plain == "…"


async def test_question_mark_opens_the_key_help_and_escape_closes_it(tmp_path: Path) -> None:
    app = make_app(studies_database(tmp_path, home_study()))
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        listed = {(k.keys, k.description) for k in app.screen.keys}
        assert {(("r",), "Reload"), (("i",), "Import"), (("?",), "Keys")} <= listed
        assert any("q" in keys and description == "Quit" for keys, description in listed)
        await press(pilot, "escape")
        assert isinstance(app.screen, HomeScreen)
        assert app.sub_title == "reviewer: demo"


async def test_empty_database_explains_import_and_reload_picks_up_new_studies(
    tmp_path: Path,
) -> None:
    db_path = studies_database(tmp_path)
    app = make_app(db_path)
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        assert app.screen.has_class("-empty")
        assert _table(pilot, "studies").row_count == 0
        assert f"abp-tui import PATH --db {db_path}" in static_text(pilot, "#empty")

        db = connect(db_path)
        import_paths(db, [write_jsonl(tmp_path / "late.jsonl", home_study())])
        db.close()
        await press(pilot, "r")
        assert not app.screen.has_class("-empty")
        assert _rows(_table(pilot, "studies"))[0][0] == "pilot"
        assert app.screen.focused is _table(pilot, "studies")


async def test_unreadable_database_is_reported_not_crashed(tmp_path: Path) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("this is not SQLite, just text that is long enough " * 20, encoding="utf-8")
    app = make_app(bad)
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        assert app.screen.has_class("-failed")
        assert "not a usable abp-tui database" in static_text(pilot, "#load-error")


@pytest.mark.parametrize("owner", [AbpApp, HomeScreen, HelpScreen])
def test_every_binding_has_an_id_and_a_tooltip(owner: type[Any]) -> None:
    bindings = [b for b in owner.BINDINGS if isinstance(b, Binding)]
    assert bindings and len(bindings) == len(owner.BINDINGS)
    for binding in bindings:
        assert binding.id, binding
        assert binding.tooltip, binding


async def test_home_counts_are_current_when_shown_again_without_reloading(
    tmp_path: Path,
) -> None:
    """Judging an item and going back home shows the new progress at once: the screen reads its
    counts again whenever it is shown again, not only when r is pressed."""
    design = StudyDesign(
        study="pilot",
        name="pairs",
        seed=11,
        rubric="none",
        contrasts=[("C", "A")],
        reviewers=["ana"],
    )
    app = make_app(study_database(tmp_path, pair_study(), design), reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        await press(pilot, "h")
        assert isinstance(app.screen, HomeScreen)
        await settle(pilot)
        assert "ana 0/2 submitted" in static_text(pilot, "#progress")

        await press(pilot, "enter")  # the highlighted study: its design opens at the next item
        screen = await compare_screen(pilot)
        assert screen.item is not None
        await press(pilot, "1")
        await type_text(pilot, "Response 1 keeps to the memo")
        await press(pilot, "enter", "s")
        await until(pilot, lambda: screen.drafts.status == "todo", "the next item")
        await press(pilot, "h")
        assert isinstance(app.screen, HomeScreen)
        await settle(pilot)
        assert "ana 1/2 submitted" in static_text(pilot, "#progress")


async def test_at_80_columns_the_tasks_title_and_the_progress_fit_and_line_up(
    tmp_path: Path,
) -> None:
    """The tasks pane's title names its page keys whole (it was cut to "] next page, [" at 80
    columns), and the designs' progress lines up with the study's line above it (it started at
    the screen's edge)."""
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": "big"},
        {"type": "condition", "id": "A"},
        {"type": "condition", "id": "B"},
    ]
    for n in range(TASK_PAGE + 5):
        lines.append({"type": "task", "id": f"T{n}"})
        for c in "AB":
            run = {"type": "run", "id": f"{c}{n}", "task_id": f"T{n}", "condition_id": c}
            lines.append({**run, "output": f"{c}{n}"})
    db_path = studies_database(tmp_path, lines)
    db = connect(db_path)
    try:
        create_design(db, StudyDesign(study="big", name="d", seed=1, rubric="none"))
    finally:
        db.close()
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (80, 24)) as pilot:
        await settle(pilot)
        title = pilot.app.screen.query_one("#tasks-title", Static)
        text = static_text(pilot, "#tasks-title")
        assert len(text) <= title.content_region.width
        assert text.startswith(f"Tasks  1-{TASK_PAGE} of {TASK_PAGE + 5:,}") and "] [" in text
        progress = pilot.app.screen.query_one("#progress", Static)
        info = pilot.app.screen.query_one("#study-info", Static)
        assert static_text(pilot, "#progress").startswith("Design d v1")
        assert progress.content_region.x == info.content_region.x


async def test_back_home_the_study_just_judged_is_highlighted(tmp_path: Path) -> None:
    """The reviewer's design opens at start-up over the home screen; going home shows that study
    with its progress, not the first study of the list."""
    design = StudyDesign(
        study="pilot",
        name="pairs",
        seed=11,
        rubric="none",
        contrasts=[("C", "A")],
        reviewers=["ana"],
    )
    db_path = study_database(tmp_path, pair_study(), design)
    db = connect(db_path)
    try:
        import_paths(db, [write_jsonl(tmp_path / "alpha.jsonl", home_study("alpha", "Alpha"))])
    finally:
        db.close()
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await compare_screen(pilot)
        await press(pilot, "h")
        assert isinstance(app.screen, HomeScreen)
        await settle(pilot)
        assert [row[0] for row in _rows(_table(pilot, "studies"))] == ["alpha", "pilot"]
        assert app.screen.shown_study == "pilot"
        assert _table(pilot, "studies").cursor_row == 1
        assert "ana 0/2 submitted" in static_text(pilot, "#progress")


async def test_enter_on_a_study_with_nothing_to_judge_says_why(tmp_path: Path) -> None:
    """Enter on a study the reviewer cannot judge says why: no design yet (and the key that
    makes one), or designs naming other reviewers ("carol cannot judge that study design" left
    a newcomer guessing)."""
    db_path = study_database(tmp_path, pair_study(), pair_design(["ana"]))
    db = connect(db_path)
    try:
        import_paths(db, [write_jsonl(tmp_path / "alpha.jsonl", home_study("alpha", "Alpha"))])
    finally:
        db.close()
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)

        async def told() -> str:
            await until(pilot, lambda: bool(app._notifications), "a notice")
            notice = list(app._notifications)[-1].message
            app.clear_notifications()
            return notice

        await press(pilot, "enter")
        assert await told() == "Study alpha has no study design yet: press n to create one."
        await press(pilot, "down", "enter")
        assert await told() == (
            "carol cannot judge study pilot: its designs name their reviewers and carol is not "
            "one of them."
        )
        assert isinstance(app.screen, HomeScreen)


@pytest.mark.parametrize(("size", "whole"), [((160, 30), True), ((120, 30), False)])
async def test_a_long_study_name_is_listed_whole_where_there_is_room(
    tmp_path: Path, size: tuple[int, int], whole: bool
) -> None:
    """The studies' list cut every name to 36 cells, also with half a wide terminal to spare
    ("Business memos: source-checking bri…" at 160 columns)."""
    name = "Business memos: source-checking brief (finished review)"
    app = make_app(studies_database(tmp_path, home_study(name=name)), reviewer="ana")
    async with drive(app, size) as pilot:
        await settle(pilot)
        listed = _rows(_table(pilot, "studies"))[0]
        assert listed[0] == "pilot" and listed[2] == "native"  # the other columns as before
        if whole:
            assert listed[-1] == name
        else:  # cut where the room ends, never shorter than before
            shown = listed[-1]
            assert shown.endswith("…") and name.startswith(shown[:-1]) and len(shown) >= 36
