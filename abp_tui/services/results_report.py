"""Results of a study design, by condition, only after an explicit unblinding.

Every run gets one outcome: a human final verdict when there is one (adjudicated, unanimous,
single review, unresolved); otherwise an automated verification outcome (ABP or Arena: passed,
failed, timeout; an engine error is INFRA_ERROR, excluded, not a loss); otherwise the state its
record carries (PROVIDER_BLOCK, INFRA_ERROR); otherwise it is unjudged. A human verdict supersedes
an automated one and both are kept. Counts of all six states are always reported; pass rates use
MODEL_PASS / (MODEL_PASS + MODEL_FAIL) with a Wilson interval; there is no blended score.

The rules are :mod:`abp_tui.analysis`'s, which a publication bundle's ``verify`` applies to the
bundle's own records too; this module reads a design's records from the database, refuses a blind
study and records the unblinding.
"""

from __future__ import annotations

import sqlite_utils

from abp_tui.analysis.results import (
    EFFICIENCY_METRICS,
    RESULTS_NOTES,
    Comparison,
    Efficiency,
    GroupResult,
    ResultsReport,
    Tally,
    counts_for_efficiency,
    group_result,
    results,
)
from abp_tui.analysis.verdicts import AUTOMATED_STATES
from abp_tui.errors import AbpError
from abp_tui.models import OutcomeSource, RunOutcome
from abp_tui.store import judging as sql
from abp_tui.store import packs as psql
from abp_tui.store.queries import study_protocol, unblinded

__all__ = [
    "AUTOMATED_STATES",
    "EFFICIENCY_METRICS",
    "Comparison",
    "Efficiency",
    "GroupResult",
    "OutcomeSource",
    "ResultsReport",
    "RunOutcome",
    "StudyIsBlind",
    "Tally",
    "compute_results",
    "counts_for_efficiency",
    "group_result",
    "unblind",
]


class StudyIsBlind(AbpError):
    """Results by condition were asked for before the study was unblinded."""


def unblind(db: sqlite_utils.Database, study_id: str, actor: str) -> tuple[str, str]:
    """Unblind a study (recorded in the audit log with who and when); idempotent."""
    protocol = study_protocol(db, study_id)
    if protocol is None:
        raise AbpError(f"no study {study_id!r} in the database")
    if protocol == "pack":
        raise AbpError("this is a reviewer station: results are never unblinded here")
    done = unblinded(db, study_id)
    if done is not None:
        return done
    psql.audit(db, actor, "unblind", {"study": study_id})
    found = unblinded(db, study_id)
    assert found is not None
    return found


def compute_results(db: sqlite_utils.Database, design_pk: int) -> ResultsReport:
    """The results of a design. Raises StudyIsBlind before the study is unblinded."""
    row = sql.design(db, design_pk)
    who = unblinded(db, row.study_id)
    if who is None:
        raise StudyIsBlind(
            f"study {row.study_id!r} is still blind: results by condition appear only after "
            f"`abp-tui unblind --study {row.study_id} --yes` (recorded in the audit log)"
        )
    records = sql.records_of_design(db, design_pk)
    found = results(records)
    return ResultsReport(
        study=row.study_id,
        design=row.name,
        design_version=row.version_no,
        design_sha256=row.sha256,
        rubric=records.rubric.id,
        unblinded_by=who[0],
        unblinded_at=who[1],
        conditions=found.conditions,
        by_task=found.by_task,
        comparisons=found.comparisons,
        position_bias=found.position_bias,
        outcomes=found.outcomes,
        notes=list(RESULTS_NOTES),
    )
