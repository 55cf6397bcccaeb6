"""The item bar's diff says how much of the responses differs, not only how many hunks.

The fault: the word diff merges small equalities into the changes around them, so two wholly
different responses (two lists of other search queries) were "diff: 1 change", as if one word
had changed. The bar now says "wholly different (no passage in common)" for them (a short word
both share, merged into a change, is no passage), and otherwise gives the share of the
words the changes make beside their count (what ``c`` jumps through).
"""

from __future__ import annotations

from pathlib import Path

from abp_tui.tui.app import make_app
from abp_tui.tui.widgets.response_pair import change_summary
from abp_tui.tui.widgets.textlayout import diff_marks
from tests.tui_helpers import (
    compare_screen,
    drive,
    pair_design,
    pair_study,
    press,
    static_text,
    study_database,
)

QUERIES_1 = "1. best hiking trails near Denver\n2. cheap flights to Lisbon\n3. sourdough starter"
QUERIES_2 = "- weather forecast Tokyo tomorrow\n- vegan lasagna recipe\n- used electric cars"


async def test_two_wholly_different_responses_are_not_one_change(tmp_path: Path) -> None:
    outputs = {
        ("T1", "A"): QUERIES_1,
        ("T1", "C"): QUERIES_2,
        ("T2", "A"): "The launch moves to May. Ana owns the checklist.",
        ("T2", "C"): "The launch moves to June. Ana owns the checklist and the budget.",
    }
    db_path = study_database(tmp_path, pair_study(outputs), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (160, 48)) as pilot:
        screen = await compare_screen(pilot)
        said = {}
        for _ in range(2):
            assert screen.item is not None
            said[screen.item.task.prompt] = " ".join(static_text(pilot, "#item-bar").split())
            await press(pilot, "right_square_bracket")
        wholly, partly = said["Summarise the memo for T1."], said["Summarise the memo for T2."]
        assert (
            "diff: wholly different (no passage in common)" in wholly and "1 change" not in wholly
        )
        assert "diff: 2 changes, 24% of the words differ" in partly


def test_the_summary_of_identical_and_of_partly_different_texts() -> None:
    same = diff_marks("Ana owns it.", "Ana owns it.")
    assert change_summary(same).plain == "diff: identical"
    marks = diff_marks("The launch moves to May.", "The launch moves to June.")
    assert change_summary(marks, 0).plain == "diff: 1 change, 20% of the words differ (at 1)"


def test_a_pair_reads_the_same_changes_in_either_placement() -> None:
    """A word diff is not symmetric: a reviewer who saw the pair swapped read "18 changes"
    where the other read "20". The diff now runs one way whatever the placement, its marks
    on the sides as shown."""
    # Two of PandaLM's responses: 3 changes, 40% one way, 2 changes, 50% the other.
    first = "Yes, Lin and Lucie have a lot of bread."
    second = "No, Lucie and Lin do not have a lot of bread."
    shown, swapped = diff_marks(first, second), diff_marks(second, first)
    assert str(change_summary(shown)) == str(change_summary(swapped))
    assert (shown.left, shown.right) == (swapped.right, swapped.left)
    assert [(h.left, h.right) for h in shown.hunks] == [(h.right, h.left) for h in swapped.hunks]
    for start, end in shown.right:  # the right side's marks lie in the right text
        assert second[start:end].strip()
