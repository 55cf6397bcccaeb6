"""The records a publication bundle carries, as pydantic models, and where each file lives.

A bundle has two layers. The *source* files are what the database holds: the protocol (study,
design, rubric, tasks, conditions), the runs with their raw outputs and traces, and every
judgment, adjudication, finding and audit entry. The *derived* files (verdicts, summary tables,
agreement, plots, the report, the gate status) are a pure function of the source files, so
``verify`` can recompute them from the bundle alone. Runs and judgments are keyed by run id, never
by database keys.
"""

from __future__ import annotations

from typing import Any, Final

from abp_tui.models import Finding, Judgment, Model, ResultState, Task

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
ITEMS = "judging/items.jsonl"
JUDGMENTS = "judging/judgments.jsonl"
ADJUDICATIONS = "judging/adjudications.jsonl"
FINDINGS = "judging/findings.jsonl"
AUDIT = "audit/audit_log.jsonl"
SOURCE_FILES: Final = (
    STUDY,
    DESIGN,
    RUBRIC,
    TASKS,
    CONDITIONS,
    RUNS,
    ITEMS,
    JUDGMENTS,
    ADJUDICATIONS,
    FINDINGS,
    AUDIT,
)
"""The source files every bundle has (besides one file per raw output and per trace)."""

MANIFEST = "manifest.json"


class PublishedStudy(Model):
    id: str
    name: str
    protocol: str
    description: str
    rubric_id: str | None
    limitations: tuple[str, ...]
    """Limitations the study's authors declared."""
    synthetic: bool


class PublishedDesign(Model):
    study: str
    name: str
    version: int
    sha256: str
    """The design hash recorded when it was stored (design, rubric and the planned items)."""
    seed: int
    created_at: str
    frozen_at: str | None
    document: dict[str, Any]
    """The design as stored, with the identity terms that were masked for reviewers."""


class PublishedTask(Task):
    placeholder: bool = False
    """True when no task record was imported: the run named a task id and nothing more."""


class OutputRef(Model):
    path: str
    sha256: str
    """SHA-256 of the output's UTF-8 bytes."""
    chars: int


class TraceRef(Model):
    path: str
    events: int


class PublishedRun(Model):
    id: str
    task: str
    condition: str
    trial: int
    origin_status: ResultState | None
    """A result state the source itself assigned."""
    automated_outcome: str | None
    excluded_reason: str | None
    total_tokens: int | None
    wall_clock_ms: float | None
    cost_usd: float | None
    diff_bytes: float | None
    output: OutputRef | None
    """The raw output's file, or None when the record carried no output."""
    trace: TraceRef | None
    record: dict[str, Any]
    """Everything else the run record holds (provider, model, tokens, metadata...)."""


class PublishedItem(Model):
    code: str
    index: int
    """Position in the design's plan (the order items were planned in)."""
    kind: str
    """pair or single."""
    task: str
    trial: int
    runs: tuple[str, ...]
    """Run ids: (a, b) for a pair, (a,) for a single item."""
    conditions: tuple[str, ...]
    """The condition of each run, in the same order."""
    base_flip: bool


class PublishedJudgment(Model):
    item: str
    reviewer: str
    revision: int
    status: str
    """draft or submitted."""
    created_at: str
    reason: str
    """Why a submitted judgment was changed (revisions after the first submission)."""
    seconds_spent: float
    placement: dict[str, str]
    """Position shown ("1", "2") -> run id."""
    judgment: Judgment
    """Responses keyed by run id."""


class PublishedAdjudication(Model):
    item: str
    adjudicator: str
    revision: int
    created_at: str
    note: str
    show_names: bool
    placement: dict[str, str]
    judgment: Judgment


class PublishedFinding(Model):
    id: str
    revision: int
    reviewer: str
    created_at: str
    finding: Finding
    runs: tuple[str, ...]


class PublishedAuditEntry(Model):
    at: str
    actor: str
    action: str
    detail: dict[str, Any]
