"""The plan of one judge-assisted rate (abp_tui.analysis.human_budget): people alone from their
variance, with the judge from the PPI++ design effect measured now."""

from __future__ import annotations

import math

import numpy as np

from abp_tui.analysis.human_budget import _rate
from abp_tui.analysis.judges.estimates import JudgeAssisted, LabelledSet, statement
from abp_tui.stats.planning import normal_n, wilson_n
from abp_tui.stats.ppi import ppi_mean


def _assisted(accuracy: float) -> JudgeAssisted:
    rng = np.random.default_rng(8)
    truth = (rng.random(20_200) < 0.3).astype(float)
    judge = np.where(rng.random(20_200) < accuracy, truth, 1 - truth)
    estimate = ppi_mean(truth[:200], judge[:200], judge[200:], tuned=True)
    labelled = LabelledSet(calibration=False, n=200)
    return JudgeAssisted(
        figure="pass rate of A",
        estimate=estimate,
        human_without_verdict=0,
        labelled=labelled,
        assumption=statement(labelled),
    )


def test_a_good_judge_cuts_the_count_by_its_design_effect() -> None:
    found = _assisted(0.95)
    plan = _rate("judge", found, 0.02, 0.95)
    p = found.estimate.human_only.point
    assert p is not None
    assert plan.without_judge == normal_n(p * (1 - p), 0.02)
    assert plan.without_judge_wilson == wilson_n(p, 0.02)
    effective = found.estimate.effective_human_judgments
    assert effective is not None and plan.design_effect is not None
    assert math.isclose(plan.design_effect, 200 / effective, rel_tol=1e-9)
    assert plan.with_judge == normal_n(p * (1 - p) * plan.design_effect, 0.02)
    # A judge right 95% of the time on a 30% pass rate: rho^2 about 0.78, so d about 0.22 (N
    # is 100 times n, so the judge's own term barely counts).
    assert 0.12 < plan.design_effect < 0.35
    assert plan.with_judge is not None and plan.with_judge < plan.without_judge / 2
    assert plan.more_with_judge == plan.with_judge - 200


def test_a_useless_judge_leaves_the_count_as_it_was() -> None:
    plan = _rate("judge", _assisted(0.5), 0.02, 0.95)
    assert plan.design_effect is not None and plan.with_judge is not None
    assert plan.design_effect > 0.95  # PPI++ tunes lambda to about 0: people alone
    assert plan.without_judge is not None and plan.with_judge >= 0.95 * plan.without_judge
