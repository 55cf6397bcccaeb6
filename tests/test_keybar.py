"""The key bar at a width too small for every key: what it keeps, and that it says what it
left out (the help key lists those keys)."""

from __future__ import annotations

from abp_tui.tui.widgets.keybar import KeyBar, ShownKey

ENTRIES = (
    ShownKey("y", "y", "Passed", "gate(1)"),
    ShownKey("n", "n", "Failed", "gate(0)"),
    ShownKey("tab", "tab", "Next field", "app.focus_next"),
    ShownKey("o", "o", "Form", "toggle_form"),
    ShownKey("s", "s", "Submit", "submit"),
    ShownKey("right_square_bracket", "]", "Next", "next_item"),
    ShownKey("l", "l", "Queue", "queue"),
    ShownKey("q", "q", "Quit", "quit"),
    ShownKey("question_mark", "?", "Keys", "help"),
)


def bar(width: int, first: tuple[str, ...] = ()) -> list[str]:
    keys = KeyBar(first=first)
    keys.entries = ENTRIES
    shown = keys.fitting(width)
    assert sum(len(e.display) + len(e.description) + 3 for e in shown) <= width
    return [f"{e.display} {e.description}" for e in shown]


def test_with_room_for_every_key_the_bar_shows_them_all_as_they_are() -> None:
    assert bar(200) == [f"{e.display} {e.description}" for e in ENTRIES]


def test_short_of_room_the_help_key_says_how_many_keys_only_it_lists() -> None:
    shown = bar(60)
    assert shown[-2:] == ["q Quit", f"? Keys +{len(ENTRIES) - len(shown)}"]
    assert shown[:3] == ["y Passed", "n Failed", "tab Next field"]


def test_the_keys_a_screen_names_first_are_kept_in_their_place() -> None:
    shown = bar(60, first=("toggle_form", "submit", "next_item"))
    assert shown == ["y Passed", "o Form", "s Submit", "] Next", "q Quit", "? Keys +3"]
