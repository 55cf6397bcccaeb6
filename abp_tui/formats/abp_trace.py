"""ABP traces (abp-trace/v1, seed 003 section 6): one JSONL file per (task, engine, trial).

Every line is an event with ``t`` (RFC 3339 UTC), ``seq`` (a strictly increasing integer) and
``kind``. The first event is ``run.start`` (engine ``name/version``, model ``provider/model``,
task, config); the last is ``run.end`` (outcome, wall clock, token totals, normalised diff size,
files touched, computed cost). A file becomes one Run whose condition is the engine, because in
ABP the engine is the unit under test; its trace events, stored with their raw lines intact,
come before it.

What is checked, beyond each event's own fields: seq increases strictly; only the first event is
``run.start`` and nothing follows ``run.end``; a ``tool.call`` names its tool; and the token
normalisation of seed 003, where it can be checked: when ``run.end`` carries totals and the
``model.call`` events carry tokens, each field's sum must equal the total (input never includes
cache reads). A trace without ``run.end`` is kept and marked incomplete: engines crash, and the
partial trace is evidence.

The run's cost is the harness's computed cost, ``run.end`` ``computedUsd`` (the figure seed 003's
verdict takes the median of, ``medianComputedUsd``), or Arena's ``cost.computedUsd``, which ABP
inherits; an engine's own ``agentReportedUsd`` is kept in the run's metadata, never taken as its
cost, because the engine under test does not get to report its own bill.

The run's trial number is ``run.start``'s ``trial`` when present; otherwise the last
``trial-N`` / ``trial_N`` / ``trialN`` / ``t-N`` / ``tN`` token of the file name (tokens are
separated by ``.``, ``-``, ``_`` or spaces: ``fix-42.oxagen.trial-2.abp-trace.jsonl`` is trial
2); otherwise 1. The run id is ``{task}/{engine name}/trial{N}``.

Traces can be long, so parsing streams and never builds a model per event: pydantic validates
each line straight from its bytes into a lean TypedDict holding only the stored fields, and the
validated events reach the store as batches of plain rows (:class:`TraceEventBatch`). Memory stays
bounded whatever the file's size. This module reads files; it never touches the database.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    with_config,
)
from typing_extensions import TypedDict

from abp_tui.errors import InputError
from abp_tui.formats.abp import default_study_id
from abp_tui.formats.base import (
    Invalid,
    ParseContext,
    Record,
    SimpleFormat,
    describe_validation,
    first_jsonl_record,
    iter_jsonl,
    json_path,
    loads_json,
)
from abp_tui.models import ResultState, Run, Study, Tokens

# The bulk record type the store accepts; nothing here writes to the database.
from abp_tui.models.runs import EventRow, TraceEventBatch

SCHEMA = "abp-trace/v1"

BATCH = 4096
"""Events per batch handed to the store."""
MAX_TRACKED = 200
"""At most this many distinct event kinds, subagents and models are tallied in the run's
metadata; the rest are added up under ``(other)`` so memory stays bounded."""
OTHER = "(other)"
MAIN = "(main)"
"""Attribution of model calls made outside any subagent."""

RFC3339_UTC = (
    r"^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[Tt]"
    r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\.[0-9]+)?(?:[Zz]|\+00:00)$"
)
ENGINE = r"^[^/\s]\S*/[^/\s]+$"
MODEL = r"^[^/\s]+/\S+$"

_HINTS = {
    "t": "expected an RFC 3339 UTC timestamp ending in Z or +00:00 (2026-07-02T14:12:01.402Z)",
    "engine": 'expected "name/version" (oxagen/1.4.2)',
    "model": 'expected "provider/model" (anthropic/claude-sonnet-5)',
}
_ERROR_OUTCOMES = {"agent-error", "engine-error"}
"""Outcomes that say the engine could not be run: a harness failure, not a loss (seed 003
principle 4, Arena's ``agent-error``)."""
_OUTPUT_FIELDS = ("output", "summary", "message")
_PRODUCER_FIELDS = ("producer", "producedBy", "translator", "tracePath", "sidecar")
_TRIAL_IN_NAME = re.compile(r"(?:^|[.\-_ ])(?:trial|t)[-_]?([0-9]+)(?=$|[.\-_ ])", re.IGNORECASE)

Timestamp = Annotated[str, StringConstraints(pattern=RFC3339_UTC)]
NonNegInt = Annotated[int, Field(ge=0)]
NonNegNumber = Annotated[float, Field(ge=0, allow_inf_nan=False)]
NonEmpty = Annotated[str, StringConstraints(min_length=1)]
_STRICT = ConfigDict(strict=True, extra="ignore")
_STRICT_KEEP = ConfigDict(strict=True, extra="allow")


@with_config(_STRICT)
class TraceTokens(TypedDict):
    """Token counts normalised as seed 003 asks: input never includes cache reads."""

    input: NonNegInt
    output: NonNegInt
    cacheRead: NonNegInt
    cacheWrite: NonNegInt


@with_config(_STRICT)
class TraceEventFields(TypedDict):
    """The fields of any event that the store keeps or the checks need; others are ignored here
    (they stay in the raw line)."""

    t: Timestamp
    seq: int
    kind: NonEmpty
    tokens: NotRequired[TraceTokens | None]
    tool: NotRequired[NonEmpty | None]
    durationMs: NotRequired[NonNegNumber | None]
    diffBytes: NotRequired[NonNegInt | None]
    model: NotRequired[NonEmpty | None]
    """The model of one call, for engines that use several (seed 003)."""
    subagent: NotRequired[NonEmpty | None]
    """The subagent a call belongs to, when the engine says so explicitly."""


EVENT: TypeAdapter[TraceEventFields] = TypeAdapter(TraceEventFields)


class RunStart(BaseModel):
    """The first event: what was run, with which model, on which task, under which config."""

    model_config = _STRICT_KEEP
    t: Timestamp
    seq: int
    kind: Literal["run.start"]
    engine: Annotated[str, StringConstraints(pattern=ENGINE)]
    """``name/version`` of the engine under test."""
    model: Annotated[str, StringConstraints(pattern=MODEL)]
    """``provider/model``, pinned for the run."""
    task: NonEmpty
    config: dict[str, Any]
    """Budget, timeout and other pinned inputs."""
    trial: NonNegInt | None = None


class TraceCost(BaseModel):
    """Arena's cost block (``computedUsd``, ``agentReportedUsd``, ``pricingModel``), which a
    run.end may carry instead of a bare ``computedUsd``."""

    model_config = _STRICT_KEEP
    computedUsd: NonNegNumber | None = None
    agentReportedUsd: NonNegNumber | None = None


class RunEnd(BaseModel):
    """The last event: the outcome and the run's totals."""

    model_config = _STRICT_KEEP
    t: Timestamp
    seq: int
    kind: Literal["run.end"]
    outcome: NonEmpty
    wallClockMs: NonNegNumber | None = None
    tokens: TraceTokens | None = None
    diffBytesNormalized: NonNegInt | None = None
    filesTouched: NonNegInt | None = None
    computedUsd: NonNegNumber | None = None
    """The harness's computed cost of the run in US dollars."""
    cost: TraceCost | None = None
    output: str | None = None
    summary: str | None = None
    message: str | None = None

    @property
    def computed_usd(self) -> float | None:
        if self.computedUsd is not None:
            return self.computedUsd
        return self.cost.computedUsd if self.cost is not None else None


class SubagentEvent(BaseModel):
    """``subagent.start`` / ``subagent.end``: the branch of a fan-out engine."""

    model_config = _STRICT_KEEP
    kind: Literal["subagent.start", "subagent.end"]
    id: NonEmpty
    purpose: str | None = None


# -- sniffing -------------------------------------------------------------------------------------
def _first_line(path: Path, head: bytes) -> Any:
    record = first_jsonl_record(head)
    if record is None and b"\n" not in head and head.lstrip().startswith((b"{", b"\xef\xbb\xbf")):
        # A run.start with a large config can be longer than the head: read its whole line.
        try:
            with path.open("rb") as handle:
                record = first_jsonl_record(handle.readline(1 << 20))
        except OSError:
            return None
    return record


def _sniff(path: Path, head: bytes) -> bool:
    if path.suffix.lower() != ".jsonl":
        return False
    first = _first_line(path, head)
    if not isinstance(first, dict) or "seq" not in first:
        return False
    return first.get("kind") == "run.start" or ("t" in first and "kind" in first)


# -- errors ---------------------------------------------------------------------------------------
def _describe(
    exc: ValidationError, ctx: ParseContext, lineno: int, prefix: str = "$"
) -> InputError:
    err = exc.errors(include_url=False)[0]
    loc = err["loc"]
    if err["type"] == "string_pattern_mismatch" and loc and loc[-1] in _HINTS:
        shown = json.dumps(err.get("input"), ensure_ascii=False)[:60]
        return InputError(
            ctx.display, f"{_HINTS[str(loc[-1])]}; got {shown}", lineno, json_path(loc, prefix)
        )
    return describe_validation(exc, ctx.display, lineno, prefix)


def _line_error(exc: ValidationError, raw: bytes, ctx: ParseContext, lineno: int) -> InputError:
    """The clearest message for a line pydantic refused: JSON syntax first, then fields."""
    err = exc.errors(include_url=False)[0]
    if err["type"] == "json_invalid":
        try:
            loads_json(raw, ctx.display, lineno)
        except InputError as syntax:
            return syntax
        # Python's parser is laxer (NaN, Infinity): report what pydantic found.
        detail = str(err.get("ctx", {}).get("error", err["msg"]))
        return InputError(ctx.display, f"malformed JSON: {detail}", lineno)
    if not err["loc"]:
        return InputError(ctx.display, "expected a JSON object (one event)", lineno, "$")
    return _describe(exc, ctx, lineno)


def _validate_line(model: type[Any], raw: bytes, ctx: ParseContext, lineno: int) -> Any:
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise _line_error(exc, raw, ctx, lineno) from None


# -- the run's identity ---------------------------------------------------------------------------
def trial_from_name(name: str) -> int | None:
    """The trial number a file name carries (``...trial-2...``, ``..._t3...``), or None."""
    found = _TRIAL_IN_NAME.findall(name)
    return int(found[-1]) if found else None


def _study_default(path: Path) -> str:
    # The run folder's name (the folder above traces/ that holds run.json), as for ABP tasks.
    return default_study_id(path.resolve()) or "abp"


class _Tally:
    """Token sums of model calls, for one subagent or model."""

    __slots__ = ("cache_read", "cache_write", "calls", "input", "output")

    def __init__(self) -> None:
        self.calls = self.input = self.output = self.cache_read = self.cache_write = 0

    def add(self, tok: TraceTokens) -> None:
        self.calls += 1
        self.input += tok["input"]
        self.output += tok["output"]
        self.cache_read += tok["cacheRead"]
        self.cache_write += tok["cacheWrite"]

    def credit(self, calls: int, inp: int, out: int, read: int, write: int) -> None:
        self.calls += calls
        self.input += inp
        self.output += out
        self.cache_read += read
        self.cache_write += write

    def totals(self) -> tuple[int, int, int, int, int]:
        return self.calls, self.input, self.output, self.cache_read, self.cache_write

    def as_dict(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
        }


def _tally(table: dict[str, _Tally], key: str) -> _Tally:
    found = table.get(key)
    if found is None:
        if len(table) >= MAX_TRACKED:
            key = OTHER
        found = table.setdefault(key, _Tally())
    return found


class _Trace:
    """What is learnt about a run while its events stream past (bounded in size)."""

    def __init__(self) -> None:
        self.events = 0
        self.first_seq: int | None = None
        self.last_seq: int | None = None
        self.tool_calls = 0
        self.tool_diff_bytes = 0
        self.kinds: dict[str, int] = {}
        self.calls = _Tally()
        """All model calls, as of the last :meth:`settle`."""
        self.by_subagent: dict[str, _Tally] = {}
        self.explicit = _Tally()
        """Calls that name their subagent."""
        self.settled = _Tally()
        """Calls without a subagent of their own, as far as they are already attributed."""
        self.by_model: dict[str, _Tally] = {}
        self.open_subagents: list[str] = []
        self.purposes: dict[str, str] = {}
        self.subagents_started = 0
        self.subagents_ended = 0
        self.unmatched_ends: list[str] = []
        self.end: RunEnd | None = None
        self.last_raw = b""

    # Attribution to subagents costs nothing per call: a call without a subagent of its own
    # belongs to the innermost open subagent (or the main agent), and that only changes at a
    # subagent event. So the totals are settled there, crediting the calls since the last
    # settlement to the branch that was open meanwhile.
    def settle(self, calls: int, inp: int, out: int, read: int, write: int) -> None:
        """Take the running call totals in and credit the new calls to the open branch."""
        self.calls.calls, self.calls.input, self.calls.output = calls, inp, out
        self.calls.cache_read, self.calls.cache_write = read, write
        if not self.by_subagent:
            return
        ex, done = self.explicit, self.settled
        implicit = (
            calls - ex.calls,
            inp - ex.input,
            out - ex.output,
            read - ex.cache_read,
            write - ex.cache_write,
        )
        branch = self.open_subagents[-1] if self.open_subagents else MAIN
        _tally(self.by_subagent, branch).credit(
            *(now - before for now, before in zip(implicit, done.totals(), strict=True))
        )
        done.calls, done.input, done.output, done.cache_read, done.cache_write = implicit

    def begin_attribution(self) -> None:
        if not self.by_subagent:
            self.by_subagent[MAIN] = _Tally()

    def explicit_call(self, who: str, tok: TraceTokens, running: tuple[int, ...]) -> None:
        """A call that names its subagent (``running``: the totals before it)."""
        self.begin_attribution()
        self.settle(*running)
        _tally(self.by_subagent, who).add(tok)
        self.explicit.add(tok)

    def subagent(self, ev: SubagentEvent) -> None:
        if ev.kind == "subagent.start":
            self.subagents_started += 1
            if len(self.open_subagents) < MAX_TRACKED:
                self.open_subagents.append(ev.id)
            if ev.purpose is not None and len(self.purposes) < MAX_TRACKED:
                self.purposes.setdefault(ev.id, ev.purpose)
            _tally(self.by_subagent, ev.id)
            return
        self.subagents_ended += 1
        # Branches of a fan-out may end in any order: close the latest one with this id.
        stack = self.open_subagents
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] == ev.id:
                del stack[i]
                return
        if len(self.unmatched_ends) < MAX_TRACKED:
            self.unmatched_ends.append(ev.id)

    def check(
        self,
        ev: TraceEventFields,
        raw: bytes,
        lineno: int,
        last_seq: int,
        ended: bool,
        ctx: ParseContext,
    ) -> InputError | None:
        """The checks of an event that is not plain: out of order, a new day, or a run.end,
        run.start or subagent event. Returns the problem, or None once the event is taken in."""
        seq, t, kind = ev["seq"], ev["t"], ev["kind"]
        if seq <= last_seq:
            return InputError(
                ctx.display,
                f"expected seq greater than {last_seq}, got {seq} (seq increases strictly)",
                lineno,
                "$.seq",
            )
        if not _valid_date(t):
            return InputError(
                ctx.display, f"{_HINTS['t']}; got {t!r} (no such date)", lineno, "$.t"
            )
        if ended:
            return InputError(
                ctx.display,
                f"a {kind} event after run.end; expected run.end to be the last event",
                lineno,
                "$.kind",
            )
        try:
            if kind == "run.start":
                return InputError(
                    ctx.display,
                    "a second run.start; expected exactly one, on the first line",
                    lineno,
                    "$.kind",
                )
            if kind == "run.end":
                end: RunEnd = _validate_line(RunEnd, raw, ctx, lineno)
                problem = _check_totals(end, self.calls, ctx, lineno) or _check_cost(
                    end, ctx, lineno
                )
                if problem is not None:
                    return problem
                self.end = end
            elif kind in ("subagent.start", "subagent.end"):
                self.subagent(_validate_line(SubagentEvent, raw, ctx, lineno))
        except InputError as exc:
            return exc
        return None

    def run(self, start: RunStart, path: Path, run_id: str, trial: int) -> Run:
        engine, _, engine_version = start.engine.rpartition("/")
        provider, _, model = start.model.partition("/")
        end = self.end
        output = self.output()
        # The format has no field for these at all (seed 002: "not exposed", not "missing").
        not_exposed = ["model_version", "reasoning"]
        if output is None:
            not_exposed.insert(0, "output")
        tokens = None
        if end is not None and end.tokens is not None:
            tok = end.tokens
            tokens = Tokens(
                input=tok["input"],
                output=tok["output"],
                cache_read=tok["cacheRead"],
                cache_write=tok["cacheWrite"],
                # Arena's normalisation, which ABP inherits: the total counts all four.
                total=tok["input"] + tok["output"] + tok["cacheRead"] + tok["cacheWrite"],
            )
        outcome = end.outcome if end is not None else None
        return Run(
            id=run_id,
            task_id=start.task,
            condition_id=engine,
            trial=trial,
            output=output,
            provider=provider,
            model=model,
            engine=engine,
            engine_version=engine_version,
            tokens=tokens,
            tool_calls=self.tool_calls,
            wall_clock_ms=end.wallClockMs if end is not None else None,
            cost_usd=end.computed_usd if end is not None else None,
            started_at=start.t,
            origin_status=ResultState.INFRA_ERROR if outcome in _ERROR_OUTCOMES else None,
            automated_outcome=outcome,
            source_file=path.name,
            not_exposed=tuple(not_exposed),
            metadata=self.metadata(start),
        )

    def metadata(self, start: RunStart) -> dict[str, Any]:
        meta: dict[str, Any] = {"config": start.config}
        end = self.end
        if end is not None:
            meta["diffBytesNormalized"] = end.diffBytesNormalized
            meta["filesTouched"] = end.filesTouched
            if end.cost is not None:
                meta["cost"] = end.cost.model_dump(exclude_none=True)
        meta["trace"] = {
            "schema": SCHEMA,
            "complete": end is not None,
            "events": self.events,
            "seq": [self.first_seq, self.last_seq],
            "kinds": dict(sorted(self.kinds.items())),
        }
        if end is None:
            meta["trace_note"] = "no run.end event: the trace is incomplete"
        extra = dict(start.model_extra or {})
        for name in _PRODUCER_FIELDS:
            if name in extra:
                meta["trace_producer"] = extra[name]
                break
        if extra:
            meta["run_start_extra"] = extra
        if end is not None and end.model_extra:
            meta["run_end_extra"] = dict(end.model_extra)
        if self.calls.calls:
            meta["model_call_tokens"] = self.calls.as_dict()
        elif end is not None and end.tokens is not None:  # nothing to check the totals against
            meta["tokens_unverified"] = "run.end token totals with no model.call events"
        if self.tool_diff_bytes:
            meta["tool_diff_bytes"] = self.tool_diff_bytes
        if self.subagents_started or self.subagents_ended or len(self.by_subagent) > 1:
            meta["subagents"] = {
                "started": self.subagents_started,
                "ended": self.subagents_ended,
                "balanced": self.subagents_started == self.subagents_ended
                and not self.open_subagents
                and not self.unmatched_ends,
                "unclosed": list(self.open_subagents),
                "unmatched_ends": list(self.unmatched_ends),
                "purposes": dict(self.purposes),
            }
            meta["tokens_by_subagent"] = {k: v.as_dict() for k, v in self.by_subagent.items()}
        if self.by_model:
            meta["tokens_by_model"] = {k: v.as_dict() for k, v in self.by_model.items()}
        return meta

    def output(self) -> str | None:
        if self.end is not None:
            for value in (self.end.output, self.end.summary, self.end.message):
                if value is not None:
                    return value
            return None
        try:
            last = json.loads(self.last_raw) if self.last_raw else None
        except ValueError:
            return None
        if isinstance(last, dict):
            for name in _OUTPUT_FIELDS:
                value = last.get(name)
                if isinstance(value, str):
                    return value
        return None


def _check_totals(end: RunEnd, calls: _Tally, ctx: ParseContext, lineno: int) -> InputError | None:
    """Seed 003's normalisation: the run's totals are the sums of its model calls."""
    if end.tokens is None or not calls.calls:
        return None
    sums = calls.as_dict()
    given = cast(dict[str, int], end.tokens)
    wrong = [f for f in ("input", "output", "cacheRead", "cacheWrite") if given[f] != sums[f]]
    if not wrong:
        return None
    field = wrong[0]
    total = given[field]
    message = (
        f"run.end tokens.{field} is {total} but the model.call events add up to {sums[field]}; "
        "expected them to be equal (seed 003: input must exclude cache reads, which are "
        "counted in cacheRead, and cache writes in cacheWrite)"
    )
    if field == "input" and total == sums["input"] + sums["cacheRead"]:
        message += "; this total looks like it includes the cache reads"
    others = [f"{f} {given[f]} vs {sums[f]}" for f in wrong[1:]]
    if others:
        message += f" (also {', '.join(others)})"
    return InputError(ctx.display, message, lineno, f"$.tokens.{field}")


def _check_cost(end: RunEnd, ctx: ParseContext, lineno: int) -> InputError | None:
    """A run.end that gives its computed cost twice gives it once."""
    if end.computedUsd is None or end.cost is None or end.cost.computedUsd is None:
        return None
    if end.computedUsd == end.cost.computedUsd:
        return None
    return InputError(
        ctx.display,
        f"run.end computedUsd is {end.computedUsd:g} but cost.computedUsd is "
        f"{end.cost.computedUsd:g}; expected one computed cost (give either, or both equal)",
        lineno,
        "$.cost.computedUsd",
    )


# -- parsing --------------------------------------------------------------------------------------
def _row(ev: TraceEventFields, raw: bytes) -> EventRow:
    tok = ev.get("tokens")
    if tok is None:
        return (
            ev["seq"],
            ev["t"],
            ev["kind"],
            ev.get("tool"),
            None,
            None,
            None,
            None,
            ev.get("durationMs"),
            raw.decode("utf-8"),
        )
    return (
        ev["seq"],
        ev["t"],
        ev["kind"],
        ev.get("tool"),
        tok["input"],
        tok["output"],
        tok["cacheRead"],
        tok["cacheWrite"],
        ev.get("durationMs"),
        raw.decode("utf-8"),
    )


def _valid_date(t: str) -> bool:
    try:
        date.fromisoformat(t[:10])
    except ValueError:
        return False
    return True


def _parse(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    lines = iter_jsonl(path, ctx)
    first = next(lines, None)
    if first is None:
        raise InputError(ctx.display, "no events: expected a run.start event on the first line")
    lineno, raw = first
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        head = EVENT.validate_json(raw)
    except ValidationError as exc:
        raise _line_error(exc, raw, ctx, lineno) from None
    if head["kind"] != "run.start":
        raise InputError(
            ctx.display,
            f"expected the first event to be run.start (got {head['kind']!r}); "
            "an abp-trace/v1 file starts with the run it records",
            lineno,
            "$.kind",
        )
    start: RunStart = _validate_line(RunStart, raw, ctx, lineno)
    if not _valid_date(start.t):
        raise InputError(ctx.display, f"{_HINTS['t']}; got {start.t!r}", lineno, "$.t")

    engine = start.engine.rpartition("/")[0]
    trial = start.trial if start.trial is not None else trial_from_name(path.name)
    if trial is None:
        trial = 1
    run_id = f"{start.task}/{engine}/trial{trial}"
    yield Study(id=ctx.study(_study_default(path)), protocol="abp")

    trace = _Trace()
    trace.first_seq = head["seq"]
    trace.kinds["run.start"] = 1
    trace.last_raw = raw
    rows: list[EventRow] = [_row(head, raw)]
    raws: list[bytes] = [raw]

    # The loop below runs once per event: it keeps its state in locals and builds one tuple per
    # event, nothing else. Rare events (run.end, subagents, errors) go through _Trace.
    validate = EVENT.validator.validate_json
    last_seq = head["seq"]
    good_date = start.t[:10]
    kinds = trace.kinds
    by_model = trace.by_model
    last_model: str | None = None
    model_tally = _Tally()
    # Running totals of the model calls' tokens.
    n_calls = t_in = t_out = t_read = t_write = 0
    ended = False
    tool_calls = diff_bytes = 0
    special = frozenset(("run.start", "run.end", "subagent.start", "subagent.end"))
    n = 1

    for lineno, raw in lines:
        try:
            ev = validate(raw)
        except ValidationError as exc:
            yield Invalid(_line_error(exc, raw, ctx, lineno))
            continue
        seq = ev["seq"]
        t = ev["t"]
        kind = ev["kind"]
        if seq <= last_seq or t[:10] != good_date or ended or kind in special:
            if kind == "subagent.start" or kind == "subagent.end":
                trace.begin_attribution()
            trace.settle(n_calls, t_in, t_out, t_read, t_write)
            problem = trace.check(ev, raw, lineno, last_seq, ended, ctx)
            if problem is not None:
                yield Invalid(problem)
                continue
            good_date = t[:10]
            ended = trace.end is not None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            yield Invalid(InputError(ctx.display, "invalid UTF-8: expected UTF-8 text", lineno))
            continue
        tool = ev.get("tool")
        if kind == "tool.call":
            if tool is None:
                yield Invalid(
                    InputError(
                        ctx.display,
                        "required field is missing: a tool.call names its tool",
                        lineno,
                        "$.tool",
                    )
                )
                continue
            tool_calls += 1
            diff = ev.get("diffBytes")
            if diff:
                diff_bytes += diff
        tok = ev.get("tokens")
        if tok is None:
            rows.append((seq, t, kind, tool, None, None, None, None, ev.get("durationMs"), text))
        else:
            rows.append(
                (
                    seq,
                    t,
                    kind,
                    tool,
                    tok["input"],
                    tok["output"],
                    tok["cacheRead"],
                    tok["cacheWrite"],
                    ev.get("durationMs"),
                    text,
                )
            )
            if kind == "model.call":
                who = ev.get("subagent")
                if who is not None:
                    trace.explicit_call(who, tok, (n_calls, t_in, t_out, t_read, t_write))
                n_calls += 1
                t_in += tok["input"]
                t_out += tok["output"]
                t_read += tok["cacheRead"]
                t_write += tok["cacheWrite"]
                used = ev.get("model")
                if used is not None:
                    if used != last_model:
                        last_model, model_tally = used, _tally(by_model, used)
                    model_tally.add(tok)
        raws.append(raw)
        last_seq = seq
        if kind in kinds:
            kinds[kind] += 1
        elif len(kinds) < MAX_TRACKED:
            kinds[kind] = 1
        else:
            kinds[OTHER] = kinds.get(OTHER, 0) + 1
        n += 1
        if n == BATCH:
            trace.last_raw = raw
            yield _batch(run_id, rows, raws)
            rows, raws, n = [], [], 0
    if rows:
        trace.last_raw = raws[-1]
        yield _batch(run_id, rows, raws)

    trace.settle(n_calls, t_in, t_out, t_read, t_write)
    trace.last_seq = last_seq
    trace.tool_calls = tool_calls
    trace.tool_diff_bytes = diff_bytes
    trace.events = sum(kinds.values())
    yield trace.run(start, path, run_id, trial)


def _batch(run_id: str, rows: list[EventRow], raws: list[bytes]) -> Record:
    raws.append(b"")
    return TraceEventBatch(run_id, rows, b"\n".join(raws))


FORMAT = SimpleFormat("abp-trace", "ABP trace (abp-trace/v1 JSONL)", _sniff, _parse)
