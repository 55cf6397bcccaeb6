"""Runs and their traces: what a condition produced for a task, and how."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import Field, NonNegativeFloat, NonNegativeInt

from abp_tui.models.base import Exposable, Model
from abp_tui.models.rubric import ResultState


class Tokens(Exposable):
    """Token counts, normalised as seed 003 asks: input never includes cache reads."""

    input: NonNegativeInt | None = None
    output: NonNegativeInt | None = None
    cache_read: NonNegativeInt | None = None
    cache_write: NonNegativeInt | None = None
    total: NonNegativeInt | None = None


class Run(Exposable):
    """One execution of a task under a condition (task x condition x trial)."""

    id: str = Field(min_length=1)
    """Identifier, unique within the study (from the source, or derived from its position)."""
    task_id: str = Field(min_length=1)
    condition_id: str = Field(min_length=1)
    trial: int = Field(default=1, ge=0)
    """Repeat / trial / epoch number."""
    output: str | None = None
    """The raw output, stored intact."""
    provider: str | None = None
    model: str | None = None
    model_version: str | None = None
    engine: str | None = None
    engine_version: str | None = None
    reasoning: str | None = None
    """Reasoning mode or effort, when configurable."""
    tokens: Tokens | None = None
    tool_calls: NonNegativeInt | None = None
    wall_clock_ms: NonNegativeFloat | None = None
    cost_usd: NonNegativeFloat | None = None
    started_at: str | None = None
    origin_status: ResultState | None = None
    """A result state the source itself assigned (INFRA_ERROR rows, PROVIDER_BLOCK...)."""
    automated_outcome: str | None = None
    """An automated verification outcome (passed, failed, timeout, agent-error, resolved...)."""
    excluded_reason: str | None = None
    """Why the source excluded the run before scoring; the run stays visible."""
    source_file: str = ""
    """The file the record came from (its name, not a machine path)."""
    source_line: int | None = None
    """1-based line in a JSONL source, when the record is one line of it."""
    synthetic: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Everything else the source carried for the run, kept verbatim."""
    diff: bytes | None = Field(default=None, exclude=True, repr=False)
    """The diff file the source names for the run, its bytes intact (Arena's ``diffPath``):
    stored as a blob that ``metadata["diffFile"]`` names by hash, never in the run's JSON."""


class TraceEvent(Model):
    """One event of a run's trace (abp-trace/v1 line, Inspect event...)."""

    run_id: str
    """The run the event belongs to."""
    seq: int
    t: str | None = None
    kind: str
    tool: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    duration_ms: float | None = None
    raw: str
    """The event exactly as the source wrote it (one JSON document)."""


class ReferenceVerdict(Model):
    """A verdict the source computed itself (abp-verdict/v1), kept for reference."""

    id: str
    schema_name: str
    document: dict[str, Any]


EventRow = tuple[
    int,
    str | None,
    str,
    str | None,
    int | None,
    int | None,
    int | None,
    int | None,
    float | None,
    str,
]
"""One trace_events row without its trace: (seq, t, kind, tool, input, output, cache_read,
cache_write, duration_ms, raw)."""


@dataclass(frozen=True, slots=True)
class TraceEventBatch:
    """Consecutive events of one run's trace, stored with one ``executemany``.

    The bulk path for long traces: a parser that has validated its events yields plain rows
    instead of one :class:`TraceEvent` model per event. Stored exactly as the same events
    yielded one by one would be (same rows, same trace hash).
    """

    run_id: str
    """The run the events belong to (its Run record comes after the last batch)."""
    rows: list[EventRow]
    raw_lines: bytes
    """The events' raw lines, each followed by a newline: what the trace hash covers."""
