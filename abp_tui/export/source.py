"""Collect the source layer of a bundle from the database: records as stored, keyed by run id.

Only read queries live here, the few bulk reads an export needs that the store does not offer
(every judgment revision of a design, every adjudication and finding revision, trace lines and
outputs of all runs at once). Nothing is written to the database. Results of a design are
published only after the study was unblinded, so collecting refuses a blind study.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from abp_tui.errors import AbpError
from abp_tui.export import records as rec
from abp_tui.export.canonical import file_stem, json_bytes, jsonl_bytes, sha256_bytes
from abp_tui.results import StudyIsBlind
from abp_tui.store import judging as sql
from abp_tui.store.packs import audit_log
from abp_tui.store.queries import run_facts, study_conditions, study_tasks, unblinded

EXPORT_ACTION_PREFIX = "export"
"""Audit actions of exports themselves: recorded in the database, never part of a bundle (a
second export would otherwise differ from the first by the first one's entry)."""


@dataclass(frozen=True)
class Collected:
    files: dict[str, bytes]
    """Path inside the bundle -> bytes, for every source file."""
    run_ids: dict[int, str]
    """Database key -> run id, for every version of every run of the study."""
    design: sql.DesignRow


def require_unblinded(db: sqlite_utils.Database, design: sql.DesignRow) -> tuple[str, str]:
    who = unblinded(db, design.study_id)
    if who is None:
        raise StudyIsBlind(
            f"study {design.study_id!r} is still blind: exports of results appear only after "
            f"`abp-tui unblind --study {design.study_id} --yes` (recorded in the audit log)"
        )
    return who


def _study(db: sqlite_utils.Database, study_id: str) -> rec.PublishedStudy:
    row = db.execute(
        "SELECT id, name, protocol, description, rubric_id, limitations, synthetic "
        "FROM studies WHERE id = ?",
        [study_id],
    ).fetchone()
    if row is None:
        raise AbpError(f"no study {study_id!r} in the database")
    return rec.PublishedStudy(
        id=row[0],
        name=row[1],
        protocol=row[2],
        description=row[3],
        rubric_id=row[4],
        limitations=tuple(json.loads(row[5])),
        synthetic=bool(row[6]),
    )


def _in_scope(document: dict[str, Any], key: str, value: str) -> bool:
    chosen = document.get(key, "all")
    return chosen == "all" or value in chosen


def _keyed(judgment: dict[str, Any], run_ids: dict[int, str]) -> dict[str, Any]:
    """A stored judgment payload (responses keyed by database key) keyed by run id."""
    out = dict(judgment)
    out["responses"] = {
        run_ids[int(k)]: v for k, v in sorted(judgment.get("responses", {}).items())
    }
    return out


def _placement(raw: dict[str, Any], run_ids: dict[int, str]) -> dict[str, str]:
    return {position: run_ids[int(pk)] for position, pk in sorted(raw.items())}


def collect(db: sqlite_utils.Database, design_pk: int) -> Collected:
    """The source files of the bundle of a design (raises StudyIsBlind before unblinding)."""
    design = sql.design(db, design_pk)
    require_unblinded(db, design)
    study = _study(db, design.study_id)
    doc = design.document
    files: dict[str, bytes] = {
        rec.STUDY: json_bytes(study.model_dump(mode="json")),
        rec.DESIGN: json_bytes(
            rec.PublishedDesign(
                study=design.study_id,
                name=design.name,
                version=design.version_no,
                sha256=design.sha256,
                seed=design.seed,
                created_at=design.created_at,
                frozen_at=design.frozen_at,
                document=doc,
            ).model_dump(mode="json")
        ),
        rec.RUBRIC: json_bytes(design.rubric),
    }
    tasks = [
        rec.PublishedTask(**t.task.model_dump(), placeholder=t.placeholder)
        for t in study_tasks(db, design.study_id)
        if _in_scope(doc, "tasks", t.task.id)
    ]
    files[rec.TASKS] = json_bytes([t.model_dump(mode="json") for t in tasks])
    conditions = [
        c.condition
        for c in study_conditions(db, design.study_id)
        if _in_scope(doc, "conditions", c.condition.id)
    ]
    files[rec.CONDITIONS] = json_bytes([c.model_dump(mode="json") for c in conditions])

    run_ids = {
        int(pk): str(run_id)
        for pk, run_id in db.execute(
            "SELECT pk, id FROM runs WHERE study_id = ?", [design.study_id]
        ).fetchall()
    }
    content = {
        int(r[0]): (json.loads(r[1]), r[2], r[3])
        for r in db.execute(
            "SELECT r.pk, r.document, b.text, r.trace_pk FROM runs r "
            "LEFT JOIN blobs b ON b.sha256 = r.output_sha256 "
            "WHERE r.study_id = ? AND r.current = 1",
            [design.study_id],
        ).fetchall()
    }
    traces: dict[int, list[str]] = {}
    for trace_pk, raw in db.execute(
        "SELECT e.trace_pk, e.raw FROM trace_events e JOIN runs r ON r.trace_pk = e.trace_pk "
        "WHERE r.study_id = ? AND r.current = 1 ORDER BY e.trace_pk, e.seq",
        [design.study_id],
    ).fetchall():
        traces.setdefault(int(trace_pk), []).append(str(raw))
    runs: list[dict[str, Any]] = []
    for f in run_facts(db, design.study_id):
        if not (
            _in_scope(doc, "tasks", f.task_id) and _in_scope(doc, "conditions", f.condition_id)
        ):
            continue
        document, text, trace_pk = content[f.pk]
        document.pop("output", None)
        stem = file_stem(f.id)
        output = None
        if text is not None:
            data = str(text).encode("utf-8")
            output = rec.OutputRef(
                path=f"{rec.OUTPUTS_DIR}{stem}.txt", sha256=sha256_bytes(data), chars=len(text)
            )
            files[output.path] = data
        trace = None
        lines = traces.get(int(trace_pk)) if trace_pk is not None else None
        if lines:
            trace = rec.TraceRef(path=f"{rec.TRACES_DIR}{stem}.jsonl", events=len(lines))
            files[trace.path] = "".join(line.rstrip("\n") + "\n" for line in lines).encode("utf-8")
        runs.append(
            rec.PublishedRun(
                id=f.id,
                task=f.task_id,
                condition=f.condition_id,
                trial=f.trial,
                origin_status=f.origin_status,
                automated_outcome=f.automated_outcome,
                excluded_reason=f.excluded_reason,
                total_tokens=f.total_tokens,
                wall_clock_ms=f.wall_clock_ms,
                cost_usd=f.cost_usd,
                diff_bytes=f.diff_bytes,
                output=output,
                trace=trace,
                record=document,
            ).model_dump(mode="json")
        )
    files[rec.RUNS] = jsonl_bytes(runs)

    task_ids = {
        int(pk): str(task_id)
        for pk, task_id in db.execute(
            "SELECT pk, id FROM tasks WHERE study_id = ?", [design.study_id]
        ).fetchall()
    }
    conditions_of = {
        int(pk): str(cond)
        for pk, cond in db.execute(
            "SELECT r.pk, c.id FROM runs r JOIN conditions c ON c.pk = r.condition_pk "
            "WHERE r.study_id = ?",
            [design.study_id],
        ).fetchall()
    }
    items = []
    for index, item in enumerate(sql.items(db, design_pk)):
        pks = [item.run_a_pk] + ([item.run_b_pk] if item.run_b_pk is not None else [])
        items.append(
            rec.PublishedItem(
                code=item.code,
                index=index,
                kind=item.kind,
                task=task_ids[item.task_pk],
                trial=item.trial,
                runs=tuple(run_ids[pk] for pk in pks),
                conditions=tuple(conditions_of[pk] for pk in pks),
                base_flip=item.base_flip,
            ).model_dump(mode="json")
        )
    files[rec.ITEMS] = jsonl_bytes(sorted(items, key=lambda i: str(i["code"])))

    judgments = [
        rec.PublishedJudgment(
            item=r[0],
            reviewer=r[1],
            revision=r[2],
            status=r[3],
            judgment=_keyed(json.loads(r[4]), run_ids),
            placement=_placement(json.loads(r[5]), run_ids),
            reason=r[6],
            seconds_spent=r[7],
            created_at=r[8],
        ).model_dump(mode="json")
        for r in db.execute(
            "SELECT i.code, j.reviewer, j.revision, j.status, j.payload, j.placement, j.reason, "
            "j.seconds_spent, j.created_at FROM judgments j JOIN items i ON i.pk = j.item_pk "
            "WHERE i.design_pk = ? ORDER BY i.code, j.reviewer, j.revision",
            [design_pk],
        ).fetchall()
    ]
    files[rec.JUDGMENTS] = jsonl_bytes(judgments)
    adjudications = [
        rec.PublishedAdjudication(
            item=r[0],
            adjudicator=r[1],
            revision=r[2],
            judgment=_keyed(json.loads(r[3]), run_ids),
            placement=_placement(json.loads(r[4]), run_ids),
            note=r[5],
            show_names=bool(r[6]),
            created_at=r[7],
        ).model_dump(mode="json")
        for r in db.execute(
            "SELECT i.code, a.adjudicator, a.revision, a.payload, a.placement, a.note, "
            "a.show_names, a.created_at FROM adjudications a JOIN items i ON i.pk = a.item_pk "
            "WHERE i.design_pk = ? ORDER BY i.code, a.revision",
            [design_pk],
        ).fetchall()
    ]
    files[rec.ADJUDICATIONS] = jsonl_bytes(adjudications)

    finding_runs: dict[int, list[str]] = {}
    for finding_pk, run_pk in db.execute(
        "SELECT fr.finding_pk, fr.run_pk FROM finding_runs fr JOIN findings f "
        "ON f.pk = fr.finding_pk WHERE f.study_id = ?",
        [design.study_id],
    ).fetchall():
        finding_runs.setdefault(int(finding_pk), []).append(run_ids[int(run_pk)])
    findings = [
        rec.PublishedFinding(
            id=r[1],
            revision=r[2],
            reviewer=r[3],
            finding=json.loads(r[4]),
            created_at=r[5],
            runs=tuple(sorted(finding_runs.get(int(r[0]), []))),
        ).model_dump(mode="json")
        for r in db.execute(
            "SELECT pk, id, revision, reviewer, document, created_at FROM findings "
            "WHERE study_id = ? ORDER BY id, revision",
            [design.study_id],
        ).fetchall()
    ]
    files[rec.FINDINGS] = jsonl_bytes(findings)
    files[rec.AUDIT] = jsonl_bytes(_audit(db, design.study_id))
    return Collected(files, run_ids, design)


def _audit(db: sqlite_utils.Database, study_id: str) -> list[dict[str, Any]]:
    """The audit entries of this study (and those that name no study), exports left out."""
    merged_study = {
        str(sha): str(study)
        for sha, study in db.execute(
            "SELECT m.sha256, d.study_id FROM merges m JOIN packs p ON p.sha256 = m.pack_sha256 "
            "JOIN designs d ON d.pk = p.design_pk"
        ).fetchall()
    }
    out = []
    for at, actor, action, detail in audit_log(db):
        if action.startswith(EXPORT_ACTION_PREFIX):
            continue
        study: Any = detail.get("study")
        design = detail.get("design")
        if study is None and isinstance(design, dict):
            study = design.get("study")
        if study is None and isinstance(detail.get("ratings"), str):
            study = merged_study.get(detail["ratings"])
        if study is not None and study != study_id:
            continue
        out.append(
            rec.PublishedAuditEntry(at=at, actor=actor, action=action, detail=detail).model_dump(
                mode="json"
            )
        )
    return out
