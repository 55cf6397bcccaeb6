"""SQL for the bulk reads of a publication bundle: everything of a study or design at once.

A bundle needs what the other store modules read one item or one run at a time (every judgment
and adjudication revision of a design, every finding revision, outputs and trace lines of all
current runs), so these queries read a whole study or design in one pass. Nothing is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sqlite_utils


@dataclass(frozen=True)
class StudyRow:
    id: str
    name: str
    protocol: str
    description: str
    rubric_id: str | None
    limitations: list[str]
    synthetic: bool


@dataclass(frozen=True)
class RunContentRow:
    document: dict[str, Any]
    """The run's stored record (it still carries its output, if any)."""
    output: str | None
    trace_pk: int | None


@dataclass(frozen=True)
class JudgmentRevision:
    item_code: str
    reviewer: str
    revision: int
    status: str
    payload: dict[str, Any]
    placement: dict[str, Any]
    reason: str | None
    seconds_spent: float | None
    created_at: str


@dataclass(frozen=True)
class AdjudicationRevision:
    item_code: str
    adjudicator: str
    revision: int
    payload: dict[str, Any]
    placement: dict[str, Any]
    note: str | None
    show_names: bool
    created_at: str


@dataclass(frozen=True)
class FindingRevision:
    pk: int
    id: str
    revision: int
    reviewer: str
    document: dict[str, Any]
    created_at: str


def study(db: sqlite_utils.Database, study_id: str) -> StudyRow | None:
    row = db.execute(
        "SELECT id, name, protocol, description, rubric_id, limitations, synthetic "
        "FROM studies WHERE id = ?",
        [study_id],
    ).fetchone()
    if row is None:
        return None
    return StudyRow(
        id=row[0],
        name=row[1],
        protocol=row[2],
        description=row[3],
        rubric_id=row[4],
        limitations=json.loads(row[5]),
        synthetic=bool(row[6]),
    )


def run_ids(db: sqlite_utils.Database, study_id: str) -> dict[int, str]:
    """Database key -> run id, for every version of every run of a study."""
    return {
        int(pk): str(run_id)
        for pk, run_id in db.execute(
            "SELECT pk, id FROM runs WHERE study_id = ?", [study_id]
        ).fetchall()
    }


def current_run_contents(db: sqlite_utils.Database, study_id: str) -> dict[int, RunContentRow]:
    """Database key -> stored record, output text and trace key, for each current run."""
    return {
        int(r[0]): RunContentRow(json.loads(r[1]), r[2], r[3])
        for r in db.execute(
            "SELECT r.pk, r.document, b.text, r.trace_pk FROM runs r "
            "LEFT JOIN blobs b ON b.sha256 = r.output_sha256 "
            "WHERE r.study_id = ? AND r.current = 1",
            [study_id],
        ).fetchall()
    }


def current_trace_lines(db: sqlite_utils.Database, study_id: str) -> dict[int, list[str]]:
    """Trace key -> raw event lines in order, for the traces of the study's current runs."""
    traces: dict[int, list[str]] = {}
    for trace_pk, raw in db.execute(
        "SELECT e.trace_pk, e.raw FROM trace_events e JOIN runs r ON r.trace_pk = e.trace_pk "
        "WHERE r.study_id = ? AND r.current = 1 ORDER BY e.trace_pk, e.seq",
        [study_id],
    ).fetchall():
        traces.setdefault(int(trace_pk), []).append(str(raw))
    return traces


def task_ids(db: sqlite_utils.Database, study_id: str) -> dict[int, str]:
    """Database key -> task id, for every task of a study."""
    return {
        int(pk): str(task_id)
        for pk, task_id in db.execute(
            "SELECT pk, id FROM tasks WHERE study_id = ?", [study_id]
        ).fetchall()
    }


def run_conditions(db: sqlite_utils.Database, study_id: str) -> dict[int, str]:
    """Run database key -> condition id, for every version of every run of a study."""
    return {
        int(pk): str(cond)
        for pk, cond in db.execute(
            "SELECT r.pk, c.id FROM runs r JOIN conditions c ON c.pk = r.condition_pk "
            "WHERE r.study_id = ?",
            [study_id],
        ).fetchall()
    }


def judgment_revisions(db: sqlite_utils.Database, design_pk: int) -> list[JudgmentRevision]:
    """Every judgment revision of a design, by item code, reviewer and revision."""
    return [
        JudgmentRevision(
            item_code=r[0],
            reviewer=r[1],
            revision=r[2],
            status=r[3],
            payload=json.loads(r[4]),
            placement=json.loads(r[5]),
            reason=r[6],
            seconds_spent=r[7],
            created_at=r[8],
        )
        for r in db.execute(
            "SELECT i.code, j.reviewer, j.revision, j.status, j.payload, j.placement, j.reason, "
            "j.seconds_spent, j.created_at FROM judgments j JOIN items i ON i.pk = j.item_pk "
            "WHERE i.design_pk = ? ORDER BY i.code, j.reviewer, j.revision",
            [design_pk],
        ).fetchall()
    ]


def adjudication_revisions(db: sqlite_utils.Database, design_pk: int) -> list[AdjudicationRevision]:
    """Every adjudication revision of a design, by item code and revision."""
    return [
        AdjudicationRevision(
            item_code=r[0],
            adjudicator=r[1],
            revision=r[2],
            payload=json.loads(r[3]),
            placement=json.loads(r[4]),
            note=r[5],
            show_names=bool(r[6]),
            created_at=r[7],
        )
        for r in db.execute(
            "SELECT i.code, a.adjudicator, a.revision, a.payload, a.placement, a.note, "
            "a.show_names, a.created_at FROM adjudications a JOIN items i ON i.pk = a.item_pk "
            "WHERE i.design_pk = ? ORDER BY i.code, a.revision",
            [design_pk],
        ).fetchall()
    ]


def finding_run_pks(db: sqlite_utils.Database, study_id: str) -> dict[int, list[int]]:
    """Finding database key -> database keys of the runs it names, for a study's findings."""
    out: dict[int, list[int]] = {}
    for finding_pk, run_pk in db.execute(
        "SELECT fr.finding_pk, fr.run_pk FROM finding_runs fr JOIN findings f "
        "ON f.pk = fr.finding_pk WHERE f.study_id = ?",
        [study_id],
    ).fetchall():
        out.setdefault(int(finding_pk), []).append(int(run_pk))
    return out


def finding_revisions(db: sqlite_utils.Database, study_id: str) -> list[FindingRevision]:
    """Every finding revision of a study, by finding id and revision."""
    return [
        FindingRevision(
            pk=int(r[0]),
            id=r[1],
            revision=r[2],
            reviewer=r[3],
            document=json.loads(r[4]),
            created_at=r[5],
        )
        for r in db.execute(
            "SELECT pk, id, revision, reviewer, document, created_at FROM findings "
            "WHERE study_id = ? ORDER BY id, revision",
            [study_id],
        ).fetchall()
    ]


def merged_pack_studies(db: sqlite_utils.Database) -> dict[str, str]:
    """Hash of each merged ratings file -> the study of the design its pack was made for."""
    return {
        str(sha): str(study_id)
        for sha, study_id in db.execute(
            "SELECT m.sha256, d.study_id FROM merges m JOIN packs p ON p.sha256 = m.pack_sha256 "
            "JOIN designs d ON d.pk = p.design_pk"
        ).fetchall()
    }
