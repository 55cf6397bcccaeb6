"""``bench judges``, the part before the report: the store reading a study's judge verdicts into
the report's verdict table, beside a bare ``SELECT ... fetchall()`` of the same verdicts'
stored columns.

The generated verdicts of :func:`abp_tui.bench.judges.bench_data` are written straight into a
fresh database in a temporary folder (a study, one task, two conditions, a run per response,
the judges and their verdicts, with ``executemany``; not timed: an import of 100,000 verdicts
is ``bench import``'s subject, not this one's). Then, interleaved: ours,
:func:`abp_tui.store.judges.verdict_table` (one query for the verdicts, NumPy mapping run and
judge keys to ids and codes, the latest of each slot, the judges' error texts); the baseline,
one SELECT of the columns a verdict is stored with (judge, both runs, the run shown first,
turn, kind, verdict, score, error, the runs' current flags), fetched as tuples and nothing
more: the floor of reading them at all.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from abp_tui.analysis.judges.arrays import KINDS, NO_VERDICT, VERDICTS, VerdictTable
from abp_tui.store import connect
from abp_tui.store.judges import verdict_table

STUDY = "bench-judges"
NOW = "2026-01-01T00:00:00Z"
_BARE = """
SELECT v.judge_pk, v.run_a_pk, v.run_b_pk, v.shown_first_pk, v.turn, v.kind, v.verdict,
       v.score, v.error, ra.current, rb.current
FROM judge_verdicts v JOIN runs ra ON ra.pk = v.run_a_pk LEFT JOIN runs rb ON rb.pk = v.run_b_pk
WHERE v.study_id = ? ORDER BY v.pk
"""


def _write(path: Path, table: VerdictTable) -> None:
    db = connect(path)
    try:
        with db.atomic():
            c = db.conn
            c.execute(
                "INSERT INTO studies (id, name, protocol, description, limitations, synthetic, "
                "created_at) VALUES (?, ?, 'native', '', '[]', 1, ?)",
                [STUDY, STUDY, NOW],
            )
            c.execute(
                "INSERT INTO tasks (study_id, id, version_no, current, sha256, title, prompt, "
                "base_instruction, evidence, expected_behaviour, fatal_criteria, risk_type, "
                "version, synthetic, metadata, created_at) "
                "VALUES (?, 'T', 1, 1, '', '', '', '', '', '', '[]', '', '', 1, '{}', ?)",
                [STUDY, NOW],
            )
            c.executemany(
                "INSERT INTO conditions (study_id, id, version_no, current, sha256, label, "
                "instructions, version, metadata, created_at) "
                "VALUES (?, ?, 1, 1, '', '', '', '', '{}', ?)",
                [(STUDY, name, NOW) for name in ("A", "B")],
            )
            c.executemany(
                "INSERT INTO runs (pk, study_id, id, version_no, current, sha256, task_pk, "
                "condition_pk, trial, source_file, synthetic, not_exposed, document, "
                "created_at) VALUES (?, ?, ?, 1, 1, '', 1, ?, 1, 'bench', 1, '[]', '{}', ?)",
                [
                    (pk, STUDY, run, 1 + (pk - 1) % 2, NOW)
                    for pk, run in enumerate(table.runs, start=1)
                ],
            )
            c.executemany(
                "INSERT INTO judges (pk, id, kind, model, prompt, version, source, sha256, "
                "document, created_at) VALUES (?, ?, 'ai', 'generated', '', '', 'bench', ?, "
                "'{}', ?)",
                [(pk, name, name, NOW) for pk, name in enumerate(table.judges, start=1)],
            )
            rows = []
            for i in range(len(table)):
                a, b = int(table.run_a[i]) + 1, int(table.run_b[i]) + 1
                code = int(table.verdict[i])
                runs = (table.runs[a - 1], table.runs[b - 1])
                verdict = None if code == NO_VERDICT else (*runs, VERDICTS[2])[code]
                rows.append(
                    (
                        STUDY,
                        int(table.judge[i]) + 1,
                        a,
                        b,
                        b if table.swapped[i] else a,
                        KINDS[int(table.kind[i])],
                        verdict,
                        table.errors.get(i),
                        json.dumps([i]),
                        str(i),
                        NOW,
                    )
                )
            c.executemany(
                "INSERT INTO judge_verdicts (study_id, judge_pk, task_pk, run_a_pk, run_b_pk, "
                "shown_first_pk, kind, verdict, error, document, sha256, created_at) "
                "VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
    finally:
        db.close()


def bench_store_read(table: VerdictTable, repeat: int) -> dict[str, Any]:
    """The store's read of ``table``'s verdicts beside a bare SELECT, medians of ``repeat``."""
    with tempfile.TemporaryDirectory(prefix="abp-bench-judges-") as folder:
        path = Path(folder) / "judges.db"
        _write(path, table)
        db = connect(path)
        try:
            ours: list[float] = []
            bare: list[float] = []
            for _ in range(repeat):
                start = time.perf_counter()
                fetched = db.execute(_BARE, [STUDY]).fetchall()
                bare.append(time.perf_counter() - start)
                start = time.perf_counter()
                read = verdict_table(db, STUDY)
                ours.append(time.perf_counter() - start)
        finally:
            db.close()
    if len(read) != len(table) or len(fetched) != len(table):
        raise RuntimeError("the stored verdicts do not read back whole")
    ours_median, bare_median = statistics.median(ours), statistics.median(bare)
    return {
        "ours": "store.judges.verdict_table: one query, NumPy maps keys to codes, the latest of "
        "each slot, error texts",
        "ours_seconds": ours_median,
        "ours_samples": ours,
        "baseline": "a bare SELECT of the verdicts' stored columns, fetchall() as tuples",
        "baseline_seconds": bare_median,
        "baseline_samples": bare,
        "ratio": ours_median / bare_median if bare_median > 0 else None,
        "verdicts": len(read),
    }
