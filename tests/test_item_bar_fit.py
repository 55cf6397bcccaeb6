"""The judging screens' bars on a narrow terminal: their parts wrap between parts, never inside
one, and the least needed give way first when the bar's lines cannot hold them all.

What was found: at 80x24 the compare screen's bar read "... · pair · not" and "started · 2 to
do before submitting · diff: ..." on its second line, and the adjudication screen's "2 reviewers
·" then "open · names hidden (v)": a state cut in two, the word diff's figure past the edge.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from abp_tui.tui.app import make_app
from abp_tui.tui.widgets.item_bar import ItemBar, fitted, packed
from tests.tui_helpers import (
    compare_screen,
    drive,
    pair_design,
    pair_study,
    settle,
    study_database,
    until,
)


def _parts(*texts: str) -> list[Text]:
    return [Text(t) for t in texts]


def test_parts_wrap_between_parts_and_never_inside_one() -> None:
    parts = _parts("P-EYN3JB", "item 1 of 6", "pair", "not started", "2 to do before submitting")
    line, lines = packed(parts, 50)
    assert lines == 2
    first, second = line.plain.split("\n")
    assert first == "P-EYN3JB  ·  item 1 of 6  ·  pair  ·  not started"
    assert second == "2 to do before submitting"
    # Wide enough: one line, every separator in place.
    line, lines = packed(parts, 200)
    assert lines == 1 and line.plain.count("  ·  ") == 4
    # Width unknown (not laid out yet): one line, left to the terminal.
    assert packed(parts, 0)[1] == 1


def test_a_name_ending_in_a_rule_is_followed_by_spaces_not_a_separator() -> None:
    line, _lines = packed(_parts("study / design  │", "P-1", "open"), 80, " · ")
    assert line.plain == "study / design  │ P-1 · open"


def test_the_least_needed_parts_give_way_first_and_the_rest_stay_whole() -> None:
    diff = "diff: 1 change, 38% of the words differ"
    parts = [
        (Text("pandalm-testset-v1 / pairs  │"), 3),
        (Text("P-EYN3JB"), 0),
        (Text("item 1 of 6"), 0),
        (Text("pair"), 2),
        (Text("not started"), 0),
        (Text("2 to do before submitting"), 0),
        (Text("time so far 5s"), 1),
        (Text(diff), 0),
    ]
    # 80 columns, two lines: the time and the kind go; the names and the diff's figure stay.
    shown = fitted(parts, 78, 2).plain
    assert shown.split("\n") == [
        "pandalm-testset-v1 / pairs  │  P-EYN3JB  ·  item 1 of 6  ·  not started",
        "2 to do before submitting  ·  " + diff,
    ]
    # 160 columns, one line: only the time gives way.
    shown = fitted(parts, 158, 1).plain
    assert "\n" not in shown and "time so far" not in shown and "  ·  pair  ·  " in shown
    # Room for all: nothing gives way.
    assert "time so far 5s" in fitted(parts, 300, 1).plain
    # Too narrow for the rest: the names go too, and what never gives way (0) stays.
    shown = fitted(parts, 40, 2).plain
    assert "pandalm" not in shown and "P-EYN3JB" in shown and diff in shown


async def test_the_bar_names_the_study_again_when_only_the_height_changes(tmp_path: Path) -> None:
    """The header (a tall terminal's) names the study and design, and the bar then leaves them
    out; on a short terminal (no header) the bar names them. Only the height changed, the bar's
    own size did not, and it kept what it showed until the next key."""
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (100, 24)) as pilot:
        screen = await compare_screen(pilot)
        study = screen.query_one(ItemBar)

        def names_shown() -> bool:
            return "pilot" in study.render().plain  # type: ignore[union-attr]

        await until(pilot, names_shown)
        await pilot.resize_terminal(100, 40)  # tall: the header names them
        await settle(pilot)
        await until(pilot, lambda: not names_shown())
        assert "pilot" in str(screen.sub_title)
        await pilot.resize_terminal(100, 24)  # short again: the bar names them
        await settle(pilot)
        await until(pilot, names_shown)
