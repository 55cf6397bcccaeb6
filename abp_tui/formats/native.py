"""The native JSONL format: one record per line, each tagged with its ``type``.

Line types: ``study`` (at most one, first), ``condition``, ``task``, ``rubric``, ``run``,
``trace_event``, and an AI judge's ``judge`` and ``judge_verdict`` lines
(:mod:`abp_tui.formats.judge_lines`). Each line's other fields are those of the model of the
same name (see ``abp-tui schema``). A run's ``trace_event`` lines come before its ``run`` line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, ValidationError

from abp_tui.errors import InputError
from abp_tui.formats import judge_lines
from abp_tui.formats.base import (
    Invalid,
    ParseContext,
    Record,
    SimpleFormat,
    describe_validation,
    first_jsonl_record,
    iter_jsonl,
    loads_json,
)
from abp_tui.models import Condition, Rubric, Run, Study, Task, TraceEvent

FORMAT_ID: Literal["abp-tui-native/v1"] = "abp-tui-native/v1"


class NativeStudy(Study):
    type: Literal["study"]
    format: Literal["abp-tui-native/v1"] = FORMAT_ID


class NativeCondition(Condition):
    type: Literal["condition"]


class NativeTask(Task):
    type: Literal["task"]


class NativeRubric(Rubric):
    type: Literal["rubric"]


class NativeRun(Run):
    type: Literal["run"]


class NativeTraceEvent(TraceEvent):
    type: Literal["trace_event"]
    raw: str = ""
    """Filled with the line itself when omitted."""


NativeLine = Annotated[
    NativeStudy
    | NativeCondition
    | NativeTask
    | NativeRubric
    | NativeRun
    | NativeTraceEvent
    | judge_lines.NativeJudge
    | judge_lines.NativeJudgeVerdict,
    Field(discriminator="type"),
]
LINE_ADAPTER: TypeAdapter[Any] = TypeAdapter(NativeLine)
TYPES = ("study", "condition", "task", "rubric", "run", "trace_event", *judge_lines.TYPES)


def _sniff(path: Path, head: bytes) -> bool:
    if path.suffix.lower() not in (".jsonl", ".ndjson"):
        return False
    first = first_jsonl_record(head)
    return isinstance(first, dict) and first.get("type") in TYPES


def _strip(model: Any, base: type[Any]) -> Any:
    data = model.model_dump(exclude={"type", "format"})
    return base.model_validate(data)


def _parse(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    study_seen = False
    closed_runs: set[str] = set()
    judges: set[str] = set()
    for lineno, raw in iter_jsonl(path, ctx):
        try:
            data = loads_json(raw, ctx.display, lineno)
            if not isinstance(data, dict):
                raise InputError(ctx.display, "expected a JSON object", lineno, "$")
            if data.get("type") not in TYPES:
                raise InputError(
                    ctx.display, f"expected type to be one of {', '.join(TYPES)}", lineno, "$.type"
                )
            try:
                line = LINE_ADAPTER.validate_python(data)
            except ValidationError as exc:
                raise describe_validation(exc, ctx.display, lineno, skip_loc=1) from None
        except InputError as exc:
            yield Invalid(exc)
            continue
        if isinstance(line, NativeStudy):
            if study_seen:
                yield Invalid(
                    InputError(
                        ctx.display,
                        "a second study line; expected at most one, on the first line",
                        lineno,
                        "$.type",
                    )
                )
                continue
            study_seen = True
            study = _strip(line, Study)
            if ctx.study_id:
                study = study.model_copy(update={"id": ctx.study_id})
            yield study
            continue
        if not study_seen:
            study_seen = True
            yield Study(id=ctx.study(path.stem), protocol="native")
        if isinstance(line, NativeTraceEvent):
            if line.run_id in closed_runs:
                yield Invalid(
                    InputError(
                        ctx.display,
                        f"trace event for run {line.run_id!r} after its run line; "
                        "expected a run's trace_event lines before the run",
                        lineno,
                        "$.run_id",
                    )
                )
                continue
            raw_text = line.raw or raw.decode("utf-8")
            yield TraceEvent.model_validate({**line.model_dump(exclude={"type"}), "raw": raw_text})
        elif isinstance(line, NativeRun):
            closed_runs.add(line.id)
            run = _strip(line, Run)
            yield run.model_copy(update={"source_file": path.name, "source_line": lineno})
        elif isinstance(line, NativeTask):
            yield _strip(line, Task)
        elif isinstance(line, NativeCondition):
            yield _strip(line, Condition)
        elif isinstance(line, NativeRubric):
            yield _strip(line, Rubric).model_copy(update={"source": "imported"})
        elif isinstance(line, judge_lines.NativeJudge | judge_lines.NativeJudgeVerdict):
            # An AI judge and its verdicts: stored apart from people's judgments.
            try:
                yield from judge_lines.records(line, judges, ctx.display, lineno)
            except InputError as exc:
                yield Invalid(exc)
    if not study_seen:
        yield Study(id=ctx.study(path.stem), protocol="native")


def json_schema() -> dict[str, Any]:
    """JSON Schema of one native line."""
    schema = LINE_ADAPTER.json_schema()
    schema["title"] = "abp-tui native JSONL line"
    schema["$comment"] = f"{FORMAT_ID}: one JSON object per line, discriminated by 'type'."
    return schema


FORMAT = SimpleFormat(
    name="native",
    summary="abp-tui native JSONL (study, condition, task, rubric, run, trace_event lines; "
    "an AI judge's judge and judge_verdict lines)",
    sniff_fn=_sniff,
    parse_fn=_parse,
)

__all__ = ["FORMAT", "json_schema"]
