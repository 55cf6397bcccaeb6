"""The store's connection behaves as sqlite-utils' Database for what the code uses of it
(execute, query, atomic, close), checked side by side with sqlite-utils itself, and opening a
database imports no sqlite-utils until something else of its Database is asked for."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.store import connect
from abp_tui.store.connection import Database, first_keyword

Opener = Callable[[Path], Any]


def _ours(path: Path) -> Database:
    return Database(sqlite3.connect(path))


def _theirs(path: Path) -> sqlite_utils.Database:
    return sqlite_utils.Database(sqlite3.connect(path), execute_plugins=False)


BOTH = pytest.mark.parametrize("opener", [_ours, _theirs], ids=["ours", "sqlite-utils"])


def _others_see(path: Path) -> list[tuple[Any, ...]]:
    other = sqlite3.connect(path)
    try:
        return other.execute("SELECT v FROM t ORDER BY v").fetchall()
    finally:
        other.close()


@BOTH
def test_a_write_outside_a_transaction_is_committed_at_once(opener: Opener, tmp_path: Path) -> None:
    db = opener(tmp_path / "a.db")
    db.execute("CREATE TABLE t (v INTEGER UNIQUE)")
    db.execute("INSERT INTO t VALUES (?)", [1])
    assert not db.conn.in_transaction
    assert _others_see(tmp_path / "a.db") == [(1,)]
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO t VALUES (1)")
    assert not db.conn.in_transaction  # the failed statement's transaction is not left open
    db.execute("INSERT INTO t VALUES (2)")
    assert _others_see(tmp_path / "a.db") == [(1,), (2,)]
    db.close()


@BOTH
def test_atomic_rolls_back_a_failed_block_and_a_nested_one_alone(
    opener: Opener, tmp_path: Path
) -> None:
    db = opener(tmp_path / "a.db")
    db.execute("CREATE TABLE t (v INTEGER)")
    with pytest.raises(RuntimeError), db.atomic():
        db.execute("INSERT INTO t VALUES (1)")
        raise RuntimeError("undo")
    with db.atomic():
        db.execute("INSERT INTO t VALUES (2)")
        with pytest.raises(RuntimeError), db.atomic():
            db.execute("INSERT INTO t VALUES (3)")
            raise RuntimeError("undo the savepoint only")
        db.execute("INSERT INTO t VALUES (4)")
    assert _others_see(tmp_path / "a.db") == [(2,), (4,)]
    db.close()


@BOTH
def test_query_yields_dicts_and_refuses_statements_without_rows(
    opener: Opener, tmp_path: Path
) -> None:
    db = opener(tmp_path / "a.db")
    db.execute("CREATE TABLE t (v INTEGER)")
    db.execute("INSERT INTO t VALUES (1)")
    assert list(db.query("SELECT v, v AS v FROM t WHERE v = ?", [1])) == [{"v": 1, "v_2": 1}]
    assert list(db.query("PRAGMA recursive_triggers")) == [{"recursive_triggers": 1}]
    with pytest.raises(ValueError, match="returns rows"):
        db.query("INSERT INTO t VALUES (5)")  # run, then undone
    with pytest.raises(ValueError, match="returns rows"):
        db.query("BEGIN")
    assert _others_see(tmp_path / "a.db") == [(1,)]
    db.close()


def test_first_keyword_skips_what_the_driver_skips() -> None:
    assert first_keyword("  -- a comment\n /* another */ ;\ufeffinsert into t") == "INSERT"
    assert first_keyword("-- only a comment") == ""


def test_anything_else_is_handed_to_sqlite_utils_on_the_same_connection(tmp_path: Path) -> None:
    db = connect(tmp_path / "s.db")
    assert "studies" in db.table_names()
    assert "id" in {c.name for c in db["studies"].columns}
    db.close()


def test_opening_a_database_imports_no_sqlite_utils(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from abp_tui.store import connect\n"
        f"db = connect({str(tmp_path / 's.db')!r})\n"
        "with db.atomic():\n"
        "    db.execute('CREATE TABLE t (v)')\n"
        "print(list(db.query('SELECT count(*) AS n FROM t')), 'sqlite_utils' in sys.modules)\n"
        "db['t'].columns\n"
        "print('sqlite_utils' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["[{'n': 0}] False", "True"]
