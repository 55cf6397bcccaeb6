"""The UI benchmark drives both contenders end to end and reports one JSON document.

No speed is asserted: only that every figure was measured and the document has its shape.
"""

from __future__ import annotations

import json

from abp_tui.bench.ui import SETTLED, bench_ui, output_pair
from abp_tui.cli import build_parser


def test_generated_pairs_are_deterministic_sized_and_differ_word_by_word() -> None:
    left, right = output_pair(4096, seed=3)
    assert (left, right) == output_pair(4096, seed=3)
    assert len(left) == len(right) == 4096
    assert left.isascii() and right.isascii()
    words_left, words_right = left.split(), right.split()
    assert words_left != words_right
    # Mostly the same words, so a word diff finds edits rather than a wholesale rewrite.
    assert len(set(words_left) & set(words_right)) > 0.8 * len(set(words_left))
    assert output_pair(4096, seed=4)[0] != left


def test_bench_ui_measures_both_contenders_at_each_size() -> None:
    doc = bench_ui(repeat=1, sizes=(2048, 8192))
    json.dumps(doc)  # one JSON document
    assert doc["benchmark"] == "ui"
    assert doc["settled"] == SETTLED
    assert doc["input"]["sizes"] == ["2KB", "8KB"]
    assert doc["input"]["repeat"] == 1
    assert set(doc["machine"]) >= {"cpu_count", "python", "textual"}
    assert set(doc["results"]) == {"2KB", "8KB"}
    for label, figures in doc["results"].items():
        ours, cold, floor = figures["ours"], figures["ours_cold"], figures["floor"]
        for contender in (ours, cold, floor):
            assert len(contender["samples_seconds"]) == 1, label
            assert contender["median_seconds"] == contender["samples_seconds"][0] > 0
            assert contender["first_paint_median_seconds"] > 0
            assert contender["first_paint_median_seconds"] <= contender["median_seconds"]
            assert contender["max_stall_until_settled_seconds"] >= 0
            # Idle comes after settled: its stall covers at least as long a stretch.
            assert (
                contender["max_stall_until_idle_seconds"]
                >= contender["max_stall_until_settled_seconds"]
            )
            assert contender["warm_up_press_seconds"] > 0
        for contender in (ours, cold):
            # Ours is settled only once the new pair's diff highlighting is drawn.
            assert 0 < contender["diff_painted_median_seconds"] <= contender["median_seconds"]
            assert contender["max_stall_until_diff_seconds"] >= 0
        assert "diff_painted_median_seconds" not in floor
        ratio = ours["median_seconds"] / floor["median_seconds"]
        assert abs(figures["ratios"]["ours_settled_over_floor"] - ratio) < 0.01 * ratio + 1e-3
        cold_ratio = cold["median_seconds"] / floor["median_seconds"]
        assert (
            abs(figures["ratios"]["ours_cold_settled_over_floor"] - cold_ratio)
            < 0.01 * cold_ratio + 1e-3
        )
    goals = doc["goals"]
    assert goals["floor_goal"] == 1.5
    assert goals["floor_goal_size"] == "2KB"
    assert goals["stall_goal_seconds"] == 0.1
    assert goals["stall_goal_size"] == "8KB"
    assert isinstance(goals["floor_goal_met"], bool)
    assert isinstance(goals["stall_goal_met"], bool)
    large = doc["results"]["8KB"]
    assert goals["max_stall_seconds"] == max(
        large["ours"]["max_stall_until_idle_seconds"],
        large["ours_cold"]["max_stall_until_idle_seconds"],
    )
    small = doc["results"]["2KB"]["ratios"]
    assert goals["cold_over_floor"] == small["ours_cold_settled_over_floor"]


def test_cli_offers_the_ui_benchmark() -> None:
    args = build_parser().parse_args(["bench", "ui", "--repeat", "2"])
    assert (args.what, args.repeat) == ("ui", 2)
