"""Read-side queries: summaries of what is stored, returned as models, never as SQL rows."""

from __future__ import annotations

import json

import sqlite_utils

from abp_tui.models import Condition, Model, Run, Task


class StudySummary(Model):
    """A study with the counts the home screen and ``abp-tui status`` show."""

    id: str
    name: str
    protocol: str
    description: str
    rubric_id: str | None
    synthetic: bool
    tasks: int
    conditions: int
    runs: int
    excluded_runs: int
    trace_events: int
    preferences: int
    imports: int


class ConditionSummary(Model):
    condition: Condition
    runs: int


class TaskSummary(Model):
    task: Task
    runs: int
    placeholder: bool


class RunSummary(Model):
    """One current run with what a list needs (no output text)."""

    id: str
    task_id: str
    condition_id: str
    trial: int
    version_no: int
    origin_status: str | None
    automated_outcome: str | None
    excluded_reason: str | None
    output_sha256: str | None
    output_chars: int | None
    trace_events: int
    synthetic: bool


def list_studies(db: sqlite_utils.Database) -> list[StudySummary]:
    rows = db.execute(
        """
        SELECT s.id, s.name, s.protocol, s.description, s.rubric_id, s.synthetic,
          (SELECT COUNT(*) FROM tasks t WHERE t.study_id = s.id AND t.current = 1),
          (SELECT COUNT(*) FROM conditions c WHERE c.study_id = s.id AND c.current = 1),
          (SELECT COUNT(*) FROM runs r WHERE r.study_id = s.id AND r.current = 1),
          (SELECT COUNT(*) FROM runs r WHERE r.study_id = s.id AND r.current = 1
             AND (r.excluded_reason IS NOT NULL OR r.origin_status IN
                  ('INFRA_ERROR', 'PROVIDER_BLOCK', 'INVALID_TEST', 'GRADER_DISPUTE'))),
          (SELECT COALESCE(SUM(tr.n_events), 0) FROM runs r JOIN traces tr ON tr.pk = r.trace_pk
             WHERE r.study_id = s.id AND r.current = 1),
          (SELECT COUNT(*) FROM preferences p WHERE p.study_id = s.id),
          (SELECT COUNT(*) FROM imports i WHERE i.study_id = s.id)
        FROM studies s ORDER BY s.id
        """
    ).fetchall()
    return [
        StudySummary(
            id=r[0],
            name=r[1],
            protocol=r[2],
            description=r[3],
            rubric_id=r[4],
            synthetic=bool(r[5]),
            tasks=r[6],
            conditions=r[7],
            runs=r[8],
            excluded_runs=r[9],
            trace_events=r[10],
            preferences=r[11],
            imports=r[12],
        )
        for r in rows
    ]


def study_conditions(db: sqlite_utils.Database, study_id: str) -> list[ConditionSummary]:
    rows = db.execute(
        """
        SELECT c.id, c.label, c.instructions, c.version, c.metadata,
          (SELECT COUNT(*) FROM runs r WHERE r.condition_pk = c.pk AND r.current = 1)
        FROM conditions c WHERE c.study_id = ? AND c.current = 1 ORDER BY c.id
        """,
        [study_id],
    ).fetchall()
    return [
        ConditionSummary(
            condition=Condition(
                id=r[0], label=r[1], instructions=r[2], version=r[3], metadata=json.loads(r[4])
            ),
            runs=r[5],
        )
        for r in rows
    ]


def study_tasks(db: sqlite_utils.Database, study_id: str) -> list[TaskSummary]:
    rows = db.execute(
        """
        SELECT t.id, t.title, t.prompt, t.base_instruction, t.evidence, t.expected_behaviour,
          t.fatal_criteria, t.risk_type, t.version, t.synthetic, t.metadata, t.placeholder,
          (SELECT COUNT(*) FROM runs r WHERE r.task_pk = t.pk AND r.current = 1)
        FROM tasks t WHERE t.study_id = ? AND t.current = 1 ORDER BY t.id
        """,
        [study_id],
    ).fetchall()
    return [
        TaskSummary(
            task=Task(
                id=r[0],
                title=r[1],
                prompt=r[2],
                base_instruction=r[3],
                evidence=r[4],
                expected_behaviour=r[5],
                fatal_criteria=tuple(json.loads(r[6])),
                risk_type=r[7],
                version=r[8],
                synthetic=bool(r[9]),
                metadata=json.loads(r[10]),
            ),
            runs=r[12],
            placeholder=bool(r[11]),
        )
        for r in rows
    ]


def study_runs(db: sqlite_utils.Database, study_id: str) -> list[RunSummary]:
    rows = db.execute(
        """
        SELECT r.id, t.id, c.id, r.trial, r.version_no, r.origin_status, r.automated_outcome,
          r.excluded_reason, r.output_sha256, LENGTH(b.text), COALESCE(tr.n_events, 0),
          r.synthetic
        FROM runs r JOIN tasks t ON t.pk = r.task_pk JOIN conditions c ON c.pk = r.condition_pk
        LEFT JOIN blobs b ON b.sha256 = r.output_sha256 LEFT JOIN traces tr ON tr.pk = r.trace_pk
        WHERE r.study_id = ? AND r.current = 1 ORDER BY t.id, c.id, r.trial, r.id
        """,
        [study_id],
    ).fetchall()
    return [
        RunSummary(
            id=r[0],
            task_id=r[1],
            condition_id=r[2],
            trial=r[3],
            version_no=r[4],
            origin_status=r[5],
            automated_outcome=r[6],
            excluded_reason=r[7],
            output_sha256=r[8],
            output_chars=r[9],
            trace_events=r[10],
            synthetic=bool(r[11]),
        )
        for r in rows
    ]


def load_run(db: sqlite_utils.Database, study_id: str, run_id: str) -> Run | None:
    """The current version of a run, with its output."""
    row = db.execute(
        "SELECT r.document, b.text FROM runs r LEFT JOIN blobs b ON b.sha256 = r.output_sha256 "
        "WHERE r.study_id = ? AND r.id = ? AND r.current = 1",
        [study_id, run_id],
    ).fetchone()
    if row is None:
        return None
    doc = json.loads(row[0])
    doc["output"] = row[1]
    return Run.model_validate(doc)


def count(db: sqlite_utils.Database, table: str) -> int:
    """Row count of one of the store's tables (for reports and tests)."""
    allowed = {
        "studies",
        "tasks",
        "conditions",
        "runs",
        "traces",
        "trace_events",
        "blobs",
        "preferences",
        "reviewers",
        "reference_verdicts",
        "rubrics",
        "imports",
        "audit_log",
    }
    if table not in allowed:
        raise ValueError(f"unknown table {table!r}")
    return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def import_seen(db: sqlite_utils.Database, sha256: str, study_id: str | None) -> str | None:
    """When a file with this hash was already imported (into this study, if named)."""
    if study_id is None:
        row = db.execute(
            "SELECT imported_at FROM imports WHERE sha256 = ? ORDER BY pk LIMIT 1", [sha256]
        ).fetchone()
    else:
        row = db.execute(
            "SELECT imported_at FROM imports WHERE sha256 = ? AND study_id = ? ORDER BY pk LIMIT 1",
            [sha256, study_id],
        ).fetchone()
    return str(row[0]) if row else None


class RunFacts(Model):
    """What results need of a current run: identity, automated outcome, efficiency figures."""

    pk: int
    id: str
    task_id: str
    condition_id: str
    trial: int
    origin_status: str | None
    automated_outcome: str | None
    excluded_reason: str | None
    total_tokens: int | None
    wall_clock_ms: float | None
    cost_usd: float | None
    diff_bytes: float | None


def _diff_bytes(metadata: dict[str, object]) -> float | None:
    for key in ("diffBytesNormalized", "diff_bytes"):
        value = metadata.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    activity = metadata.get("activity")
    if isinstance(activity, dict):
        value = activity.get("diffBytes")
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def run_facts(db: sqlite_utils.Database, study_id: str) -> list[RunFacts]:
    rows = db.execute(
        """
        SELECT r.pk, r.id, t.id, c.id, r.trial, r.origin_status, r.automated_outcome,
          r.excluded_reason, COALESCE(r.total_tokens, r.input_tokens + r.output_tokens),
          r.wall_clock_ms, r.cost_usd, json_extract(r.document, '$.metadata')
        FROM runs r JOIN tasks t ON t.pk = r.task_pk JOIN conditions c ON c.pk = r.condition_pk
        WHERE r.study_id = ? AND r.current = 1 ORDER BY c.id, t.id, r.trial, r.id
        """,
        [study_id],
    ).fetchall()
    return [
        RunFacts(
            pk=r[0],
            id=r[1],
            task_id=r[2],
            condition_id=r[3],
            trial=r[4],
            origin_status=r[5],
            automated_outcome=r[6],
            excluded_reason=r[7],
            total_tokens=r[8],
            wall_clock_ms=r[9],
            cost_usd=r[10],
            diff_bytes=_diff_bytes(json.loads(r[11]) if r[11] else {}),
        )
        for r in rows
    ]


def study_protocol(db: sqlite_utils.Database, study_id: str) -> str | None:
    row = db.execute("SELECT protocol FROM studies WHERE id = ?", [study_id]).fetchone()
    return str(row[0]) if row else None


def unblinded(db: sqlite_utils.Database, study_id: str) -> tuple[str, str] | None:
    """(who, when) of the study's unblinding, or None while it is blind."""
    row = db.execute(
        "SELECT actor, at FROM audit_log WHERE action = 'unblind' AND "
        "json_extract(detail, '$.study') = ? ORDER BY pk LIMIT 1",
        [study_id],
    ).fetchone()
    return (str(row[0]), str(row[1])) if row else None


def imported_preferences(db: sqlite_utils.Database, study_id: str) -> list[tuple[str, str, str]]:
    """(item id, reviewer, choice) of a study's imported preference labels, in stored order."""
    rows = db.execute(
        "SELECT item_id, reviewer, choice FROM preferences WHERE study_id = ? AND "
        "source = 'imported' ORDER BY pk",
        [study_id],
    ).fetchall()
    return [(str(r[0]), str(r[1]), str(r[2])) for r in rows]
