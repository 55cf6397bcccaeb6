"""The queue's Task column tells apart tasks that share their first line but not their text.

What was found: the column showed each task's first line, 60 characters wide, behind a
horizontal scroll bar at 80x24, so that an instruction asked of several inputs read the same on
every row. Now a first line that other texts of the page share is cut short and followed by the
rest of the task, and the column takes the width the screen leaves. Tasks of one text (several
items of a task; PandaLM's 999 tasks are 170 texts) still read alike: they are alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from abp_tui.tui.app import make_app
from abp_tui.tui.screens.queue import QueueScreen, _joined, task_lines
from tests.tui_helpers import (
    compare_screen,
    drive,
    pair_design,
    press,
    settle,
    study_database,
    until,
)

ITEMS = 12


def test_tasks_sharing_a_first_line_show_what_follows_it() -> None:
    sudoku = "Solve the given Sudoku puzzle, filling every empty cell with a digit."
    lines = task_lines(
        {
            "P-A": f"{sudoku}\n\n3 . . | 5 . 1",
            "P-B": f"{sudoku}\n\n. 8 . | . 2 .\n. . 4 | 7 . .",
            "P-C": "Rewrite the sentence so that it is shorter.\n\nIf you have any questions...",
            "P-D": "",
        },
        60,
    )
    assert lines["P-A"] == f"{sudoku[:19]}… · 3 . . | 5 . 1"
    assert lines["P-B"] == f"{sudoku[:19]}… · . 8 . | . 2 . . . 4 | 7 . ."
    assert lines["P-A"] != lines["P-B"]
    # A first line of its own is shown as it was: the whole line, cut to the column.
    assert lines["P-C"] == "Rewrite the sentence so that it is shorter."
    assert lines["P-D"] == ""


def test_every_line_fits_the_column() -> None:
    long = "word " * 40
    lines = task_lines({"P-A": f"{long}\n{long}", "P-B": f"{long}\nother", "P-C": long}, 26)
    assert all(len(line) <= 26 for line in lines.values())
    assert lines["P-B"] == "word word… · other"  # a third of the width, then what differs
    assert lines["P-C"].endswith("…") and lines["P-A"].endswith("…")
    # A task that is only the shared line has nothing after it to show.
    same = task_lines({"P-A": "Same line.", "P-B": "Same line.\nmore"}, 60)
    assert same == {"P-A": "Same line.", "P-B": "Same line. · more"}


def test_items_of_one_task_show_its_first_line_whole() -> None:
    """A task judged in several items of a page (one a contrast, or one a condition) is one
    task: its title is shown as it was, not cut short before text every row shares."""
    memo = "Summarise the memo\n\nThe memo asks every team to file its report by Friday."
    lines = task_lines({"P-A": memo, "P-B": memo, "P-C": "Translate the note\n\nBonjour."}, 60)
    assert lines == {
        "P-A": "Summarise the memo",
        "P-B": "Summarise the memo",
        "P-C": "Translate the note",
    }


def test_wide_characters_and_escapes_fit_the_column_in_cells() -> None:
    """A line is cut by the cells it takes (a CJK character takes two), after any escape
    sequence is made harmless text."""
    from rich.cells import cell_len

    lines = task_lines({"P-A": "翻訳してください" * 10, "P-B": "\x1b[31mred\x1b[0m title"}, 26)
    assert cell_len(lines["P-A"]) <= 26 and lines["P-A"].endswith("…")
    assert "\x1b" not in lines["P-B"] and lines["P-B"].endswith("title")


async def test_opening_the_search_bar_refits_the_column_to_the_rows_that_now_overflow(
    tmp_path: Path,
) -> None:
    """The search bar takes a line from the list: rows that just fitted now overflow, and the
    scroll bar that comes with them takes its width from the Task column, not past the
    table's edge (a horizontal scroll bar came with it until the next resize)."""
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": "pilot", "rubric_id": "afp-v0.1", "synthetic": True},
        {"type": "condition", "id": "A", "label": "Model only"},
        {"type": "condition", "id": "C", "label": "Workflow"},
    ]
    for n in range(ITEMS):
        task = f"T{n}"
        lines.append({"type": "task", "id": task, "prompt": f"Summarise memo {n}. " * 20})
        for cond in ("A", "C"):
            lines.append(
                {"type": "run", "id": f"{task}-{cond}", "task_id": task, "condition_id": cond}
                | {"output": f"Memo {n}, {cond}."}
            )
    db_path = study_database(tmp_path, lines, pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (80, 40)) as pilot:
        await compare_screen(pilot)
        await press(pilot, "l")
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        await until(pilot, lambda: queue.view is not None, "the queue")
        table = queue.query_one(DataTable)
        # The terminal's height at which the rows just fit the table, with no scroll bar.
        spare = table.size.height - 1 - ITEMS
        assert spare > 0
        await pilot.resize_terminal(80, 40 - spare)
        await until(pilot, lambda: table.size.height - 1 == ITEMS, "the rows to just fit")
        await settle(pilot)
        assert table.max_scroll_y == 0 and table.max_scroll_x == 0
        await press(pilot, "slash")
        await until(pilot, lambda: table.max_scroll_y > 0, "the rows to overflow")
        await settle(pilot)
        assert table.max_scroll_x == 0, "the Task column runs under the scroll bar"


def test_the_summary_breaks_between_its_parts_never_after_a_separator() -> None:
    """At 80 columns the summary wrapped after "27 to do  ·", leaving the separator dangling
    at the end of a line."""
    parts = [
        Text("pandalm-testset-v1 / pairs"),
        Text("30 items: 3 submitted, 0 in draft, 27 to do"),
        Text("showing: all (f changes)"),
    ]
    lines = _joined(parts, 78).plain.split("\n")
    assert lines == [
        "pandalm-testset-v1 / pairs  ·  30 items: 3 submitted, 0 in draft, 27 to do",
        "showing: all (f changes)",
    ]
    assert _joined(parts, 200).plain.count("\n") == 0
    assert all(not line.rstrip().endswith("·") for line in _joined(parts, 30).plain.split("\n"))
