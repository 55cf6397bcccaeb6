"""Which files a study was imported from, with their hashes: the receipts of a stored study.

The imports table records every file imported (its name, SHA-256 and size); a report computed
from a study names these files so that a reader can match it to the inputs.
"""

from __future__ import annotations

import sqlite_utils

from abp_tui.models import Model


class ImportedFile(Model):
    file_name: str
    sha256: str
    size: int
    format: str


def study_imports(db: sqlite_utils.Database, study_id: str) -> list[ImportedFile]:
    """The files imported into the study, in the order they were imported."""
    rows = db.execute(
        "SELECT file_name, sha256, size, format FROM imports WHERE study_id = ? ORDER BY pk",
        [study_id],
    ).fetchall()
    return [ImportedFile(file_name=r[0], sha256=r[1], size=r[2], format=r[3]) for r in rows]


def study_exists(db: sqlite_utils.Database, study_id: str) -> bool:
    return db.execute("SELECT 1 FROM studies WHERE id = ?", [study_id]).fetchone() is not None


def imports_stored(db: sqlite_utils.Database) -> int | None:
    """How many imports the database records (None: it cannot say, e.g. no schema yet)."""
    try:
        return int(db.execute("SELECT count(*) FROM imports").fetchone()[0])
    except Exception:  # a database half made, or not ours: the caller leaves it alone
        return None
