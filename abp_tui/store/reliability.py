"""What the reliability model reads of a study that no other report reads in this shape: the
AI judges' preference verdicts by run id, and the runs a reviewer still has to judge."""

from __future__ import annotations

import sqlite_utils


def judge_preferences(
    db: sqlite_utils.Database, study_id: str
) -> list[tuple[str, str, str, str | None, int | None, str]]:
    """(judge id, run a id, run b id, run shown first id or None, turn or None, pick) of every
    preference verdict of the study's AI judges that names a pick, in stored order: the pick is
    ``a`` or ``b`` (the verdict's own orientation) or ``tie``; a verdict with an error or no
    pick is left out."""
    rows = db.execute(
        "SELECT j.id, ra.id, rb.id, rs.id, v.turn, "
        "CASE WHEN v.verdict = 'tie' THEN 'tie' WHEN v.verdict = ra.id THEN 'a' "
        "WHEN v.verdict = rb.id THEN 'b' END "
        "FROM judge_verdicts v JOIN judges j ON j.pk = v.judge_pk "
        "JOIN runs ra ON ra.pk = v.run_a_pk JOIN runs rb ON rb.pk = v.run_b_pk "
        "LEFT JOIN runs rs ON rs.pk = v.shown_first_pk "
        "WHERE v.study_id = ? AND v.kind = 'preference' AND v.error IS NULL "
        "AND v.verdict IS NOT NULL ORDER BY v.pk",
        [study_id],
    ).fetchall()
    return [
        (
            str(r[0]),
            str(r[1]),
            str(r[2]),
            None if r[3] is None else str(r[3]),
            None if r[4] is None else int(r[4]),
            str(r[5]),
        )
        for r in rows
        if r[5] is not None
    ]


def pending_run_ids(db: sqlite_utils.Database, study_id: str, reviewer: str) -> frozenset[str]:
    """Ids of the runs of every item of the study's designs assigned to ``reviewer`` that they
    have not submitted a judgment of (as :func:`abp_tui.store.agreement_scope.pending_run_pks`,
    by id)."""
    rows = db.execute(
        "SELECT r.id FROM assignments a JOIN items i ON i.pk = a.item_pk "
        "JOIN designs d ON d.pk = i.design_pk "
        "JOIN runs r ON r.pk IN (i.run_a_pk, i.run_b_pk) "
        "WHERE d.study_id = ? AND a.reviewer = ? "
        "AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.item_pk = i.pk "
        "AND j.reviewer = a.reviewer AND j.status = 'submitted')",
        [study_id, reviewer],
    ).fetchall()
    return frozenset(str(r[0]) for r in rows)
