"""The team of a shared server: its members (name, role, public key) and the audit of every
change (:mod:`abp_tui.services.team` decides; this module only reads and writes the rows)."""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from abp_tui.store.db import utc_now


@dataclass(frozen=True)
class MemberRow:
    name: str
    role: str
    public_key: str
    fingerprint: str
    added_by: str
    added_at: str


@dataclass(frozen=True)
class TeamChange:
    at: str
    actor: str
    action: str
    name: str
    role: str | None
    fingerprint: str
    authorized_keys: str


_MEMBER = "SELECT name, role, public_key, fingerprint, added_by, added_at FROM team_members "


def members(db: sqlite_utils.Database) -> list[MemberRow]:
    return [MemberRow(*row) for row in db.execute(_MEMBER + "ORDER BY name").fetchall()]


def member(db: sqlite_utils.Database, name: str) -> MemberRow | None:
    row = db.execute(_MEMBER + "WHERE name = ?", [name]).fetchone()
    return MemberRow(*row) if row else None


def member_with_key(db: sqlite_utils.Database, fingerprint: str) -> MemberRow | None:
    row = db.execute(_MEMBER + "WHERE fingerprint = ?", [fingerprint]).fetchone()
    return MemberRow(*row) if row else None


def is_judge(db: sqlite_utils.Database, name: str) -> bool:
    """Whether ``name`` is an AI judge's id."""
    return db.execute("SELECT 1 FROM judges WHERE id = ? LIMIT 1", [name]).fetchone() is not None


def add_member(db: sqlite_utils.Database, row: MemberRow) -> None:
    db.execute(
        "INSERT INTO team_members (name, role, public_key, fingerprint, added_by, added_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [row.name, row.role, row.public_key, row.fingerprint, row.added_by, row.added_at],
    )


def set_role(db: sqlite_utils.Database, name: str, role: str) -> None:
    db.execute("UPDATE team_members SET role = ? WHERE name = ?", [role, name])


def remove_member(db: sqlite_utils.Database, name: str) -> None:
    db.execute("DELETE FROM team_members WHERE name = ?", [name])


def record_change(
    db: sqlite_utils.Database,
    actor: str,
    action: str,
    name: str,
    role: str | None,
    fingerprint: str,
    authorized_keys: str,
) -> None:
    db.execute(
        "INSERT INTO team_audit (at, actor, action, name, role, fingerprint, authorized_keys) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [utc_now(), actor, action, name, role, fingerprint, authorized_keys],
    )


def changes(db: sqlite_utils.Database, name: str | None = None) -> list[TeamChange]:
    """Every change to the team (of ``name`` only, when given), oldest first."""
    sql = "SELECT at, actor, action, name, role, fingerprint, authorized_keys FROM team_audit "
    if name is None:
        rows = db.execute(sql + "ORDER BY pk").fetchall()
    else:
        rows = db.execute(sql + "WHERE name = ? ORDER BY pk", [name]).fetchall()
    return [TeamChange(*row) for row in rows]


__all__ = [
    "MemberRow",
    "TeamChange",
    "add_member",
    "changes",
    "is_judge",
    "member",
    "member_with_key",
    "members",
    "record_change",
    "remove_member",
    "set_role",
]
