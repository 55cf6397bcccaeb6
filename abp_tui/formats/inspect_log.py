"""Inspect AI eval logs: the JSON log (``.json``) and the zipped log (``.eval``).

A log is one task run against one model. Its samples become Runs (one per sample and epoch), its
sample ids become Tasks, and the model becomes the Condition, unless ``--option condition=...``
says otherwise: ``model`` (default), ``task``, ``run`` (the log's run) or ``metadata:<key>`` (a
sample or eval metadata value). A sample's events become the run's trace, each event stored whole
(its JSON, with Inspect's ``attachment://`` references as written) beside the columns read from it:
kind, tool (a tool event's ``function``), tokens (a model event's usage, normalised) and duration
(``working_time``). The run's metadata keeps the whole conversation (``messages``: tool calls with
their arguments, tool results and errors), the attachments that resolve the references, the
scores, the model's final output whole and every other sample field. What the log states of itself
(the eval spec, the ``plan``'s solver steps and config, the ``results``' scores and metrics, the
``stats``' times and model usage, any other top-level field) is kept whole, once per log, as a
reference verdict (:data:`LOG_SCHEMA`): the source's own figures, shown on the coordinator's study
views (``abp-tui status``), never on a blind screen, since they name the model.

Run ids are ``<log key>/<sample id>/epoch<n>``. The log key is Inspect's ``task_id``, which is
unique to one task x model run and kept by ``inspect eval-retry`` (a retried sample supersedes
the failed one as a new version; samples copied over unchanged add nothing). Logs without it use
``eval_id``, then ``run_id``. The run id (``run_id``) alone is not enough: one ``eval()`` call over
several models writes one log per model with the same ``run_id``.

The trial is the sample's epoch as the log states it. Two logs of the same task and model both
have epoch 1: their runs stay distinct (different log keys) with the same trial, and each run's
metadata names its log (``inspect_run_id``, ``eval_id``, ``task_id``). Trials are not renumbered
across files because that would depend on import order; to compare two such logs with each
other, import them with ``condition=run``, which pairs their runs by task and epoch.

``.eval`` logs are read one member at a time from the zip and never extracted; a member path
that is absolute or climbs out with ``..`` makes the whole file refused. A member larger than
:data:`MAX_MEMBER_BYTES` (256 MiB uncompressed) is refused, naming the file and the member: by
the size the zip declares, before anything is read, and again while reading, in chunks that stop
at the cap whatever the header says (a sample padded to a gigabyte once took more than 2 GiB of
memory to import). This module parses; it never touches the database.
"""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Any

from pydantic import BaseModel, ConfigDict, Field

from abp_tui.errors import InputError
from abp_tui.formats import inspect_judges
from abp_tui.formats.base import (
    Invalid,
    ParseContext,
    Record,
    SimpleFormat,
    loads_json,
    peek_json,
    read_json,
    validate,
)
from abp_tui.models import (
    Condition,
    ReferenceVerdict,
    ResultState,
    Run,
    Study,
    Task,
    Tokens,
    TraceEvent,
)

ATTACHMENT = "attachment://"
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
"""A zip's first bytes: a local file header, or the end record of an empty archive."""
MAX_MEMBER_BYTES = 256 << 20
"""The largest zip member read, uncompressed. Inspect writes a few megabytes per sample even
with long transcripts; parsing holds several times a member's size in memory, so anything past
this is a padded or hostile file, not a log."""
READ_CHUNK = 1 << 20
"""Bytes asked of a zip member at a time (its reading stops as soon as the cap is passed)."""
SAMPLE_MEMBER = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")
CONDITION_CHOICES = "model, task, run or metadata:<key>"
OUTCOMES = {"C": "passed", "I": "failed"}
LOG_SCHEMA = "inspect-log/v1"
"""The schema name of a log's own summary (eval, plan, results, stats), kept per log."""
"""Inspect's CORRECT / INCORRECT score values as automated outcomes."""
_SAMPLE_KEPT_ELSEWHERE = frozenset({"uuid", "limit", "choices", "files", "setup", "sandbox"})
"""Sample fields beyond the model's that have a place of their own (run or task metadata)."""


# -- the file format ----------------------------------------------------------------------------
class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


class EvalDataset(_Loose):
    name: str | None = None
    location: str | None = None


class EvalScorer(_Loose):
    name: str


class EvalSpec(_Loose):
    """The ``eval`` block of a log: which task, dataset, model and scorers."""

    task: str = Field(min_length=1)
    model: str = Field(min_length=1)
    """``provider/model`` as Inspect names it (``openai/gpt-4o-mini``)."""
    run_id: str | None = None
    """Shared by every log one ``eval()`` call writes."""
    eval_id: str | None = None
    """Unique to this log (newer Inspect versions)."""
    task_id: str | None = None
    """Unique to this task x model run; kept by eval-retry."""
    created: str | None = None
    dataset: EvalDataset | None = None
    scorers: list[EvalScorer] | None = None
    packages: dict[str, str] = Field(default_factory=dict)
    model_generate_config: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None


class InspectHeader(_Loose):
    """A log without its samples: the JSON log's top level, or ``header.json`` of a .eval."""

    version: int
    status: str | None = None
    eval: EvalSpec


class InspectJsonLog(InspectHeader):
    samples: list[Any] | None = None
    """Validated one at a time so a bad sample is one invalid record, not a bad file."""


class ModelUsage(_Loose):
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    input_tokens_cache_read: int | None = None
    input_tokens_cache_write: int | None = None
    total_cost: float | None = None


class ModelOutput(_Loose):
    model: str | None = None
    """The model version the provider reported (``gpt-4o-mini-2024-07-18``)."""
    choices: list[dict[str, Any]] = Field(default_factory=list)
    completion: str | None = None
    usage: ModelUsage | None = None


class Score(_Loose):
    value: Any = None
    answer: Any = None
    explanation: Any = None


class EvalError(_Loose):
    message: str
    traceback: str | None = None


class Sample(_Loose):
    """One sample x epoch of a log."""

    id: int | str
    epoch: int = Field(default=1, ge=0)
    input: str | list[dict[str, Any]]
    target: str | list[str] = ""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    output: ModelOutput | None = None
    scores: dict[str, Score] | None = None
    metadata: dict[str, Any] | None = None
    events: list[dict[str, Any]] = Field(default_factory=list)
    attachments: dict[str, str] = Field(default_factory=dict)
    model_usage: dict[str, ModelUsage] = Field(default_factory=dict)
    error: EvalError | None = None
    total_time: float | None = None
    working_time: float | None = None
    started_at: str | None = None


# -- detection ----------------------------------------------------------------------------------
_HEAD_LOG = re.compile(rb'^\s*\{.*"version"\s*:\s*\d+.*"eval"\s*:\s*\{', re.DOTALL)


def _sniff_json(path: Path, head: bytes) -> bool:
    if path.suffix.lower() != ".json" or head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
        return False  # a log is an object; a list (a data set) is not read whole to say so
    data = peek_json(path)
    if data is None:
        # Too large (or broken) to peek at: Inspect writes version and eval first.
        return bool(_HEAD_LOG.match(head[:4096]))
    return isinstance(data, dict) and "version" in data and isinstance(data.get("eval"), dict)


def _sniff_eval(path: Path, head: bytes) -> bool:
    if path.suffix.lower() == ".eval":
        return True  # even if broken: parsing then says what is wrong with it
    if not head.startswith(ZIP_MAGIC):
        return False
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        return False
    return "header.json" in names and any(
        n.startswith(("samples/", "_journal/")) or n == "summaries.json" for n in names
    )


# -- text helpers -------------------------------------------------------------------------------
def _resolve(value: Any, attachments: dict[str, str]) -> Any:
    if isinstance(value, str) and value.startswith(ATTACHMENT):
        return attachments.get(value[len(ATTACHMENT) :], value)
    return value


def _content_text(content: Any, attachments: dict[str, str]) -> str:
    """A message's content as text: a string, or the text parts of a content list joined."""
    content = _resolve(content, attachments)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            str(_resolve(part.get("text", ""), attachments))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        ]
        return "\n".join(texts)
    return ""


def _input_text(value: str | list[dict[str, Any]], attachments: dict[str, str]) -> str:
    if isinstance(value, str):
        return str(_resolve(value, attachments))
    if len(value) == 1 and value[0].get("role", "user") == "user":
        return _content_text(value[0].get("content"), attachments)
    return "\n\n".join(
        f"[{m.get('role', 'user')}]\n{_content_text(m.get('content'), attachments)}" for m in value
    )


def _output_text(sample: Sample) -> str | None:
    """The final assistant message (or, failing that, the model output's first choice)."""
    for message in reversed(sample.messages):
        if message.get("role") == "assistant":
            return _content_text(message.get("content"), sample.attachments)
    if sample.output is not None:
        for choice in sample.output.choices:
            message = choice.get("message")
            if isinstance(message, dict):
                return _content_text(message.get("content"), sample.attachments)
        if sample.output.completion:
            return str(_resolve(sample.output.completion, sample.attachments))
    return None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def normalise_usage(usage: dict[str, Any]) -> tuple[int | None, int | None, int | None, int | None]:
    """(input, output, cache read, cache write) with input excluding cache reads (seed 003).

    Inspect passes each provider's own convention through: Anthropic's ``input_tokens`` exclude
    cache reads (total = input + output + reads + writes) while OpenAI's include them (total =
    input + output). When the total shows that input includes the reads, they are taken out.
    """
    inp = _count(usage.get("input_tokens"))
    out = _count(usage.get("output_tokens"))
    read = _count(usage.get("input_tokens_cache_read"))
    write = _count(usage.get("input_tokens_cache_write"))
    total = _count(usage.get("total_tokens"))
    if (
        read
        and inp is not None
        and out is not None
        and total is not None
        and inp >= read
        and total == inp + out + (write or 0)
    ):
        inp -= read
    return inp, out, read, write


def _tokens(usage: ModelUsage) -> Tokens:
    raw = usage.model_dump()
    inp, out, read, write = normalise_usage(raw)
    return Tokens(
        input=inp, output=out, cache_read=read, cache_write=write, total=_count(usage.total_tokens)
    )


def _event(run_id: str, seq: int, event: dict[str, Any]) -> TraceEvent:
    kind = event.get("event")
    usage: dict[str, Any] = {}
    if kind == "model":
        output = event.get("output")
        if isinstance(output, dict) and isinstance(output.get("usage"), dict):
            usage = output["usage"]
    inp, out, read, write = normalise_usage(usage)
    working = event.get("working_time")
    timestamp = event.get("timestamp")
    tool = event.get("function") if kind == "tool" else None
    return TraceEvent(
        run_id=run_id,
        seq=seq,
        t=timestamp if isinstance(timestamp, str) else None,
        kind=kind if isinstance(kind, str) and kind else "unknown",
        tool=tool if isinstance(tool, str) else None,
        input_tokens=inp,
        output_tokens=out,
        cache_read_tokens=read,
        cache_write_tokens=write,
        duration_ms=working * 1000
        if isinstance(working, int | float) and not isinstance(working, bool) and working >= 0
        else None,
        raw=json.dumps(event, ensure_ascii=False, separators=(",", ":")),
    )


# -- records ------------------------------------------------------------------------------------
class _Log:
    """What one log contributes besides its samples: the study, the condition rule, run ids."""

    def __init__(self, header: InspectHeader, ctx: ParseContext) -> None:
        self.header = header
        self.spec = header.eval
        self.ctx = ctx
        self.mode = ctx.options.get("condition", "model")
        if self.mode not in ("model", "task", "run") and not (
            self.mode.startswith("metadata:") and len(self.mode) > len("metadata:")
        ):
            raise InputError(
                ctx.display,
                f"--option condition={self.mode}: expected one of {CONDITION_CHOICES}",
            )
        self.key = self.spec.task_id or self.spec.eval_id or self.spec.run_id or self.spec.task
        self.conditions: set[str] = set()
        self.tasks: set[str] = set()
        self.run_ids: set[str] = set()
        self.judges: set[str] = set()

    def study(self) -> Study:
        spec = self.spec
        dataset = spec.dataset
        parts = [f"Inspect AI task {spec.task}"]
        if dataset is not None and (dataset.name or dataset.location):
            parts.append(f"dataset {dataset.name or dataset.location}")
        parts.append(f"model {spec.model}")
        if spec.scorers:
            parts.append("scorers " + ", ".join(s.name for s in spec.scorers))
        return Study(
            id=self.ctx.study(spec.task),
            name=spec.task,
            protocol="inspect",
            description="; ".join(parts) + ".",
        )

    def summary(self) -> ReferenceVerdict:
        """What the log states of itself beyond its samples, whole: the eval (task, model,
        dataset, config, packages), the plan (solver steps and config), the results (scores
        and metrics Inspect computed) and the stats (start and end, model usage), and any other
        top-level field. Kept as the source's own figures (a reference verdict, one per log);
        they name the model, so only the coordinator's study views show them, never a blind
        screen."""
        header = self.header
        document: dict[str, Any] = {
            "log": self.key,
            "version": header.version,
            "status": header.status,
            "eval": header.eval.model_dump(mode="json", exclude_none=True),
        }
        document.update(header.model_extra or {})
        return ReferenceVerdict(id=self.key, schema_name=LOG_SCHEMA, document=document)

    def _condition_for(self, sample: Sample, display: str, prefix: str) -> Condition | InputError:
        spec = self.spec
        if self.mode == "model":
            return Condition(id=spec.model, label=spec.model, metadata={"model": spec.model})
        if self.mode == "task":
            return Condition(id=spec.task, label=spec.task, metadata={"task": spec.task})
        if self.mode == "run":
            run = spec.run_id or spec.eval_id or self.key
            return Condition(
                id=run,
                label=f"{spec.model} ({run})",
                metadata={"model": spec.model, "task": spec.task, "created": spec.created},
            )
        key = self.mode.split(":", 1)[1]
        for source in (sample.metadata, spec.metadata):
            if source and key in source and source[key] is not None:
                value = source[key]
                text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
                if text:
                    return Condition(id=text, label=f"{key}={text}", metadata={key: value})
        return InputError(
            display,
            f"required metadata key {key!r} is missing (needed by --option condition={self.mode})",
            path=f"{prefix}.metadata.{key}",
        )

    def sample_records(
        self, sample: Sample, display: str, prefix: str
    ) -> Iterator[Record | Invalid]:
        """The records of one sample: its Condition and Task when new, events, then the Run.

        ``display`` and ``prefix`` say where the sample is, for messages.
        """
        run_id = f"{self.key}/{sample.id}/epoch{sample.epoch}"
        if run_id in self.run_ids:
            yield Invalid(
                InputError(
                    display,
                    f"sample {sample.id} epoch {sample.epoch} appears twice: "
                    "expected each sample and epoch once",
                    path=f"{prefix}.id",
                )
            )
            return
        condition = self._condition_for(sample, display, prefix)
        if isinstance(condition, InputError):
            yield Invalid(condition)
            return
        self.run_ids.add(run_id)
        if condition.id not in self.conditions:
            self.conditions.add(condition.id)
            yield condition
        task_id = str(sample.id)
        if task_id not in self.tasks:
            self.tasks.add(task_id)
            yield self._task(sample, task_id)
        for seq, event in enumerate(sample.events, start=1):
            yield _event(run_id, seq, event)
        yield self._run(sample, run_id, task_id, condition.id)
        # A model-graded scorer's score is an AI judge's verdict (abp_tui.formats.inspect_judges).
        yield from inspect_judges.records(
            {s.name: s.model_dump() for s in self.spec.scorers or []},
            {name: s.model_dump() for name, s in (sample.scores or {}).items()},
            self.spec.model,
            self.spec.packages.get("inspect_ai"),
            run_id,
            task_id,
            self.judges,
        )

    def _task(self, sample: Sample, task_id: str) -> Task:
        target = sample.target
        expected = "\n".join(target) if isinstance(target, list) else target
        metadata: dict[str, Any] = dict(sample.metadata or {})
        if self.mode.startswith("metadata:"):
            # The key names the condition: it stays out of the task reviewers see.
            metadata.pop(self.mode.split(":", 1)[1], None)
        extra = sample.model_extra or {}
        for name in ("choices", "files", "setup", "sandbox"):
            if extra.get(name) not in (None, [], {}, ""):
                metadata[name] = extra[name]
        return Task(
            id=task_id,
            prompt=_input_text(sample.input, sample.attachments),
            expected_behaviour=str(_resolve(expected, sample.attachments)),
            metadata=metadata,
        )

    def _run(self, sample: Sample, run_id: str, task_id: str, condition_id: str) -> Run:
        spec = self.spec
        model = spec.model
        usage = sample.model_usage.get(model) or (sample.output.usage if sample.output else None)
        scores = {name: s.model_dump() for name, s in (sample.scores or {}).items()}
        outcome: str | None = None
        # A grader model's score is an AI judge's verdict, never the run's automated verification.
        verifying = [s for name, s in scores.items() if not inspect_judges.is_model_graded(name, s)]
        if len(verifying) == 1:
            value = verifying[0].get("value")
            if isinstance(value, str):
                outcome = OUTCOMES.get(value, value)
            elif isinstance(value, int | float):
                outcome = json.dumps(value)
        metadata: dict[str, Any] = {
            "inspect_run_id": spec.run_id,
            "eval_id": spec.eval_id,
            "task_id": spec.task_id,
            "task": spec.task,
            "log_status": self.header.status,
            "epoch": sample.epoch,
            "scores": scores,
        }
        extra = sample.model_extra or {}
        if extra.get("uuid"):
            metadata["sample_uuid"] = extra["uuid"]
        if sample.output is not None and sample.output.usage is not None:
            metadata["output_usage"] = sample.output.usage.model_dump(exclude_none=True)
        if sample.output is not None:
            # The model's final output whole (choices, stop reason, tool calls): a transcript
            # shows it, and the output text above is only its last assistant message.
            metadata["model_output"] = sample.output.model_dump(exclude_none=True)
        if sample.model_usage:
            metadata["model_usage"] = {
                k: v.model_dump(exclude_none=True) for k, v in sample.model_usage.items()
            }
        if sample.working_time is not None:
            metadata["working_time"] = sample.working_time
        if sample.error is not None:
            metadata["error"] = sample.error.model_dump(exclude_none=True)
        if extra.get("limit") is not None:
            metadata["limit"] = extra["limit"]
        rest = {k: v for k, v in extra.items() if k not in _SAMPLE_KEPT_ELSEWHERE}
        if rest:
            metadata["sample_extra"] = rest  # the store, error retries... kept verbatim
        if sample.messages:
            metadata["messages"] = sample.messages
        if sample.attachments:
            # Events keep Inspect's attachment:// references (resolving them would copy the
            # whole conversation into every model event); the texts are here to resolve them.
            metadata["attachments"] = sample.attachments
        started = sample.started_at
        if started is None and sample.events:
            first = sample.events[0].get("timestamp")
            started = first if isinstance(first, str) else None
        reasoning = (spec.model_generate_config or {}).get("reasoning_effort")
        return Run(
            id=run_id,
            task_id=task_id,
            condition_id=condition_id,
            trial=sample.epoch,
            output=_output_text(sample),
            provider=model.split("/", 1)[0] if "/" in model else None,
            model=model,
            model_version=sample.output.model if sample.output else None,
            engine="inspect_ai",
            engine_version=spec.packages.get("inspect_ai"),
            reasoning=reasoning if isinstance(reasoning, str) else None,
            tokens=_tokens(usage) if usage is not None else None,
            tool_calls=sum(1 for m in sample.messages if m.get("role") == "tool")
            if sample.messages
            else None,
            wall_clock_ms=sample.total_time * 1000
            if sample.total_time is not None and sample.total_time >= 0
            else None,
            cost_usd=usage.total_cost
            if usage is not None and usage.total_cost is not None and usage.total_cost >= 0
            else None,
            started_at=started,
            origin_status=ResultState.INFRA_ERROR if sample.error is not None else None,
            automated_outcome=outcome,
            metadata=metadata,
        )


# -- the JSON log -------------------------------------------------------------------------------
def _parse_json(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    data = read_json(path, ctx.display)
    if not isinstance(data, dict):
        raise InputError(ctx.display, "expected a JSON object (an Inspect log)", path="$")
    log_doc = validate(InspectJsonLog, data, ctx.display)
    log = _Log(log_doc, ctx)
    yield log.study()
    yield log.summary()
    for i, raw in enumerate(log_doc.samples or []):
        prefix = f"$.samples[{i}]"
        if not isinstance(raw, dict):
            yield Invalid(InputError(ctx.display, "expected a JSON object", path=prefix))
            continue
        try:
            sample = validate(Sample, raw, ctx.display, prefix=prefix)
        except InputError as exc:
            yield Invalid(exc)
            continue
        yield from log.sample_records(sample, ctx.display, prefix)


# -- the .eval zip ------------------------------------------------------------------------------
def _unsafe(name: str) -> bool:
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return True
    return ".." in PurePosixPath(name.replace("\\", "/")).parts


def _sample_order(name: str) -> tuple[int, int, str, int]:
    match = SAMPLE_MEMBER.match(name)
    assert match is not None
    sid, epoch = match.group("id"), int(match.group("epoch"))
    return (0, int(sid), "", epoch) if sid.isdigit() else (1, 0, sid, epoch)


def _member_json(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, ctx: ParseContext
) -> tuple[Any, str]:
    """One member parsed as JSON; its display name for messages. Raises InputError."""
    where = f"{ctx.display} ({info.filename})"
    cap = MAX_MEMBER_BYTES
    if info.file_size > cap:
        raise InputError(
            where,
            f"member is {_size(info.file_size)} uncompressed: expected at most {_size(cap)}",
        )
    try:
        with archive.open(info) as handle:
            data = _read_at_most(handle, cap)
        if data is None:
            raise InputError(
                where,
                f"member holds more than {_size(cap)} uncompressed although the zip declares "
                f"{_size(info.file_size)}: expected at most {_size(cap)}",
            )
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
        raise InputError(where, f"cannot read zip member: {exc}") from None
    except (NotImplementedError, RuntimeError) as exc:
        # Unsupported compression or an encrypted member.
        raise InputError(where, f"cannot read zip member: {exc}") from None
    return loads_json(data, where), where


def _read_at_most(handle: IO[bytes], limit: int) -> bytes | None:
    """The member's bytes, or None as soon as it yields more than ``limit`` (never reading more
    than a chunk past it, whatever sizes the zip declares)."""
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = handle.read(min(READ_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            return None
        chunks.append(chunk)


def _size(count: int) -> str:
    return f"{count / (1 << 20):g} MiB" if count >= 1 << 20 else f"{count} bytes"


def _parse_eval(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise InputError(ctx.display, f"cannot read file: {exc.strerror}") from None
    if magic not in ZIP_MAGIC:
        raise InputError(
            ctx.display, "not a zip archive: expected an Inspect .eval log (a zip file)"
        )
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise InputError(
            ctx.display,
            f"unreadable zip ({exc}): the file may be truncated; expected a complete .eval log",
        ) from None
    with archive:
        infos = archive.infolist()
        for info in infos:
            if _unsafe(info.filename):
                raise InputError(
                    ctx.display,
                    f"unsafe member path {info.filename!r}: expected relative paths inside "
                    "the archive (no absolute paths, no '..')",
                )
        by_name = {info.filename: info for info in infos}
        if "header.json" not in by_name:
            raise InputError(
                ctx.display,
                "no header.json in the zip: expected a finished Inspect .eval log "
                "(header.json, samples/<id>_epoch_<n>.json)",
            )
        header_data, where = _member_json(archive, by_name["header.json"], ctx)
        if not isinstance(header_data, dict):
            raise InputError(where, "expected a JSON object (the log header)", path="$")
        log = _Log(validate(InspectHeader, header_data, where), ctx)
        yield log.study()
        yield log.summary()
        members = sorted((n for n in by_name if SAMPLE_MEMBER.match(n)), key=_sample_order)
        read = 0
        for done, name in enumerate(members, start=1):
            try:
                data, where = _member_json(archive, by_name[name], ctx)
                if not isinstance(data, dict):
                    raise InputError(where, "expected a JSON object (one sample)", path="$")
                sample = validate(Sample, data, where)
            except InputError as exc:
                yield Invalid(exc)
                continue
            yield from log.sample_records(sample, where, "$")
            read += by_name[name].compress_size
            if done % 64 == 0:
                ctx.progress(read)
        ctx.progress(read)


JSON_LOG = SimpleFormat(
    name="inspect-json",
    summary="Inspect AI eval log, JSON format (.json with version, eval, samples)",
    sniff_fn=_sniff_json,
    parse_fn=_parse_json,
)
EVAL_LOG = SimpleFormat(
    name="inspect-eval",
    summary="Inspect AI eval log, zip format (.eval: header.json, samples/*.json)",
    sniff_fn=_sniff_eval,
    parse_fn=_parse_eval,
)

__all__ = ["EVAL_LOG", "JSON_LOG", "normalise_usage"]
