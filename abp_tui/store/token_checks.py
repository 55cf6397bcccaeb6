"""Which of a study's current runs have token totals nothing could check (seed 003 section 9).

An ABP trace's run.end totals are checked against its model.call events at import; a trace with
totals and no such event cannot be, and its importer marks the run's metadata
(:data:`abp_tui.analysis.matched_models.UNVERIFIED_MARK`). Results name those runs, as a
bundle does from its own run records. Nothing is written.
"""

from __future__ import annotations

import sqlite_utils

from abp_tui.analysis.matched_models import UNVERIFIED_MARK


def unverified_token_runs(db: sqlite_utils.Database, study_id: str) -> list[str]:
    """Ids of the study's current runs marked as having unverified token totals, sorted."""
    rows = db.execute(
        "SELECT id FROM runs WHERE study_id = ? AND current = 1 "
        "AND json_extract(document, ?) IS NOT NULL ORDER BY id",
        [study_id, f"$.metadata.{UNVERIFIED_MARK}"],
    ).fetchall()
    return [r[0] for r in rows]
