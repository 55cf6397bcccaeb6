"""What the options every command shares mean: which database (``--db``), who acts (``--by``)
and who looks (``--reviewer``, before or after the command: one option of every command).
Opening the database is the store's job; this module only resolves the names.
"""

from __future__ import annotations

import argparse
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


def open_db(args: argparse.Namespace) -> sqlite_utils.Database:
    """The database named by ``--db``, opened (and migrated) by the store."""
    from abp_tui.store import connect

    return connect(db_path(args))


def actor(args: argparse.Namespace) -> str:
    """Who acts, for the audit log: ``--by``, else ``--reviewer``, else the user logged in."""
    for option in ("by", "reviewer"):
        if getattr(args, option, None):
            return str(getattr(args, option))
    import getpass

    try:
        return getpass.getuser() or "coordinator"
    except (OSError, KeyError):
        return "coordinator"


def viewer(args: argparse.Namespace) -> str:
    """Who looks at what a command shows of people's judgments: ``--reviewer`` (given before or
    after the command), else :func:`actor`. Every command that shows or exports judgments asks
    this, so a reviewer still judging is held back or refused whichever way they are named."""
    reviewer = getattr(args, "reviewer", None)
    return str(reviewer) if reviewer is not None else actor(args)
