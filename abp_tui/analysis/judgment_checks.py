"""What any stored judgment revision must be, wherever it was made: on this database, or on a
reviewer station and merged.

:func:`abp_tui.analysis.scoring.problems` says what a submission still lacks; this module says
what no revision, draft or submitted, may hold: a response the item does not show, a dimension
the rubric does not have (a score or a rationale of it), a score off a dimension's scale; and
what a revision's time must look like. (Answers to validity checks a rubric does not ask are
ignored, as ``problems`` ignores them.) A review session checks a save with it, and a merge
checks every revision of a ratings file with the same functions, so a station can never store
through a merge what it could not store itself. Pure: no database, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from abp_tui.models import Judgment, Rubric

TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z")
"""A revision's time as the store writes it: UTC, ISO 8601, ``Z``, nothing else."""


def malformed(rubric: Rubric, judgment: Judgment, positions: Sequence[str]) -> list[str]:
    """Why ``judgment`` (keyed by the positions shown, ``positions``) cannot be stored under
    ``rubric`` at all, draft or not (empty: it can)."""
    out: list[str] = []
    dimensions = {d.id: d for d in rubric.dimensions}
    for key, response in judgment.responses.items():
        label = f"Response {key}"
        if key not in positions:
            out.append(f"{label}: the item shows responses {', '.join(positions)} only")
        for dim_id, score in response.scores.items():
            dim = dimensions.get(dim_id)
            if dim is None:
                out.append(f"{label}: rubric {rubric.id} has no dimension {dim_id!r}")
            elif isinstance(score, bool) or score not in dim.scale:
                shown = ", ".join(str(s) for s in dim.scale)
                out.append(f"{label}: {dim.name} scored {score!r}, expected one of {shown}")
        for dim_id in response.rationales:
            if dim_id not in dimensions:
                out.append(f"{label}: a rationale for {dim_id!r}, not a dimension of {rubric.id}")
    return out


def timestamp_problem(value: str) -> str | None:
    """Why ``value`` is not a revision time the store would write (None: it is one)."""
    if not TIMESTAMP.fullmatch(value):
        return "expected a UTC time like 2026-01-31T09:30:00.000000Z"
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return "not a real date and time"
    return None
