"""Active allocation of a human budget: the probabilities, the seeded draw and the estimate
they feed (Zrnic and Candès 2024)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from abp_tui.analysis.allocation import boundary_items, uncertainty
from abp_tui.analysis.judges.arrays import VerdictTable
from abp_tui.analysis.judges.queue import JUDGES_DISAGREE
from abp_tui.analysis.judges.units import VerdictRow
from abp_tui.stats.allocation import (
    allocation_probabilities,
    budget_items,
    draw,
    inclusion,
)
from abp_tui.stats.inference import normal_quantile
from abp_tui.stats.ppi_units import estimate_from_units


@pytest.mark.parametrize(
    ("budget", "floor"), [(10.0, 0.05), (25.0, 0.05), (50.0, 0.2), (99.0, 0.01), (5.0, 0.05)]
)
def test_the_expected_number_drawn_is_the_budget_and_the_floor_holds(
    budget: float, floor: float
) -> None:
    u = np.random.default_rng(3).gamma(0.5, size=100)
    u[:30] = 0.0  # items the judges agree on
    pi = allocation_probabilities(u, budget, floor)
    assert pi.sum() == pytest.approx(budget, abs=1e-9)
    assert pi.min() >= floor - 1e-15
    assert pi.max() <= 1.0
    order = np.argsort(u, kind="stable")
    assert np.all(np.diff(pi[order]) >= -1e-15)  # monotone in uncertainty


def test_the_probability_grows_with_the_uncertainty_and_caps_at_one() -> None:
    u = np.array([0.0, 1.0, 2.0, 4.0, 40.0])
    pi = allocation_probabilities(u, 2.0, 0.1)
    assert pi[0] == pytest.approx(0.1)
    assert pi[-1] == 1.0  # capped, the excess redistributed to the others
    assert pi[1] < pi[2] < pi[3] < 1.0
    assert pi.sum() == pytest.approx(2.0)
    # Below the cap the rule is proportional: c u_i for one constant c.
    assert pi[2] / pi[1] == pytest.approx(2.0)
    assert pi[3] / pi[1] == pytest.approx(4.0)


def test_equal_uncertainties_give_the_uniform_probability() -> None:
    assert allocation_probabilities(np.zeros(8), 2.0, 0.05) == pytest.approx(np.full(8, 0.25))
    assert allocation_probabilities(np.ones(8), 2.0, 0.05) == pytest.approx(np.full(8, 0.25))


def test_too_few_uncertain_items_go_to_people_and_the_rest_share_the_budget() -> None:
    u = np.array([0.0, 0.0, 0.0, 0.0, 3.0])
    pi = allocation_probabilities(u, 3.0, 0.05)
    assert pi.tolist() == pytest.approx([0.5, 0.5, 0.5, 0.5, 1.0])


def test_a_budget_the_floor_exceeds_or_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="lower the floor or raise the budget"):
        allocation_probabilities(np.ones(100), 4.0, 0.05)
    with pytest.raises(ValueError, match="budget"):
        allocation_probabilities(np.ones(4), 0.0, 0.05)
    with pytest.raises(ValueError, match="floor"):
        allocation_probabilities(np.ones(4), 2.0, 0.0)
    with pytest.raises(ValueError, match="uncertainties"):
        allocation_probabilities(np.array([1.0, -1.0]), 1.0, 0.05)


def test_budget_items_reads_counts_and_shares() -> None:
    assert budget_items(200, 1000) == 200.0
    assert budget_items("25%", 400) == 100.0
    assert budget_items("200", 50) == 50.0  # capped at the items
    for bad in ("0%", "150%", "-3", "lots"):
        with pytest.raises(ValueError):
            budget_items(bad, 10)


def test_the_draw_is_reproducible_and_its_mean_is_the_budget() -> None:
    pi = allocation_probabilities(np.random.default_rng(1).random(400), 100.0, 0.05)
    first = draw(pi, 12345)
    assert np.array_equal(first, draw(pi, 12345))
    assert np.array_equal(draw(pi, -7), draw(pi, -7))  # a negative seed too
    assert not np.array_equal(first, draw(pi, 12346))
    counts = [int(draw(pi, s).sum()) for s in range(400)]
    # Mean of 400 draws: sd of one draw <= sqrt(100) = 10, of the mean <= 0.5.
    assert abs(float(np.mean(counts)) - 100.0) < 2.5


def test_inclusion_of_a_unit_in_several_items() -> None:
    assert inclusion(np.array([0.5, 0.5])) == pytest.approx(0.75)
    assert inclusion(np.array([0.2])) == pytest.approx(0.2)


def test_the_weighted_estimate_on_a_drawn_table_is_the_papers_formula() -> None:
    """A hand computation of Zrnic and Candès's estimator on six units, lam = 1:
    theta = mean(f + (y - f) xi / pi), se = sd(terms, divisor N) / sqrt(N)."""
    f = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    pi = np.array([0.5, 0.25, 1.0, 0.5, 0.5, 0.25])
    y = np.array([1.0, np.nan, 0.0, np.nan, 0.0, 1.0])
    terms = [1 + 0 / 0.5, 0.0, 1 + (0 - 1) / 1.0, 1.0, 0 + 0 / 0.5, 1 + 0 / 0.25]
    mean = sum(terms) / 6
    sd = math.sqrt(sum((t - mean) ** 2 for t in terms) / 6)
    found = estimate_from_units(f, y, pi, method="ppi")
    assert found.point == pytest.approx(mean)
    assert found.standard_error == pytest.approx(sd / math.sqrt(6))
    z = normal_quantile(0.95)
    assert found.low == pytest.approx(mean - z * sd / math.sqrt(6))
    # Horvitz-Thompson (people alone): mean(y xi / pi).
    ht = estimate_from_units(f, y, pi, method="classical")
    assert ht.point == pytest.approx((1 / 0.5 + 0 + 0 + 1 / 0.25) / 6)


def test_the_active_estimate_is_unbiased_whatever_the_judge_in_simulation() -> None:
    """A judge that is wrong a third of the time, labels drawn by the rule from its
    uncertainty: the intervals cover the true mean about 95% of the time."""
    rng = np.random.default_rng(7)
    n, covered, trials = 600, 0, 300
    for t in range(trials):
        y = (rng.random(n) < 0.6).astype(float)
        wrong = rng.random(n) < 0.33
        f = np.where(wrong, 1 - y, y)
        u = np.where(wrong, 2.0, 0.0) + rng.random(n)  # uncertainty tracks errors
        pi = allocation_probabilities(u, 120.0, 0.05)
        xi = draw(pi, t)
        found = estimate_from_units(f, np.where(xi, y, np.nan), pi, method="ppi++")
        assert found.low is not None and found.high is not None
        covered += found.low <= y.mean() <= found.high
    assert 0.91 <= covered / trials <= 0.985


def test_verdicts_on_the_decision_boundary_add_to_the_uncertainty() -> None:
    def row(
        runs: tuple[str, ...], kind: str, verdict: str | None, score: float | None = None
    ) -> VerdictRow:
        first = runs[0] if len(runs) == 2 else None
        return VerdictRow("j", runs, first, None, kind, verdict, score, None, True, "")

    table = VerdictTable.from_rows(
        [
            row(("p1", "p2"), "preference", "tie"),
            row(("q1", "q2"), "preference", "q1"),
            row(("r1",), "pass_fail", "partial"),
            row(("r2",), "pass_fail", "pass"),
            row(("s1",), "score", None, 5.0),
            row(("s2",), "score", None, 10.0),
            row(("s3",), "score", None, 0.0),
            row(("s4",), "score", None, 6.6),
        ]
    )
    near = boundary_items(table, {})  # scores placed on the judge's own range, 0 to 10
    assert near == {("p1", "p2"), ("r1",), ("s1",)}
    assert uncertainty((), True) == 1.0
    assert uncertainty((JUDGES_DISAGREE,), True) == 3.0
    assert uncertainty((), False) == 0.0
