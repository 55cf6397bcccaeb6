"""The scientifically constrained agent benchmark (seed 004): specification, submissions, runs.

Three single-document JSON formats, told apart by their keys:

- the specification (``parallel-member-limits-v1.json``) -> the :class:`Study`, one
  :class:`Condition` per cumulative rung (C0-C6, capabilities in metadata), one :class:`Task` per
  case (its expected oracle rendered for the reviewer, and kept verbatim in metadata) and the
  built-in sci-bench rubric, or the specification's own dimensions when they differ from it.
- a structured submission -> one :class:`Run` per case, ``<run_id>/<case_id>``. The structured
  answer is the output, as sorted, indented JSON. A malformed answer is still a run: schema
  validity is one of the scored dimensions, so only the ``case_id`` that places it is required.
- a pilot run record -> one :class:`Run` per case of its ``case_order``. The record references
  its submission by path and SHA-256 instead of carrying the answer, so these runs have no output;
  they are the execution record (settings, budgets, timing, exclusion). An excluded run stays
  visible with its reason code.

Submissions and pilot records yield no Conditions or Tasks: a bare id would become a new version
over the specification's full record, and the store makes placeholders the specification fills.
This module parses; it never writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from abp_tui.errors import InputError
from abp_tui.formats.base import (
    Invalid,
    ParseContext,
    Record,
    SimpleFormat,
    peek_json,
    read_json,
    validate,
    validate_each,
)
from abp_tui.models import Condition, Dimension, ResultState, Rubric, Run, Study, Task
from abp_tui.models.builtin_rubrics import SCI_BENCH_V1
from abp_tui.text.canonical import canonical_json, sha256_text

PROTOCOL = "sci-bench"
SYNTHETIC_PROVIDER = "deterministic-fixture"

Name = Annotated[StrictStr, Field(min_length=1)]


class _Doc(BaseModel):
    """Part of a sci-bench document: unknown fields are tolerated (and kept by the caller)."""

    model_config = ConfigDict(extra="allow")


# -- specification ---------------------------------------------------------------------------


class SciCondition(_Doc):
    """One rung of the cumulative condition lattice."""

    condition_id: Name
    label: StrictStr = ""
    added_capabilities: list[StrictStr] = Field(default_factory=list)
    cumulative_capabilities: list[StrictStr] = Field(default_factory=list)


class SciCase(_Doc):
    """One case: the prompt, its expected oracle and the dimensions it scores."""

    case_id: Name
    task_kind: StrictStr = ""
    prompt: Name
    expected: dict[str, Any]
    dimensions_scored: list[Name] = Field(min_length=1)
    does_not_establish: list[StrictStr] = Field(default_factory=list)


class SciSpec(_Doc):
    """The specification; conditions and cases are validated one by one (each is skippable)."""

    schema_version: StrictStr | None = None
    benchmark_id: Name
    title: StrictStr = ""
    status: StrictStr = ""
    research_question: StrictStr = ""
    scope: StrictStr = ""
    condition_order: list[StrictStr] = Field(default_factory=list)
    conditions: list[Any] = Field(min_length=1)
    scoring_dimensions: list[Name] = Field(min_length=1)
    unscored_dimensions: dict[str, StrictStr] = Field(default_factory=dict)
    cases: list[Any] = Field(min_length=1)
    limitations: list[StrictStr] = Field(default_factory=list)


# -- submission and pilot run record ---------------------------------------------------------


class SciSystem(_Doc):
    provider: Name
    model_id: StrictStr | None = None
    model_revision: StrictStr | None = None


class SciSubmission(_Doc):
    """A structured submission; its cases are checked one by one."""

    schema_version: StrictStr | None = None
    benchmark_id: Name
    run_id: Name
    condition_id: Name
    system: SciSystem
    provenance: dict[str, Any] | None = None
    cases: list[Any] = Field(min_length=1)


class SciSubmissionCase(_Doc):
    """One structured answer. Only ``case_id`` is required: a malformed answer is scored."""

    case_id: Name


class SciSettings(_Doc):
    reasoning_effort: StrictStr | None = None


class SciTiming(_Doc):
    started_at: StrictStr | None = None
    ended_at: StrictStr | None = None


class SciSubmissionRef(_Doc):
    path: StrictStr | None = None
    sha256: StrictStr | None = None


class SciExclusion(_Doc):
    included: StrictBool
    reason_code: StrictStr | None = None
    detail: StrictStr | None = None


class SciPilotRun(_Doc):
    """A pilot run record: one fresh conversation of one system under one condition."""

    schema_version: StrictStr | None = None
    record_kind: Name
    pilot_id: Name
    benchmark_id: Name
    run_id: Name
    execution_status: StrictStr | None = None
    condition_id: Name
    repetition_index: Annotated[StrictInt, Field(ge=0)]
    condition_sequence_index: StrictInt | None = None
    case_order: list[Name] = Field(min_length=1)
    system: SciSystem
    settings: SciSettings | None = None
    budgets: dict[str, Any] | None = None
    exposure: dict[str, Any] | None = None
    timing: SciTiming | None = None
    provenance: dict[str, Any] | None = None
    submission: SciSubmissionRef | None = None
    exclusion: SciExclusion


# -- sniffing --------------------------------------------------------------------------------


def _peek(path: Path, head: bytes) -> dict[str, Any] | None:
    if path.suffix.lower() != ".json":
        return None
    if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return None
    doc = peek_json(path)
    return doc if isinstance(doc, dict) else None


def _sniff_spec(path: Path, head: bytes) -> bool:
    doc = _peek(path, head)
    return doc is not None and all(
        key in doc for key in ("benchmark_id", "cases", "conditions", "scoring_dimensions")
    )


def _sniff_submission(path: Path, head: bytes) -> bool:
    doc = _peek(path, head)
    if doc is None or not all(k in doc for k in ("benchmark_id", "run_id", "condition_id")):
        return False
    cases = doc.get("cases")
    return (
        isinstance(cases, list)
        and bool(cases)
        and all(isinstance(c, dict) and "case_id" in c for c in cases)
    )


def _sniff_pilot_run(path: Path, head: bytes) -> bool:
    doc = _peek(path, head)
    return doc is not None and all(k in doc for k in ("pilot_id", "record_kind", "run_id"))


# -- helpers ---------------------------------------------------------------------------------


def _load(path: Path, ctx: ParseContext, what: str) -> dict[str, Any]:
    data = read_json(path, ctx.display)
    if not isinstance(data, dict):
        raise InputError(ctx.display, f"expected a JSON object ({what})", path="$")
    return data


def _rest(data: dict[str, Any], mapped: set[str]) -> dict[str, Any]:
    """What the source carried beyond the fields mapped onto the domain model, verbatim."""
    return {k: v for k, v in data.items() if k not in mapped}


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_expected(expected: dict[str, Any], indent: str = "") -> str:
    """The expected oracle as a reviewer reads it: one ``key: value`` line per field.

    The source's key order is kept (it is the order the authors explain the oracle in); lists of
    scalars are comma-separated and nested objects are indented.
    """
    lines: list[str] = []
    for key, value in expected.items():
        if isinstance(value, dict):
            lines.append(f"{indent}{key}:")
            lines.append(render_expected(value, indent + "  "))
        elif isinstance(value, list):
            if not value:
                shown = "(none)"
            elif all(not isinstance(v, dict | list) for v in value):
                shown = ", ".join(_scalar(v) for v in value)
            else:
                shown = json.dumps(value, ensure_ascii=False)
            lines.append(f"{indent}{key}: {shown}")
        else:
            lines.append(f"{indent}{key}: {_scalar(value)}")
    return "\n".join(line for line in lines if line)


def _sha8(data: Any) -> str:
    return sha256_text(canonical_json(data))[:8]


def _spec_rubric(spec: SciSpec) -> Rubric:
    """The built-in sci-bench rubric, or one built from the specification's own dimensions."""
    builtin_all = {d.id for d in SCI_BENCH_V1.dimensions}
    builtin_unscored = {d.id for d in SCI_BENCH_V1.dimensions if not d.scored}
    if set(spec.scoring_dimensions) == builtin_all and set(spec.unscored_dimensions) == (
        builtin_unscored
    ):
        return SCI_BENCH_V1
    known = {d.id: d for d in SCI_BENCH_V1.dimensions}
    pass_fail = SCI_BENCH_V1.dimensions[-1].anchors
    dimensions = []
    for key in spec.scoring_dimensions:
        scored = key not in spec.unscored_dimensions
        if key in known:
            dimensions.append(known[key].model_copy(update={"scored": scored}))
        else:
            name = key.replace("_", " ").strip().capitalize() or key
            dimensions.append(
                Dimension(
                    id=key,
                    name=name,
                    anchors=pass_fail,
                    scale=(0, 2),
                    scored=scored,
                    pass_fail=True,
                )
            )
    declared = {"scoring": spec.scoring_dimensions, "unscored": sorted(spec.unscored_dimensions)}
    digest = _sha8(declared)
    return Rubric(
        id=f"sci-bench-spec-{digest}",
        name=f"{spec.benchmark_id} scoring dimensions",
        version=spec.schema_version or "",
        dimensions=tuple(dimensions),
        acceptance=SCI_BENCH_V1.acceptance,
        allows_abstention=SCI_BENCH_V1.allows_abstention,
        source="imported",
    )


def _check_dimensions(spec: SciSpec, display: str) -> None:
    """Whole-file consistency of the declared dimensions."""
    seen: set[str] = set()
    for i, key in enumerate(spec.scoring_dimensions):
        if key in seen:
            raise InputError(
                display,
                f"duplicate dimension {key!r}; expected each dimension once",
                path=f"$.scoring_dimensions[{i}]",
            )
        seen.add(key)
    for key in spec.unscored_dimensions:
        if key not in seen:
            raise InputError(
                display,
                "expected an unscored dimension to be listed in scoring_dimensions",
                path=f"$.unscored_dimensions.{key}",
            )


def _describe(spec: SciSpec) -> str:
    parts = [spec.research_question]
    if spec.scope:
        parts.append(f"Scope: {spec.scope}")
    if spec.status:
        parts.append(f"Status: {spec.status}")
    if spec.unscored_dimensions:
        unscored = "; ".join(f"{k}: {v}" for k, v in spec.unscored_dimensions.items())
        parts.append(f"Unscored dimensions: {unscored}")
    return "\n\n".join(p for p in parts if p)


# -- parsers ---------------------------------------------------------------------------------


def _parse_spec(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    data = _load(path, ctx, "a benchmark specification")
    spec = validate(SciSpec, data, ctx.display)
    _check_dimensions(spec, ctx.display)
    rubric = _spec_rubric(spec)
    yield Study(
        id=ctx.study(spec.benchmark_id),
        name=spec.title,
        protocol=PROTOCOL,
        description=_describe(spec),
        rubric_id=rubric.id,
        limitations=tuple(spec.limitations),
    )
    order = {cid: i for i, cid in enumerate(spec.condition_order)}
    for found in validate_each(
        spec.conditions,
        SciCondition,
        ctx,
        "$.conditions",
        "condition_id",
        "condition_id",
        "condition",
    ):
        if isinstance(found, Invalid):
            yield found
            continue
        i, raw, cond = found
        yield Condition(
            id=cond.condition_id,
            label=cond.label,
            metadata={
                **_rest(raw, {"condition_id", "label"}),
                "order_index": order.get(cond.condition_id, i),
            },
        )
    scorable = set(spec.scoring_dimensions) - set(spec.unscored_dimensions)

    def scored_only(case: SciCase, prefix: str) -> None:
        for j, dim in enumerate(case.dimensions_scored):
            if dim not in scorable:
                raise InputError(
                    ctx.display,
                    f"expected a scored dimension of scoring_dimensions (got {dim!r})",
                    path=f"{prefix}.dimensions_scored[{j}]",
                )

    for case_found in validate_each(
        spec.cases, SciCase, ctx, "$.cases", "case_id", "case_id", "case", scored_only
    ):
        if isinstance(case_found, Invalid):
            yield case_found
            continue
        i, raw, case = case_found
        yield Task(
            id=case.case_id,
            prompt=case.prompt,
            expected_behaviour=render_expected(case.expected),
            metadata=_rest(raw, {"case_id", "prompt"}),
        )
    yield rubric


def _study(ctx: ParseContext, benchmark_id: str) -> Study:
    # No rubric id: a submission must not replace the rubric its specification chose.
    return Study(id=ctx.study(benchmark_id), protocol=PROTOCOL)


SUBMISSION_NOT_EXPOSED = (
    "tokens",
    "tool_calls",
    "wall_clock_ms",
    "cost_usd",
    "started_at",
    "reasoning",
    "engine",
    "engine_version",
)


def _answer(case: dict[str, Any]) -> str:
    return json.dumps(case, sort_keys=True, indent=2, ensure_ascii=False)


def _parse_submission(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    data = _load(path, ctx, "a structured submission")
    sub = validate(SciSubmission, data, ctx.display)
    yield _study(ctx, sub.benchmark_id)
    shared = _rest(data, {"cases", "condition_id"})
    seen: set[str] = set()
    for i, raw in enumerate(sub.cases):
        prefix = f"$.cases[{i}]"
        try:
            case = validate(SciSubmissionCase, raw, ctx.display, prefix=prefix)
            if case.case_id in seen:
                raise InputError(
                    ctx.display,
                    f"duplicate case_id {case.case_id!r}; expected one answer per case",
                    path=f"{prefix}.case_id",
                )
        except InputError as exc:
            yield Invalid(exc)
            continue
        seen.add(case.case_id)
        yield Run(
            id=f"{sub.run_id}/{case.case_id}",
            task_id=case.case_id,
            condition_id=sub.condition_id,
            trial=1,
            output=_answer(raw),
            provider=sub.system.provider,
            model=sub.system.model_id,
            model_version=sub.system.model_revision,
            source_file=path.name,
            synthetic=sub.system.provider == SYNTHETIC_PROVIDER,
            not_exposed=SUBMISSION_NOT_EXPOSED,
            metadata={**shared, "case_index": i, "case": raw},
        )


PILOT_NOT_EXPOSED = (
    "output",
    "tokens",
    "tool_calls",
    "wall_clock_ms",
    "cost_usd",
    "engine",
    "engine_version",
)
"""The record times and budgets the whole conversation, not each case, and references the
answer by hash rather than carrying it."""


def _origin_status(reason_code: str) -> ResultState | None:
    """The result state of an excluded pre-response failure, from its declared reason."""
    code = reason_code.upper()
    if "PROVIDER" in code:
        return ResultState.PROVIDER_BLOCK
    if any(word in code for word in ("HARNESS", "RESOURCE", "CAPTURE")):
        return ResultState.INFRA_ERROR
    return None


def _parse_pilot_run(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    data = _load(path, ctx, "a pilot run record")
    rec = validate(SciPilotRun, data, ctx.display)
    for i, case_id in enumerate(rec.case_order):
        if case_id in rec.case_order[:i]:
            raise InputError(
                ctx.display,
                f"duplicate case {case_id!r}; expected each case once",
                path=f"$.case_order[{i}]",
            )
    yield _study(ctx, rec.benchmark_id)
    excluded = None
    status = None
    if not rec.exclusion.included:
        code = rec.exclusion.reason_code or "EXCLUDED"
        excluded = f"{code}: {rec.exclusion.detail}" if rec.exclusion.detail else code
        status = _origin_status(code)
    synthetic = rec.record_kind.startswith("synthetic") or rec.system.provider == SYNTHETIC_PROVIDER
    shared = _rest(data, {"condition_id", "repetition_index"})
    for i, case_id in enumerate(rec.case_order):
        yield Run(
            id=f"{rec.run_id}/{case_id}",
            task_id=case_id,
            condition_id=rec.condition_id,
            trial=rec.repetition_index,
            provider=rec.system.provider,
            model=rec.system.model_id,
            model_version=rec.system.model_revision,
            reasoning=rec.settings.reasoning_effort if rec.settings else None,
            started_at=rec.timing.started_at if rec.timing else None,
            origin_status=status,
            excluded_reason=excluded,
            source_file=path.name,
            synthetic=synthetic,
            not_exposed=PILOT_NOT_EXPOSED,
            metadata={**shared, "case_index": i},
        )


SPEC = SimpleFormat("sci-spec", "Scientific benchmark specification", _sniff_spec, _parse_spec)
SUBMISSION = SimpleFormat(
    "sci-submission",
    "Scientific benchmark structured submission",
    _sniff_submission,
    _parse_submission,
)
PILOT_RUN = SimpleFormat(
    "sci-run", "Scientific benchmark pilot run record", _sniff_pilot_run, _parse_pilot_run
)

__all__ = ["PILOT_RUN", "SPEC", "SUBMISSION", "render_expected"]
