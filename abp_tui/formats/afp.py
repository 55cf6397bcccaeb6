"""AFP Benchmark Protocol v0.1 (seeds 000 and 001): the benchmark pack and the runner's raw rows.

- ``pack.json`` -> the :class:`Study`, one :class:`Condition` per treatment (A-D with their actual
  instructions), one :class:`Task` per fixture (P01-P08 with evidence, expected core and fatal
  criterion) and the shared rubric. The pack's rubric is checked against the built-in AFP v0.1
  rubric; when it differs, the pack's own rubric is imported instead, so scores are never silently
  read against a rubric the pack did not declare.
- runner rows (JSONL, one execution per line) -> one :class:`Run` per row. The rows carry no
  treatment instructions or fixture text, so they yield no Conditions or Tasks (a bare label would
  become a new version over the pack's full record); the store makes placeholders that the pack
  fills in, whichever is imported first. The runner's own grading (``score_0_8``,
  ``fatal_failure``, ``grader_notes``) and every hash are kept in the run's metadata: they are the
  source's claims, not this workstation's judgments.

This module parses; it never writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from abp_tui.errors import InputError
from abp_tui.formats.base import (
    Invalid,
    ParseContext,
    Record,
    SimpleFormat,
    first_jsonl_record,
    iter_jsonl,
    loads_json,
    peek_json,
    read_json,
    validate,
    validate_each,
)
from abp_tui.models import (
    AcceptanceRule,
    Condition,
    Dimension,
    ResultState,
    Rubric,
    Run,
    Study,
    Task,
    Tokens,
)
from abp_tui.models.builtin_rubrics import AFP_V01
from abp_tui.text.canonical import canonical_json, sha256_text

PROTOCOL = "afp"
FATAL_OVERRIDE = "Any fatal criterion hit => MODEL_FAIL regardless of aggregate score."

Name = Annotated[StrictStr, Field(min_length=1)]
NonNegInt = Annotated[StrictInt, Field(ge=0)]
Score08 = Annotated[StrictInt, Field(ge=0, le=8)] | Annotated[StrictFloat, Field(ge=0, le=8)]


class _Doc(BaseModel):
    """Part of an AFP file: unknown fields are tolerated (and kept by the caller)."""

    model_config = ConfigDict(extra="allow")


# -- pack.json -------------------------------------------------------------------------------


class AfpTreatment(_Doc):
    """One comparison condition (A | Model only ... D | AFP + Governance)."""

    name: Name
    instruction: StrictStr
    """The instruction added for this condition; empty for A (model only)."""


class AfpFixture(_Doc):
    """One pilot fixture: the task, the evidence visible to the model and what is expected."""

    id: Name
    risk: StrictStr
    """The observable risk the fixture targets (seed 001's table)."""
    base_instruction: StrictStr = ""
    evidence: StrictStr
    task: StrictStr
    expected_core: StrictStr
    fatal_criterion: StrictStr


class AfpSharedRubric(_Doc):
    dimensions: list[Name] = Field(min_length=1)
    score_per_dimension: list[NonNegInt] = Field(min_length=2)
    total_range: tuple[NonNegInt, NonNegInt]
    fatal_override: StrictStr | None = None


class AfpPack(_Doc):
    """The pack; treatments and fixtures are validated one by one so one bad entry is skippable."""

    protocol_version: Name
    scope: StrictStr = ""
    treatments: dict[str, Any] = Field(min_length=1)
    fixtures: list[Any] = Field(min_length=1)
    shared_rubric: AfpSharedRubric
    synthetic: StrictBool = False
    """Not in the published pack: set by hand-written demo packs that no real model ran."""


def _version(protocol_version: str) -> str:
    return protocol_version[1:] if protocol_version[:1] in ("v", "V") else protocol_version


def study_id_for(protocol_version: str) -> str:
    """``afp-v0.1`` for protocol version ``0.1``: pack and runner rows land in one study."""
    return f"afp-v{_version(protocol_version)}"


def _sniff_pack(path: Path, head: bytes) -> bool:
    if path.suffix.lower() != ".json":
        return False
    if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return False
    doc = peek_json(path)
    return (
        isinstance(doc, dict)
        and "protocol_version" in doc
        and isinstance(doc.get("treatments"), dict)
        and isinstance(doc.get("fixtures"), list)
    )


def _slug(name: str, index: int) -> str:
    slug = re.sub(r"[^0-9a-z]+", "_", name.casefold()).strip("_")
    return slug or f"dimension_{index + 1}"


def _check_rubric(rubric: AfpSharedRubric, display: str) -> None:
    """Whole-pack consistency: a rubric that contradicts itself cannot be scored against."""
    scale = rubric.score_per_dimension
    if scale != sorted(set(scale)):
        raise InputError(
            display,
            f"expected distinct scores in ascending order (got {scale})",
            path="$.shared_rubric.score_per_dimension",
        )
    n = len(rubric.dimensions)
    expected = (n * scale[0], n * scale[-1])
    if tuple(rubric.total_range) != expected:
        raise InputError(
            display,
            f"expected [{expected[0]}, {expected[1]}] for {n} dimensions scored "
            f"{scale[0]}-{scale[-1]} (got {list(rubric.total_range)})",
            path="$.shared_rubric.total_range",
        )
    ids = [_slug(name, i) for i, name in enumerate(rubric.dimensions)]
    for i, key in enumerate(ids):
        if key in ids[:i]:
            raise InputError(
                display,
                f"duplicate dimension {rubric.dimensions[i]!r}; expected each dimension once",
                path=f"$.shared_rubric.dimensions[{i}]",
            )


def _matches_builtin(rubric: AfpSharedRubric) -> bool:
    builtin = [d.name.casefold() for d in AFP_V01.dimensions]
    return (
        [d.strip().casefold() for d in rubric.dimensions] == builtin
        and rubric.score_per_dimension == [0, 1, 2]
        and tuple(rubric.total_range) == (0, AFP_V01.max_total)
    )


def _pack_rubric(rubric: AfpSharedRubric, raw: Any, version: str) -> Rubric:
    """The built-in AFP rubric, or the pack's own one when it declares something else."""
    if _matches_builtin(rubric):
        return AFP_V01
    digest = sha256_text(canonical_json(raw))
    scale = tuple(rubric.score_per_dimension)
    if scale == (0, 1, 2):
        anchors = dict(AFP_V01.dimensions[0].anchors)
    else:
        anchors = {s: f"Score {s} on the pack's {scale[0]}-{scale[-1]} scale." for s in scale}
    fatal = (rubric.fatal_override or FATAL_OVERRIDE).strip()
    if not fatal.endswith("."):
        fatal += "."
    return Rubric(
        id=f"afp-pack-{digest[:8]}",
        name="AFP pack shared comparison rubric",
        version=version,
        dimensions=tuple(
            Dimension(id=_slug(name, i), name=name.strip(), anchors=anchors, scale=scale)
            for i, name in enumerate(rubric.dimensions)
        ),
        fatal_criteria=AFP_V01.fatal_criteria,
        acceptance=AcceptanceRule(
            text=f"{fatal} Otherwise the output passes when no dimension scores {scale[0]} "
            f"(total {rubric.total_range[0]}-{rubric.total_range[1]} reported alongside); the "
            "pack sets no threshold, this one is the workstation's default.",
            min_each=scale[1],
        ),
        source="imported",
    )


def _rest(data: dict[str, Any], mapped: set[str]) -> dict[str, Any]:
    """What the source carried beyond the fields mapped onto the domain model, verbatim."""
    return {k: v for k, v in data.items() if k not in mapped}


def _parse_pack(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    data = read_json(path, ctx.display)
    if not isinstance(data, dict):
        raise InputError(ctx.display, "expected a JSON object (an AFP pack)", path="$")
    pack = validate(AfpPack, data, ctx.display)
    _check_rubric(pack.shared_rubric, ctx.display)
    version = _version(pack.protocol_version)
    rubric = _pack_rubric(pack.shared_rubric, data["shared_rubric"], version)
    yield Study(
        id=ctx.study(study_id_for(pack.protocol_version)),
        name=f"AFP Benchmark Protocol v{version}",
        protocol=PROTOCOL,
        description=f"Scope: {pack.scope}" if pack.scope else "",
        rubric_id=rubric.id,
        synthetic=pack.synthetic,
    )
    for key, raw in pack.treatments.items():
        prefix = f"$.treatments.{key}"
        try:
            if not key.strip():
                raise InputError(
                    ctx.display, "expected a non-empty treatment id", path="$.treatments"
                )
            treatment = validate(AfpTreatment, raw, ctx.display, prefix=prefix)
        except InputError as exc:
            yield Invalid(exc)
            continue
        yield Condition(
            id=key,
            label=treatment.name,
            instructions=treatment.instruction,
            version=version,
            metadata=_rest(raw, {"name", "instruction"}),
        )
    for found in validate_each(
        pack.fixtures, AfpFixture, ctx, "$.fixtures", "id", "fixture id", "fixture"
    ):
        if isinstance(found, Invalid):
            yield found
            continue
        _i, raw, fixture = found
        yield Task(
            id=fixture.id,
            prompt=fixture.task,
            base_instruction=fixture.base_instruction,
            evidence=fixture.evidence,
            expected_behaviour=fixture.expected_core,
            fatal_criteria=(fixture.fatal_criterion,) if fixture.fatal_criterion.strip() else (),
            risk_type=fixture.risk,
            version=version,
            synthetic=pack.synthetic,
            metadata=_rest(
                raw,
                {
                    "id",
                    "risk",
                    "base_instruction",
                    "evidence",
                    "task",
                    "expected_core",
                    "fatal_criterion",
                },
            ),
        )
    yield rubric


# -- runner raw rows -------------------------------------------------------------------------


class AfpRunnerRow(_Doc):
    """One execution as the AFP runner writes it (one JSONL line)."""

    execution_id: Name
    run_id: StrictStr | None = None
    """The runner's batch id; the execution id identifies the row."""
    protocol_version: Name
    benchmark_pack_sha256: StrictStr | None = None
    runner_sha256: StrictStr | None = None
    fixture_id: Name
    fixture_risk: StrictStr | None = None
    input_sha256: StrictStr | None = None
    effective_instructions_sha256: StrictStr | None = None
    treatment: Name
    treatment_name: StrictStr | None = None
    treatment_instruction_sha256: StrictStr | None = None
    repeat: Annotated[StrictInt, Field(ge=1)]
    provider: StrictStr | None = None
    requested_model: StrictStr | None = None
    returned_model: StrictStr | None = None
    reasoning_effort: StrictStr | None = None
    sdk_version: StrictStr | None = None
    started_at: StrictStr | None = None
    latency_ms: Annotated[StrictFloat, Field(ge=0)] | None = None
    input_tokens: NonNegInt | None = None
    output_tokens: NonNegInt | None = None
    tool_calls: NonNegInt | None = None
    provider_response_id: StrictStr | None = None
    raw_output: StrictStr | None = None
    validity_status: Literal["UNSCORED", "INFRA_ERROR"]
    score_0_8: Score08 | None = None
    fatal_failure: StrictBool | None = None
    grader_notes: StrictStr | None = None
    error_type: StrictStr | None = None
    error_message: StrictStr | None = None
    synthetic: StrictBool = False
    """Not in the runner's field list: set by hand-written demo rows that no real model ran."""


RUNNER_KEYS = ("execution_id", "fixture_id", "treatment", "validity_status")
_MAPPED = {
    "execution_id",
    "fixture_id",
    "treatment",
    "repeat",
    "raw_output",
    "provider",
    "reasoning_effort",
    "input_tokens",
    "output_tokens",
    "tool_calls",
    "latency_ms",
    "started_at",
    "synthetic",
}
"""Row fields that become Run fields; every other field is kept in the run's metadata."""

RUN_NOT_EXPOSED = ("model_version", "engine", "engine_version", "cost_usd")
TOKENS_NOT_EXPOSED = ("cache_read", "cache_write", "total")
_FIRST_LINE_LIMIT = 64 << 20


def _first_record(path: Path, head: bytes) -> Any:
    """The first JSONL record, read past the sniffing head when the first line is longer.

    A runner row carries the whole raw output, so its first line often exceeds the head.
    """
    first = first_jsonl_record(head)
    if first is not None:
        return first
    try:
        with path.open("rb") as handle:
            while line := handle.readline(_FIRST_LINE_LIMIT):
                if line.strip():
                    return json.loads(line)
    except (OSError, ValueError, RecursionError):  # not this format: the parser says why
        return None
    return None


def _sniff_runner(path: Path, head: bytes) -> bool:
    if path.suffix.lower() not in (".jsonl", ".ndjson"):
        return False
    first = _first_record(path, head)
    return isinstance(first, dict) and all(key in first for key in RUNNER_KEYS)


def _first_row(path: Path, ctx: ParseContext) -> tuple[str | None, bool]:
    """The protocol version stated by the first row that has one (normally line 1).

    Also whether that row says it is synthetic, so the study is marked from the start.
    """
    for lineno, raw in iter_jsonl(path, ParseContext(display=ctx.display)):
        try:
            data = loads_json(raw, ctx.display, lineno)
        except InputError:
            continue
        if isinstance(data, dict):
            version = data.get("protocol_version")
            if isinstance(version, str) and version.strip():
                return version, data.get("synthetic") is True
    return None, False


PROVIDER_BLOCK_ERRORS = frozenset({"provider_block", "content_filter", "refusal_by_provider"})
"""error_type values of an UNSCORED row that mean the provider blocked the request."""


def _row_state(row: AfpRunnerRow) -> tuple[ResultState | None, str | None]:
    """The result state the row itself carries, and why it is excluded."""
    if row.validity_status == "INFRA_ERROR":
        reason = f"INFRA_ERROR: {row.error_type}" if row.error_type else "INFRA_ERROR"
        return ResultState.INFRA_ERROR, reason
    if row.error_type and row.error_type.lower() in PROVIDER_BLOCK_ERRORS:
        return ResultState.PROVIDER_BLOCK, f"PROVIDER_BLOCK: {row.error_type}"
    return None, None


def _row_run(row: AfpRunnerRow, path: Path, lineno: int) -> Run:
    state, excluded = _row_state(row)
    return Run(
        id=row.execution_id,
        task_id=row.fixture_id,
        condition_id=row.treatment,
        trial=row.repeat,
        output=row.raw_output,
        provider=row.provider,
        model=row.returned_model or row.requested_model,
        reasoning=row.reasoning_effort,
        tokens=Tokens(
            input=row.input_tokens, output=row.output_tokens, not_exposed=TOKENS_NOT_EXPOSED
        ),
        tool_calls=row.tool_calls,
        wall_clock_ms=row.latency_ms,
        started_at=row.started_at,
        origin_status=state,
        excluded_reason=excluded,
        source_file=path.name,
        source_line=lineno,
        synthetic=row.synthetic,
        not_exposed=RUN_NOT_EXPOSED,
        metadata=_rest(row.model_dump(), _MAPPED),
    )


def _parse_runner(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    first_version, synthetic = _first_row(path, ctx)
    default = study_id_for(first_version) if first_version else f"afp-{path.stem}"
    yield Study(id=ctx.study(default), protocol=PROTOCOL, synthetic=synthetic)
    seen: dict[str, int] = {}
    for lineno, raw in iter_jsonl(path, ctx):
        try:
            data = loads_json(raw, ctx.display, lineno)
            if not isinstance(data, dict):
                raise InputError(ctx.display, "expected a JSON object (one execution)", lineno)
            row = validate(AfpRunnerRow, data, ctx.display, lineno)
            if row.protocol_version != first_version:
                raise InputError(
                    ctx.display,
                    f"expected protocol_version {first_version!r} like the first row "
                    f"(got {row.protocol_version!r}); import each protocol version separately",
                    lineno,
                    "$.protocol_version",
                )
            if row.execution_id in seen:
                raise InputError(
                    ctx.display,
                    f"duplicate execution_id {row.execution_id!r} (first on line "
                    f"{seen[row.execution_id]}); expected each execution once",
                    lineno,
                    "$.execution_id",
                )
        except InputError as exc:
            yield Invalid(exc)
            continue
        seen[row.execution_id] = lineno
        yield _row_run(row, path, lineno)


PACK = SimpleFormat("afp-pack", "AFP v0.1 benchmark pack (pack.json)", _sniff_pack, _parse_pack)
RUNNER = SimpleFormat("afp-runner", "AFP runner raw rows (JSONL)", _sniff_runner, _parse_runner)

__all__ = ["PACK", "RUNNER", "study_id_for"]
