"""What the options every command shares mean: which database (``--db``) and who acts
(``--by``). Opening the database is the store's job; this module only resolves the names.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

DEFAULT_DB = Path("data") / "abp.db"
"""Where the workstation keeps its database when ``--db`` is not given (relative to the current
folder, so ``make run`` in a checkout opens the demo data beside it)."""


def db_path(args: argparse.Namespace) -> Path:
    """The database named by ``--db``, else the workstation's default."""
    return Path(getattr(args, "db", None) or DEFAULT_DB)


def exists(path: Path) -> bool:
    """Whether something is at the database path ``path``. A name that can name no database
    (``:memory:``, a name the system cannot hold) is refused here, in one line."""
    from abp_tui.errors import StoreError

    if str(path) == ":memory:":
        from abp_tui.store.db import refuse_memory

        refuse_memory(path)
    try:
        return path.exists()
    except OSError as exc:
        raise StoreError(f"{path}: cannot open the database: {exc.strerror}") from None


def open_db(args: argparse.Namespace) -> sqlite_utils.Database:
    """The database named by ``--db``, opened (and migrated) by the store."""
    from abp_tui.store import connect

    return connect(db_path(args))


@contextlib.contextmanager
def opened_or_removed(args: argparse.Namespace) -> Iterator[sqlite_utils.Database]:
    """The database named by ``--db``; when this command created it and fails (a refused
    import, a refused pack), it leaves no database behind (nor the folder made for it). Only a
    file this command created, and only when it holds no import."""
    path = db_path(args)
    created = not exists(path)
    made_folder = not exists(path.parent)
    db = open_db(args)
    try:
        yield db
    except BaseException:
        if created:
            _remove_if_empty(db, path, made_folder)
        raise


def _remove_if_empty(db: sqlite_utils.Database, path: Path, made_folder: bool) -> None:
    try:
        stored = db.execute("SELECT count(*) FROM imports").fetchone()[0]
    except Exception:
        stored = None
    db.close()
    if stored != 0:
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    if made_folder:
        with contextlib.suppress(OSError):  # not empty after all: leave it
            path.parent.rmdir()


def actor(args: argparse.Namespace) -> str:
    """Who acts, for the audit log: ``--by``, else the user logged in."""
    if getattr(args, "by", None):
        return str(args.by)
    import getpass

    try:
        return getpass.getuser() or "coordinator"
    except (OSError, KeyError):
        return "coordinator"
