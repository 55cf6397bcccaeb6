"""The draws of a design with a human budget (``allocation_draws``): each item's uncertainty,
probability and whether it went to people, written once with the plan."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from abp_tui.models import AllocationDraw

if TYPE_CHECKING:
    import sqlite_utils


def insert_draws(
    db: sqlite_utils.Database,
    design_pk: int,
    rows: Iterable[tuple[int, float, float, bool]],
    draw_seed: int,
) -> None:
    """Store (item pk, uncertainty, probability, drawn) per item, with the draw's seed."""
    db.conn.executemany(
        "INSERT INTO allocation_draws (design_pk, item_pk, uncertainty, probability, drawn, "
        "draw_seed) VALUES (?, ?, ?, ?, ?, ?)",
        [(design_pk, pk, u, p, int(d), draw_seed) for pk, u, p, d in rows],
    )


def draws(db: sqlite_utils.Database, design_pk: int) -> tuple[AllocationDraw, ...]:
    """The design's draws in plan order (none: the design sets no human budget)."""
    rows = db.execute(
        "SELECT i.code, a.uncertainty, a.probability, a.drawn FROM allocation_draws a "
        "JOIN items i ON i.pk = a.item_pk WHERE a.design_pk = ? ORDER BY i.pk",
        [design_pk],
    ).fetchall()
    return tuple(
        AllocationDraw(item=r[0], uncertainty=r[1], probability=r[2], drawn=bool(r[3]))
        for r in rows
    )


def draw_seed(db: sqlite_utils.Database, design_pk: int) -> int | None:
    """The seed the design's draw used (None: no draw)."""
    row = db.execute(
        "SELECT draw_seed FROM allocation_draws WHERE design_pk = ? LIMIT 1", [design_pk]
    ).fetchone()
    return None if row is None else int(row[0])


def undrawn_item_pks(db: sqlite_utils.Database, design_pk: int) -> set[int]:
    """The items the draw left to the AI judges: never assigned to people."""
    return {
        int(r[0])
        for r in db.execute(
            "SELECT item_pk FROM allocation_draws WHERE design_pk = ? AND drawn = 0", [design_pk]
        ).fetchall()
    }


__all__ = ["draw_seed", "draws", "insert_draws", "undrawn_item_pks"]
