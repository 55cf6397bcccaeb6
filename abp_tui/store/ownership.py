"""Whose file is it? Decided before SQLite may write a byte of it, and with the standard library
only (``abp-tui status`` reads through here without loading sqlite-utils).

A database file is **ours** when it is new (missing, or 0 bytes with no write-ahead log beside
it) or when it holds abp-tui's schema record: a ``_migrations`` table that records our first
migration, beside that migration's tables. Anything else is another program's and is refused in
one line naming it, before any write, pragma or checkpoint: a SQLite file holding any schema
object (a table, a view, an index, a trigger) without our record, a file whose header carries a
``user_version`` or an ``application_id`` that is not ours, a file that is not SQLite, and
anything that is not a regular file (a folder, a named pipe, a device: reading a named pipe
would wait forever).

The look is taken through an ``immutable`` connection, which neither locks the file nor opens
its ``-wal`` or ``-shm`` side files: nothing beside it is created or changed, and a write-ahead
log is never checkpointed. When a write-ahead log is present its content is not in the main
file yet; if the main file alone looks empty, the file and its log are copied to a temporary
folder and looked at there.

A new database carries :data:`APPLICATION_ID` in its header from its first write; one created
before that carries 0 and is known by its schema record.

A file this process already holds open through a connection (:func:`remember`) is ours and is not
looked at again: the look reads the header through a file handle of its own, and closing any
handle on a file drops every POSIX lock the process holds on it, the shared lock of its open
connections among them. Another process closing its own connection would then find the file
unlocked, fold the write-ahead log in and delete it under the open connections, whose later
commits would go to the deleted log and be lost.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sqlite3
import stat
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from abp_tui.errors import StoreError
from abp_tui.store.schema import MIGRATIONS

SQLITE_HEADER: Final = b"SQLite format 3\x00"
APPLICATION_ID: Final = 0x61627074
"""``abpt``: what a database made by abp-tui carries at offset 68 of its header."""
FIRST_MIGRATION: Final = MIGRATIONS[0][0]
FIRST_TABLES: Final = frozenset(re.findall(r"CREATE TABLE (\w+)", MIGRATIONS[0][1]))
"""The tables our first migration creates: our schema record stands beside them."""
NOTHING_CHANGED: Final = "nothing was changed"
_NEW_FILE: Final = "(name a new file with --db)"
_KINDS: Final = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


LOOKS: Final = 3
"""How many times a file SQLite cannot read is looked at before it is refused."""


class _Unreadable(Exception):
    """SQLite could not read the file's schema (corrupt, or caught mid-write)."""


@dataclass(frozen=True)
class Verdict:
    """What the file is: ``new`` (to create) or ``ours``."""

    kind: Literal["new", "ours"]


class Connection(sqlite3.Connection):
    """The connections :mod:`abp_tui.store.db` opens: a subclass, so they can be held weakly."""


_held_lock = threading.Lock()
_held: dict[tuple[int, int], weakref.WeakSet[Connection]] = {}


def remember(path: Path, conn: Connection) -> None:
    """Record that this process holds ``path`` open, found ours, through ``conn``."""
    info = path.stat()
    with _held_lock:
        _held.setdefault((info.st_dev, info.st_ino), weakref.WeakSet()).add(conn)


def _held_open(path: Path) -> bool:
    """Whether a connection of this process (see :func:`remember`) has this very file open."""
    try:
        info = path.stat()
    except OSError:
        return False
    with _held_lock:
        for conn in list(_held.get((info.st_dev, info.st_ino), ())):
            try:
                conn.total_changes  # noqa: B018 (raises once the connection is closed)
            except sqlite3.ProgrammingError:
                continue
            return True
    return False


def wal_of(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def _refused(path: Path, why: str) -> StoreError:
    return StoreError(
        f"{path}: not a usable abp-tui database: {why}; {NOTHING_CHANGED} {_NEW_FILE}"
    )


def _size(path: Path) -> int | None:
    """The size of a regular file at ``path``; None when there is none. Refuses anything else
    there (before anything opens it: a named pipe would block)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"{path}: cannot open the database: {exc.strerror}") from None
    if stat.S_ISREG(info.st_mode):
        return info.st_size
    kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
    raise StoreError(
        f"{path}: not a usable abp-tui database: it is {kind}, not a file; "
        f"{NOTHING_CHANGED} {_NEW_FILE}"
    )


def writable(path: Path) -> bool:
    """Whether the file (or, for a new one, its folder) can be written; WAL needs the folder."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.exists() and not os.access(path, os.W_OK):
        return False
    return os.access(folder, os.W_OK)


def read_only_uri(path: Path) -> str:
    """The URI SQLite reads ``path`` with when it may not write it. In a folder that cannot be
    written (read-only media) SQLite could not make the side files a WAL database is read
    with: it is read as immutable (nobody can change it there), unless a write-ahead log is
    already there to be read with it."""
    uri = path.resolve().as_uri()
    folder = path.parent if str(path.parent) else Path(".")
    log = wal_of(path)
    hot_log = log.is_file() and log.stat().st_size > 0
    if not hot_log and not os.access(folder, os.W_OK):
        return f"{uri}?immutable=1"
    return f"{uri}?mode=ro"


def check(path: Path) -> Verdict:
    """Whether the database at ``path`` is ours (see the module docstring), having written
    nothing; raises StoreError, naming the file, for one that is not."""
    size = _size(path)
    log_size = _size(wal_of(path)) or 0
    if not size:
        if log_size:
            raise _refused(path, "it is empty but a write-ahead log lies beside it")
        return Verdict("new")
    if _held_open(path):
        return Verdict("ours")
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the database: {exc.strerror}") from None
    if len(header) < 100 or not header.startswith(SQLITE_HEADER):
        raise _refused(path, "it is not a SQLite file")
    for attempt in range(LOOKS):
        try:
            return Verdict(_schema_verdict(path, header, log_size > 0))
        except _Unreadable as exc:
            # Read without a lock, a page may be caught as another process rewrites it.
            if attempt == LOOKS - 1:
                raise _refused(path, f"SQLite cannot read it ({exc})") from None
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


def _schema_verdict(path: Path, header: bytes, hot_log: bool) -> Literal["new", "ours"]:
    verdict = _look(path, path)
    if verdict is None and hot_log:
        # The main file looks empty but its log holds content: read the two together, copied.
        with tempfile.TemporaryDirectory(prefix="abp-look-") as folder:
            copy = Path(folder) / "look.db"
            shutil.copyfile(path, copy)
            shutil.copyfile(wal_of(path), wal_of(copy))
            verdict = _look(copy, path, immutable=False)
            with copy.open("rb") as handle:
                header = handle.read(100)
    user_version = int.from_bytes(header[60:64], "big")
    application_id = int.from_bytes(header[68:72], "big")
    if application_id not in (0, APPLICATION_ID):
        raise _refused(
            path, f"its header carries another program's application id {application_id:#x}"
        )
    if user_version:
        raise _refused(path, f"its header carries another program's user_version {user_version}")
    return "new" if verdict is None else "ours"


def _look(target: Path, path: Path, immutable: bool = True) -> Literal["ours"] | None:
    """``ours`` for our schema record, None for no schema at all; raises for anything else.
    ``target`` is read (immutable: no lock, no side file; else a copy, read with its log),
    ``path`` is what messages name."""
    mode = "immutable=1" if immutable else "mode=rw"
    try:
        conn = sqlite3.connect(f"{target.resolve().as_uri()}?{mode}", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open the database ({exc})") from None
    try:
        objects = [
            (str(kind), str(name))
            for kind, name in conn.execute(
                "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                "ORDER BY name"
            ).fetchall()
        ]
        if not objects:
            return None
        tables = {name for kind, name in objects if kind == "table"}
        recorded = False
        if "_migrations" in tables and tables >= FIRST_TABLES:
            with contextlib.suppress(sqlite3.Error):
                recorded = (
                    conn.execute(
                        "SELECT 1 FROM _migrations WHERE name = ?", [FIRST_MIGRATION]
                    ).fetchone()
                    is not None
                )
        if recorded:
            return "ours"
    except sqlite3.DatabaseError as exc:
        raise _Unreadable(str(exc)) from None
    finally:
        conn.close()
    raise _refused(path, f"it holds {_listed(objects)} and no abp-tui schema record")


def _listed(objects: list[tuple[str, str]]) -> str:
    # A table of theirs named like our schema record is theirs too, but says least of them.
    objects = [o for o in objects if o[1] != "_migrations"] or objects
    names = [name for _, name in objects]
    kinds = {kind for kind, _ in objects}
    noun = next(iter(kinds)) if len(kinds) == 1 else "schema object"
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"{len(names)} {noun}{'s' if len(names) != 1 else ''} of another program ({shown})"
