"""Arena ``results.json`` (``{"manifest": ..., "results": [...]}``), the harness behind ABP.

The manifest becomes the :class:`Study` (default id: its ``runId``) and one :class:`Condition` per
agent; each TrialResult becomes one :class:`Run`. The file carries no task texts and no agent
output (transcripts and diffs are files it points to), so ``output`` is recorded as not exposed
and no Task record is yielded: the store makes a placeholder for each task a run names, which a
task manifest imported into the same study fills in, and which never replaces one already there.
An ``agent-error`` trial is an engine error: it stays visible as INFRA_ERROR with its exclusion
reason and is never counted as a loss. Token totals come with no per-call events to check them
against: they are accepted as the envelope states them (results say they are unverified), unless
a total contradicts its own parts, which refuses the trial.

A trial's ``diffPath`` (kept as given) is read relative to the results file's folder: the diff is
a receipt a bundle publishes (seed 003 principle 5), stored as the run's ``diff`` with
``metadata["diffFile"]`` = ``{"sha256", "bytes"}``, or ``{"missing": true}`` when no file is
there. A path that leaves the folder (absolute, ``..``, a link out) refuses the whole file: the
file is untrusted and is never allowed to read elsewhere.

A bad TrialResult is yielded as Invalid (``--skip-invalid`` may skip it); a file whose manifest
or overall shape is unusable is refused. This module parses; it never writes.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated, Any, Literal

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

from abp_tui.errors import InputError
from abp_tui.formats.abp import MATCHED_MODELS_WARNING
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
from abp_tui.models import Condition, ResultState, Run, Study, Tokens
from abp_tui.text.canonical import sha256_bytes
from abp_tui.text.safe import safe_line

NonNegInt = Annotated[StrictInt, Field(ge=0)]
NonNegNumber = Annotated[StrictFloat, Field(ge=0)]
Name = Annotated[StrictStr, Field(min_length=1)]

Outcome = Literal["passed", "failed", "timeout", "agent-error"]
NOT_EXPOSED = ("output", "provider")
"""Arena records neither the agent's output text (only transcript and diff paths) nor a provider."""
MAX_REASON_CHARS = 300
MAX_LISTED = 10
DIFF_FILE = "diffFile"
"""The metadata key naming a run's stored diff (its hash and size) or saying it was missing."""
MAX_DIFF_BYTES = 256 << 20
"""A diff file larger than this is refused unread (it is held in memory until stored)."""
_MAPPED = {"id", "taskId", "trial", "outcome", "tokens"}
"""TrialResult fields carried entirely by Run fields; everything else stays in Run.metadata."""


class _Doc(BaseModel):
    """Part of an Arena document: unknown fields are tolerated (and kept by the caller)."""

    model_config = ConfigDict(extra="allow")


class Harness(_Doc):
    name: StrictStr | None = None
    version: StrictStr | None = None
    gitSha: StrictStr | None = None


class Agent(_Doc):
    """An agent: the adapter (engine) and the model it was asked to use."""

    adapter: Name
    model: StrictStr | None = None
    resolvedModel: StrictStr | None = None
    version: StrictStr | None = None
    bin: StrictStr | None = None


class RunManifest(_Doc):
    runId: Name
    createdAt: StrictStr | None = None
    harness: Harness | None = None
    host: Any = None
    seed: StrictInt | None = None
    trials: Annotated[StrictInt, Field(ge=1)] | None = None
    budgetUsd: NonNegNumber | None = None
    timeoutSeconds: NonNegNumber | None = None
    agents: list[Agent] = Field(default_factory=list)
    taskIds: list[Name] = Field(default_factory=list)
    matchedModels: StrictBool | None = None
    reproduceCommand: StrictStr | None = None


class Verify(_Doc):
    passed: StrictBool | None = None
    output: StrictStr | None = None


class Timing(_Doc):
    wallClockSeconds: NonNegNumber | None = None
    agentReportedSeconds: NonNegNumber | None = None


class ArenaTokens(_Doc):
    """A trial's token totals. No per-call events come with them, so they cannot be checked
    against the calls as an ABP trace's are (results say they are unverified); a total that
    contradicts its own parts is refused."""

    input: NonNegInt | None = None
    output: NonNegInt | None = None
    cacheRead: NonNegInt | None = None
    cacheWrite: NonNegInt | None = None
    total: NonNegInt | None = None

    @model_validator(mode="after")
    def _total_is_the_sum(self) -> ArenaTokens:
        parts = (self.input, self.output, self.cacheRead, self.cacheWrite)
        if self.total is not None and all(p is not None for p in parts):
            added = sum(p for p in parts if p is not None)
            if added != self.total:
                raise ValueError(
                    f"total is {self.total} but input + output + cacheRead + cacheWrite add up "
                    f"to {added}; expected them to be equal (Arena's normalisation, which ABP "
                    "inherits: the total counts all four, input without the cache reads)"
                )
        return self


class Cost(_Doc):
    computedUsd: NonNegNumber | None = None
    agentReportedUsd: NonNegNumber | None = None
    pricingModel: StrictStr | None = None


class Activity(_Doc):
    toolCalls: NonNegInt | None = None
    iterations: NonNegInt | None = None
    filesTouched: NonNegInt | None = None
    linesAdded: NonNegInt | None = None
    linesRemoved: NonNegInt | None = None
    diffBytes: NonNegInt | None = None


class Provenance(_Doc):
    runId: StrictStr | None = None
    startedAt: StrictStr | None = None
    finishedAt: StrictStr | None = None


class TrialResult(_Doc):
    id: Name
    taskId: Name
    trial: NonNegInt
    agent: Agent
    outcome: Outcome
    verify: Verify | None = None
    timing: Timing | None = None
    tokens: ArenaTokens | None = None
    cost: Cost | None = None
    activity: Activity | None = None
    provenance: Provenance | None = None
    transcriptPath: StrictStr | None = None
    diffPath: StrictStr | None = None
    error: StrictStr | dict[str, Any] | None = None


# -- detection -------------------------------------------------------------------------------


def _sniff(path: Path, head: bytes) -> bool:
    if path.suffix.lower() != ".json" or not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return False
    doc = peek_json(path)
    if not isinstance(doc, dict):
        return False
    manifest = doc.get("manifest")
    return (
        isinstance(manifest, dict) and "runId" in manifest and isinstance(doc.get("results"), list)
    )


# -- conditions ------------------------------------------------------------------------------


class _Conditions:
    """Condition ids for agents: the adapter, or ``adapter/model`` when adapters are shared."""

    def __init__(self, manifest_agents: list[Agent]) -> None:
        self.agents: dict[tuple[str, str | None], Agent] = {}
        for agent in manifest_agents:
            self.agents.setdefault((agent.adapter, agent.model), agent)
        self.from_manifest = set(self.agents)
        self.versions: dict[tuple[str, str | None], set[str]] = {}

    def key(self, agent: Agent) -> tuple[str, str | None]:
        """The configured agent a trial ran as (manifests may omit what trials resolve)."""
        exact = (agent.adapter, agent.model)
        if exact in self.agents:
            return exact
        same_adapter = [k for k in self.from_manifest if k[0] == agent.adapter]
        if len(same_adapter) == 1:
            return same_adapter[0]
        self.agents[exact] = agent
        return exact

    def note_trial(self, agent: Agent) -> tuple[str, str | None]:
        key = self.key(agent)
        if agent.version:
            self.versions.setdefault(key, set()).add(agent.version)
        return key

    def condition_id(self, key: tuple[str, str | None]) -> str:
        adapter, model = key
        shared = sum(1 for k in self.agents if k[0] == adapter) > 1
        return f"{adapter}/{model}" if shared and model else adapter

    def version(self, key: tuple[str, str | None]) -> str | None:
        stated = self.agents[key].version
        if stated:
            return stated
        seen = self.versions.get(key, set())
        return next(iter(seen)) if len(seen) == 1 else None


# -- parsing ---------------------------------------------------------------------------------


def _describe(manifest: RunManifest, tried: set[str]) -> str:
    parts = [f"Arena run {manifest.runId}"]
    if manifest.createdAt:
        parts[0] += f", created {manifest.createdAt}"
    harness = manifest.harness
    if harness is not None and harness.name:
        made_by = " ".join(filter(None, [harness.name, harness.version]))
        if harness.gitSha:
            made_by += f" (git {harness.gitSha})"
        parts[0] += f", by harness {made_by}"
    parts[0] += "."
    matched = {True: "true", False: "false", None: "not stated"}[manifest.matchedModels]
    parts.append(f"matchedModels: {matched}.")
    pinned = []
    if manifest.seed is not None:
        pinned.append(f"seed {manifest.seed}")
    if manifest.trials is not None:
        pinned.append(f"{manifest.trials} trial{'s' if manifest.trials != 1 else ''} per task")
    if manifest.budgetUsd is not None:
        pinned.append(f"budget ${manifest.budgetUsd:g}")
    if manifest.timeoutSeconds is not None:
        pinned.append(f"timeout {manifest.timeoutSeconds:g} s")
    if pinned:
        sentence = "; ".join(pinned)
        parts.append(sentence[0].upper() + sentence[1:] + ".")
    listed = list(dict.fromkeys(manifest.taskIds))
    if listed:
        parts.append(f"{len(listed)} task{'s' if len(listed) != 1 else ''} listed.")
        untried = [t for t in listed if t not in tried]
        if untried:
            shown = ", ".join(untried[:MAX_LISTED])
            more = f" and {len(untried) - MAX_LISTED} more" if len(untried) > MAX_LISTED else ""
            parts.append(f"Listed without a trial result: {shown}{more}.")
    if manifest.reproduceCommand:
        parts.append(f"Reproduce: {manifest.reproduceCommand}")
    text = " ".join(parts)
    return f"{MATCHED_MODELS_WARNING} {text}" if manifest.matchedModels is False else text


def _error_text(error: str | dict[str, Any] | None) -> str:
    if error is None:
        return ""
    if isinstance(error, dict):
        message = error.get("message")
        error = message if isinstance(message, str) else json.dumps(error, ensure_ascii=False)
    text = " ".join(error.split())
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 3] + "..."


def _tokens(tokens: ArenaTokens | None) -> Tokens | None:
    if tokens is None:
        return None
    return Tokens(
        input=tokens.input,
        output=tokens.output,
        cache_read=tokens.cacheRead,
        cache_write=tokens.cacheWrite,
        total=tokens.total,
    )


# -- diff files ------------------------------------------------------------------------------


def _diff_file(folder: Path, trial: TrialResult, where: str, display: str) -> Path | None:
    """The file a trial's ``diffPath`` names inside ``folder`` (None when it names none);
    refused when the path leads out of the folder, lexically or through a link."""
    given = trial.diffPath
    if not given:
        return None

    def refuse(why: str) -> InputError:
        return InputError(
            display,
            f"trial {safe_line(trial.id)[:80]!r}: diffPath {safe_line(given)[:120]!r} {why}; "
            "expected a relative path inside the results file's folder",
            path=f"{where}.diffPath",
        )

    posix = PurePosixPath(given.replace("\\", "/"))
    if "\0" in given:
        raise refuse("holds a NUL character")
    if posix.is_absolute() or PureWindowsPath(given).drive:
        raise refuse("is absolute")
    if ".." in posix.parts:
        raise refuse("leaves the folder ('..')")
    candidate = folder.joinpath(*posix.parts)
    try:
        inside = candidate.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # a link loop
        raise refuse("cannot be resolved (a link loop?)") from None
    if not inside:
        raise refuse("leads out of the folder through a link")
    return candidate


def _read_diff(file: Path, trial: TrialResult, where: str, display: str) -> bytes | None:
    """The diff's bytes, or None when there is no file (a receipt missing, not an error)."""
    shown = (
        f"trial {safe_line(trial.id)[:80]!r}: diffPath {safe_line(trial.diffPath or '')[:120]!r}"
    )
    try:
        # O_NONBLOCK: a FIFO planted at the path must not hang the import before it is refused.
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise InputError(
            display, f"{shown} cannot be read ({exc.strerror})", path=f"{where}.diffPath"
        ) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InputError(display, f"{shown} is not a regular file", path=f"{where}.diffPath")
        if info.st_size > MAX_DIFF_BYTES:
            raise InputError(
                display,
                f"{shown} has {info.st_size} bytes, more than a diff may ({MAX_DIFF_BYTES})",
                path=f"{where}.diffPath",
            )
        return handle.read()


def _diff_metadata(diff: bytes | None) -> dict[str, Any]:
    if diff is None:
        return {"missing": True}
    return {"sha256": sha256_bytes(diff), "bytes": len(diff)}


# -- runs ------------------------------------------------------------------------------------


def _run(
    trial: TrialResult,
    raw: dict[str, Any],
    condition_id: str,
    source: str,
    diff_file: Path | None = None,
    where: str = "",
    display: str = "",
) -> Run:
    excluded = origin = None
    if trial.outcome == "agent-error":
        origin = ResultState.INFRA_ERROR
        detail = _error_text(trial.error)
        excluded = f"agent-error: {detail}" if detail else "agent-error"
    seconds = trial.timing.wallClockSeconds if trial.timing else None
    metadata = {k: v for k, v in raw.items() if k not in _MAPPED}
    diff = None
    if diff_file is not None:
        diff = _read_diff(diff_file, trial, where, display)
        metadata[DIFF_FILE] = _diff_metadata(diff)
    return Run(
        id=trial.id,
        task_id=trial.taskId,
        condition_id=condition_id,
        trial=trial.trial,
        engine=trial.agent.adapter,
        engine_version=trial.agent.version,
        model=trial.agent.model,
        model_version=trial.agent.resolvedModel,
        tokens=_tokens(trial.tokens),
        tool_calls=trial.activity.toolCalls if trial.activity else None,
        wall_clock_ms=round(seconds * 1000, 3) if seconds is not None else None,
        cost_usd=trial.cost.computedUsd if trial.cost else None,
        started_at=trial.provenance.startedAt if trial.provenance else None,
        origin_status=origin,
        automated_outcome=trial.outcome,
        excluded_reason=excluded,
        source_file=source,
        not_exposed=NOT_EXPOSED,
        metadata=metadata,
        diff=diff,
    )


def _parse(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    data = read_json(path, ctx.display)
    if not isinstance(data, dict):
        raise InputError(
            ctx.display, 'expected a JSON object {"manifest": ..., "results": [...]}', path="$"
        )
    if "manifest" not in data:
        raise InputError(ctx.display, "required field is missing", path="$.manifest")
    manifest = validate(RunManifest, data["manifest"], ctx.display, prefix="$.manifest")
    results = data.get("results")
    if not isinstance(results, list):
        what = "required field is missing" if results is None else "expected a list of trials"
        raise InputError(ctx.display, what, path="$.results")

    conditions = _Conditions(manifest.agents)
    trials: list[tuple[TrialResult, dict[str, Any], str, Path | None] | Invalid] = []
    tried: set[str] = set()
    folder = path.parent
    for found in validate_each(results, TrialResult, ctx, "$.results", "id", "trial id", "id"):
        if isinstance(found, Invalid):
            trials.append(found)
            continue
        i, raw, trial = found
        tried.add(trial.taskId)
        conditions.note_trial(trial.agent)
        where = f"$.results[{i}]"
        # Every path is checked before anything is yielded: a refused file stores nothing.
        trials.append((trial, raw, where, _diff_file(folder, trial, where, ctx.display)))

    yield Study(
        id=ctx.study(manifest.runId),
        protocol="arena",
        description=_describe(manifest, tried),
        limitations=(MATCHED_MODELS_WARNING,) if manifest.matchedModels is False else (),
    )
    pinned = {
        "budgetUsd": manifest.budgetUsd,
        "timeoutSeconds": manifest.timeoutSeconds,
        "trials": manifest.trials,
        "seed": manifest.seed,
        "matchedModels": manifest.matchedModels,
        "host": manifest.host,
    }
    for key, agent in conditions.agents.items():
        cid = conditions.condition_id(key)
        version = conditions.version(key)
        label = " ".join(filter(None, [agent.adapter, version]))
        if cid != agent.adapter:
            label += f" ({agent.model})"
        yield Condition(
            id=cid,
            label=label,
            metadata={
                **agent.model_dump(exclude_none=True),
                "model": agent.model,
                "version": version,
                **pinned,
            },
        )
    for item in trials:
        if isinstance(item, Invalid):
            yield item
            continue
        trial, raw, where, diff_file = item
        cid = conditions.condition_id(conditions.key(trial.agent))
        yield _run(trial, raw, cid, path.name, diff_file, where, ctx.display)


FORMAT = SimpleFormat("arena", "Arena results.json (manifest + trial results)", _sniff, _parse)

__all__ = ["FORMAT"]
