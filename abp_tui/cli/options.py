"""What the options every command shares mean: which database (``--db``) and who acts
(``--by``). Opening the database is the store's job; this module only resolves the names.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

from abp_tui.text.hints import DEFAULT_DB

__all__ = ["DEFAULT_DB", "actor", "db_path", "open_db"]


def db_path(args: argparse.Namespace) -> Path:
    """The database named by ``--db``, else the workstation's default."""
    return Path(getattr(args, "db", None) or DEFAULT_DB)


def open_db(args: argparse.Namespace) -> sqlite_utils.Database:
    """The database named by ``--db``, opened (and migrated) by the store."""
    from abp_tui.store import connect

    return connect(db_path(args))


def actor(args: argparse.Namespace) -> str:
    """Who acts, for the audit log: ``--by``, else the user logged in."""
    if getattr(args, "by", None):
        return str(args.by)
    import getpass

    try:
        return getpass.getuser() or "coordinator"
    except (OSError, KeyError):
        return "coordinator"
