"""Sorting many lines without holding them: SQLite sorts them in a temporary table.

An export writes some files in an order that is not the order their records are read in (a
bundle's votes, by their JSON): rather than a list of every line held to be sorted, each line
goes to a temporary table of the connection with its sort key as it is made, and the lines are
read back in the keys' order (SQLite's sorter spills to the disk, not to memory). Temporary
tables are the connection's own: the database is not written, and a read transaction stays one.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

import sqlite_utils

from abp_tui.store.db import read_snapshot

_TABLE = "temp.export_sorted_lines"
_BATCH = 1000
"""Lines inserted at a time."""


class SortedLines:
    """Lines added with their keys (text, compared as SQLite's BINARY collation compares them:
    by UTF-8 bytes, which is Python's order of the texts), read back by key."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._pending: list[tuple[str, str]] = []
        self.count = 0

    def add(self, key: str, line: str) -> None:
        self._pending.append((key, line))
        self.count += 1
        if len(self._pending) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        self._conn.executemany(f"INSERT INTO {_TABLE} (k, line) VALUES (?, ?)", self._pending)
        self._pending.clear()

    def lines(self) -> Iterator[str]:
        """Every line added, by key (lines of equal keys in no fixed order)."""
        self._flush()
        for (line,) in self._conn.execute(f"SELECT line FROM {_TABLE} ORDER BY k"):
            yield str(line)


@contextlib.contextmanager
def sorted_lines(db: sqlite_utils.Database) -> Iterator[SortedLines]:
    """A :class:`SortedLines` for the time of the block (in a read transaction of its own
    unless one is open already), its table dropped after."""
    with read_snapshot(db):
        conn = db.conn
        conn.execute(f"DROP TABLE IF EXISTS {_TABLE}")
        conn.execute(f"CREATE TEMP TABLE {_TABLE} (k TEXT NOT NULL, line TEXT NOT NULL)")
        try:
            yield SortedLines(conn)
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute(f"DROP TABLE IF EXISTS {_TABLE}")


__all__ = ["SortedLines", "sorted_lines"]
