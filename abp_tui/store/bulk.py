"""SQL for the bulk reads of a publication bundle: everything of a study or design at once.

A bundle needs what the other store modules read one item or one run at a time (every judgment
and adjudication revision of a design, outputs and trace lines of all current runs), so these
queries read a whole study or design in one pass (a study's findings are
:func:`abp_tui.store.judging.finding_revisions`). They return the shared
records of :mod:`abp_tui.models.records`, runs named by id, which a bundle writes as they are.
Nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from abp_tui.models import (
    AdjudicationRevision,
    Condition,
    JudgmentRevision,
    RunFacts,
    Study,
    Task,
)
from abp_tui.store.judging import (
    ADJUDICATION_SELECT,
    JUDGMENT_SELECT,
    adjudication_revision,
    judgment_revision,
)
from abp_tui.store.queries import (
    RUN_FACTS_SELECT,
    TASK_COLUMNS,
    facts_of,
    results_order,
    task_from_row,
)
from abp_tui.text.natural import natural_key


@dataclass(frozen=True, slots=True)
class StoredRun:
    """A current run as a bundle publishes it: its facts, its stored record, its output."""

    facts: RunFacts
    record: dict[str, Any]
    """The run's stored record without its output (provider, model, tokens, metadata...)."""
    output: str | None
    trace_pk: int | None
    """The key of the run's trace (see :func:`current_trace_lines`), if it has one."""


def study(db: sqlite_utils.Database, study_id: str) -> Study | None:
    row = db.execute(
        "SELECT id, name, protocol, description, rubric_id, limitations, synthetic "
        "FROM studies WHERE id = ?",
        [study_id],
    ).fetchone()
    if row is None:
        return None
    return Study(
        id=row[0],
        name=row[1],
        protocol=row[2],
        description=row[3],
        rubric_id=row[4],
        limitations=tuple(json.loads(row[5])),
        synthetic=bool(row[6]),
    )


def tasks(db: sqlite_utils.Database, study_id: str) -> list[tuple[Task, bool]]:
    """Every current task of a study in natural id order, and whether it is a placeholder (a
    task id some run named, with no task record imported)."""
    return list(each_task(db, study_id))


def each_task(db: sqlite_utils.Database, study_id: str) -> Iterator[tuple[Task, bool]]:
    """The tasks of :func:`tasks`, each made when it is reached (a large study's hundred
    thousand tasks are written out one at a time, never all held as records)."""
    rows = db.execute(
        f"SELECT {TASK_COLUMNS}, placeholder FROM tasks WHERE study_id = ? AND current = 1",
        [study_id],
    ).fetchall()
    rows.sort(key=lambda r: natural_key(r[0]))  # T2 before T10, as every task list
    for r in rows:
        yield task_from_row(r), bool(r[11])


def conditions(db: sqlite_utils.Database, study_id: str) -> list[Condition]:
    """Every current condition of a study, by id."""
    return [
        Condition(id=r[0], label=r[1], instructions=r[2], version=r[3], metadata=json.loads(r[4]))
        for r in db.execute(
            "SELECT id, label, instructions, version, metadata FROM conditions "
            "WHERE study_id = ? AND current = 1 ORDER BY id",
            [study_id],
        ).fetchall()
    ]


def current_runs(db: sqlite_utils.Database, study_id: str) -> list[StoredRun]:
    """The study's current runs with their facts, records and outputs, in one pass, in the order
    results list them."""
    rows = db.execute(
        RUN_FACTS_SELECT.format(
            more=", r.document, b.text, r.trace_pk",
            join=" LEFT JOIN blobs b ON b.sha256 = r.output_sha256",
        ),
        [study_id],
    ).fetchall()
    # Sorted here, not by SQLite: its sorter would copy every run's record and output through a
    # temporary B-tree.
    rows.sort(key=results_order)
    out = []
    for r in rows:
        record = json.loads(r[10])
        record.pop("output", None)
        metadata = record.get("metadata")
        facts = facts_of(r, metadata if isinstance(metadata, dict) else {})
        out.append(StoredRun(facts, record, r[11], r[12]))
    return out


_BATCH = 500
"""Runs whose records and outputs are read at a time by :func:`each_current_run`."""


def each_current_run(db: sqlite_utils.Database, study_id: str) -> Iterator[StoredRun]:
    """The runs :func:`current_runs` returns, in the same order, one at a time: their facts are
    read (and sorted) first, their records and outputs a batch at a time as they are asked
    for, so that only a batch of them is in memory. Read inside one read transaction, as an
    export does, they are those of one snapshot."""
    rows = db.execute(
        RUN_FACTS_SELECT.format(more=", r.pk", join=""),
        [study_id],
    ).fetchall()
    rows.sort(key=results_order)
    for start in range(0, len(rows), _BATCH):
        batch = rows[start : start + _BATCH]
        marks = ", ".join("?" for _ in batch)
        heavy = {
            pk: (document, text, trace_pk)
            for pk, document, text, trace_pk in db.execute(
                "SELECT r.pk, r.document, b.text, r.trace_pk FROM runs r "
                f"LEFT JOIN blobs b ON b.sha256 = r.output_sha256 WHERE r.pk IN ({marks})",
                [r[10] for r in batch],
            ).fetchall()
        }
        for r in batch:
            document, text, trace_pk = heavy.pop(r[10])
            record = json.loads(document)
            record.pop("output", None)
            metadata = record.get("metadata")
            facts = facts_of(r, metadata if isinstance(metadata, dict) else {})
            yield StoredRun(facts, record, text, trace_pk)


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


def judgment_revisions(
    db: sqlite_utils.Database, design_pk: int, run_ids: Mapping[int, str]
) -> list[JudgmentRevision]:
    """Every judgment revision of a design (drafts too), by item code, reviewer and revision."""
    return [
        judgment_revision(r, run_ids)
        for r in db.execute(
            JUDGMENT_SELECT + "WHERE i.design_pk = ? ORDER BY i.code, j.reviewer, j.revision",
            [design_pk],
        ).fetchall()
    ]


def adjudication_revisions(
    db: sqlite_utils.Database, design_pk: int, run_ids: Mapping[int, str]
) -> list[AdjudicationRevision]:
    """Every adjudication revision of a design, by item code and revision."""
    return [
        adjudication_revision(r, run_ids)
        for r in db.execute(
            ADJUDICATION_SELECT + "WHERE i.design_pk = ? ORDER BY i.code, a.revision",
            [design_pk],
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
