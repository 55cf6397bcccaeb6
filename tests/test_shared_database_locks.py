"""A second connection in one process leaves the first one's locks in place.

The fault: the workstation opens a further connection to its database while one is open (a
background read, a save); the ownership look read the file's header through a file handle of its
own, and closing that handle dropped every POSIX lock the process held on the file. When another
process (a second reviewer, the command line) then closed its connection, it found the file
unlocked, folded the write-ahead log in and deleted it. The workstation's next commits went to
the deleted log: the screen said "submitted (revision 8)" and no other process ever saw it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from abp_tui.errors import StoreError
from abp_tui.store import connect


def _in_another_process(db: Path, sql: str) -> str:
    code = (
        "import sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1])\n"
        "print(c.execute(sys.argv[2]).fetchone()[0])\n"
        "c.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(db), sql], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_commit_after_another_process_closes_is_seen_by_everyone(tmp_path: Path) -> None:
    path = tmp_path / "abp.db"
    first = connect(path)
    first.execute("CREATE TABLE probe (n INTEGER)")
    first.execute("INSERT INTO probe VALUES (1)")
    first.conn.commit()
    second = connect(path)  # looks at the file again while the first connection holds it
    assert _in_another_process(path, "SELECT count(*) FROM probe") == "1"
    assert path.with_name("abp.db-wal").exists()  # not folded in under the open connections
    first.execute("INSERT INTO probe VALUES (2)")
    first.conn.commit()
    assert _in_another_process(path, "SELECT group_concat(n) FROM probe") == "1,2"
    assert second.execute("SELECT count(*) FROM probe").fetchone()[0] == 2
    first.conn.close()
    second.conn.close()


def test_a_closed_connection_no_longer_vouches_for_the_file(tmp_path: Path) -> None:
    path = tmp_path / "abp.db"
    connect(path).conn.close()
    path.unlink()
    path.with_name("abp.db-wal").unlink(missing_ok=True)
    path.with_name("abp.db-shm").unlink(missing_ok=True)
    path.write_bytes(b"not a database at all" * 10)
    with pytest.raises(StoreError, match="not a SQLite file"):
        connect(path)
