"""What a reviewer may decide about a run's state, checked when a judgment is saved.

Seed 000: a run whose record says INFRA_ERROR or PROVIDER_BLOCK keeps that state unless the
reviewer reclassifies it explicitly with a reason; scores alone never change it, so a
submission must either confirm the record's state or reclassify it. Seed 004: on a rubric where
abstaining is a scored answer (sci-bench), a refusal, an abstention, an invalid structured
response or tool misuse is scored: only a declared pre-response failure (the record's own
state) may be excluded, so no other state is set by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from abp_tui.analysis.reruns import RECORD_FAILURES, is_record_failure
from abp_tui.errors import AbpError
from abp_tui.models import Judgment, Rubric
from abp_tui.store import judging as sql

if TYPE_CHECKING:
    import sqlite_utils

SCORED_NOT_EXCLUDED = (
    "a refusal, an abstention, an invalid structured response or tool misuse is scored, not "
    "excluded: only a declared pre-response provider, harness, resource or capture failure "
    "(the state the run's record gives) may be excluded"
)


def _label(position: int, pair: bool) -> str:
    return f"Response {position}" if pair else "Response"


def refused_override(
    db: sqlite_utils.Database, rubric: Rubric, code: str, order: Sequence[int], judgment: Judgment
) -> None:
    """Refuse (AbpError) what no revision may hold: a PROVIDER_BLOCK or INFRA_ERROR that is not
    the record's own state confirmed; on a rubric that scores abstention, a state set by hand
    other than the record's own; a reclassification of a run whose record gives no failure.
    ``judgment`` is keyed by run pk (as text), ``order`` as shown."""
    pair = len(order) == 2
    for position, pk in enumerate(order, start=1):
        response = judgment.responses.get(str(pk))
        if response is None:
            continue
        record = sql.run_content(db, pk).origin_status
        label = _label(position, pair)
        if response.reclassified and not is_record_failure(record):
            raise AbpError(
                f"{code}: {label}: its record gives no INFRA_ERROR or PROVIDER_BLOCK to reclassify"
            )
        override = response.state_override
        if override is not None and override in RECORD_FAILURES and override.value != record:
            gives = f"it gives {record}" if is_record_failure(record) else "it gives no failure"
            raise AbpError(
                f"{code}: {label}: its record gives no {override.value} to confirm ({gives}); "
                "only the record's own failure state is confirmed"
            )
        if rubric.allows_abstention and override is not None and override.value != record:
            raise AbpError(
                f"{code}: {label}: {override.value} cannot be set by hand on rubric "
                f"{rubric.id}: {SCORED_NOT_EXCLUDED}"
            )
        if rubric.allows_abstention and response.reclassified:
            raise AbpError(
                f"{code}: {label}: on rubric {rubric.id} the record's declared pre-response "
                "failure stands; there is no output to score"
            )


def record_state_problems(
    db: sqlite_utils.Database, order: Sequence[int], judgment: Judgment
) -> list[str]:
    """What a submission still lacks about record failures: each run whose record says
    INFRA_ERROR / PROVIDER_BLOCK is confirmed or reclassified, either with a reason."""
    pair = len(order) == 2
    out = []
    for position, pk in enumerate(order, start=1):
        record = sql.run_content(db, pk).origin_status
        if not is_record_failure(record):
            continue
        response = judgment.responses.get(str(pk))
        label = _label(position, pair)
        decided = response is not None and (
            response.reclassified or response.state_override is not None
        )
        if not decided:  # a missing reason is the rubric's own check (scoring.problems)
            out.append(
                f"{label}: the record marks this run {record}: confirm it, "
                "or reclassify it with a reason (scores alone never change it)"
            )
    return out
