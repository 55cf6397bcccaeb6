"""What the options every command shares mean: which database (``--db``), who acts (``--by``),
who looks (``--reviewer``, before or after the command: one option of every command), and the
ranges numeric options take. Opening the database is the store's job; this module only resolves
the names and checks the numbers.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from abp_tui.errors import AbpError
from abp_tui.stats.limits import MAX_SEED, resamples_problem

if TYPE_CHECKING:
    import sqlite_utils

from abp_tui.text.hints import DEFAULT_DB

__all__ = [
    "DEFAULT_DB",
    "actor",
    "db_path",
    "existing_db",
    "forget_created",
    "open_db",
    "remove_created",
]


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


def existing_db(args: argparse.Namespace) -> Path:
    """The database named by ``--db``, for a command that reads or changes one and never makes
    one: where there is none (a mistyped ``--db``, a database not made yet) it is refused in one
    line naming the path and how to make a database, and nothing is created."""
    path = db_path(args)
    if not exists(path):
        from abp_tui.text.hints import no_database

        raise AbpError(no_database(path))
    return path


_CREATED: list[tuple[sqlite_utils.Database, Path, Path | None]] = []
"""The databases this command created: each, its path and the outermost folder made for it
(None: its folder was there)."""


def open_db(args: argparse.Namespace, *, create: bool = False) -> sqlite_utils.Database:
    """The database named by ``--db``, opened (and migrated) by the store. Only a command that
    makes a database on purpose (``create``: an import, the demo, ``pack open``, the
    workstation) makes one where there is none; any other is refused in one line, before
    anything is made (a mistyped ``--db`` leaves no database nor folder behind). One this command
    creates is remembered: a refused command leaves it behind only if an import was stored
    (:func:`remove_created`)."""
    from abp_tui.store import connect

    path = db_path(args)
    created = not exists(path)
    if created and not create:
        existing_db(args)  # refused: there is none
    made: Path | None = None
    if created:
        folder = path.parent
        while folder != folder.parent and not exists(folder):
            made, folder = folder, folder.parent
    db = connect(path)
    if created:
        _CREATED.append((db, path, made))
    elif getattr(args, "reviewer", None) is None:  # a station acts as its pack's reviewer
        from abp_tui.services.station_owner import station_reviewer

        owner = station_reviewer(db)
        if owner is not None:
            args.reviewer = owner
    return db


def forget_created() -> None:
    """The command is over: what it created is no longer its own to remove (nor held open)."""
    _CREATED.clear()


def remove_created() -> None:
    """The command was refused: each database it created that holds no import is removed, with
    the folders made for it (``--db`` mistyped, a study named that is not there: nothing is
    left behind). A database that holds an import, or cannot say, stays."""
    import sqlite3

    import sqlite_utils

    while _CREATED:
        db, path, made = _CREATED.pop()
        db.close()  # the command's own connection, if it did not close it
        if exists(path):
            _remove_if_empty(sqlite_utils.Database(sqlite3.connect(path)), path, made_folder=False)
        if made is None or exists(path):
            continue
        folder = path.parent
        while True:  # the folders made for it, innermost first, each only if empty
            with contextlib.suppress(OSError):
                folder.rmdir()
            if folder == made:
                break
            folder = folder.parent


@contextlib.contextmanager
def opened_or_removed(args: argparse.Namespace) -> Iterator[sqlite_utils.Database]:
    """The database named by ``--db``; when this command created it and fails (a refused
    import, a refused pack), it leaves no database behind (nor the folder made for it). Only a
    file this command created, and only when it holds no import."""
    path = db_path(args)
    created = not exists(path)
    made_folder = not exists(path.parent)
    db = open_db(args, create=True)
    try:
        yield db
    except BaseException:
        if created:
            _remove_if_empty(db, path, made_folder)
        raise


def _remove_if_empty(db: sqlite_utils.Database, path: Path, made_folder: bool) -> None:
    from abp_tui.store.import_sessions import alive, sessions
    from abp_tui.store.receipts import imports_stored

    stored = imports_stored(db)
    try:  # another process importing into it now: it stays
        importing = any(alive(session) for session in sessions(db))
    except Exception:  # a database half made, or not ours: left alone
        importing = True
    db.close()
    if stored != 0 or importing:
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    if made_folder:
        with contextlib.suppress(OSError):  # not empty after all: leave it
            path.parent.rmdir()


def actor(args: argparse.Namespace) -> str:
    """Who acts, for the audit log: the person a team session signed in, else ``--by``, else
    ``--reviewer``, else the user logged in."""
    from abp_tui.services.roles import signed_in

    member = signed_in()
    if member is not None:
        return member.name
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
    this, so a reviewer still judging is held back or refused whichever way they are named.
    In a team session, always the person signed in."""
    from abp_tui.services.roles import signed_in

    member = signed_in()
    if member is not None:
        return member.name
    reviewer = getattr(args, "reviewer", None)
    return str(reviewer) if reviewer is not None else actor(args)


# -- the ranges of numeric options -----------------------------------------------------------------
# Declared with the option in the parser (``type=``): a value outside its range is refused in one
# line naming the option, before anything is opened or computed, with the exit status of bad
# input (1). A value that is not a number at all stays argparse's usage error (2).
class OptionError(AbpError):
    """A numeric option's value is outside the range the option declares."""


def _number(text: str, kind: type[int] | type[float]) -> int | float:
    try:
        return kind(text)
    except (ValueError, OverflowError):
        raise ValueError(text) from None  # argparse: "invalid int value: 'x'" (usage, exit 2)


def whole(option: str, low: int, high: int, what: str = "a whole number") -> Callable[[str], int]:
    """``type=`` of an integer option taking ``low`` to ``high`` (both included)."""

    def parse(text: str) -> int:
        value = int(_number(text, int))
        if not low <= value <= high:
            raise OptionError(f"{option}: expected {what} from {low} to {high}, got {value}")
        return value

    parse.__name__ = "int"  # argparse names the type in its usage error
    return parse


def wholes(option: str, low: int, high: int) -> Callable[[str], tuple[int, ...]]:
    """``type=`` of an option taking one or more whole numbers from ``low`` to ``high``,
    separated by commas (``2000,20000``)."""
    one = whole(option, low, high)

    def parse(text: str) -> tuple[int, ...]:
        parts = [part.strip() for part in text.split(",")]
        if not all(parts):
            raise OptionError(f"{option}: expected whole numbers separated by commas, got {text!r}")
        return tuple(one(part) for part in parts)

    parse.__name__ = "int"
    return parse


def sizes(option: str, low: int = 2, high: int = 10**7) -> Callable[[str], list[int]]:
    """``type=`` of a comma-separated list of whole numbers, each ``low`` to ``high``."""
    listed = wholes(option, low, high)

    def parse(text: str) -> list[int]:
        return list(listed(text))

    parse.__name__ = "int"
    return parse


def resamples(option: str) -> Callable[[str], int]:
    """``type=`` of a number of bootstrap resamples: 0 (no interval) to MAX_RESAMPLES."""

    def parse(text: str) -> int:
        value = int(_number(text, int))
        problem = resamples_problem(value)
        if problem is not None:
            raise OptionError(f"{option}: {problem}")
        return value

    parse.__name__ = "int"
    return parse


def real(
    option: str, low: float, high: float, what: str = "a number", *, above: bool = False
) -> Callable[[str], float]:
    """``type=`` of a float option taking ``low`` to ``high`` (both included, but ``low`` when
    ``above``; never NaN)."""

    def parse(text: str) -> float:
        value = float(_number(text, float))
        if above and value == low:
            raise OptionError(
                f"{option}: expected {what} above {low:g} and at most {high:g}, got {text}"
            )
        if not low <= value <= high:  # NaN compares false: refused too
            span = f"above {low:g} and at most {high:g}" if above else f"from {low:g} to {high:g}"
            raise OptionError(f"{option}: expected {what} {span}, got {text}")
        return value

    parse.__name__ = "float"
    return parse


def seed(option: str = "--seed") -> Callable[[str], int]:
    """``type=`` of a bootstrap's seed: 0 to MAX_SEED."""
    return whole(option, 0, MAX_SEED)
