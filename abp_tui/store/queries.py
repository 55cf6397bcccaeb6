"""Read-side queries: summaries of what is stored, returned as models, never as SQL rows."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from abp_tui.analysis.blinding import PlanRun
from abp_tui.models import Condition, Model, ResultState, Run, RunFacts, Task
from abp_tui.models.base import held_once, same, trusted
from abp_tui.store import overview
from abp_tui.store.overview import StudyCounts
from abp_tui.text.natural import natural_key

if TYPE_CHECKING:
    import sqlite_utils


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


TASK_COLUMNS: Final = (
    "id, title, prompt, base_instruction, evidence, expected_behaviour, fatal_criteria, "
    "risk_type, version, synthetic, metadata"
)
"""The tasks columns :func:`task_from_row` reads, in its order (more may follow them)."""


def task_from_row(r: Sequence[Any]) -> Task:
    """A Task from a row that starts with :data:`TASK_COLUMNS`."""
    return Task(
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
    )


_TASK_TEXTS: Final = (0, 1, 2, 3, 4, 5, 7, 8)
"""The columns of :data:`TASK_COLUMNS` a task holds as text."""


def task_line(r: Sequence[Any]) -> dict[str, Any] | None:
    """The task :func:`task_from_row` makes of a row, as its JSON dump
    (``model_dump(mode="json")``) gives it, without a model of it; None when the row is not
    plainly a task's (a value the model would refuse or convert: the caller then makes it).
    A bundle writes a large study's hundred thousand tasks."""
    if not all(type(r[k]) is str for k in _TASK_TEXTS) or not r[0]:
        return None
    criteria, metadata = json.loads(r[6]), json.loads(r[10])
    if type(criteria) is not list or not all(type(c) is str for c in criteria):
        return None
    if type(metadata) is not dict:
        return None
    return {
        "id": r[0],
        "title": r[1],
        "prompt": r[2],
        "base_instruction": r[3],
        "evidence": r[4],
        "expected_behaviour": r[5],
        "fatal_criteria": criteria,
        "risk_type": r[7],
        "version": r[8],
        "synthetic": bool(r[9]),
        "metadata": metadata,
    }


def holds_pack(db: sqlite_utils.Database) -> bool:
    """Whether a study pack was opened into ``db`` (a reviewer station), read from one row."""
    found = db.execute("SELECT 1 FROM studies WHERE protocol = 'pack' LIMIT 1").fetchone()
    return found is not None


def list_studies(db: sqlite_utils.Database) -> list[StudyCounts]:
    """Every study with its counts (the SQL is ``overview.studies``, which status reads too)."""
    return overview.studies(db.conn)


def study_conditions(db: sqlite_utils.Database, study_id: str) -> list[ConditionSummary]:
    rows = db.execute(
        """
        SELECT c.id, c.label, c.instructions, c.version, c.metadata, COALESCE(n.n, 0)
        FROM conditions c LEFT JOIN {runs} n ON n.pk = c.pk
        WHERE c.study_id = :study AND c.current = 1 ORDER BY c.id
        """.format(runs=overview.current_runs_by("condition_pk")),
        {"study": study_id},
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
          COALESCE(n.n, 0)
        FROM tasks t LEFT JOIN {runs} n ON n.pk = t.pk
        WHERE t.study_id = :study AND t.current = 1
        """.format(runs=overview.current_runs_by("task_pk")),
        {"study": study_id},
    ).fetchall()
    rows.sort(key=lambda r: natural_key(r[0]))  # T2 before T10
    return [
        TaskSummary(
            task=task_from_row(r),
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
        WHERE r.study_id = ? AND r.current = 1
        """,
        [study_id],
    ).fetchall()
    rows.sort(key=lambda r: (natural_key(r[1]), r[2], r[3], natural_key(r[0])))
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


def diff_bytes(metadata: dict[str, object]) -> float | None:
    """Normalized diff bytes from a run record's metadata, under the names the sources use."""
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


RUN_FACTS_SELECT: Final = """
SELECT r.id, t.id, c.id, r.trial, r.origin_status,
  COALESCE(r.automated_outcome, (SELECT a.outcome FROM automated_scores a
    WHERE a.run_pk = r.pk ORDER BY a.pk DESC LIMIT 1)), r.excluded_reason,
  COALESCE(r.total_tokens, r.input_tokens + r.output_tokens), r.wall_clock_ms, r.cost_usd{more}
FROM runs r JOIN tasks t ON t.pk = r.task_pk JOIN conditions c ON c.pk = r.condition_pk{join}
WHERE r.study_id = ? AND r.current = 1
"""
"""The current runs of a study with their facts (the first ten columns); ``more`` and ``join``
add what a caller needs besides. Results list runs in :func:`results_order`.

A run's automated outcome is the one its record carries, else the latest the automated judge
stored for its current version (:mod:`abp_tui.store.automated`: the sci-bench scorer), so every
reader of the facts (results, exports, the CI gate) counts the judge's outcome the same way."""


def results_order(row: Sequence[Any]) -> tuple[Any, ...]:
    """The order results list a study's runs in (condition, task, trial, id), for a row as
    :data:`RUN_FACTS_SELECT` reads it; task and run ids in natural order (T2 before T10)."""
    return (row[2], natural_key(row[1]), row[3], natural_key(row[0]))


def facts_of(
    row: Sequence[Any], metadata: dict[str, object], name: Callable[[str], str] = same
) -> RunFacts:
    """A row's first ten columns (as :data:`RUN_FACTS_SELECT` reads them) as a run's facts; its
    run and task ids through ``name`` (:func:`abp_tui.models.base.sharing`)."""
    # Stored validated: read back as the fields hold them, without validating again.
    return trusted(
        RunFacts,
        id=name(row[0]),
        task=name(row[1]),
        condition=held_once(row[2]),
        trial=int(row[3]),
        origin_status=None if row[4] is None else ResultState(row[4]),
        automated_outcome=row[5],
        excluded_reason=row[6],
        total_tokens=None if row[7] is None else int(row[7]),
        wall_clock_ms=None if row[8] is None else float(row[8]),
        cost_usd=None if row[9] is None else float(row[9]),
        diff_bytes=diff_bytes(metadata),
    )


def facts_json(row: Sequence[Any], metadata: dict[str, object]) -> dict[str, Any]:
    """The facts :func:`facts_of` makes of a row, as their model's JSON dump
    (``model_dump(mode="json")``) gives them, without a model of them: what a bundle writes of
    each of a large study's runs (the same values, so the same bytes)."""
    return {
        "id": row[0],
        "task": row[1],
        "condition": row[2],
        "trial": int(row[3]),
        "origin_status": None if row[4] is None else ResultState(row[4]).value,
        "automated_outcome": row[5],
        "excluded_reason": row[6],
        "total_tokens": None if row[7] is None else int(row[7]),
        "wall_clock_ms": None if row[8] is None else float(row[8]),
        "cost_usd": None if row[9] is None else float(row[9]),
        "diff_bytes": diff_bytes(metadata),
    }


def run_facts(
    db: sqlite_utils.Database, study_id: str, name: Callable[[str], str] = same
) -> list[RunFacts]:
    """The facts of the study's current runs, in :func:`results_order`; their run and task ids
    through ``name`` (:func:`abp_tui.models.base.sharing`)."""
    # Each row made a run's facts as it is read (a large study's rows and their metadata are
    # never all held at once), then sorted as results_order sorts rows.
    facts = [
        facts_of(r, json.loads(r[10]) if r[10] else {}, name)
        for r in db.execute(
            RUN_FACTS_SELECT.format(more=", json_extract(r.document, '$.metadata')", join=""),
            [study_id],
        )
    ]
    facts.sort(key=lambda f: (f.condition, natural_key(f.task), f.trial, natural_key(f.id)))
    return facts


def plan_runs(db: sqlite_utils.Database, study_id: str) -> list[PlanRun]:
    """What a plan reads of the study's current runs."""
    rows = db.execute(
        "SELECT r.pk, r.id, t.id, c.id, r.trial FROM runs r JOIN tasks t ON t.pk = r.task_pk "
        "JOIN conditions c ON c.pk = r.condition_pk WHERE r.study_id = ? AND r.current = 1",
        [study_id],
    ).fetchall()
    # A large study's runs name a few conditions and each task a few times: one string each.
    shared: dict[str, str] = {}
    return [
        PlanRun(r[0], r[1], shared.setdefault(r[2], r[2]), shared.setdefault(r[3], r[3]), r[4])
        for r in rows
    ]


def stated_runs(db: sqlite_utils.Database, study_id: str) -> list[RunFacts]:
    """:func:`run_facts` of the current runs whose record says a state, in the same order: what
    planning a design reads of the runs' facts (a large study's runs mostly say none)."""
    query = RUN_FACTS_SELECT.format(more="", join="") + "  AND r.origin_status IS NOT NULL\n"
    facts = [facts_of(r, {}) for r in db.execute(query, [study_id])]
    facts.sort(key=lambda f: (f.condition, natural_key(f.task), f.trial, natural_key(f.id)))
    return facts


def study_protocol(db: sqlite_utils.Database, study_id: str) -> str | None:
    row = db.execute("SELECT protocol FROM studies WHERE id = ?", [study_id]).fetchone()
    return str(row[0]) if row else None


def unblinded(db: sqlite_utils.Database, study_id: str) -> tuple[str, str] | None:
    """(who, when) of the study's unblinding, or None while it is blind (declared in
    ``overview``, which ``abp-tui status`` reads)."""
    return overview.unblinded(db.conn, study_id)


def imported_preferences(db: sqlite_utils.Database, study_id: str) -> list[tuple[str, str, str]]:
    """(item id, reviewer, choice) of a study's imported preference labels, in stored order."""
    rows = db.execute(
        "SELECT item_id, reviewer, choice FROM preferences WHERE study_id = ? AND "
        "source = 'imported' ORDER BY pk",
        [study_id],
    ).fetchall()
    return [(str(r[0]), str(r[1]), str(r[2])) for r in rows]


def studies_with_automated_outcomes(db: sqlite_utils.Database) -> set[str]:
    """Ids of the studies some current run of which carries an automated outcome (its own, or
    one the automated judge stored): those whose results need no study design."""
    rows = db.execute(
        "SELECT DISTINCT r.study_id FROM runs r WHERE r.current = 1 AND ("
        "r.automated_outcome IS NOT NULL OR EXISTS (SELECT 1 FROM automated_scores a "
        "WHERE a.run_pk = r.pk))"
    ).fetchall()
    return {str(r[0]) for r in rows}


def outcomes_changed_at(db: sqlite_utils.Database, study_id: str) -> str | None:
    """When the study's automated outcomes last changed (UTC): its latest import or the latest
    outcome the automated judge stored; None when neither happened."""
    row = db.execute(
        "SELECT MAX(at) FROM (SELECT MAX(imported_at) AS at FROM imports WHERE study_id = ? "
        "UNION ALL SELECT MAX(created_at) FROM automated_scores WHERE study_id = ?)",
        [study_id, study_id],
    ).fetchone()
    return str(row[0]) if row and row[0] is not None else None
