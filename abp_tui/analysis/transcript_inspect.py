"""An Inspect AI sample as a transcript (:mod:`abp_tui.analysis.transcript` has the shape).

The conversation (the record's ``messages``: system and user prompts, the assistant's messages
with their tool calls and arguments, the tool messages with their results and errors) gives the
steps; each tool message is shown with the call it answers (by ``tool_call_id``). The sample's
events give each step its tokens and time: a ``model`` event is the call that produced an
assistant message (matched by the message's id, else in order), a ``tool`` event the execution
of a call (by the call's id). ``attachment://`` references, which Inspect writes in place of long
texts, are resolved from the record's attachments.

Events that the messages do not already tell (errors, logger and info records, sandbox and
approval events, subtasks, a model call no message came from) become steps of their own, placed
after the step they followed; the structure of the log (spans, state and store changes, the
sample's set-up) is counted, not listed. Scoring is never shown: score events, the scorer's own
model calls and the sample's scores hold the automated (or an AI judge's) verdict, which a
reviewer must not see before judging. The sample's error, limit and other fields close the
transcript. No I/O, no UI types.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from abp_tui.analysis.transcript import (
    Cleaner,
    Clock,
    Mask,
    Step,
    ToolCall,
    TraceEventData,
    Transcript,
    as_text,
    error_text,
    event_tokens,
    raw_object,
    tally_line,
)

ATTACHMENT = "attachment://"
STRUCTURE = frozenset({"span_begin", "span_end", "state", "store", "sample_init", "step"})
"""Events that record how the log is organised, not something the agent did."""
SCORING_SPANS = frozenset({"scorer", "scorers"})
_BOOKKEEPING = frozenset(
    {"event", "timestamp", "working_start", "span_id", "uuid", "pending", "id", "completed"}
)
"""Fields of an event that only place it in the log."""
_MESSAGE_SHOWN = frozenset({"id", "role", "content", "tool_calls", "source", "tool_call_id"})


def resolve(value: Any, attachments: Mapping[str, Any]) -> Any:
    """``value`` with every ``attachment://`` reference replaced by the text it stands for."""
    if isinstance(value, str):
        if value.startswith(ATTACHMENT):
            found = attachments.get(value[len(ATTACHMENT) :])
            return found if isinstance(found, str) else value
        return value
    if isinstance(value, Mapping):
        return {k: resolve(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, attachments) for v in value]
    return value


def content_text(content: Any) -> str:
    """A message's content in words: its text parts, reasoning marked as such, other parts
    (images, audio...) named."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else json.dumps(content, ensure_ascii=False)
    parts = []
    for part in content:
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind == "text":
            parts.append(str(part.get("text", "")))
        elif kind == "reasoning":
            said = part.get("reasoning")
            parts.append(
                f"(reasoning) {said}"
                if said and not part.get("redacted")
                else "(reasoning, redacted)"
            )
        else:
            parts.append(f"[{kind or 'content'}]")
    return "\n".join(parts)


class _Events:
    """The sample's events sorted for matching: model calls, tool runs, what else happened."""

    def __init__(self, events: Sequence[TraceEventData], attachments: Mapping[str, Any]) -> None:
        self.model: list[tuple[TraceEventData, dict[str, Any]]] = []
        self.tools: dict[str, tuple[TraceEventData, dict[str, Any]]] = {}
        self.other: list[tuple[TraceEventData, dict[str, Any]]] = []
        self.structure: Counter[str] = Counter()
        self.scoring = 0
        self.withheld_calls = 0
        scoring_spans: set[str] = set()
        in_scorer = False
        for event in events:
            raw = resolve(raw_object(event), attachments)
            kind = raw.get("event", event.kind)
            if kind == "span_begin" and (
                raw.get("type") in SCORING_SPANS or raw.get("parent_id") in scoring_spans
            ):
                scoring_spans.add(str(raw.get("id")))
            if kind == "step" and raw.get("type") == "scorer":
                in_scorer = raw.get("action") == "begin"
            if kind == "score" or in_scorer or raw.get("span_id") in scoring_spans:
                self.scoring += 1
            elif kind in STRUCTURE:
                self.structure[str(kind)] += 1
            elif kind == "model":
                self.model.append((event, raw))
            elif kind == "tool" and isinstance(raw.get("id"), str):
                self.tools[raw["id"]] = (event, raw)
            else:
                self.other.append((event, raw))
        self._matched: set[int] = set()
        self._by_message: dict[str, int] = {}
        for i, (_event, raw) in enumerate(self.model):
            message = _output_message(raw)
            if message is not None and isinstance(message.get("id"), str):
                self._by_message[message["id"]] = i
        self._next = 0

    def model_for(self, message: Mapping[str, Any]) -> tuple[TraceEventData, dict[str, Any]] | None:
        """The model call that produced an assistant message (by id, else the next in order)."""
        message_id = message.get("id")
        index = self._by_message.get(message_id) if isinstance(message_id, str) else None
        if index is None:
            while self._next < len(self.model) and (
                self._next in self._matched or _output_message(self.model[self._next][1]) is None
            ):
                self._next += 1
            index = self._next if self._next < len(self.model) else None
        if index is None or index in self._matched:
            return None
        self._matched.add(index)
        return self.model[index]

    def unmatched_model(self) -> list[tuple[TraceEventData, dict[str, Any]]]:
        return [m for i, m in enumerate(self.model) if i not in self._matched]


def _model_time(event: TraceEventData, raw: Mapping[str, Any]) -> float | None:
    """A model call's duration: its working time, else the time its output reports."""
    if event.duration_ms is not None:
        return event.duration_ms
    output = raw.get("output")
    seconds = output.get("time") if isinstance(output, Mapping) else None
    if isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds >= 0:
        return float(seconds) * 1000
    return None


def _output_message(raw: Mapping[str, Any]) -> dict[str, Any] | None:
    output = raw.get("output")
    if isinstance(output, Mapping):
        choices = output.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
            message = choices[0].get("message")
            if isinstance(message, dict):
                return message
    return None


class _Builder:
    def __init__(self, metadata: Mapping[str, Any], events: Sequence[TraceEventData], mask: Mask):
        self.attachments = metadata.get("attachments") or {}
        if not isinstance(self.attachments, Mapping):
            self.attachments = {}
        self.clean = Cleaner(mask)
        self.clock = Clock()
        self.events = _Events(events, self.attachments)
        for event in events:  # the clock starts at the sample's first event
            if self.clock.elapsed(event.t) is not None:
                break
        self.used_tools: set[str] = set()

    # -- steps ----------------------------------------------------------------------------
    def _call(self, call: Mapping[str, Any], answers: Mapping[str, Mapping[str, Any]]) -> ToolCall:
        clean = self.clean
        call_id = call.get("id")
        answer = answers.get(call_id) if isinstance(call_id, str) else None
        ran = self.events.tools.get(call_id) if isinstance(call_id, str) else None
        if isinstance(call_id, str) and ran is not None:
            self.used_tools.add(call_id)
        result: str | None = None
        error = None
        if answer is not None:
            result = clean.text(content_text(answer.get("content")))
            error = error_text(answer.get("error"), clean)
        elif ran is not None:
            result = as_text(ran[1].get("result"), clean)
            error = error_text(ran[1].get("error"), clean)
        if error is None:
            error = error_text(call.get("parse_error"), clean)
        arguments = call.get("arguments")
        return ToolCall(
            clean.line(str(call.get("function") or "tool")),
            clean.json(arguments) if arguments not in (None, {}) else "",
            result,
            error,
            ran[0].duration_ms if ran is not None else None,
        )

    def message_step(
        self, message: Mapping[str, Any], answers: Mapping[str, Mapping[str, Any]]
    ) -> tuple[int | None, Step]:
        """A message as a step, with the seq of the event it is anchored at (if any)."""
        clean = self.clean
        role = str(message.get("role") or "message")
        produced = self.events.model_for(message) if role == "assistant" else None
        calls = tuple(
            self._call(c, answers)
            for c in message.get("tool_calls") or ()
            if isinstance(c, Mapping)
        )
        rest = {k: v for k, v in message.items() if k not in _MESSAGE_SHOWN}
        error = None
        if role == "tool":  # a tool message no call of the conversation asked for
            calls = (
                ToolCall(
                    clean.line(str(rest.pop("function", None) or "tool")),
                    "",
                    clean.text(content_text(message.get("content"))),
                    error_text(rest.pop("error", None), clean),
                ),
            )
        text = "" if role == "tool" else clean.text(content_text(message.get("content")))
        event = produced[0] if produced else None
        if produced is not None:
            raw = produced[1]
            error = error_text(raw.get("error"), clean)
            output = raw.get("output")
            if isinstance(output, Mapping) and output.get("choices"):
                stop = output["choices"][0].get("stop_reason")
                if stop:
                    rest["stop_reason"] = stop
            if "call" in raw:
                self.events.withheld_calls += 1
        anchor = event.seq if event is not None else None
        if anchor is None and calls:
            seqs = [
                self.events.tools[c["id"]][0].seq
                for c in message.get("tool_calls") or ()
                if isinstance(c, Mapping) and c.get("id") in self.events.tools
            ]
            anchor = min(seqs) if seqs else None
        return anchor, Step(
            kind=clean.line(role),
            seq=event.seq if event is not None else None,
            elapsed_ms=self.clock.elapsed(event.t) if event is not None else None,
            text=text,
            calls=calls,
            error=error,
            tokens=event_tokens(event) if event is not None else None,
            duration_ms=_model_time(*produced) if produced is not None else None,
            details=clean.fields(rest),
        )

    def event_step(self, event: TraceEventData, raw: Mapping[str, Any]) -> Step:
        """An event the conversation does not tell, as a step of its own."""
        clean = self.clean
        kind = str(raw.get("event") or event.kind)
        rest = {k: v for k, v in raw.items() if k not in _BOOKKEEPING}
        calls: tuple[ToolCall, ...] = ()
        text = ""
        if kind == "model":
            message = _output_message(raw) or {}
            text = clean.text(content_text(message.get("content")))
            calls = tuple(
                self._call(c, {}) for c in message.get("tool_calls") or () if isinstance(c, Mapping)
            )
            rest = (
                {"stop_reason": raw["output"]["choices"][0].get("stop_reason")} if message else {}
            )
            if "call" in raw:
                self.events.withheld_calls += 1
        elif kind == "tool":
            calls = (
                ToolCall(
                    clean.line(str(rest.pop("function", None) or "tool")),
                    clean.json(rest.pop("arguments", None)),
                    as_text(rest.pop("result", None), clean),
                    error_text(rest.pop("error", None), clean),
                    event.duration_ms,
                ),
            )
        record = rest.pop("message", None) if kind != "model" else None
        if isinstance(record, Mapping):  # a logger record: its level and message
            level = record.get("level")
            said = record.get("message")
            text = clean.text(f"{level}: {said}" if level else str(said))
            rest.update({k: v for k, v in record.items() if k not in ("level", "message")})
        elif record is not None:
            text = as_text(record, self.clean) or ""
        error = error_text(rest.pop("error", None), clean)
        return Step(
            kind=clean.line(kind),
            seq=event.seq,
            elapsed_ms=self.clock.elapsed(event.t),
            text=text,
            calls=calls,
            error=error,
            tokens=event_tokens(event),
            duration_ms=None if calls and kind == "tool" else event.duration_ms,
            details=clean.fields(rest),
        )

    def conversation(self, messages: Sequence[Any]) -> list[tuple[int, Step]]:
        """Every message as a step (tool results with their calls), anchored at event seqs."""
        messages = [resolve(m, self.attachments) for m in messages if isinstance(m, Mapping)]
        asked = {
            c["id"]
            for m in messages
            for c in m.get("tool_calls") or ()
            if isinstance(c, Mapping) and isinstance(c.get("id"), str)
        }
        answers = {
            m["tool_call_id"]: m
            for m in messages
            if m.get("role") == "tool" and m.get("tool_call_id") in asked
        }
        out: list[tuple[int, Step]] = []
        anchor = -1
        for message in messages:
            if message.get("role") == "tool" and message.get("tool_call_id") in answers:
                continue  # shown with the call it answers
            seq, step = self.message_step(message, answers)
            anchor = max(anchor, seq) if seq is not None else anchor
            out.append((anchor, step))
        return out


def inspect_transcript(
    metadata: Mapping[str, Any],
    events: Sequence[TraceEventData],
    event_count: int,
    mask: Mask,
) -> Transcript:
    """The transcript of one Inspect sample from its record's metadata and stored events."""
    build = _Builder(metadata, events, mask)
    clean = build.clean
    messages = metadata.get("messages")
    if not isinstance(messages, list) or not messages:
        # No conversation kept: the first model call's input opens it.
        first = build.events.model[0][1] if build.events.model else {}
        messages = [m for m in first.get("input") or () if isinstance(m, Mapping)]
    entries = build.conversation(messages)
    others = build.events.other + build.events.unmatched_model()
    others += [t for i, t in build.events.tools.items() if i not in build.used_tools]
    anchors = [a for a, _ in entries]
    for event, raw in sorted(others, key=lambda pair: pair[0].seq):
        at = bisect_right(anchors, event.seq)
        anchors.insert(at, event.seq)
        entries.insert(at, (event.seq, build.event_step(event, raw)))
    steps = [step for _, step in entries]
    steps.extend(_closing_steps(metadata, clean))
    summary = []
    usage = metadata.get("model_usage")
    if isinstance(usage, Mapping):
        for name, tally in usage.items():
            if isinstance(tally, Mapping):
                summary.append(tally_line(clean.model_label(str(name)), tally))
    working = metadata.get("working_time")
    if isinstance(working, int | float) and not isinstance(working, bool):
        summary.append(f"working time {working:,.1f} s")
    notes = []
    if event_count > len(events):
        notes.append(f"Showing the first {len(events):,} of {event_count:,} events.")
    structure = build.events.structure
    if structure:
        listed = ", ".join(f"{k} ×{n}" for k, n in sorted(structure.items()))
        notes.append(
            f"{sum(structure.values()):,} events of the log's structure are not listed ({listed})."
        )
    if build.events.scoring or metadata.get("scores"):
        notes.append(
            "Scoring is not shown on a blind screen (the scores, "
            f"{build.events.scoring:,} scoring event{'s' if build.events.scoring != 1 else ''})."
        )
    if build.events.withheld_calls:
        notes.append(
            f"The provider's raw request and response of {build.events.withheld_calls:,} model "
            "call(s) are not shown (their format names the provider)."
        )
    notes.extend(clean.notes())
    return Transcript("Inspect AI log", tuple(steps), tuple(summary), tuple(notes), clean.masked)


def _closing_steps(metadata: Mapping[str, Any], clean: Cleaner) -> list[Step]:
    """The sample's error, its limit and its other fields, after the conversation."""
    steps = []
    error = metadata.get("error")
    if isinstance(error, Mapping):
        rest = {k: v for k, v in error.items() if k not in ("message", "traceback_ansi")}
        steps.append(
            Step(
                kind="error",
                error=error_text(error.get("message"), clean),
                details=clean.json(rest.get("traceback") or rest),
            )
        )
    limit = metadata.get("limit")
    if limit is not None:
        kind = limit.get("type") if isinstance(limit, Mapping) else None
        steps.append(
            Step(
                kind="limit",
                text=clean.text(
                    f"The sample hit its {kind} limit." if kind else "A limit was hit."
                ),
                details=clean.fields(limit) if isinstance(limit, Mapping) else clean.json(limit),
            )
        )
    extra = metadata.get("sample_extra")
    details = clean.fields(extra) if isinstance(extra, Mapping) else ""
    if details:
        steps.append(Step(kind="sample", text="Other fields of the sample.", details=details))
    return steps
