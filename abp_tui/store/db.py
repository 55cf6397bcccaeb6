"""Opening the database: refusing files that are not ours, pragmas (WAL, foreign keys, busy
timeout), recorded migrations, and transactions that wait for each other instead of failing.

**Transactions.** Every write transaction (:meth:`Database.atomic`) begins ``IMMEDIATE``: it takes
the write lock first, waiting up to :data:`BUSY_TIMEOUT_MS` for another process to finish, and
only then reads. A deferred transaction that read first and wrote second would fail at once with
"database is locked" whenever another connection had written in between (SQLite cannot wait
there: its snapshot is already stale), which is how reviewers' saves failed beside an import.
Long imports commit in short batches (:mod:`abp_tui.store.staging`), so a wait stays short.

**Refusing.** Whose file it is is decided before anything is written to it, or beside it
(:mod:`abp_tui.store.ownership`): a new, 0-byte or schema-less file is initialised (its header
then carries our application id); our database is opened; anything else is refused in one line
naming it, as is a database of a newer abp-tui. A file that cannot be written is opened
read-only, and immutable in a folder that cannot be written (read-only media).

**Errors.** What the disk or another process does to a write (busy past the timeout, read-only,
full, I/O errors) leaves the transaction rolled back and becomes one :class:`StoreError` line
(:func:`store_error`); the CLI and the workstation show it as it is.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from abp_tui.errors import StoreError
from abp_tui.store import connection, import_sessions, ownership
from abp_tui.store.schema import MIGRATIONS
from abp_tui.store.views import refresh_views

if TYPE_CHECKING:
    import sqlite_utils

BUSY_TIMEOUT_MS = 5000
SQLITE_HEADER = ownership.SQLITE_HEADER
FIRST_MIGRATION = ownership.FIRST_MIGRATION
MIGRATIONS_NAMES = tuple(name for name, _ in MIGRATIONS)


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# -- errors ---------------------------------------------------------------------------------------
_NOTHING_CHANGED = ownership.NOTHING_CHANGED


def store_error(exc: sqlite3.Error, where: object) -> StoreError | None:
    """The one line a user reads for what the disk or another process did to an operation on
    the database ``where``; None for anything else (a bug, to be reported as one)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc)
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "database is locked" in text:
        return StoreError(
            f"{where}: the database stayed busy for more than {BUSY_TIMEOUT_MS / 1000:g} s "
            f"(another abp-tui process is writing to it); {_NOTHING_CHANGED}: try again"
        )
    if primary == sqlite3.SQLITE_READONLY or "readonly database" in text:
        return StoreError(
            f"{where}: the database is read-only (check the permissions of the file and its "
            f"folder); {_NOTHING_CHANGED}"
        )
    if primary == sqlite3.SQLITE_FULL or "disk is full" in text:
        return StoreError(f"{where}: the disk is full; {_NOTHING_CHANGED} (free some space)")
    if primary in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM):
        return StoreError(
            f"{where}: cannot read or write the database ({text}); {_NOTHING_CHANGED}"
        )
    if primary in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT):
        return StoreError(f"{where}: not a usable abp-tui database ({text})")
    return None


@contextlib.contextmanager
def translated(where: object) -> Iterator[None]:
    """Turn what :func:`store_error` knows into its StoreError; let everything else through."""
    try:
        yield
    except sqlite3.Error as exc:
        known = store_error(exc, where)
        if known is None:
            raise
        raise known from None


class Database(connection.Database):
    """The store's connection (sqlite-utils' Database as far as the code uses it, without
    importing sqlite-utils: :mod:`abp_tui.store.connection`) whose transactions begin IMMEDIATE
    (see the module docstring)."""

    path: str = ":memory:"

    @contextlib.contextmanager
    def atomic(self) -> Iterator[Database]:
        """A write transaction (a savepoint inside one already open), rolled back on error."""
        if self.conn.in_transaction:
            with translated(self.path), super().atomic():
                yield self
            return
        with translated(self.path):
            self.conn.execute("BEGIN IMMEDIATE")
        try:
            with translated(self.path):
                yield self
        except BaseException:
            # A failed COMMIT or an error that ended the transaction leaves nothing to undo.
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        try:
            with translated(self.path):
                self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise


@contextlib.contextmanager
def read_snapshot(db: sqlite_utils.Database) -> Iterator[None]:
    """Read inside one transaction: every read sees the database as it was at the first one,
    whatever other connections commit meanwhile (on a WAL database this never blocks them).
    Inside a transaction already open, its own view is kept."""
    conn = db.conn
    if conn.in_transaction:
        yield
        return
    with translated(getattr(db, "path", "the database")):
        conn.execute("BEGIN")
        # A deferred transaction takes its snapshot at its first read, not at BEGIN.
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")  # nothing was written: there is nothing to keep


# -- opening --------------------------------------------------------------------------------------
def _writable(path: Path) -> bool:
    """Whether the file (or, for a new one, its folder) can be written (tests replace it)."""
    return ownership.writable(path)


def refuse_memory(path: Path) -> None:
    if str(path) == ":memory:":
        raise StoreError(
            f"{path}: an in-memory database keeps nothing once the command ends; "
            f"{_NOTHING_CHANGED} (name a database file with --db)"
        )


def connect_memory() -> sqlite_utils.Database:
    """A new in-memory database at the current schema (what ``abp-tui schema`` describes)."""
    db = Database(sqlite3.connect(":memory:", check_same_thread=False))
    db.execute("PRAGMA foreign_keys = ON")
    migrate(db)
    refresh_views(db)
    return db


def connect(path: Path) -> sqlite_utils.Database:
    """Open (creating if needed) the database at ``path`` and bring its schema up to date.

    Raises StoreError, having changed nothing, for a file that is not an abp-tui database.
    """
    path = Path(path)
    refuse_memory(path)
    verdict = ownership.check(path)
    read_only = verdict.kind == "ours" and not _writable(path)
    if verdict.kind == "new":
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{path}: cannot create its folder: {exc.strerror}") from None
    target, uri = (ownership.read_only_uri(path), True) if read_only else (str(path), False)
    try:
        conn = sqlite3.connect(
            target,
            timeout=BUSY_TIMEOUT_MS / 1000,
            check_same_thread=False,
            uri=uri,
            factory=ownership.Connection,
        )
    except sqlite3.Error as exc:
        raise store_error(exc, path) or StoreError(f"{path}: cannot open ({exc})") from None
    try:
        db = Database(conn)
        db.path = str(path)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        todo = pending(db)  # refuses a database of a newer abp-tui before anything is written
        db.execute("PRAGMA foreign_keys = ON")
        if read_only:
            if todo:
                raise StoreError(
                    f"{path}: the database is read-only and needs upgrading by this version of "
                    f"abp-tui; {_NOTHING_CHANGED} (make it writable once)"
                )
        else:
            if verdict.kind == "new":
                # In the header from the first write on, before the log holds anything.
                db.execute(f"PRAGMA application_id = {ownership.APPLICATION_ID}")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            migrate(db)
            refresh_views(db)
            import_sessions.clean_stale(db)  # what killed imports left staged, if any
        ownership.remember(path, conn)
    except sqlite3.Error as exc:
        conn.close()
        raise store_error(exc, path) or StoreError(
            f"{path}: not a usable abp-tui database ({exc})"
        ) from None
    except BaseException:
        conn.close()
        raise
    return db


def pending(db: sqlite_utils.Database) -> list[str]:
    """The migrations not yet recorded (all of them for a new database)."""
    has_table = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'"
    ).fetchone()
    applied = (
        {row[0] for row in db.execute("SELECT name FROM _migrations").fetchall()}
        if has_table
        else set()
    )
    unknown = applied - set(MIGRATIONS_NAMES)
    if unknown:
        raise StoreError(
            f"{getattr(db, 'path', 'the database')}: the database was written by a newer "
            f"abp-tui (migrations {sorted(unknown)}); {_NOTHING_CHANGED} (upgrade abp-tui to "
            "open it)"
        )
    return [name for name, _ in MIGRATIONS if name not in applied]


def migrate(db: sqlite_utils.Database) -> list[str]:
    """Apply the migrations not yet recorded, each in its own transaction; return their names."""
    applied = set(MIGRATIONS_NAMES) - set(pending(db))  # refuses a newer abp-tui's
    done: list[str] = []
    for name, sql in MIGRATIONS:
        if name in applied:
            continue
        with db.atomic():
            # The schema record appears with the first migration's tables, in one commit: a
            # process looking meanwhile (ownership.check) never sees one without the other.
            db.execute(
                "CREATE TABLE IF NOT EXISTS _migrations "
                "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            # Another process may have applied it while this one waited for the lock.
            if db.execute("SELECT 1 FROM _migrations WHERE name = ?", [name]).fetchone():
                continue
            # Statements end with ";" and a newline; a trigger's body stays on its line.
            for statement in sql.split(";\n"):
                if statement.strip():
                    db.execute(statement)
            db.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", [name, utc_now()]
            )
        done.append(name)
    return done
