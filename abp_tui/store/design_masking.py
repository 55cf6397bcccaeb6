"""The well-known names a design's identity masking may leave where they reveal nobody
(:attr:`abp_tui.analysis.masking.Masker.loose`), kept beside the design (migration
``0016_design_masking``), outside its hashed document."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the workstation's first item is shown before sqlite_utils is loaded
    import sqlite_utils


def set_masked_loose(db: sqlite_utils.Database, design_pk: int, loose: Sequence[str]) -> None:
    """Keep the well-known names design ``design_pk``'s masker may leave (its ``loose``)."""
    db.execute(
        "INSERT OR REPLACE INTO design_masking (design_pk, loose) VALUES (?, ?)",
        [design_pk, json.dumps(list(loose))],
    )


def masked_loose(db: sqlite_utils.Database, design_pk: int) -> tuple[str, ...]:
    """The well-known names design ``design_pk``'s masker may leave (none: made before)."""
    row = db.execute("SELECT loose FROM design_masking WHERE design_pk = ?", [design_pk]).fetchone()
    return tuple(str(t) for t in json.loads(row[0])) if row else ()
