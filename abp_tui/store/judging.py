"""SQL for study designs, items, assignments, judgments, positions and findings.

:func:`records_of_design` reads what :mod:`abp_tui.analysis` computes verdicts, results and
agreement from; the rules themselves live there, not in SQL. Items, judgment and adjudication
revisions leave this module as the shared records of :mod:`abp_tui.models.records`, runs named by
id: payloads are stored keyed by the database's run keys, and the converters here map those keys
to run ids on the way out (:class:`StoredItem` keeps both, for the sessions that write).

Judgments are append-only (SQLite triggers refuse UPDATE and DELETE): a save adds a revision.
A reviewer can read other reviewers' judgments of an item only after submitting their own; that
rule lives here, in :func:`others_judgments`, not in any screen.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from abp_tui.analysis.blinding import Assignment, PlannedItem
from abp_tui.analysis.placement import relabel
from abp_tui.analysis.records import in_scope
from abp_tui.errors import AbpError
from abp_tui.models import (
    AdjudicationRevision,
    DesignRecords,
    Finding,
    FindingRevision,
    Judgment,
    JudgmentRevision,
    Rubric,
    RunFacts,
)
from abp_tui.models.base import held_dict, held_once, same, shared_fields, sharing, trusted
from abp_tui.store import overview
from abp_tui.store.allocation import draws as allocation_draws
from abp_tui.store.db import utc_now
from abp_tui.store.design_rules import stated_design
from abp_tui.store.item_rows import ITEM_SELECT, item_row, plan_item
from abp_tui.store.item_rows import StoredItem as StoredItem
from abp_tui.store.overview import ReviewerProgress as ReviewerProgress
from abp_tui.store.queries import run_facts
from abp_tui.text.hints import no_such_study

if TYPE_CHECKING:
    import sqlite_utils


class BlindingError(AbpError):
    """A request that would show a reviewer what they may not see yet."""


@dataclass(frozen=True)
class DesignRow:
    pk: int
    study_id: str
    name: str
    version_no: int
    sha256: str
    document_json: str
    rubric: dict[str, Any]
    seed: int
    created_at: str
    frozen_at: str | None

    @cached_property
    def document(self) -> dict[str, Any]:
        """The stored document, parsed when first read: choosing a design reads its name, and
        a large design's document commits to every task (:func:`design_rules.stated_design`)."""
        found: dict[str, Any] = json.loads(self.document_json)
        return found


_DESIGN_COLS = (
    "pk, study_id, name, version_no, sha256, document, rubric, seed, created_at, frozen_at"
)


def _design(row: Any) -> DesignRow:
    return DesignRow(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        str(row[5]),
        json.loads(row[6]),
        row[7],
        row[8],
        row[9],
    )


def designs(db: sqlite_utils.Database, study_id: str | None = None) -> list[DesignRow]:
    if study_id is None:
        rows = db.execute(
            f"SELECT {_DESIGN_COLS} FROM designs ORDER BY study_id, name, version_no"
        ).fetchall()
    else:
        rows = db.execute(
            f"SELECT {_DESIGN_COLS} FROM designs WHERE study_id = ? ORDER BY name, version_no",
            [study_id],
        ).fetchall()
    return [_design(r) for r in rows]


def design(db: sqlite_utils.Database, pk: int) -> DesignRow:
    row = db.execute(f"SELECT {_DESIGN_COLS} FROM designs WHERE pk = ?", [pk]).fetchone()
    if row is None:
        raise AbpError(f"no study design with key {pk}")
    return _design(row)


def design_pk(db: sqlite_utils.Database, study_id: str, name: str, version_no: int) -> int | None:
    """The key of a study design named as reports name it (study, name, version), or None."""
    row = db.execute(
        "SELECT pk FROM designs WHERE study_id = ? AND name = ? AND version_no = ?",
        [study_id, name, version_no],
    ).fetchone()
    return int(row[0]) if row else None


def insert_design(
    db: sqlite_utils.Database,
    study_id: str,
    name: str,
    version_no: int,
    sha256: str,
    document: str,
    rubric: str,
    seed: int,
    created_at: str | None = None,
) -> int:
    """Store a design (``created_at``: the time its hash commits to; default: now)."""
    cur = db.execute(
        "INSERT INTO designs (study_id, name, version_no, sha256, document, rubric, seed, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [study_id, name, version_no, sha256, document, rubric, seed, created_at or utc_now()],
    )
    assert cur.lastrowid is not None
    return int(cur.lastrowid)


def delete_unfrozen_plan(db: sqlite_utils.Database, design_pk: int) -> None:
    """Drop the plan of a design nobody has judged yet (it is being replaced)."""
    if design(db, design_pk).frozen_at is not None:
        raise AbpError("the design is frozen: a change needs a new version")
    db.execute("DELETE FROM positions WHERE design_pk = ?", [design_pk])
    db.execute(
        "DELETE FROM assignments WHERE item_pk IN (SELECT pk FROM items WHERE design_pk = ?)",
        [design_pk],
    )
    db.execute("DELETE FROM enrolments WHERE design_pk = ?", [design_pk])
    db.execute("DELETE FROM allocation_draws WHERE design_pk = ?", [design_pk])
    db.execute("DELETE FROM items WHERE design_pk = ?", [design_pk])
    db.execute("DELETE FROM designs WHERE pk = ?", [design_pk])


def identities(db: sqlite_utils.Database, study_id: str) -> tuple[list[str], list[str], list[str]]:
    """Condition ids, condition labels, and every provider/model/engine value of the study."""
    conds = db.execute(
        "SELECT DISTINCT id, label FROM conditions WHERE study_id = ?", [study_id]
    ).fetchall()
    runs = db.execute(
        "SELECT DISTINCT provider, model, model_version, engine, engine_version, "
        "engine || '/' || engine_version FROM runs WHERE study_id = ?",
        [study_id],
    ).fetchall()
    values = sorted({v for row in runs for v in row if v})
    return [c[0] for c in conds], [c[1] for c in conds if c[1]], values


def task_pk_of(db: sqlite_utils.Database, run_pk: int) -> int:
    return int(db.execute("SELECT task_pk FROM runs WHERE pk = ?", [run_pk]).fetchone()[0])


def insert_items(
    db: sqlite_utils.Database,
    design_pk: int,
    items: list[PlannedItem],
    masking: dict[str, dict[str, int]],
) -> dict[str, int]:
    """Store the planned items; return item key -> pk."""
    out: dict[str, int] = {}
    for item in items:
        cur = db.execute(
            "INSERT INTO items (design_pk, key, code, kind, task_pk, trial, run_a_pk, run_b_pk, "
            "base_flip, masking) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                design_pk,
                item.key,
                item.code,
                item.kind,
                task_pk_of(db, item.run_a.pk),
                item.trial,
                item.run_a.pk,
                item.run_b.pk if item.run_b else None,
                int(item.base_flip),
                json.dumps(masking.get(item.key, {}), sort_keys=True),
            ],
        )
        assert cur.lastrowid is not None
        out[item.key] = int(cur.lastrowid)
    return out


def ensure_reviewer(db: sqlite_utils.Database, name: str, external: bool = False) -> None:
    """Record a reviewer; refused (before anything is written) for the name of an AI judge."""
    if db.execute("SELECT 1 FROM judges WHERE id = ? LIMIT 1", [name]).fetchone() is not None:
        raise AbpError(
            f"reviewer {name!r}: that is an AI judge's id, and an AI judge is never a reviewer "
            "(its verdicts are measured against people with abp-tui judges); name a person"
        )
    db.execute(
        "INSERT OR IGNORE INTO reviewers (name, external) VALUES (?, ?)", [name, int(external)]
    )


def insert_assignments(
    db: sqlite_utils.Database, key_to_pk: dict[str, int], assignments: list[Assignment]
) -> None:
    for a in assignments:
        ensure_reviewer(db, a.reviewer)
    db.conn.executemany(
        "INSERT INTO assignments (item_pk, reviewer, slot, order_index, flipped) "
        "VALUES (?, ?, ?, ?, ?)",
        [
            (key_to_pk[a.item_key], a.reviewer, a.slot, a.order_index, int(a.flipped))
            for a in assignments
        ],
    )


def enrolment_slot(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> int | None:
    row = db.execute(
        "SELECT slot FROM enrolments WHERE design_pk = ? AND reviewer = ?", [design_pk, reviewer]
    ).fetchone()
    return int(row[0]) if row else None


def add_enrolment(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> int:
    ensure_reviewer(db, reviewer)
    slot = int(
        db.execute("SELECT COUNT(*) FROM enrolments WHERE design_pk = ?", [design_pk]).fetchone()[0]
    )
    db.execute(
        "INSERT INTO enrolments (design_pk, reviewer, slot, enrolled_at) VALUES (?, ?, ?, ?)",
        [design_pk, reviewer, slot, utc_now()],
    )
    return slot


def items(db: sqlite_utils.Database, design_pk: int) -> list[StoredItem]:
    """The design's items in plan order (the order they were stored in)."""
    rows = db.execute(
        ITEM_SELECT.format(more="") + "WHERE i.design_pk = ? ORDER BY i.pk", [design_pk]
    ).fetchall()
    return [item_row(r, index) for index, r in enumerate(rows)]


def item_by_code(
    db: sqlite_utils.Database, design_pk: int, code: str, *, placed: bool = True
) -> StoredItem:
    """The item ``code`` of a design; ``placed`` False leaves its place in the plan uncounted
    (``index`` -1): counting it reads every item of the design stored before it."""
    # The item's place in the plan: how many of the design's items were stored before it.
    more = ", (SELECT COUNT(*) FROM items k WHERE k.design_pk = i.design_pk AND k.pk < i.pk)"
    row = db.execute(
        ITEM_SELECT.format(more=more if placed else ", -1")
        + "WHERE i.design_pk = ? AND i.code = ?",
        [design_pk, code],
    ).fetchone()
    if row is None:
        raise AbpError(f"no item {code} in this study design")
    return item_row(row, row[16])


@dataclass(frozen=True)
class QueueRow:
    item_pk: int
    code: str
    kind: str
    order_index: int
    flipped: bool
    status: str
    """todo, draft or submitted (of this reviewer's latest revision)."""
    revisions: int


def queue(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> list[QueueRow]:
    rows = db.execute(
        """
        SELECT i.pk, i.code, i.kind, a.order_index, a.flipped,
          (SELECT j.status FROM judgments j WHERE j.item_pk = i.pk AND j.reviewer = a.reviewer
             ORDER BY j.revision DESC LIMIT 1),
          (SELECT COUNT(*) FROM judgments j WHERE j.item_pk = i.pk AND j.reviewer = a.reviewer)
        FROM assignments a JOIN items i ON i.pk = a.item_pk
        WHERE i.design_pk = ? AND a.reviewer = ? ORDER BY a.order_index
        """,
        [design_pk, reviewer],
    ).fetchall()
    return [QueueRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5] or "todo", r[6]) for r in rows]


def assignment(db: sqlite_utils.Database, item_pk: int, reviewer: str) -> tuple[int, bool] | None:
    row = db.execute(
        "SELECT slot, flipped FROM assignments WHERE item_pk = ? AND reviewer = ?",
        [item_pk, reviewer],
    ).fetchone()
    return (int(row[0]), bool(row[1])) if row else None


_J_INSERT = (
    "item_pk, reviewer, revision, status, payload, placement, reason, seconds_spent, created_at"
)
JUDGMENT_SELECT = (
    "SELECT i.code, j.reviewer, j.revision, j.status, j.payload, j.placement, j.reason, "
    "j.seconds_spent, j.created_at FROM judgments j JOIN items i ON i.pk = j.item_pk "
)
"""The columns :func:`judgment_revision` converts; callers add the WHERE and ORDER BY."""


_FIGURES_LEAVE_OUT = ("justification", "validity")
_PREFERENCES_ALONE: dict[Any, Judgment] = {}
"""A judgment of a preference alone, as the figures read it, by its preference: one each."""


def _by_run_id(
    payload: str, placement: str, run_ids: Mapping[int, str], figures: bool = False
) -> tuple[Judgment, dict[str, str]]:
    """A stored judgment payload and placement (keyed by run key) keyed by run id instead;
    ``figures``: only what the figures read of it (:func:`records_of_design`)."""
    document = json.loads(payload)
    if figures:
        for name in _FIGURES_LEAVE_OUT:
            document.pop(name, None)
        if not document.get("responses") and set(document) <= {"responses", "preference"}:
            key = document.get("preference")
            held = _PREFERENCES_ALONE.get(key)
            if held is None:
                held = _PREFERENCES_ALONE[key] = Judgment.model_validate(document)
            shown = relabel(json.loads(placement), lambda pk: run_ids[int(pk)])
            return held, held_dict(shown)
    responses = document.get("responses", {})
    document["responses"] = {run_ids[int(k)]: v for k, v in responses.items()}
    shown = relabel(json.loads(placement), lambda pk: run_ids[int(pk)])
    # One of each per judgment of a large study: their keys held once (:func:`held_dict`).
    return shared_fields(Judgment.model_validate(document)), held_dict(shown)


def judgment_revision(
    r: Sequence[Any],
    run_ids: Mapping[int, str],
    figures: bool = False,
    name: Callable[[str], str] = same,
) -> JudgmentRevision:
    """A row as :data:`JUDGMENT_SELECT` reads it, as the shared record (runs by id);
    ``figures``: only what the figures read of it (:func:`records_of_design`); its item's code
    through ``name`` (:func:`abp_tui.models.base.sharing`)."""
    judgment, placement = _by_run_id(r[4], r[5], run_ids, figures)
    # The store keeps only validated records: read back as trusted, one per judgment of a
    # large study, a few reviewers' names and statuses held once.
    return trusted(
        JudgmentRevision,
        item=name(r[0]),
        reviewer=held_once(r[1]),
        revision=int(r[2]),
        status=held_once(r[3]),
        judgment=judgment,
        placement=placement,
        reason="" if figures else r[6],
        seconds_spent=float(r[7]),
        created_at=r[8],
    )


def item_run_ids(db: sqlite_utils.Database, item_pk: int) -> dict[int, str]:
    """Run key -> run id, for the runs of one item."""
    row = db.execute(
        "SELECT i.run_a_pk, ra.id, i.run_b_pk, rb.id FROM items i "
        "JOIN runs ra ON ra.pk = i.run_a_pk LEFT JOIN runs rb ON rb.pk = i.run_b_pk "
        "WHERE i.pk = ?",
        [item_pk],
    ).fetchone()
    if row is None:
        return {}
    return {row[0]: row[1]} if row[2] is None else {row[0]: row[1], row[2]: row[3]}


def design_run_ids(db: sqlite_utils.Database, design_pk: int) -> dict[int, str]:
    """Run key -> run id, for every run the design's items name."""
    return {
        int(pk): str(run_id)
        for pk, run_id in db.execute(
            "SELECT r.pk, r.id FROM runs r WHERE r.pk IN (SELECT run_a_pk FROM items WHERE "
            "design_pk = ? UNION SELECT run_b_pk FROM items WHERE design_pk = ?)",
            [design_pk, design_pk],
        ).fetchall()
    }


def superseded_runs(db: sqlite_utils.Database, design_pk: int) -> frozenset[str]:
    """Ids of the runs the design's items hold an older version of than the current one."""
    rows = db.execute(
        "SELECT DISTINCT r.id FROM runs r JOIN runs cur ON cur.study_id = r.study_id "
        "AND cur.id = r.id AND cur.current = 1 AND cur.pk != r.pk "
        "WHERE r.pk IN (SELECT run_a_pk FROM items WHERE design_pk = ? "
        "UNION SELECT run_b_pk FROM items WHERE design_pk = ?)",
        [design_pk, design_pk],
    ).fetchall()
    return frozenset(str(r[0]) for r in rows)


def latest_judgment(
    db: sqlite_utils.Database, item_pk: int, reviewer: str
) -> JudgmentRevision | None:
    row = db.execute(
        JUDGMENT_SELECT + "WHERE j.item_pk = ? AND j.reviewer = ? ORDER BY j.revision DESC LIMIT 1",
        [item_pk, reviewer],
    ).fetchone()
    return judgment_revision(row, item_run_ids(db, item_pk)) if row else None


def history(db: sqlite_utils.Database, item_pk: int, reviewer: str) -> list[JudgmentRevision]:
    rows = db.execute(
        JUDGMENT_SELECT + "WHERE j.item_pk = ? AND j.reviewer = ? ORDER BY j.revision",
        [item_pk, reviewer],
    ).fetchall()
    ids = item_run_ids(db, item_pk)
    return [judgment_revision(r, ids) for r in rows]


def submissions(db: sqlite_utils.Database, item_pk: int) -> dict[str, int]:
    """Reviewer -> how many times they submitted a judgment of an item (drafts not counted), in
    the order their first submission was stored (a merged station's counts from its merge)."""
    rows = db.execute(
        "SELECT reviewer, COUNT(*) FROM judgments WHERE item_pk = ? AND status = 'submitted' "
        "GROUP BY reviewer ORDER BY MIN(pk)",
        [item_pk],
    ).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def append_judgment(
    db: sqlite_utils.Database,
    item_pk: int,
    reviewer: str,
    status: str,
    payload: str,
    placement: str,
    reason: str,
    seconds_spent: float,
) -> int:
    """Add a revision (and freeze the design at its first judgment); return the revision."""
    with db.atomic():
        row = db.execute(
            "SELECT COALESCE(MAX(revision), 0) FROM judgments WHERE item_pk = ? AND reviewer = ?",
            [item_pk, reviewer],
        ).fetchone()
        revision = int(row[0]) + 1
        now = utc_now()
        db.execute(
            f"INSERT INTO judgments ({_J_INSERT}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [item_pk, reviewer, revision, status, payload, placement, reason, seconds_spent, now],
        )
        db.execute(
            "UPDATE designs SET frozen_at = ? WHERE frozen_at IS NULL AND pk = "
            "(SELECT design_pk FROM items WHERE pk = ?)",
            [now, item_pk],
        )
    return revision


def has_submitted(db: sqlite_utils.Database, item_pk: int, reviewer: str) -> bool:
    row = db.execute(
        "SELECT 1 FROM judgments WHERE item_pk = ? AND reviewer = ? AND "
        "status = 'submitted' LIMIT 1",
        [item_pk, reviewer],
    ).fetchone()
    return row is not None


def others_judgments(
    db: sqlite_utils.Database, item_pk: int, viewer: str
) -> list[JudgmentRevision]:
    """Other reviewers' latest submitted judgments of an item, for a viewer who has submitted.

    Raises BlindingError for a viewer who has not submitted their own judgment of the item.
    """
    if not has_submitted(db, item_pk, viewer):
        raise BlindingError("submit your own judgment of this item before seeing others'")
    rows = db.execute(
        JUDGMENT_SELECT + "WHERE j.item_pk = ? AND j.reviewer != ? AND "
        "j.status = 'submitted' AND j.revision = (SELECT MAX(revision) FROM judgments k WHERE "
        "k.item_pk = j.item_pk AND k.reviewer = j.reviewer AND k.status = 'submitted') "
        "ORDER BY j.reviewer",
        [item_pk, viewer],
    ).fetchall()
    ids = item_run_ids(db, item_pk)
    return [judgment_revision(r, ids) for r in rows]


def set_position(db: sqlite_utils.Database, reviewer: str, design_pk: int, item_pk: int) -> None:
    db.execute(
        "INSERT INTO positions (reviewer, design_pk, item_pk, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (reviewer, design_pk) DO UPDATE SET item_pk = excluded.item_pk, "
        "updated_at = excluded.updated_at",
        [reviewer, design_pk, item_pk, utc_now()],
    )


def position(db: sqlite_utils.Database, reviewer: str, design_pk: int) -> int | None:
    row = db.execute(
        "SELECT item_pk FROM positions WHERE reviewer = ? AND design_pk = ?", [reviewer, design_pk]
    ).fetchone()
    return int(row[0]) if row else None


@dataclass(frozen=True)
class RunContent:
    pk: int
    output: str | None
    origin_status: str | None
    excluded_reason: str | None
    trace_pk: int | None


def run_content(db: sqlite_utils.Database, run_pk: int) -> RunContent:
    row = db.execute(
        "SELECT r.pk, b.text, r.origin_status, r.excluded_reason, r.trace_pk FROM runs r "
        "LEFT JOIN blobs b ON b.sha256 = r.output_sha256 WHERE r.pk = ?",
        [run_pk],
    ).fetchone()
    return RunContent(row[0], row[1], row[2], row[3], row[4])


def trace_events(
    db: sqlite_utils.Database, trace_pk: int, limit: int = 5000
) -> list[tuple[int, str, str | None, int | None, int | None, float | None]]:
    """(seq, kind, tool, input tokens, output tokens, duration ms) of a trace, in order."""
    rows = db.execute(
        "SELECT seq, kind, tool, input_tokens, output_tokens, duration_ms FROM trace_events "
        "WHERE trace_pk = ? ORDER BY seq LIMIT ?",
        [trace_pk, limit],
    ).fetchall()
    return [tuple(r) for r in rows]


def task_row(db: sqlite_utils.Database, task_pk: int) -> dict[str, Any]:
    row = db.execute(
        "SELECT id, title, prompt, base_instruction, evidence, expected_behaviour, "
        "fatal_criteria, risk_type, version FROM tasks WHERE pk = ?",
        [task_pk],
    ).fetchone()
    keys = [
        "id",
        "title",
        "prompt",
        "base_instruction",
        "evidence",
        "expected_behaviour",
        "fatal_criteria",
        "risk_type",
        "version",
    ]
    out = dict(zip(keys, row, strict=True))
    out["fatal_criteria"] = json.loads(out["fatal_criteria"])
    return out


def rubric_document(db: sqlite_utils.Database, rubric_id: str) -> str | None:
    row = db.execute(
        "SELECT document FROM rubrics WHERE id = ? ORDER BY pk DESC LIMIT 1", [rubric_id]
    ).fetchone()
    return str(row[0]) if row else None


def study_rubric_id(db: sqlite_utils.Database, study_id: str) -> str | None:
    row = db.execute("SELECT rubric_id FROM studies WHERE id = ?", [study_id]).fetchone()
    if row is None:
        raise AbpError(f"{no_such_study(study_id, db)} (import it first)")
    return str(row[0]) if row[0] else None


def append_finding(
    db: sqlite_utils.Database,
    study_id: str,
    finding_id: str,
    reviewer: str,
    document: str,
    run_pks: list[int],
) -> int:
    """Add a revision of the reviewer's finding ``finding_id`` (its first when new); refused,
    nothing written, when another reviewer holds that id. The refusal names no one and nothing
    of their finding: a reviewer learns only that the id is not free."""
    with db.atomic():
        row = db.execute(
            "SELECT COALESCE(MAX(revision), 0), SUM(reviewer <> ?) FROM findings "
            "WHERE study_id = ? AND id = ?",
            [reviewer, study_id, finding_id],
        ).fetchone()
        if row[1]:
            raise AbpError(
                f"finding id {finding_id!r} is not free in this study: choose another id"
            )
        revision = int(row[0]) + 1
        cur = db.execute(
            "INSERT INTO findings (study_id, id, revision, reviewer, document, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [study_id, finding_id, revision, reviewer, document, utc_now()],
        )
        assert cur.lastrowid is not None
        db.conn.executemany(
            "INSERT INTO finding_runs (finding_pk, run_pk) VALUES (?, ?)",
            [(cur.lastrowid, pk) for pk in run_pks],
        )
    return revision


def finding_revisions(
    db: sqlite_utils.Database, study_id: str, *, latest: bool = False
) -> list[FindingRevision]:
    """Every revision of a study's findings (``latest``: each finding's latest only), by
    finding id and revision, each with the ids of the runs it names."""
    runs: dict[int, list[str]] = {}
    for finding_pk, run_id in db.execute(
        "SELECT fr.finding_pk, r.id FROM finding_runs fr JOIN findings f ON f.pk = fr.finding_pk "
        "JOIN runs r ON r.pk = fr.run_pk WHERE f.study_id = ?",
        [study_id],
    ).fetchall():
        runs.setdefault(int(finding_pk), []).append(str(run_id))
    only_latest = (
        "AND f.revision = (SELECT MAX(revision) FROM findings g WHERE g.study_id = f.study_id "
        "AND g.id = f.id) "
    )
    return [
        FindingRevision(
            id=r[1],
            revision=r[2],
            reviewer=r[3],
            finding=Finding.model_validate_json(r[4]),
            created_at=r[5],
            runs=tuple(sorted(runs.get(int(r[0]), []))),
        )
        for r in db.execute(
            "SELECT f.pk, f.id, f.revision, f.reviewer, f.document, f.created_at FROM findings f "
            f"WHERE f.study_id = ? {only_latest if latest else ''}ORDER BY f.id, f.revision",
            [study_id],
        ).fetchall()
    ]


def findings(db: sqlite_utils.Database, study_id: str) -> list[FindingRevision]:
    """The latest revision of each of a study's findings, by id."""
    return finding_revisions(db, study_id, latest=True)


def progress(db: sqlite_utils.Database, design_pk: int) -> list[ReviewerProgress]:
    """Per reviewer: items assigned, submitted and in draft (declared in ``overview``)."""
    return overview.progress(db.conn, design_pk)


ADJUDICATION_SELECT = (
    "SELECT i.code, a.adjudicator, a.revision, a.payload, a.placement, a.note, a.show_names, "
    "a.created_at FROM adjudications a JOIN items i ON i.pk = a.item_pk "
)
"""The columns :func:`adjudication_revision` converts; callers add the WHERE and ORDER BY."""


def adjudication_revision(r: Sequence[Any], run_ids: Mapping[int, str]) -> AdjudicationRevision:
    """A row as :data:`ADJUDICATION_SELECT` reads it, as the shared record (runs by id)."""
    judgment, placement = _by_run_id(r[3], r[4], run_ids)
    return AdjudicationRevision(
        item=r[0],
        adjudicator=r[1],
        revision=r[2],
        judgment=judgment,
        placement=placement,
        note=r[5],
        show_names=bool(r[6]),
        created_at=r[7],
    )


def latest_adjudications(
    db: sqlite_utils.Database, design_pk: int, run_ids: Mapping[int, str] | None = None
) -> list[AdjudicationRevision]:
    """Each adjudicated item's latest adjudication, in plan order."""
    rows = db.execute(
        ADJUDICATION_SELECT + "WHERE i.design_pk = ? AND a.revision = (SELECT MAX(revision) FROM "
        "adjudications b WHERE b.item_pk = a.item_pk) ORDER BY a.item_pk",
        [design_pk],
    ).fetchall()
    ids = design_run_ids(db, design_pk) if run_ids is None else run_ids
    return [adjudication_revision(r, ids) for r in rows]


def append_adjudication(
    db: sqlite_utils.Database,
    item_pk: int,
    adjudicator: str,
    payload: str,
    placement: str,
    note: str,
    show_names: bool,
) -> int:
    with db.atomic():
        row = db.execute(
            "SELECT COALESCE(MAX(revision), 0) FROM adjudications WHERE item_pk = ?", [item_pk]
        ).fetchone()
        revision = int(row[0]) + 1
        db.execute(
            "INSERT INTO adjudications (item_pk, adjudicator, revision, payload, placement, "
            "note, show_names, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [item_pk, adjudicator, revision, payload, placement, note, int(show_names), utc_now()],
        )
    return revision


def records_of_design(
    db: sqlite_utils.Database,
    design_pk: int,
    *,
    with_runs: bool = True,
    stored_items: Sequence[StoredItem] | None = None,
    figures: bool = False,
) -> DesignRecords:
    """A design's records for :mod:`abp_tui.analysis`, runs named by id: its items, every
    submitted judgment revision, the latest adjudication of each item and, ``with_runs``, the
    current runs in its scope with their automated outcomes and efficiency figures.
    ``stored_items``: the design's items (:func:`items`), when the caller read them already.
    ``figures``: each judgment as the figures (results, watching) read it, for a large study:
    without its justification, validity checks and reason for a change (left empty: no figure
    reads them), a judgment of a preference alone held once for each preference."""
    row = design(db, design_pk)
    study_id, rubric, seed = row.study_id, Rubric.model_validate(row.rubric), row.seed
    del row  # its document (the plan's commitment to every task) is not held while reading
    study_design = stated_design(db, design_pk)
    # Each run id, task id and item code held once, by every record naming it.
    name = sharing() if figures else same
    run_ids = {pk: name(run) for pk, run in design_run_ids(db, design_pk).items()}
    plan = (
        tuple(stored_items)
        if stored_items is not None
        else tuple(
            plan_item(r, index, name)
            for index, r in enumerate(
                db.execute(
                    ITEM_SELECT.format(more="") + "WHERE i.design_pk = ? ORDER BY i.pk",
                    [design_pk],
                )
            )
        )
    )
    judgments = tuple(
        judgment_revision(r, run_ids, figures, name)
        for r in db.execute(
            JUDGMENT_SELECT + "WHERE i.design_pk = ? AND j.status = 'submitted' "
            "ORDER BY j.item_pk, j.reviewer, j.revision",
            [design_pk],
        )  # one row at a time: the rows are never all held beside their records
    )
    criteria = {
        name(str(task)): tuple(json.loads(found))
        for task, found in db.execute(
            "SELECT DISTINCT t.id, t.fatal_criteria FROM items i JOIN tasks t ON t.pk = i.task_pk "
            "WHERE i.design_pk = ?",
            [design_pk],
        )  # each task id held once, by its items and runs too
    }
    runs: tuple[RunFacts, ...] = ()
    superseded: frozenset[str] = frozenset()
    if with_runs:
        runs = tuple(
            f for f in run_facts(db, study_id, name) if in_scope(study_design, f.task, f.condition)
        )
        superseded = superseded_runs(db, design_pk)
    return DesignRecords(
        design=study_design,
        rubric=rubric,
        seed=seed,
        items=plan,
        judgments=judgments,
        adjudications=tuple(latest_adjudications(db, design_pk, run_ids)),
        runs=runs,
        task_criteria=criteria,
        superseded=superseded,
        allocation=allocation_draws(db, design_pk),
    )
