"""Writing parsed records into the store, inside the caller's transaction.

Content is hashed and versioned: a record whose id exists with the same content adds nothing; with
different content it becomes a new version and the old one stays, so anything judged remains
attached to the exact text it was judged on. Trace events are written in batches through
``executemany`` because they are the bulk of most imports; the other rows are held and written
in batches too (:mod:`abp_tui.store.rows`).

A record is stored in two steps: :meth:`ImportWriter.prepare` does the work that needs only the
record (its hashes, its JSON, its columns) and :meth:`ImportWriter.apply` the work that needs
the store (versions, keys, rows). A staged import (:mod:`abp_tui.store.staging`) prepares each
record as the file is read and applies them all in its one short final transaction.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlite_utils

from abp_tui.models import (
    Condition,
    ReferenceVerdict,
    Rubric,
    Run,
    Study,
    Task,
    TraceEvent,
    TraceEventBatch,
)
from abp_tui.models.judges import Judge, JudgeVerdict
from abp_tui.store.db import utc_now
from abp_tui.store.prepared import (
    BLOB_SQL,
    CONDITION_COLUMNS,
    PREFERENCE_SQL,
    RUN_COLUMNS,
    TASK_COLUMNS,
    insert_sql,
    json_hex,
    prepare,
    prepare_condition,
    prepare_task,
)
from abp_tui.store.rows import PendingRows
from abp_tui.text.canonical import canonical_json, sha256_text

if TYPE_CHECKING:
    from abp_tui.store.judges import JudgeWriter

EVENT_BATCH = 5000
REMEMBERED = 60_000
"""Rows, preferences and blobs an import remembers before it forgets them (a few tens of
megabytes): past it, what is pending is written and the lookups ask the store, so that a file
of a million items is imported in the memory of one of sixty thousand."""


@dataclass
class _OpenTrace:
    pk: int
    hasher: Any
    n_events: int = 0


@dataclass(frozen=True)
class _Finished:
    """The hash of a trace whose events were all written: what a staged import hands back."""

    sha256: str

    def hexdigest(self) -> str:
        return self.sha256


class WriterError(Exception):
    """A parser broke the record-order contract (a programming error, not bad input)."""


class ImportWriter:
    """Takes the records of one file and stores them; ``finish`` returns what changed."""

    def __init__(
        self, db: sqlite_utils.Database, file_name: str, file_sha256: str, size: int, fmt: str
    ) -> None:
        self.db = db
        self.file_name = file_name
        self.file_sha256 = file_sha256
        self.size = size
        self.fmt = fmt
        self.counts: Counter[str] = Counter()
        self.study_id: str | None = None
        self.import_pk: int | None = None
        self._task_pk: dict[str, tuple[int, str]] = {}
        self._condition_pk: dict[str, tuple[int, str]] = {}
        self._run_pk: dict[str, int] = {}
        self._traces: dict[str, _OpenTrace] = {}
        self._events: list[tuple[Any, ...]] = []
        self._now = utc_now()
        # Lookups answered from memory keep an import linear in its records: the current row of
        # every (table, id) this writer wrote or read, and, when this file created the study,
        # the knowledge that no other row of it exists (the store's foreign keys guarantee it).
        self._fresh_study = False
        self._forgot = False
        """Whether the lookups were forgotten once (:meth:`_remembered`): since then, an id not
        remembered is looked up in the store, even in a study this file created."""
        self._known: dict[tuple[str, str], tuple[int, str, int, int]] = {}
        self._reviewers: set[str] = set()
        self._preferences: set[tuple[Any, ...]] | None = None
        """The study's preferences (read once, when the study existed before this file)."""
        self._blobs: set[str] = set()
        self._rows = PendingRows(db.conn)
        self._judges: JudgeWriter | None = None

    # -- dispatch -------------------------------------------------------------------------------
    def write(self, record: object) -> None:
        if isinstance(record, TraceEventBatch):
            self._trace_batch(record)
        elif isinstance(record, TraceEvent):
            self._trace_event(record)
        else:
            trace = self.detach_trace(record.id) if isinstance(record, Run) else None
            self.apply(self.prepare(record, trace))

    def prepare(self, record: object, trace: tuple[int, str, int] | None = None) -> object:
        """What :meth:`apply` needs of a record (:func:`abp_tui.store.prepared.prepare`)."""
        prepared = prepare(record, trace, self.file_name)
        if prepared is None:
            raise WriterError(f"cannot store a {type(record).__name__}")
        return prepared

    def apply(self, prepared: object) -> None:
        """Store one record as :meth:`prepare` made it."""
        if isinstance(prepared, tuple):
            kind = prepared[0]
            if kind == "run":
                self._run(*prepared[1:])
            elif kind == "preference":
                self._preference(*prepared[1:])
            elif kind == "task":
                self._task(*prepared[1:])
            elif kind == "condition":
                self._condition(*prepared[1:])
            else:
                self._reviewer(prepared[1], prepared[2])
        elif isinstance(prepared, Study):
            self._study(prepared)
        elif isinstance(prepared, Rubric):
            self._rubric(prepared)
        elif isinstance(prepared, ReferenceVerdict):
            self._reference_verdict(prepared)
        elif isinstance(prepared, Judge | JudgeVerdict):
            self._rows.flush()  # a judge's verdicts read the runs they are on
            self._judge_records().write(prepared)
        else:
            raise WriterError(f"cannot store a {type(prepared).__name__}")

    def finish(self, partial: bool = False) -> Counter[str]:
        """Close the import. ``partial``: the file stopped early, so drop traces left open."""
        self._flush_events()
        self._rows.flush()
        if self._traces and partial:
            for st in self._traces.values():
                self.db.execute("DELETE FROM trace_events WHERE trace_pk = ?", [st.pk])
                self.db.execute("DELETE FROM traces WHERE pk = ?", [st.pk])
            self._traces.clear()
        if self._traces:
            raise WriterError(f"trace events without a run: {sorted(self._traces)[:3]}")
        if self.import_pk is not None:
            self.db.execute(
                "UPDATE imports SET counts = ? WHERE pk = ?",
                [canonical_json(dict(self.counts)), self.import_pk],
            )
        return self.counts

    # -- AI judges (abp_tui.store.judges: their own tables, never a reviewer's) ----------------
    def _judge_records(self) -> JudgeWriter:
        if self._judges is None:
            from abp_tui.store.judges import JudgeWriter

            self._judges = JudgeWriter(self)
        return self._judges

    @property
    def now(self) -> str:
        """The time every row of this import is written with."""
        return self._now

    def current_run_pk(self, run_id: str) -> int | None:
        """The key of the current version of a run of the study, or None."""
        pk = self._run_pk.get(run_id)
        if pk is None:
            ref = self._current_ref("runs", run_id)
            pk = ref[0] if ref else None
        return pk

    def _require_study(self) -> str:
        if self.study_id is None:
            raise WriterError("a Study record must come first")
        return self.study_id

    # -- records --------------------------------------------------------------------------------
    def _study(self, study: Study) -> None:
        row = self.db.execute("SELECT id FROM studies WHERE id = ?", [study.id]).fetchone()
        values = [
            study.name or study.id,
            study.protocol,
            study.description,
            study.rubric_id,
            canonical_json(list(study.limitations)),
            int(study.synthetic),
        ]
        if row is None:
            self.db.execute(
                "INSERT INTO studies (name, protocol, description, rubric_id, limitations, "
                "synthetic, id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [*values, study.id, self._now],
            )
            self.counts["studies added"] += 1
            self._fresh_study = True
        else:
            # A later file may say more about the study (a pack after runner rows): fill blanks.
            self.db.execute(
                "UPDATE studies SET name = CASE WHEN ? != id THEN ? ELSE name END, "
                "protocol = CASE WHEN protocol = 'native' THEN ? ELSE protocol END, "
                "description = CASE WHEN ? != '' THEN ? ELSE description END, "
                "rubric_id = COALESCE(?, rubric_id), "
                "limitations = CASE WHEN ? != '[]' THEN ? ELSE limitations END, "
                "synthetic = MAX(synthetic, ?) WHERE id = ?",
                [
                    values[0],
                    values[0],
                    values[1],
                    values[2],
                    values[2],
                    values[3],
                    values[4],
                    values[4],
                    values[5],
                    study.id,
                ],
            )
        self.study_id = study.id
        if self.import_pk is None:
            cur = self.db.execute(
                "INSERT INTO imports (file_name, sha256, size, format, study_id, imported_at, "
                "counts) VALUES (?, ?, ?, ?, ?, ?, '{}')",
                [self.file_name, self.file_sha256, self.size, self.fmt, study.id, self._now],
            )
            self.import_pk = cur.lastrowid

    def _versioned(
        self,
        table: str,
        key: str,
        sha: str,
        names: tuple[str, ...],
        values: tuple[Any, ...],
        placeholder: bool = False,
    ) -> tuple[int, str]:
        """Insert or version one row of ``table`` (its ``names`` columns hold ``values``);
        return (pk, status). The status is 'added', 'new version' or 'unchanged'."""
        study_id = self._require_study()
        cur = self._current_row(table, key)
        if cur is not None and cur[1] == sha:
            return int(cur[0]), "unchanged"
        if cur is not None and placeholder:
            # Never replace real content by a placeholder.
            return int(cur[0]), "unchanged"
        if cur is not None and cur[2]:
            # A placeholder made for a reference is filled in place once the real record arrives.
            if self._rows.pending(table, cur[0]):
                self._rows.flush()
            sets = ", ".join(f"{n} = ?" for n in names)
            self.db.conn.execute(
                f"UPDATE {table} SET {sets}, sha256 = ?, placeholder = 0 WHERE pk = ?",
                [*values, sha, cur[0]],
            )
            self._known[table, key] = (cur[0], sha, 0, cur[3])
            return int(cur[0]), "added"
        version_no = 1
        status = "added"
        if cur is not None:
            self._rows.retire(table, cur[0])
            version_no = int(cur[3]) + 1
            status = "new version"
        pk = self._rows.key(table)
        self._rows.insert(
            table,
            insert_sql(table, names),
            (pk, *values, study_id, key, version_no, 1, int(placeholder), sha, self._now),
        )
        self._known[table, key] = (pk, sha, int(placeholder), version_no)
        self._remembered()
        return pk, status

    def _remembered(self) -> None:
        """Past :data:`REMEMBERED` rows, write what is pending and forget the lookups: every
        row is then in the store (and found there), or written since and remembered."""
        if len(self._known) + len(self._blobs) + len(self._preferences or ()) < REMEMBERED:
            return
        self._rows.flush()
        self._known.clear()
        self._task_pk.clear()
        self._run_pk.clear()
        self._blobs.clear()  # blobs are inserted or ignored: one written twice is kept once
        if self._preferences is not None:
            self._preferences.clear()
        self._forgot = True

    def _current_row(self, table: str, key: str) -> tuple[int, str, int, int] | None:
        """(pk, sha256, placeholder, version_no) of the current row of ``table`` with this id."""
        known = self._known.get((table, key))
        if known is not None or (self._fresh_study and not self._forgot):
            return known
        row = self.db.conn.execute(
            f"SELECT pk, sha256, placeholder, version_no FROM {table} "
            "WHERE study_id = ? AND id = ? AND current = 1",
            [self._require_study(), key],
        ).fetchone()
        if row is None:
            return None
        found = (int(row[0]), str(row[1]), int(row[2]), int(row[3]))
        self._known[table, key] = found
        self._remembered()
        return found

    def _task(
        self, task_id: str, sha: str, values: tuple[Any, ...], placeholder: bool = False
    ) -> tuple[int, str]:
        pk, status = self._versioned("tasks", task_id, sha, TASK_COLUMNS, values, placeholder)
        if not placeholder:
            self.counts[f"tasks {status}"] += 1
        self._task_pk[task_id] = (pk, sha)
        return pk, sha

    def _condition(
        self, cond_id: str, sha: str, values: tuple[Any, ...], placeholder: bool = False
    ) -> tuple[int, str]:
        pk, status = self._versioned(
            "conditions", cond_id, sha, CONDITION_COLUMNS, values, placeholder
        )
        if not placeholder:
            self.counts[f"conditions {status}"] += 1
        self._condition_pk[cond_id] = (pk, sha)
        return pk, sha

    def _current_ref(self, table: str, key: str) -> tuple[int, str] | None:
        row = self._current_row(table, key)
        return (row[0], row[1]) if row else None

    def _task_ref(self, task_id: str) -> tuple[int, str]:
        ref = self._task_pk.get(task_id) or self._current_ref("tasks", task_id)
        if ref is None:
            ref = self._task(*prepare_task(Task(id=task_id)), placeholder=True)
        self._task_pk[task_id] = ref
        return ref

    def _condition_ref(self, cond_id: str) -> tuple[int, str]:
        ref = self._condition_pk.get(cond_id) or self._current_ref("conditions", cond_id)
        if ref is None:
            ref = self._condition(*prepare_condition(Condition(id=cond_id)), placeholder=True)
        self._condition_pk[cond_id] = ref
        return ref

    def _open_trace(self, run_id: str) -> _OpenTrace:
        self._require_study()
        st = self._traces.get(run_id)
        if st is None:
            cur = self.db.execute("INSERT INTO traces (sha256, n_events) VALUES (NULL, 0)")
            assert cur.lastrowid is not None
            st = self._traces[run_id] = _OpenTrace(int(cur.lastrowid), hashlib.sha256())
        return st

    def _trace_event(self, ev: TraceEvent) -> None:
        st = self._open_trace(ev.run_id)
        st.hasher.update(ev.raw.encode("utf-8"))
        st.hasher.update(b"\n")
        st.n_events += 1
        self._events.append(
            (
                st.pk,
                ev.seq,
                ev.t,
                ev.kind,
                ev.tool,
                ev.input_tokens,
                ev.output_tokens,
                ev.cache_read_tokens,
                ev.cache_write_tokens,
                ev.duration_ms,
                ev.raw,
            )
        )
        if len(self._events) >= EVENT_BATCH:
            self._flush_events()

    def _trace_batch(self, batch: TraceEventBatch) -> None:
        st = self._open_trace(batch.run_id)
        # Events yielded one by one may still wait in the buffer: keep the stored order.
        self._flush_events()
        st.hasher.update(batch.raw_lines)
        st.n_events += len(batch.rows)
        # The trace's key is an integer the store made, so it can sit in the statement itself,
        # which saves building a second tuple per row.
        self.db.conn.executemany(
            f"INSERT INTO trace_events VALUES ({int(st.pk)}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            batch.rows,
        )

    def add_events(self, run_id: str, rows: list[tuple[Any, ...]], raws: list[bytes]) -> None:
        """Fast path for bulk traces: rows are (seq, t, kind, tool, in, out, cr, cw, ms, raw)."""
        st = self._open_trace(run_id)
        update = st.hasher.update
        for raw in raws:
            update(raw)
            update(b"\n")
        st.n_events += len(rows)
        pk = st.pk
        self.db.conn.executemany(
            "INSERT INTO trace_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(pk, *row) for row in rows],
        )

    def _flush_events(self) -> None:
        if self._events:
            self.db.conn.executemany(
                "INSERT INTO trace_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", self._events
            )
            self._events.clear()

    # -- staged imports (abp_tui.store.staging) --------------------------------------------------
    def detach_trace(self, run_id: str) -> tuple[int, str, int] | None:
        """Finish the trace open for ``run_id`` and hand it over as (key, SHA-256, events): its
        run is written later, after :meth:`attach_trace`."""
        st = self._traces.pop(run_id, None)
        if st is None:
            return None
        self._flush_events()
        return st.pk, st.hasher.hexdigest(), st.n_events

    def has_open_trace(self, run_id: str) -> bool:
        """True when trace events of ``run_id`` were written and its run not yet."""
        return run_id in self._traces

    def attach_trace(self, run_id: str, pk: int, sha256: str, n_events: int) -> None:
        """Give back a trace :meth:`detach_trace` handed over, for the run written next."""
        self._traces[run_id] = _OpenTrace(pk, _Finished(sha256), n_events)

    def open_traces(self) -> list[int]:
        """The keys of the traces with events written and no run yet."""
        return [st.pk for st in self._traces.values()]

    def _close_trace(self, run_id: str) -> tuple[int | None, str | None]:
        st = self._traces.pop(run_id, None)
        if st is None:
            return None, None
        self._flush_events()
        sha = st.hasher.hexdigest()
        same = self.db.execute(
            "SELECT pk FROM traces WHERE sha256 = ? AND pk != ? LIMIT 1", [sha, st.pk]
        ).fetchone()
        if same is not None:
            self.db.execute("DELETE FROM trace_events WHERE trace_pk = ?", [st.pk])
            self.db.execute("DELETE FROM traces WHERE pk = ?", [st.pk])
            return int(same[0]), sha
        self.db.execute(
            "UPDATE traces SET sha256 = ?, n_events = ? WHERE pk = ?", [sha, st.n_events, st.pk]
        )
        self.counts["trace events added"] += st.n_events
        return st.pk, sha

    def _run(
        self,
        run_id: str,
        task_id: str,
        condition_id: str,
        output_sha: str | None,
        output: str | None,
        body_json: str,
        trace: tuple[int, str, int] | None,
        values: tuple[Any, ...],
        diff: tuple[str, str | bytes] | None = None,
    ) -> None:
        self._require_study()
        if trace is not None:
            self.attach_trace(run_id, *trace)
        trace_pk, trace_sha = self._close_trace(run_id) if self._traces else (None, None)
        # Most runs name a task and a condition already known: looked up here, not by call.
        task_pk, task_sha = self._task_pk.get(task_id) or self._task_ref(task_id)
        cond_pk, cond_sha = self._condition_pk.get(condition_id) or self._condition_ref(
            condition_id
        )
        if output_sha is not None and output_sha not in self._blobs:
            self._blobs.add(output_sha)
            self._rows.insert("blobs", BLOB_SQL, (output_sha, output))
        if diff is not None and diff[0] not in self._blobs:  # named by the run's metadata
            self._blobs.add(diff[0])
            self._rows.insert("blobs", BLOB_SQL, diff)
        # canonical_json([body, output_sha, trace_sha, task_sha, cond_sha]), the body's JSON
        # made once: the text of a list is its items' texts joined by commas.
        sha = sha256_text(
            f"[{body_json},{json_hex(output_sha)},{json_hex(trace_sha)},"
            f"{json_hex(task_sha)},{json_hex(cond_sha)}]"
        )
        pk, status = self._versioned(
            "runs",
            run_id,
            sha,
            RUN_COLUMNS,
            (task_pk, cond_pk, output_sha, trace_pk, self.import_pk, *values),
        )
        self.counts[f"runs {status}"] += 1
        self._run_pk[run_id] = pk

    def _rubric(self, rubric: Rubric) -> None:
        doc = rubric.model_dump_json()
        sha = sha256_text(doc)
        cur = self.db.execute(
            "INSERT OR IGNORE INTO rubrics (id, version, sha256, document, source) "
            "VALUES (?, ?, ?, ?, ?)",
            [rubric.id, rubric.version, sha, doc, rubric.source],
        )
        self.counts["rubrics added" if cur.rowcount else "rubrics unchanged"] += 1

    def _reviewer(self, name: str, external: bool) -> None:
        if name in self._reviewers:
            return
        # Written at once (preferences, held back, are written after it).
        self.db.conn.execute(
            "INSERT OR IGNORE INTO reviewers (name, external) VALUES (?, ?)", [name, int(external)]
        )
        self._reviewers.add(name)

    def _run_ref(self, run_id: str) -> int:
        pk = self._run_pk.get(run_id)
        if pk is None:
            ref = self._current_ref("runs", run_id)
            if ref is None:
                raise WriterError(f"a preference names run {run_id!r}, which is not stored")
            pk = ref[0]
        return pk

    def _preference(
        self,
        reviewer: str,
        item_id: str,
        task_id: str,
        run_1: str,
        run_2: str,
        choice: str,
        justification: str,
    ) -> None:
        study_id = self._require_study()
        if reviewer not in self._reviewers:
            self._reviewer(reviewer, True)
        # The lookups answered from memory, as for most preferences, are made here, not by call.
        task_pk = (self._task_pk.get(task_id) or self._task_ref(task_id))[0]
        r1 = self._run_pk.get(run_1) or self._run_ref(run_1)
        r2 = self._run_pk.get(run_2) or self._run_ref(run_2)
        key = (reviewer, item_id, r1, r2, choice, justification)
        stored = self._preferences
        if stored is None:
            stored = self._stored_preferences(study_id)
        if key in stored or (self._forgot and self._preference_stored(study_id, key)):
            self.counts["preferences unchanged"] += 1
            return
        stored.add(key)
        self._remembered()
        # Nothing refers to a preference's row, so preferences are stored in batches.
        self._rows.insert(
            "preferences",
            PREFERENCE_SQL,
            (study_id, reviewer, item_id, task_pk, r1, r2, choice, justification, self._now),
        )
        self.counts["preferences added"] += 1

    def _preference_stored(self, study_id: str, key: tuple[Any, ...]) -> bool:
        """Whether the store holds this preference (once the ones remembered were forgotten:
        every one not remembered is written)."""
        row = self.db.conn.execute(
            "SELECT 1 FROM preferences WHERE study_id = ? AND item_id = ? AND reviewer = ? "
            "AND run_1_pk = ? AND run_2_pk = ? AND choice = ? AND justification = ? LIMIT 1",
            [study_id, key[1], key[0], key[2], key[3], key[4], key[5]],
        ).fetchone()
        return row is not None

    def _stored_preferences(self, study_id: str) -> set[tuple[Any, ...]]:
        """The preferences of the study, and those this file added: read in one query the first
        time, not one query per preference."""
        if self._preferences is None:
            self._preferences = (
                set()
                if self._fresh_study
                else {
                    tuple(row)
                    for row in self.db.conn.execute(
                        "SELECT reviewer, item_id, run_1_pk, run_2_pk, choice, justification "
                        "FROM preferences WHERE study_id = ?",
                        [study_id],
                    )
                }
            )
        return self._preferences

    def _reference_verdict(self, verdict: ReferenceVerdict) -> None:
        study_id = self._require_study()
        doc = canonical_json(verdict.document)
        cur = self.db.execute(
            "INSERT OR IGNORE INTO reference_verdicts (study_id, id, sha256, schema_name, "
            "document) VALUES (?, ?, ?, ?, ?)",
            [study_id, verdict.id, sha256_text(doc), verdict.schema_name, doc],
        )
        self.counts[
            "reference verdicts added" if cur.rowcount else "reference verdicts unchanged"
        ] += 1
