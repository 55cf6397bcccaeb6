"""The commands the program suggests, as the user would paste them, and how a database is named
in a message.

A hint is pasted into a shell in the folder the program ran in, so it must reach the same
database: :func:`command` adds ``--db PATH`` whenever the database in use is not the default
(:data:`DEFAULT_DB`), and quotes what a shell would split. Every face builds its hints here.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

DEFAULT_DB = Path("data") / "abp.db"
"""Where the workstation keeps its database when ``--db`` is not given (relative to the current
folder, so ``make run`` in a checkout opens the demo data beside it)."""

MEMORY = ":memory:"


def _path_of(db: object) -> str | None:
    """The file of ``db``: a path, or an open database (its ``path``); None when unknown."""
    if db is None:
        return None
    if isinstance(db, str | os.PathLike):
        return os.fspath(db)
    path = getattr(db, "path", None)
    return str(path) if path is not None else None


def is_default_db(db: object) -> bool:
    """Whether ``db`` (a path or an open database) is the default database, or has no file."""
    path = _path_of(db)
    if path is None or path in ("", MEMORY):
        return True
    if Path(path) == DEFAULT_DB:
        return True
    return os.path.abspath(path) == os.path.abspath(DEFAULT_DB)


def database_named(db: object) -> str:
    """How a message names the database ``db`` (a path or an open database): its file."""
    path = _path_of(db)
    if path is None or path in ("", MEMORY):
        return "the database"
    return path


def command(words: str, db: object = None) -> str:
    """``abp-tui WORDS``, with ``--db PATH`` when ``db`` (a path or an open database) is not the
    default database. ``words`` are the command and its options, already quoted where needed
    (:func:`quoted` quotes a value)."""
    text = f"abp-tui {words}"
    if not is_default_db(db):
        text += f" --db {quoted(database_named(db))}"
    return text


def quoted(value: str) -> str:
    """``value`` as one shell word (unchanged when it needs no quotes)."""
    return shlex.quote(value)


def no_such_study(study: str, db: object) -> str:
    """The message for a study ``db`` (a path or an open database) does not hold: it names the
    database's file, so a command run on the wrong one says which one it read."""
    return f"no study {study!r} in {database_named(db)}"


def no_database(path: Path) -> str:
    """The message for a command that reads a database, given a ``--db`` where there is none
    (mistyped, or not made yet): it names the path, says nothing was created there, and how to
    create a database (by importing run records into it)."""
    return (
        f"no database at {path} (nothing was created there); create one by importing run "
        f"records: {command('import PATH', path)}"
    )
