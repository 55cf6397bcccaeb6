"""SQL for what a reviewer still has to judge of a study: their items not submitted yet.

What the AI judges' report holds back from a reviewer (:mod:`abp_tui.services.judges`): every
judge verdict and every human decision touching a run of an item they have not submitted a
judgment of, in any design of the study (the rule the agreement view applies, and
:func:`abp_tui.store.judging.others_judgments` for one item). Nothing here decides what is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class PendingItems:
    items: int
    """How many items assigned to the reviewer they have not submitted (a draft is not one)."""
    runs: frozenset[str]
    """The ids of those items' runs (every version of a run has its id)."""


def pending_items(db: sqlite_utils.Database, study_id: str, reviewer: str) -> PendingItems:
    """The reviewer's items of the study's designs that they have not submitted yet."""
    rows = db.execute(
        "SELECT i.pk, ra.id, rb.id FROM assignments a JOIN items i ON i.pk = a.item_pk "
        "JOIN designs d ON d.pk = i.design_pk JOIN runs ra ON ra.pk = i.run_a_pk "
        "LEFT JOIN runs rb ON rb.pk = i.run_b_pk WHERE d.study_id = ? AND a.reviewer = ? "
        "AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.item_pk = i.pk "
        "AND j.reviewer = a.reviewer AND j.status = 'submitted')",
        [study_id, reviewer],
    ).fetchall()
    runs = frozenset(str(run) for row in rows for run in row[1:] if run is not None)
    return PendingItems(len({int(row[0]) for row in rows}), runs)


@dataclass(frozen=True)
class PendingInDesign:
    design: str
    version_no: int
    items: int


def pending_by_design(
    db: sqlite_utils.Database, study_id: str, reviewer: str
) -> list[PendingInDesign]:
    """:func:`pending_items` counted by design (only designs with some), oldest design first:
    what a refusal names so the reviewer knows where to go on judging."""
    rows = db.execute(
        "SELECT d.name, d.version_no, COUNT(DISTINCT i.pk) FROM assignments a "
        "JOIN items i ON i.pk = a.item_pk JOIN designs d ON d.pk = i.design_pk "
        "WHERE d.study_id = ? AND a.reviewer = ? AND NOT EXISTS (SELECT 1 FROM judgments j "
        "WHERE j.item_pk = i.pk AND j.reviewer = a.reviewer AND j.status = 'submitted') "
        "GROUP BY d.pk ORDER BY d.pk",
        [study_id, reviewer],
    ).fetchall()
    return [PendingInDesign(str(r[0]), int(r[1]), int(r[2])) for r in rows]


__all__ = ["PendingInDesign", "PendingItems", "pending_by_design", "pending_items"]


def still_judging(db: sqlite_utils.Database, study_id: str) -> list[tuple[str, int]]:
    """Each reviewer with items of the study's designs not submitted yet, and how many (by
    name): what unblinding now would take from them."""
    rows = db.execute(
        "SELECT a.reviewer, COUNT(DISTINCT i.pk) FROM assignments a "
        "JOIN items i ON i.pk = a.item_pk JOIN designs d ON d.pk = i.design_pk "
        "WHERE d.study_id = ? AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.item_pk = i.pk "
        "AND j.reviewer = a.reviewer AND j.status = 'submitted') "
        "GROUP BY a.reviewer ORDER BY a.reviewer",
        [study_id],
    ).fetchall()
    return [(str(reviewer), int(n)) for reviewer, n in rows]
