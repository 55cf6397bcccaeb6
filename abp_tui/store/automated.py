"""The automated judge's outcomes: stored per run version, append-only, and read behind blinding.

A scorer (the sci-bench oracle scorer, :mod:`abp_tui.analysis.scibench_scoring`) scores a run's
answer dimension by dimension; the outcome is stored against the exact run version it scored,
with the hashes of the inputs it was computed from. Scoring the same inputs again adds nothing;
a new version of the run is unscored until scored again. A reviewer reads the outcomes of an
item's runs only once they have submitted their own judgment of that item: shown earlier, the
automated judge would anchor a blind reviewer (the same rule as other reviewers' judgments).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import sqlite_utils

from abp_tui.models import Model
from abp_tui.store.db import utc_now
from abp_tui.store.judging import BlindingError, has_submitted, item_run_ids


class AutomatedScore(Model):
    """One stored outcome of the automated judge for one run version."""

    run_id: str
    scorer: str
    outcome: str
    """passed or failed."""
    dimensions: list[dict[str, Any]]
    """Each dimension's ``{"dimension", "outcome", "reason"}``, in the specification's order."""
    document: dict[str, Any]
    spec_sha256: str
    submission_sha256: str
    created_at: str


class ScoreRow(Model):
    """What a scorer hands the store for one run."""

    run_id: str
    outcome: str
    dimensions: list[dict[str, Any]]
    document: dict[str, Any]


def current_run_pks(db: sqlite_utils.Database, study_id: str) -> dict[str, tuple[int, str]]:
    """Run id -> (pk, the metadata JSON) of the study's current runs."""
    rows = db.execute(
        "SELECT id, pk, json_extract(document, '$.metadata') FROM runs "
        "WHERE study_id = ? AND current = 1",
        [study_id],
    ).fetchall()
    return {r[0]: (r[1], r[2] or "{}") for r in rows}


def store_scores(
    db: sqlite_utils.Database,
    study_id: str,
    scorer: str,
    spec_sha256: str,
    submission_sha256: str,
    scores: Iterable[tuple[int, ScoreRow]],
) -> int:
    """Store each (run pk, score) once; returns how many were new. One transaction."""
    added = 0
    now = utc_now()
    with db.atomic():
        for run_pk, score in scores:
            cursor = db.execute(
                "INSERT OR IGNORE INTO automated_scores (study_id, run_pk, scorer, spec_sha256, "
                "submission_sha256, outcome, dimensions, document, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    study_id,
                    run_pk,
                    scorer,
                    spec_sha256,
                    submission_sha256,
                    score.outcome,
                    json.dumps(score.dimensions, ensure_ascii=False),
                    json.dumps(score.document, ensure_ascii=False, sort_keys=True),
                    now,
                ],
            )
            added += cursor.rowcount
    return added


_SELECT = """
SELECT r.id, s.scorer, s.outcome, s.dimensions, s.document, s.spec_sha256, s.submission_sha256,
  s.created_at
FROM automated_scores s JOIN runs r ON r.pk = s.run_pk
"""


def _score(r: Any) -> AutomatedScore:
    return AutomatedScore(
        run_id=r[0],
        scorer=r[1],
        outcome=r[2],
        dimensions=json.loads(r[3]),
        document=json.loads(r[4]),
        spec_sha256=r[5],
        submission_sha256=r[6],
        created_at=r[7],
    )


def study_scores(db: sqlite_utils.Database, study_id: str) -> dict[str, AutomatedScore]:
    """Run id -> the latest automated outcome of its current version (results, exports)."""
    rows = db.execute(
        _SELECT + "WHERE s.study_id = ? AND r.current = 1 ORDER BY s.pk", [study_id]
    ).fetchall()
    return {r[0]: _score(r) for r in rows}


def item_scores(db: sqlite_utils.Database, item_pk: int, viewer: str) -> dict[str, AutomatedScore]:
    """Run id -> the automated outcome of each run of an item, for a viewer who has submitted.

    Raises BlindingError for a viewer who has not submitted their own judgment of the item.
    """
    if not has_submitted(db, item_pk, viewer):
        raise BlindingError("submit your own judgment of this item before seeing the automated one")
    pks = item_run_ids(db, item_pk)
    if not pks:
        return {}
    marks = ", ".join("?" for _ in pks)
    rows = db.execute(_SELECT + f"WHERE s.run_pk IN ({marks}) ORDER BY s.pk", list(pks)).fetchall()
    return {r[0]: _score(r) for r in rows}
