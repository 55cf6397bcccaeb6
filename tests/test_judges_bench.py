"""``abp-tui bench judges`` on a small generated study: its JSON, and a baseline kappa that is
Cohen's kappa (checked against scikit-learn)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from abp_tui.analysis.judges.report import judges_report
from abp_tui.bench.judges import (
    bench_data,
    bench_judges,
    bootstrapped_kappas,
    draw_floor,
    floor_tables,
    numpy_kappa,
)
from abp_tui.models.judges import Judge
from abp_tui.stats.agreement import pair_from_counts


def test_numpy_kappa_is_cohens_kappa() -> None:
    rng = np.random.default_rng(2)
    x = rng.integers(0, 3, 500)
    y = np.where(rng.random(500) < 0.7, x, rng.integers(0, 3, 500))
    assert numpy_kappa(x, y) == pytest.approx(cohen_kappa_score(x, y), abs=1e-12)


def test_bench_judges_reports_both_timings_and_the_goal() -> None:
    found = bench_judges(items=200, repeat=1, resamples=100)
    assert found["verdicts"] == 200 * 5 * 2
    assert found["ours_seconds"] > 0 and found["baseline_seconds"] > 0
    assert found["ratio"] == pytest.approx(found["ours_seconds"] / found["baseline_seconds"])
    assert found["goal_ratio"] == 3.0
    assert found["goal_met"] == (found["ratio"] <= 3.0)
    assert found["left_out"] > 0  # ties and errors are generated, and listed
    # The floor draws every kappa's resamples: each judge's three orders and its two orders
    # against each other, and each pair of the five judges.
    assert "30 tables x 100 resamples" in found["floor"]
    # The baseline computes those same 30 kappas, each alone.
    assert found["baseline"].startswith("Cohen's kappa alone in NumPy on integer arrays: 30 kappas")
    assert found["without_bootstrap_seconds"] > 0
    assert found["without_bootstrap_ratio"] == pytest.approx(
        found["without_bootstrap_seconds"] / found["baseline_seconds"]
    )
    assert found["floor_seconds"] > 0
    assert found["floor_ratio"] == pytest.approx(found["floor_seconds"] / found["baseline_seconds"])
    assert found["ours_over_floor"] == pytest.approx(found["ours_seconds"] / found["floor_seconds"])


def test_the_floor_draws_what_the_report_draws() -> None:
    # Every kappa the report bootstraps is in the floor, with the stream the report drew it
    # from: the same counts and stream give the very same interval.
    table, reference, _arrays = bench_data(300, 4)
    judges = [Judge(id=name, model="generated") for name in table.judges]
    report = judges_report("bench", judges, table, reference, resamples=100, seed=4)
    found = bootstrapped_kappas(report)
    assert len(found) == 5 * 4 + 10  # each judge: three orders, between orders; judge pairs
    for (variable, rater_a, rater_b), pair in found:
        again = pair_from_counts(
            pair.matrix().counts,
            pair.matrix().categories,
            (rater_a, rater_b),
            variable=variable,
            seed=4,
            resamples=100,
        )
        assert again == pair and pair.cohen_kappa.interval is not None
    assert draw_floor(floor_tables(report, 100), 4, 100) == len(found)
