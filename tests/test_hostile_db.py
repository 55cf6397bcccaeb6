"""Databases that are not ours, or that the disk will not let us write: refused in one line.

The fault (issue 15): opening a SQLite file of another program added abp-tui's tables to it.
Now such a file is refused, named, and left byte for byte as it was; an empty or new file is
initialised; a file that is not SQLite at all is refused. A read-only database and a full disk
give one clear line and exit status 1, and nothing already stored is lost or half-written.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.errors import StoreError
from abp_tui.store import connect
from abp_tui.store import db as store_db
from tests.factories import Cli, write_jsonl


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _content(path: Path) -> str:
    """A digest of every row and schema statement (the file's bytes change when a reader's
    connection folds the write-ahead log back in, its content does not)."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return hashlib.sha256("\n".join(conn.iterdump()).encode()).hexdigest()
    finally:
        conn.close()


def _siblings(path: Path) -> set[str]:
    return {p.name for p in path.parent.iterdir()}


def _foreign(path: Path) -> Path:
    """A SQLite file of another program: two tables with rows, an index, a view."""
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
        CREATE TABLE tags (note_id INTEGER, tag TEXT);
        CREATE INDEX tags_note ON tags (note_id);
        CREATE VIEW tagged AS SELECT body, tag FROM notes JOIN tags ON note_id = notes.id;
        INSERT INTO notes (body) VALUES ('shopping list'), ('ideas');
        INSERT INTO tags VALUES (1, 'home');
        """
    )
    conn.commit()
    conn.close()
    return path


def _tables(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [r[0] for r in conn.execute("SELECT name FROM sqlite_master ORDER BY name")]
    finally:
        conn.close()


def test_a_database_of_another_program_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = _foreign(tmp_path / "notes.sqlite")
    before, files, tables = _digest(path), _siblings(path), _tables(path)
    with pytest.raises(StoreError) as caught:
        connect(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: not a usable abp-tui database")
    assert "4 schema objects of another program (notes, tagged, tags, tags_note)" in message
    assert "nothing was changed" in message
    assert _digest(path) == before
    assert _tables(path) == tables == ["notes", "tagged", "tags", "tags_note"]
    assert _siblings(path) == files  # no -wal or -shm left beside it either


def test_the_cli_refuses_it_in_one_line(tmp_path: Path, cli: Cli) -> None:
    path = _foreign(tmp_path / "notes.sqlite")
    before = _digest(path)
    src = write_jsonl(
        tmp_path / "s.jsonl", [{"type": "run", "id": "r", "task_id": "T", "condition_id": "A"}]
    )
    for argv in (("status",), ("import", src), ("study", "list")):
        result = cli(*argv, "--db", path)
        assert result.code == 1, argv
        lines = result.err.strip().splitlines()
        assert len(lines) == 1 and "notes.sqlite: not a usable abp-tui database" in lines[0]
        assert "Traceback" not in result.err
    assert _digest(path) == before


def test_a_foreign_table_named_like_our_schema_record_is_not_ours(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE _migrations (id INTEGER PRIMARY KEY, name TEXT, applied_at TEXT);"
        "INSERT INTO _migrations (name, applied_at) VALUES ('001_users', 'x');"
        "CREATE TABLE users (id INTEGER PRIMARY KEY);"
    )
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(StoreError, match="1 table of another program \\(users\\)"):
        connect(path)
    assert _digest(path) == before


def test_a_file_that_is_not_sqlite_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "data.db"
    path.write_bytes(b"PK\x03\x04 a zip archive, not a database" * 50)
    before = _digest(path)
    with pytest.raises(
        StoreError, match=r"data\.db: not a usable abp-tui database: it is not a SQLite file"
    ):
        connect(path)
    assert _digest(path) == before
    assert _siblings(path) == {"data.db"}


@pytest.mark.parametrize("kind", ["new", "empty"])
def test_a_new_or_empty_file_is_initialised(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "fresh.db"
    if kind == "empty":
        path.write_bytes(b"")
    db = connect(path)
    assert db.execute("SELECT count(*) FROM _migrations").fetchone()[0] > 0
    db.close()
    connect(path).close()  # and it opens again as ours


def test_our_own_database_still_opens_after_being_used(tmp_path: Path) -> None:
    path = tmp_path / "ours.db"
    db = connect(path)
    db.execute("INSERT INTO reviewers (name, external) VALUES ('ana', 0)")
    db.close()
    again = connect(path)
    assert again.execute("SELECT name FROM reviewers").fetchall() == [("ana",)]
    again.close()


# -- a database the disk will not let us write ---------------------------------------------------
def _study_file(tmp_path: Path, name: str, runs: int, output: str = "fine") -> Path:
    lines: list[dict[str, object]] = [{"type": "study", "id": name}]
    lines += [
        {"type": "run", "id": f"r{i}", "task_id": "T", "condition_id": "A", "output": output}
        for i in range(runs)
    ]
    return write_jsonl(tmp_path / f"{name}.jsonl", lines)


def _counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {
            t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("studies", "runs", "imports", "blobs", "traces", "trace_events")
        }
    finally:
        conn.close()


def test_a_read_only_database_is_read_and_refuses_writes_in_one_line(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tests may run as a user whom permissions do not stop, so the file's being read-only is
    # what connect() is told; SQLite itself then opens it read-only and refuses every write.
    assert cli("import", _study_file(tmp_path, "kept", 2)).code == 0
    before = _content(cli.db_path)
    monkeypatch.setattr(store_db, "_writable", lambda path: False)
    status = cli("status", "--json")
    assert status.code == 0, status.err
    assert [s["id"] for s in json.loads(status.out)["studies"]] == ["kept"]
    listed = cli("study", "list", "--db", cli.db_path)
    assert listed.code == 0, listed.err
    result = cli("import", _study_file(tmp_path, "more", 2))
    assert result.code == 1
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert "cli.db: the database is read-only" in lines[0] and "nothing was changed" in lines[0]
    # A write outside the store's transactions (the audit entry of unblinding) says the same.
    unblinded = cli("unblind", "--study", "kept", "--yes")
    assert unblinded.code == 1
    assert unblinded.err.count("\n") == 1 and "the database is read-only" in unblinded.err
    assert _content(cli.db_path) == before


def _full_disk(monkeypatch: pytest.MonkeyPatch, spare_pages: int) -> None:
    """Make every connection see a disk with only ``spare_pages`` free pages (SQLite's own
    page limit, which fails a write the way a full disk does: SQLITE_FULL)."""
    real = store_db.connect

    def connect_on_a_full_disk(path: Path) -> sqlite_utils.Database:
        db = real(path)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + spare_pages}")
        return db

    # Every face opens the database through the store's lazy ``connect``, which reads this one.
    monkeypatch.setattr(store_db, "connect", connect_on_a_full_disk)


def test_a_full_disk_is_one_line_and_nothing_is_half_written(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("import", _study_file(tmp_path, "kept", 3)).code == 0
    before = _counts(cli.db_path)
    _full_disk(monkeypatch, spare_pages=20)
    big = _study_file(tmp_path, "big", 400, output="a long output that fills pages " * 40)
    result = cli("import", big)
    assert result.code == 1
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert "cli.db: the disk is full; nothing was changed" in lines[0]
    monkeypatch.undo()
    assert _counts(cli.db_path) == before
    db = connect(cli.db_path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()


def test_a_full_disk_during_a_long_trace_leaves_nothing_behind(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from abp_tui.bench.imports import write_trace

    assert cli("import", _study_file(tmp_path, "kept", 1)).code == 0
    before = _counts(cli.db_path)
    trace = tmp_path / "long-study" / "t.oxagen.trial-1.abp-trace.jsonl"
    write_trace(trace, 30_000)
    # Room for a few committed batches of events, not for the whole trace.
    _full_disk(monkeypatch, spare_pages=600)
    result = cli("import", trace)
    assert result.code == 1, result.err
    assert "the disk is full" in result.err and len(result.err.strip().splitlines()) == 1
    monkeypatch.undo()
    assert _counts(cli.db_path) == before


def test_a_database_kept_busy_past_the_timeout_is_one_line_and_writes_nothing(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("import", _study_file(tmp_path, "kept", 1)).code == 0
    before = _counts(cli.db_path)
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 200)
    holder = sqlite3.connect(cli.db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process writing, and not letting go
    try:
        result = cli("import", _study_file(tmp_path, "more", 2))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.code == 1
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert "the database stayed busy for more than 0.2 s" in lines[0]
    assert "nothing was changed" in lines[0]
    assert _counts(cli.db_path) == before
