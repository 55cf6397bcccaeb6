"""SQL for the coordinator's secrets: each design's plan secret and each reviewer's signing key.

A plan secret is what a design's blind codes, placement and order are derived from
(:mod:`abp_tui.analysis.blinding`); it stays in the coordinator's database until a publication
bundle reveals it after unblinding. A reviewer key is issued with a reviewer's pack and signs the
ratings their station sends back; a station holds the key of its own pack and nothing else here.
Nothing in this module chooses a secret: the callers do, with :mod:`secrets`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from abp_tui.store.db import utc_now

if TYPE_CHECKING:
    import sqlite_utils


def plan_secret(db: sqlite_utils.Database, design_pk: int) -> str | None:
    """The design's plan secret, or None for a design stored before plan secrets (or a
    station's copy of a pack, which never has one)."""
    row = db.execute("SELECT secret FROM plan_secrets WHERE design_pk = ?", [design_pk]).fetchone()
    return str(row[0]) if row else None


def plan_rows(db: sqlite_utils.Database, design_pk: int) -> list[list[object]]:
    """The design's plan as its hash covers it: each item's ``[key, code, run_a_pk, run_b_pk,
    base_flip]`` in the order it was planned (and stored)."""
    rows = db.execute(
        "SELECT key, code, run_a_pk, run_b_pk, base_flip FROM items WHERE design_pk = ? "
        "ORDER BY pk",
        [design_pk],
    ).fetchall()
    return [[key, code, a, b, bool(flip)] for key, code, a, b, flip in rows]


def store_plan_secret(
    db: sqlite_utils.Database, design_pk: int, secret: str, commitment: str
) -> None:
    db.execute(
        "INSERT INTO plan_secrets (design_pk, secret, sha256, created_at) VALUES (?, ?, ?, ?)",
        [design_pk, secret, commitment, utc_now()],
    )


def drop_plan_secret(db: sqlite_utils.Database, design_pk: int) -> None:
    """Forget the secret of a design nobody judged, which is being replaced (the database
    refuses this for a frozen design)."""
    db.execute("DELETE FROM plan_secrets WHERE design_pk = ?", [design_pk])


def reviewer_key(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> str | None:
    """The key a reviewer's pack of this design signs with, or None when none was issued."""
    row = db.execute(
        "SELECT key FROM reviewer_keys WHERE design_pk = ? AND reviewer = ?",
        [design_pk, reviewer],
    ).fetchone()
    return str(row[0]) if row else None


def store_reviewer_key(db: sqlite_utils.Database, design_pk: int, reviewer: str, key: str) -> None:
    db.execute(
        "INSERT INTO reviewer_keys (design_pk, reviewer, key, created_at) VALUES (?, ?, ?, ?)",
        [design_pk, reviewer, key, utc_now()],
    )
