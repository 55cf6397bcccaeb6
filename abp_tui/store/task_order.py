"""A study's current tasks in natural order (T2 before T10), a page at a time.

Natural order is Python's (:func:`abp_tui.text.natural.natural_key`), not SQLite's, so it is
kept in ``task_order`` (migration ``0015_workstation_summaries``): each current task's rank,
rebuilt by :func:`refresh` after an import changes a study's tasks. ``task_order_stamps``
records the tasks it was built from (how many were current, the newest task key): a reader that
finds the stamp out of date (tasks written by an older abp-tui, a pack) rebuilds it when it
may write, and otherwise ranks the tasks in memory, so a page is never out of order.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

from abp_tui.errors import AbpError
from abp_tui.store.overview import OUTSIDE_DENOMINATOR
from abp_tui.store.queries import TaskSummary, task_from_row
from abp_tui.text.natural import natural_key

if TYPE_CHECKING:
    import sqlite_utils

_TASK_COLUMNS = (
    "t.id, t.title, t.prompt, t.base_instruction, t.evidence, t.expected_behaviour, "
    "t.fatal_criteria, t.risk_type, t.version, t.synthetic, t.metadata, t.placeholder"
)
_EXCLUDED = "(r.excluded_reason IS NOT NULL OR r.origin_status IN ({}))".format(
    ", ".join(f"'{state}'" for state in OUTSIDE_DENOMINATOR)
)
"""Kept visible but outside the quality denominator (as ``abp-tui status`` counts them)."""


def _stamp(db: sqlite_utils.Database, study_id: str) -> tuple[int, int]:
    row = db.execute(
        "SELECT (SELECT COUNT(*) FROM tasks WHERE study_id = :s AND current = 1), "
        "(SELECT COALESCE(MAX(pk), 0) FROM tasks WHERE study_id = :s)",
        {"s": study_id},
    ).fetchone()
    return int(row[0]), int(row[1])


def _ranked(db: sqlite_utils.Database, study_id: str) -> list[int]:
    rows = db.execute(
        "SELECT pk, id FROM tasks WHERE study_id = ? AND current = 1", [study_id]
    ).fetchall()
    rows.sort(key=lambda r: natural_key(r[1]))
    return [int(r[0]) for r in rows]


def refresh(db: sqlite_utils.Database, study_id: str) -> None:
    """Rank the study's current tasks again, when they changed since they were ranked."""
    stamp = _stamp(db, study_id)
    held = db.execute(
        "SELECT tasks, last_pk FROM task_order_stamps WHERE study_id = ?", [study_id]
    ).fetchone()
    if held is not None and (int(held[0]), int(held[1])) == stamp:
        return
    with db.atomic():
        db.execute("DELETE FROM task_order WHERE study_id = ?", [study_id])
        db.conn.executemany(
            "INSERT INTO task_order (study_id, rank, task_pk) VALUES (?, ?, ?)",
            [(study_id, rank, pk) for rank, pk in enumerate(_ranked(db, study_id))],
        )
        db.execute(
            "INSERT INTO task_order_stamps (study_id, tasks, last_pk) VALUES (?, ?, ?) "
            "ON CONFLICT (study_id) DO UPDATE SET tasks = excluded.tasks, "
            "last_pk = excluded.last_pk",
            [study_id, *stamp],
        )


@dataclass(frozen=True)
class TaskPage:
    """Tasks ``start`` to ``start + len(tasks)`` (0-based) of ``total``, in natural order, each
    with its current runs and how many of them are excluded."""

    start: int
    total: int
    tasks: list[tuple[TaskSummary, int]]


def _fresh(db: sqlite_utils.Database, study_id: str) -> bool:
    held = db.execute(
        "SELECT tasks, last_pk FROM task_order_stamps WHERE study_id = ?", [study_id]
    ).fetchone()
    return held is not None and (int(held[0]), int(held[1])) == _stamp(db, study_id)


def page(db: sqlite_utils.Database, study_id: str, start: int, size: int) -> TaskPage:
    """``size`` tasks from rank ``start``: read by rank from ``task_order`` (ranked again
    first when stale and the database can be written; else ranked in memory)."""
    if not _fresh(db, study_id):
        try:
            refresh(db, study_id)
        except (sqlite3.Error, AbpError):  # cannot be written (read-only, busy): in memory
            return _page_of(db, study_id, _ranked(db, study_id)[start : start + size], start)
    pks = [
        int(r[0])
        for r in db.execute(
            "SELECT task_pk FROM task_order WHERE study_id = ? AND rank >= ? ORDER BY rank LIMIT ?",
            [study_id, start, size],
        ).fetchall()
    ]
    return _page_of(db, study_id, pks, start)


def _page_of(db: sqlite_utils.Database, study_id: str, pks: list[int], start: int) -> TaskPage:
    total = _stamp(db, study_id)[0]
    if not pks:
        return TaskPage(start, total, [])
    marks = ", ".join("?" for _ in pks)
    found = {
        int(r[0]): r[1:]
        for r in db.execute(
            f"SELECT t.pk, {_TASK_COLUMNS}, "
            "(SELECT COUNT(*) FROM runs r WHERE r.task_pk = t.pk AND r.current = 1), "
            f"(SELECT COUNT(*) FROM runs r WHERE r.task_pk = t.pk AND r.current = 1 "
            f"AND {_EXCLUDED}) FROM tasks t WHERE t.pk IN ({marks})",
            pks,
        ).fetchall()
    }
    tasks = [
        (TaskSummary(task=task_from_row(r), runs=r[12], placeholder=bool(r[11])), int(r[13]))
        for r in (found[pk] for pk in pks if pk in found)
    ]
    return TaskPage(start, total, tasks)


def excluded_by_condition(db: sqlite_utils.Database, study_id: str) -> dict[str, int]:
    """How many of the study's current runs of each condition are excluded (by condition id)."""
    return {
        str(r[0]): int(r[1])
        for r in db.execute(
            "SELECT c.id, COUNT(*) FROM runs r JOIN conditions c ON c.pk = r.condition_pk "
            f"WHERE r.study_id = ? AND r.current = 1 AND {_EXCLUDED} GROUP BY c.id",
            [study_id],
        ).fetchall()
    }
