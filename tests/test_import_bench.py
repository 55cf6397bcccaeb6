"""``bench import --format pairwise`` runs end to end and prints one JSON document, each figure
beside the bare loop measured in the same run (no speed is asserted: the figures are the
benchmark's, on whatever machine runs it)."""

from __future__ import annotations

import json

import pytest

from tests.factories import Cli


def test_bench_import_pairwise_prints_ours_beside_the_bare_loop(cli: Cli) -> None:
    result = cli("bench", "import", "--format", "pairwise", "--pairs", "150", "--repeat", "2")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert doc["benchmark"] == "import"
    assert doc["input"]["pairs"] == 150
    assert doc["input"]["repeat"] == 2
    # Both contenders stored the same tasks, runs and labels (three annotators per pair).
    expected = {"tasks": 150, "runs": 300, "preferences": 450}
    assert doc["ours"]["stored"] == expected
    assert doc["bare_loop"]["stored"] == expected
    for name in ("ours", "bare_loop"):
        assert len(doc[name]["samples_seconds"]) == 2, name
        assert doc[name]["median_seconds"] > 0, name
    assert len(doc["stored_rows_floor"]["samples_seconds"]) == 2
    ratios = doc["ratios"]
    ours, bare = doc["ours"]["median_seconds"], doc["bare_loop"]["median_seconds"]
    assert ratios["ours_time_over_bare_loop"] == pytest.approx(ours / bare, rel=0.02)
    assert ratios["goal_ratio"] == 3.0
    assert ratios["goal_met"] == (ratios["ours_time_over_bare_loop"] <= 3.0)


def test_bench_import_pairwise_rejects_no_pairs(cli: Cli) -> None:
    result = cli("bench", "import", "--format", "pairwise", "--pairs", "0", "--repeat", "1")
    assert result.code == 1
    assert "--pairs must be at least 1" in result.err
