"""SQL for AI judges and their verdicts: written apart from people's judgments, read behind
blinding.

An import writes judges and verdicts here through :class:`JudgeWriter` (the import's
:class:`~abp_tui.store.writer.ImportWriter` hands them over), attached to the exact run versions
current when they were imported: a run imported again with new content leaves the verdict on the
old version, and the analysis leaves it out. A reviewer reads a judge's verdicts on an item only
after submitting their own judgment of it, and only when the design shows them
(``show_ai_after_submit``): :func:`item_verdicts` is the one read that faces a reviewer, and it
enforces both rules. Nothing here decides what a verdict means
(:mod:`abp_tui.analysis.judges.report`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import sqlite_utils

from abp_tui.analysis.judges.arrays import NO_RUN, VerdictTable, latest_of_slots
from abp_tui.analysis.judges.units import VerdictRow
from abp_tui.errors import ImportFailed, InputError
from abp_tui.models.judges import Judge, JudgeVerdict
from abp_tui.store.judging import BlindingError, has_submitted
from abp_tui.text.canonical import canonical_json, sha256_text

if TYPE_CHECKING:
    from abp_tui.store.writer import ImportWriter


def _refused(
    file: str, message: str, line: int | None = None, path: str | None = None
) -> ImportFailed:
    """A verdict the store cannot attach: found only when the import is written (the runs it
    judges may come from another file), so the whole import is refused, as for a bad record."""
    return ImportFailed([InputError(file, message, line, path)])


class JudgeWriter:
    """Stores the judges and verdicts of one imported file, inside the import's transaction."""

    def __init__(self, writer: ImportWriter) -> None:
        self.writer = writer
        self.db = writer.db
        self._judge_pk: dict[str, int] = {}
        self._runs: dict[str, tuple[int, int]] = {}
        self._tasks: dict[int, str] = {}

    def write(self, record: Judge | JudgeVerdict) -> None:
        if isinstance(record, Judge):
            self._judge(record)
        else:
            self._verdict(record)

    def _judge(self, judge: Judge) -> None:
        document = canonical_json(judge.model_dump(mode="json"))
        sha = sha256_text(document)
        taken = self.db.execute("SELECT 1 FROM reviewers WHERE name = ?", [judge.id]).fetchone()
        if taken is not None:
            raise _refused(
                self.writer.file_name,
                f"AI judge {judge.id!r} has the name of a reviewer: a judge is never a reviewer "
                "(name the judge differently)",
            )
        cur = self.db.execute(
            "INSERT OR IGNORE INTO judges (id, kind, model, prompt, version, source, sha256, "
            "document, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                judge.id,
                judge.kind,
                judge.model,
                judge.prompt,
                judge.version,
                judge.source,
                sha,
                document,
                self.writer.now,
            ],
        )
        self.writer.counts["judges added" if cur.rowcount else "judges unchanged"] += 1
        row = self.db.execute(
            "SELECT pk FROM judges WHERE id = ? AND sha256 = ?", [judge.id, sha]
        ).fetchone()
        self._judge_pk[judge.id] = int(row[0])

    def _judge_ref(self, judge_id: str, line: int | None) -> int:
        pk = self._judge_pk.get(judge_id)
        if pk is None:
            row = self.db.execute(
                "SELECT pk FROM judges WHERE id = ? ORDER BY pk DESC LIMIT 1", [judge_id]
            ).fetchone()
            if row is None:
                raise _refused(
                    self.writer.file_name,
                    f"judge verdict names judge {judge_id!r}, which is not defined: expected a "
                    "judge record (model, prompt) before its verdicts",
                    line,
                    "$.judge",
                )
            pk = self._judge_pk[judge_id] = int(row[0])
        return pk

    def _run(self, run_id: str, line: int | None) -> tuple[int, int]:
        """(pk, task pk) of the current version of a run of the study."""
        found = self._runs.get(run_id)
        if found is not None:
            return found
        study = self.writer.study_id
        pk = self.writer.current_run_pk(run_id)
        row = (
            None
            if pk is None
            else self.db.execute("SELECT pk, task_pk FROM runs WHERE pk = ?", [pk]).fetchone()
        )
        if row is None:
            raise _refused(
                self.writer.file_name,
                f"the judge verdict is on run {run_id!r}, which study {study!r} does not hold: "
                "expected the runs judged to be imported first, or in the same import",
                line,
            )
        found = self._runs[run_id] = (int(row[0]), int(row[1]))
        return found

    def _task_id(self, task_pk: int) -> str:
        found = self._tasks.get(task_pk)
        if found is None:
            row = self.db.execute("SELECT id FROM tasks WHERE pk = ?", [task_pk]).fetchone()
            found = self._tasks[task_pk] = str(row[0])
        return found

    def _verdict(self, verdict: JudgeVerdict) -> None:
        study_id = self.writer.study_id
        line = verdict.metadata.get("source_line")
        line = line if isinstance(line, int) else None
        judge_pk = self._judge_ref(verdict.judge, line)
        runs = [self._run(r, line) for r in verdict.runs]
        if len({task for _pk, task in runs}) > 1:
            raise _refused(
                self.writer.file_name,
                "the judge verdict compares runs of two different tasks "
                f"({', '.join(verdict.runs)}); expected two runs of one task",
                line,
            )
        task = self._task_id(runs[0][1])
        if task != verdict.task_id:
            raise _refused(
                self.writer.file_name,
                f"expected the task of run {verdict.runs[0]!r}, {task!r}, got {verdict.task_id!r}",
                line,
                "$.task_id",
            )
        explanation_sha = None
        if verdict.explanation:
            explanation_sha = sha256_text(verdict.explanation)
            self.db.conn.execute(
                "INSERT OR IGNORE INTO blobs (sha256, text) VALUES (?, ?)",
                [explanation_sha, verdict.explanation],
            )
        document = verdict.model_dump(mode="json", exclude={"explanation"})
        run_pks = [pk for pk, _task in runs]
        sha = sha256_text(canonical_json([document, explanation_sha, run_pks]))
        shown = None
        if verdict.shown_first is not None:
            shown = run_pks[verdict.runs.index(verdict.shown_first)]
        cur = self.db.conn.execute(
            "INSERT OR IGNORE INTO judge_verdicts (study_id, judge_pk, task_pk, run_a_pk, "
            "run_b_pk, shown_first_pk, turn, kind, verdict, score, error, explanation_sha256, "
            "document, sha256, import_pk, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                study_id,
                judge_pk,
                runs[0][1],
                run_pks[0],
                run_pks[1] if len(run_pks) > 1 else None,
                shown,
                verdict.turn,
                verdict.kind,
                verdict.verdict,
                verdict.score,
                verdict.error,
                explanation_sha,
                canonical_json(document),
                sha,
                self.writer.import_pk,
                self.writer.now,
            ],
        )
        self.writer.counts[
            "judge verdicts added" if cur.rowcount else "judge verdicts unchanged"
        ] += 1


# -- reading ------------------------------------------------------------------------------------
_VERDICTS = """
SELECT j.id, v.document, b.text, ra.current AND COALESCE(rb.current, 1), v.pk
FROM judge_verdicts v
JOIN judges j ON j.pk = v.judge_pk
JOIN runs ra ON ra.pk = v.run_a_pk
LEFT JOIN runs rb ON rb.pk = v.run_b_pk
LEFT JOIN blobs b ON b.sha256 = v.explanation_sha256
"""


def _latest(rows: Sequence[Any]) -> list[tuple[JudgeVerdict, bool]]:
    """Each slot's latest verdict (a judge, its runs, the order shown, the turn, the kind)."""
    out: dict[tuple[Any, ...], tuple[JudgeVerdict, bool]] = {}
    for judge_id, document, explanation, current, _pk in rows:
        data = json.loads(document)
        data["explanation"] = explanation or ""
        verdict = JudgeVerdict.model_validate(data)
        key = (judge_id, verdict.runs, verdict.shown_first, verdict.turn, verdict.kind)
        out[key] = (verdict, bool(current))
    return list(out.values())


def study_verdicts(db: sqlite_utils.Database, study_id: str) -> list[tuple[JudgeVerdict, bool]]:
    """(verdict, still on the current run versions) of every AI judge verdict of a study: the
    latest of each slot, in import order. For the coordinator's report, never for a reviewer."""
    rows = db.execute(_VERDICTS + "WHERE v.study_id = ? ORDER BY v.pk", [study_id]).fetchall()
    return _latest(rows)


def study_judges(db: sqlite_utils.Database, study_id: str) -> list[Judge]:
    """The judges with verdicts in a study (the latest definition of each id), by id."""
    rows = db.execute(
        "SELECT j.id, j.document FROM judges j WHERE j.pk IN (SELECT DISTINCT judge_pk FROM "
        "judge_verdicts WHERE study_id = ?) ORDER BY j.id, j.pk",
        [study_id],
    ).fetchall()
    latest = {str(r[0]): Judge.model_validate_json(r[1]) for r in rows}
    return list(latest.values())


def judged_studies(db: sqlite_utils.Database) -> list[str]:
    """The ids of the studies holding AI judge verdicts, sorted."""
    rows = db.execute("SELECT DISTINCT study_id FROM judge_verdicts ORDER BY study_id").fetchall()
    return [str(r[0]) for r in rows]


def _design_shows_ai(db: sqlite_utils.Database, item_pk: int) -> bool:
    row = db.execute(
        "SELECT json_extract(d.document, '$.show_ai_after_submit') FROM items i "
        "JOIN designs d ON d.pk = i.design_pk WHERE i.pk = ?",
        [item_pk],
    ).fetchone()
    return bool(row and row[0])


def item_verdicts(
    db: sqlite_utils.Database, item_pk: int, viewer: str
) -> list[tuple[JudgeVerdict, bool]]:
    """The AI judges' verdicts on an item's runs, for a reviewer who may see them.

    Raises BlindingError while the viewer has not submitted their own judgment of the item
    (a judge's verdict seen first would anchor theirs), and when the item's design does not show
    AI verdicts to reviewers at all (``show_ai_after_submit``, false unless the design says so).
    """
    if not has_submitted(db, item_pk, viewer):
        raise BlindingError("submit your own judgment of this item before seeing an AI judge's")
    if not _design_shows_ai(db, item_pk):
        raise BlindingError(
            "this design does not show AI judges' verdicts to reviewers "
            "(show_ai_after_submit = false)"
        )
    runs = [
        r[0]
        for r in db.execute(
            "SELECT run_a_pk FROM items WHERE pk = ? UNION SELECT run_b_pk FROM items "
            "WHERE pk = ? AND run_b_pk IS NOT NULL",
            [item_pk, item_pk],
        ).fetchall()
    ]
    marks = ", ".join("?" for _ in runs)
    rows = db.execute(
        _VERDICTS + f"WHERE v.run_a_pk IN ({marks}) AND (v.run_b_pk IS NULL OR v.run_b_pk IN "
        f"({marks})) ORDER BY v.pk",
        [*runs, *runs],
    ).fetchall()
    return _latest(rows)


def imported_labels(
    db: sqlite_utils.Database, study_id: str
) -> list[tuple[str, str, str, str, str]]:
    """(item id, reviewer, choice, run 1 id, run 2 id) of a study's imported human preference
    labels (external reviewers), in stored order."""
    rows = db.execute(
        "SELECT p.item_id, p.reviewer, p.choice, r1.id, r2.id FROM preferences p "
        "JOIN runs r1 ON r1.pk = p.run_1_pk JOIN runs r2 ON r2.pk = p.run_2_pk "
        "WHERE p.study_id = ? AND p.source = 'imported' ORDER BY p.pk",
        [study_id],
    ).fetchall()
    return [(str(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in rows]


_TABLE = """
SELECT v.pk, v.judge_pk, v.run_a_pk, COALESCE(v.run_b_pk, -1),
       COALESCE(v.shown_first_pk = v.run_b_pk, 0), COALESCE(v.turn, -1),
       CASE v.kind WHEN 'preference' THEN 0 WHEN 'score' THEN 1 ELSE 2 END,
       CASE WHEN v.error IS NOT NULL OR v.verdict IS NULL THEN -1
            WHEN v.kind = 'preference' THEN
                CASE WHEN v.verdict = 'tie' THEN 2 WHEN v.verdict = ra.id THEN 0
                     WHEN v.verdict = rb.id THEN 1 ELSE -1 END
            WHEN v.verdict = 'pass' THEN 3 WHEN v.verdict = 'fail' THEN 4
            WHEN v.verdict = 'partial' THEN 5 ELSE -1 END,
       v.score IS NOT NULL, COALESCE(v.score, 0), ra.current AND COALESCE(rb.current, 1)
FROM judge_verdicts v
JOIN runs ra ON ra.pk = v.run_a_pk
LEFT JOIN runs rb ON rb.pk = v.run_b_pk
WHERE v.study_id = ?
ORDER BY v.pk
"""
"""Every verdict of a study as numbers: codes as :mod:`abp_tui.analysis.judges.arrays` reads
them (kind, verdict), the rest as stored keys that NumPy maps to names."""


def _names(db: sqlite_utils.Database, sql: str, study_id: str, pks: Any) -> tuple[Any, list[str]]:
    """(each pk's code, the names coded): pks sharing a name (a run's versions, a judge's
    definitions) share its code."""
    unique, inverse = np.unique(pks, return_inverse=True)
    named = dict(db.execute(sql, [study_id]).fetchall())
    codes: dict[str, int] = {}
    of_unique = np.fromiter(
        (codes.setdefault(str(named[int(pk)]), len(codes)) for pk in unique.tolist()),
        dtype=np.int64,
        count=unique.size,
    )
    return of_unique[inverse.reshape(-1)], list(codes)


def _texts(
    db: sqlite_utils.Database, sql: str, study_id: str, pks: npt.NDArray[np.int64]
) -> dict[int, str]:
    """Row -> text, for the rows (by verdict pk, sorted) that have one."""
    found = db.execute(sql, [study_id]).fetchall()
    if not found:
        return {}
    where = np.searchsorted(pks, np.fromiter((r[0] for r in found), np.int64, len(found)))
    return {
        int(i): str(r[1])
        for i, r in zip(where.tolist(), found, strict=True)
        if i < pks.size and pks[i] == r[0]  # a verdict stored since the first read: not ours
    }


def verdict_table(
    db: sqlite_utils.Database, study_id: str, *, explanations: bool = False
) -> VerdictTable:
    """Every AI judge verdict of a study as the report reads it: columns of codes (one query
    for the verdicts, NumPy mapping run and judge keys to ids), the latest of each slot (a
    judge, its runs, the order shown, the turn, the kind), in import order. For the
    coordinator's report and a bundle, never for a reviewer; ``explanations`` reads the judges'
    texts too (the review order looks for fatal criteria in them)."""
    rows = db.execute(_TABLE, [study_id]).fetchall()
    data = np.array(rows, dtype=np.float64).reshape(len(rows), 11)
    ints = data[:, :9].astype(np.int64)
    pks = ints[:, 0]
    judge, judges = _names(
        db,
        "SELECT pk, id FROM judges WHERE pk IN (SELECT judge_pk FROM judge_verdicts WHERE "
        "study_id = ?)",
        study_id,
        ints[:, 1],
    )
    run_pks = ints[:, 2:4]
    single = run_pks[:, 1] < 0
    run_codes, runs = _names(
        db,
        "SELECT pk, id FROM runs WHERE study_id = ?",
        study_id,
        np.where(single[:, None], run_pks[:, :1], run_pks).reshape(-1),
    )
    run_codes = run_codes.reshape(-1, 2)
    table = VerdictTable(
        judges=tuple(judges),
        runs=tuple(runs),
        judge=judge,
        run_a=run_codes[:, 0].copy(),
        run_b=np.where(single, NO_RUN, run_codes[:, 1]),
        swapped=ints[:, 4].astype(bool),
        turn=ints[:, 5].copy(),
        kind=ints[:, 6].copy(),
        verdict=ints[:, 7].copy(),
        score=np.where(ints[:, 8].astype(bool), data[:, 9], np.nan),
        current=data[:, 10].astype(bool),
        errors=_texts(
            db,
            "SELECT pk, error FROM judge_verdicts WHERE study_id = ? AND error IS NOT NULL "
            "ORDER BY pk",
            study_id,
            pks,
        ),
        explanations=_texts(
            db,
            "SELECT v.pk, b.text FROM judge_verdicts v JOIN blobs b ON b.sha256 = "
            "v.explanation_sha256 WHERE v.study_id = ? AND b.text != '' ORDER BY v.pk",
            study_id,
            pks,
        )
        if explanations
        else {},
    )
    return latest_of_slots(table)


def verdict_rows(
    db: sqlite_utils.Database, study_id: str, *, explanations: bool = False
) -> list[VerdictRow]:
    """:func:`verdict_table` as rows (a bundle's verdict files, a few hundred verdicts)."""
    return verdict_table(db, study_id, explanations=explanations).rows()


def queue_orders(db: sqlite_utils.Database, design_pk: int) -> dict[str, list[str]]:
    """Each reviewer's item codes of a design in their stored queue order."""
    out: dict[str, list[str]] = {}
    for reviewer, code in db.execute(
        "SELECT a.reviewer, i.code FROM assignments a JOIN items i ON i.pk = a.item_pk "
        "WHERE i.design_pk = ? ORDER BY a.reviewer, a.order_index",
        [design_pk],
    ).fetchall():
        out.setdefault(str(reviewer), []).append(str(code))
    return out


def set_queue_order(
    db: sqlite_utils.Database, design_pk: int, reviewer: str, codes: Sequence[str]
) -> None:
    """Store a reviewer's queue order (``codes``: every item of theirs, first to last): the
    judge-informed order of :mod:`abp_tui.services.judge_order`. Only ``order_index`` changes:
    the placement of the responses (``flipped``) stays the plan's."""
    pks = dict(db.execute("SELECT code, pk FROM items WHERE design_pk = ?", [design_pk]).fetchall())
    db.conn.executemany(
        "UPDATE assignments SET order_index = ? WHERE item_pk = ? AND reviewer = ?",
        [(index, pks[code], reviewer) for index, code in enumerate(codes)],
    )


__all__ = [
    "JudgeWriter",
    "imported_labels",
    "item_verdicts",
    "judged_studies",
    "queue_orders",
    "set_queue_order",
    "study_judges",
    "study_verdicts",
    "verdict_rows",
    "verdict_table",
]
