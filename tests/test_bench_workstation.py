"""The workstation benchmark builds each study, drives the app on it and prints one JSON
document with each figure beside the baseline study's. No speed is asserted: only that every
figure was measured and set beside the baseline."""

from __future__ import annotations

import json

from abp_tui.bench.workstation import bench_workstation
from tests.factories import Cli


def test_bench_workstation_measures_each_size_beside_the_baseline() -> None:
    doc = bench_workstation(sizes=(40,), presses=2, baseline_items=20)
    json.dumps(doc)  # one JSON document
    assert doc["benchmark"] == "workstation"
    assert doc["input"]["sizes"] == [20, 40] and doc["input"]["presses"] == 2
    assert set(doc["results"]) == {"20", "40"}
    base = doc["results"]["20"]
    for label, figures in doc["results"].items():
        assert figures["items"] == int(label)
        for key in ("home_shown_seconds", "first_item_shown_seconds"):
            assert figures[key] > 0
        assert figures["first_key_after_pause_seconds"] > 0
        # The baseline is timed before the other sizes and after them: two runs.
        assert len(figures["next_item_samples_seconds"]) == (4 if label == "20" else 2)
        assert figures["next_item_median_seconds"] > 0
        beside = figures["beside_baseline"]
        ratio = figures["home_shown_seconds"] / base["home_shown_seconds"]
        assert abs(beside["home_shown_seconds"]["ratio"] - ratio) < 0.01 * ratio + 1e-3
        extra = figures["first_item_shown_seconds"] - base["first_item_shown_seconds"]
        assert abs(beside["first_item_shown_seconds"]["extra_seconds"] - extra) < 1e-3
        assert set(doc["goals"]["by_size"][label]) == {
            "home_within_goal",
            "first_item_within_goal",
            "next_item_within_goal",
        }
    assert doc["results"]["20"]["beside_baseline"]["next_item_median_seconds"]["ratio"] == 1.0
    first, again = base["runs"]
    mean = (first["home_shown_seconds"] + again["home_shown_seconds"]) / 2
    assert abs(base["home_shown_seconds"] - mean) < 1e-3


def test_bench_items_are_checked_before_anything_runs(cli: Cli) -> None:
    result = cli("bench", "workstation", "--items", "2000,0")
    assert result.code == 1 and "--items: expected a whole number from 1" in result.err
    result = cli("bench", "workstation", "--items", "5")
    assert result.code == 1 and "at least 10" in result.err
    result = cli("bench", "agreement", "--items", "100,200")
    assert result.code == 1 and "--items takes one number here" in result.err
