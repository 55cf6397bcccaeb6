"""Using a judge honestly: a seeded calibration sample people judge first, the rest of the queue
where the judges are least trustworthy, and judge-assisted estimates cross-checked against
ppi-python."""

from __future__ import annotations

import numpy as np
import pytest
from ppi_py import ppi_mean_ci

from abp_tui.analysis.judges.arrays import VerdictTable
from abp_tui.analysis.judges.queue import (
    FATAL_NAMED,
    JUDGES_DISAGREE,
    ORDERS_DISAGREE,
    calibration_sample,
    review_order,
)
from abp_tui.analysis.judges.report import PreferenceJudgeReport, judges_report
from abp_tui.analysis.judges.units import Reference, VerdictRow


def _pref(judge: str, a: str, b: str, first: str, winner: str, text: str = "") -> VerdictRow:
    return VerdictRow(judge, (a, b), first, None, "preference", winner, None, None, True, text)


def test_calibration_sample_is_seeded_and_sized() -> None:
    codes = [f"P-{i:04d}" for i in range(95)]
    sample = calibration_sample(codes, 0.1, seed=11)
    assert len(sample) == 10 and sample <= set(codes)  # ceil(9.5)
    assert calibration_sample(codes, 0.1, seed=11) == sample
    assert calibration_sample(codes, 0.1, seed=12) != sample
    with pytest.raises(ValueError):
        calibration_sample(codes, 0, seed=1)


def test_the_queue_puts_distrusted_items_first_after_the_calibration_sample() -> None:
    items = [(f"P{i}", (f"x{i}", f"y{i}")) for i in range(1, 6)]
    rows = [
        # P1: both judges agree, in both orders.
        _pref("j1", "x1", "y1", "x1", "x1"),
        _pref("j1", "x1", "y1", "y1", "x1"),
        _pref("j2", "x1", "y1", "x1", "x1"),
        # P2: j1's two orders disagree.
        _pref("j1", "x2", "y2", "x2", "x2"),
        _pref("j1", "x2", "y2", "y2", "y2"),
        # P3: j1 and j2 disagree.
        _pref("j1", "x3", "y3", "x3", "x3"),
        _pref("j2", "x3", "y3", "x3", "y3"),
        # P4: the explanation names the task's fatal criterion.
        _pref("j1", "x4", "y4", "x4", "x4", "Response A USES 30 DAYS, which is wrong."),
    ]
    criteria = {("x4", "y4"): ("Uses 30 days",)}
    table = VerdictTable.from_rows(rows)
    order = review_order(items, table, criteria, share=None, seed=1)
    assert [q.code for q in order] == ["P4", "P2", "P3", "P1", "P5"]
    reasons = {q.code: q.reasons for q in order}
    assert reasons["P4"] == (FATAL_NAMED,)
    assert reasons["P2"] == (ORDERS_DISAGREE,)
    assert reasons["P3"] == (JUDGES_DISAGREE,)
    assert reasons["P1"] == reasons["P5"] == ()
    sampled = review_order(items, table, criteria, share=0.4, seed=5)
    calibration = [q.code for q in sampled if q.calibration]
    assert len(calibration) == 2
    assert [q.code for q in sampled[:2]] == sorted(calibration, key=lambda c: int(c[1:]))


def test_judge_assisted_win_rate_matches_ppi_python() -> None:
    rng = np.random.default_rng(21)
    n_pairs = 600
    conditions: dict[str, str] = {}
    pairs: dict[tuple[str, str], str] = {}
    rows: list[VerdictRow] = []
    y: list[float] = []
    yhat: list[float] = []
    unlabeled: list[float] = []
    for i in range(n_pairs):
        a, b = f"a{i:04d}", f"b{i:04d}"
        conditions[a], conditions[b] = "A", "B"
        truth = a if rng.random() < 0.65 else b
        picks = [truth if rng.random() < 0.8 else (b if truth == a else a) for _ in range(2)]
        rows.append(_pref("j", a, b, a, picks[0]))
        rows.append(_pref("j", a, b, b, picks[1]))
        judged = sum(p == a for p in picks) / 2
        if i % 5 == 0:  # people judged every fifth pair (the calibration sample)
            pairs[(a, b)] = truth
            y.append(1.0 if truth == a else 0.0)
            yhat.append(judged)
        else:
            unlabeled.append(judged)
    reference = Reference(name="t", kind="final", pairs=pairs, conditions=conditions)
    (judge,) = judges_report("s", [], rows, reference, resamples=0).judges
    assert isinstance(judge, PreferenceJudgeReport)
    (found,) = judge.estimates
    assert found.figure == "win rate of A against B"
    estimate = found.estimate
    low, high = ppi_mean_ci(np.array(y), np.array(yhat), np.array(unlabeled), alpha=0.05)
    assert estimate.low == pytest.approx(float(low[0]), abs=1e-12)
    assert estimate.high == pytest.approx(float(high[0]), abs=1e-12)
    assert (estimate.n_human, estimate.n_judge_only) == (120, 480)
    assert estimate.human_only.n == 120
