"""The canonical JSON of a task's or a run's hashed body, built field by field.

A record's content hash is the SHA-256 of ``canonical_json(record.model_dump(mode="json"))``
(a run without its output and source position). Made that way, a pairwise import spent more
on these texts than on all of its SQL: pydantic builds a dict of every field, and the encoder
sorts and encodes it, for records whose fields are mostly empty. Here the fields' names are
sorted once and each value is encoded as that path encodes it, so the text (and the hash) is
the same character for character; ``tests/test_record_json.py`` compares the two on varied
records. A record with a value this module does not know how to encode goes the long way.
"""

from __future__ import annotations

import functools
import math
from json.encoder import encode_basestring
from typing import Any, Final

from pydantic import TypeAdapter

from abp_tui.models import Run, Task
from abp_tui.text.canonical import canonical_json

RUN_NOT_HASHED: Final = frozenset({"output", "source_file", "source_line"})
"""A run's fields left out of its content hash (the output is hashed on its own)."""
_METADATA: Final = TypeAdapter(dict[str, Any])
"""How a model's ``metadata: dict[str, Any]`` field is dumped in JSON mode."""

TASK_FIELDS: Final = (
    "base_instruction",
    "evidence",
    "expected_behaviour",
    "fatal_criteria",
    "id",
    "metadata",
    "prompt",
    "risk_type",
    "synthetic",
    "title",
    "version",
)
RUN_FIELDS: Final = (
    "automated_outcome",
    "condition_id",
    "cost_usd",
    "engine",
    "engine_version",
    "excluded_reason",
    "id",
    "metadata",
    "model",
    "model_version",
    "not_exposed",
    "origin_status",
    "provider",
    "reasoning",
    "started_at",
    "synthetic",
    "task_id",
    "tokens",
    "tool_calls",
    "trial",
    "wall_clock_ms",
)
"""The hashed fields, sorted as canonical JSON sorts them. A model that gains a field no longer
matches (see :data:`TASK_FAST` and :data:`RUN_FAST`) and is hashed the long way until the field
is added here."""
TASK_FAST: Final = tuple(sorted(Task.model_fields)) == TASK_FIELDS
RUN_FAST: Final = (
    tuple(
        sorted(n for n, f in Run.model_fields.items() if not f.exclude and n not in RUN_NOT_HASHED)
    )
    == RUN_FIELDS
)


def _str(value: str | None) -> str:
    return "null" if value is None else encode_basestring(value)


def _int(value: int | None) -> str:
    return "null" if value is None else int.__repr__(value)


def _float(value: float | None) -> str:
    # float.__repr__ is what the encoder writes for a finite float (the others: the long way).
    return "null" if value is None else float.__repr__(value)


@functools.lru_cache(maxsize=1024)
def names_json(names: tuple[str, ...]) -> str:
    """A tuple of names as canonical JSON (most records of a file share theirs)."""
    return canonical_json(list(names))


def metadata_json(metadata: dict[str, Any]) -> tuple[str, str]:
    """(canonical JSON of ``metadata`` as the record's hash sees it, as its column stores it).

    The column keeps the dict as given, the hash its JSON-mode dump; they differ only when
    the dump changes a value (a tuple, a non-finite float, a non-string key...), and equal
    dicts give equal texts."""
    dumped = _METADATA.dump_python(metadata, mode="json")
    hashed = canonical_json(dumped)
    return hashed, hashed if dumped == metadata else canonical_json(metadata)


def task_body(task: Task, metadata: str) -> str:
    """``canonical_json(task.model_dump(mode="json"))``; ``metadata``: that of its metadata."""
    if not TASK_FAST:
        return canonical_json(task.model_dump(mode="json"))
    return (
        f'{{"base_instruction":{encode_basestring(task.base_instruction)},'
        f'"evidence":{encode_basestring(task.evidence)},'
        f'"expected_behaviour":{encode_basestring(task.expected_behaviour)},'
        f'"fatal_criteria":{names_json(task.fatal_criteria)},'
        f'"id":{encode_basestring(task.id)},'
        f'"metadata":{metadata},'
        f'"prompt":{encode_basestring(task.prompt)},'
        f'"risk_type":{encode_basestring(task.risk_type)},'
        f'"synthetic":{"true" if task.synthetic else "false"},'
        f'"title":{encode_basestring(task.title)},'
        f'"version":{encode_basestring(task.version)}}}'
    )


def run_body(run: Run) -> str:
    """``canonical_json(run.model_dump(mode="json", exclude=RUN_NOT_HASHED))``."""
    wall, cost = run.wall_clock_ms, run.cost_usd
    if (
        not RUN_FAST
        or (wall is not None and not math.isfinite(wall))
        or (cost is not None and not math.isfinite(cost))
    ):
        return canonical_json(run.model_dump(mode="json", exclude=set(RUN_NOT_HASHED)))
    tokens = run.tokens
    status = run.origin_status
    return (
        f'{{"automated_outcome":{_str(run.automated_outcome)},'
        f'"condition_id":{encode_basestring(run.condition_id)},'
        f'"cost_usd":{_float(cost)},'
        f'"engine":{_str(run.engine)},'
        f'"engine_version":{_str(run.engine_version)},'
        f'"excluded_reason":{_str(run.excluded_reason)},'
        f'"id":{encode_basestring(run.id)},'
        f'"metadata":{canonical_json(_METADATA.dump_python(run.metadata, mode="json"))},'
        f'"model":{_str(run.model)},'
        f'"model_version":{_str(run.model_version)},'
        f'"not_exposed":{names_json(run.not_exposed)},'
        f'"origin_status":{"null" if status is None else encode_basestring(status.value)},'
        f'"provider":{_str(run.provider)},'
        f'"reasoning":{_str(run.reasoning)},'
        f'"started_at":{_str(run.started_at)},'
        f'"synthetic":{"true" if run.synthetic else "false"},'
        f'"task_id":{encode_basestring(run.task_id)},'
        f'"tokens":{"null" if tokens is None else canonical_json(tokens.model_dump(mode="json"))},'
        f'"tool_calls":{_int(run.tool_calls)},'
        f'"trial":{int.__repr__(run.trial)},'
        f'"wall_clock_ms":{_float(wall)}}}'
    )


__all__ = ["metadata_json", "names_json", "run_body", "task_body"]
