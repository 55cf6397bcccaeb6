"""What a design's hash commits to besides its document, rubric and plan: the exact records it
planned and the time it was stored.

A design stored since this commitment existed carries, in its document (and so in its hash),
``commitment``: its version, the time the design was stored (``created_at``), the content hash
of each task and condition its items use, as a bundle publishes them (a condition with the
instructions the design gives it), and one hash over every planned run's facts, record and
output. The hash of a record is the SHA-256 of its canonical JSON, so ``verify`` recomputes it
from a bundle's ``protocol/tasks.json``, ``protocol/conditions.json`` and ``runs/runs.jsonl``:
a task prompt, a condition label, a run's model or output edited after the design was stored no
longer agrees with the hash that was published before the results. A design stored before has no
``commitment`` (its hash is kept as it was), and ``verify`` says its records are not bound by
the hash.

Why the design hash and not the audit log: the design hash is what a pre-registration
publishes, every pack carries and the results state, so it exists outside the bundle before the
results do; an audit entry is only another record of the bundle, which a forger rewrites with
the rest. The time a design is frozen comes after its hash is made and cannot be in it; it is
checked against the judgments it precedes (:func:`abp_tui.export.claims.check_times`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from abp_tui.text.canonical import canonical_json, sha256_text

COMMITMENT_KEY: Final = "commitment"
"""The key of a design document that holds its commitment (absent from older designs)."""
COMMITMENT_VERSION: Final = 2
"""The design-hash format that binds planned records and times (1: documents without it)."""
_LOCATION_FIELDS: Final = ("output", "trace", "diff")
"""Where a bundle keeps a run's files: not the run's content (its output's hash is)."""


def record_sha256(record: Mapping[str, Any]) -> str:
    """The content hash of a published record: SHA-256 of its canonical JSON."""
    return sha256_text(canonical_json(record))


def run_record(line: Mapping[str, Any], output_sha256: str | None) -> dict[str, Any]:
    """What a planned run commits to: its published line (facts and record) without where a
    bundle keeps its files, with the SHA-256 of its output's UTF-8 bytes."""
    found = {k: v for k, v in line.items() if k not in _LOCATION_FIELDS}
    found["output_sha256"] = output_sha256
    return found


def runs_sha256(runs: Iterable[tuple[str, Mapping[str, Any]]]) -> str:
    """One hash over the planned runs: each ``(id, run_record)``, in id order."""
    return hashed_runs_sha256((run_id, record_sha256(r)) for run_id, r in runs)


def hashed_runs_sha256(hashes: Iterable[tuple[str, str]]) -> str:
    """:func:`runs_sha256` from each run's ``(id, record_sha256(run_record))``: a large plan's
    records are hashed as they are read and never held together."""
    return sha256_text(canonical_json(sorted([run_id, sha] for run_id, sha in hashes)))


def commitment(
    created_at: str,
    tasks: Iterable[Mapping[str, Any]],
    conditions: Iterable[Mapping[str, Any]],
    runs: Iterable[tuple[str, Mapping[str, Any]]],
) -> dict[str, Any]:
    """The ``commitment`` of a design stored at ``created_at`` whose items use these tasks and
    conditions (as published, each with its ``id``) and these runs (``(id, run_record)``)."""
    return hashed_commitment(
        created_at,
        {str(t["id"]): record_sha256(t) for t in tasks},
        {str(c["id"]): record_sha256(c) for c in conditions},
        runs_sha256(runs),
    )


def hashed_commitment(
    created_at: str, tasks: dict[str, str], conditions: dict[str, str], runs: str
) -> dict[str, Any]:
    """:func:`commitment` from the hashes of its tasks and conditions (by id, in the order
    given) and :func:`hashed_runs_sha256` of its runs."""
    return {
        "version": COMMITMENT_VERSION,
        "created_at": created_at,
        "tasks": tasks,
        "conditions": conditions,
        "runs_sha256": runs,
    }
