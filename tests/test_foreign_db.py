"""A file that is not ours is never written: decided before any write, pragma or checkpoint.

The faults (issue 27): a SQLite file holding only a view, or a table named ``sqliteXdata`` (the
old test ``NOT LIKE 'sqlite_%'`` read ``_`` as any character), or only a ``user_version``, was
migrated into an abp-tui database; a file with a ``_migrations`` table of its own was switched to
WAL and then refused; a foreign database in WAL mode was checkpointed, its log folded in and
removed. A named pipe given as ``--db`` blocked forever; ``--db :memory:`` and a name too long
for the file system ended in internal errors. A database on read-only media could not be read.

Every case here hashes every file in the folder (the database and any ``-wal``/``-shm`` beside
it) before and after.
"""

from __future__ import annotations

import gc
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from abp_tui.errors import StoreError
from abp_tui.store import connect
from abp_tui.store import db as store_db
from abp_tui.store.ownership import APPLICATION_ID
from tests.factories import Cli, write_jsonl


def _folder_state(folder: Path) -> dict[str, str]:
    """Every file of the folder by name -> a digest of its bytes."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def _sqlite(path: Path, script: str, wal: bool = False) -> Path:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(script)
    conn.commit()
    conn.close()
    return path


def _only_a_view(path: Path) -> Path:
    return _sqlite(path, "CREATE VIEW answer AS SELECT 42 AS value;")


def _sqlite_x_data(path: Path) -> Path:
    return _sqlite(path, "CREATE TABLE sqliteXdata (a); INSERT INTO sqliteXdata VALUES (1);")


def _user_version(path: Path) -> Path:
    return _sqlite(path, "PRAGMA user_version = 7;")


def _application_id(path: Path) -> Path:
    return _sqlite(path, "PRAGMA application_id = 1234;")


def _own_migrations_only(path: Path) -> Path:
    return _sqlite(
        path,
        "CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL);"
        "INSERT INTO _migrations VALUES ('001_users', '2020');",
    )


def _our_first_migration_name(path: Path) -> Path:
    """Another tool naming its first migration as we do (``0001_initial``)."""
    return _sqlite(
        path,
        "CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL);"
        "INSERT INTO _migrations VALUES ('0001_initial', '2020');"
        "CREATE TABLE users (id INTEGER PRIMARY KEY);",
    )


def _wal_at_rest(path: Path) -> Path:
    return _sqlite(path, "CREATE TABLE t (a); INSERT INTO t VALUES (1);", wal=True)


def _wal_with_its_log(path: Path) -> Path:
    """A WAL database whose content is still all in its log (its program is running, or was
    killed): the main file alone looks empty."""
    source = path.with_name("source.sqlite")
    conn = sqlite3.connect(source)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (a)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.commit()
    shutil.copyfile(source, path)
    shutil.copyfile(f"{source}-wal", f"{path}-wal")
    conn.close()
    source.unlink()
    return path


def _corrupt(path: Path) -> Path:
    """A SQLite header over pages that are not SQLite's."""
    _sqlite(path, "CREATE TABLE t (a); INSERT INTO t VALUES (1);")
    data = bytearray(path.read_bytes())
    data[100:] = b"\xa5" * (len(data) - 100)
    path.write_bytes(bytes(data))
    return path


FOREIGN: dict[str, tuple[Callable[[Path], Path], str]] = {
    "only a view": (_only_a_view, "1 view of another program (answer)"),
    "sqliteXdata": (_sqlite_x_data, "1 table of another program (sqliteXdata)"),
    "user_version": (_user_version, "another program's user_version 7"),
    "application_id": (_application_id, "another program's application id 0x4d2"),
    "own _migrations": (_own_migrations_only, "1 table of another program (_migrations)"),
    "0001_initial of another tool": (_our_first_migration_name, "(users)"),
    "WAL at rest": (_wal_at_rest, "1 table of another program (t)"),
    "WAL with its log": (_wal_with_its_log, "1 table of another program (t)"),
    "corrupt": (_corrupt, "SQLite cannot read it"),
}


@pytest.mark.parametrize("case", list(FOREIGN))
def test_a_file_that_is_not_ours_is_refused_and_no_byte_changes(tmp_path: Path, case: str) -> None:
    make, said = FOREIGN[case]
    path = make(tmp_path / "their.sqlite")
    before = _folder_state(tmp_path)
    with pytest.raises(StoreError) as caught:
        connect(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: not a usable abp-tui database"), message
    assert said in message and "nothing was changed" in message
    assert "\n" not in message
    assert _folder_state(tmp_path) == before  # no -wal or -shm made, none changed or removed


@pytest.mark.parametrize("case", ["only a view", "user_version", "WAL with its log"])
def test_every_command_refuses_it_in_one_line(tmp_path: Path, cli: Cli, case: str) -> None:
    path = FOREIGN[case][0](tmp_path / "their.sqlite")
    src = write_jsonl(
        tmp_path / "s.jsonl", [{"type": "run", "id": "r", "task_id": "T", "condition_id": "A"}]
    )
    before = _folder_state(tmp_path)
    for argv in (("status",), ("status", "--json"), ("import", src), ("study", "list")):
        result = cli(*argv, "--db", path)
        assert result.code == 1, (argv, result.err)
        lines = result.err.strip().splitlines()
        assert len(lines) == 1 and "their.sqlite: not a usable abp-tui database" in lines[0]
    assert _folder_state(tmp_path) == before


def test_a_database_of_a_newer_abp_tui_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "newer.db"
    connect(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO _migrations VALUES ('9999_from_the_future', 'x')")
    conn.commit()
    conn.execute("PRAGMA journal_mode = DELETE")  # as a newer version might leave it
    conn.close()
    before = _folder_state(tmp_path)
    with pytest.raises(StoreError, match=r"newer\.db: the database was written by a newer abp-tui"):
        connect(path)
    assert _folder_state(tmp_path) == before


# -- ours: new, empty, and made by the previous version -------------------------------------------
def test_a_new_database_carries_our_application_id(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    connect(path).close()
    assert int.from_bytes(path.read_bytes()[68:72], "big") == APPLICATION_ID
    connect(path).close()


def _previous_version(path: Path) -> Path:
    """A database as the previous version made it: our schema, no application id."""
    db = connect(path)
    db.execute("INSERT INTO reviewers (name, external) VALUES ('ana', 0)")
    db.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 0")
    conn.close()
    assert int.from_bytes(path.read_bytes()[68:72], "big") == 0
    return path


def test_a_database_of_the_previous_version_opens_as_before(tmp_path: Path) -> None:
    path = _previous_version(tmp_path / "old.db")
    db = connect(path)
    assert db.execute("SELECT name FROM reviewers").fetchall() == [("ana",)]
    db.close()


def test_our_database_with_everything_still_in_its_log_opens(tmp_path: Path) -> None:
    """The previous version's database whose process was killed before its first checkpoint:
    its main file alone looks empty, its log holds the schema and the rows."""
    source = tmp_path / "source.db"
    holder = connect(source)
    holder.execute("PRAGMA wal_autocheckpoint = 0")
    holder.execute("PRAGMA application_id = 0")
    holder.execute("INSERT INTO reviewers (name, external) VALUES ('ana', 0)")
    path = tmp_path / "killed.db"
    shutil.copyfile(source, path)
    shutil.copyfile(f"{source}-wal", f"{path}-wal")
    holder.close()
    db = connect(path)
    assert db.execute("SELECT name FROM reviewers").fetchall() == [("ana",)]
    db.close()


# -- what --db may name ---------------------------------------------------------------------------
def _run(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``abp-tui`` in a process of its own, so that a command that blocks fails the test."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run(
        [sys.executable, "-m", "abp_tui", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_named_pipe_as_the_database_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    for argv in (("status",), ("study", "list")):
        try:
            result = _run(tmp_path, *argv, "--db", str(fifo))
        except subprocess.TimeoutExpired:
            pytest.fail(f"{argv}: still waiting on the named pipe")
        assert result.returncode == 1, result.stderr
        assert result.stderr.strip() == (
            f"abp-tui: {fifo}: not a usable abp-tui database: it is a named pipe, not a file; "
            "nothing was changed (name a new file with --db)"
        )


@pytest.mark.parametrize("kind", ["folder", ":memory:", "300 characters"])
def test_what_cannot_be_a_database_file_is_one_line_and_exit_1(
    tmp_path: Path, cli: Cli, kind: str
) -> None:
    if kind == "folder":
        target = str(tmp_path / "folder.db")
        os.mkdir(target)
    elif kind == ":memory:":
        target = ":memory:"
    else:
        target = str(tmp_path / ("a" * 300 + ".db"))
    before = _folder_state(tmp_path)
    schemas = ("schema", "--out", str(tmp_path / "schemas"))
    for argv in (("status",), ("study", "list"), ("import", str(tmp_path / "x.jsonl")), schemas):
        result = cli(*argv, "--db", target)
        assert result.code == 1, (argv, result.err)
        lines = result.err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in result.err, result.err
        assert target[-40:] in lines[0] or target in lines[0]
    assert _folder_state(tmp_path) == before
    assert not (tmp_path / ":memory:").exists()


# -- read-only media -----------------------------------------------------------------------------
def test_a_database_in_a_folder_nobody_can_write_is_read_and_nothing_is_made_beside_it(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On read-only media SQLite cannot make the ``-shm`` and ``-wal`` files a WAL database is
    read with. The tests may run as a user whom permissions do not stop, so the folder's being
    read-only is what ``os.access`` says; that nothing is created beside the file is what
    makes reading possible there."""
    src = write_jsonl(
        tmp_path / "kept.jsonl",
        [
            {"type": "study", "id": "kept"},
            {"type": "run", "id": "r", "task_id": "T", "condition_id": "A", "output": "fine"},
        ],
    )
    folder = tmp_path / "media"
    folder.mkdir()
    db_file = folder / "ro.db"
    assert cli("import", src, "--db", db_file).code == 0
    gc.collect()  # the command's connection closes: the log is folded in and removed
    assert sorted(p.name for p in folder.iterdir()) == ["ro.db"]
    before = _folder_state(folder)
    mtime = db_file.stat().st_mtime_ns
    real_access = os.access

    def read_only_media(path: object, mode: int, *args: object, **kwargs: object) -> bool:
        if mode & os.W_OK and str(path).startswith(str(folder)):
            return False
        return real_access(path, mode, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", read_only_media)
    for argv in (("status",), ("status", "--json")):
        result = cli(*argv, "--db", db_file)
        assert result.code == 0, (argv, result.err)
        assert "kept" in result.out, result.out
        assert _folder_state(folder) == before, argv
    more = write_jsonl(tmp_path / "more.jsonl", [{"type": "study", "id": "more"}])
    refused = cli("import", more, "--db", db_file)
    assert refused.code == 1 and "read-only" in refused.err
    assert len(refused.err.strip().splitlines()) == 1
    assert _folder_state(folder) == before
    assert db_file.stat().st_mtime_ns == mtime
    assert store_db.FIRST_MIGRATION  # the store module is the one patched above
