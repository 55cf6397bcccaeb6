"""One import file's records, staged so that a long file never holds the write lock for long.

SQLite lets one connection write at a time: a 200,000-event import written in one transaction
held the lock for seconds, and reviewers' saves beside it waited past the busy timeout. Staged:

- **trace events**, the bulk of a long file, are written as they are read, each batch (one
  ``executemany`` of at most a few thousand rows) committed at once, so the lock is held for
  milliseconds at a time and is free while the next batch is parsed. They go into traces that
  no run points at yet, and nothing reads a trace except through its run: until the file is
  committed they are invisible;
- **every other record** (study, tasks, conditions, runs, ...) is prepared as it is read (hashed,
  its JSON and columns made: :mod:`abp_tui.store.prepared`) and held as plain tuples, in memory
  up to a budget shared by the import's files and in a temporary file past it, and
  :meth:`StagedFile.commit` writes them, each run with its trace attached, inside the caller's
  one transaction: that is short, and the import stays all or nothing. (Spooled as pickled
  pydantic models, reading them back had cost a quarter of a pairwise import.)

A file refused, an error or an interrupt :meth:`StagedFile.discard`\\ s its staged traces, in
short batches too (also when the transaction it was committed into is rolled back). A process
killed mid-import leaves its staged traces behind, unreachable (no run names them);
:func:`orphan_traces` counts them, and :mod:`abp_tui.store.import_sessions` deletes them once
no import is running.
"""

from __future__ import annotations

import pickle
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any, Final

import sqlite_utils

from abp_tui.models import Preference, Run, Study, TraceEvent, TraceEventBatch
from abp_tui.store.db import translated
from abp_tui.store.prepared import RECORD_SIZE, held_size, prepare_preference
from abp_tui.store.writer import ImportWriter

DELETE_BATCH = 20_000
"""Trace events deleted per transaction when a staged trace is discarded."""
CHUNK_RECORDS = 1024
"""Prepared records per chunk: what is held, or pickled to the spool file, at a time."""
MEMORY_BUDGET = 64 << 20
"""Roughly the bytes of prepared records an import holds in memory before spooling to disk."""
SPILL_TO: Final = 3 / 4
"""Past the budget, the newest chunks are spooled until this share of it is held: the oldest
stay in memory (spooling them all had cost a tenth of a large import), and the next spill
waits for a quarter of the budget, not for one more record."""
_TRACE_RECORDS = (TraceEvent, TraceEventBatch)


class SpoolBudget:
    """The memory the staged files of one import may hold between them (see MEMORY_BUDGET)."""

    def __init__(self, limit: int = MEMORY_BUDGET) -> None:
        self.limit = limit
        self.held = 0


@dataclass(slots=True)
class _Chunk:
    """Prepared records of a file, in memory or (``records`` None) at ``offset`` in the spool."""

    records: list[object] | None
    weight: int
    offset: int = -1


class StagedFile:
    """The records of one file on their way into the store (see the module docstring)."""

    def __init__(
        self,
        db: sqlite_utils.Database,
        writer: ImportWriter,
        budget: SpoolBudget | None = None,
    ) -> None:
        self.db = db
        self.writer = writer
        self._batches = not db.conn.in_transaction
        """Inside a caller's transaction nothing may be committed: everything waits for it."""
        self._where = getattr(db, "path", "the database")
        self._budget = budget if budget is not None else SpoolBudget()
        self._spool: IO[bytes] | None = None
        """Made when the budget is spent; closed by commit() or discard()."""
        self._held: list[_Chunk] = []
        """The file's chunks in the order they were read, in memory or spooled."""
        self._chunk: list[object] = []
        self._chunk_weight = 0
        self._weight = 0
        """What this file holds in memory, as counted against the budget."""
        self._staged: list[int] = []
        """Keys of the traces handed over by the writer (their runs are staged here)."""
        self._done = False
        self._prepare = writer.prepare

    @property
    def study_id(self) -> str | None:
        return self.writer.study_id

    def write(self, record: object) -> None:
        # Called for every record of a file: the common cases are tested first.
        trace: tuple[int, str, int] | None = None
        if type(record) is Preference:  # half the records of a pairwise file
            self._hold(prepare_preference(record), RECORD_SIZE)
            return
        if isinstance(record, Run):
            if self.writer.has_open_trace(record.id):
                with translated(self._where):
                    trace = self.writer.detach_trace(record.id)
                    self._commit_batch()
                if trace is not None:
                    self._staged.append(trace[0])
        elif isinstance(record, _TRACE_RECORDS):
            with translated(self._where):
                self.writer.write(record)
                self._commit_batch()
            return
        elif isinstance(record, Study) and self.writer.study_id is None:
            # Traces need to know their study is named; the Study itself is written at commit.
            self.writer.study_id = record.id
        prepared = self._prepare(record, trace)
        self._hold(prepared, held_size(prepared))

    def _hold(self, prepared: object, weight: int) -> None:
        chunk = self._chunk
        chunk.append(prepared)
        self._weight += weight
        self._chunk_weight += weight
        budget = self._budget
        budget.held += weight
        over = budget.held > budget.limit
        if over or len(chunk) >= CHUNK_RECORDS:
            self._held.append(_Chunk(chunk, self._chunk_weight))
            self._chunk = []
            self._chunk_weight = 0
            if over:
                self._spill()

    def _spill(self) -> None:
        """Move this file's newest chunks held in memory to the spool file, until the import
        holds :data:`SPILL_TO` of its budget (or this file holds nothing more)."""
        if self._spool is None:
            self._spool = tempfile.TemporaryFile(prefix="abp-import-")  # noqa: SIM115
        budget = self._budget
        target = int(budget.limit * SPILL_TO)
        for chunk in reversed(self._held):
            if budget.held <= target:
                break
            if chunk.records is None:
                continue
            chunk.offset = self._spool.seek(0, 2)
            pickle.dump(chunk.records, self._spool, protocol=pickle.HIGHEST_PROTOCOL)
            chunk.records = None
            budget.held -= chunk.weight
            self._weight -= chunk.weight

    def _release(self) -> None:
        self._budget.held -= self._weight
        self._weight = 0

    def _chunks(self) -> Iterator[list[object]]:
        """Every chunk staged, in the order the records were read."""
        for chunk in self._held:
            if chunk.records is not None:
                yield chunk.records
            else:
                assert self._spool is not None  # a chunk is spilled only into the spool file
                self._spool.seek(chunk.offset)
                yield pickle.load(self._spool)
        yield self._chunk

    def _close(self) -> None:
        self._done = True
        if self._spool is not None:
            self._spool.close()
        self._held = []
        self._chunk = []
        self._chunk_weight = 0
        self._release()

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
        apply = self.writer.apply
        for chunk in self._chunks():
            for prepared in chunk:
                apply(prepared)
        counts = self.writer.finish(partial=partial)
        self._close()
        return counts

    def rolled_back(self) -> None:
        """The caller's transaction this file was committed into was rolled back: what it
        staged is staged again, for :meth:`discard`."""
        self._done = False

    def discard(self) -> None:
        """Delete what was staged (nothing once committed); each batch its own transaction."""
        if self._done:
            return
        self._close()
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
