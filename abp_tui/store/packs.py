"""SQL for reviewer packs issued by a coordinator, merges of their ratings (revisions compared
and appended with their own numbers), what a reviewer station holds, and the audit log."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from abp_tui.models import Judgment, JudgmentRevision
from abp_tui.store.db import utc_now
from abp_tui.store.judging import JUDGMENT_SELECT, design_run_ids, judgment_revision


def record_pack(
    db: sqlite_utils.Database, sha256: str, design_pk: int, reviewer: str, items: int
) -> None:
    db.execute(
        "INSERT OR IGNORE INTO packs (sha256, design_pk, reviewer, items, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [sha256, design_pk, reviewer, items, utc_now()],
    )


def pack(db: sqlite_utils.Database, sha256: str) -> tuple[int, str, str] | None:
    """(design pk, reviewer, when it was first issued) of a pack this database issued."""
    row = db.execute(
        "SELECT design_pk, reviewer, created_at FROM packs WHERE sha256 = ?", [sha256]
    ).fetchone()
    return (int(row[0]), str(row[1]), str(row[2])) if row else None


def merged(db: sqlite_utils.Database, sha256: str) -> str | None:
    row = db.execute("SELECT merged_at FROM merges WHERE sha256 = ?", [sha256]).fetchone()
    return str(row[0]) if row else None


def record_merge(
    db: sqlite_utils.Database, sha256: str, pack_sha256: str, reviewer: str, judgments: int
) -> None:
    db.execute(
        "INSERT INTO merges (sha256, pack_sha256, reviewer, judgments, merged_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [sha256, pack_sha256, reviewer, judgments, utc_now()],
    )


@dataclass(frozen=True)
class StoredRevision:
    """One stored revision of a reviewer's judgment of an item, as a merge compares it."""

    revision: int
    status: str
    judgment: Judgment
    """Responses keyed by run key, as stored."""
    placement: str
    """Position -> run key, as JSON."""
    reason: str
    seconds_spent: float
    created_at: str

    def same_as(self, other: StoredRevision) -> bool:
        """Identical in everything stored (the placement compared as data, not as text)."""
        return (
            self.revision,
            self.status,
            self.judgment,
            json.loads(self.placement),
            self.reason,
            self.seconds_spent,
            self.created_at,
        ) == (
            other.revision,
            other.status,
            other.judgment,
            json.loads(other.placement),
            other.reason,
            other.seconds_spent,
            other.created_at,
        )


def revisions(db: sqlite_utils.Database, item_pk: int, reviewer: str) -> dict[int, StoredRevision]:
    """Every stored revision of a reviewer's judgment of an item, by revision number."""
    rows = db.execute(
        "SELECT revision, status, payload, placement, reason, seconds_spent, created_at "
        "FROM judgments WHERE item_pk = ? AND reviewer = ? ORDER BY revision",
        [item_pk, reviewer],
    ).fetchall()
    return {
        int(r[0]): StoredRevision(
            int(r[0]), r[1], Judgment.model_validate_json(r[2]), r[3], r[4], float(r[5]), r[6]
        )
        for r in rows
    }


def insert_merged_judgment(
    db: sqlite_utils.Database, item_pk: int, reviewer: str, revision: StoredRevision
) -> None:
    """Append a revision made on a reviewer station, keeping its number and the time it was
    made (the caller checked that it follows the last one stored)."""
    db.execute(
        "INSERT INTO judgments (item_pk, reviewer, revision, status, payload, placement, reason, "
        "seconds_spent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            item_pk,
            reviewer,
            revision.revision,
            revision.status,
            revision.judgment.model_dump_json(),
            revision.placement,
            revision.reason,
            revision.seconds_spent,
            revision.created_at,
        ],
    )
    db.execute(
        "UPDATE designs SET frozen_at = ? WHERE frozen_at IS NULL AND pk = "
        "(SELECT design_pk FROM items WHERE pk = ?)",
        [revision.created_at, item_pk],
    )


def freeze_design(db: sqlite_utils.Database, design_pk: int) -> None:
    """Freeze a design now (as its first judgment would): it never changes after this."""
    db.execute(
        "UPDATE designs SET frozen_at = ? WHERE frozen_at IS NULL AND pk = ?",
        [utc_now(), design_pk],
    )


def audit(db: sqlite_utils.Database, actor: str, action: str, detail: dict[str, Any]) -> None:
    db.execute(
        "INSERT INTO audit_log (at, actor, action, detail) VALUES (?, ?, ?, ?)",
        [utc_now(), actor, action, json.dumps(detail, sort_keys=True, ensure_ascii=False)],
    )


def audit_log(db: sqlite_utils.Database) -> list[tuple[str, str, str, dict[str, Any]]]:
    rows = db.execute("SELECT at, actor, action, detail FROM audit_log ORDER BY pk").fetchall()
    return [(r[0], r[1], r[2], json.loads(r[3])) for r in rows]


def all_judgments(
    db: sqlite_utils.Database, design_pk: int, reviewer: str
) -> list[JudgmentRevision]:
    """Every revision by a reviewer in a design (drafts too), in the order they were made."""
    run_ids = design_run_ids(db, design_pk)
    return [
        judgment_revision(r, run_ids)
        for r in db.execute(
            JUDGMENT_SELECT + "WHERE i.design_pk = ? AND j.reviewer = ? ORDER BY j.pk",
            [design_pk, reviewer],
        ).fetchall()
    ]


def database_file(db: sqlite_utils.Database) -> str:
    """The file the database lives in ("" for an in-memory one), for messages."""
    for _seq, name, file in db.execute("PRAGMA database_list").fetchall():
        if name == "main":
            return str(file or "")
    return ""


def tables_with_rows(db: sqlite_utils.Database) -> list[str]:
    """The tables holding any row, but the schema's own record of migrations: what makes a
    database more than a new, empty one."""
    names = [
        str(r[0])
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name != '_migrations' ORDER BY name"
        ).fetchall()
    ]
    return [n for n in names if db.execute(f'SELECT 1 FROM "{n}" LIMIT 1').fetchone()]


def study_ids(db: sqlite_utils.Database) -> list[str]:
    """Every study id the database holds, sorted."""
    return [str(r[0]) for r in db.execute("SELECT id FROM studies ORDER BY id").fetchall()]


def station_run_pk(station: sqlite_utils.Database, study: str, run_id: str) -> int:
    """Database key of the current version of a run of a reviewer station."""
    row = station.execute(
        "SELECT pk FROM runs WHERE study_id = ? AND id = ? AND current = 1", [study, run_id]
    ).fetchone()
    return int(row[0])


def insert_station_item(
    station: sqlite_utils.Database,
    design_pk: int,
    code: str,
    kind: str,
    task_pk: int,
    run_a_pk: int,
    run_b_pk: int | None,
    masking: str,
    reviewer: str,
    order_index: int,
) -> None:
    """Store one item of a study pack (its code is also its key) and its one assignment."""
    cur = station.execute(
        "INSERT INTO items (design_pk, key, code, kind, task_pk, trial, run_a_pk, "
        "run_b_pk, base_flip, masking) VALUES (?, ?, ?, ?, ?, 1, ?, ?, 0, ?)",
        [design_pk, code, code, kind, task_pk, run_a_pk, run_b_pk, masking],
    )
    station.execute(
        "INSERT INTO assignments (item_pk, reviewer, slot, order_index, flipped) "
        "VALUES (?, ?, 0, ?, 0)",
        [cur.lastrowid, reviewer, order_index],
    )


def attach_station_trace(
    station: sqlite_utils.Database,
    run_pk: int,
    events: list[tuple[int, str, str | None, int | None, int | None, float | None]],
) -> None:
    """Store a trace carried by a study pack, (seq, kind, tool, input tokens, output tokens,
    duration ms) per event, and make it the trace of a station run."""
    cur = station.execute(
        "INSERT INTO traces (sha256, n_events) VALUES (?, ?)", [None, len(events)]
    )
    station.conn.executemany(
        "INSERT INTO trace_events (trace_pk, seq, t, kind, tool, input_tokens, "
        "output_tokens, cache_read_tokens, cache_write_tokens, duration_ms, raw) "
        "VALUES (?, ?, NULL, ?, ?, ?, ?, NULL, NULL, ?, '')",
        [(cur.lastrowid, *event) for event in events],
    )
    station.execute("UPDATE runs SET trace_pk = ? WHERE pk = ?", [cur.lastrowid, run_pk])
