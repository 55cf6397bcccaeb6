"""An import remembers a bounded number of rows: past the bound it writes what is pending and
looks the rest up in the store, and stores exactly what it stores remembering everything."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from abp_tui.services.importing import import_paths
from abp_tui.store import connect, writer

_TABLES = {
    "tasks": "id, version_no, current, sha256, placeholder",
    "runs": "id, version_no, current, sha256, task_pk, condition_pk",
    "blobs": "sha256",
    "preferences": "reviewer, item_id, task_pk, run_1_pk, run_2_pk, choice",
}


def _items(n: int, changed: int = -1) -> list[dict[str, Any]]:
    return [
        {
            "idx": i,
            "cmp_key": "alpha_beta" if i % 2 else "beta_gamma",
            "instruction": f"Rewrite sentence {i}.",
            "input": "",
            "response1": f"Answer {i}" + (" (revised)" if i == changed else ""),
            "response2": "Same answer" if i % 3 else f"Other {i}",  # shared outputs: one blob
            "annotator1": i % 3,
            "annotator2": (i + 1) % 3,
        }
        for i in range(n)
    ]


def _import_all(tmp_path: Path, name: str) -> tuple[dict[str, list[Any]], list[dict[str, int]]]:
    """Import a file, the same file again, then one with an item changed and one more item;
    every row stored and each import's counts."""
    folder = tmp_path / name
    folder.mkdir()
    first = folder / "pandalm-a.json"
    first.write_text(json.dumps(_items(120)), encoding="utf-8")
    second = folder / "pandalm-b.json"
    second.write_text(json.dumps(_items(121, changed=40)), encoding="utf-8")
    db = connect(folder / "abp.db")
    counts = []
    try:
        for path in (first, first, second):
            report = import_paths(db, [path], study="s")
            counts.append(report.totals)
    finally:
        db.close()
    with sqlite3.connect(folder / "abp.db") as conn:
        rows = {
            table: sorted(conn.execute(f"SELECT {columns} FROM {table}").fetchall())
            for table, columns in _TABLES.items()
        }
    conn.close()
    return rows, counts


def test_forgetting_stores_the_same_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    remembering, counts = _import_all(tmp_path, "remembering")
    monkeypatch.setattr(writer, "REMEMBERED", 25)
    forgetting, forgetting_counts = _import_all(tmp_path, "forgetting")
    assert forgetting == remembering
    assert forgetting_counts == counts
    # The imports did what the test means: new versions of the changed item, nothing doubled.
    assert counts[1] == {} or "tasks added" not in counts[1]
    assert counts[2]["runs new version"] == 1
    assert counts[2]["tasks added"] == 1
    assert counts[2]["preferences added"] == 2 + 2  # the new item's, and the changed run's


def test_an_import_remembers_at_most_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer, "REMEMBERED", 25)
    most = 0
    remembered = writer.ImportWriter._remembered

    def watching(self: writer.ImportWriter) -> None:
        nonlocal most
        remembered(self)
        held = len(self._known) + len(self._blobs) + len(self._preferences or ())
        held += len(self._task_pk) + len(self._run_pk)
        most = max(most, held)

    monkeypatch.setattr(writer.ImportWriter, "_remembered", watching)
    _import_all(tmp_path, "watched")
    assert 0 < most <= 2 * 25
