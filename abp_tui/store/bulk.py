"""SQL for the bulk reads of a publication bundle: everything of a study or design at once.

A bundle needs what the other store modules read one item or one run at a time (every judgment
and adjudication revision of a design, outputs and trace lines of all current runs), so these
queries read a whole study or design in one pass (a study's findings are
:func:`abp_tui.store.judging.finding_revisions`). They return the shared
records of :mod:`abp_tui.models.records`, runs named by id, which a bundle writes as they are;
the ``each_*_line`` readers give the same records (of a run, its facts) as their models' JSON
dumps, made from the rows without a model each (what a bundle writes of a large study's tens of
thousands of records).
Nothing is written.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from abp_tui.models import (
    AdjudicationRevision,
    Condition,
    Item,
    JudgmentRevision,
    RunFacts,
    Study,
    Task,
)
from abp_tui.store.db import read_snapshot
from abp_tui.store.item_rows import ITEM_SELECT, item_line, plan_item
from abp_tui.store.judging import (
    ADJUDICATION_SELECT,
    JUDGMENT_SELECT,
    adjudication_revision,
    judgment_revision,
)
from abp_tui.store.judgment_lines import judgment_line
from abp_tui.store.queries import (
    RUN_FACTS_SELECT,
    TASK_COLUMNS,
    facts_json,
    facts_of,
    results_order,
    task_from_row,
    task_line,
)
from abp_tui.store.run_order import natural_bytes, results_order_bytes


@dataclass(frozen=True, slots=True)
class StoredRun:
    """A current run as a bundle publishes it: its facts, its stored record, its output."""

    facts: RunFacts
    record: dict[str, Any]
    """The run's stored record without its output (provider, model, tokens, metadata...)."""
    output: str | None
    trace_pk: int | None
    """The key of the run's trace (see :func:`current_trace_lines`), if it has one."""


def study_limitations(db: sqlite_utils.Database, study_id: str) -> list[str]:
    """The limitations a study's own records declare (none: no such study)."""
    found = study(db, study_id)
    return list(found.limitations) if found is not None else []


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
    thousand tasks are written out one at a time, never all held as records or rows): sorted
    by SQLite (:func:`_in_order`), read a batch at a time."""
    for r in _task_rows(db, study_id):
        yield task_from_row(r), bool(r[11])


def _task_rows(db: sqlite_utils.Database, study_id: str) -> Iterator[Any]:
    """The rows of :func:`each_task` (:data:`TASK_COLUMNS`, placeholder, key) in its order."""
    with read_snapshot(db):
        conn = db.conn
        keys = (
            (natural_bytes(str(task)), pk)  # T2 before T10, as every task list
            for pk, task in conn.execute(
                "SELECT pk, id FROM tasks WHERE study_id = ? AND current = 1", [study_id]
            )
        )
        for batch in _in_order(conn, keys):
            marks = ", ".join("?" for _ in batch)
            found = {
                r[12]: r
                for r in conn.execute(
                    f"SELECT {TASK_COLUMNS}, placeholder, pk FROM tasks WHERE pk IN ({marks})",
                    batch,
                ).fetchall()
            }
            for pk in batch:
                yield found.pop(pk)


def each_task_line(db: sqlite_utils.Database, study_id: str) -> Iterator[dict[str, Any]]:
    """The tasks :func:`each_task` returns, in the same order and read the same way, each as
    its JSON dump with whether it is a placeholder (``placeholder``): made from its row when
    it is plainly a task's (:func:`abp_tui.store.queries.task_line`), else through its
    model."""
    for r in _task_rows(db, study_id):
        line = task_line(r)
        if line is None:
            line = task_from_row(r).model_dump(mode="json")
        line["placeholder"] = bool(r[11])
        yield line


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
    """The runs :func:`current_runs` returns, in the same order, one at a time: each run's place
    in that order is written to a temporary table and SQLite sorts them (never a list of every
    run in memory: :mod:`abp_tui.store.run_order`); their facts, records and outputs are read a
    batch at a time as they are asked for, so that only a batch of them is in memory. Read
    inside one read transaction, as an export does, they are those of one snapshot (the
    temporary table is the connection's own: the database is not written)."""
    with read_snapshot(db):
        yield from _each_current_run(db.conn, study_id)


def _each_current_run(conn: sqlite3.Connection, study_id: str) -> Iterator[StoredRun]:
    for r in _current_rows(conn, study_id):
        record = json.loads(r[11])
        record.pop("output", None)
        metadata = record.get("metadata")
        facts = facts_of(r, metadata if isinstance(metadata, dict) else {})
        yield StoredRun(facts, record, r[12], r[13])


@dataclass(frozen=True, slots=True)
class RunLine:
    """A current run as a bundle writes it, without a model of it: its facts as their model's
    JSON dump gives them (:func:`abp_tui.store.queries.facts_json`), its stored record, its
    output."""

    facts: dict[str, Any]
    record: dict[str, Any]
    """As :attr:`StoredRun.record`."""
    output: str | None
    trace_pk: int | None


def each_run_line(db: sqlite_utils.Database, study_id: str) -> Iterator[RunLine]:
    """The runs :func:`each_current_run` returns, in the same order and read the same way, each
    as a :class:`RunLine`: the facts a bundle writes of each of a large study's runs, made
    without a model of them (the same values)."""
    with read_snapshot(db):
        for r in _current_rows(db.conn, study_id):
            record = json.loads(r[11])
            record.pop("output", None)
            metadata = record.get("metadata")
            facts = facts_json(r, metadata if isinstance(metadata, dict) else {})
            yield RunLine(facts, record, r[12], r[13])


def _current_rows(conn: sqlite3.Connection, study_id: str) -> Iterator[Any]:
    """The study's current runs' rows (:data:`RUN_FACTS_SELECT`, then the run's key, record,
    output and trace key) in the order results list them, a batch at a time."""
    keys = (
        (results_order_bytes(str(c), str(t), int(trial), str(run)), pk)
        for pk, run, t, c, trial in conn.execute(
            "SELECT r.pk, r.id, t.id, c.id, r.trial FROM runs r "
            "JOIN tasks t ON t.pk = r.task_pk JOIN conditions c ON c.pk = r.condition_pk "
            "WHERE r.study_id = ? AND r.current = 1",
            [study_id],
        )
    )
    select = RUN_FACTS_SELECT.format(
        more=", r.pk, r.document, b.text, r.trace_pk",
        join=" LEFT JOIN blobs b ON b.sha256 = r.output_sha256",
    )
    for batch in _in_order(conn, keys):
        marks = ", ".join("?" for _ in batch)
        found = {
            r[10]: r
            for r in conn.execute(f"{select}AND r.pk IN ({marks})", [study_id, *batch]).fetchall()
        }
        for pk in batch:
            yield found.pop(pk)


def _in_order(conn: sqlite3.Connection, keyed: Iterable[tuple[bytes, int]]) -> Iterator[list[int]]:
    """The keys (``pk``) of ``keyed`` in the order of their sort keys (bytes, compared as
    SQLite compares BLOBs: :mod:`abp_tui.store.run_order`), :data:`_BATCH` at a time: the keys
    are written to a temporary table of the connection and SQLite sorts them (its sorter
    spills to the disk), so that no list of every row is held. Inside a read transaction
    (the caller's), which a temporary table leaves one: the database is not written."""
    table = f"{_ORDER}_{next(_TABLES)}"  # one each: two orders may be read at once
    conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.execute(f"CREATE TEMP TABLE {table} (k BLOB NOT NULL, pk INTEGER NOT NULL)")
    try:
        conn.executemany(f"INSERT INTO {table} (k, pk) VALUES (?, ?)", keyed)
        ordered = conn.execute(f"SELECT pk FROM {table} ORDER BY k")
        while batch := [int(pk) for (pk,) in ordered.fetchmany(_BATCH)]:
            yield batch
    finally:
        # Gone already when the read transaction it was made in ended before every row was
        # read (an export that failed midway).
        with contextlib.suppress(sqlite3.Error):
            conn.execute(f"DROP TABLE IF EXISTS {table}")


_ORDER = "temp.export_order"
"""The temporary tables :func:`_in_order` sorts rows in (a number after it)."""
_TABLES = itertools.count()


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


def each_item(db: sqlite_utils.Database, design_pk: int) -> Iterator[Item]:
    """The design's items by code (as a bundle lists them), each with its place in the plan
    (the order items were stored in), made one at a time as the rows are read: never all held."""
    plan = ", ROW_NUMBER() OVER (ORDER BY i.pk) - 1"
    # Codes are ASCII: SQLite's byte order is the order Python sorts them in.
    for r in db.execute(
        ITEM_SELECT.format(more=plan) + "WHERE i.design_pk = ? ORDER BY i.code, i.pk",
        [design_pk],
    ):
        yield plan_item(r, int(r[16]))


_ITEM_RUNS = "SELECT i.run_a_pk, ra.id, i.run_b_pk, rb.id, "
"""The keys and ids of an item's runs, before the columns of a judgment or adjudication row."""
_JOIN_RUNS = "JOIN runs ra ON ra.pk = i.run_a_pk LEFT JOIN runs rb ON rb.pk = i.run_b_pk "


def _item_run_ids(r: Sequence[Any]) -> dict[int, str]:
    """Run key -> run id of the item of a row read with :data:`_ITEM_RUNS` first."""
    return {int(r[0]): str(r[1])} if r[2] is None else {int(r[0]): str(r[1]), int(r[2]): str(r[3])}


def each_judgment_revision(db: sqlite_utils.Database, design_pk: int) -> Iterator[JudgmentRevision]:
    """The revisions :func:`judgment_revisions` returns, in the same order, each made as its row
    is read, its runs named from its own item's (no map of every run of the design is held)."""
    select = JUDGMENT_SELECT.replace("SELECT ", _ITEM_RUNS, 1) + _JOIN_RUNS
    for r in db.execute(
        select + "WHERE i.design_pk = ? ORDER BY i.code, j.reviewer, j.revision", [design_pk]
    ):
        yield judgment_revision(r[4:], _item_run_ids(r))


def each_judgment_line(db: sqlite_utils.Database, design_pk: int) -> Iterator[dict[str, Any]]:
    """The revisions :func:`each_judgment_revision` returns, in the same order, each as its
    record's JSON dump (``model_dump(mode="json")``): made from its row when its payload is
    plainly a judgment's (:func:`abp_tui.store.judgment_lines.judgment_line`), else through its
    record. A bundle writes a large study's tens of thousands of them."""
    select = JUDGMENT_SELECT.replace("SELECT ", _ITEM_RUNS, 1) + _JOIN_RUNS
    for r in db.execute(
        select + "WHERE i.design_pk = ? ORDER BY i.code, j.reviewer, j.revision", [design_pk]
    ):
        row, run_ids = r[4:], _item_run_ids(r)
        line = judgment_line(row, run_ids)
        yield judgment_revision(row, run_ids).model_dump(mode="json") if line is None else line


def each_item_line(db: sqlite_utils.Database, design_pk: int) -> Iterator[dict[str, Any]]:
    """The items :func:`each_item` returns, in the same order, each as its record's JSON dump
    (``model_dump(mode="json")``), made without a model of it (:func:`item_line`)."""
    plan = ", ROW_NUMBER() OVER (ORDER BY i.pk) - 1"
    for r in db.execute(
        ITEM_SELECT.format(more=plan) + "WHERE i.design_pk = ? ORDER BY i.code, i.pk",
        [design_pk],
    ):
        yield item_line(r, int(r[16]))


def each_adjudication_revision(
    db: sqlite_utils.Database, design_pk: int
) -> Iterator[AdjudicationRevision]:
    """The revisions :func:`adjudication_revisions` returns, in the same order, one at a time
    (as :func:`each_judgment_revision`)."""
    select = ADJUDICATION_SELECT.replace("SELECT ", _ITEM_RUNS, 1) + _JOIN_RUNS
    for r in db.execute(select + "WHERE i.design_pk = ? ORDER BY i.code, a.revision", [design_pk]):
        yield adjudication_revision(r[4:], _item_run_ids(r))


def trace_lines(db: sqlite_utils.Database, trace_pk: int) -> list[str]:
    """The raw event lines of one trace, in order (those :func:`current_trace_lines` holds for
    it), read when its run is written."""
    return [
        str(raw)
        for (raw,) in db.execute(
            "SELECT raw FROM trace_events WHERE trace_pk = ? ORDER BY seq", [trace_pk]
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
