"""Imports in progress, and what the ones that never finished left behind.

An import stages its trace events in short committed batches, in traces no run names yet
(:mod:`abp_tui.store.staging`); they become reachable when the import commits, and a refused or
failed import deletes them. A process killed mid-import could not: its staged events stayed,
unreachable, for good (hundreds of thousands of rows after a few kills), while its message, if
any, said nothing was changed.

So an import records itself here (:func:`begin`) before it stages anything and removes its row
when it ends (:func:`end`). A row whose process is gone is the trace of an import that never
finished: the next opening of the database, or the next import, removes it and deletes every
trace no run names (:func:`clean_stale`), in short transactions, each of which first checks that
no other import is running (whose staged traces those may be: they are then left for later).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import sqlite_utils

DELETE_BATCH: Final = 20_000
"""Trace events deleted per transaction."""
FOREIGN_HOST_PATIENCE: Final = timedelta(days=1)
"""A session of another machine (whose processes cannot be looked at) is taken as finished this
long after it began."""


@dataclass(frozen=True)
class Session:
    pk: int
    host: str
    pid: int
    started_at: str


def _now() -> datetime:
    return datetime.now(UTC)


def _host() -> str:
    return socket.gethostname()


def alive(session: Session) -> bool:
    """Whether the session's process may still be running (when unsure: yes)."""
    if session.host != _host():
        try:
            started = datetime.strptime(session.started_at, "%Y-%m-%dT%H:%M:%S.%fZ")
        except ValueError:
            return False
        return _now() - started.replace(tzinfo=UTC) < FOREIGN_HOST_PATIENCE
    try:
        os.kill(session.pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def sessions(db: sqlite_utils.Database) -> list[Session]:
    return [
        Session(int(r[0]), str(r[1]), int(r[2]), str(r[3]))
        for r in db.execute("SELECT pk, host, pid, started_at FROM import_sessions").fetchall()
    ]


def begin(db: sqlite_utils.Database) -> int:
    """Record an import in progress (committed at once); its key, for :func:`end`."""
    started = _now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with db.atomic():
        cur = db.execute(
            "INSERT INTO import_sessions (host, pid, started_at) VALUES (?, ?, ?)",
            [_host(), os.getpid(), started],
        )
    assert cur.lastrowid is not None
    return int(cur.lastrowid)


def end(db: sqlite_utils.Database, pk: int) -> None:
    """The import ended (whatever its outcome). A database that cannot be written now keeps the
    row, removed as stale by the next import."""
    with contextlib.suppress(sqlite3.Error), db.atomic():
        db.execute("DELETE FROM import_sessions WHERE pk = ?", [pk])


def _others_running(db: sqlite_utils.Database, own: int | None) -> bool:
    return any(s.pk != own and alive(s) for s in sessions(db))


def clean_stale(db: sqlite_utils.Database, own: int | None = None, sweep: bool = False) -> int:
    """Remove the sessions whose process is gone and, when there were any (or ``sweep``: an
    import starting, which also finds what a version before sessions left), delete every trace
    no run names while no other import runs; return how many traces were deleted. ``own``: the
    caller's session, which has staged nothing yet."""
    found = sessions(db)
    stale = [s for s in found if s.pk != own and not alive(s)]
    if stale:
        with db.atomic():
            db.conn.executemany(
                "DELETE FROM import_sessions WHERE pk = ?", [(s.pk,) for s in stale]
            )
    if not (stale or sweep):
        return 0
    deleted = 0
    while True:
        with db.atomic():
            # Under the write lock: an import that begins now waits for this batch, and the
            # next batch sees it and stops (what it stages is its own).
            if _others_running(db, own):
                return deleted
            row = db.execute(
                "SELECT t.pk FROM traces t WHERE NOT EXISTS "
                "(SELECT 1 FROM runs r WHERE r.trace_pk = t.pk) LIMIT 1"
            ).fetchone()
            if row is None:
                return deleted
            pk = int(row[0])
            cur = db.execute(
                "DELETE FROM trace_events WHERE rowid IN "
                "(SELECT rowid FROM trace_events WHERE trace_pk = ? LIMIT ?)",
                [pk, DELETE_BATCH],
            )
            if cur.rowcount < DELETE_BATCH:
                db.execute("DELETE FROM traces WHERE pk = ?", [pk])
                deleted += 1
