"""One import file's records, staged so that a long file never holds the write lock for long.

SQLite lets one connection write at a time: a 200,000-event import written in one transaction
held the lock for seconds, and reviewers' saves beside it waited past the busy timeout. Staged:

- **trace events**, the bulk of a long file, are written as they are read, each batch (one
  ``executemany`` of at most a few thousand rows) committed at once, so the lock is held for
  milliseconds at a time and is free while the next batch is parsed. They go into traces that
  no run points at yet, and nothing reads a trace except through its run: until the file is
  committed they are invisible;
- **every other record** (study, tasks, conditions, runs, ...) is spooled to a temporary file,
  and :meth:`StagedFile.commit` writes them, each run with its trace attached, inside the
  caller's one transaction: that is short, and the import stays all or nothing.

A file refused, an error or an interrupt :meth:`StagedFile.discard`\\ s its staged traces, in
short batches too. A process killed mid-import leaves its staged traces behind, unreachable
(no run names them) and harmless; :func:`orphan_traces` counts them.
"""

from __future__ import annotations

import pickle
import tempfile
from collections import Counter
from typing import IO, Any

import sqlite_utils

from abp_tui.models import Run, Study, TraceEvent, TraceEventBatch
from abp_tui.store.db import translated
from abp_tui.store.writer import ImportWriter

DELETE_BATCH = 20_000
"""Trace events deleted per transaction when a staged trace is discarded."""


class StagedFile:
    """The records of one file on their way into the store (see the module docstring)."""

    def __init__(self, db: sqlite_utils.Database, writer: ImportWriter) -> None:
        self.db = db
        self.writer = writer
        self._batches = not db.conn.in_transaction
        """Inside a caller's transaction nothing may be committed: everything waits for it."""
        self._where = getattr(db, "path", "the database")
        # Closed by commit() or discard(), whichever ends the file's import.
        self._spool: IO[bytes] = tempfile.TemporaryFile(prefix="abp-import-")  # noqa: SIM115
        self._staged: list[int] = []
        """Keys of the traces handed over by the writer (their runs are in the spool)."""
        self._done = False

    @property
    def study_id(self) -> str | None:
        return self.writer.study_id

    def write(self, record: object) -> None:
        if isinstance(record, TraceEvent | TraceEventBatch):
            with translated(self._where):
                self.writer.write(record)
                self._commit_batch()
            return
        trace: tuple[int, str, int] | None = None
        if isinstance(record, Run):
            with translated(self._where):
                trace = self.writer.detach_trace(record.id)
                self._commit_batch()
            if trace is not None:
                self._staged.append(trace[0])
        elif isinstance(record, Study) and self.writer.study_id is None:
            # Traces need to know their study is named; the Study itself is written at commit.
            self.writer.study_id = record.id
        pickle.dump((record, trace), self._spool, protocol=pickle.HIGHEST_PROTOCOL)

    def _commit_batch(self) -> None:
        # The writer's executemany opened a transaction of its own: end it now, so the lock is
        # free while the next batch is parsed.
        if self._batches and self.db.conn.in_transaction:
            self.db.conn.commit()

    def commit(self, partial: bool = False) -> Counter[str]:
        """Write the spooled records, inside the caller's transaction; return the counts.

        ``partial``: the file stopped early, so traces without a run are dropped.
        """
        if not self.db.conn.in_transaction:
            raise RuntimeError("StagedFile.commit runs inside the import's transaction")
        self._spool.seek(0)
        while True:
            try:
                record, trace = pickle.load(self._spool)
            except EOFError:
                break
            if trace is not None:
                self.writer.attach_trace(record.id, *trace)
            self.writer.write(record)
        counts = self.writer.finish(partial=partial)
        self._done = True
        self._spool.close()
        return counts

    def discard(self) -> None:
        """Delete what was staged (nothing once committed); each batch its own transaction."""
        if self._done:
            return
        self._done = True
        self._spool.close()
        keys = [*self._staged, *self.writer.open_traces()]
        if self._batches and self.db.conn.in_transaction:
            self.db.conn.rollback()  # a batch that failed half-way
        with translated(self._where):
            for pk in keys:
                _delete_trace(self.db, pk)


def _delete_trace(db: sqlite_utils.Database, pk: int) -> None:
    while True:
        with db.atomic():
            cur = db.execute(
                "DELETE FROM trace_events WHERE rowid IN "
                "(SELECT rowid FROM trace_events WHERE trace_pk = ? LIMIT ?)",
                [pk, DELETE_BATCH],
            )
            if cur.rowcount < DELETE_BATCH:
                db.execute(
                    "DELETE FROM traces WHERE pk = ? AND NOT EXISTS "
                    "(SELECT 1 FROM runs WHERE trace_pk = ?)",
                    [pk, pk],
                )
                return


def orphan_traces(db: sqlite_utils.Database) -> int:
    """Traces no run names: staged by an import in progress, or left by one that was killed."""
    row: Any = db.execute(
        "SELECT count(*) FROM traces t "
        "WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.trace_pk = t.pk)"
    ).fetchone()
    return int(row[0])
