"""A run as a transcript: the steps an agent took, in a neutral shape every source maps onto.

Each :class:`Step` is one thing that happened (a message, a model call, a tool call with its
arguments and result, an error, a subagent starting), with the tokens and time the source
attributes to it; :class:`Transcript` holds the steps with the run's totals. The builders read
what the store keeps (trace events with their raw JSON, the record's metadata) and never a file.

Everything that leaves here is blind and displayable: every string is masked with the design's
identity masker (the function that masks the outputs) and then made safe (:mod:`abp_tui.text.safe`).
Fields whose value *is* an identity (``model``, ``engine``, ``provider``, run ids...) are left out
rather than masked, and tables keyed by model name (ABP ``tokens_by_model``, Inspect
``model_usage``) are shown as "model 1", "model 2" in order of appearance. The automated outcome
(ABP ``run.end`` ``outcome``, Inspect scores) is left out too: the blind screen does not show an
automated verdict before the reviewer's own. What is left out is counted in the transcript's notes.

ABP traces and other event-only traces are read here; Inspect logs in
:mod:`abp_tui.analysis.transcript_inspect`. No I/O, no UI types.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from abp_tui.text.safe import safe_line, safe_text

Mask = Callable[[str], tuple[str, int]]
"""An identity masker's ``mask``: the text with identities replaced, and how many."""

IDENTITY_FIELDS = frozenset(
    {
        "model",
        "models",
        "model_version",
        "modelVersion",
        "resolvedModel",
        "resolved_model",
        "engine",
        "engine_version",
        "engineVersion",
        "provider",
        "adapter",
        "agent",
        "bin",
        "run_id",
        "runId",
        "system_fingerprint",
        "transcriptPath",
        "diffPath",
        "trace_producer",
    }
)
"""Fields whose value names the model, engine, provider or run: left out of a blind transcript
(at any depth), never shown masked."""
OUTCOME_FIELDS = frozenset({"outcome", "scores", "score"})
"""Fields holding an automated verdict: left out before the reviewer has judged."""


class TraceEventData(Protocol):
    """One stored trace event (:class:`abp_tui.store.transcripts.StoredEvent` is one)."""

    @property
    def seq(self) -> int: ...
    @property
    def t(self) -> str | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def tool(self) -> str | None: ...
    @property
    def input_tokens(self) -> int | None: ...
    @property
    def output_tokens(self) -> int | None: ...
    @property
    def cache_read_tokens(self) -> int | None: ...
    @property
    def cache_write_tokens(self) -> int | None: ...
    @property
    def duration_ms(self) -> float | None: ...
    @property
    def raw(self) -> str: ...


# -- the shape ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class StepTokens:
    """Tokens attributed to one step, normalised as seed 003 asks (input without cache reads)."""

    input: int | None = None
    output: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None

    @property
    def known(self) -> bool:
        return any(
            v is not None for v in (self.input, self.output, self.cache_read, self.cache_write)
        )


@dataclass(frozen=True)
class ToolCall:
    """A tool the agent called: its name, arguments (pretty JSON), result and error."""

    name: str
    arguments: str = ""
    result: str | None = None
    """None when the source recorded no result (distinct from an empty one)."""
    error: str | None = None
    duration_ms: float | None = None


@dataclass(frozen=True)
class Step:
    """One thing that happened in a run."""

    kind: str
    """A message's role (system, user, assistant, tool) or the source's event kind."""
    seq: int | None = None
    """The source event's number, when the step is one event."""
    elapsed_ms: float | None = None
    """Time since the run's first event."""
    text: str = ""
    """The message (or what the event says in words)."""
    calls: tuple[ToolCall, ...] = ()
    error: str | None = None
    tokens: StepTokens | None = None
    duration_ms: float | None = None
    details: str = ""
    """Every other field the source stored for the step, as pretty JSON."""
    depth: int = 0
    """Nesting: 1 inside a subagent, 2 inside a subagent of a subagent..."""
    branch: str | None = None
    """The subagent the step belongs to."""


@dataclass(frozen=True)
class Transcript:
    """A run's steps, with its totals and what a blind screen leaves out."""

    source: str
    """What the steps were read from ("ABP trace", "Inspect AI log", "trace events")."""
    steps: tuple[Step, ...] = ()
    summary: tuple[str, ...] = ()
    """The run's totals and their attribution (per subagent, per model, anonymised)."""
    notes: tuple[str, ...] = ()
    """What is not shown, and why."""
    masked: int = 0
    """Identity terms masked in the transcript's text."""

    @property
    def tool_calls(self) -> int:
        return sum(len(s.calls) for s in self.steps)


# -- cleaning -----------------------------------------------------------------------------------
class Cleaner:
    """Masks and sanitises every string of a transcript, and counts what it left out."""

    def __init__(self, mask: Mask) -> None:
        self._mask = mask
        self.masked = 0
        self.withheld: Counter[str] = Counter()
        """Identity fields left out, by name."""
        self.models: dict[str, str] = {}
        """Model names seen as keys, and the anonymous label each is shown as."""

    def text(self, value: str) -> str:
        """Multi-line text: masked, line ends normalised, unsafe characters made visible."""
        masked, n = self._mask(value)
        self.masked += n
        return safe_text(masked.replace("\r\n", "\n"))

    def line(self, value: str) -> str:
        masked, n = self._mask(value)
        self.masked += n
        return safe_line(masked)

    def strip(self, value: Any) -> Any:
        """``value`` without its identity fields (at any depth), counting them."""
        if isinstance(value, Mapping):
            kept = {}
            for key, item in value.items():
                if key in IDENTITY_FIELDS:
                    self.withheld[str(key)] += 1
                    continue
                kept[key] = self.strip(item)
            return kept
        if isinstance(value, list):
            return [self.strip(item) for item in value]
        return value

    def json(self, value: Any) -> str:
        """A value as pretty JSON, identity fields left out, then masked and made safe."""
        if isinstance(value, str):
            return self.text(value)
        kept = self.strip(value)
        if kept in (None, {}, []):
            return ""
        return self.text(json.dumps(kept, indent=2, ensure_ascii=False, default=str))

    def fields(self, value: Mapping[str, Any]) -> str:
        """A step's other fields, one per line (``key: value``; a nested value as pretty JSON
        below its key), identity fields and empty values left out, masked and made safe."""
        kept = self.strip(value)
        lines = []
        for key, item in kept.items():
            if item in (None, "", {}, []):
                continue
            if isinstance(item, Mapping | list):
                nested = json.dumps(item, indent=2, ensure_ascii=False, default=str)
                lines.append(f"{key}:\n" + "\n".join("  " + ln for ln in nested.split("\n")))
            elif isinstance(item, str):
                lines.append(f"{key}: {item}")
            else:
                lines.append(f"{key}: {json.dumps(item, default=str)}")
        return self.text("\n".join(lines))

    def model_label(self, name: str) -> str:
        """The anonymous label of a model named as a key ("model 1", "model 2"...)."""
        return self.models.setdefault(name, f"model {len(self.models) + 1}")

    def notes(self) -> list[str]:
        """What was left out, for the transcript's notes."""
        if not self.withheld:
            return []
        fields = ", ".join(f"{k} ×{n}" for k, n in sorted(self.withheld.items()))
        return [f"Fields naming a model, engine, provider or run are not shown: {fields}."]


def number(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def tally_line(label: str, tally: Mapping[str, Any]) -> str:
    """``label: 3 calls · in 1,204 · out 388 · cache read 9,120 · cache write 0``."""
    parts = [label + ":"]
    calls = tally.get("calls")
    if isinstance(calls, int):
        parts.append(f"{calls:,} call{'s' if calls != 1 else ''}")
    for key, name in (
        ("input", "in"),
        ("input_tokens", "in"),
        ("output", "out"),
        ("output_tokens", "out"),
        ("cacheRead", "cache read"),
        ("input_tokens_cache_read", "cache read"),
        ("cacheWrite", "cache write"),
        ("input_tokens_cache_write", "cache write"),
        ("total_tokens", "total"),
    ):
        value = tally.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            parts.append(f"{name} {number(value)}")
    return f"{parts[0]} {' · '.join(parts[1:])}" if len(parts) > 1 else parts[0]


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None


class Clock:
    """Milliseconds since the first event that has a time."""

    def __init__(self) -> None:
        self._start: datetime | None = None

    def elapsed(self, value: str | None) -> float | None:
        at = parse_time(value)
        if at is None:
            return None
        if self._start is None:
            self._start = at
        try:
            return (at - self._start).total_seconds() * 1000
        except TypeError:  # one naive, one aware timestamp
            return None


def event_tokens(event: TraceEventData) -> StepTokens | None:
    tokens = StepTokens(
        event.input_tokens, event.output_tokens, event.cache_read_tokens, event.cache_write_tokens
    )
    return tokens if tokens.known else None


def raw_object(event: TraceEventData) -> dict[str, Any]:
    try:
        parsed = json.loads(event.raw)
    except (TypeError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def as_text(value: Any, clean: Cleaner) -> str | None:
    """A field's value as text: a string as it is, anything else as pretty JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return clean.text(value)
    return clean.json(value)


def error_text(value: Any, clean: Cleaner) -> str | None:
    """An error as one text: ``type: message`` for an error object, else the value."""
    if value in (None, "", {}, False):
        return None
    if isinstance(value, Mapping) and isinstance(value.get("message"), str):
        kind = value.get("type")
        text = f"{kind}: {value['message']}" if isinstance(kind, str) and kind else value["message"]
        return clean.text(text)
    return as_text(value, clean)


# -- event traces (ABP and the rest) --------------------------------------------------------------
_TEXT_FIELDS = ("message", "text", "content", "thought", "reasoning", "output", "summary")
"""Fields in which an event says something in words (a model's message, run.end's summary);
a tool event's ``output`` is its result instead."""
_RESULT_FIELDS = ("result", "output", "stdout", "response", "observation")
"""Fields holding what a tool returned."""
_ARGUMENT_FIELDS = ("args", "arguments", "input", "params")
_ERROR_FIELDS = ("error", "exception")
_COLUMNS = frozenset({"t", "seq", "kind", "tool", "tokens", "durationMs", "subagent"})
"""Fields shown through the stored columns (time, number, kind, tool, tokens, duration)."""
_NATIVE_COLUMNS = frozenset(
    {
        "type",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "duration_ms",
    }
)


def _pop_first(fields: dict[str, Any], names: Sequence[str]) -> Any:
    for name in names:
        if fields.get(name) not in (None, ""):
            return fields.pop(name)
    return None


def _event_step(
    event: TraceEventData,
    depth: int,
    branch: str | None,
    clock: Clock,
    clean: Cleaner,
    withheld: Counter[str],
) -> Step:
    fields = raw_object(event)
    for name in _COLUMNS | _NATIVE_COLUMNS:
        fields.pop(name, None)
    for name in OUTCOME_FIELDS:
        if name in fields:
            withheld[name] += 1
            fields.pop(name)
    kind = clean.line(event.kind)
    calls: tuple[ToolCall, ...] = ()
    error = error_text(_pop_first(fields, _ERROR_FIELDS), clean)
    if event.tool is not None:
        arguments = _pop_first(fields, _ARGUMENT_FIELDS)
        result = as_text(_pop_first(fields, _RESULT_FIELDS), clean)
        calls = (
            ToolCall(
                clean.line(event.tool),
                clean.json(arguments) if arguments is not None else "",
                result,
                error,
                event.duration_ms,
            ),
        )
        error = None
    text = _pop_first(fields, _TEXT_FIELDS)
    if event.kind.startswith("subagent.") and isinstance(fields.get("id"), str):
        said = f"subagent {fields.pop('id')}"
        purpose = fields.pop("purpose", None)
        text = f"{said}: {purpose}" if isinstance(purpose, str) and purpose else said
    return Step(
        kind=kind,
        seq=event.seq,
        elapsed_ms=clock.elapsed(event.t),
        text=as_text(text, clean) or "",
        calls=calls,
        error=error,
        tokens=event_tokens(event),
        duration_ms=event.duration_ms if not calls else None,
        details=clean.fields(fields),
        depth=depth,
        branch=clean.line(branch) if branch else None,
    )


def events_transcript(
    events: Sequence[TraceEventData],
    metadata: Mapping[str, Any],
    event_count: int,
    mask: Mask,
    source: str = "trace events",
) -> Transcript:
    """One step per event (ABP ``abp-trace/v1`` and any other event trace), subagents nested."""
    clean = Cleaner(mask)
    clock = Clock()
    withheld: Counter[str] = Counter()
    steps: list[Step] = []
    open_branches: list[str] = []
    for event in events:
        fields = raw_object(event)
        branch_id = fields.get("id") if isinstance(fields.get("id"), str) else None
        named = fields.get("subagent") if isinstance(fields.get("subagent"), str) else None
        if event.kind == "subagent.end" and branch_id in open_branches:
            # Branches of a fan-out may end in any order: close the latest with this id.
            del open_branches[len(open_branches) - 1 - open_branches[::-1].index(branch_id)]
            depth, branch = len(open_branches), branch_id
        else:
            branch = named or (open_branches[-1] if open_branches else None)
            depth = len(open_branches) + (1 if named and named not in open_branches else 0)
        steps.append(_event_step(event, depth, branch, clock, clean, withheld))
        if event.kind == "subagent.start" and branch_id is not None:
            open_branches.append(branch_id)
    summary = _abp_summary(metadata, clean)
    notes = _common_notes(len(events), event_count, withheld) + clean.notes()
    return Transcript(source, tuple(steps), tuple(summary), tuple(notes), clean.masked)


def _abp_summary(metadata: Mapping[str, Any], clean: Cleaner) -> list[str]:
    lines: list[str] = []
    calls = metadata.get("model_call_tokens")
    if isinstance(calls, Mapping):
        lines.append(tally_line("model calls", calls))
    by_subagent = metadata.get("tokens_by_subagent")
    purposes: Mapping[str, Any] = {}
    subagents = metadata.get("subagents")
    if isinstance(subagents, Mapping) and isinstance(subagents.get("purposes"), Mapping):
        purposes = subagents["purposes"]
    if isinstance(by_subagent, Mapping):
        for name, tally in by_subagent.items():
            if isinstance(tally, Mapping):
                purpose = purposes.get(name)
                label = f"subagent {name}" + (f" ({purpose})" if isinstance(purpose, str) else "")
                lines.append(clean.line(tally_line(label, tally)))
    by_model = metadata.get("tokens_by_model")
    if isinstance(by_model, Mapping):
        for name, tally in by_model.items():
            if isinstance(tally, Mapping):
                lines.append(tally_line(clean.model_label(str(name)), tally))
    note = metadata.get("trace_note")
    if isinstance(note, str):
        lines.append(clean.line(note))
    return lines


def _common_notes(shown: int, total: int, withheld: Counter[str]) -> list[str]:
    notes = []
    if total > shown:
        notes.append(f"Showing the first {shown:,} of {total:,} events.")
    if withheld:
        notes.append(
            "The automated outcome is not shown on a blind screen ("
            + ", ".join(f"{k} ×{n}" for k, n in sorted(withheld.items()))
            + ")."
        )
    return notes


def columns_transcript(
    events: Iterable[tuple[int, str, str | None, int | None, int | None, float | None]],
) -> Transcript:
    """Steps from the stored columns alone (seq, kind, tool, tokens in and out, duration):
    for a screen that has only a blind item's trace table, already masked."""
    steps = tuple(
        Step(
            kind=safe_line(kind),
            seq=seq,
            calls=(ToolCall(safe_line(tool), duration_ms=ms),) if tool else (),
            tokens=StepTokens(tokens_in, tokens_out) if tokens_in or tokens_out else None,
            duration_ms=None if tool else ms,
        )
        for seq, kind, tool, tokens_in, tokens_out, ms in events
    )
    return Transcript("trace events", steps)


# -- any run ------------------------------------------------------------------------------------
INSPECT_FORMATS = frozenset({"inspect-json", "inspect-eval"})


def build_transcript(
    source_format: str | None,
    metadata: Mapping[str, Any],
    events: Sequence[TraceEventData],
    event_count: int,
    mask: Mask,
) -> Transcript:
    """The transcript of one run from what its record and trace keep, masked with ``mask``."""
    from abp_tui.analysis.transcript_inspect import inspect_transcript

    if source_format in INSPECT_FORMATS or (
        source_format is None and isinstance(metadata.get("messages"), list)
    ):
        return inspect_transcript(metadata, events, event_count, mask)
    if source_format == "arena":
        return Transcript(
            "Arena result",
            notes=(
                "Arena keeps each trial's transcript in a file of its own, which its "
                "results.json only points to: there is no transcript to show.",
            ),
        )
    if not events:
        return Transcript("no trace", notes=("The record has no trace events.",))
    trace = metadata.get("trace")
    abp = source_format == "abp-trace" or (
        isinstance(trace, Mapping) and trace.get("schema") == "abp-trace/v1"
    )
    return events_transcript(
        events, metadata, event_count, mask, "ABP trace" if abp else "trace events"
    )


__all__ = [
    "Cleaner",
    "Step",
    "StepTokens",
    "ToolCall",
    "Transcript",
    "build_transcript",
    "columns_transcript",
    "events_transcript",
]
