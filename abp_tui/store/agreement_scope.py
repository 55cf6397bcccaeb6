"""SQL for what agreement may count for a viewer.

The runs of every item a reviewer has not submitted a judgment of yet, in any design of a study
(what the agreement view holds back from them, the rule
:func:`abp_tui.store.judging.others_judgments` applies to one item). The imported labels with the
exact run versions each names as response 1 and 2 are :mod:`abp_tui.store.figure_rows`'. Nothing
here decides what is shown.
"""

from __future__ import annotations

import sqlite_utils


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
