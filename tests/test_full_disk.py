"""A disk that refuses a file: one line, exit 1, nothing recorded and nothing left behind.

The faults (issue 27): on a full disk ``export``, ``schema`` and ``pack study`` ended in
internal errors (exit 3), and ``pack study`` had already recorded the pack and frozen the design,
and left a 0-byte temporary file beside the pack it never wrote.

The full disk is the output folder: every file opened for writing there is created, as on a real
disk, and its first write fails with ENOSPC. The database, elsewhere, is written as usual.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from abp_tui.services.importing import import_paths
from abp_tui.store import connect
from tests.factories import Cli, afp_study_lines, write_jsonl


class _FullFile:
    """A file opened on the full disk: it exists, and nothing can be written to it."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def write(self, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def __enter__(self) -> _FullFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._real.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@pytest.fixture
def full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "full"
    folder.mkdir()
    real_open = io.open

    def open_on_a_full_disk(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, mode, *args, **kwargs)
        writing = any(c in mode for c in "wax+")
        if writing and isinstance(file, str | Path) and str(file).startswith(str(folder)):
            return _FullFile(handle)
        return handle

    monkeypatch.setattr(io, "open", open_on_a_full_disk)
    monkeypatch.setattr(builtins, "open", open_on_a_full_disk)

    # A file written through its descriptor (a bundle's files): created, its writes refused.
    real_os_open, real_os_write, real_os_close = os.open, os.write, os.close
    full: set[int] = set()

    def os_open_on_a_full_disk(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real_os_open(path, flags, *args, **kwargs)
        writing = flags & (os.O_WRONLY | os.O_RDWR)
        if writing and isinstance(path, str | Path) and str(path).startswith(str(folder)):
            full.add(fd)
        return fd

    def os_write_on_a_full_disk(fd: int, data: Any) -> int:
        if fd in full:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_os_write(fd, data)

    def os_close(fd: int) -> None:
        full.discard(fd)
        real_os_close(fd)

    monkeypatch.setattr(os, "open", os_open_on_a_full_disk)
    monkeypatch.setattr(os, "write", os_write_on_a_full_disk)
    monkeypatch.setattr(os, "close", os_close)
    return folder


def _study(tmp_path: Path, cli: Cli) -> None:
    db = connect(cli.db_path)
    try:
        import_paths(db, [write_jsonl(tmp_path / "s.jsonl", afp_study_lines())])
    finally:
        db.close()
    assert cli("study", "create", "--db", cli.db_path, "--reviewers", "ann").code == 0


def _one_line(result: Any, *expected: str) -> None:
    assert result.code == 1, result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    for text in expected:
        assert text in lines[0], lines[0]


def _rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_pack_study_on_a_full_disk_records_nothing_and_leaves_no_file(
    tmp_path: Path, cli: Cli, full_disk: Path
) -> None:
    _study(tmp_path, cli)
    out = full_disk / "ann.pack.json"
    result = cli("pack", "study", "--db", cli.db_path, "--reviewer", "ann", "--out", out)
    _one_line(result, "ann.pack.json: cannot write it (No space left on device)")
    assert "nothing was written" in result.err
    assert list(full_disk.iterdir()) == []  # no pack, no temporary file
    assert _rows(cli.db_path, "SELECT count(*) FROM packs") == [(0,)]
    assert _rows(cli.db_path, "SELECT frozen_at FROM designs") == [(None,)]
    assert _rows(cli.db_path, "SELECT count(*) FROM audit_log WHERE action = 'pack issued'") == [
        (0,)
    ]


def test_pack_study_still_writes_and_records_its_pack(tmp_path: Path, cli: Cli) -> None:
    _study(tmp_path, cli)
    out = tmp_path / "packs" / "ann.pack.json"
    assert cli("pack", "study", "--db", cli.db_path, "--reviewer", "ann", "--out", out).code == 0
    assert [p.name for p in out.parent.iterdir()] == ["ann.pack.json"]
    assert _rows(cli.db_path, "SELECT count(*) FROM packs") == [(1,)]
    assert _rows(cli.db_path, "SELECT frozen_at IS NOT NULL FROM designs") == [(1,)]


def test_a_pack_whose_record_fails_is_not_left_in_place(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from abp_tui.store import packs

    _study(tmp_path, cli)

    def failing_audit(*args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(packs, "audit", failing_audit)
    out = tmp_path / "out" / "ann.pack.json"
    result = cli("pack", "study", "--db", cli.db_path, "--reviewer", "ann", "--out", out)
    _one_line(result, "the disk is full")
    assert list(out.parent.iterdir()) == []
    assert _rows(cli.db_path, "SELECT count(*) FROM packs") == [(0,)]


@pytest.mark.parametrize("what", ["verdicts", "judgments", "abp-verdict", "bundle"])
def test_export_on_a_full_disk_is_one_line_and_leaves_nothing(
    tmp_path: Path, cli: Cli, full_disk: Path, what: str
) -> None:
    _study(tmp_path, cli)
    assert cli("unblind", "--yes").code == 0
    out = full_disk / f"{what}.out"
    result = cli("export", what, "--db", cli.db_path, "--out", out)
    _one_line(result, f"{what}.out", "cannot write it (No space left on device)")
    assert list(full_disk.iterdir()) == []


def test_a_bundles_files_refused_one_by_one_stop_the_export_before_its_zip(
    tmp_path: Path, cli: Cli, full_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bundle's files are written each through its descriptor as it is made: the first the
    disk refuses ends the export (one line, nothing left), before any zip is begun."""
    from abp_tui.export import zip_writing

    zipped: list[object] = []
    monkeypatch.setattr(zip_writing, "write_zip", lambda *args: zipped.append(args))
    _study(tmp_path, cli)
    assert cli("unblind", "--yes").code == 0
    result = cli("export", "bundle", "--db", cli.db_path, "--out", full_disk / "b")
    _one_line(result, "cannot write it (No space left on device)")
    assert zipped == [] and list(full_disk.iterdir()) == []


def test_schema_on_a_full_disk_is_one_line_and_leaves_nothing(
    tmp_path: Path, cli: Cli, full_disk: Path
) -> None:
    _study(tmp_path, cli)
    for argv in (("schema", "--out", full_disk), ("schema", "--out", full_disk / "new")):
        result = cli(*argv)
        _one_line(result, "schema.json: cannot write it (No space left on device)")
        assert [p for p in full_disk.rglob("*") if p.is_file()] == []


def test_an_export_whose_record_fails_is_not_left_in_place(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from abp_tui.store import packs

    _study(tmp_path, cli)
    assert cli("unblind", "--yes").code == 0

    def failing_audit(*args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(packs, "audit", failing_audit)
    out = tmp_path / "exported"
    out.mkdir()
    result = cli("export", "verdicts", "--db", cli.db_path, "--out", out / "v.jsonl")
    _one_line(result, "the disk is full")
    assert list(out.iterdir()) == []
