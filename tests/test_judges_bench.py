"""``abp-tui bench judges`` on a small generated study: its JSON, and a baseline kappa that is
Cohen's kappa (checked against scikit-learn)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from abp_tui.bench.judges import bench_judges, numpy_kappa


def test_numpy_kappa_is_cohens_kappa() -> None:
    rng = np.random.default_rng(2)
    x = rng.integers(0, 3, 500)
    y = np.where(rng.random(500) < 0.7, x, rng.integers(0, 3, 500))
    assert numpy_kappa(x, y) == pytest.approx(cohen_kappa_score(x, y), abs=1e-12)


def test_bench_judges_reports_both_timings_and_the_goal() -> None:
    found = bench_judges(items=200, repeat=1, resamples=20)
    assert found["verdicts"] == 200 * 5 * 2
    assert found["ours_seconds"] > 0 and found["baseline_seconds"] > 0
    assert found["ratio"] == pytest.approx(found["ours_seconds"] / found["baseline_seconds"])
    assert found["goal_ratio"] == 3.0
    assert found["goal_met"] == (found["ratio"] <= 3.0)
    assert found["left_out"] > 0  # ties and errors are generated, and listed
