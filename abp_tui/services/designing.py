"""Study designs: read a design file, plan it against the stored runs, store it, freeze it.

A design is frozen once its first judgment is saved: its hash (design, rubric and the exact run
versions of every item) is recorded, and a changed design under the same name becomes a new
version. Before that, a changed design simply replaces the plan nobody has judged yet.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import sqlite_utils

from abp_tui.analysis.blinding import Masker, PlanError, assign, identity_terms, plan_items
from abp_tui.errors import AbpError, InputError
from abp_tui.formats.base import validate
from abp_tui.models import Rubric, StudyDesign
from abp_tui.models.builtin_rubrics import BUILT_IN
from abp_tui.store import judging as sql
from abp_tui.store.queries import list_studies
from abp_tui.store.views import refresh_views
from abp_tui.text.canonical import canonical_json, sha256_text


@dataclass(frozen=True)
class CreatedDesign:
    pk: int
    study: str
    name: str
    version_no: int
    sha256: str
    status: str
    """created, unchanged, replaced (not yet judged) or new version (the old one was frozen)."""
    items: int
    pair_items: int
    single_items: int
    assignments: int


def load_design_file(path: Path) -> StudyDesign:
    """A design from TOML or JSON, with errors naming the file and field."""
    display = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    data: Any
    if path.suffix.lower() == ".toml":
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise InputError(display, "invalid UTF-8: expected UTF-8 text") from None
        except tomllib.TOMLDecodeError as exc:
            raise InputError(display, f"malformed TOML: {exc}") from None
    elif path.suffix.lower() == ".json":
        from abp_tui.formats.base import loads_json

        data = loads_json(raw, display)
    else:
        raise InputError(display, "expected a .toml or .json design file")
    if not isinstance(data, dict):
        raise InputError(display, "expected a table/object at the top level")
    return validate(StudyDesign, data, display)


def resolve_rubric(db: sqlite_utils.Database, design: StudyDesign) -> Rubric:
    rubric_id = design.rubric or sql.study_rubric_id(db, design.study)
    if rubric_id is None:
        raise AbpError(
            f"study {design.study!r} names no rubric: set rubric = one of {', '.join(BUILT_IN)}"
        )
    stored = sql.rubric_document(db, rubric_id)
    if stored is not None:
        return Rubric.model_validate_json(stored)
    if rubric_id in BUILT_IN:
        return BUILT_IN[rubric_id]
    raise AbpError(f"rubric {rubric_id!r} is neither built in ({', '.join(BUILT_IN)}) nor stored")


def study_masker(db: sqlite_utils.Database, design: StudyDesign) -> Masker:
    ids, labels, values = sql.identities(db, design.study)
    return identity_terms(ids, labels, values, design.mask_terms)


def create_design(db: sqlite_utils.Database, design: StudyDesign) -> CreatedDesign:
    """Plan and store a design; idempotent for an unchanged design."""
    sql.study_rubric_id(db, design.study)  # the study must exist
    rubric = resolve_rubric(db, design)
    try:
        items = plan_items(design, sql.plan_runs(db, design.study))
        assignments = assign(design, items)
    except PlanError as exc:
        raise AbpError(f"design {design.name!r}: {exc}") from None
    masker = study_masker(db, design)
    document = design.model_dump(mode="json")
    document["masked_terms"] = list(masker.terms)
    document["masked_short_ids"] = list(masker.short_ids)
    rubric_doc = rubric.model_dump_json()
    plan_doc = [
        [i.key, i.code, i.run_a.pk, i.run_b.pk if i.run_b else None, i.base_flip] for i in items
    ]
    sha = sha256_text(canonical_json([document, json.loads(rubric_doc), plan_doc]))
    versions = [d for d in sql.designs(db, design.study) if d.name == design.name]
    latest = versions[-1] if versions else None
    pairs = sum(1 for i in items if i.kind == "pair")
    if latest is not None and latest.sha256 == sha:
        return CreatedDesign(
            latest.pk,
            design.study,
            design.name,
            latest.version_no,
            sha,
            "unchanged",
            len(items),
            pairs,
            len(items) - pairs,
            len(assignments),
        )
    with db.atomic():
        version_no = 1
        status = "created"
        if latest is not None and latest.frozen_at is None:
            sql.delete_unfrozen_plan(db, latest.pk)
            version_no, status = latest.version_no, "replaced"
        elif latest is not None:
            version_no, status = latest.version_no + 1, "new version"
        pk = sql.insert_design(
            db,
            design.study,
            design.name,
            version_no,
            sha,
            canonical_json(document),
            rubric_doc,
            design.seed,
        )
        masking: dict[str, dict[str, int]] = {}
        for item in items:
            counts = {"a": _masked_count(db, masker, item.run_a.pk)}
            if item.run_b is not None:
                counts["b"] = _masked_count(db, masker, item.run_b.pk)
            masking[item.key] = counts
        key_to_pk = sql.insert_items(db, pk, items, masking)
        sql.insert_assignments(db, key_to_pk, assignments)
    refresh_views(db)  # the design's rubric may add score columns to latest_judgments
    return CreatedDesign(
        pk,
        design.study,
        design.name,
        version_no,
        sha,
        status,
        len(items),
        pairs,
        len(items) - pairs,
        len(assignments),
    )


def _masked_count(db: sqlite_utils.Database, masker: Masker, run_pk: int) -> int:
    output = sql.run_content(db, run_pk).output
    return masker.mask(output)[1] if output else 0


def find_study(db: sqlite_utils.Database, study: str | None = None) -> str:
    """The study a command means: the one named, else the only study the database holds.

    Every face picks through here, so "which study" has one answer. Station copies of a pack
    (protocol ``pack``) are not studies anyone picks by default.
    """
    if study is not None:
        return study
    ids = [s.id for s in list_studies(db) if s.protocol != "pack"]
    if len(ids) != 1:
        raise AbpError(
            "choose a study with --study"
            + (f" (one of: {', '.join(ids)})" if ids else ": the database has none")
        )
    return ids[0]


def find_design_if_any(
    db: sqlite_utils.Database, study: str | None = None, name: str | None = None
) -> sql.DesignRow | None:
    """The latest version of the design a command means, or None when there is none to mean.

    Without a study, the designs (of that name) must all belong to one study: picking the
    latest across studies would silently judge, publish or report the wrong one. A design
    named but not found is refused rather than answered with None.
    """
    rows = sql.designs(db, study)
    if name is not None:
        rows = [d for d in rows if d.name == name]
    if study is None:
        studies = sorted({d.study_id for d in rows})
        if len(studies) > 1:
            raise AbpError(f"choose a study with --study (one of: {', '.join(studies)})")
    if not rows and name is not None:
        _no_design(study, name)
    return rows[-1] if rows else None


def find_design(
    db: sqlite_utils.Database, study: str | None = None, name: str | None = None
) -> sql.DesignRow:
    """The latest version of the design a command means (see ``find_design_if_any``); refused
    when the database holds none."""
    row = find_design_if_any(db, study, name)
    if row is None:
        _no_design(study, name)
    return row


def _no_design(study: str | None, name: str | None) -> NoReturn:
    what = f"design {name!r}" if name else "study design"
    where = f" for study {study!r}" if study else ""
    raise AbpError(f"no {what}{where}; create one with: abp-tui study create FILE")
