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


def _flat_json(metadata: dict[str, Any]) -> str | None:
    """The canonical JSON of a dict of text keys and text, integer, boolean or null values (the
    usual metadata, which its JSON-mode dump leaves as it is); None for any other dict."""
    parts = []
    for key in sorted(metadata):
        if type(key) is not str:
            return None
        value = metadata[key]
        kind = type(value)
        if kind is str:
            parts.append(f"{encode_basestring(key)}:{encode_basestring(value)}")
        elif kind is int:
            parts.append(f"{encode_basestring(key)}:{int.__repr__(value)}")
        elif value is None:
            parts.append(f"{encode_basestring(key)}:null")
        elif kind is bool:
            parts.append(f"{encode_basestring(key)}:{'true' if value else 'false'}")
        else:
            return None
    return "{" + ",".join(parts) + "}"


@functools.lru_cache(maxsize=1024)
def names_json(names: tuple[str, ...]) -> str:
    """A tuple of names as canonical JSON (most records of a file share theirs)."""
    return canonical_json(list(names))


def metadata_json(metadata: dict[str, Any]) -> tuple[str, str]:
    """(canonical JSON of ``metadata`` as the record's hash sees it, as its column stores it).

    The column keeps the dict as given, the hash its JSON-mode dump; they differ only when
    the dump changes a value (a tuple, a non-finite float, a non-string key...), and equal
    dicts give equal texts."""
    flat = _flat_json(metadata)
    if flat is not None:
        return flat, flat
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
    metadata = _flat_json(run.metadata)
    if metadata is None:
        metadata = canonical_json(_METADATA.dump_python(run.metadata, mode="json"))
    s = encode_basestring
    # Each value as the encoder writes it (float.__repr__ for a finite float), inline: most are
    # None, and a call per field cost as much as the rest.
    return (
        f'{{"automated_outcome":{"null" if (v := run.automated_outcome) is None else s(v)},'
        f'"condition_id":{s(run.condition_id)},'
        f'"cost_usd":{"null" if cost is None else float.__repr__(cost)},'
        f'"engine":{"null" if (v := run.engine) is None else s(v)},'
        f'"engine_version":{"null" if (v := run.engine_version) is None else s(v)},'
        f'"excluded_reason":{"null" if (v := run.excluded_reason) is None else s(v)},'
        f'"id":{s(run.id)},'
        f'"metadata":{metadata},'
        f'"model":{"null" if (v := run.model) is None else s(v)},'
        f'"model_version":{"null" if (v := run.model_version) is None else s(v)},'
        f'"not_exposed":{names_json(run.not_exposed)},'
        f'"origin_status":{"null" if status is None else s(status.value)},'
        f'"provider":{"null" if (v := run.provider) is None else s(v)},'
        f'"reasoning":{"null" if (v := run.reasoning) is None else s(v)},'
        f'"started_at":{"null" if (v := run.started_at) is None else s(v)},'
        f'"synthetic":{"true" if run.synthetic else "false"},'
        f'"task_id":{s(run.task_id)},'
        f'"tokens":{"null" if tokens is None else canonical_json(tokens.model_dump(mode="json"))},'
        f'"tool_calls":{"null" if (n := run.tool_calls) is None else int.__repr__(n)},'
        f'"trial":{int.__repr__(run.trial)},'
        f'"wall_clock_ms":{"null" if wall is None else float.__repr__(wall)}}}'
    )


__all__ = ["metadata_json", "names_json", "run_body", "task_body"]
