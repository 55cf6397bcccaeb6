"""The queue's Task column tells apart tasks that share their first line.

What was found: PandaLM's 999 tasks share 170 instructions, each with an input of its own, and the
queue showed each task's first line: ten rows in a row read "Solve the given Sudoku puzzle."
Now a first line that other tasks of the page share is cut short and followed by the rest of the
task, so that rows differ where their tasks do.
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
