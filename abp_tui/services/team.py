"""The team of a shared server: who may open a session on a database over SSH, as whom.

One service account owns the database and its folder; each member's public key is a line of
that account's ``authorized_keys`` whose forced command opens their session
(:mod:`abp_tui.services.authorized_keys`). The team is stored in the database itself
(:mod:`abp_tui.store.team`), every change audited, and the file's block for the database is
written from it at each change, in the same transaction: when the file cannot be written the
database is left as it was.

A session (:func:`open_session`) signs the member in with their role
(:mod:`abp_tui.services.roles`); a member removed from the team is refused even if a stale line
still named them.
"""

from __future__ import annotations

import os
import pwd
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

import abp_tui
from abp_tui.errors import AbpError
from abp_tui.services import authorized_keys as keys
from abp_tui.services.roles import ROLES, Member, sign_in
from abp_tui.store import connect, utc_now
from abp_tui.store import team as sql

__all__ = [
    "TeamMember",
    "add_member",
    "default_authorized_keys",
    "member_details",
    "open_session",
    "readable_by_others",
    "refuse_shared_writes",
    "remove_member",
    "session_program",
    "team_members",
]


@dataclass(frozen=True)
class TeamMember:
    name: str
    role: str
    fingerprint: str
    added_by: str
    added_at: str
    line: str | None = None
    """Their authorized_keys line (with ``team show``)."""
    changes: tuple[sql.TeamChange, ...] = ()


def default_authorized_keys() -> Path:
    """The ``~/.ssh/authorized_keys`` of the account running the command (its home as the
    system knows it, not ``$HOME``)."""
    return Path(pwd.getpwuid(os.getuid()).pw_dir) / ".ssh" / "authorized_keys"


def session_program() -> list[str]:
    """How a forced command runs this abp-tui: this interpreter, by its absolute path, with
    ``-m abp_tui``; with this package's folder on ``PYTHONPATH`` when the interpreter, started
    as sshd starts it (from the account's home, none of our environment), would not find this
    very package."""
    program = [sys.executable, "-m", "abp_tui"]
    here = Path(abp_tui.__file__).resolve()
    plain = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    try:
        found = subprocess.run(
            [sys.executable, "-c", "import abp_tui; print(abp_tui.__file__)"],
            env=plain,
            cwd=pwd.getpwuid(os.getuid()).pw_dir,
            capture_output=True,
            text=True,
            timeout=60,
        )
        same = found.returncode == 0 and Path(found.stdout.strip()).resolve() == here
    except (OSError, subprocess.SubprocessError):
        same = False
    if not same:
        program = ["env", f"PYTHONPATH={here.parent.parent}", *program]
    return program


def readable_by_others(db_path: Path) -> Path | None:
    """The database's folder when other accounts of the server may read or list it (they could
    read the judgments, unblinded, behind the tool's back); None when it is private."""
    folder = db_path.resolve().parent
    try:
        return folder if folder.stat().st_mode & 0o077 else None
    except OSError:
        return None


def _absolute(db_path: Path) -> Path:
    db = db_path.resolve()
    if any(ord(c) < 32 or ord(c) == 127 for c in str(db)):
        raise AbpError(f"{db_path!r}: a database path with control characters cannot be granted")
    return db


def refuse_shared_writes(db_path: Path) -> None:
    """AbpError unless the database, its folder and its WAL files belong to this account and
    no other account may write them: otherwise anyone who can write the file can edit the team
    and the judgments behind the tool's back."""
    uid = os.getuid()
    for path in (db_path.parent, db_path, *(Path(f"{db_path}{s}") for s in ("-wal", "-shm"))):
        try:
            info = path.stat()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise AbpError(f"{path}: cannot check its permissions: {exc.strerror}") from None
        sticky = stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX
        if info.st_uid != uid or (info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not sticky):
            owner = _account(info.st_uid)
            raise AbpError(
                f"{path}: owned by {owner} with mode {stat.filemode(info.st_mode)}: a team's "
                f"database and its folder must belong to the account serving it "
                f"({_account(uid)}) and be writable by it alone (chown it, chmod go-w)"
            )
        if sticky:
            raise AbpError(
                f"{path}: a shared folder (anyone may create files in it): keep a team's "
                "database in a folder of the account serving it"
            )


def _account(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _write_grants(db: sqlite_utils.Database, where: Path, authorized_keys: Path) -> None:
    program = session_program()
    lines = [
        keys.grant_line(program, where, m.name, keys.parse_key(m.public_key.split(), m.name))
        for m in sql.members(db)
    ]
    keys.write_block(authorized_keys, where, lines)


def add_member(
    db_path: Path,
    name: str,
    key_file: Path,
    role: str,
    authorized_keys: Path,
    actor: str,
) -> tuple[TeamMember, str]:
    """Add ``name`` to the team with the key in ``key_file`` and ``role`` (or change their role,
    same key), and write the grants; returns the member and what was done (added, role changed,
    unchanged)."""
    keys.check_name(name)
    if role not in ROLES:
        raise AbpError(f"--role {role}: expected one of {', '.join(ROLES)}")
    key = keys.read_key_file(key_file)
    where = _absolute(db_path)
    refuse_shared_writes(where)
    granted = keys.grants(authorized_keys).get(key.fingerprint)
    db = connect(where)
    try:
        with db.atomic():
            if sql.is_judge(db, name):
                raise AbpError(f"{name} is an AI judge's id: a judge is never a team member")
            current = sql.member(db, name)
            holder = sql.member_with_key(db, key.fingerprint)
            if holder is not None and holder.name != name:
                raise AbpError(
                    f"{key_file}: key {key.fingerprint} is already granted to {holder.name}; "
                    "one key names one person"
                )
            if granted is not None and granted.database != str(where):
                whom = (
                    f"{granted.member} of {granted.database}"
                    if granted.database
                    else "the account itself, outside abp-tui's block"
                )
                raise AbpError(
                    f"{key_file}: key {key.fingerprint} is already granted to {whom} "
                    f"({authorized_keys} line {granted.line_no}); one key names one person"
                )
            if current is not None and current.fingerprint != key.fingerprint:
                raise AbpError(
                    f"{name} is already on the team with key {current.fingerprint}: "
                    f"`abp-tui team remove {name}` first to give them another key"
                )
            if current is not None and current.role == role:
                done = "unchanged"
            elif current is not None:
                sql.set_role(db, name, role)
                sql.record_change(
                    db, actor, "role", name, role, key.fingerprint, str(authorized_keys)
                )
                done = "role changed"
            else:
                sql.add_member(
                    db, sql.MemberRow(name, role, key.text, key.fingerprint, actor, utc_now())
                )
                sql.record_change(
                    db, actor, "add", name, role, key.fingerprint, str(authorized_keys)
                )
                done = "added"
            _write_grants(db, where, authorized_keys)
            row = sql.member(db, name)
            assert row is not None
        return _member(row), done
    finally:
        db.close()


def remove_member(db_path: Path, name: str, authorized_keys: Path, actor: str) -> TeamMember:
    """Take ``name`` off the team and their key out of the file."""
    where = _absolute(db_path)
    db = connect(where)
    try:
        with db.atomic():
            row = sql.member(db, name)
            if row is None:
                raise AbpError(f"{name} is not on the team of {where}")
            sql.remove_member(db, name)
            sql.record_change(
                db, actor, "remove", name, None, row.fingerprint, str(authorized_keys)
            )
            _write_grants(db, where, authorized_keys)
        return _member(row)
    finally:
        db.close()


def _member(row: sql.MemberRow) -> TeamMember:
    return TeamMember(row.name, row.role, row.fingerprint, row.added_by, row.added_at)


def team_members(db: sqlite_utils.Database) -> list[TeamMember]:
    return [_member(row) for row in sql.members(db)]


def member_details(db: sqlite_utils.Database, db_path: Path, name: str) -> TeamMember:
    """A member with their authorized_keys line and every change to them."""
    row = sql.member(db, name)
    if row is None:
        raise AbpError(f"{name} is not on the team of {db_path}")
    key = keys.parse_key(row.public_key.split(), name)
    line = keys.grant_line(session_program(), _absolute(db_path), name, key)
    return TeamMember(
        row.name,
        row.role,
        row.fingerprint,
        row.added_by,
        row.added_at,
        line,
        tuple(sql.changes(db, name)),
    )


def open_session(db_path: Path, name: str) -> Member:
    """Sign ``name`` in with their role on the team of ``db_path`` (a session's first step);
    AbpError when they are not on it or the database may be written by other accounts."""
    refuse_shared_writes(db_path)
    db = connect(db_path)
    try:
        row = sql.member(db, name)
    finally:
        db.close()
    if row is None:
        raise AbpError(f"{name} is not on the team of this database: ask its coordinator")
    return sign_in(row.name, row.role)
