"""The records a publication bundle carries, as pydantic models, and where each file lives.

A bundle has two layers. The *source* files are what the database holds: the protocol (study,
design, rubric, tasks, conditions), the runs with their raw outputs and traces, and every
judgment, adjudication, finding and audit entry. The *derived* files (verdicts, summary tables,
agreement, plots, the report, the gate status) are a pure function of the source files, so
``verify`` can recompute them from the bundle alone. Runs and judgments are keyed by run id, never
by database keys.

A source record is one of the shared records of :mod:`abp_tui.models.records` (a study is
:class:`abp_tui.models.Study`; an item, a judgment, adjudication or finding revision is the
shared record itself), dumped as it is; the models here add only what a bundle carries besides
(where a run's output and trace are, a task's placeholder flag, a design's hash and times).
Nothing here reads the database or the disk.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, Final

from pydantic import Field

from abp_tui.models import Model, RunFacts, Task
from abp_tui.models.base import trusted

BUNDLE_SCHEMA: Final = "abp-tui-bundle/v1"
RECORDS_SCHEMA: Final = "abp-tui-records/v1"
"""Version of the source record shapes below (study, design, tasks, runs, judgments...)."""
SUMMARY_SCHEMA: Final = "abp-tui-summary/v1"
VERDICTS_SCHEMA: Final = "abp-tui-verdicts/v1"
JUDGMENTS_CSV_SCHEMA: Final = "abp-tui-judgments-csv/v1"

# Source files.
STUDY = "protocol/study.json"
DESIGN = "protocol/design.json"
RUBRIC = "protocol/rubric.json"
TASKS = "protocol/tasks.json"
CONDITIONS = "protocol/conditions.json"
RUNS = "runs/runs.jsonl"
OUTPUTS_DIR = "runs/outputs/"
TRACES_DIR = "runs/traces/"
DIFFS_DIR = "runs/diffs/"
"""Each run's diff file, as its source wrote it (a receipt: only hashed by ``verify``)."""
JUDGE_SCORES = "runs/automated_scores.jsonl"
ITEMS = "judging/items.jsonl"
JUDGMENTS = "judging/judgments.jsonl"
ADJUDICATIONS = "judging/adjudications.jsonl"
FINDINGS = "judging/findings.jsonl"
AUDIT = "audit/audit_log.jsonl"
ALLOCATION = "judging/allocation.jsonl"
"""A design with a human budget: each item's uncertainty, probability and whether it was drawn
for people (:mod:`abp_tui.export.allocation`); absent from any other bundle."""
SOURCE_FILES: Final = (
    STUDY,
    DESIGN,
    RUBRIC,
    TASKS,
    CONDITIONS,
    RUNS,
    JUDGE_SCORES,
    ITEMS,
    JUDGMENTS,
    ADJUDICATIONS,
    FINDINGS,
    AUDIT,
)
"""The source files every bundle has (besides one file per raw output and per trace)."""

MANIFEST = "manifest.json"


class PublishedDesign(Model):
    """The design a bundle publishes the results of, as it was stored."""

    study: str
    """The study's id."""
    name: str
    """The design's name."""
    version: int
    """The design's version under its name."""
    sha256: str
    """The design hash recorded when it was stored (design, rubric and the planned items)."""
    seed: int
    """Seeds the plan and every bootstrap."""
    created_at: str
    """When the design was stored (UTC)."""
    frozen_at: str | None
    """When its first judgment froze it (None while nobody judged)."""
    document: dict[str, Any]
    """The design as stored, with the identity terms that were masked for reviewers and
    ``plan_secret_sha256``, the commitment to its plan secret."""
    plan_hmac: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """The plan's part of the design hash (HMAC-SHA256 under the plan secret of the planned
    items, database keys and all): with the document and the rubric it gives the hash back,
    which ``verify`` recomputes; reveals nothing of the plan. None for a bundle made before it
    was published, or of a design stored before plan secrets."""
    plan_secret: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """The plan secret its codes, placement and order were derived from: revealed by a results
    bundle (after unblinding), never by a protocol-only one; None for a design stored before
    plan secrets (its plan followed from its seed)."""


class PublishedTask(Task):
    """A task of the study, as imported."""

    placeholder: bool = False
    """True when no task record was imported: the run named a task id and nothing more."""


class OutputRef(Model):
    """Where a bundle keeps a run's raw output."""

    path: str
    """Path inside the bundle."""
    sha256: str
    """SHA-256 of the output's UTF-8 bytes."""
    chars: int
    """Length of the output in characters."""


class TraceRef(Model):
    """Where a bundle keeps a run's trace (its raw event lines)."""

    path: str
    """Path inside the bundle."""
    events: int
    """How many events the trace has."""


class DiffRef(Model):
    """Where a bundle keeps a run's diff (the file its source named, byte for byte)."""

    path: str
    """Path inside the bundle."""
    sha256: str
    """SHA-256 of the file's bytes."""
    bytes: int
    """The file's size."""


class PublishedRun(RunFacts):
    """A run's facts with where the bundle keeps its output, trace and diff, and the rest of its
    record."""

    output: OutputRef | None
    """The raw output's file, or None when the record carried no output."""
    trace: TraceRef | None
    """The trace's file, or None when the run has no trace events."""
    diff: DiffRef | None = Field(default=None, exclude_if=lambda v: v is None)
    """The diff's file; absent when the run has no stored diff (its line then has no key)."""
    record: dict[str, Any]
    """Everything else the run record holds (provider, model, tokens, metadata...)."""


class HeldRun(RunFacts):
    """A published run as a bundle's analysis holds it: a :class:`PublishedRun` whose record is
    kept as its compact JSON text, deflated against the first run's (a study's records differ
    in a few values: 600 bytes of text deflate to 40, where the record's objects cost 2 kB and
    a large study holds hundreds of thousands of runs), and read again whenever asked for."""

    output: OutputRef | None
    trace: TraceRef | None
    diff: DiffRef | None = Field(default=None, exclude_if=lambda v: v is None)
    record_deflated: bytes = Field(exclude=True, repr=False)
    """The record's JSON text (UTF-8, its keys in their order), deflated against
    :attr:`record_dictionary`: :attr:`record` reads it."""
    record_dictionary: bytes = Field(exclude=True, repr=False)
    """The text the record was deflated against (one object, shared by every run held with
    it)."""

    @property
    def record(self) -> dict[str, Any]:
        """The run's record, as its line in ``runs.jsonl`` gives it (a new dict each time)."""
        inflate = zlib.decompressobj(-zlib.MAX_WBITS, self.record_dictionary)
        found: dict[str, Any] = json.loads(
            inflate.decompress(self.record_deflated) + inflate.flush()
        )
        return found

    @classmethod
    def held(cls, run: PublishedRun, dictionary: bytes | None = None) -> HeldRun:
        """``run`` as held: its facts and files as they are, its record as JSON text deflated
        against ``dictionary`` (None: its own text, which the runs held after it share)."""
        values = dict(run.__dict__)
        record = values.pop("record")
        data = _record_text(record).encode("utf-8")
        shared = data[-_WINDOW:] if dictionary is None else dictionary
        deflate = zlib.compressobj(
            6, zlib.DEFLATED, -zlib.MAX_WBITS, 8, zlib.Z_DEFAULT_STRATEGY, shared
        )
        packed = deflate.compress(data) + deflate.flush()
        return trusted(cls, **values, record_deflated=packed, record_dictionary=shared)


def held_runs(runs: Iterable[PublishedRun]) -> list[HeldRun]:
    """``runs`` as held (:class:`HeldRun`), every record deflated against the first run's."""
    out: list[HeldRun] = []
    for run in runs:
        out.append(HeldRun.held(run, out[0].record_dictionary if out else None))
    return out


_ENCODE: Final = (
    c_make_encoder(
        None, json.JSONEncoder().default, encode_basestring, None, ":", ",", False, False, True
    )
    if c_make_encoder is not None
    else None
)
"""``json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=True)``'s
encoder, built once rather than for every run held (a record is JSON values only: no cycle
to look for, nothing for a default to convert)."""


def _record_text(record: dict[str, Any]) -> str:
    """A run's record as compact JSON text, its keys in their order."""
    if _ENCODE is None:  # pragma: no cover - CPython has the C encoder
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    return "".join(_ENCODE(record, 0))


_WINDOW: Final = 1 << 15
"""Deflate looks back this many bytes: the most of a dictionary it uses."""


class PublishedJudgeScore(Model):
    """The automated judge's outcome of one run (the sci-bench scorer's), as it was stored."""

    run: str
    """The run's id."""
    scorer: str
    """The scorer and its version."""
    outcome: str
    """passed or failed: the run's automated outcome (its facts carry it too)."""
    dimensions: list[dict[str, Any]]
    """Each dimension's ``{"dimension", "outcome", "reason"}``: pass, fail or unscored."""
    spec_sha256: str
    """SHA-256 of the specification scored against."""
    submission_sha256: str
    """SHA-256 of the submission scored."""
    created_at: str
    """When it was stored (UTC)."""


class PublishedAuditEntry(Model):
    """An entry of the audit log: who did what, when."""

    at: str
    """When (UTC)."""
    actor: str
    """Who."""
    action: str
    """What (unblind, merge ratings...)."""
    detail: dict[str, Any]
    """The action's particulars."""
