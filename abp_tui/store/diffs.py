"""The stored diffs of runs, read back byte for byte for a publication bundle.

A run's diff is a blob (:func:`abp_tui.store.prepared.diff_blob`) that its record's
``metadata["diffFile"]["sha256"]`` names; it is kept as text when it is UTF-8 and as bytes when
it is not, so reading it back gives exactly the file the source named. Nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import sqlite_utils

DIFF_FILE: Final = "diffFile"
"""The run metadata key naming the stored diff (``{"sha256", "bytes"}``) or its absence."""
_BATCH: Final = 500
"""Hashes per query (well under SQLite's limit on bound parameters)."""


def diff_sha256(record: Mapping[str, Any]) -> str | None:
    """The SHA-256 of the diff a stored run record names, or None when it names none."""
    metadata = record.get("metadata")
    found = metadata.get(DIFF_FILE) if isinstance(metadata, dict) else None
    sha = found.get("sha256") if isinstance(found, dict) else None
    return sha if isinstance(sha, str) else None


def diff_bytes(db: sqlite_utils.Database, shas: Iterable[str]) -> dict[str, bytes]:
    """The bytes of each stored diff among ``shas`` (a hash with no blob is left out)."""
    wanted = sorted(set(shas))
    found: dict[str, bytes] = {}
    for start in range(0, len(wanted), _BATCH):
        chunk = wanted[start : start + _BATCH]
        marks = ", ".join("?" for _ in chunk)
        for sha, value in db.execute(
            f"SELECT sha256, text FROM blobs WHERE sha256 IN ({marks})", chunk
        ).fetchall():
            found[sha] = value if isinstance(value, bytes) else str(value).encode("utf-8")
    return found
