"""Imports written in batches (rows held back, keys given before the rows are written, records
staged as plain tuples) store exactly what the record-by-record writer stored: the same content
hashes, the same versions, placeholders filled in place, nothing lost when the staged records
spill to disk.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.bench.imports import write_trace
from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.errors import ImportFailed
from abp_tui.formats.base import ParseContext
from abp_tui.formats.pairwise import FORMAT as PAIRWISE
from abp_tui.models import Condition, Run, Study, Task, TraceEvent
from abp_tui.services.importing import import_paths
from abp_tui.store import ImportWriter
from abp_tui.store.rows import PendingRows
from abp_tui.store.staging import CHUNK_RECORDS, SpoolBudget, StagedFile
from abp_tui.text.canonical import canonical_json, sha256_text
from tests.factories import copy_db, write_jsonl

_STORED = ("studies", "conditions", "tasks", "blobs", "runs", "preferences", "reviewers")
_TIMES = {"created_at", "imported_at"}


def _contents(db: sqlite_utils.Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every stored row of the import's tables, the import times left out."""
    out = {}
    for table in _STORED:
        names = [c.name for c in db[table].columns if c.name not in _TIMES]
        out[table] = sorted(
            db.execute(f"SELECT {', '.join(names)} FROM {table}").fetchall(), key=repr
        )
    return out


def test_a_run_hash_covers_its_record_output_trace_task_and_condition(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """The run's hash is SHA-256 of the canonical JSON of [its record without output and
    source, the output's hash, the trace's hash, the task's hash, the condition's hash]: the
    hashes stored before imports were batched, so that re-importing a study changes nothing."""
    trace = tmp_path / "fix-1.oxagen.abp-trace.jsonl"
    write_trace(trace, 50)
    pairs = tmp_path / "pairs.json"
    write_pairs(pairs, 5)
    for path in (trace, pairs):
        report = import_paths(db, [path])
        assert report.files[0].status == "imported", report.files[0]
    rows = db.execute(
        "SELECT r.sha256, r.document, r.output_sha256, tr.sha256, t.sha256, c.sha256 "
        "FROM runs r JOIN tasks t ON t.pk = r.task_pk JOIN conditions c ON c.pk = r.condition_pk "
        "LEFT JOIN traces tr ON tr.pk = r.trace_pk"
    ).fetchall()
    assert len(rows) == 11  # one traced run, two per pair
    assert any(r[3] is not None for r in rows)
    for sha, document, output_sha, trace_sha, task_sha, cond_sha in rows:
        body = Run.model_validate_json(document).model_dump(
            mode="json", exclude={"output", "source_file", "source_line"}
        )
        expected = canonical_json([body, output_sha, trace_sha, task_sha, cond_sha])
        assert sha == sha256_text(expected)


def test_the_same_run_twice_in_one_file_is_two_versions(db: sqlite_utils.Database) -> None:
    with db.atomic():
        writer = ImportWriter(db, "f.jsonl", "0" * 64, 1, "test")
        for record in (
            Study(id="s"),
            Run(id="r", task_id="T", condition_id="C", output="first"),
            Run(id="r", task_id="T", condition_id="C", output="second"),
        ):
            writer.write(record)
        counts = writer.finish()
    assert counts["runs added"] == 1 and counts["runs new version"] == 1
    stored = db.execute(
        "SELECT r.version_no, r.current, b.text FROM runs r "
        "JOIN blobs b ON b.sha256 = r.output_sha256 ORDER BY r.version_no"
    ).fetchall()
    assert stored == [(1, 0, "first"), (2, 1, "second")]


def test_a_placeholder_made_in_a_file_is_filled_when_its_record_comes(
    db: sqlite_utils.Database,
) -> None:
    with db.atomic():
        writer = ImportWriter(db, "f.jsonl", "0" * 64, 1, "test")
        writer.write(Study(id="s"))
        writer.write(Run(id="r", task_id="T", condition_id="C", output="x"))
        writer.write(Task(id="T", prompt="The real prompt"))
        writer.write(Condition(id="C", label="The real label"))
        counts = writer.finish()
    assert counts["tasks added"] == 1 and counts["conditions added"] == 1
    assert db.execute("SELECT prompt, placeholder, version_no FROM tasks").fetchall() == [
        ("The real prompt", 0, 1)
    ]
    assert db.execute("SELECT label, placeholder FROM conditions").fetchall() == [
        ("The real label", 0)
    ]
    # The run still points at the one task row, now filled.
    assert db.execute(
        "SELECT count(*) FROM runs r JOIN tasks t ON t.pk = r.task_pk WHERE t.id = 'T'"
    ).fetchone() == (1,)


def _stage(db: sqlite_utils.Database, path: Path, budget: SpoolBudget) -> dict[str, int]:
    stage = StagedFile(db, ImportWriter(db, path.name, "0" * 64, 1, "pairwise"), budget)
    for record in PAIRWISE.parse(path, ParseContext(display=str(path))):
        stage.write(record)
    with db.atomic():
        return dict(stage.commit())


def test_staged_records_spilled_to_disk_are_stored_as_those_held_in_memory(
    tmp_path: Path, empty_db_template: Path
) -> None:
    path = tmp_path / "pairs.json"
    write_pairs(path, CHUNK_RECORDS)  # six records a pair: several chunks
    stored = []
    for name, budget in (("memory", SpoolBudget()), ("disk", SpoolBudget(limit=0))):
        db = copy_db(empty_db_template, tmp_path / f"{name}.db")
        try:
            counts = _stage(db, path, budget)
            assert budget.held == 0, "a committed file still counts against the budget"
            stored.append((counts, _contents(db)))
        finally:
            db.close()
    assert stored[0][0]["runs added"] == 2 * CHUNK_RECORDS
    assert stored[0] == stored[1]


def test_batched_import_stores_what_record_by_record_writing_stores(
    tmp_path: Path, empty_db_template: Path
) -> None:
    """The staged, batched import against the writer fed one record at a time (whose rows
    go through the same batches, but with no staging and a flush after every record)."""
    path = tmp_path / "pairs.json"
    write_pairs(path, 300)
    staged = copy_db(empty_db_template, tmp_path / "staged.db")
    single = copy_db(empty_db_template, tmp_path / "single.db")
    try:
        import_paths(staged, [path])
        with single.atomic():
            writer = ImportWriter(single, path.name, "0" * 64, 1, "pairwise")
            for record in PAIRWISE.parse(path, ParseContext(display=str(path))):
                writer.write(record)
                writer._rows.flush()
            writer.finish()
        assert _contents(staged) == _contents(single)
    finally:
        staged.close()
        single.close()


def test_reimporting_a_changed_file_adds_only_what_changed(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    path = tmp_path / "pairs.json"
    write_pairs(path, 50)
    import_paths(db, [path])
    items = json.loads(path.read_text(encoding="utf-8"))
    items[3]["annotator1"] = (items[3]["annotator1"] + 1) % 3  # one label changed
    items[4]["response2"] += " Edited."  # one response changed
    path.write_text(json.dumps(items), encoding="utf-8")
    counts = import_paths(db, [path]).files[0].counts
    assert counts["runs new version"] == 1
    assert counts["runs unchanged"] == 99
    # The changed label, and item 4's three labels (they name its new run version).
    assert counts["preferences added"] == 4
    assert counts["preferences unchanged"] == 146
    assert db.execute("SELECT count(*) FROM runs WHERE current = 1").fetchone() == (100,)


def test_a_trace_staged_for_a_run_is_attached_to_it(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    stage = StagedFile(db, ImportWriter(db, "t.jsonl", "0" * 64, 1, "test"))
    stage.write(Study(id="s"))
    for seq, kind in ((1, "run.start"), (2, "run.end")):
        stage.write(TraceEvent(run_id="r", seq=seq, kind=kind, raw=f'{{"seq":{seq}}}'))
    stage.write(Run(id="r", task_id="T", condition_id="C"))
    with db.atomic():
        counts = stage.commit()
    assert counts["trace events added"] == 2
    assert db.execute(
        "SELECT t.n_events FROM runs r JOIN traces t ON t.pk = r.trace_pk"
    ).fetchall() == [(2,)]


def test_rows_are_keyed_only_inside_a_write_transaction(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "k.db", isolation_level=None)
    conn.execute("CREATE TABLE tasks (pk INTEGER PRIMARY KEY)")
    conn.execute("INSERT INTO tasks VALUES (41)")
    rows = PendingRows(conn)
    with pytest.raises(RuntimeError, match="write transaction"):
        rows.key("tasks")
    conn.execute("BEGIN IMMEDIATE")
    assert [rows.key("tasks"), rows.key("tasks")] == [42, 43]
    assert rows.pending("tasks", 42) and not rows.pending("tasks", 41)
    conn.execute("ROLLBACK")
    conn.close()


def test_a_big_json_list_names_a_number_out_of_range_where_it_is(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """A document past a megabyte has its numbers checked as they are parsed, not by a scan of
    its text; what is refused, and where it is named, is the same as for a small one."""
    for pairs in (3, 4000):
        path = tmp_path / f"big{pairs}.json"
        write_pairs(path, pairs)
        items = json.loads(path.read_text(encoding="utf-8"))
        items[2]["annotator1"] = 2**64
        path.write_text(json.dumps(items), encoding="utf-8")
        assert (path.stat().st_size > 1 << 20) == (pairs > 3)
        with pytest.raises(ImportFailed) as refused:
            import_paths(db, [path])
        message = str(refused.value)
        assert path.name in message
        assert "$[2].annotator1" in message
        assert "out of range" in message


def test_native_runs_import_in_batches(tmp_path: Path, db: sqlite_utils.Database) -> None:
    """More runs than one batch holds, in a file that names their tasks after them."""
    lines: list[dict[str, object]] = [{"type": "study", "id": "s"}]
    n = 6000
    lines += [
        {"type": "run", "id": f"r{i}", "task_id": f"T{i % 7}", "condition_id": "C", "output": "o"}
        for i in range(n)
    ]
    lines += [{"type": "task", "id": f"T{i}", "prompt": f"prompt {i}"} for i in range(7)]
    counts = import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)]).files[0].counts
    assert counts["runs added"] == n
    assert counts["tasks added"] == 7
    assert db.execute("SELECT count(*), count(DISTINCT task_pk) FROM runs").fetchone() == (n, 7)
    assert db.execute("SELECT count(*) FROM tasks WHERE placeholder = 0").fetchone() == (7,)
    assert db.execute("SELECT count(*) FROM blobs").fetchone() == (1,)


def test_staged_records_past_the_budget_go_to_disk_at_once(db: sqlite_utils.Database) -> None:
    """Long outputs: what a file holds in memory stays within the budget and one record, not
    a whole chunk of them."""
    budget = SpoolBudget(limit=200_000)
    stage = StagedFile(db, ImportWriter(db, "big.jsonl", "0" * 64, 1, "test"), budget)
    stage.write(Study(id="s"))
    most = 0
    for i in range(40):
        stage.write(Run(id=f"r{i}", task_id="T", condition_id="C", output=f"{i} " + "x" * 50_000))
        most = max(most, budget.held)
    assert most <= 200_000 + 60_000
    with db.atomic():
        counts = stage.commit()
    assert counts["runs added"] == 40
    assert db.execute("SELECT count(*), min(length(text)) FROM blobs").fetchone() == (40, 50_002)
