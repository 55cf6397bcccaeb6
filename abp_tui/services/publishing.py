"""Publishing a design's results: the publication bundle, verdicts, judgments, abp-verdict/v1.

The use case behind ``abp-tui export``: read the design's records from the database, have
:mod:`abp_tui.export` derive and write what is published, and record the export in the audit log.
Results are published only after the study was unblinded, so every export refuses a blind study
(:class:`abp_tui.services.results_report.StudyIsBlind`).

Every export reads the bundle's source files back, as ``verify`` will, and derives from those, so
what an export writes is what ``verify`` re-derives; and the records its verdicts are decided
from are checked against the records as the store returned them (a digest of them taken as they
were written: :mod:`abp_tui.services.published_records`) before anything derived is written. The
writers (deterministic bytes, the atomic folder and zip) are :mod:`abp_tui.export.bundle`'s; this
module is the only part of publishing that reads or writes the database.

Everything a bundle holds is read in one read transaction (:func:`collect`), so a save or a merge
another process commits meanwhile is in every table of the bundle or in none.

A study with automated outcomes and no design publishes its automated scope
(:func:`abp_tui.services.results_report.automated_scope`): every export takes ``design_pk``
None and the ``study``; the bundle's design is the scope's, its items and judgments none.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import sqlite_utils

from abp_tui.analysis.blinding import design_hash, plan_hmac
from abp_tui.analysis.material import is_development
from abp_tui.analysis.records import design_document, in_scope
from abp_tui.errors import AbpError
from abp_tui.export import bundle as writer
from abp_tui.export import bundle_writing as stream
from abp_tui.export import records as rec
from abp_tui.export.allocation import allocation_source
from abp_tui.export.bundle_analysis import Analysis, Inputs, analyse, parse
from abp_tui.export.canonical import file_stem, json_bytes, json_list_chunks, jsonl_bytes
from abp_tui.export.claims import check_commitment, committed_checked
from abp_tui.export.derive import STATUS, abp_verdict_document, judgments_csv, verdict_lines
from abp_tui.export.errors import BundleMismatch
from abp_tui.export.judges import judge_sources
from abp_tui.export.protocol import protocol_files
from abp_tui.models import Rubric, StudyDesign
from abp_tui.runtime import collector_paused, phase
from abp_tui.services.coordinator_identity import note_view, refuse_held_back
from abp_tui.services.published_records import (
    ADJUDICATION,
    ITEM,
    JUDGMENT,
    RUBRIC,
    RULES,
    RecordsDigest,
    cross_check,
)
from abp_tui.services.ranking_bundle import put_ranking_sources
from abp_tui.services.results_report import StudyIsBlind, automated_scope
from abp_tui.services.roles import require
from abp_tui.store import bulk
from abp_tui.store import judging as sql
from abp_tui.store import packs as psql
from abp_tui.store import secrets as secret_sql
from abp_tui.store.allocation import draws as allocation_draws
from abp_tui.store.automated import AutomatedScore, study_scores
from abp_tui.store.db import read_snapshot
from abp_tui.store.diffs import diff_bytes, diff_sha256
from abp_tui.store.judges import study_judges, study_verdicts
from abp_tui.store.queries import study_protocol, unblinded
from abp_tui.text.canonical import canonical_json, sha256_bytes
from abp_tui.text.hints import command, no_such_study, quoted

__all__ = [
    "BundleResult",
    "Collected",
    "build_bundle",
    "build_protocol_bundle",
    "collect",
    "export_abp_verdict",
    "export_bundle",
    "export_judgments",
    "export_protocol_bundle",
    "export_verdicts",
]

EXPORT_ACTION_PREFIX = "export"
"""Audit actions of exports themselves: recorded in the database, never part of a bundle (a
second export would otherwise differ from the first by the first one's entry)."""


class Published(Protocol):
    """What a bundle publishes of its design: a stored design's row, or a study's automated
    scope (:class:`abp_tui.services.results_report.AutomatedScope`)."""

    @property
    def study_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def version_no(self) -> int: ...
    @property
    def sha256(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def created_at(self) -> str: ...
    @property
    def frozen_at(self) -> str | None: ...
    @property
    def document(self) -> dict[str, Any]: ...
    @property
    def rubric(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Collected:
    files: MutableMapping[str, bytes]
    """Path inside the bundle -> bytes, for every source file (in memory, or in the folder
    being written: :class:`abp_tui.export.bundle_writing.FolderFiles`)."""
    design: Published
    held: tuple[int, str]
    """The count and digest (:class:`abp_tui.services.published_records.RecordsDigest`) of the
    records the verdicts are decided from, as the store returned them when the files were
    written from them: what the bundle's analysis must hold again."""


@dataclass(frozen=True)
class BundleResult:
    folder: Path
    zip_path: Path
    status: str
    missing: list[str]
    files: int
    """Files in the bundle, the manifest included."""
    manifest_sha256: str


# -- collecting the source files -------------------------------------------------------------------
def require_unblinded(db: sqlite_utils.Database, design: Published) -> tuple[str, str]:
    who = unblinded(db, design.study_id)
    if who is None:
        raise StudyIsBlind(
            f"study {design.study_id!r} is still blind: exports of results appear only after "
            f"`{command(f'unblind --study {quoted(design.study_id)} --yes', db)}` (recorded in the "
            "audit log)"
        )
    return who


def collect(
    db: sqlite_utils.Database,
    design_pk: int | None,
    study: str | None = None,
    files: MutableMapping[str, bytes] | None = None,
) -> Collected:
    """The source files of the bundle of a design, or (``design_pk`` None) of the automated
    scope of ``study`` (raises StudyIsBlind before unblinding).

    Every record is one the store returns (runs by id, items by code) dumped as it is, all of
    them read from one snapshot of the database: a reviewer's save committed between reading
    the judgments and the audit log would otherwise make tables that disagree. Each file is
    set in ``files`` as it is made (a dict by default; the folder being written by an export,
    so that no raw output stays in memory), its records read from the database as it is
    written: none of them is held (what the cross-check needs of them is a digest).
    """
    with read_snapshot(db):
        return _collect(db, design_pk, study, {} if files is None else files)


def _collect(
    db: sqlite_utils.Database,
    design_pk: int | None,
    study: str | None,
    files: MutableMapping[str, bytes],
) -> Collected:
    design: Published
    if design_pk is None:
        if study is None:  # a bug: the caller resolved the scope
            raise ValueError("collect: a study is needed without a design")
        design = automated_scope(db, study)
    else:
        design = sql.design(db, design_pk)
    require_unblinded(db, design)
    # Unblinded: the bundle reveals the plan secret the design committed to (verify checks it).
    secret = secret_sql.plan_secret(db, design_pk) if design_pk is not None else None
    mac = published_plan_hmac(db, design_pk, design) if design_pk is not None else None
    _files, scope = protocol_sources(db, design, plan_secret=secret, plan_mac=mac, files=files)
    # What the verdicts are decided from is counted and digested as it is written (the
    # cross-check's side of the database), never held: abp_tui.services.published_records.
    held = RecordsDigest()
    held.add_model(RUBRIC, Rubric.model_validate(design.rubric))
    held.add_model(RULES, scope.disagreement)
    # The automated judge's outcomes and the AI judges' verdicts name the runs they are on:
    # of the runs written, only those they name are remembered (to keep theirs in scope).
    scores = study_scores(db, design.study_id)
    verdicts = (
        [v for v, current in study_verdicts(db, design.study_id) if current]
        if design_pk is not None
        else []
    )
    named = set(scores).union(*(v.runs for v in verdicts))
    published: set[str] = set()

    def in_scope_runs() -> Iterator[bulk.RunLine]:
        for r in bulk.each_run_line(db, design.study_id):
            if in_scope(scope, r.facts["task"], r.facts["condition"]):
                if r.facts["id"] in named:
                    published.add(r.facts["id"])
                yield r

    # The runs are read a batch at a time and each written as it is read (its output, trace
    # and diff to files of their own, its line to runs.jsonl): nothing of them is kept.
    stream.put_jsonl(files, rec.RUNS, _runs(db, in_scope_runs(), files))
    files[rec.JUDGE_SCORES] = _judge_scores(scores, published)
    del scores
    # The design's records, each written as its row is read (by code, reviewer, revision).
    if design_pk is not None:
        items = _digested(held, ITEM, bulk.each_item_line(db, design_pk))
        # Submitted judgments only: a draft is a reviewer's work in progress (half a sentence,
        # a pick changed a second later), not a judgment, and is never published.
        submitted = (
            j for j in bulk.each_judgment_line(db, design_pk) if j["status"] == "submitted"
        )
        judgments = _digested(held, JUDGMENT, submitted)
        adjudications = _digested(
            held,
            ADJUDICATION,
            (a.model_dump(mode="json") for a in bulk.each_adjudication_revision(db, design_pk)),
        )
    else:
        items = judgments = adjudications = iter(())
    stream.put_chunks(files, rec.ITEMS, items)
    stream.put_chunks(files, rec.JUDGMENTS, judgments)
    stream.put_chunks(files, rec.ADJUDICATIONS, adjudications)
    files[rec.FINDINGS] = jsonl_bytes(
        f.model_dump(mode="json") for f in sql.finding_revisions(db, design.study_id)
    )
    files[rec.AUDIT] = jsonl_bytes(_audit(db, design.study_id))
    if design_pk is not None:
        # The AI judges' verdicts on these runs (abp_tui.export.judges): none, no files.
        files.update(judge_sources(study_judges(db, design.study_id), verdicts, published))
    # Every source's votes, from which verify re-derives the rankings (none: no files).
    name = design.name if design_pk is not None else None
    put_ranking_sources(
        db,
        files,
        design.study_id,
        name,
        lambda t, c: in_scope(scope, t, c),
        lambda t: is_development(scope, t),  # seed 002: never a benchmark result
    )
    draws = allocation_draws(db, design_pk) if design_pk is not None else ()
    files.update(allocation_source(draws))  # a human budget: each item's probability
    return Collected(files, design, held.value())


def _digested(held: RecordsDigest, kind: str, records: Iterable[dict[str, Any]]) -> Iterator[bytes]:
    """The lines of a JSON Lines file of ``records`` (each its record's JSON dump), as
    :func:`jsonl_bytes` writes them, each record that a verdict is decided from (a judgment
    only once submitted) added to ``held`` as its line is made."""
    for record in records:
        line = canonical_json(record)
        if kind != JUDGMENT or record.get("status") == "submitted":
            held.add(kind, line)
        yield (line + "\n").encode("utf-8")


def published_plan_hmac(db: sqlite_utils.Database, design_pk: int, design: Published) -> str | None:
    """The plan's part of the design's hash (:func:`abp_tui.analysis.blinding.plan_hmac`),
    which both its bundles publish so that ``verify`` recomputes the hash from the bundle's
    document and rubric; None for a design stored before plan secrets (its hash covered the
    plan itself, database keys and all, so no bundle can recompute it)."""
    secret = secret_sql.plan_secret(db, design_pk)
    if secret is None:
        return None
    mac = plan_hmac(secret, secret_sql.plan_rows(db, design_pk))
    if design_hash(design.document, design.rubric, mac) != design.sha256:
        raise AbpError(
            f"design {design.name} v{design.version_no}: its stored hash does not recompute "
            "from its document, rubric and plan (the database was changed outside abp-tui): "
            "refusing to publish it"
        )
    return mac


def protocol_sources(
    db: sqlite_utils.Database,
    design: Published,
    *,
    plan_secret: str | None = None,
    plan_mac: str | None = None,
    files: MutableMapping[str, bytes] | None = None,
) -> tuple[MutableMapping[str, bytes], StudyDesign]:
    """The ``protocol/`` files of a design's bundles (study, design, rubric, tasks, conditions),
    set in ``files`` (a new dict by default; the folder being written by an export, the tasks
    written one at a time), and its scope: one function,
    so that a protocol-only bundle and the full bundle carry the same bytes, but for the plan
    secret only the full bundle reveals (``plan_secret``). ``plan_mac``: the plan's part of the
    design hash (:func:`published_plan_hmac`)."""
    study = bulk.study(db, design.study_id)
    if study is None:
        raise AbpError(no_such_study(design.study_id, db))
    scope = StudyDesign.model_validate(design_document(design.document))
    files = {} if files is None else files
    # What the design adds (description, limitations) is published as the study's.
    files[rec.STUDY] = json_bytes(scope.framed_study(study).model_dump(mode="json"))
    files[rec.DESIGN] = json_bytes(
        rec.PublishedDesign(
            study=design.study_id,
            name=design.name,
            version=design.version_no,
            sha256=design.sha256,
            seed=design.seed,
            created_at=design.created_at,
            frozen_at=design.frozen_at,
            document=design.document,
            plan_secret=plan_secret,
            plan_hmac=plan_mac,
        ).model_dump(mode="json")
    )
    files[rec.RUBRIC] = json_bytes(design.rubric)

    def published_tasks() -> Iterator[dict[str, Any]]:
        # Each a PublishedTask's JSON dump: the task's with whether it is a placeholder.
        for task in bulk.each_task_line(db, design.study_id):
            if scope.tasks == "all" or task["id"] in scope.tasks:
                yield task

    stream.put_chunks(files, rec.TASKS, json_list_chunks(published_tasks()))
    conditions = [
        c
        for c in bulk.conditions(db, design.study_id)
        if scope.conditions == "all" or c.id in scope.conditions
    ]
    files[rec.CONDITIONS] = json_bytes(
        [scope.framed_condition(c).model_dump(mode="json") for c in conditions]
    )
    return files, scope


def _runs(
    db: sqlite_utils.Database,
    runs: Iterable[bulk.RunLine],
    files: MutableMapping[str, bytes],
) -> Iterator[dict[str, Any]]:
    """The lines of ``runs.jsonl``, one run at a time: each run's facts with the bundle's own
    fields (a line is a :class:`abp_tui.export.records.PublishedRun`); outputs, traces and
    diffs (read from the store by their SHA-256) go into ``files`` as each run is. A run
    without a stored diff has no ``diff`` key, so a bundle without diffs has the bytes it had
    before diffs were published.

    A line is the facts' JSON dump plus the bundle's fields, each as its model's dump gives it
    (:class:`~abp_tui.export.records.OutputRef`, ``TraceRef``, ``DiffRef``), rather than a
    PublishedRun's dump: building one would copy every run's record twice more, and the line is
    validated as a PublishedRun anyway when the export reads its files back. An output is
    hashed once, as it is written.
    """
    for stored in runs:
        line = stored.facts
        stem = file_stem(line["id"])
        line["output"] = line["trace"] = None
        if stored.output is not None:
            data = stored.output.encode("utf-8")
            path = f"{rec.OUTPUTS_DIR}{stem}.txt"
            sha = stream.put_file(files, path, data)
            line["output"] = {"path": path, "sha256": sha, "chars": len(stored.output)}
        events = bulk.trace_lines(db, stored.trace_pk) if stored.trace_pk is not None else None
        if events:
            path = f"{rec.TRACES_DIR}{stem}.jsonl"
            files[path] = "".join(e.rstrip("\n") + "\n" for e in events).encode("utf-8")
            line["trace"] = {"path": path, "events": len(events)}
        diff_sha = diff_sha256(stored.record)
        diff = diff_bytes(db, [diff_sha]).get(diff_sha) if diff_sha is not None else None
        if diff is not None:
            path = f"{rec.DIFFS_DIR}{stem}.diff"
            sha = stream.put_file(files, path, diff)
            line["diff"] = {"path": path, "sha256": sha, "bytes": len(diff)}
        line["record"] = stored.record
        yield line


def _judge_scores(scores: Mapping[str, AutomatedScore], runs: set[str]) -> bytes:
    """``automated_scores.jsonl``: the automated judge's latest outcome of each run in scope
    (``scores``: :func:`abp_tui.store.automated.study_scores`), by run id (the file's document,
    with the submission's path on this machine, stays here)."""
    return jsonl_bytes(
        rec.PublishedJudgeScore(
            run=run,
            scorer=s.scorer,
            outcome=s.outcome,
            dimensions=s.dimensions,
            spec_sha256=s.spec_sha256,
            submission_sha256=s.submission_sha256,
            created_at=s.created_at,
        ).model_dump(mode="json")
        for run, s in sorted(scores.items())
        if run in runs
    )


def _audit(db: sqlite_utils.Database, study_id: str) -> list[dict[str, Any]]:
    """The audit entries of this study (and those that name no study), exports left out."""
    merged_study = bulk.merged_pack_studies(db)
    out = []
    for at, actor, action, detail in psql.audit_log(db):
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


# -- checking what was collected -------------------------------------------------------------------
def _collected_and_analysed(
    db: sqlite_utils.Database,
    design_pk: int | None,
    study: str | None = None,
    files: MutableMapping[str, bytes] | None = None,
) -> tuple[MutableMapping[str, bytes], Analysis]:
    """The source files, and the analysis of those files as ``verify`` will read them, checked
    against the records the files were written from (their digest: nothing else of them is
    held while the files are parsed, and the verdicts are decided once, from the files)."""
    phase("collecting the study's records")
    collected = collect(db, design_pk, study, files)
    written, held = collected.files, collected.held
    del collected
    phase("reading the records back, as verify will")
    inputs = parse(written)
    _planned_records(written, inputs.design, inputs)
    phase("deciding the final verdicts")
    analysis = analyse(committed_checked(inputs))
    del inputs
    cross_check(held, analysis)
    return written, analysis


def _planned_records(
    files: Mapping[str, bytes], design: rec.PublishedDesign, inputs: Inputs | None = None
) -> None:
    """Refuse to publish other records than the ones the design committed to (a task,
    condition or run imported again since, which its bundle would publish in their stead and
    ``verify`` would refuse): :func:`abp_tui.export.claims.check_commitment`."""
    try:
        check_commitment(files, design, inputs)
    except BundleMismatch as exc:
        raise AbpError(
            f"design {design.name} v{design.version}: {exc.path}: {exc.detail.split(': the ')[0]}"
            ": a record it planned was imported again after the design was stored, and the "
            "bundle would publish the new version; plan the design again (`abp-tui study "
            "create`, a new version once judged) to publish what it judges"
        ) from None


# -- exporting -------------------------------------------------------------------------------------
def _held_back(
    db: sqlite_utils.Database, design_pk: int | None, study: str | None, viewer: str | None
) -> str | None:
    """The study exported, once the export is known not to be held back from ``viewer`` (the
    results' rule: :func:`abp_tui.services.coordinator_identity.refuse_held_back`); None when
    nobody is named."""
    if viewer is None:
        return None
    study_id = sql.design(db, design_pk).study_id if design_pk is not None else study
    if study_id is None:
        return None
    refuse_held_back(db, study_id, viewer)
    return study_id


def _note_export(
    db: sqlite_utils.Database, study_id: str | None, design_pk: int | None, viewer: str | None
) -> None:
    """Record ``viewer``'s look before the export is written (see ``_held_back``)."""
    if study_id is not None:
        note_view(db, study_id, design_pk, viewer, "exports")


def build_bundle(
    db: sqlite_utils.Database,
    design_pk: int | None,
    timings: dict[str, float] | None = None,
    confidence: float = 0.95,
    study: str | None = None,
) -> dict[str, bytes]:
    """Every file of the bundle of a design (or, ``design_pk`` None, of ``study``'s automated
    outcomes) (path -> bytes), the manifest included, its results' intervals at
    ``confidence``."""
    with collector_paused():
        began = time.perf_counter()
        written, analysis = _collected_and_analysed(db, design_pk, study)
        collected_at = time.perf_counter()
        files = writer.bundle_files(written, analysis, confidence)
    if timings is not None:
        timings["collect"] = collected_at - began
        timings["derive"] = time.perf_counter() - collected_at
    return files


def export_bundle(
    db: sqlite_utils.Database,
    design_pk: int | None,
    out_dir: Path,
    *,
    actor: str = "coordinator",
    timings: dict[str, float] | None = None,
    confidence: float = 0.95,
    study: str | None = None,
    viewer: str | None = None,
) -> BundleResult:
    """Write the publication bundle of a design (or, ``design_pk`` None, of ``study``'s
    automated outcomes) to ``out_dir`` and ``out_dir.zip``, its results' intervals at
    ``confidence`` (recorded in the manifest).

    Raises StudyIsBlind before the study is unblinded, and BlindingError when ``viewer`` (who
    receives it) has items of the study still to submit, as the results do. The export is
    recorded in the audit log (who, what, the manifest's hash); that entry is never part of a
    bundle.
    """
    require("export")
    out_dir = Path(out_dir)
    looked = _held_back(db, design_pk, study, viewer)
    # Every file goes to the bundle's folder as it is made and is read back from there when
    # the derivation asks for it: no raw output, and no record file but the one being parsed,
    # stays in memory (abp_tui.export.bundle_writing).
    with stream.bundle_folder(out_dir) as files:
        with collector_paused():
            began = time.perf_counter()
            analysis = _collected_and_analysed(db, design_pk, study, files)[1]
            collected_at = time.perf_counter()
            stream.finish(files, analysis, confidence)
            # What the audit entry names, from the design as parsed (its file is not read
            # again: a large study's design lists its whole plan).
            published = analysis.inputs.design
            design: dict[str, Any] = {
                "study": published.study,
                "name": published.name,
                "version": published.version,
            }
            del analysis, published
            derived_at = time.perf_counter()
        status = json.loads(files[STATUS])
        _note_export(db, looked, design_pk, viewer)
    if timings is not None:
        timings["collect"] = collected_at - began
        timings["derive"] = derived_at - collected_at
        timings["write"] = time.perf_counter() - derived_at
    zip_path = out_dir.parent / f"{out_dir.name}.zip"
    manifest_sha = files.sha256(rec.MANIFEST)
    psql.audit(
        db,
        actor,
        f"{EXPORT_ACTION_PREFIX} bundle",
        {
            "study": design["study"],
            "design": design["name"],
            "version": design["version"],
            "bundle": out_dir.name,
            "manifest_sha256": manifest_sha,
            "status": status["status"],
        },
    )
    return BundleResult(
        out_dir, zip_path, status["status"], status["missing"], len(files), manifest_sha
    )


def build_protocol_bundle(db: sqlite_utils.Database, design_pk: int) -> dict[str, bytes]:
    """Every file of the protocol-only bundle of a design (path -> bytes), the manifest
    included: the ``protocol/`` files of its full bundle, committing to the plan secret without
    revealing it, and nothing measured."""
    design = sql.design(db, design_pk)
    if study_protocol(db, design.study_id) == "pack":
        raise AbpError(
            "this is a reviewer station: its study is a pack's blind copy, not a protocol to "
            "publish (export the protocol on the coordinator's database)"
        )
    if secret_sql.plan_secret(db, design_pk) is None:
        raise AbpError(
            f"design {design.name} v{design.version_no} was planned before plan secrets: its "
            "plan follows from its seed, so its protocol cannot be published blind; plan it "
            f"again with `{command('study create', db)}` and its file (a new version when it was "
            "judged)"
        )
    mac = published_plan_hmac(db, design_pk, design)
    files = dict(protocol_sources(db, design, plan_mac=mac)[0])
    _planned_records(files, rec.PublishedDesign.model_validate_json(files[rec.DESIGN]))
    return protocol_files(files, writer.environment())


def export_protocol_bundle(
    db: sqlite_utils.Database, design_pk: int, out_dir: Path, *, actor: str = "coordinator"
) -> BundleResult:
    """Freeze a design and write its protocol-only bundle to ``out_dir`` and ``out_dir.zip``
    (seed 004: frozen and published before results; allowed while the study is blind).

    Freezing is what makes the published hash binding: a frozen design never changes, a changed
    design file becomes a new version. The bundle publishes the commitment to the plan secret
    that the design recorded when it was stored (:mod:`abp_tui.export.protocol`); exporting it
    again gives the same bytes. Nothing is frozen or recorded when the bundle cannot be written.
    """
    require("export")
    out_dir = Path(out_dir)
    with db.atomic():
        design = sql.design(db, design_pk)
        if design.frozen_at is None:
            psql.freeze_design(db, design_pk)
        files = build_protocol_bundle(db, design_pk)
        zip_path = writer.write_bundle(out_dir, files)
        manifest_sha = sha256_bytes(files[rec.MANIFEST])
        manifest = json.loads(files[rec.MANIFEST])
        psql.audit(
            db,
            actor,
            f"{EXPORT_ACTION_PREFIX} protocol bundle",
            {
                "study": design.study_id,
                "design": design.name,
                "version": design.version_no,
                "bundle": out_dir.name,
                "manifest_sha256": manifest_sha,
                "status": manifest["status"],
            },
        )
    return BundleResult(out_dir, zip_path, manifest["status"], [], len(files), manifest_sha)


def _export_one(
    db: sqlite_utils.Database,
    design_pk: int | None,
    out: Path,
    what: str,
    actor: str,
    study: str | None = None,
    viewer: str | None = None,
) -> tuple[bytes, Analysis]:
    require("export")
    looked = _held_back(db, design_pk, study, viewer)
    with collector_paused():
        written, analysis = _collected_and_analysed(db, design_pk, study)
        if what == "verdicts":
            data = verdict_lines(analysis)
        elif what == "judgments":
            data = judgments_csv(analysis)
        else:
            data = json_bytes(abp_verdict_document(analysis)[0], derived=True)
    _note_export(db, looked, design_pk, viewer)
    design = json.loads(written[rec.DESIGN])
    # Written first under a temporary name, renamed into place once the export is recorded:
    # a disk that refuses either leaves neither.
    with contextlib.ExitStack() as placed, db.atomic():
        placed.enter_context(writer.placed_when_done(out, data))
        psql.audit(
            db,
            actor,
            f"{EXPORT_ACTION_PREFIX} {what}",
            {
                "study": design["study"],
                "design": design["name"],
                "version": design["version"],
                "file": Path(out).name,
                "sha256": sha256_bytes(data),
            },
        )
    return data, analysis


def export_verdicts(
    db: sqlite_utils.Database,
    design_pk: int | None,
    out: Path,
    *,
    actor: str = "coordinator",
    study: str | None = None,
    viewer: str | None = None,
) -> tuple[int, int]:
    """``verdicts.jsonl``: one final verdict per run of the design (or, ``design_pk`` None, of
    ``study``'s automated outcomes), each with the final preferences of the judged pairs it is
    in; returns the line count and how many judged pairs have a final preference. Every export
    is refused to a ``viewer`` the results are held back from."""
    _data, analysis = _export_one(db, design_pk, out, "verdicts", actor, study, viewer)
    return len(analysis.verdicts), len(analysis.decisions.preferences)


def export_judgments(
    db: sqlite_utils.Database,
    design_pk: int,
    out: Path,
    *,
    actor: str = "coordinator",
    viewer: str | None = None,
) -> int:
    """CSV of every judgment revision and adjudication (one row per response); returns rows."""
    data, _analysis = _export_one(db, design_pk, out, "judgments", actor, viewer=viewer)
    return data.count(b"\n") - 1


def export_abp_verdict(
    db: sqlite_utils.Database,
    design_pk: int | None,
    out: Path,
    *,
    actor: str = "coordinator",
    study: str | None = None,
    viewer: str | None = None,
) -> dict[str, Any]:
    """The design's (or, ``design_pk`` None, ``study``'s automated outcomes') ``abp-verdict/v1``
    JSON, checked against the schema this project ships."""
    data, _analysis = _export_one(db, design_pk, out, "abp-verdict", actor, study, viewer)
    loaded: dict[str, Any] = json.loads(data)
    return loaded
