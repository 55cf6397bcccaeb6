"""Word-level diff: spans rebuild both texts exactly; changes are whole words."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from abp_tui.text.diff import Span, word_diff


def _join(spans: list[Span]) -> str:
    return "".join(s.text for s in spans)


def test_changed_words_are_marked_on_each_side() -> None:
    d = word_diff("The exit period is 180 days.", "The exit period is 30 days.")
    assert [s.text for s in d.left if s.changed] == ["180"]
    assert [s.text for s in d.right if s.changed] == ["30"]
    assert d.left_starts == [len("The exit period is ")]


def test_identical_texts_have_no_changes() -> None:
    d = word_diff("same text", "same text")
    assert d.changes == 0
    assert _join(d.left) == "same text"


def test_empty_and_wide_characters() -> None:
    d = word_diff("", "中文 答案 是 九十 天")
    assert _join(d.left) == ""
    assert _join(d.right) == "中文 答案 是 九十 天"
    assert all(s.changed for s in d.right)


def test_many_distinct_tokens_do_not_collide_with_surrogates() -> None:
    left = " ".join(f"w{i}" for i in range(60_000))
    right = left.replace("w59999", "changed")
    d = word_diff(left, right)
    assert _join(d.left) == left and _join(d.right) == right
    assert [s.text for s in d.right if s.changed] == ["changed"]


@settings(max_examples=60, deadline=None)
@given(st.text(), st.text())
def test_spans_rebuild_both_texts(a: str, b: str) -> None:
    d = word_diff(a, b)
    assert _join(d.left) == a
    assert _join(d.right) == b


def test_long_texts_diff_line_first_and_keep_word_level_changes() -> None:
    lines = [f"Line {i}: the answer cites source {i} and states its limits." for i in range(4000)]
    left = "\n".join(lines)
    changed = list(lines)
    changed[1234] = changed[1234].replace("source 1234", "source 9999")
    changed.insert(3000, "An inserted line.")
    right = "\n".join(changed)
    d = word_diff(left, right)
    assert _join(d.left) == left and _join(d.right) == right
    assert [s.text for s in d.left if s.changed] == ["1234"]
    assert [s.text.strip() for s in d.right if s.changed] == ["9999", "An inserted line."]
    assert not d.timed_out
