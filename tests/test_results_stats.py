"""Results statistics checked against published values, not against their own output.

Sources of the expected values:
- Arena (the reference harness behind ABP): Wilson 5/10 -> [0.2366, 0.7634]; exact McNemar
  b = 8, c = 0 -> 2/256.
- Newcombe R. G. (1998), "Two-sided confidence intervals for the single proportion: comparison of
  seven methods", Statistics in Medicine 17:857-872, Table II, Wilson score method without
  continuity correction, for the paper's four examples 81/263, 15/148, 0/20 and 1/29.
- Exact binomial test, 7 successes of 20 at p = 0.5, two-sided: p = 0.2632 (textbook value:
  2 P(X <= 7), X ~ Bin(20, 1/2) = 2 * 137980 / 1048576).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from scipy.stats import binomtest, norm

from abp_tui.models.rubric import ResultState
from abp_tui.stats import inference as results
from abp_tui.stats.inference import (
    EXCLUDED_STATES,
    NO_DECISIVE_JUDGMENTS,
    NO_DISCORDANT_PAIRS,
    Proportion,
    mcnemar_exact,
    paired_pass_fail,
    pass_rate,
    position_bias,
    preference_test,
    relative_median_difference,
    state_counts,
    wilson,
)

PASS, FAIL = ResultState.MODEL_PASS, ResultState.MODEL_FAIL

# ------------------------------------------------------------------------------------------------
# Wilson


@pytest.mark.parametrize(
    ("x", "n", "low", "high"),
    [
        pytest.param(5, 10, 0.2366, 0.7634, id="arena-5/10"),
        pytest.param(81, 263, 0.2553, 0.3662, id="newcombe-81/263"),
        pytest.param(15, 148, 0.0624, 0.1605, id="newcombe-15/148"),
        pytest.param(0, 20, 0.0, 0.1611, id="newcombe-0/20"),
        pytest.param(1, 29, 0.0061, 0.1718, id="newcombe-1/29"),
    ],
)
def test_wilson_matches_published_intervals(x: int, n: int, low: float, high: float) -> None:
    p = wilson(x, n)
    assert (p.x, p.n) == (x, n)
    assert p.point == pytest.approx(x / n)
    # Published to four decimals: the computed bound must round to it.
    assert p.low == pytest.approx(low, abs=5e-5)
    assert p.high == pytest.approx(high, abs=5e-5)
    assert p.defined


def test_wilson_zero_successes_has_lower_bound_exactly_zero_and_all_successes_upper_one() -> None:
    assert wilson(0, 20).low == 0.0
    assert wilson(29, 29).high == 1.0


@pytest.mark.parametrize(("x", "n"), [(0, 1), (3, 7), (81, 263), (500, 1000), (999, 1000)])
def test_wilson_agrees_with_scipy_when_given_scipys_quantile(x: int, n: int) -> None:
    # SciPy's Wilson interval uses the exact 97.5% quantile, 1.959963..., not Arena's 1.96.
    ours = wilson(x, n, z=float(norm.ppf(0.975)))
    theirs = binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert ours.low == pytest.approx(theirs.low, abs=1e-12)
    assert ours.high == pytest.approx(theirs.high, abs=1e-12)


def test_wilson_with_no_observations_is_undefined_not_nan() -> None:
    p = wilson(0, 0)
    assert not p.defined
    assert p.undefined_reason is not None and "n = 0" in p.undefined_reason
    assert (p.point, p.low, p.high) == (None, None, None)
    dumped = json.loads(p.model_dump_json())
    assert dumped["point"] is None and dumped["n"] == 0


@pytest.mark.parametrize(
    ("x", "n", "error"),
    [(11, 10, ValueError), (-1, 10, ValueError), (1, -1, ValueError), (True, 2, TypeError)],
)
def test_wilson_rejects_impossible_counts(x: int, n: int, error: type[Exception]) -> None:
    with pytest.raises(error):
        wilson(x, n)


def test_proportion_model_refuses_nan() -> None:
    with pytest.raises(ValidationError):
        Proportion(x=1, n=2, point=math.nan, low=0.0, high=1.0)


@st.composite
def counts(draw: st.DrawFn) -> tuple[int, int]:
    n = draw(st.integers(min_value=1, max_value=100_000))
    return draw(st.integers(min_value=0, max_value=n)), n


@given(counts())
def test_wilson_interval_lies_in_unit_range_and_contains_the_point(xn: tuple[int, int]) -> None:
    p = wilson(*xn)
    assert p.low is not None and p.high is not None and p.point is not None
    assert 0.0 <= p.low <= p.point <= p.high <= 1.0


@given(counts(), st.integers(min_value=2, max_value=50))
def test_wilson_interval_narrows_as_n_grows(xn: tuple[int, int], k: int) -> None:
    x, n = xn
    small, large = wilson(x, n), wilson(k * x, k * n)
    assert small.low is not None and small.high is not None
    assert large.low is not None and large.high is not None
    assert large.high - large.low < small.high - small.low


# ------------------------------------------------------------------------------------------------
# McNemar


def test_mcnemar_arena_value_b8_c0_is_2_over_256() -> None:
    m = mcnemar_exact(8, 0)
    assert m.p_value == pytest.approx(2 / 256, rel=1e-12)
    assert (m.b, m.c, m.n) == (8, 0, 8)


def test_mcnemar_seed_example_discordant_14_5() -> None:
    # Seed 003's example verdict writes "discordant": [14, 5], "pExact": 0.041. The exact
    # two-sided value for those counts is 2 P(X <= 5), X ~ Bin(19, 1/2) = 2 * 16664 / 524288
    # = 0.0636; the example's 0.041 is illustrative and is deliberately not reproduced.
    m = mcnemar_exact(14, 5)
    assert m.p_value == pytest.approx(2 * 16664 / 2**19, rel=1e-12)
    assert m.p_value is not None and round(m.p_value, 4) == 0.0636
    assert m.discordant == (14, 5)
    assert m.n == 19


def test_mcnemar_without_discordant_pairs_is_undefined() -> None:
    m = mcnemar_exact(0, 0)
    assert m.p_value is None
    assert m.undefined_reason == NO_DISCORDANT_PAIRS == "no discordant pairs"
    assert not m.defined


def test_mcnemar_balanced_discordance_is_capped_at_one() -> None:
    assert mcnemar_exact(3, 3).p_value == 1.0


@given(st.integers(0, 500), st.integers(0, 500))
def test_mcnemar_is_a_symmetric_probability(b: int, c: int) -> None:
    forward, backward = mcnemar_exact(b, c), mcnemar_exact(c, b)
    assert forward.p_value == backward.p_value
    if b + c:
        assert forward.p_value is not None and 0.0 < forward.p_value <= 1.0


# ------------------------------------------------------------------------------------------------
# Binomial tests on preferences and on placement


def test_binomial_textbook_value_7_of_20() -> None:
    t = results.binomial_test(7, 20)
    assert t.p_value == pytest.approx(0.2632, abs=5e-5)
    assert t.p_value == pytest.approx(2 * 137980 / 2**20, rel=1e-12)


def test_preference_test_counts_and_tests_only_decisive_judgments() -> None:
    pref = preference_test(wins_a=7, wins_b=13, ties=4, insufficient=2)
    assert (pref.decisive, pref.total) == (20, 26)
    assert pref.test.n == 20 and pref.test.x == 7
    assert pref.test.p_value == pytest.approx(0.2632, abs=5e-5)
    assert pref.a_share.point == pytest.approx(0.35)
    # Ties and insufficient evidence do not move the test.
    assert preference_test(7, 13, 400, 200).test.p_value == pref.test.p_value


def test_preference_test_with_only_ties_is_undefined() -> None:
    pref = preference_test(0, 0, ties=3, insufficient=1)
    assert pref.total == 4 and pref.decisive == 0
    assert pref.test.p_value is None
    assert pref.test.undefined_reason == NO_DECISIVE_JUDGMENTS
    assert not pref.a_share.defined


def test_position_bias_share_and_test() -> None:
    bias = position_bias(left_preferred=15, right_preferred=5)
    assert bias.decisive == 20
    assert bias.left_share.point == pytest.approx(0.75)
    # 2 P(X <= 5), X ~ Bin(20, 1/2) = 2 * 21700 / 2^20 = 0.0414.
    assert bias.test.p_value == pytest.approx(2 * 21700 / 2**20, rel=1e-12)
    assert bias.left_share.low is not None and bias.left_share.low > 0.5


def test_position_bias_without_decisive_judgments_is_undefined() -> None:
    bias = position_bias(0, 0)
    assert bias.test.undefined_reason == NO_DECISIVE_JUDGMENTS
    assert bias.left_share.point is None


# ------------------------------------------------------------------------------------------------
# Result states


def test_state_counts_always_has_all_six_states() -> None:
    counts = state_counts([PASS, "MODEL_PASS", ResultState.INFRA_ERROR])
    assert list(counts) == list(ResultState)
    assert len(counts) == 6
    assert counts[PASS] == 2 and counts[ResultState.INFRA_ERROR] == 1
    assert counts[FAIL] == 0 and counts[ResultState.GRADER_DISPUTE] == 0
    assert state_counts([]) == dict.fromkeys(ResultState, 0)


def test_state_counts_rejects_unknown_state() -> None:
    with pytest.raises(ValueError, match="unknown result state 'passed'"):
        state_counts(["passed"])


def test_pass_rate_leaves_excluded_states_out_of_the_denominator() -> None:
    states = [PASS, PASS, FAIL, *sorted(EXCLUDED_STATES)]
    rate = pass_rate(states)
    assert (rate.x, rate.n) == (2, 3)
    assert rate.low == wilson(2, 3).low
    assert len(EXCLUDED_STATES) == 4 and PASS not in EXCLUDED_STATES


def test_pass_rate_of_only_excluded_runs_is_undefined() -> None:
    assert not pass_rate([ResultState.INFRA_ERROR, ResultState.PROVIDER_BLOCK]).defined


# ------------------------------------------------------------------------------------------------
# Paired pass/fail


def test_paired_table_pairs_by_task_and_trial() -> None:
    a = {("t1", 1): PASS, ("t1", 2): PASS, ("t2", 1): FAIL, ("t3", 1): FAIL, ("t4", 1): PASS}
    b = {("t1", 1): PASS, ("t1", 2): FAIL, ("t2", 1): PASS, ("t3", 1): FAIL, ("t4", 2): FAIL}
    table = paired_pass_fail(a, b)
    assert (table.both_pass, table.a_pass_b_fail, table.a_fail_b_pass, table.both_fail) == (
        1,
        1,
        1,
        1,
    )
    assert table.pairs == 4
    # t4 trial 1 (A) and t4 trial 2 (B) are different work items: they do not pair.
    assert (table.unpaired_a, table.unpaired_b) == (1, 1)
    assert table.mcnemar.discordant == (1, 1)


def test_excluded_runs_are_dropped_before_pairing_not_counted_as_losses() -> None:
    # Arena's rule: an engine error is not a failure. Eight tasks A passes and B fails, plus two
    # tasks where B's run was an infrastructure error and one where A's run is still unjudged.
    a: dict[tuple[str, int], ResultState | None] = {(f"t{i}", 1): PASS for i in range(8)}
    b: dict[tuple[str, int], ResultState | None] = {(f"t{i}", 1): FAIL for i in range(8)}
    a |= {("x1", 1): PASS, ("x2", 1): PASS, ("u", 1): None}
    b |= {("x1", 1): ResultState.INFRA_ERROR, ("x2", 1): ResultState.PROVIDER_BLOCK, ("u", 1): PASS}
    table = paired_pass_fail(a, b)
    assert table.pairs == 8
    assert (table.a_pass_b_fail, table.a_fail_b_pass) == (8, 0)
    assert (table.excluded_a, table.excluded_b) == (0, 2)
    assert (table.unjudged_a, table.unjudged_b) == (1, 0)
    assert (table.unpaired_a, table.unpaired_b) == (2, 1)
    assert table.mcnemar.p_value == pytest.approx(2 / 256)


def test_paired_table_with_identical_outcomes_has_undefined_mcnemar() -> None:
    runs = {("t1", 1): PASS, ("t2", 1): FAIL}
    table = paired_pass_fail(runs, dict(runs))
    assert table.pairs == 2
    assert table.mcnemar.undefined_reason == "no discordant pairs"


# ------------------------------------------------------------------------------------------------
# Relative median difference


WELL_BEHAVED_A = [100.0, 120.0, 90.0, 110.0, 105.0, 95.0, 130.0, 98.0, 115.0, 102.0] * 4
WELL_BEHAVED_B = [80.0, 85.0, 70.0, 95.0, 90.0, 75.0, 100.0, 82.0, 88.0, 79.0] * 4
# Distinct values (token counts of 30 runs each), so bootstrap quantiles move with the seed.
SPREAD_A = [float(v) for v in np.random.default_rng(2024).lognormal(10.0, 0.5, 30).round()]
SPREAD_B = [float(v) for v in np.random.default_rng(2025).lognormal(9.8, 0.5, 30).round()]


def test_relative_median_difference_direction_and_point() -> None:
    # A is the baseline: B's median 40 against A's 50 is a 20% reduction, reported as -0.2.
    r = relative_median_difference([40.0, 50.0, 60.0], [30.0, 40.0, 50.0], seed=1, resamples=200)
    assert (r.median_a, r.median_b) == (50.0, 40.0)
    assert r.point == pytest.approx(-0.2)
    flipped = relative_median_difference([30.0, 40.0, 50.0], [40.0, 50.0, 60.0], seed=1)
    assert flipped.point == pytest.approx(0.25)


def test_bootstrap_is_reproducible_for_a_seed_and_differs_for_another() -> None:
    first = relative_median_difference(SPREAD_A, SPREAD_B, seed=20260718)
    again = relative_median_difference(SPREAD_A, SPREAD_B, seed=20260718)
    other = relative_median_difference(SPREAD_A, SPREAD_B, seed=20260719)
    assert first == again
    assert (first.low, first.high) != (other.low, other.high)
    assert first.point == other.point


def test_bootstrap_interval_contains_the_point_for_well_behaved_data() -> None:
    r = relative_median_difference(WELL_BEHAVED_A, WELL_BEHAVED_B, seed=7)
    assert r.defined and r.low is not None and r.high is not None and r.point is not None
    assert r.low < r.point < r.high
    assert r.high < 0  # B is clearly cheaper: the interval excludes zero.
    assert (r.n_a, r.n_b, r.resamples, r.resamples_used) == (40, 40, 2000, 2000)


def test_bootstrap_follows_its_documented_recipe() -> None:
    # The docstring's recipe, written out so a reader can reproduce a published interval.
    a, b = np.array(WELL_BEHAVED_A), np.array(WELL_BEHAVED_B[:25])
    rng = np.random.default_rng(11)
    ma = np.median(a[(rng.random((500, a.size)) * a.size).astype(int)], axis=1)
    mb = np.median(b[(rng.random((500, b.size)) * b.size).astype(int)], axis=1)
    low, high = np.quantile((mb - ma) / ma, [0.025, 0.975])
    r = relative_median_difference(a.tolist(), b.tolist(), seed=11, resamples=500)
    assert r.low == pytest.approx(low, abs=1e-15)
    assert r.high == pytest.approx(high, abs=1e-15)


def test_bootstrap_result_does_not_depend_on_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    whole = relative_median_difference(WELL_BEHAVED_A, WELL_BEHAVED_B, seed=3, resamples=999)
    monkeypatch.setattr(results, "_BLOCK_ELEMENTS", 97)
    blocked = relative_median_difference(WELL_BEHAVED_A, WELL_BEHAVED_B, seed=3, resamples=999)
    assert blocked == whole


def test_missing_values_are_left_out_and_counted() -> None:
    r = relative_median_difference([10.0, None, 20.0, 30.0], [None, None, 15.0], seed=0)
    assert (r.n_a, r.missing_a, r.n_b, r.missing_b) == (3, 1, 1, 2)
    assert r.point == pytest.approx(-0.25)


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ([], [1.0, 2.0], "no values for A"),
        ([1.0], [None], "no values for B"),
        ([0.0, 0.0, 5.0], [1.0, 2.0], "median of A is 0"),
    ],
)
def test_relative_median_difference_undefined_cases(
    a: list[float | None], b: list[float | None], reason: str
) -> None:
    r = relative_median_difference(a, b, seed=1)
    assert not r.defined
    assert r.undefined_reason is not None and r.undefined_reason.startswith(reason)
    assert (r.point, r.low, r.high) == (None, None, None)


def test_resamples_with_zero_baseline_median_are_left_out() -> None:
    r = relative_median_difference([0.0, 0.0, 1.0, 1.0, 1.0], [2.0, 2.0, 3.0], seed=5)
    assert r.point == pytest.approx(1.0)
    assert r.resamples / 2 <= r.resamples_used < r.resamples
    assert r.low is not None and math.isfinite(r.low)


def test_relative_median_difference_rejects_non_finite_values() -> None:
    with pytest.raises(ValueError, match="non-finite"):
        relative_median_difference([1.0, math.nan], [1.0], seed=1)


def test_interval_is_undefined_when_most_resampled_baselines_are_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Real data rarely gets there (the sample median is non-zero), so the resampled medians are
    # forced: 60% of A's resampled medians are 0, as with a baseline piled up at zero.
    def medians(rng: np.random.Generator, values: np.ndarray, resamples: int) -> np.ndarray:
        out = np.ones(resamples)
        if values[0] == -7.0:
            out[: resamples * 6 // 10] = 0.0
        return out

    monkeypatch.setattr(results, "_bootstrap_medians", medians)
    r = relative_median_difference([-7.0, 2.0, 3.0], [1.0, 2.0], seed=1, resamples=100)
    assert r.point == pytest.approx(-0.25)  # medians 2 and 1.5
    assert r.resamples_used == 40
    assert r.undefined_reason == "median of A is 0 in most bootstrap resamples"
    assert r.low is None and r.high is None


# ------------------------------------------------------------------------------------------------
# Wilson: the exact quantile, other confidence levels, the continuity-corrected interval
#
# Newcombe (1998), the same table of the four examples as above, method 4 (score interval with
# continuity correction), to four decimals. scipy.stats.binomtest's proportion_ci documents method
# "wilsoncc" as the same interval (Newcombe 1998, eq. 4) and is the check at other levels.


def test_wilson_default_quantile_is_the_exact_one_and_is_named() -> None:
    p = wilson(5, 10)
    assert p.z == float(norm.ppf(0.975)) == results.Z_95
    assert round(p.z, 6) == 1.959964  # the published 97.5% point of the standard normal
    assert p.confidence == 0.95 and not p.continuity
    assert p.convention == "Wilson score, 0.95 confidence, z = 1.959964"
    # Arena's rounded 1.96 stays available and changes the bounds only past the 4th decimal.
    arena = wilson(5, 10, z=results.ARENA_Z_95)
    assert arena.z == 1.96
    assert p.low is not None and arena.low is not None
    assert p.low != arena.low and abs(p.low - arena.low) < 5e-5


@pytest.mark.parametrize(
    ("x", "n", "low", "high"),
    [
        pytest.param(81, 263, 0.2535, 0.3682, id="newcombe-81/263"),
        pytest.param(15, 148, 0.0598, 0.1644, id="newcombe-15/148"),
        pytest.param(0, 20, 0.0, 0.2005, id="newcombe-0/20"),
        pytest.param(1, 29, 0.0018, 0.1963, id="newcombe-1/29"),
    ],
)
def test_continuity_corrected_wilson_matches_newcombe_method_4(
    x: int, n: int, low: float, high: float
) -> None:
    p = wilson(x, n, continuity=True)
    assert p.low == pytest.approx(low, abs=5e-5)
    assert p.high == pytest.approx(high, abs=5e-5)
    assert p.continuity
    assert p.convention.startswith("continuity-corrected Wilson score")
    # The correction widens the interval on both sides.
    plain = wilson(x, n)
    assert p.low is not None and p.high is not None
    assert plain.low is not None and plain.high is not None
    assert p.low <= plain.low and p.high > plain.high


@pytest.mark.parametrize("confidence", [0.80, 0.90, 0.99, 0.999])
@pytest.mark.parametrize(("x", "n"), [(1, 29), (15, 148), (81, 263), (500, 1000)])
def test_wilson_at_other_confidence_levels_agrees_with_scipy(
    x: int, n: int, confidence: float
) -> None:
    for continuity, method in ((False, "wilson"), (True, "wilsoncc")):
        ours = wilson(x, n, confidence=confidence, continuity=continuity)
        theirs = binomtest(x, n).proportion_ci(confidence_level=confidence, method=method)
        assert ours.low == pytest.approx(theirs.low, abs=1e-12)
        assert ours.high == pytest.approx(theirs.high, abs=1e-12)
        assert ours.z == pytest.approx(norm.ppf(1 - (1 - confidence) / 2), rel=1e-15)


def test_normal_quantile_matches_the_published_table() -> None:
    # The two-sided points of the standard normal as every table prints them.
    assert round(results.normal_quantile(0.90), 4) == 1.6449
    assert round(results.normal_quantile(0.95), 4) == 1.9600
    assert round(results.normal_quantile(0.99), 4) == 2.5758
    for bad in (0.0, 1.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="confidence"):
            results.normal_quantile(bad)


def test_an_explicit_z_names_the_confidence_it_stands_for() -> None:
    p = wilson(5, 10, z=results.ARENA_Z_95)
    assert p.confidence == pytest.approx(0.95000421, abs=1e-8)


@given(st.integers(0, 300).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_continuity_corrected_interval_lies_in_unit_range_and_contains_the_point(
    xn: tuple[int, int],
) -> None:
    p = wilson(*xn, continuity=True)
    if xn[1] == 0:
        assert not p.defined
        return
    assert p.low is not None and p.high is not None and p.point is not None
    assert 0.0 <= p.low <= p.point <= p.high <= 1.0


# ------------------------------------------------------------------------------------------------
# McNemar: mid-p and asymptotic
#
# Fagerland, Lydersen & Laake (2013), "The McNemar test for binary matched-pairs data: mid-p and
# asymptotic are better than exact conditional", BMC Medical Research Methodology 13:91: their
# example (Bentur et al. 2009, b = 1, c = 7) gives exact conditional P = 0.070, mid-p P = 0.039,
# asymptotic P = 0.034 and asymptotic with continuity correction P = 0.077.
# Agresti (1990), Categorical Data Analysis, p. 350, presidential approval (b = 150, c = 86), the
# example of R's ``mcnemar.test``: corrected chi-squared = 16.818, p = 4.115e-05; Agresti (2013,
# section 11.1) gives the uncorrected z^2 = 17.36.


@pytest.mark.parametrize(
    ("method", "p_value"),
    [("exact", 0.070), ("mid-p", 0.039), ("asymptotic", 0.034), ("asymptotic-cc", 0.077)],
)
def test_mcnemar_methods_match_fagerland_lydersen_laake(method: str, p_value: float) -> None:
    m = results.mcnemar(1, 7, method)  # type: ignore[arg-type]
    assert m.p_value == pytest.approx(p_value, abs=5e-4)
    assert m.method == method
    assert m.convention == results.MCNEMAR_METHODS[method]


def test_mcnemar_asymptotic_matches_agresti_and_r() -> None:
    corrected = results.mcnemar(150, 86, "asymptotic-cc")
    assert corrected.statistic == pytest.approx(16.818, abs=5e-4)
    assert corrected.p_value == pytest.approx(4.115e-05, abs=5e-9)
    plain = results.mcnemar(150, 86, "asymptotic")
    assert plain.statistic == pytest.approx(17.36, abs=5e-3)
    assert results.mcnemar(150, 86).statistic is None  # exact: no chi-square


def test_mcnemar_exact_is_the_default_and_mcnemar_exact_unchanged() -> None:
    assert results.mcnemar(8, 0) == mcnemar_exact(8, 0)
    assert mcnemar_exact(8, 0).method == "exact"


@pytest.mark.parametrize("method", list(results.MCNEMAR_METHODS))
def test_every_mcnemar_method_is_undefined_without_discordant_pairs(method: str) -> None:
    m = results.mcnemar(0, 0, method)  # type: ignore[arg-type]
    assert m.p_value is None and m.statistic is None
    assert m.undefined_reason == NO_DISCORDANT_PAIRS
    assert "p = 1" in results.NO_DISCORDANT_PAIRS_NOTE
    assert "no discordant pairs" in results.NO_DISCORDANT_PAIRS_NOTE


@pytest.mark.parametrize("method", list(results.MCNEMAR_METHODS))
def test_balanced_discordance_gives_p_one_by_every_method(method: str) -> None:
    assert results.mcnemar(4, 4, method).p_value == pytest.approx(1.0)  # type: ignore[arg-type]


def test_unknown_mcnemar_method_is_refused_naming_the_choices() -> None:
    with pytest.raises(ValueError, match=r"'fisher'.*exact, mid-p, asymptotic, asymptotic-cc"):
        results.mcnemar(1, 2, "fisher")  # type: ignore[arg-type]


@given(st.integers(0, 300), st.integers(0, 300))
def test_mid_p_is_never_above_the_exact_p(b: int, c: int) -> None:
    exact, mid = results.mcnemar(b, c), results.mcnemar(b, c, "mid-p")
    if b + c:
        assert exact.p_value is not None and mid.p_value is not None
        assert 0.0 < mid.p_value <= exact.p_value
