"""A long import holds SQLite's write lock only in short batches, and stays all or nothing.

Each test imports a generated trace long enough for several batches and looks at the database
from a second connection while the import reads the file (at every progress report): whether
that connection could take the write lock at once, and what it could see.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.bench.imports import write_trace
from abp_tui.errors import ImportFailed
from abp_tui.services.importing import import_paths
from abp_tui.store.staging import orphan_traces

EVENTS = 30_000


def _trace(tmp_path: Path, events: int = EVENTS) -> Path:
    path = tmp_path / "long-study" / "t.oxagen.trial-1.abp-trace.jsonl"
    write_trace(path, events)
    return path


class Watcher:
    """A second connection that, at each progress report, tries the write lock without waiting
    and counts what it can see."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        path = db.execute("PRAGMA database_list").fetchone()[2]
        self.conn = sqlite3.connect(path, timeout=0, isolation_level=None)
        self.seen: list[dict[str, int | bool]] = []

    def __call__(self, _progress: object) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("COMMIT")
            free = True
        except sqlite3.OperationalError:
            free = False
        count = self.conn.execute
        self.seen.append(
            {
                "lock_free": free,
                "runs": count("SELECT count(*) FROM runs").fetchone()[0],
                "studies": count("SELECT count(*) FROM studies").fetchone()[0],
                "events": count("SELECT count(*) FROM trace_events").fetchone()[0],
            }
        )


def _counts(db: sqlite_utils.Database) -> dict[str, int]:
    tables = ("studies", "runs", "imports", "traces", "trace_events")
    return {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}


def test_the_lock_is_free_while_a_long_trace_is_read(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    watcher = Watcher(db)
    report = import_paths(db, [_trace(tmp_path)], progress=watcher)
    assert report.totals["trace events added"] == EVENTS
    during = watcher.seen[:-1]  # the last report comes after the whole file was read
    assert len(during) >= 5
    assert all(s["lock_free"] for s in during), during
    # Batches were committed as the file was read, and none of it could be seen as a study,
    # a run or an import until the end.
    assert during[-1]["events"] > during[0]["events"]
    assert all(s["runs"] == 0 and s["studies"] == 0 for s in during)
    assert _counts(db)["runs"] == 1 and orphan_traces(db) == 0


def test_an_invalid_line_late_in_the_file_leaves_nothing_behind(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    trace = _trace(tmp_path)
    lines = trace.read_text("utf-8").splitlines()
    bad = json.loads(lines[-3])
    bad["seq"] = -1
    lines[-3] = json.dumps(bad)
    trace.write_text("\n".join(lines) + "\n", "utf-8")
    before = _counts(db)
    watcher = Watcher(db)
    with pytest.raises(ImportFailed, match=f":{len(lines) - 2}"):
        import_paths(db, [trace], progress=watcher)
    assert max(s["events"] for s in watcher.seen) > 0  # batches had been committed...
    assert _counts(db) == before  # ...and were taken back
    assert orphan_traces(db) == 0


def test_an_interrupted_import_leaves_nothing_behind(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    before = _counts(db)
    watcher = Watcher(db)

    def interrupt(progress: object) -> None:
        watcher(progress)
        if len(watcher.seen) == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_paths(db, [_trace(tmp_path)], progress=interrupt)
    assert watcher.seen[-1]["events"] > 0
    assert _counts(db) == before


def test_inside_a_callers_transaction_nothing_is_committed_early(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    before = _counts(db)
    watcher = Watcher(db)
    with pytest.raises(RuntimeError, match="changed my mind"), db.atomic():
        import_paths(db, [_trace(tmp_path)], progress=watcher)
        assert _counts(db)["runs"] == 1
        raise RuntimeError("changed my mind")
    assert all(s["events"] == 0 for s in watcher.seen)
    assert _counts(db) == before


def test_two_files_with_the_same_content_in_one_import_are_stored_once(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    first = _trace(tmp_path, 50)
    second = tmp_path / "long-study" / "copy.oxagen.trial-1.abp-trace.jsonl"
    second.write_bytes(first.read_bytes())
    report = import_paths(db, [first, second])
    assert [f.status for f in report.files] == ["imported", "unchanged"]
    assert "the same content as" in report.files[1].note
    assert _counts(db)["imports"] == 1 and orphan_traces(db) == 0
