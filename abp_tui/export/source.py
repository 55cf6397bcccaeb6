"""Collect the source layer of a bundle from the database: records as stored, keyed by run id.

The bulk reads an export needs (every judgment revision of a design, every adjudication and
finding revision, trace lines and outputs of all runs at once) are :mod:`abp_tui.store.bulk`'s.
Nothing is written to the database. Results of a design are
published only after the study was unblinded, so collecting refuses a blind study.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlite_utils

from abp_tui.errors import AbpError
from abp_tui.export import records as rec
from abp_tui.export.canonical import file_stem, json_bytes, jsonl_bytes, sha256_bytes
from abp_tui.services.results_report import StudyIsBlind
from abp_tui.store import bulk as bsql
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
    row = bsql.study(db, study_id)
    if row is None:
        raise AbpError(f"no study {study_id!r} in the database")
    return rec.PublishedStudy(
        id=row.id,
        name=row.name,
        protocol=row.protocol,
        description=row.description,
        rubric_id=row.rubric_id,
        limitations=tuple(row.limitations),
        synthetic=row.synthetic,
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

    run_ids = bsql.run_ids(db, design.study_id)
    content = bsql.current_run_contents(db, design.study_id)
    traces = bsql.current_trace_lines(db, design.study_id)
    runs: list[dict[str, Any]] = []
    for f in run_facts(db, design.study_id):
        if not (
            _in_scope(doc, "tasks", f.task_id) and _in_scope(doc, "conditions", f.condition_id)
        ):
            continue
        stored = content[f.pk]
        document, text, trace_pk = stored.document, stored.output, stored.trace_pk
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

    task_ids = bsql.task_ids(db, design.study_id)
    conditions_of = bsql.run_conditions(db, design.study_id)
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
            item=j.item_code,
            reviewer=j.reviewer,
            revision=j.revision,
            status=j.status,
            judgment=_keyed(j.payload, run_ids),
            placement=_placement(j.placement, run_ids),
            reason=j.reason,
            seconds_spent=j.seconds_spent,
            created_at=j.created_at,
        ).model_dump(mode="json")
        for j in bsql.judgment_revisions(db, design_pk)
    ]
    files[rec.JUDGMENTS] = jsonl_bytes(judgments)
    adjudications = [
        rec.PublishedAdjudication(
            item=a.item_code,
            adjudicator=a.adjudicator,
            revision=a.revision,
            judgment=_keyed(a.payload, run_ids),
            placement=_placement(a.placement, run_ids),
            note=a.note,
            show_names=a.show_names,
            created_at=a.created_at,
        ).model_dump(mode="json")
        for a in bsql.adjudication_revisions(db, design_pk)
    ]
    files[rec.ADJUDICATIONS] = jsonl_bytes(adjudications)

    finding_runs = {
        finding_pk: [run_ids[run_pk] for run_pk in run_pks]
        for finding_pk, run_pks in bsql.finding_run_pks(db, design.study_id).items()
    }
    findings = [
        rec.PublishedFinding(
            id=f.id,
            revision=f.revision,
            reviewer=f.reviewer,
            finding=f.document,
            created_at=f.created_at,
            runs=tuple(sorted(finding_runs.get(f.pk, []))),
        ).model_dump(mode="json")
        for f in bsql.finding_revisions(db, design.study_id)
    ]
    files[rec.FINDINGS] = jsonl_bytes(findings)
    files[rec.AUDIT] = jsonl_bytes(_audit(db, design.study_id))
    return Collected(files, run_ids, design)


def _audit(db: sqlite_utils.Database, study_id: str) -> list[dict[str, Any]]:
    """The audit entries of this study (and those that name no study), exports left out."""
    merged_study = bsql.merged_pack_studies(db)
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
