"""Seed 002 section 5: "Repeat attempts are not 72 independent task types": beside each Wilson
interval over runs, an interval that resamples tasks and the number of distinct tasks, each
named; ABP studies keep their Wilson intervals only (seed 003).

Each test is one row of CONFORMANCE.md, driving the real services and commands on generated
records (:mod:`tests.conformance.seed_002.business_helpers`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import sqlite_utils

from abp_tui.stats.task_bootstrap import task_bootstrap
from tests.conformance.seed_002 import business_helpers as biz
from tests.factories import Cli


def _one_task_of_four(task: str, condition: str, trial: int) -> tuple[int, float | None]:
    """Under S only W01 meets brief, on all three attempts: 3/12 over runs, one task in four."""
    return (2 if condition == "M" or task == "W01" else 1), None


def test_several_attempts_per_task_get_a_task_resampling_interval_beside_wilson(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    biz.build(tmp_path, db, _one_task_of_four)
    done = cli("results", "--db", tmp_path / "test.db", "--json")
    business = json.loads(done.out)["business"]
    rows = {(r["condition"], r["figure"]): r for r in business["task_intervals"]}
    s = rows[("S", "pass rate")]
    assert (s["runs"]["x"], s["runs"]["n"], s["tasks"]["tasks"], s["max_attempts"]) == (3, 12, 4, 3)
    # Wilson over 12 runs (Newcombe 1998 method 3, z = 1.959964): 3/12 -> [0.0889, 0.5323].
    assert round(s["runs"]["low"], 4) == 0.0889 and round(s["runs"]["high"], 4) == 0.5323
    # Resampling the four tasks: the exact bootstrap distribution (Efron & Tibshirani 1993) of
    # the share of drawn tasks that are W01 puts (3/4)^4 = 0.316 on 0 and P(share >= 3/4) =
    # 4 (1/4)^3 (3/4) + (1/4)^4 = 0.051 > 0.025 > P(share = 1) = 0.004: the 95% percentile
    # interval is [0, 0.75], wider than Wilson's, which treats the attempts as independent.
    assert (s["tasks"]["low"], s["tasks"]["high"]) == (0.0, 0.75)
    assert s["tasks"]["seed"] == 11 and s["tasks"]["resamples_used"] == 2000
    text = cli("results", "--db", tmp_path / "test.db").out
    assert "Over runs x/n [Wilson 95%]" in text
    assert "Resampling tasks [95% cluster bootstrap]" in text and "Distinct tasks" in text
    assert "'over runs' is the Wilson interval" in text


def test_the_task_bootstrap_is_seeded_and_matches_its_exact_distribution() -> None:
    clusters = [(3, 3), (0, 3), (0, 3), (0, 3)]
    first = task_bootstrap(clusters, seed=5, confidence=0.95)
    assert first == task_bootstrap(clusters, seed=5, confidence=0.95)
    # Exact distribution of the resampled share (see the test above): P(0) = 81/256.
    draws = np.random.default_rng(5).integers(0, 4, size=(2000, 4))
    share_zero = float(((draws == 0).sum(axis=1) == 0).mean())
    assert abs(share_zero - 81 / 256) < 0.03
    assert (first.low, first.high, first.tasks) == (0.0, 0.75, 4)
    # One task: nothing to resample.
    assert task_bootstrap([(2, 3)], seed=5, confidence=0.95).undefined_reason == (
        "one task: resampling tasks needs at least two"
    )


def test_abp_studies_keep_their_wilson_intervals_only(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    lines = biz.study_lines()
    lines[0] = {**lines[0], "protocol": "abp"}
    biz.build(tmp_path, db, _one_task_of_four, lines=lines)
    business = json.loads(cli("results", "--db", tmp_path / "test.db", "--json").out)["business"]
    assert business["task_intervals"] == []
    assert (
        "abp studies keep their Wilson intervals over runs only" in business["task_intervals_note"]
    )
