"""Writing parsed records into the store, inside the caller's transaction.

Content is hashed and versioned: a record whose id exists with the same content adds nothing; with
different content it becomes a new version and the old one stays, so anything judged remains
attached to the exact text it was judged on. Trace events are written in batches through
``executemany`` because they are the bulk of most imports.
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlite_utils

from abp_tui.models import (
    Condition,
    Preference,
    ReferenceVerdict,
    Reviewer,
    Rubric,
    Run,
    Study,
    Task,
    TraceEvent,
    TraceEventBatch,
)
from abp_tui.models.judges import Judge, JudgeVerdict
from abp_tui.store.db import utc_now
from abp_tui.text.canonical import canonical_json, sha256_text

if TYPE_CHECKING:
    from abp_tui.store.judges import JudgeWriter

EVENT_BATCH = 5000


@dataclass
class _OpenTrace:
    pk: int
    hasher: Any
    n_events: int = 0


@functools.cache
def _insert_sql(table: str, names: tuple[str, ...]) -> str:
    """The INSERT of one versioned row (built once per table and column set)."""
    all_names = [
        *names,
        "study_id",
        "id",
        "version_no",
        "current",
        "placeholder",
        "sha256",
        "created_at",
    ]
    marks = ", ".join("?" for _ in all_names)
    return f"INSERT INTO {table} ({', '.join(all_names)}) VALUES ({marks})"


@functools.lru_cache(maxsize=1024)
def _names_json(names: tuple[str, ...]) -> str:
    """A tuple of names as canonical JSON (most records of a file share theirs)."""
    return canonical_json(list(names))


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
        self._known: dict[tuple[str, str], tuple[int, str, int, int]] = {}
        self._reviewers: set[str] = set()
        self._preferences: set[tuple[Any, ...]] = set()
        self._pending_preferences: list[tuple[Any, ...]] = []
        self._judges: JudgeWriter | None = None

    # -- dispatch -------------------------------------------------------------------------------
    def write(self, record: object) -> None:
        if isinstance(record, TraceEventBatch):
            self._trace_batch(record)
        elif isinstance(record, TraceEvent):
            self._trace_event(record)
        elif isinstance(record, Run):
            self._run(record)
        elif isinstance(record, Study):
            self._study(record)
        elif isinstance(record, Task):
            self._task(record)
        elif isinstance(record, Condition):
            self._condition(record)
        elif isinstance(record, Rubric):
            self._rubric(record)
        elif isinstance(record, Reviewer):
            self._reviewer(record)
        elif isinstance(record, Preference):
            self._preference(record)
        elif isinstance(record, ReferenceVerdict):
            self._reference_verdict(record)
        elif isinstance(record, Judge | JudgeVerdict):
            self._judge_records().write(record)
        else:
            raise WriterError(f"cannot store a {type(record).__name__}")

    def finish(self, partial: bool = False) -> Counter[str]:
        """Close the import. ``partial``: the file stopped early, so drop traces left open."""
        self._flush_events()
        self._flush_preferences()
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
        self, table: str, key: str, sha: str, columns: dict[str, Any], placeholder: bool = False
    ) -> tuple[int, str]:
        """Insert or version one row of ``table``; return (pk, status).

        The status is 'added', 'new version' or 'unchanged'.
        """
        study_id = self._require_study()
        cur = self._current_row(table, key)
        names = list(columns)
        if cur is not None and cur[1] == sha:
            return int(cur[0]), "unchanged"
        if cur is not None and placeholder:
            # Never replace real content by a placeholder.
            return int(cur[0]), "unchanged"
        if cur is not None and cur[2]:
            # A placeholder made for a reference is filled in place once the real record arrives.
            sets = ", ".join(f"{n} = ?" for n in names)
            self.db.conn.execute(
                f"UPDATE {table} SET {sets}, sha256 = ?, placeholder = 0 WHERE pk = ?",
                [*columns.values(), sha, cur[0]],
            )
            self._known[table, key] = (cur[0], sha, 0, cur[3])
            return int(cur[0]), "added"
        version_no = 1
        status = "added"
        if cur is not None:
            self.db.execute(f"UPDATE {table} SET current = 0 WHERE pk = ?", [cur[0]])
            version_no = int(cur[3]) + 1
            status = "new version"
        row = self.db.conn.execute(
            _insert_sql(table, tuple(names)),
            [*columns.values(), study_id, key, version_no, 1, int(placeholder), sha, self._now],
        )
        assert row.lastrowid is not None
        self._known[table, key] = (row.lastrowid, sha, int(placeholder), version_no)
        return int(row.lastrowid), status

    def _current_row(self, table: str, key: str) -> tuple[int, str, int, int] | None:
        """(pk, sha256, placeholder, version_no) of the current row of ``table`` with this id."""
        known = self._known.get((table, key))
        if known is not None or self._fresh_study:
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
        return found

    def _task(self, task: Task, placeholder: bool = False) -> tuple[int, str]:
        doc = task.model_dump(mode="json")
        sha = sha256_text(canonical_json(doc))
        pk, status = self._versioned(
            "tasks",
            task.id,
            sha,
            {
                "title": task.title,
                "prompt": task.prompt,
                "base_instruction": task.base_instruction,
                "evidence": task.evidence,
                "expected_behaviour": task.expected_behaviour,
                "fatal_criteria": _names_json(task.fatal_criteria),
                "risk_type": task.risk_type,
                "version": task.version,
                "synthetic": int(task.synthetic),
                "metadata": canonical_json(task.metadata),
            },
            placeholder,
        )
        if not placeholder:
            self.counts[f"tasks {status}"] += 1
        self._task_pk[task.id] = (pk, sha)
        return pk, sha

    def _condition(self, cond: Condition, placeholder: bool = False) -> tuple[int, str]:
        doc = cond.model_dump(mode="json")
        sha = sha256_text(canonical_json(doc))
        pk, status = self._versioned(
            "conditions",
            cond.id,
            sha,
            {
                "label": cond.label,
                "instructions": cond.instructions,
                "version": cond.version,
                "metadata": canonical_json(cond.metadata),
            },
            placeholder,
        )
        if not placeholder:
            self.counts[f"conditions {status}"] += 1
        self._condition_pk[cond.id] = (pk, sha)
        return pk, sha

    def _current_ref(self, table: str, key: str) -> tuple[int, str] | None:
        row = self._current_row(table, key)
        return (row[0], row[1]) if row else None

    def _task_ref(self, task_id: str) -> tuple[int, str]:
        ref = self._task_pk.get(task_id) or self._current_ref("tasks", task_id)
        if ref is None:
            ref = self._task(Task(id=task_id), placeholder=True)
        self._task_pk[task_id] = ref
        return ref

    def _condition_ref(self, cond_id: str) -> tuple[int, str]:
        ref = self._condition_pk.get(cond_id) or self._current_ref("conditions", cond_id)
        if ref is None:
            ref = self._condition(Condition(id=cond_id), placeholder=True)
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

    def _run(self, run: Run) -> None:
        self._require_study()
        trace_pk, trace_sha = self._close_trace(run.id)
        task_pk, task_sha = self._task_ref(run.task_id)
        cond_pk, cond_sha = self._condition_ref(run.condition_id)
        output_sha = None
        if run.output is not None:
            output_sha = sha256_text(run.output)
            self.db.conn.execute(
                "INSERT OR IGNORE INTO blobs (sha256, text) VALUES (?, ?)", [output_sha, run.output]
            )
        body = run.model_dump(mode="json", exclude={"output", "source_file", "source_line"})
        sha = sha256_text(canonical_json([body, output_sha, trace_sha, task_sha, cond_sha]))
        tokens = run.tokens
        columns: dict[str, Any] = {
            "task_pk": task_pk,
            "condition_pk": cond_pk,
            "trial": run.trial,
            "output_sha256": output_sha,
            "trace_pk": trace_pk,
            "provider": run.provider,
            "model": run.model,
            "model_version": run.model_version,
            "engine": run.engine,
            "engine_version": run.engine_version,
            "reasoning": run.reasoning,
            "input_tokens": tokens.input if tokens else None,
            "output_tokens": tokens.output if tokens else None,
            "cache_read_tokens": tokens.cache_read if tokens else None,
            "cache_write_tokens": tokens.cache_write if tokens else None,
            "total_tokens": tokens.total if tokens else None,
            "tool_calls": run.tool_calls,
            "wall_clock_ms": run.wall_clock_ms,
            "cost_usd": run.cost_usd,
            "started_at": run.started_at,
            "origin_status": run.origin_status.value if run.origin_status else None,
            "automated_outcome": run.automated_outcome,
            "excluded_reason": run.excluded_reason,
            "source_file": run.source_file or self.file_name,
            "source_line": run.source_line,
            "synthetic": int(run.synthetic),
            "not_exposed": _names_json(run.not_exposed),
            "document": run.model_dump_json(exclude={"output"}),
            "import_pk": self.import_pk,
        }
        pk, status = self._versioned("runs", run.id, sha, columns)
        self.counts[f"runs {status}"] += 1
        self._run_pk[run.id] = pk

    def _rubric(self, rubric: Rubric) -> None:
        doc = rubric.model_dump_json()
        sha = sha256_text(doc)
        cur = self.db.execute(
            "INSERT OR IGNORE INTO rubrics (id, version, sha256, document, source) "
            "VALUES (?, ?, ?, ?, ?)",
            [rubric.id, rubric.version, sha, doc, rubric.source],
        )
        self.counts["rubrics added" if cur.rowcount else "rubrics unchanged"] += 1

    def _reviewer(self, reviewer: Reviewer) -> None:
        if reviewer.name in self._reviewers:
            return
        self.db.conn.execute(
            "INSERT OR IGNORE INTO reviewers (name, external) VALUES (?, ?)",
            [reviewer.name, int(reviewer.external)],
        )
        self._reviewers.add(reviewer.name)

    def _run_ref(self, run_id: str) -> int:
        pk = self._run_pk.get(run_id)
        if pk is None:
            ref = self._current_ref("runs", run_id)
            if ref is None:
                raise WriterError(f"a preference names run {run_id!r}, which is not stored")
            pk = ref[0]
        return pk

    def _preference(self, pref: Preference) -> None:
        study_id = self._require_study()
        if pref.reviewer not in self._reviewers:
            self._reviewer(Reviewer(name=pref.reviewer, external=True))
        task_pk, _ = self._task_ref(pref.task_id)
        r1, r2 = self._run_ref(pref.run_1), self._run_ref(pref.run_2)
        key = (pref.reviewer, pref.item_id, r1, r2, pref.choice.value, pref.justification)
        same = key in self._preferences
        if not same and not self._fresh_study:
            same = (
                self.db.conn.execute(
                    "SELECT 1 FROM preferences WHERE study_id = ? AND reviewer = ? "
                    "AND item_id = ? AND run_1_pk = ? AND run_2_pk = ? AND choice = ? "
                    "AND justification = ?",
                    [study_id, *key],
                ).fetchone()
                is not None
            )
        if same:
            self.counts["preferences unchanged"] += 1
            return
        self._preferences.add(key)
        # Nothing refers to a preference's row, so preferences are stored in batches.
        self._pending_preferences.append(
            (
                study_id,
                pref.reviewer,
                pref.item_id,
                task_pk,
                r1,
                r2,
                pref.choice.value,
                pref.justification,
                self._now,
            )
        )
        if len(self._pending_preferences) >= EVENT_BATCH:
            self._flush_preferences()
        self.counts["preferences added"] += 1

    def _flush_preferences(self) -> None:
        if self._pending_preferences:
            self.db.conn.executemany(
                "INSERT INTO preferences (study_id, reviewer, item_id, task_pk, run_1_pk, "
                "run_2_pk, choice, justification, source, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'imported', ?)",
                self._pending_preferences,
            )
            self._pending_preferences.clear()

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
