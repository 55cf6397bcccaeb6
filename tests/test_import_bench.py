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
    # Every contender stored the same tasks, runs and labels (three annotators per pair): the
    # bare loop the very rows ours stored, the source rows loop the file's own.
    expected = {"tasks": 150, "runs": 300, "preferences": 450}
    contenders = ("ours", "bare_loop", "source_rows_loop")
    for name in contenders:
        assert doc[name]["stored"] == expected, name
        assert len(doc[name]["samples_seconds"]) == 2, name
        assert doc[name]["median_seconds"] > 0, name
    ours, bare, plain = (doc[name]["median_seconds"] for name in contenders)
    ratios = doc["ratios"]
    assert ratios["ours_time_over_bare_loop"] == pytest.approx(ours / bare, rel=0.02)
    assert ratios["ours_time_over_source_rows_loop"] == pytest.approx(ours / plain, rel=0.02)
    assert ratios["bare_loop_over_source_rows_loop"] == pytest.approx(bare / plain, rel=0.02)
    assert ratios["goal_ratio"] == 3.0
    assert ratios["goal_met"] == (ratios["ours_time_over_bare_loop"] <= 3.0)
    # Each round's own ratio, from that round's samples (the rounds ran in alternating order).
    rounds = [
        o / b
        for o, b in zip(
            doc["ours"]["samples_seconds"], doc["bare_loop"]["samples_seconds"], strict=True
        )
    ]
    assert ratios["each_round"] == pytest.approx(rounds, rel=0.02)
    cpu = {name: doc[name]["cpu_median_seconds"] for name in contenders}
    assert all(seconds > 0 for seconds in cpu.values()), cpu
    assert ratios["cpu_ours_over_bare_loop"] == pytest.approx(
        cpu["ours"] / cpu["bare_loop"], rel=0.02
    )


def test_bench_import_pairwise_rejects_no_pairs(cli: Cli) -> None:
    result = cli("bench", "import", "--format", "pairwise", "--pairs", "0", "--repeat", "1")
    assert result.code == 1
    assert "--pairs: expected a whole number from 1 to" in result.err
