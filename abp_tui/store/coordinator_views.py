"""SQL for who has seen a study's coordinator-level figures: an append-only record.

On an open design reviewers enrol themselves, so "the coordinator" cannot be told from a reviewer
by enrolment alone: anyone not yet enrolled would see every judgment summarized, then enrol and
judge, in an open design that exists now or one created later. Each first look at the
agreement, the disagreements, an adjudication, the results or the judges' report is recorded
here (one row per person, study, design and figure); :mod:`abp_tui.services.coordinator_identity`
decides whose, and refuses enrolment of anyone recorded. Rows are never changed or deleted
(triggers of migration 0010): having seen the figures cannot be undone.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

from abp_tui.store.db import utc_now

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class CoordinatorView:
    study_id: str
    design_pk: int | None
    """The design whose figures were seen; None for a study-level figure (imported labels)."""
    viewer: str
    figure: str
    """agreement, disagreements, adjudication, results or judges (the AI judges' report)."""
    viewed_at: str


def _read_only(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return (isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_READONLY) or (
        "readonly database" in str(exc)
    )


def record_view(
    db: sqlite_utils.Database, study_id: str, design_pk: int | None, viewer: str, figure: str
) -> bool:
    """Record a look unless the same one is already recorded (the first time is what counts).
    False when it is not on record and cannot be: the database is read-only (nothing changed);
    any other failure to write raises as every write does."""
    key = [study_id, design_pk, viewer, figure]
    with db.atomic():
        found = db.execute(
            "SELECT 1 FROM coordinator_views "
            "WHERE study_id = ? AND design_pk IS ? AND viewer = ? AND figure = ?",
            key,
        ).fetchone()
        if found is not None:
            return True
        try:
            db.execute(
                "INSERT INTO coordinator_views (study_id, design_pk, viewer, figure, viewed_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [*key, utc_now()],
            )
        except sqlite3.OperationalError as exc:
            if not _read_only(exc):
                raise
            return False  # a failed statement wrote nothing; the empty transaction ends
    return True


def views_by(db: sqlite_utils.Database, study_id: str, viewer: str) -> list[CoordinatorView]:
    """What ``viewer`` has seen of the study's coordinator-level figures, first look first."""
    rows = db.execute(
        "SELECT study_id, design_pk, viewer, figure, viewed_at FROM coordinator_views "
        "WHERE study_id = ? AND viewer = ? ORDER BY pk",
        [study_id, viewer],
    ).fetchall()
    return [
        CoordinatorView(str(r[0]), None if r[1] is None else int(r[1]), str(r[2]), str(r[3]), r[4])
        for r in rows
    ]


def last_pk(db: sqlite_utils.Database) -> int:
    """The key of the latest look recorded (0 for none): a mark to tell later looks by."""
    row = db.execute("SELECT COALESCE(MAX(pk), 0) FROM coordinator_views").fetchone()
    return int(row[0])


def first_pk(db: sqlite_utils.Database, study_id: str, viewer: str) -> int | None:
    """The key of ``viewer``'s first recorded look at the study, if any."""
    row = db.execute(
        "SELECT MIN(pk) FROM coordinator_views WHERE study_id = ? AND viewer = ?",
        [study_id, viewer],
    ).fetchone()
    return None if row[0] is None else int(row[0])


def open_designs_without(db: sqlite_utils.Database, study_id: str, viewer: str) -> bool:
    """Whether the study has an open design (no reviewer list: people enrol themselves) that
    ``viewer`` is not enrolled in: a design they could still enrol in."""
    row = db.execute(
        "SELECT 1 FROM designs d WHERE d.study_id = ? "
        "AND COALESCE(json_array_length(d.document, '$.reviewers'), 0) = 0 "
        "AND NOT EXISTS (SELECT 1 FROM enrolments e WHERE e.design_pk = d.pk AND e.reviewer = ?) "
        "LIMIT 1",
        [study_id, viewer],
    ).fetchone()
    return row is not None
