"""Opening the database: pragmas (WAL, foreign keys, busy timeout) and recorded migrations."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import sqlite_utils

from abp_tui.errors import StoreError
from abp_tui.store.schema import MIGRATIONS
from abp_tui.store.views import refresh_views

BUSY_TIMEOUT_MS = 5000


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def connect(path: Path) -> sqlite_utils.Database:
    """Open (creating if needed) the database at ``path`` and bring its schema up to date."""
    if str(path) != ":memory:":
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{path}: cannot create its folder: {exc.strerror}") from None
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        db = sqlite_utils.Database(conn, execute_plugins=False)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA foreign_keys = ON")
        if str(path) != ":memory:":
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
        migrate(db)
        refresh_views(db)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: not a usable abp-tui database ({exc})") from None
    return db


def migrate(db: sqlite_utils.Database) -> list[str]:
    """Apply the migrations not yet recorded, each in its own transaction; return their names."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    applied = {row[0] for row in db.execute("SELECT name FROM _migrations").fetchall()}
    unknown = applied - {name for name, _ in MIGRATIONS}
    if unknown:
        raise StoreError(
            f"the database was written by a newer abp-tui (migrations {sorted(unknown)}); "
            "upgrade abp-tui to open it"
        )
    done: list[str] = []
    for name, sql in MIGRATIONS:
        if name in applied:
            continue
        with db.atomic():
            # Statements end with ";" and a newline; a trigger's body stays on its line.
            for statement in sql.split(";\n"):
                if statement.strip():
                    db.execute(statement)
            db.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", [name, utc_now()]
            )
        done.append(name)
    return done
