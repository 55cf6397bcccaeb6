"""Agreement from integer columns is agreement from records (issue #31).

A large design's observations are folded into (unit, reviewer, category index) columns rather
than (item, reviewer, value) tuples of strings; the figures computed from the columns
(:func:`compute_coded`) must be those :func:`compute_all` gives the same judgments as records,
whatever the units are numbered and in whatever order the judgments come.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sqlite_utils

from abp_tui.analysis.agreement.input import agreement_input
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.results_report import unblind
from abp_tui.stats.agreement import AgreementError, compute_all, declared_categories
from abp_tui.stats.agreement_coded import CodedVariable, compute_coded
from abp_tui.store import judging
from tests.factories import two_reviewer_design_judged

LEVELS = {"nominal": ("x", "y", "z"), "ordinal": (1, 2, 3, 4), "interval": (0, 1, 2, 3, 4, 5)}


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_columns_give_the_records_figures(level: str) -> None:
    rng = np.random.default_rng(5)
    scale = LEVELS[level]
    categories = declared_categories(level, scale, "v")
    names = ("carol", "alice", "bob", "dan")
    records = []
    for item in range(60):
        for r in rng.choice(4, size=int(rng.integers(1, 5)), replace=False).tolist():
            records.append((f"item-{item}", names[r], categories[int(rng.integers(len(scale)))]))
    expected = compute_all({"v": records}, {"v": level}, {"v": scale}, seed=4, pair_resamples=100)
    # Units numbered sparsely and the judgments shuffled: only which share a unit counts.
    order = rng.permutation(len(records))
    shuffled = [records[k] for k in order.tolist()]
    coded = CodedVariable(
        variable="v",
        level=level,
        categories=categories,
        reviewers=names,
        unit=np.array([7 * int(i.split("-")[1]) + 3 for i, _r, _v in shuffled], dtype=np.int64),
        reviewer=np.array([names.index(r) for _i, r, _v in shuffled], dtype=np.int64),
        value=np.array([categories.index(v) for _i, _r, v in shuffled], dtype=np.int64),
    )
    assert compute_coded([coded], seed=4, pair_resamples=100) == expected


def test_a_reviewer_judging_a_unit_twice_is_refused() -> None:
    coded = CodedVariable(
        variable="v",
        level="nominal",
        categories=("x", "y"),
        reviewers=("a", "b"),
        unit=np.array([0, 0, 0, 1], dtype=np.int64),
        reviewer=np.array([0, 1, 0, 1], dtype=np.int64),
        value=np.array([0, 1, 1, 1], dtype=np.int64),
    )
    with pytest.raises(AgreementError, match="reviewer 'a' judged one unit more than once"):
        compute_coded([coded])


def test_a_design_folded_into_columns_has_its_records_figures(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """On a scored design (dimensions, total, state, fatal flags and the preference) with a
    revision after submission: the study's figures are those of the design's records."""
    pk, _codes = two_reviewer_design_judged(tmp_path, db)
    unblind(db, "s", "carol")  # the preference's counts are shown once unblinded
    found = agreement_input(judging.records_of_design(db, pk, with_runs=False))
    # Drawn with the design's seed, as the bundle draws them (the command's default).
    seed = judging.design(db, pk).seed
    expected = compute_all(found.records, found.levels, found.scales, seed, pair_resamples=100)
    report = study_agreement(db, "s", pk, pair_resamples=100)
    assert report.seed == seed
    assert len(expected.variables) > 4
    assert report.variables == expected.variables
