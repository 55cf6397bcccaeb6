"""``bench agreement --table`` runs end to end and prints one JSON document (no speed is
asserted: a figure stands beside the baselines of the same run)."""

from __future__ import annotations

import json

import pytest

from tests.factories import Cli


def test_bench_agreement_table_prints_figures_and_baselines(cli: Cli) -> None:
    result = cli("bench", "agreement", "--table", "--items", "300", "--repeat", "1")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert doc["benchmark"] == "agreement-table"
    # 300 items x 3 reviewers x 5 variables, one row each.
    assert doc["input"]["rows"] == 4500
    assert doc["input"]["bytes"] > 0
    names = ("ours", "ours_reading", "baseline", "baseline_numpy", "ours_process")
    for name in (*names, "baseline_process"):
        figures = doc[name]
        assert len(figures["samples_seconds"]) == 1, name
        assert figures["median_seconds"] > 0, name
        assert figures["what"], name
    ours, base, numpy = (doc[k]["median_seconds"] for k in ("ours", "baseline", "baseline_numpy"))
    assert doc["ratio"] == pytest.approx(ours / base)
    assert doc["ratio_to_numpy"] == pytest.approx(ours / numpy)
    process, script = (doc[k]["median_seconds"] for k in ("ours_process", "baseline_process"))
    assert doc["ratio_process"] == pytest.approx(process / script)
    # A fresh process does the same work as the call, and starts an interpreter besides.
    assert process > ours
    assert doc["goal_ratio"] == 3.0
    assert doc["goal_met"] == (doc["ratio"] <= 3.0)
    assert doc["reading_share_of_ours"] == pytest.approx(
        doc["ours_reading"]["median_seconds"] / ours
    )
    # Our alpha, read from the file, is the package's on the same file.
    assert doc["alpha_max_abs_difference_from_package"] < 1e-9
