"""A read-only overview of a database: each study with its counts, the runs of each condition
and task, each design and each reviewer's progress. It is what ``abp-tui status`` prints.

Standard library only (``sqlite3``, dataclasses): importing sqlite-utils and building the
pydantic models would each cost more than the whole command may take. It never writes and never
migrates: a database that is missing or not at the current schema is opened by
:func:`abp_tui.store.connect` instead, which creates or migrates it (and refuses a file that is
not a database, or one written by a newer abp-tui) exactly as every other command does.

The study counts and the reviewer progress are declared here once; ``queries.list_studies`` and
``judging.progress`` read them through this module.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from abp_tui.store import ownership
from abp_tui.store.schema import MIGRATIONS
from abp_tui.text.natural import natural_key  # standard library only, as this module

BUSY_TIMEOUT_S = 5.0
OUTSIDE_DENOMINATOR = ("INFRA_ERROR", "PROVIDER_BLOCK", "INVALID_TEST", "GRADER_DISPUTE")
"""The result states kept visible but outside the quality denominator, spelled out here so that
status need not import the models (a test checks they are ``ResultState``'s own)."""
"""As long as ``store.connect`` waits for a writer: a status during an import waits, not fails."""


@dataclass(frozen=True)
class StudyCounts:
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


@dataclass(frozen=True)
class ReviewerProgress:
    reviewer: str
    assigned: int
    submitted: int
    drafts: int


@dataclass(frozen=True)
class CountedRuns:
    """A condition or task by id (and label, for a condition) with its current runs."""

    id: str
    label: str
    runs: int


@dataclass(frozen=True)
class DesignProgress:
    """One version of a study design with each reviewer's progress."""

    name: str
    version_no: int
    sha256: str
    frozen_at: str | None
    progress: list[ReviewerProgress]


@dataclass(frozen=True)
class JudgeCount:
    """An AI judge of a study with how many verdicts it gave there, by kind (preference, score,
    pass_fail). Blind-safe: who judged and how much, never what they picked for which condition."""

    id: str
    model: str
    verdicts: int
    kinds: dict[str, int]


@dataclass(frozen=True)
class StudyOverview:
    study: StudyCounts
    conditions: list[CountedRuns]
    tasks: list[CountedRuns]
    designs: list[DesignProgress] = field(default_factory=list)
    judges: list[JudgeCount] = field(default_factory=list)


def read(path: Path) -> list[StudyOverview]:
    """Every study of the database at ``path`` with its conditions, tasks and designs."""
    conn = _open_current(path)
    if conn is None:
        from abp_tui.store.db import connect

        conn = connect(path).conn
    try:
        return [
            StudyOverview(
                study,
                _counted(conn, _CONDITION_RUNS, study.id),
                sorted(_counted(conn, _TASK_RUNS, study.id), key=lambda t: natural_key(t.id)),
                [
                    DesignProgress(name, version_no, sha256, frozen_at, progress(conn, pk))
                    for pk, name, version_no, sha256, frozen_at in conn.execute(
                        "SELECT pk, name, version_no, sha256, frozen_at FROM designs "
                        "WHERE study_id = ? ORDER BY name, version_no",
                        [study.id],
                    ).fetchall()
                ],
                judges(conn, study.id),
            )
            for study in studies(conn)
        ]
    finally:
        conn.close()


def judges(conn: sqlite3.Connection, study_id: str) -> list[JudgeCount]:
    """The AI judges with verdicts on the study (by judge id; its models joined when versions of
    it name several), with their verdicts counted by kind."""
    found: dict[str, tuple[list[str], dict[str, int]]] = {}
    for judge_id, model, kind, n in conn.execute(
        "SELECT j.id, j.model, v.kind, count(*) FROM judge_verdicts v "
        "JOIN judges j ON j.pk = v.judge_pk WHERE v.study_id = ? "
        "GROUP BY j.id, j.model, v.kind ORDER BY j.id, j.model, v.kind",
        [study_id],
    ).fetchall():
        models, kinds = found.setdefault(str(judge_id), ([], {}))
        if model not in models:
            models.append(str(model))
        kinds[str(kind)] = kinds.get(str(kind), 0) + int(n)
    return [
        JudgeCount(judge_id, ", ".join(models), sum(kinds.values()), kinds)
        for judge_id, (models, kinds) in sorted(found.items(), key=lambda kv: natural_key(kv[0]))
    ]


def unblinded(conn: sqlite3.Connection, study_id: str) -> tuple[str, str] | None:
    """(who, when) of the study's unblinding (its first audit entry), or None while it is blind."""
    row = conn.execute(
        "SELECT actor, at FROM audit_log WHERE action = 'unblind' AND "
        "json_extract(detail, '$.study') = ? ORDER BY pk LIMIT 1",
        [study_id],
    ).fetchone()
    return (str(row[0]), str(row[1])) if row else None


def _open_current(path: Path) -> sqlite3.Connection | None:
    """The database opened for reading when it is ours, writable, and at the current schema,
    else None. A file that is not ours is refused here, before SQLite opens it."""
    if str(path) == ":memory:":
        return None
    if ownership.check(path).kind == "new" or not ownership.writable(path):
        return None
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error:
        return None
    try:
        applied = {row[0] for row in conn.execute("SELECT name FROM _migrations").fetchall()}
    except sqlite3.Error:
        conn.close()
        return None
    if applied != {name for name, _ in MIGRATIONS}:
        conn.close()
        return None
    return conn


def studies(conn: sqlite3.Connection) -> list[StudyCounts]:
    """Every study, by id, with its counts of current tasks, conditions and runs."""
    rows = conn.execute(
        """
        SELECT s.id, s.name, s.protocol, s.description, s.rubric_id, s.synthetic,
          (SELECT COUNT(*) FROM tasks t WHERE t.study_id = s.id AND t.current = 1),
          (SELECT COUNT(*) FROM conditions c WHERE c.study_id = s.id AND c.current = 1),
          (SELECT COUNT(*) FROM runs r WHERE r.study_id = s.id AND r.current = 1),
          (SELECT COUNT(*) FROM runs r WHERE r.study_id = s.id AND r.current = 1
             AND (r.excluded_reason IS NOT NULL OR r.origin_status IN ({outside}))),
          (SELECT COALESCE(SUM(tr.n_events), 0) FROM runs r JOIN traces tr ON tr.pk = r.trace_pk
             WHERE r.study_id = s.id AND r.current = 1),
          (SELECT COUNT(*) FROM preferences p WHERE p.study_id = s.id),
          (SELECT COUNT(*) FROM imports i WHERE i.study_id = s.id)
        FROM studies s ORDER BY s.id
        """.format(outside=", ".join(f"'{state}'" for state in OUTSIDE_DENOMINATOR))
    ).fetchall()
    return [
        StudyCounts(
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


def progress(conn: sqlite3.Connection, design_pk: int) -> list[ReviewerProgress]:
    """Per reviewer: items assigned, submitted and in draft (by each one's latest revision),
    from ``queue_summaries``, which triggers keep in step with assignments and judgments: one
    row per reviewer, whatever the design's size."""
    rows = conn.execute(
        "SELECT reviewer, assigned, submitted, drafts FROM queue_summaries "
        "WHERE design_pk = ? AND assigned > 0 ORDER BY reviewer",
        [design_pk],
    ).fetchall()
    return [ReviewerProgress(r[0], r[1], r[2], r[3]) for r in rows]


def current_runs_by(column: str) -> str:
    """A subquery (``pk``, ``n``): the study's current runs (parameter ``:study``) counted per
    ``task_pk`` or ``condition_pk``. One pass over the study's runs through ``runs_current``:
    a count per task or condition correlated on the key would scan every run for each one, as
    neither key is indexed (20,000 pairs: ten minutes for status)."""
    return (
        f"(SELECT {column} AS pk, COUNT(*) AS n FROM runs "
        f"WHERE study_id = :study AND current = 1 GROUP BY {column})"
    )


_CONDITION_RUNS = f"""
    SELECT c.id, c.label, COALESCE(n.n, 0)
    FROM conditions c LEFT JOIN {current_runs_by("condition_pk")} n ON n.pk = c.pk
    WHERE c.study_id = :study AND c.current = 1 ORDER BY c.id
"""
_TASK_RUNS = f"""
    SELECT t.id, '', COALESCE(n.n, 0)
    FROM tasks t LEFT JOIN {current_runs_by("task_pk")} n ON n.pk = t.pk
    WHERE t.study_id = :study AND t.current = 1 ORDER BY t.id
"""


def _counted(conn: sqlite3.Connection, sql: str, study_id: str) -> list[CountedRuns]:
    return [CountedRuns(r[0], r[1] or "", r[2]) for r in conn.execute(sql, {"study": study_id})]
