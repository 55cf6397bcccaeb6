"""ABP documents (seed 003): task manifests, run configurations and verdicts.

Three single-document JSON formats, told apart by their ``"schema"`` value:

- ``abp-task/v1``: one task manifest -> one :class:`Task` (source, environment, verification,
  golden and cutoffs kept in its metadata; synthetic when ``source.kind`` is ``fixture``).
- ``abp-run/v1``: the run configuration -> the :class:`Study` description and one
  :class:`Condition` per engine. Task ids it lists are not turned into tasks: their manifests are.
- ``abp-verdict/v1``: the harness's own statistics -> a :class:`ReferenceVerdict`, kept for
  reference and never used in place of the workstation's own results.

Files of one study usually share a folder, so the default study id is the folder's name: the run
folder's (the folder holding ``run.json``) for the files in its ``tasks/`` and ``traces/``.
Traces (``abp-trace/v1``) are another module's job. This module parses; it never writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    model_validator,
)

from abp_tui.analysis.matched_models import MATCHED_MODELS_WARNING
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
from abp_tui.models import Condition, ReferenceVerdict, Study, Task

TASK_SCHEMA = "abp-task/v1"
RUN_SCHEMA = "abp-run/v1"
VERDICT_SCHEMA = "abp-verdict/v1"

# Seed 003 section 7: a report on unmatched models must lead with this warning; the flag itself
# is kept on every condition's metadata (matchedModels), which every output reads back.

NonNegInt = Annotated[StrictInt, Field(ge=0)]
NonNegNumber = Annotated[StrictFloat, Field(ge=0)]
Probability = Annotated[StrictFloat, Field(ge=0, le=1)]
Name = Annotated[StrictStr, Field(min_length=1)]


class _Doc(BaseModel):
    """Part of an ABP document: unknown fields are tolerated (and kept by the caller)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


# -- abp-task/v1 -----------------------------------------------------------------------------


class TaskSource(_Doc):
    """Where the task came from: a GitHub issue frozen at a commit, or a synthetic fixture."""

    kind: Name
    """``github-issue``, or ``fixture`` for synthetic tasks."""
    repo: StrictStr | None = None
    issue: StrictInt | None = None
    baseCommit: StrictStr | None = None
    sourcedAt: StrictStr | None = None
    registryVersion: StrictStr | None = None
    drawSeed: StrictInt | None = None


class TaskEnvironment(_Doc):
    image: StrictStr | None = None
    setup: list[StrictStr] = Field(default_factory=list)


class TaskVerification(_Doc):
    kind: StrictStr | None = None
    failToPass: list[StrictStr] = Field(default_factory=list)
    passToPass: list[StrictStr] = Field(default_factory=list)
    timeoutSeconds: NonNegNumber | None = None
    heldOut: StrictBool | None = None


class TaskGolden(_Doc):
    diffBytesNormalized: NonNegInt | None = None
    filesTouched: NonNegInt | None = None
    trace: StrictStr | None = None
    mergedPr: StrictStr | None = None


class AbpTask(_Doc):
    """An ``abp-task/v1`` manifest."""

    schema_name: StrictStr = Field(alias="schema")
    id: Name
    source: TaskSource
    prompt: Name
    """The full task statement given to every engine."""
    environment: TaskEnvironment | None = None
    verification: TaskVerification | None = None
    golden: TaskGolden | None = None
    cutoffsVerified: list[StrictStr] = Field(default_factory=list)


# -- abp-run/v1 ------------------------------------------------------------------------------


class RunEngine(_Doc):
    """One engine under test; the model is pinned by the configuration, not by the engine."""

    name: Name
    version: StrictStr | None = None
    model: StrictStr | None = None
    """Not in the seed's example; honoured when a configuration varies the model per engine."""


class AbpRun(_Doc):
    """An ``abp-run/v1`` configuration, engines aside (each is validated on its own)."""

    schema_name: StrictStr = Field(alias="schema")
    engines: list[Any] = Field(min_length=1)
    model: Name
    matchedModels: StrictBool
    budgetUsd: NonNegNumber | None = None
    timeoutSeconds: NonNegNumber | None = None
    trials: Annotated[StrictInt, Field(ge=1)] | None = None
    ordering: StrictStr | None = None
    seed: StrictInt | None = None
    tasks: list[StrictStr] = Field(default_factory=list)
    host: dict[str, Any] | None = None
    reproduce: StrictStr | None = None


# -- abp-verdict/v1 --------------------------------------------------------------------------


def _ordered(pair: tuple[float, float], what: str) -> None:
    if pair[0] > pair[1]:
        raise ValueError(f"{what} lower bound is above its upper bound")


class ResolveRate(_Doc):
    point: Probability
    wilson95: tuple[Probability, Probability]

    @model_validator(mode="after")
    def _interval_is_ordered(self) -> ResolveRate:
        _ordered(self.wilson95, "wilson95")
        return self


class PerEngine(_Doc):
    engine: Name
    scoredTrials: NonNegInt
    excludedEngineErrors: NonNegInt | None = None
    resolveRate: ResolveRate
    medianDiffBytesNormalized: NonNegNumber | None = None
    medianTokensTotal: NonNegNumber | None = None
    medianWallClockMs: NonNegNumber | None = None
    medianComputedUsd: NonNegNumber | None = None


class McNemar(_Doc):
    discordant: tuple[NonNegInt, NonNegInt]
    pExact: Probability | None = None
    """Undefined (null) when there are no discordant pairs."""


class DiffDelta(_Doc):
    relMedian: StrictFloat | None = None
    bootstrap95: tuple[StrictFloat, StrictFloat] | None = None
    seed: StrictInt | None = None

    @model_validator(mode="after")
    def _interval_is_ordered(self) -> DiffDelta:
        if self.bootstrap95 is not None:
            _ordered(self.bootstrap95, "bootstrap95")
        return self


class Pairwise(_Doc):
    a: Name
    b: Name
    mcnemar: McNemar
    diffDelta: DiffDelta | None = None


class AbpVerdict(_Doc):
    """An ``abp-verdict/v1`` document."""

    schema_name: StrictStr = Field(alias="schema")
    run: Name
    perEngine: list[PerEngine] = Field(min_length=1)
    pairwise: list[Pairwise] = Field(default_factory=list)
    receipts: dict[str, Any] | None = None


# -- shared ----------------------------------------------------------------------------------


def _looks_like_object(head: bytes) -> bool:
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")


def _schema_sniffer(schema: str) -> Any:
    def sniff(path: Path, head: bytes) -> bool:
        if path.suffix.lower() != ".json" or not _looks_like_object(head):
            return False
        doc = peek_json(path)
        return isinstance(doc, dict) and doc.get("schema") == schema

    return sniff


def _load(path: Path, ctx: ParseContext, schema: str) -> dict[str, Any]:
    """The document as a dict whose ``schema`` is the one expected, or an InputError."""
    data = read_json(path, ctx.display)
    if not isinstance(data, dict):
        raise InputError(ctx.display, f"expected a JSON object (an {schema} document)", path="$")
    found = data.get("schema")
    if found != schema:
        got = "it is missing" if found is None else f"got {json.dumps(found)[:60]}"
        raise InputError(ctx.display, f"expected {json.dumps(schema)} ({got})", path="$.schema")
    return data


RUN_FOLDER_PARTS = ("tasks", "traces")
"""Subfolders of an ABP run folder (the folder holding ``run.json``)."""


def default_study_id(path: Path) -> str:
    """The run folder holding the file: ``run.json``'s folder, which also holds ``tasks/`` and
    ``traces/``; else the file's own folder (ABP files of one study usually share one)."""
    folder = path.absolute().parent
    if folder.name in RUN_FOLDER_PARTS and (folder.parent / "run.json").is_file():
        folder = folder.parent
    return folder.name or path.stem


def _study(path: Path, ctx: ParseContext, **fields: Any) -> Study:
    return Study(id=ctx.study(default_study_id(path)), protocol="abp", **fields)


def _rest(data: dict[str, Any], mapped: set[str]) -> dict[str, Any]:
    """What the source carried beyond the fields mapped onto the domain model, verbatim."""
    return {k: v for k, v in data.items() if k not in mapped}


# -- parsers ---------------------------------------------------------------------------------


def _parse_task(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    data = _load(path, ctx, TASK_SCHEMA)
    task = validate(AbpTask, data, ctx.display)
    yield _study(path, ctx)
    yield Task(
        id=task.id,
        prompt=task.prompt,
        synthetic=task.source.kind == "fixture",
        metadata=_rest(data, {"schema", "id", "prompt"}),
    )


def _money(value: float) -> str:
    return f"${value:g}"


def _describe_run(run: AbpRun, engines: list[RunEngine]) -> str:
    names = ", ".join(" ".join(filter(None, [e.name, e.version])) for e in engines)
    parts = [f"ABP run configuration: engines {names}; model {run.model}."]
    parts.append(f"matchedModels: {'true' if run.matchedModels else 'false'}.")
    pinned = []
    if run.trials is not None:
        pinned.append(f"{run.trials} trial{'s' if run.trials != 1 else ''} per task")
    if run.budgetUsd is not None:
        pinned.append(f"budget {_money(run.budgetUsd)}")
    if run.timeoutSeconds is not None:
        pinned.append(f"timeout {run.timeoutSeconds:g} s")
    if run.ordering:
        pinned.append(f"ordering {run.ordering}")
    if run.seed is not None:
        pinned.append(f"seed {run.seed}")
    if pinned:
        sentence = "; ".join(pinned)
        parts.append(sentence[0].upper() + sentence[1:] + ".")
    if run.tasks:
        parts.append(f"{len(run.tasks)} task{'s' if len(run.tasks) != 1 else ''} listed.")
    if run.reproduce:
        parts.append(f"Reproduce: {run.reproduce}")
    text = " ".join(parts)
    return text if run.matchedModels else f"{MATCHED_MODELS_WARNING} {text}"


def _parse_run(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    data = _load(path, ctx, RUN_SCHEMA)
    run = validate(AbpRun, data, ctx.display)
    engines: list[tuple[int, RunEngine]] = []
    invalid: list[Invalid] = []
    for found in validate_each(
        run.engines, RunEngine, ctx, "$.engines", "name", "engine name", "engine"
    ):
        if isinstance(found, Invalid):
            invalid.append(found)
        else:
            engines.append((found[0], found[2]))
    yield _study(
        path,
        ctx,
        description=_describe_run(run, [e for _, e in engines]),
        limitations=() if run.matchedModels else (MATCHED_MODELS_WARNING,),
        synthetic=data.get("synthetic") is True,
    )
    yield from invalid
    shared = {
        "budgetUsd": run.budgetUsd,
        "timeoutSeconds": run.timeoutSeconds,
        "trials": run.trials,
        "ordering": run.ordering,
        "seed": run.seed,
        "host": run.host,
        "reproduce": run.reproduce,
        "matchedModels": run.matchedModels,
    }
    for i, engine in engines:
        raw = run.engines[i]
        yield Condition(
            id=engine.name,
            label=" ".join(filter(None, [engine.name, engine.version])),
            metadata={
                **_rest(raw, {"name"}),
                "version": engine.version,
                "model": engine.model or run.model,
                **shared,
            },
        )


def _parse_verdict(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    data = _load(path, ctx, VERDICT_SCHEMA)
    verdict = validate(AbpVerdict, data, ctx.display)
    yield _study(path, ctx)
    yield ReferenceVerdict(id=verdict.run, schema_name=VERDICT_SCHEMA, document=data)


TASK = SimpleFormat(
    "abp-task", "ABP task manifest (abp-task/v1)", _schema_sniffer(TASK_SCHEMA), _parse_task
)
RUN = SimpleFormat(
    "abp-run", "ABP run configuration (abp-run/v1)", _schema_sniffer(RUN_SCHEMA), _parse_run
)
VERDICT = SimpleFormat(
    "abp-verdict", "ABP verdict (abp-verdict/v1)", _schema_sniffer(VERDICT_SCHEMA), _parse_verdict
)

__all__ = ["MATCHED_MODELS_WARNING", "RUN", "TASK", "VERDICT", "default_study_id"]
