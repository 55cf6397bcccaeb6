"""The queue's Task column tells apart tasks that share their first line but not their text.

What was found: the column showed each task's first line, 60 characters wide, behind a
horizontal scroll bar at 80x24, so that an instruction asked of several inputs read the same on
every row. Now a first line that other texts of the page share is cut short and followed by the
rest of the task, and the column takes the width the screen leaves. Tasks of one text (several
items of a task; PandaLM's 999 tasks are 170 texts) still read alike: they are alike.
"""

from __future__ import annotations

from abp_tui.tui.screens.queue import task_lines


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
