"""The bundled demo data: where it lives and how a fresh database is filled from it."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from abp_tui.services.importing import ImportReport, import_paths
from abp_tui.store.queries import count


def fixtures_dir() -> Path | None:
    """``fixtures/demo`` of the working tree (the current folder first, then the source tree)."""
    for base in (Path.cwd(), Path(__file__).resolve().parent.parent):
        candidate = base / "fixtures" / "demo"
        if candidate.is_dir():
            return candidate
    return None


def load_demo(db: sqlite_utils.Database, folder: Path | None = None) -> list[ImportReport]:
    """Import each study folder of the demo data under its folder's name as the study id,
    then create the demo study designs (``fixtures/designs``) of the studies imported."""
    root = folder or fixtures_dir()
    if root is None:
        return []
    reports = [
        import_paths(db, [study_dir], study=study_dir.name)
        for study_dir in sorted(p for p in root.iterdir() if p.is_dir())
    ]
    designs = root.parent / "designs"
    if designs.is_dir():
        from abp_tui.services.designing import create_design, load_design_file

        for path in sorted(designs.iterdir()):
            if path.suffix in (".toml", ".json") and (root / path.stem).is_dir():
                create_design(db, load_design_file(path))
    return reports


def is_empty(db: sqlite_utils.Database) -> bool:
    return count(db, "studies") == 0
