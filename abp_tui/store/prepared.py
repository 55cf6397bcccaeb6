"""Records made into the plain values their rows hold, from the record alone.

:meth:`abp_tui.store.writer.ImportWriter.prepare` is this module: what needs no store (hashes,
canonical JSON, column values) is done here, while the file is read; what needs the store
(versions, keys) is done by the writer's ``apply``. The common records become tuples of strings,
numbers and None, which a staged import spools far faster than pydantic models (a run's model
pickled and read back cost more than all of its SQL); the rare ones stay as they are.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from abp_tui.models import (
    Condition,
    Preference,
    ReferenceVerdict,
    Reviewer,
    Rubric,
    Run,
    Study,
    Task,
)
from abp_tui.models.judges import Judge, JudgeVerdict
from abp_tui.store.record_json import metadata_json, names_json, run_body, task_body
from abp_tui.text.canonical import canonical_json, sha256_bytes, sha256_text

TraceRef = tuple[int, str, int]
"""A run's finished trace: (key, SHA-256, events)."""
RECORD_SIZE: Final = 256
"""A prepared record's size beyond its texts (the tuple, ids, hashes), roughly."""


TASK_COLUMNS: Final = (
    "title",
    "prompt",
    "base_instruction",
    "evidence",
    "expected_behaviour",
    "fatal_criteria",
    "risk_type",
    "version",
    "synthetic",
    "metadata",
)
CONDITION_COLUMNS: Final = ("label", "instructions", "version", "metadata")
RUN_COLUMNS: Final = (
    # Known only when the run is applied: the keys of what it refers to.
    "task_pk",
    "condition_pk",
    "output_sha256",
    "trace_pk",
    "import_pk",
    # Known from the record alone.
    "trial",
    "provider",
    "model",
    "model_version",
    "engine",
    "engine_version",
    "reasoning",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
    "tool_calls",
    "wall_clock_ms",
    "cost_usd",
    "started_at",
    "origin_status",
    "automated_outcome",
    "excluded_reason",
    "source_file",
    "source_line",
    "synthetic",
    "not_exposed",
    "document",
)
BLOB_SQL: Final = "INSERT OR IGNORE INTO blobs (sha256, text) VALUES (?, ?)"
PREFERENCE_SQL: Final = (
    "INSERT INTO preferences (study_id, reviewer, item_id, task_pk, run_1_pk, run_2_pk, choice, "
    "justification, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'imported', ?)"
)


@functools.cache
def insert_sql(table: str, names: tuple[str, ...]) -> str:
    """The INSERT of one versioned row (built once per table and column set)."""
    all_names = [
        "pk",
        *names,
        "study_id",
        "id",
        "version_no",
        "current",
        "placeholder",
        "sha256",
        "created_at",
    ]
    marks = ", ".join("?" for _ in all_names)
    return f"INSERT INTO {table} ({', '.join(all_names)}) VALUES ({marks})"


def json_hex(sha: str | None) -> str:
    """A hex digest (or None) as canonical JSON: ``"ab12..."`` or ``null``."""
    return "null" if sha is None else f'"{sha}"'


def prepare(record: object, trace: TraceRef | None, file_name: str) -> object | None:
    """A record as the writer applies it: a tuple tagged with its kind for tasks, conditions,
    runs, reviewers and preferences, the record itself for the rest; None for anything a store
    does not hold. ``trace``: a run's trace; ``file_name``: the runs' default source."""
    if isinstance(record, Run):
        return prepare_run(record, trace, file_name)
    if isinstance(record, Preference):
        return prepare_preference(record)
    if isinstance(record, Task):
        return ("task", *prepare_task(record))
    if isinstance(record, Condition):
        return ("condition", *prepare_condition(record))
    if isinstance(record, Reviewer):
        return ("reviewer", record.name, record.external)
    if isinstance(record, Study | Rubric | ReferenceVerdict | Judge | JudgeVerdict):
        return record
    return None


def prepare_preference(pref: Preference) -> tuple[Any, ...]:
    return (
        "preference",
        pref.reviewer,
        pref.item_id,
        pref.task_id,
        pref.run_1,
        pref.run_2,
        pref.choice.value,
        pref.justification,
    )


def prepare_run(run: Run, trace: TraceRef | None, file_name: str) -> tuple[Any, ...]:
    """The run's output and its hash, its body's canonical JSON (hashed when its task and
    condition are known), its trace and the values of its columns from ``trial`` on."""
    output_sha = sha256_text(run.output) if run.output is not None else None
    tokens = run.tokens
    return (
        "run",
        run.id,
        run.task_id,
        run.condition_id,
        output_sha,
        run.output,
        run_body(run),
        trace,
        (
            run.trial,
            run.provider,
            run.model,
            run.model_version,
            run.engine,
            run.engine_version,
            run.reasoning,
            tokens.input if tokens else None,
            tokens.output if tokens else None,
            tokens.cache_read if tokens else None,
            tokens.cache_write if tokens else None,
            tokens.total if tokens else None,
            run.tool_calls,
            run.wall_clock_ms,
            run.cost_usd,
            run.started_at,
            run.origin_status.value if run.origin_status else None,
            run.automated_outcome,
            run.excluded_reason,
            run.source_file or file_name,
            run.source_line,
            int(run.synthetic),
            names_json(run.not_exposed),
            run.model_dump_json(exclude={"output"}),
        ),
        diff_blob(run.diff),
    )


def diff_blob(diff: bytes | None) -> tuple[str, str | bytes] | None:
    """A run's diff as its blob row: (SHA-256 of its bytes, its text), the bytes themselves when
    they are not UTF-8 (a receipt is kept byte for byte)."""
    if diff is None:
        return None
    try:
        return sha256_bytes(diff), diff.decode("utf-8")
    except UnicodeDecodeError:
        return sha256_bytes(diff), diff


def prepare_task(task: Task) -> tuple[str, str, tuple[Any, ...]]:
    """(id, SHA-256 of its canonical JSON, its columns' values)."""
    hashed, stored = metadata_json(task.metadata)
    return (
        task.id,
        sha256_text(task_body(task, hashed)),
        (
            task.title,
            task.prompt,
            task.base_instruction,
            task.evidence,
            task.expected_behaviour,
            names_json(task.fatal_criteria),
            task.risk_type,
            task.version,
            int(task.synthetic),
            stored,
        ),
    )


def prepare_condition(cond: Condition) -> tuple[str, str, tuple[Any, ...]]:
    return (
        cond.id,
        sha256_text(canonical_json(cond.model_dump(mode="json"))),
        (cond.label, cond.instructions, cond.version, canonical_json(cond.metadata)),
    )


def held_size(prepared: object) -> int:
    """Roughly the memory a prepared record holds: its long texts, and a little more."""
    if isinstance(prepared, tuple):
        if prepared[0] == "run":  # its output, its JSON document and its diff
            diff = prepared[9][1] if prepared[9] else ""
            return RECORD_SIZE + len(prepared[5] or "") + len(prepared[8][-1]) + len(diff)
        if prepared[0] == "task":  # its prompt, evidence and metadata
            values = prepared[3]
            return RECORD_SIZE + len(values[1]) + len(values[3]) + len(values[9])
    return RECORD_SIZE
