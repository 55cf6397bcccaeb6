"""Active allocation of a design's human budget in the database: the draw, made once when the
plan is stored (:func:`draw_design`), and the assignments it keeps (:func:`drawn_only`).

The uncertainties are the AI judges' distrust of each item from the verdicts stored when the
plan is stored (:mod:`abp_tui.analysis.allocation`); verdicts imported later never move the
draw. Only the items drawn are assigned to reviewers, listed or enrolling in an open design.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import sqlite_utils

from abp_tui.analysis.allocation import allocate, allocation_seed
from abp_tui.analysis.blinding import Assignment
from abp_tui.errors import AbpError
from abp_tui.models import AllocationDraw, StudyDesign
from abp_tui.store import allocation as sql
from abp_tui.store import judging
from abp_tui.store import secrets as secret_sql


def draw_design(
    db: sqlite_utils.Database, design_pk: int, design: StudyDesign
) -> tuple[AllocationDraw, ...]:
    """Draw and store which of a design's items people judge (nothing for a design without a
    human budget). Call it inside the transaction that stores the plan, after its items."""
    if design.human_budget is None:
        return ()
    from abp_tui.services.judge_order import item_uncertainty  # NumPy: on demand

    uncertain = item_uncertainty(db, design_pk)
    rows = judging.items(db, design_pk)
    codes = [r.code for r in rows]
    seed = allocation_seed(
        secret_sql.plan_secret(db, design_pk), judging.design(db, design_pk).seed
    )
    try:
        draws = allocate(design, codes, [uncertain[c] for c in codes], seed)
    except ValueError as exc:
        raise AbpError(f"design {design.name!r}: human_budget: {exc}") from None
    pks = {r.code: r.pk for r in rows}
    sql.insert_draws(
        db, design_pk, ((pks[d.item], d.uncertainty, d.probability, d.drawn) for d in draws), seed
    )
    return draws


def drawn_only(
    db: sqlite_utils.Database,
    design_pk: int,
    key_to_pk: Mapping[str, int],
    assignments: Sequence[Assignment],
) -> list[Assignment]:
    """The assignments of the items drawn for people (all of them without a draw), each
    reviewer's numbered again in their order from 0: a queue's place is the item's number in
    it ("item 3 of 7"), never its place among every item of the design."""
    left = sql.undrawn_item_pks(db, design_pk)
    if not left:
        return list(assignments)
    kept = sorted(
        (a for a in assignments if key_to_pk[a.item_key] not in left),
        key=lambda a: (a.reviewer, a.order_index),
    )
    places: dict[str, int] = {}
    out: list[Assignment] = []
    for a in kept:
        place = places.get(a.reviewer, 0)
        places[a.reviewer] = place + 1
        out.append(replace(a, order_index=place))
    return out


__all__ = ["draw_design", "drawn_only"]
