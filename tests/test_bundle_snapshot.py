"""The publication bundle is the database at one moment, whatever is written meanwhile.

An export reads a dozen tables one after the other. A reviewer's save or a merge committed
between two of those reads once made a bundle whose tables disagree: here the audit log records
a merge whose judgment is missing from ``judgments.jsonl``. The export now reads inside one read
transaction (on a WAL database, a snapshot that other connections' commits do not change and that
never blocks them). The concurrent writer is real (another connection committing); a hook on
the export's last read lets it commit exactly between two reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.export import records as rec
from abp_tui.models import PreferenceChoice
from abp_tui.services import publishing
from abp_tui.services.publishing import build_bundle, export_bundle
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store import packs as psql
from tests.factories import afp_judgment, native_study

MERGE = "merge ratings"


def _study(tmp_path: Path) -> tuple[Path, int, list[str]]:
    """The small unblinded study: alice has submitted her first item, not her second."""
    db_path = tmp_path / "coordinator.db"
    db = connect(db_path)
    try:
        pk = native_study(tmp_path, db)
        session = ReviewSession(db, pk, "alice")
        codes = sorted(r.code for r in session.queue())
        session.save(codes[0], afp_judgment(2, 1, PreferenceChoice.RESPONSE_1), 10, submit=True)
    finally:
        db.close()
    return db_path, pk, codes


def _merge_elsewhere(db_path: Path, pk: int, code: str) -> None:
    """Another process merges alice's second judgment: the judgment and its audit entry in one
    transaction, committed."""
    other = connect(db_path)
    try:
        with other.atomic():
            ReviewSession(other, pk, "alice").save(
                code, afp_judgment(1, 2, PreferenceChoice.RESPONSE_2), 10, submit=True
            )
            psql.audit(other, "coordinator", MERGE, {"study": "s", "ratings": "alice.json"})
    finally:
        other.close()


def _writer_before_audit_read(
    monkeypatch: pytest.MonkeyPatch, write: Callable[[], None]
) -> list[int]:
    """Run ``write`` just before the export reads the audit log (after everything else)."""
    calls: list[int] = []
    real = publishing._audit

    def audit_after_a_write(db: sqlite_utils.Database, study_id: str) -> list[dict[str, Any]]:
        if not calls:
            write()
        calls.append(1)
        return real(db, study_id)

    monkeypatch.setattr(publishing, "_audit", audit_after_a_write)
    return calls


def _lines(files: dict[str, bytes], name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in files[name].decode().splitlines() if line]


def _merges(files: dict[str, bytes]) -> int:
    return sum(1 for entry in _lines(files, rec.AUDIT) if entry["action"] == MERGE)


def _submitted(files: dict[str, bytes]) -> int:
    return sum(1 for j in _lines(files, rec.JUDGMENTS) if j["status"] == "submitted")


def test_a_merge_committed_between_two_reads_is_all_in_or_all_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path, pk, codes = _study(tmp_path)
    db = connect(db_path)
    try:
        before = build_bundle(db, pk)
        assert (_submitted(before), _merges(before)) == (1, 0)
        calls = _writer_before_audit_read(
            monkeypatch, lambda: _merge_elsewhere(db_path, pk, codes[1])
        )
        during = build_bundle(db, pk)
        assert calls == [1]
        # The export saw the database as it was when it began: not the judgment, and not the
        # audit entry of its merge (before, the bundle had the entry and not the judgment).
        assert (_submitted(during), _merges(during)) == (1, 0)
        assert during == before
        # The writer was not blocked by the export, and the next bundle has all of it.
        after = build_bundle(db, pk)
        assert (_submitted(after), _merges(after)) == (2, 1)
        assert not db.conn.in_transaction  # the read transaction ended with the export
    finally:
        db.close()


def test_the_exported_bundle_verifies_after_a_concurrent_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Any
) -> None:
    db_path, pk, codes = _study(tmp_path)
    _writer_before_audit_read(monkeypatch, lambda: _merge_elsewhere(db_path, pk, codes[1]))
    db = connect(db_path)
    try:
        result = export_bundle(db, pk, tmp_path / "bundle")
        # Recording the export is a write after the snapshot ended: it is not refused as stale.
        assert any(a.startswith("export") for _at, _who, a, _d in psql.audit_log(db))
    finally:
        db.close()
    verified = cli("verify", result.folder)
    assert verified.code == 0, verified.err
    files = {
        p.relative_to(result.folder).as_posix(): p.read_bytes()
        for p in result.folder.rglob("*")
        if p.is_file()
    }
    assert (_submitted(files), _merges(files)) == (1, 0)
