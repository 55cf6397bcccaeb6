"""What any stored judgment revision must be, wherever it was made: on this database, or on a
reviewer station and merged.

:func:`abp_tui.analysis.scoring.problems` says what a submission still lacks; this module says
what no revision, draft or submitted, may hold: a response the item does not show, a dimension
the rubric does not have (a score or a rationale of it), a score off a dimension's scale; and
what a revision's time must look like. (Answers to validity checks a rubric does not ask are
ignored, as ``problems`` ignores them.) :mod:`abp_tui.services.revision_rules` applies it to a
review session's save and to every revision a merge brings in; the merge also checks here that
a station's times are plausible. Pure: no database, no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from abp_tui.models import Judgment, ResponseJudgment, Rubric

TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z")
"""A revision's time as the store writes it: UTC, ISO 8601, ``Z``, nothing else."""
CLOCK_SKEW = timedelta(minutes=10)
"""How far a station's clock may be from the coordinator's: a revision's time may be this much
before its pack was issued or after the merge, and its time spent this much longer than the
time since the pack was issued."""


def malformed(rubric: Rubric, judgment: Judgment, positions: Sequence[str]) -> list[str]:
    """Why ``judgment`` (keyed by the positions shown, ``positions``) cannot be stored under
    ``rubric`` at all, draft or not (empty: it can)."""
    out: list[str] = []
    dimensions = {d.id: d for d in rubric.dimensions}
    for key, response in judgment.responses.items():
        label = f"Response {key}"
        if key not in positions:
            out.append(f"{label}: the item shows responses {', '.join(positions)} only")
        if rubric.preference_only and response != ResponseJudgment():
            out.append(
                f"{label}: this design records a preference only, not a judgment of each response"
            )
            continue
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


def utc_time(value: str) -> datetime:
    """A time in the store's UTC form (checked by :func:`timestamp_problem`) as a datetime."""
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def implausible_time(value: str, issued: datetime, now: datetime) -> str | None:
    """Why ``value`` cannot be when a revision was made on a station, given when its pack was
    issued and the time now (None: it can), allowing :data:`CLOCK_SKEW` either way."""
    bad = timestamp_problem(value)
    if bad is not None:
        return bad
    when = utc_time(value)
    if when < issued - CLOCK_SKEW:
        return f"{value} is before the pack was issued ({issued:%Y-%m-%dT%H:%M:%SZ})"
    if when > now + CLOCK_SKEW:
        return f"{value} is after the time of the merge ({now:%Y-%m-%dT%H:%M:%SZ})"
    return None


def implausible_seconds(value: float, floor: float, made: datetime, issued: datetime) -> str | None:
    """Why ``value`` cannot be the running total of seconds spent on an item at a revision
    made at ``made`` whose previous total was ``floor`` (None: it can): it is finite, does not
    go down, and is no longer than the time since the pack was issued (plus
    :data:`CLOCK_SKEW`)."""
    ceiling = max(0.0, (made - issued).total_seconds()) + CLOCK_SKEW.total_seconds()
    if math.isfinite(value) and floor <= value <= max(ceiling, floor):
        return None
    skew = CLOCK_SKEW.total_seconds() / 60
    return (
        f"expected the running total, from {floor:g} up to {ceiling:.0f} seconds (the time "
        f"since the pack was issued, and {skew:g} minutes for the station's clock)"
    )
