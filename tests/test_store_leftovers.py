"""What a command that did not finish leaves in the database, or beside it: nothing, for good.

The faults (issue 27): imports killed, or refused after their transaction had taken some files,
left their staged trace events for ever (241,664 rows, 54 MB after three kills) while saying
that nothing changed; a refused ``pack open`` left an empty database file behind.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.bench.imports import write_trace
from abp_tui.services.importing import import_paths
from abp_tui.store import connect, import_sessions
from abp_tui.store.staging import StagedFile, orphan_traces
from tests.factories import Cli, write_jsonl

ROOT = Path(__file__).resolve().parents[1]
EVENTS = 30_000

KILLED_AFTER_FIRST_BATCH = """
import os, signal, sys
from abp_tui.store import staging
real = staging.StagedFile._commit_batch
def commit_then_die(self):
    real(self)
    if self.db.execute("SELECT count(*) FROM trace_events").fetchone()[0]:
        os.kill(os.getpid(), signal.SIGKILL)  # killed mid-import, its first batch committed
staging.StagedFile._commit_batch = commit_then_die
from abp_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _trace(tmp_path: Path) -> Path:
    path = tmp_path / "long-study" / "t.oxagen.trial-1.abp-trace.jsonl"
    write_trace(path, EVENTS)
    return path


def _count(path: Path, table: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def _killed_import(tmp_path: Path, db_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            KILLED_AFTER_FIRST_BATCH,
            "import",
            str(_trace(tmp_path)),
            "--db",
            str(db_path),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert _count(db_path, "trace_events") > 0  # it had staged events when it died


def test_what_a_killed_import_staged_is_deleted_when_the_database_is_next_opened(
    tmp_path: Path,
) -> None:
    db_path = tmp_path / "k.db"
    connect(db_path).close()
    _killed_import(tmp_path, db_path)
    db = connect(db_path)
    assert orphan_traces(db) == 0
    assert db.execute("SELECT count(*) FROM trace_events").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM import_sessions").fetchone()[0] == 0
    db.close()


def test_the_next_import_deletes_it_too_and_imports(tmp_path: Path, cli: Cli) -> None:
    connect(cli.db_path).close()
    _killed_import(tmp_path, cli.db_path)
    more = write_jsonl(tmp_path / "more.jsonl", [{"type": "study", "id": "more"}])
    result = cli("import", more)
    assert result.code == 0, result.err
    assert _count(cli.db_path, "trace_events") == 0
    assert _count(cli.db_path, "studies") == 1


def _staged_trace(db: sqlite_utils.Database, events: int = 3) -> int:
    cur = db.execute("INSERT INTO traces (sha256, n_events) VALUES (NULL, 0)")
    pk = int(cur.lastrowid or 0)
    db.conn.executemany(
        "INSERT INTO trace_events (trace_pk, seq, kind, raw) VALUES (?, ?, 'x', '{}')",
        [(pk, i) for i in range(events)],
    )
    db.conn.commit()
    return pk


def test_an_import_in_progress_keeps_what_it_staged(tmp_path: Path) -> None:
    """Staged traces of an import whose process is running are its own: never deleted."""
    db = connect(tmp_path / "live.db")
    running = import_sessions.begin(db)  # this process: alive
    _staged_trace(db)
    other = connect(tmp_path / "live.db")  # an opening beside it
    assert import_sessions.clean_stale(other, sweep=True) == 0
    import_paths(other, [write_jsonl(tmp_path / "s.jsonl", [{"type": "study", "id": "s"}])])
    assert orphan_traces(other) == 1
    import_sessions.end(db, running)
    assert import_sessions.clean_stale(other, sweep=True) == 1
    assert orphan_traces(other) == 0
    other.close()
    db.close()


def test_a_session_whose_process_is_gone_is_stale(tmp_path: Path) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    db = connect(tmp_path / "gone.db")
    db.execute(
        "INSERT INTO import_sessions (host, pid, started_at) VALUES (?, ?, ?)",
        [import_sessions._host(), int(gone.stdout), "2026-01-01T00:00:00.000000Z"],
    )
    db.conn.commit()
    _staged_trace(db, events=5)
    db.close()
    again = connect(tmp_path / "gone.db")
    assert orphan_traces(again) == 0
    assert again.execute("SELECT count(*) FROM import_sessions").fetchone()[0] == 0
    again.close()


def test_a_commit_rolled_back_after_taking_a_file_leaves_its_staged_traces_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = tmp_path / "a-study" / "t.oxagen.trial-1.abp-trace.jsonl"
    second = tmp_path / "b-study" / "t.oxagen.trial-1.abp-trace.jsonl"
    write_trace(first, 5_000)
    write_trace(second, 5_001)  # another content
    db = connect(tmp_path / "r.db")
    real = StagedFile.commit
    calls: list[int] = []

    def second_fails(self: StagedFile, partial: bool = False) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, partial)

    monkeypatch.setattr(StagedFile, "commit", second_fails)
    with pytest.raises(Exception, match="the disk is full"):
        import_paths(db, [first, second])
    assert len(calls) == 2  # the first file was committed into the transaction rolled back
    assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    assert orphan_traces(db) == 0
    assert db.execute("SELECT count(*) FROM trace_events").fetchone()[0] == 0
    db.close()


# -- pack open ------------------------------------------------------------------------------------
def test_a_refused_pack_open_leaves_no_database(tmp_path: Path, cli: Cli) -> None:
    bad = tmp_path / "bad.pack.json"
    bad.write_text('{"format": "abp-study-pack/v2"}', "utf-8")
    station = tmp_path / "stations" / "ann.db"
    result = cli("pack", "open", bad, "--db", station)
    assert result.code == 1, result.err
    assert len(result.err.strip().splitlines()) == 1 and "bad.pack.json" in result.err
    assert not station.parent.exists()
    beside = tmp_path / "ann.db"
    result = cli("pack", "open", bad, "--db", beside)
    assert result.code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.pack.json"]
