"""Disagreements between reviewers, their adjudication, and the final verdict of every run.

Original judgments are never changed: an adjudication is a separate, append-only record with a
mandatory note. Every final verdict names its source: ``adjudicated``, ``unanimous`` (two or more
reviewers, no disagreement), ``single review`` or ``unresolved`` (a disagreement not yet
adjudicated). The rules are :mod:`abp_tui.analysis.verdicts`'s, which a publication bundle's
``verify`` applies to the bundle's own records too; this module reads a design's records from the
database and records adjudications.

Who may adjudicate an item (:func:`adjudication_refused`, asked before an item is opened and
again before an adjudication is recorded): never one of its reviewers, submitted or not (an
adjudication settles their judgments, so it is independent of them), never someone with an item
of the study still to judge that shares a response with it (they would see the others'
judgments first), and, when the design names its ``adjudicators``, only those.
"""

from __future__ import annotations

import json

import sqlite_utils

from abp_tui.analysis.placement import by_run, order_of, runs_shown
from abp_tui.analysis.records import latest_submitted
from abp_tui.analysis.scoring import problems
from abp_tui.analysis.verdicts import (
    Disagreement,
    Verdict,
    VerdictSource,
    decide,
    find_disagreements,
)
from abp_tui.errors import AbpError
from abp_tui.models import ItemPreference, Judgment, JudgmentRevision, Rubric
from abp_tui.services.reclassify import refused_override
from abp_tui.services.roles import refusal
from abp_tui.store import judging as sql
from abp_tui.store.agreement_scope import pending_run_pks

__all__ = [
    "Disagreement",
    "NotAnAdjudicator",
    "Verdict",
    "VerdictSource",
    "adjudicate",
    "adjudication_refused",
    "disagreements",
    "final_preferences",
    "final_verdicts",
    "find_disagreements",
    "item_judgments",
]


class NotAnAdjudicator(AbpError):
    """The person may not adjudicate the item: they reviewed it, or the design names its
    adjudicators and they are not one of them."""


def adjudication_refused(
    db: sqlite_utils.Database,
    design: sql.DesignRow,
    item: sql.StoredItem,
    adjudicator: str,
    pending: frozenset[int] | None = None,
) -> AbpError | None:
    """Why ``adjudicator`` may not adjudicate ``item`` (the error to raise, in one line), or
    None. ``pending``: the runs of the adjudicator's items of the study not submitted yet
    (read when not given). In a team session, only a coordinator or an adjudicator
    adjudicates (:mod:`abp_tui.services.roles`)."""
    code = item.code
    role = refusal("adjudicate", f"adjudicate {code}")
    if role is not None:
        return NotAnAdjudicator(str(role))
    reviewed = sql.assignment(db, item.pk, adjudicator) is not None
    if reviewed and not sql.has_submitted(db, item.pk, adjudicator):
        return sql.BlindingError(
            f"{adjudicator} is a reviewer of {code} and has not submitted: they cannot "
            "adjudicate it (they would see the other judgments first)"
        )
    if pending is None:
        pending = pending_run_pks(db, design.study_id, adjudicator)
    if pending.intersection(item.run_pks):
        return sql.BlindingError(
            f"{adjudicator} has an item of study {design.study_id} not submitted yet that "
            f"shares a response with {code}: they cannot adjudicate it (they would see the "
            "other judgments first)"
        )
    if reviewed or adjudicator in sql.submissions(db, item.pk):
        return NotAnAdjudicator(
            f"{adjudicator} reviewed {code}: they cannot adjudicate it (an adjudication settles "
            "the reviewers' judgments, so it is made by someone who did not review the item)"
        )
    named = [str(name) for name in design.document.get("adjudicators") or ()]
    if named and adjudicator not in named:
        return NotAnAdjudicator(
            f"design {design.name} v{design.version_no} names its adjudicators "
            f"({', '.join(named)}): {adjudicator} is not one of them, so they cannot "
            f"adjudicate {code}"
        )
    return None


def item_judgments(db: sqlite_utils.Database, design_pk: int) -> dict[str, list[JudgmentRevision]]:
    """Item code -> each reviewer's latest submitted judgment of it."""
    return latest_submitted(sql.records_of_design(db, design_pk, with_runs=False).judgments)


def disagreements(db: sqlite_utils.Database, design_pk: int) -> list[Disagreement]:
    """Every item whose submitted judgments disagree, with whether it has been adjudicated."""
    return decide(sql.records_of_design(db, design_pk, with_runs=False)).disagreements


def final_verdicts(db: sqlite_utils.Database, design_pk: int) -> list[Verdict]:
    """One verdict per judged run of the design, with its source."""
    return decide(sql.records_of_design(db, design_pk, with_runs=False)).verdicts


def final_preferences(db: sqlite_utils.Database, design_pk: int) -> list[ItemPreference]:
    """The final preference of every judged pair of the design, with its source."""
    return decide(sql.records_of_design(db, design_pk, with_runs=False)).preferences


def adjudicate(
    db: sqlite_utils.Database,
    design_pk: int,
    code: str,
    adjudicator: str,
    final: Judgment,
    placement: dict[str, int],
    note: str,
    show_names: bool = False,
) -> int:
    """Record the final judgment of a disputed item (keyed by position in ``placement``)."""
    if not note.strip():
        raise AbpError("an adjudication needs a note saying why")
    item = sql.item_by_code(db, design_pk, code)
    refused = adjudication_refused(db, sql.design(db, design_pk), item, adjudicator)
    if refused is not None:
        raise refused
    if runs_shown(placement) != set(item.run_pks):
        raise AbpError(f"the placement does not match the runs of {code}")
    by_run_pk = by_run(final, placement)
    order = order_of(placement)
    rubric = Rubric.model_validate(sql.design(db, design_pk).rubric)
    missing = problems(rubric, by_run_pk, [str(pk) for pk in order], item.run_b_pk is not None)
    if missing:
        raise AbpError("the final judgment is incomplete: " + "; ".join(missing))
    # What a review session refuses of a run's state, the verdict that counts may not hold.
    refused_override(db, rubric, code, order, by_run_pk)
    return sql.append_adjudication(
        db,
        item.pk,
        adjudicator,
        by_run_pk.model_dump_json(),
        json.dumps(placement),
        note,
        show_names,
    )
