"""Whose station a database is: the reviewer its study pack was issued to, if any.

Kept apart from :mod:`abp_tui.services.stations` (building, opening and merging packs, which
loads the statistics and the export) because the workstation asks it on every start, before
the first item is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from abp_tui.store import judging as sql
from abp_tui.store.queries import holds_pack

if TYPE_CHECKING:
    import sqlite_utils


def pack_designs(db: sqlite_utils.Database) -> list[sql.DesignRow]:
    """The designs a study pack brought into ``db`` (none: it is not a station)."""
    return [d for d in sql.designs(db) if d.document.get("pack")]


def station_reviewer(db: sqlite_utils.Database) -> str | None:
    """The reviewer a station database judges as (its pack's), or None for any other database.

    This is how a station remembers its reviewer: ``abp-tui --db STATION`` opens as them.
    """
    if not holds_pack(db):  # any other database: no design's document is read
        return None
    for design in pack_designs(db):
        reviewers = design.document.get("reviewers")
        if isinstance(reviewers, list) and reviewers and isinstance(reviewers[0], str):
            return reviewers[0]
    return None
