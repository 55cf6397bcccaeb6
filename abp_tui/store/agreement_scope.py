"""SQL for what agreement may count for a viewer, and a study's imported labels by their runs.

Two reads, both for :mod:`abp_tui.services.agreement_report`: the runs of every item a reviewer
has not submitted a judgment of yet, in any design of a study (what the agreement view holds back
from them, the rule :func:`abp_tui.store.judging.others_judgments` applies to one item), and
the imported preference labels with the exact run versions each names as response 1 and 2 (what
maps a label onto a design's item, whatever order a reviewer saw the runs in). Nothing here
decides what is shown.
"""

from __future__ import annotations

import sqlite_utils

from abp_tui.analysis.agreement.labels import ImportedLabel


def imported_labels(db: sqlite_utils.Database, study_id: str) -> list[ImportedLabel]:
    """A study's imported preference labels in stored order (a later one replaces an earlier
    one of the same item by the same label set). Only ``source = 'imported'`` rows: an AI
    judge's verdicts live in ``judge_verdicts`` and never reach this list."""
    rows = db.execute(
        "SELECT p.reviewer, p.item_id, p.run_1_pk, p.run_2_pk, p.choice FROM preferences p "
        "JOIN reviewers r ON r.name = p.reviewer "
        "WHERE p.study_id = ? AND p.source = 'imported' AND r.external = 1 ORDER BY p.pk",
        [study_id],
    ).fetchall()
    # A study holds hundreds of thousands of labels from a few label sets and choices: each
    # name and choice is held once.
    names: dict[str, str] = {}
    return [
        ImportedLabel(
            names.setdefault(str(r[0]), str(r[0])),
            str(r[1]),
            int(r[2]),
            int(r[3]),
            names.setdefault(str(r[4]), str(r[4])),
        )
        for r in rows
    ]


def pending_run_pks(db: sqlite_utils.Database, study_id: str, reviewer: str) -> frozenset[int]:
    """The runs of every item of the study's designs assigned to ``reviewer`` that they have
    not submitted a judgment of (a draft is not a submission)."""
    rows = db.execute(
        "SELECT i.run_a_pk, i.run_b_pk FROM assignments a JOIN items i ON i.pk = a.item_pk "
        "JOIN designs d ON d.pk = i.design_pk WHERE d.study_id = ? AND a.reviewer = ? "
        "AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.item_pk = i.pk "
        "AND j.reviewer = a.reviewer AND j.status = 'submitted')",
        [study_id, reviewer],
    ).fetchall()
    return frozenset(int(pk) for row in rows for pk in row if pk is not None)
