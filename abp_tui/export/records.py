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

import hashlib
import json
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from json.scanner import c_make_scanner  # type: ignore[attr-defined]
from typing import Any, Final

from pydantic import Field

from abp_tui.analysis.commitment import run_record
from abp_tui.models import Model, RunFacts, Task
from abp_tui.models.base import same, trusted
from abp_tui.text.canonical import canonical_json

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


@dataclass(frozen=True, slots=True)
class HeldTask:
    """A published task as a bundle's analysis holds it: what the rules and the gate read of
    it, and its record as its compact JSON text deflated against the first task's (a study's
    tasks share most of their words), which :attr:`published` reads back for the report: a
    large study has a task a pair, each a kilobyte of text and twice that of objects."""

    id: str
    fatal_criteria: tuple[str, ...]
    risk_type: str
    placeholder: bool
    prompt_blank: bool
    """Whether its prompt is empty or only white space."""
    deflated: bytes = field(repr=False)
    dictionary: bytes = field(repr=False)

    @property
    def published(self) -> PublishedTask:
        """The task, as ``protocol/tasks.json`` publishes it (made again each time)."""
        return PublishedTask.model_validate_json(_inflated(self.deflated, self.dictionary))

    @classmethod
    def held(
        cls,
        task: PublishedTask,
        record: dict[str, Any],
        dictionary: bytes | None = None,
        share: Callable[[str], str] = same,
    ) -> HeldTask:
        """``task`` as held, ``record`` (its object in the file) deflated against
        ``dictionary`` (None: its own text, which the tasks held after it share)."""
        data = _record_text(record).encode("utf-8")
        shared = data[-_WINDOW:] if dictionary is None else dictionary
        return cls(
            id=share(task.id),
            fatal_criteria=task.fatal_criteria,
            risk_type=share(task.risk_type),
            placeholder=task.placeholder,
            prompt_blank=not task.prompt.strip(),
            deflated=_deflated(data, shared),
            dictionary=shared,
        )


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
    """A published run as a bundle's analysis holds it: a :class:`PublishedRun` whose record,
    and where the bundle keeps its output, trace and diff, are kept as their compact JSON text,
    deflated against the first run's (a study's records differ in a few values: 600 bytes of
    text deflate to 40, where the record's objects cost 2 kB, and a run's file references 150
    to 70, where their objects cost 800 bytes; a large study holds hundreds of thousands of
    runs), and read again whenever asked for."""

    record_deflated: bytes = Field(exclude=True, repr=False)
    """The record's JSON text (UTF-8, its keys in their order), deflated against
    :attr:`record_dictionary`: :attr:`record` reads it."""
    record_dictionary: bytes = Field(exclude=True, repr=False)
    """The text the record was deflated against (one object, shared by every run held with
    it)."""
    files_deflated: bytes = Field(exclude=True, repr=False)
    """The JSON text of the run's ``output``, ``trace`` and (when it has one) ``diff``,
    deflated against :attr:`files_dictionary`: :attr:`output`, :attr:`trace` and :attr:`diff`
    read it."""
    files_dictionary: bytes = Field(exclude=True, repr=False)
    """The text the file references were deflated against (shared, as the record's)."""

    @property
    def record(self) -> dict[str, Any]:
        """The run's record, as its line in ``runs.jsonl`` gives it (a new dict each time)."""
        found: dict[str, Any] = _parsed(_inflated(self.record_deflated, self.record_dictionary))
        return found

    @property
    def output(self) -> OutputRef | None:
        """The raw output's file, or None when the record carried no output."""
        found = self._files().get("output")
        return None if found is None else trusted(OutputRef, **found)

    @property
    def has_output(self) -> bool:
        """Whether the record carried an output (:attr:`output` without its model or its
        references parsed: their text, made by :meth:`held`, names the output first)."""
        return not _inflated(self.files_deflated, self.files_dictionary).startswith(_NO_OUTPUT)

    @property
    def trace(self) -> TraceRef | None:
        """The trace's file, or None when the run has no trace events."""
        found = self._files().get("trace")
        return None if found is None else trusted(TraceRef, **found)

    @property
    def diff(self) -> DiffRef | None:
        """The diff's file, or None when the run has no stored diff."""
        found = self._files().get("diff")
        return None if found is None else trusted(DiffRef, **found)

    def references(self) -> tuple[OutputRef | None, TraceRef | None, DiffRef | None]:
        """:attr:`output`, :attr:`trace` and :attr:`diff` read at once (their text is inflated
        and parsed once, not once each)."""
        found = self._files()
        output, trace, diff = (found.get(name) for name in ("output", "trace", "diff"))
        return (
            None if output is None else trusted(OutputRef, **output),
            None if trace is None else trusted(TraceRef, **trace),
            None if diff is None else trusted(DiffRef, **diff),
        )

    def paths(self) -> tuple[str | None, str | None]:
        """The paths of :attr:`output` and :attr:`trace` (None: none), without their models."""
        found = self._files()
        output, trace = found.get("output"), found.get("trace")
        return (
            None if output is None else output["path"],
            None if trace is None else trace["path"],
        )

    def located(self) -> dict[str, dict[str, Any] | None]:
        """Where the bundle keeps the run's output, trace and diff (a key only for a diff it
        has), each as its reference's fields (``path``, ``sha256``...) or None, without their
        models: what a check of the paths and hashes reads (a new dict each time)."""
        return self._files()

    def _files(self) -> dict[str, Any]:
        found: dict[str, Any] = _parsed(_inflated(self.files_deflated, self.files_dictionary))
        return found

    @classmethod
    def held(cls, run: PublishedRun, dictionaries: tuple[bytes, bytes] | None = None) -> HeldRun:
        """``run`` as held: its facts as they are, its record and its files' references as
        JSON text deflated against ``dictionaries`` (the record's and the references'; None:
        their own texts, which the runs held after it share)."""
        values = dict(run.__dict__)
        record = _record_text(values.pop("record")).encode("utf-8")
        refs: dict[str, Any] = {}
        for name in ("output", "trace", "diff"):
            ref = values.pop(name)
            if ref is not None or name != "diff":  # a run without a diff has no such key
                refs[name] = None if ref is None else ref.__dict__
        located = _record_text(refs).encode("utf-8")
        if dictionaries is None:
            dictionaries = (record[-_WINDOW:], located[-_WINDOW:])
        return trusted(
            cls,
            **values,
            record_deflated=_deflated(record, dictionaries[0]),
            record_dictionary=dictionaries[0],
            files_deflated=_deflated(located, dictionaries[1]),
            files_dictionary=dictionaries[1],
        )


def held_runs(runs: Iterable[PublishedRun], share: Callable[[str], str] = same) -> list[HeldRun]:
    """``runs`` as held (:class:`HeldRun`), every record and every run's file references
    deflated against the first run's, each run's id, task and condition the string ``share``
    gives for it (:func:`abp_tui.models.base.sharing`: one string for every record naming
    it)."""
    holder = RunHolder(share)
    return [holder.careful(run) for run in runs]


class RunHolder:
    """Holds runs as :func:`held_runs` holds them, one at a time (:meth:`careful`): every
    record and file references deflated against the first run's; with ``hashed``, each run's
    commitment hash made as it is held (:attr:`digests`)."""

    def __init__(self, share: Callable[[str], str] = same, hashed: bool = False) -> None:
        self._share = share
        self._dictionaries: tuple[bytes, bytes] | None = None
        self.digests: bytearray | None = bytearray() if hashed else None
        """With ``hashed``: each run's commitment hash (the SHA-256 of its
        :func:`abp_tui.analysis.commitment.run_record`), 32 bytes a run, in the order held:
        what ``verify`` checks the design's commitment against, made while the line is read
        rather than from the run held (its record inflated and parsed again); else None."""

    def careful(self, run: PublishedRun) -> HeldRun:
        """``run`` (validated) as held."""
        if self.digests is not None:
            facts = run.model_dump(mode="json", include=_RUN_FACTS)
            output = run.output
            self._hash(facts, run.record, None if output is None else output.sha256)
        return self._shared(HeldRun.held(run, self._dictionaries))

    def _hash(self, facts: dict[str, Any], record: Any, output_sha256: str | None) -> None:
        assert self.digests is not None
        made = run_record({**facts, "record": record}, output_sha256)
        self.digests += hashlib.sha256(canonical_json(made).encode("utf-8")).digest()

    def _shared(self, held: HeldRun) -> HeldRun:
        if self._dictionaries is None:
            self._dictionaries = (held.record_dictionary, held.files_dictionary)
        values = held.__dict__  # a frozen record's fields, read by nobody yet
        for name in ("id", "task", "condition"):
            values[name] = self._share(values[name])
        return held


_RUN_FACTS: Final[set[str]] = set(RunFacts.model_fields)


def _deflated(data: bytes, dictionary: bytes) -> bytes:
    deflate = zlib.compressobj(
        6, zlib.DEFLATED, -zlib.MAX_WBITS, 8, zlib.Z_DEFAULT_STRATEGY, dictionary
    )
    return deflate.compress(data) + deflate.flush()


def _inflated(data: bytes, dictionary: bytes) -> bytes:
    inflate = zlib.decompressobj(-zlib.MAX_WBITS, dictionary)
    return inflate.decompress(data) + inflate.flush()


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


_SCAN: Final = c_make_scanner(json.JSONDecoder()) if c_make_scanner is not None else None
"""``json.loads``'s scanner, called directly: the text parsed here is this module's own (one
compact JSON value, UTF-8), read again each time a run's record or file references are asked
for (several times a run, for hundreds of thousands of runs), and ``json.loads``' steps before
its scanner took twice as long as the scanner on such short texts."""


def _parsed(text: bytes) -> Any:
    """The value of JSON text this module made, as ``json.loads`` gives it."""
    if _SCAN is None:  # pragma: no cover - CPython has the C scanner
        return json.loads(text)
    found, _end = _SCAN(text.decode("utf-8", "surrogatepass"), 0)
    return found


def _record_text(record: dict[str, Any]) -> str:
    """A run's record as compact JSON text, its keys in their order."""
    if _ENCODE is None:  # pragma: no cover - CPython has the C encoder
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    return "".join(_ENCODE(record, 0))


_NO_OUTPUT: Final = b'{"output":null'
"""How the text of the file references of a run without an output begins."""

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
