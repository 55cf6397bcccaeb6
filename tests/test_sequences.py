"""Confidence sequences for a pass rate or a win rate (abp_tui.stats.sequences): the same
intervals as the confseq package on fixed streams, and anytime coverage by simulation."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from abp_tui.stats.sequences import (
    betting_sequence,
    first_exclusion,
    mixture_rho,
    mixture_sequence,
    plug_in_bets,
)

# Computed by confseq 0.0.11 (betting.hedged_cs and conjmix_bounded.conjmix_hoeffding_twosided_cs)
# with tests/reference_values/make_confseq.py: confseq needs NumPy < 2 and Boost to build, so
# its outputs are kept here rather than the package in the dev dependencies.
CONFSEQ = json.loads(
    (Path(__file__).parent / "reference_values" / "confseq_sequences.json").read_text("utf-8")
)["cases"]


@pytest.mark.parametrize(
    "case",
    CONFSEQ,
    ids=lambda c: f"{c['stream']} alpha={c['alpha']} run={c['running_intersection']}",
)
def test_the_betting_sequence_is_confseqs_hedged_cs(case: dict[str, Any]) -> None:
    x = np.asarray(case["x"])
    low, high = (np.asarray(v) for v in case["hedged_cs"])
    ours = betting_sequence(x, 1 - float(case["alpha"]), running=bool(case["running_intersection"]))
    # The same grid and the same products in the same order: the same bounds, exactly.
    np.testing.assert_array_equal(ours.low, low)
    np.testing.assert_array_equal(ours.high, high)


@pytest.mark.parametrize(
    "case",
    CONFSEQ,
    ids=lambda c: f"{c['stream']} alpha={c['alpha']} run={c['running_intersection']}",
)
def test_the_mixture_sequence_is_confseqs_conjmix_hoeffding(case: dict[str, Any]) -> None:
    x = np.asarray(case["x"])
    low, high = (np.asarray(v) for v in case["conjmix_hoeffding_twosided_cs_t_opt_100"])
    ours = mixture_sequence(
        x,
        1 - float(case["alpha"]),
        t_opt=100,
        running=bool(case["running_intersection"]),
    )
    np.testing.assert_allclose(ours.low, low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.high, high, rtol=0, atol=1e-12)


def test_the_mixture_radius_is_howard_et_al_closed_form_by_hand() -> None:
    # alpha = 0.05, t_opt = 100: rho = 25 / (2 log 20 + log(1 + 2 log 20)).
    rho = 25 / (2 * math.log(20) + math.log(1 + 2 * math.log(20)))
    assert mixture_rho(100, 0.05) == pytest.approx(rho, rel=1e-15)
    x = np.full(100, 0.5)
    radius = math.sqrt((25 + rho) * (math.log(1 + 25 / rho) + 2 * math.log(20))) / 100
    seq = mixture_sequence(x, 0.95, t_opt=100)
    assert seq.low[-1] == pytest.approx(0.5 - radius, abs=1e-15)
    assert seq.high[-1] == pytest.approx(0.5 + radius, abs=1e-15)


def test_the_plug_in_bets_use_only_the_past() -> None:
    x = np.array([1.0, 0.0, 1.0, 1.0])
    bets = plug_in_bets(x, 0.025)
    changed = plug_in_bets(np.array([1.0, 0.0, 1.0, 0.0]), 0.025)
    np.testing.assert_array_equal(bets, changed)  # the last value moves no bet
    # The first bet: prior variance 1/4, t = 1: sqrt(2 log 40 / (1 * log 2 * 1/4)).
    assert bets[0] == pytest.approx(math.sqrt(2 * math.log(40) / (math.log(2) / 4)))


def _covers_always(low: np.ndarray, high: np.ndarray, mean: float) -> bool:
    return bool(np.all((low <= mean) & (mean <= high)))


@pytest.mark.parametrize(
    ("kind", "draw", "mean"),
    [
        ("pass rate", lambda rng, n: (rng.random(n) < 0.3).astype(float), 0.3),
        (
            "win rate with ties",
            lambda rng, n: rng.choice([0.0, 0.5, 1.0], n, p=[0.5, 0.3, 0.2]),
            0.35,
        ),
    ],
)
def test_both_sequences_cover_the_mean_at_all_times_in_95_percent_of_streams(
    kind: str, draw: Any, mean: float
) -> None:
    rng = np.random.default_rng(11)
    streams, length = 300, 150
    betting = mixture = 0
    for _ in range(streams):
        x = draw(rng, length)
        seq = betting_sequence(x, 0.95)
        betting += _covers_always(seq.low, seq.high, mean)
        seq = mixture_sequence(x, 0.95, t_opt=50)
        mixture += _covers_always(seq.low, seq.high, mean)
    # 95% with Monte Carlo slack: 3 standard errors of a proportion 0.95 over 300 streams.
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / streams)
    assert betting / streams >= floor, kind
    assert mixture / streams >= floor, kind


def test_a_fixed_sample_interval_watched_every_time_would_fail_that_check() -> None:
    # The check above has teeth: the 95% normal interval, looked at after every value, misses
    # the mean at some time in far more than 5% of the streams.
    rng = np.random.default_rng(11)
    streams, length, misses = 300, 150, 0
    t = np.arange(1, length + 1)
    for _ in range(streams):
        x = (rng.random(length) < 0.3).astype(float)
        mean = np.cumsum(x) / t
        sd = np.sqrt(np.maximum(mean * (1 - mean), 1e-12) / t)
        misses += not _covers_always(mean - 1.96 * sd, mean + 1.96 * sd, 0.3)
    assert misses / streams > 0.15


def test_the_stopping_rule_fires_when_the_sequence_excludes_one_half() -> None:
    x = np.ones(40)
    seq = betting_sequence(x, 0.95)
    t = first_exclusion(seq, 0.5)
    assert t is not None
    assert seq.low[t - 1] > 0.5 and seq.low[t - 2] <= 0.5
    balanced = betting_sequence(np.tile([0.0, 1.0], 50), 0.95)
    assert first_exclusion(balanced, 0.5) is None


@pytest.mark.parametrize("bad", [[], [0.2, 1.5], [math.nan]])
def test_values_outside_zero_one_are_refused(bad: list[float]) -> None:
    with pytest.raises(ValueError):
        betting_sequence(np.asarray(bad), 0.95)
    with pytest.raises(ValueError):
        mixture_sequence(np.asarray(bad), 0.95)
