"""Seed 004's results view of a study, read from the database: its runs' traits (synthetic,
abstained) and the status its records declared at import (:mod:`abp_tui.analysis.scibench_results`
has the rules; a bundle's ``verify`` applies them to the bundle's own records)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlite_utils

from abp_tui.analysis.scibench_results import (
    SciBenchResults,
    all_traits,
    applies,
    declared_status,
    scibench_results,
)
from abp_tui.models import Rubric, RunFacts, RunOutcome
from abp_tui.store import bulk


def study_scibench(
    db: sqlite_utils.Database,
    study_id: str,
    rubric: Rubric,
    runs: Sequence[RunFacts],
    run_outcomes: Sequence[RunOutcome],
    judge_dimensions: Mapping[str, Sequence[Mapping[str, Any]]],
) -> SciBenchResults | None:
    """The seed 004 counts of a design's results, or None when its rubric is not one that
    scores abstention."""
    study = bulk.study(db, study_id)
    if not applies(rubric, study.protocol if study else ""):
        return None
    traits = all_traits((r.facts.id, r.record) for r in bulk.current_runs(db, study_id))
    status = declared_status(study.description if study else "")
    return scibench_results(rubric, runs, run_outcomes, judge_dimensions, traits, status)
