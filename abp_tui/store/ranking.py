"""SQL for a ranking's votes: a study's imported preference labels as columns, and each run's
task, condition and output length (what a judge's or a design's pair is ranked by).

Labels come back as integer columns (one query; NumPy maps the stored keys to names), since a
ranking may read a million of them. Nothing here decides what a vote counts for.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import sqlite_utils

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I8 = npt.NDArray[np.int8]
F64 = npt.NDArray[np.float64]

CHOICES = ("response_1", "response_2", "tie", "insufficient_evidence")
"""A label's choice code: its index here."""

_LABELS = """
SELECT p.task_pk, p.run_1_pk, p.run_2_pk,
       CASE p.choice WHEN 'response_1' THEN 0 WHEN 'response_2' THEN 1 WHEN 'tie' THEN 2
                     ELSE 3 END
FROM preferences p
WHERE p.pk IN (
  SELECT MAX(q.pk) FROM preferences q JOIN reviewers r ON r.name = q.reviewer AND r.external = 1
  WHERE +q.study_id = ? AND q.source = 'imported' GROUP BY q.item_id, q.reviewer
)
ORDER BY p.pk
"""
"""Each label set's latest label of each source item (a later import replaces an earlier one),
external reviewers only, in stored order: the labels a later one replaced are left out here, not
held and dropped. ``+`` keeps SQLite from reading them through the (study, item) index: one pass
over the table in rowid order is several times faster than an index walk that fetches each row
at random, and a ranking may read a million labels."""

_RUNS = """
SELECT r.pk, r.condition_pk, r.current, COALESCE(length(b.text), -1)
FROM runs r LEFT JOIN blobs b ON b.sha256 = r.output_sha256
WHERE r.study_id = ?
"""
"""Every stored version of the study's runs: its condition, whether it is current, and its
output's length (-1: no output stored); read once per run, not once per label."""

_CHUNK = 8192
"""Rows converted to columns at a time: a million labels are never all held as rows."""


def _ints(rows: list[Any], width: int) -> I64:
    """A chunk of integer rows as one (rows, width) array (the rows are dropped at once)."""
    return np.array(rows, dtype=np.int64).reshape(len(rows), width)


@dataclass(frozen=True, eq=False)
class LabelColumns:
    """A study's imported labels as columns (one entry per label), each in the smallest type
    that holds it (a ranking may read a million labels)."""

    conditions: tuple[str, ...]
    """Condition ids; ``condition_1`` and ``condition_2`` index into it."""
    tasks: tuple[str, ...]
    """Task ids; ``task`` indexes into it."""
    task: I32
    condition_1: I32
    condition_2: I32
    choice: I8
    """Index into CHOICES."""
    length_1: F64
    length_2: F64
    """NaN when the run has no stored output."""
    current: npt.NDArray[np.bool_]


def label_columns(db: sqlite_utils.Database, study_id: str) -> LabelColumns:
    """Each label set's latest label of each source item (a later import replaces an earlier
    one), external reviewers only (an AI judge's verdicts live in ``judge_verdicts``), with the
    task, both runs' conditions and output lengths and whether both runs are current. The
    labels are read a chunk at a time, each chunk made into these columns at once."""
    labels = db.execute(_LABELS, [study_id])
    data = _ints(labels.fetchmany(_CHUNK), 4)
    codes: dict[str, int] = {}
    condition_of = {
        int(pk): codes.setdefault(str(name), len(codes))
        for pk, name in db.execute(
            "SELECT pk, id FROM conditions WHERE study_id = ?", [study_id]
        ).fetchall()
    }
    if not len(data):
        no = np.zeros(0, dtype=bool)
        return LabelColumns(
            tuple(codes),
            (),
            *(np.zeros(0, dtype=np.int32),) * 3,
            np.zeros(0, dtype=np.int8),
            *(np.zeros(0, dtype=np.float64),) * 2,
            no,
        )
    top = db.execute("SELECT MAX(pk) FROM runs WHERE study_id = ?", [study_id]).fetchone()[0]
    size = int(top or 0) + 1
    run_condition = np.full(size, -1, dtype=np.int32)
    condition_code = np.full(max(condition_of, default=-1) + 1, -1, dtype=np.int32)
    condition_code[list(condition_of)] = list(condition_of.values())
    run_current = np.zeros(size, dtype=bool)
    run_length = np.full(size, np.nan)
    runs = db.execute(_RUNS, [study_id])
    while len(r := _ints(runs.fetchmany(_CHUNK), 4)):
        run_condition[r[:, 0]] = condition_code[r[:, 1]]
        run_current[r[:, 0]] = r[:, 2].astype(bool)
        run_length[r[:, 0]] = np.where(r[:, 3] < 0, np.nan, r[:, 3])
    task_pks: array[int] = array("q")
    names: list[str] = []
    for pk, name in db.execute("SELECT pk, id FROM tasks WHERE study_id = ?", [study_id]):
        task_pks.append(int(pk))
        names.append(str(name))
    pks = np.frombuffer(task_pks, dtype=np.int64)
    task_code = np.full(int(pks.max()) + 1, -1, dtype=np.int32)
    task_code[pks] = np.arange(pks.size, dtype=np.int32)
    del task_pks, pks
    parts: list[tuple[npt.NDArray[Any], ...]] = []
    while len(data):
        one, two = data[:, 1], data[:, 2]
        parts.append(
            (
                task_code[data[:, 0]],
                run_condition[one],
                run_condition[two],
                data[:, 3].astype(np.int8),
                run_length[one],
                run_length[two],
                run_current[one] & run_current[two],
            )
        )
        data = _ints(labels.fetchmany(_CHUNK), 4)
    # One column joined at a time, its chunks let go as it is made: the chunks and the columns
    # are never all held together.
    pieces = [list(c) for c in zip(*parts, strict=True)]
    del parts
    column = []
    for chunks in pieces:
        column.append(np.concatenate(chunks))
        chunks.clear()
    return LabelColumns(tuple(codes), tuple(names), *column)


@dataclass(frozen=True)
class RunSide:
    """What a ranking needs of one run: its task, its condition, its output's length."""

    task: str
    condition: str
    length: int | None
    """Characters of the stored output; None when none is stored."""


def run_sides(db: sqlite_utils.Database, study_id: str) -> dict[str, RunSide]:
    """Run id -> its current version's task, condition and output length."""
    rows = db.execute(
        "SELECT r.id, t.id, c.id, length(b.text) FROM runs r "
        "JOIN tasks t ON t.pk = r.task_pk JOIN conditions c ON c.pk = r.condition_pk "
        "LEFT JOIN blobs b ON b.sha256 = r.output_sha256 "
        "WHERE r.study_id = ? AND r.current = 1",
        [study_id],
    ).fetchall()
    return {
        str(r[0]): RunSide(str(r[1]), str(r[2]), None if r[3] is None else int(r[3])) for r in rows
    }


def held_sources(db: sqlite_utils.Database, study_id: str) -> tuple[bool, bool, list[str]]:
    """(a design of the study has pair items, the study has imported labels, the ids of the AI
    judges with preference verdicts in it, sorted)."""
    pairs = db.execute(
        "SELECT 1 FROM items i JOIN designs d ON d.pk = i.design_pk WHERE d.study_id = ? "
        "AND i.run_b_pk IS NOT NULL LIMIT 1",
        [study_id],
    ).fetchone()
    labelled = db.execute(
        "SELECT 1 FROM preferences WHERE study_id = ? AND source = 'imported' LIMIT 1",
        [study_id],
    ).fetchone()
    judges = db.execute(
        "SELECT DISTINCT j.id FROM judge_verdicts v JOIN judges j ON j.pk = v.judge_pk "
        "WHERE v.study_id = ? AND v.kind = 'preference' ORDER BY j.id",
        [study_id],
    ).fetchall()
    return pairs is not None, labelled is not None, [str(r[0]) for r in judges]
