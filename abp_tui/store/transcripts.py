"""Reads behind the transcript view: what a run's record and trace keep of what the agent did.

A run's transcript is built (:mod:`abp_tui.analysis.transcript`) from its stored trace events
(each with the raw JSON its source wrote, in ``seq`` order) and from its record's metadata (an
Inspect log's messages and attachments, an ABP trace's attribution tables). This module only
reads them; it never decides what a blind screen may show. The queue's task texts, which the
queue screen filters by, are read here too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite_utils

MAX_EVENTS = 10_000
"""Events read for one transcript: a reviewer reads steps, and a trace of millions of events
would be laid out for nothing (the transcript says how many it leaves out)."""


@dataclass(frozen=True)
class StoredEvent:
    """One trace event: the columns read from it at import, and its raw JSON."""

    seq: int
    t: str | None
    kind: str
    tool: str | None
    input_tokens: int | None
    output_tokens: int | None
    cache_read_tokens: int | None
    cache_write_tokens: int | None
    duration_ms: float | None
    raw: str


@dataclass(frozen=True)
class RunRecord:
    """What a transcript of one run is made from."""

    source_format: str | None
    """The ``--format`` name of the import that first stored the run (None: unknown)."""
    metadata: dict[str, Any]
    """The run record's metadata: everything its source carried beyond the common fields."""
    events: tuple[StoredEvent, ...]
    """The first :data:`MAX_EVENTS` trace events, in ``seq`` order."""
    event_count: int
    """All the trace's events (more than ``len(events)`` when the trace was cut)."""


def run_record(db: sqlite_utils.Database, run_pk: int, limit: int = MAX_EVENTS) -> RunRecord:
    """The metadata, import format and trace events of one run (by its key)."""
    row = db.execute(
        "SELECT r.document, r.trace_pk, i.format, t.n_events FROM runs r "
        "LEFT JOIN imports i ON i.pk = r.import_pk LEFT JOIN traces t ON t.pk = r.trace_pk "
        "WHERE r.pk = ?",
        [run_pk],
    ).fetchone()
    if row is None:
        return RunRecord(None, {}, (), 0)
    document, trace_pk, source_format, n_events = row
    try:
        parsed = json.loads(document)
    except (TypeError, ValueError):
        parsed = {}
    metadata = parsed.get("metadata") if isinstance(parsed, dict) else None
    events: tuple[StoredEvent, ...] = ()
    if trace_pk is not None:
        rows = db.execute(
            "SELECT seq, t, kind, tool, input_tokens, output_tokens, cache_read_tokens, "
            "cache_write_tokens, duration_ms, raw FROM trace_events WHERE trace_pk = ? "
            "ORDER BY seq LIMIT ?",
            [trace_pk, limit],
        ).fetchall()
        events = tuple(StoredEvent(*r) for r in rows)
    return RunRecord(
        source_format,
        metadata if isinstance(metadata, dict) else {},
        events,
        max(int(n_events or 0), len(events)),
    )


def task_texts(db: sqlite_utils.Database, design_pk: int) -> dict[str, str]:
    """Each item's task as the compare screen shows it (title, then prompt), by blind code."""
    rows = db.execute(
        "SELECT i.code, t.title, t.prompt FROM items i JOIN tasks t ON t.pk = i.task_pk "
        "WHERE i.design_pk = ?",
        [design_pk],
    ).fetchall()
    return {code: "\n".join(p for p in (title, prompt) if p) for code, title, prompt in rows}
