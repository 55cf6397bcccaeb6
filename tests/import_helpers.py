"""Checks shared by the import tests."""

from __future__ import annotations

from pathlib import Path

from tests.factories import Cli


def nothing_stored(cli: Cli) -> None:
    """A refused import into a database it created leaves no database file behind: that the
    file is gone proves nothing was written, and nothing half-made is left to confuse."""
    leftovers = [
        p.name for p in (Path(f"{cli.db_path}{s}") for s in ("", "-wal", "-shm")) if p.exists()
    ]
    assert leftovers == [], f"a refused import left {leftovers} behind"
