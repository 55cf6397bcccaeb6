"""The store's connection object: the part of sqlite-utils' ``Database`` abp-tui uses, on the
standard library's ``sqlite3`` alone.

Every module of the store is written against sqlite-utils' ``Database`` (its annotations name
it) and uses four things of it: :meth:`~Database.execute`, :meth:`~Database.query`,
:meth:`~Database.atomic` and :meth:`~Database.close`, with its ``conn``. Importing sqlite-utils
imports click, pluggy (and with it ``importlib.metadata``) and dateutil, a large part of the
workstation's start-up before its first item is on screen, for none of those four. This class
gives them, with sqlite-utils' own semantics, so that opening a database imports none of it.
Anything else of sqlite-utils' ``Database`` (``db[table].columns``, ``db.table_names()``...)
still works: it is handed to a sqlite-utils ``Database`` on the same connection, made (and
sqlite-utils imported) the first time it is asked for. The type checker sees sqlite-utils'
``Database``, which every annotation names.

Semantics kept from sqlite-utils (4.x): ``PRAGMA recursive_triggers=on`` on every connection;
a write :meth:`execute` outside a transaction commits at once (the implicit transaction the
``sqlite3`` driver opens is committed; one a failed statement opened is rolled back);
:meth:`query` yields each row as a dict, refuses statements that return no rows, and undoes
what such a statement did; :meth:`atomic` nested in a transaction is a savepoint.
"""

from __future__ import annotations

import contextlib
import secrets
import sqlite3
from collections.abc import Generator, Iterable, Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite_utils

    _Base = sqlite_utils.Database
else:
    _Base = object

_TRANSACTION_CONTROL = frozenset({"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"})
_NOT_QUERIES = _TRANSACTION_CONTROL | {"VACUUM", "ATTACH", "DETACH"}
_NOT_A_QUERY = (
    "query() can only be used with SQL that returns rows - use execute() for other statements"
)


def first_keyword(sql: str) -> str:
    """The statement's first keyword, upper-cased, after what the driver skips (white space,
    comments, empty statements, a byte order mark); "" if there is none."""
    i, n = 0, len(sql)
    while i < n:
        if sql[i].isspace() or sql[i] in (";", "\ufeff"):
            i += 1
        elif sql.startswith("--", i):
            newline = sql.find("\n", i)
            if newline == -1:
                return ""
            i = newline + 1
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            if end == -1:
                return ""
            i = end + 2
        else:
            break
    end = i
    while end < n and (sql[end].isalpha() or sql[end] == "_"):
        end += 1
    return sql[i:end].upper()


def _unique(keys: Iterable[str]) -> list[str]:
    """Column names made unique as sqlite-utils makes them (``a``, ``a_2``, ``a_3``...)."""
    keys = list(keys)
    taken = set(keys)
    if len(taken) == len(keys):
        return keys
    seen: set[str] = set()
    unique = []
    for key in keys:
        if key in seen:
            suffix, new = 2, key
            while new in seen or new in taken:
                new = f"{key}_{suffix}"
                suffix += 1
            key = new
        seen.add(key)
        unique.append(key)
    return unique


class Database(_Base):
    """A connection to one SQLite database (see the module docstring)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.execute("PRAGMA recursive_triggers=on;")

    def __enter__(self) -> Database:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    if not TYPE_CHECKING:  # the type checker sees sqlite-utils' Database already

        def __getattr__(self, name: str) -> Any:
            # Anything else of sqlite-utils' Database (a table's columns, say), from
            # sqlite-utils itself on this connection: imported the first time it is asked for.
            if name.startswith("__") or name == "conn":
                raise AttributeError(name)
            return getattr(self._sqlite_utils(), name)

        def __getitem__(self, table_name: str) -> Any:
            return self._sqlite_utils()[table_name]

    def _sqlite_utils(self) -> sqlite_utils.Database:
        full: sqlite_utils.Database | None = self.__dict__.get("_full")
        if full is None:
            import sqlite_utils

            full = sqlite_utils.Database(self.conn, execute_plugins=False)
            self.__dict__["_full"] = full
        return full

    def execute(
        self, sql: str, parameters: Sequence[Any] | dict[str, Any] | None = None
    ) -> sqlite3.Cursor:
        """Run one statement; a write outside a transaction is committed at once."""
        conn = self.conn
        was_in_transaction = conn.in_transaction
        try:
            cursor = conn.execute(sql) if parameters is None else conn.execute(sql, parameters)
        except Exception:
            if not was_in_transaction and conn.in_transaction:
                conn.execute("ROLLBACK")  # the implicit transaction the failed statement opened
            raise
        if (
            not was_in_transaction
            and conn.in_transaction
            and cursor.description is None
            and first_keyword(sql) not in _TRANSACTION_CONTROL
        ):
            conn.execute("COMMIT")
        return cursor

    def query(
        self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None
    ) -> Generator[dict[str, Any], None, None]:
        """The rows of a statement that returns rows, each as a dict of its columns."""
        keyword = first_keyword(sql)
        if keyword in _NOT_QUERIES:
            raise ValueError(_NOT_A_QUERY)
        conn = self.conn
        args: tuple[Any, ...] = () if params is None else (params,)
        if keyword == "PRAGMA":
            cursor = conn.execute(sql, *args)
            if cursor.description is None:
                raise ValueError(_NOT_A_QUERY)
            keys = _unique(d[0] for d in cursor.description)
            return (dict(zip(keys, row, strict=True)) for row in cursor)
        conn.execute('SAVEPOINT "abp_query"')
        released = False
        try:
            cursor = conn.execute(sql, *args)
            if cursor.description is None:
                raise ValueError(_NOT_A_QUERY)
            keys = _unique(d[0] for d in cursor.description)
            try:
                conn.execute('RELEASE "abp_query"')
                released = True
            except sqlite3.OperationalError:
                # A write returning rows not fetched yet: fetch them, then release.
                fetched = cursor.fetchall()
                conn.execute('RELEASE "abp_query"')
                released = True
                return (dict(zip(keys, row, strict=True)) for row in fetched)
            return (dict(zip(keys, row, strict=True)) for row in cursor)
        finally:
            if not released and conn.in_transaction:
                conn.execute('ROLLBACK TO "abp_query"')
                conn.execute('RELEASE "abp_query"')

    @contextlib.contextmanager
    def atomic(self) -> Iterator[Database]:
        """A transaction, or a savepoint inside one already open; rolled back on error."""
        conn = self.conn
        if conn.in_transaction:
            savepoint = f"abp_{secrets.token_hex(16)}"
            conn.execute(f"SAVEPOINT {savepoint};")
            try:
                yield self
            except BaseException:
                # A RAISE(ROLLBACK) trigger may have ended the whole transaction already.
                if conn.in_transaction:
                    conn.execute(f"ROLLBACK TO SAVEPOINT {savepoint};")
                    conn.execute(f"RELEASE SAVEPOINT {savepoint};")
                raise
            else:
                conn.execute(f"RELEASE SAVEPOINT {savepoint};")
            return
        conn.execute("BEGIN")
        try:
            yield self
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        else:
            try:
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
