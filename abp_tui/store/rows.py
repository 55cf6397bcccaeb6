"""The rows of an import held back and written in batches: one ``executemany`` per table.

One ``execute`` per task, run and output made the statements themselves most of an import's
SQL time. Rows are kept here instead and written together, tables in the order their foreign
keys need (a run after its task, condition and output; a preference after its runs).

A versioned row is given its key here, the next integer after the table's largest (what SQLite
would pick itself, the tables having no AUTOINCREMENT), so that the rows referring to it can be
built before it is written. That is sound only while one write transaction holds the lock from
the choice of the key to the write; :meth:`PendingRows.key` refuses to run outside one, and keys
are chosen afresh after every flush.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Final

FLUSH_AT: Final = 5000
"""Rows held before they are written (a few megabytes at most of a typical import)."""
ORDER: Final = ("conditions", "tasks", "blobs", "runs", "preferences")
"""Tables in the order their foreign keys need them written."""


class PendingRows:
    """Rows waiting for one ``executemany`` per statement (see the module docstring)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._rows: dict[str, dict[str, list[tuple[Any, ...]]]] = {t: {} for t in ORDER}
        """Table -> INSERT statement -> its rows."""
        self._retired: dict[str, list[tuple[int]]] = {t: [] for t in ORDER}
        """Table -> keys of rows whose new version is pending: ``current = 0`` before it."""
        self._next: dict[str, int] = {}
        self._first: dict[str, int] = {}
        """The first key given out since the last flush, per table: keys from it on are pending."""
        self._held = 0

    def key(self, table: str) -> int:
        """A new row's key in ``table`` (see the module docstring for why it is sound)."""
        pk = self._next.get(table)
        if pk is None:
            if not self.conn.in_transaction:
                raise RuntimeError("rows are keyed only inside the import's write transaction")
            row = self.conn.execute(f"SELECT COALESCE(MAX(pk), 0) + 1 FROM {table}").fetchone()
            pk = self._first[table] = int(row[0])
        self._next[table] = pk + 1
        return pk

    def pending(self, table: str, pk: int) -> bool:
        """True when the row with this key is held here, not yet in the table."""
        first = self._first.get(table)
        return first is not None and pk >= first

    def insert(self, table: str, sql: str, row: tuple[Any, ...]) -> None:
        statements = self._rows[table]
        rows = statements.get(sql)
        if rows is None:
            rows = statements[sql] = []
        rows.append(row)
        self._held += 1
        if self._held >= FLUSH_AT:
            self.flush()

    def retire(self, table: str, pk: int) -> None:
        """Mark a row no longer current (its new version is being inserted)."""
        if self.pending(table, pk):
            self.flush()  # the same id twice in one file: the first version must exist first
        self._retired[table].append((pk,))

    def flush(self) -> None:
        for table in ORDER:
            retired = self._retired[table]
            if retired:
                self.conn.executemany(f"UPDATE {table} SET current = 0 WHERE pk = ?", retired)
                retired.clear()
            statements = self._rows[table]
            for sql, rows in statements.items():
                self.conn.executemany(sql, rows)
            statements.clear()
        self._held = 0
        self._next.clear()
        self._first.clear()
