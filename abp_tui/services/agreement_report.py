"""Agreement of a study's reviewers: from stored judgments to the agreement statistics.

Agreement is measured on each reviewer's FIRST submitted judgment of an item. After submitting, a
reviewer may see the others' judgments and revise their own; a revision made then is no longer an
independent judgment, and measuring agreement on it would count reviewers who adopted each
other's view as agreeing. Verdicts, results and disagreements use the latest submitted judgment
(a reviewer may correct a mistake); agreement does not. A publication bundle measures it the same
way, with the same function (:func:`abp_tui.analysis.agreement_input.agreement_input`).

Variables: each rubric dimension (ordinal on its declared scale), the total (interval, 0 to the
rubric's maximum), the result state (nominal, the six states), whether any fatal criterion was hit
and each fatal criterion as a flag (nominal 0/1) and the preference (nominal). Dimension, total,
state and fatal flags are judged per run within an item (unit: item code and the run's side in
the item); the preference per item, recorded as the side preferred in the item's own
orientation, never as the position shown (each reviewer saw their own placement). Human labels
imported with a study (PandaLM's three annotators) go through the same statistics as
preferences of their named external reviewers. Judgments made elsewhere, in a CSV table, are
:mod:`abp_tui.services.table_agreement`'s.
"""

from __future__ import annotations

import sqlite_utils

from abp_tui.analysis.agreement_input import agreement_input
from abp_tui.errors import AbpError
from abp_tui.models import PreferenceChoice
from abp_tui.services.table_agreement import check_settings
from abp_tui.stats.agreement import (
    CONFIDENCE,
    DEFAULT_PAIR_RESAMPLES,
    DEFAULT_RESAMPLES,
    AgreementReport,
    Category,
    Observation,
    compute_all,
)
from abp_tui.store import judging as sql
from abp_tui.store.queries import imported_preferences

Records = dict[str, list[Observation]]


def design_records(
    db: sqlite_utils.Database, design_pk: int
) -> tuple[Records, dict[str, str], dict[str, tuple[Category, ...]]]:
    """(records per variable, level per variable, declared scale per variable) of a design."""
    found = agreement_input(sql.records_of_design(db, design_pk, with_runs=False))
    return found.records, found.levels, found.scales


def imported_records(db: sqlite_utils.Database, study_id: str) -> Records:
    """Imported human preference labels of a study (external reviewers), per item."""
    rows = imported_preferences(db, study_id)
    labels = {
        PreferenceChoice.RESPONSE_1.value: "1",
        PreferenceChoice.RESPONSE_2.value: "2",
        PreferenceChoice.TIE.value: "tie",
        PreferenceChoice.INSUFFICIENT.value: "insufficient_evidence",
    }
    latest: dict[tuple[str, str], str] = {}
    for item, reviewer, choice in rows:
        latest[(item, reviewer)] = labels[choice]
    return {"preference": [(i, r, v) for (i, r), v in latest.items()]}


def study_agreement(
    db: sqlite_utils.Database,
    study_id: str,
    design_pk: int | None,
    *,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
    confidence: float = CONFIDENCE,
) -> AgreementReport:
    """Agreement of a design's judgments, or of a study's imported labels when it has none."""
    check_settings(
        seed=seed, resamples=resamples, pair_resamples=pair_resamples, confidence=confidence
    )
    if design_pk is not None:
        records, levels, scales = design_records(db, design_pk)
        return compute_all(
            records,
            levels,
            dict(scales),
            seed,
            resamples=resamples,
            pair_resamples=pair_resamples,
            confidence=confidence,
        )
    imported = imported_records(db, study_id)
    if not imported["preference"]:
        raise AbpError(
            f"study {study_id!r} has no study design and no imported judgments: "
            "nothing to measure agreement on"
        )
    return compute_all(
        imported,
        {"preference": "nominal"},
        {"preference": ("1", "2", "tie", "insufficient_evidence")},
        seed,
        resamples=resamples,
        pair_resamples=pair_resamples,
        confidence=confidence,
    )
