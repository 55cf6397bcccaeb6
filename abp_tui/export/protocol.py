"""Protocol-only bundles: a design frozen and published before any result exists; and the
check, in the full bundle, of the plan secret that design committed to.

Seed 004 asks for a design to be frozen and pre-registered before results: tasks, conditions,
scoring and hashes, and nothing measured. A protocol-only bundle is that: the study, the design
(its document and hash), the rubric, the tasks and the conditions, the same bytes as the
``protocol/`` files of the design's full bundle but for one thing. It holds no runs, outputs,
traces, items, judgments, audit log or results: nothing that ties an output to its condition.

The one thing is the **plan secret**, and there is one commitment scheme for it. Every blind
code, the assignment, the placement and every reviewer's order are derived from the design's
plan secret (256 random bits kept in the coordinator's database; docs/designs.md, "The
plan"), so the seed alone unlocks nothing and is shown. When the design is stored, its document
records ``plan_secret_sha256``, the SHA-256 of the secret's UTF-8 text
(:func:`abp_tui.analysis.blinding.plan_commitment`); the document, and so the design hash,
commits to the secret before anyone judges. The protocol-only bundle publishes that commitment;
the full bundle, written only after unblinding, reveals the secret itself (``plan_secret`` in
``protocol/design.json``), and :func:`check_plan` (run by ``verify``) checks that it opens the
commitment and re-derives every item's code and base orientation, and every placement a judgment
records, from it. A design stored before plan secrets has neither: its plan followed from its
seed, it has no protocol-only bundle, and its full bundle has no plan to check.

Its ``manifest.json`` follows ``abp-tui-protocol/v1`` (``"kind": "protocol-only"``);
:func:`check_protocol` is what ``verify`` does with such a bundle once every hash is checked. As
in :mod:`abp_tui.export.bundle`, nothing here reads or writes the database.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from abp_tui import __version__
from abp_tui.analysis.blinding import (
    BUDGET_BALANCED_KEY,
    PlanEntry,
    PlannedItem,
    PlanRun,
    assign,
    blind,
    plan_commitment,
)
from abp_tui.analysis.placement import is_flipped
from abp_tui.analysis.records import design_document
from abp_tui.analysis.shared_runs import SHARED_RUNS_KEY
from abp_tui.export import records as rec
from abp_tui.export.allocation import check_allocation
from abp_tui.export.bundle_analysis import Inputs, _json, _model
from abp_tui.export.canonical import json_bytes
from abp_tui.export.claims import (
    check_commitment,
    check_design_hash,
    check_framing,
    check_times,
)
from abp_tui.export.errors import BundleMismatch
from abp_tui.models import Condition, Item, Rubric, Study, StudyDesign
from abp_tui.models.builtin_rubrics import NO_RUBRIC, PREFERENCE_ONLY
from abp_tui.text.canonical import sha256_bytes

PROTOCOL_SCHEMA: Final = "abp-tui-protocol/v1"
PROTOCOL_SCHEMA_FILE: Final = "abp-tui-protocol-v1.schema.json"
PROTOCOL_ONLY: Final = "protocol-only"
"""The manifest's ``kind``: what the bundle is, for a person reading the manifest."""
PROTOCOL_STATUS: Final = "protocol only: frozen before results (no runs, judgments or results)"
PROTOCOL_FILES: Final = (rec.STUDY, rec.DESIGN, rec.RUBRIC, rec.TASKS, rec.CONDITIONS)
"""Every file a protocol-only bundle has besides its manifest, and nothing else."""


def protocol_files(source: Mapping[str, bytes], environment: dict[str, str]) -> dict[str, bytes]:
    """Every file of a protocol-only bundle, the manifest included, from the ``protocol/``
    files of the design's full bundle as they are before unblinding (``source``: the design
    commits to its plan secret and does not reveal it)."""
    files = {path: source[path] for path in PROTOCOL_FILES}
    study, checked = check_protocol_files(files)
    files[rec.MANIFEST] = json_bytes(
        {
            "schema": PROTOCOL_SCHEMA,
            "kind": PROTOCOL_ONLY,
            "tool": {"name": "abp-tui", "version": __version__},
            "environment": environment,
            "study": study.id,
            "synthetic": study.synthetic,
            "design": _manifest_design(checked),
            "status": PROTOCOL_STATUS,
            "schemas": {"bundle": PROTOCOL_SCHEMA, "records": rec.RECORDS_SCHEMA},
            "reproduce": "abp-tui verify .",
            "reproduce_note": "Run in the bundle's folder, or name the .zip instead of '.': "
            "every hash is recomputed and the protocol records are checked against each other. "
            "The design's full bundle, published with its results, carries the same protocol "
            "files and reveals the plan secret whose SHA-256 is plan_secret_sha256.",
            "files": [
                {"path": p, "sha256": sha256_bytes(files[p]), "bytes": len(files[p])}
                for p in sorted(files)
            ],
        }
    )
    return files


def _commitment(design: rec.PublishedDesign) -> str | None:
    found = design.document.get("plan_secret_sha256")
    return found if isinstance(found, str) else None


def _manifest_design(design: rec.PublishedDesign) -> dict[str, Any]:
    return {
        "name": design.name,
        "version": design.version,
        "sha256": design.sha256,
        "seed": design.seed,
        "plan_secret_sha256": _commitment(design),
    }


def check_protocol_files(
    files: Mapping[str, bytes], tool: object = None
) -> tuple[Study, rec.PublishedDesign]:
    """The study and design of a protocol-only bundle's files (the manifest aside).

    Raises BundleMismatch naming the first file that is missing, is not a protocol file (a run,
    a judgment, a result: never in such a bundle) or does not agree with the others: the design
    hash is recomputed from the document and rubric, the study and conditions carry what the
    design adds to them (:mod:`abp_tui.export.claims`). ``tool``: the abp-tui version the
    manifest names.
    """
    for path in PROTOCOL_FILES:
        if path not in files:
            raise BundleMismatch(
                path, "missing: a protocol-only bundle carries every protocol file"
            )
    extra = sorted(set(files) - set(PROTOCOL_FILES) - {rec.MANIFEST})
    if extra:
        raise BundleMismatch(
            extra[0],
            "a protocol-only bundle holds the protocol alone (no runs, outputs, judgments or "
            "results): this file does not belong in it",
        )
    study = _model(Study, _json(files, rec.STUDY), rec.STUDY)
    design = _model(rec.PublishedDesign, _json(files, rec.DESIGN), rec.DESIGN)
    if design.plan_secret is not None:
        raise BundleMismatch(
            rec.DESIGN,
            "plan_secret: revealed before results; a protocol-only bundle publishes only its "
            "commitment (the full bundle reveals it after unblinding)",
        )
    if _commitment(design) is None:
        raise BundleMismatch(
            rec.DESIGN,
            "document.plan_secret_sha256: missing: a protocol-only bundle publishes the "
            "commitment to its design's plan secret",
        )
    scope = _model(StudyDesign, design_document(design.document), rec.DESIGN, "document.")
    rubric = _model(Rubric, _json(files, rec.RUBRIC), rec.RUBRIC)
    tasks = _records(files, rec.TASKS, rec.PublishedTask)
    conditions = _records(files, rec.CONDITIONS, Condition)
    if design.study != study.id or scope.study != study.id:
        raise BundleMismatch(rec.DESIGN, f"a design of study {design.study!r}, not {study.id!r}")
    named = PREFERENCE_ONLY.id if scope.rubric == NO_RUBRIC else scope.rubric
    if isinstance(named, str) and named != rubric.id:
        raise BundleMismatch(
            rec.RUBRIC, f"rubric {rubric.id!r}, but the design names {scope.rubric!r}"
        )
    _in_scope(rec.TASKS, scope.tasks, [t.id for t in tasks])
    _in_scope(rec.CONDITIONS, scope.conditions, [c.id for c in conditions])
    check_design_hash(files, design, tool)
    check_framing(study, scope, conditions)
    check_times(design)
    check_commitment(files, design)
    return study, design


def _records(files: Mapping[str, bytes], path: str, model: Any) -> list[Any]:
    raw = _json(files, path)
    if not isinstance(raw, list):
        raise BundleMismatch(path, "expected a list")
    return [_model(model, r, path, f"[{i}].") for i, r in enumerate(raw)]


def _in_scope(path: str, chosen: str | list[str], found: list[str]) -> None:
    if len(set(found)) != len(found):
        raise BundleMismatch(path, "an id is listed twice")
    outside = sorted(set(found) - set(chosen)) if chosen != "all" else []
    if outside:
        raise BundleMismatch(path, f"{outside[0]!r} is not one the design chose ({chosen})")


def check_protocol(
    files: Mapping[str, bytes], manifest: Mapping[str, Any]
) -> tuple[str, rec.PublishedDesign]:
    """``verify``'s check of a protocol-only bundle whose hashes were checked: the files are
    the protocol's and agree with each other and with the manifest. Returns (study, design)."""
    tool = manifest.get("tool")
    study, design = check_protocol_files(
        files, tool.get("version") if isinstance(tool, dict) else None
    )
    expected = {
        "study": study.id,
        "synthetic": study.synthetic,
        "status": PROTOCOL_STATUS,
        "design": _manifest_design(design),
    }
    for key, value in expected.items():
        if manifest.get(key) != value:
            raise BundleMismatch(
                rec.MANIFEST,
                f"{key} is {json.dumps(manifest.get(key))}, the protocol records give "
                f"{json.dumps(value)}",
            )
    return study.id, design


def check_plan(inputs: Inputs) -> None:
    """A full bundle's check of its plan: the plan secret it reveals opens the commitment its
    design recorded, and re-derives every item's code and base orientation, a human budget's
    draws (:func:`abp_tui.export.allocation.check_allocation`) and every placement a judgment
    records, in that order (raises BundleMismatch naming the first that differs: an altered
    draw, not the placements a deal of the drawn items would then give)."""
    design = inputs.design
    committed, secret = _commitment(design), design.plan_secret
    if committed is None and secret is None:
        check_allocation(inputs)
        return  # stored before plan secrets: its plan followed from the seed alone
    if secret is None:
        raise BundleMismatch(
            rec.DESIGN,
            "plan_secret: missing: a results bundle reveals the plan secret its design "
            "committed to (document.plan_secret_sha256)",
        )
    if committed != plan_commitment(secret):
        raise BundleMismatch(
            rec.DESIGN,
            f"plan_secret: its SHA-256 is {plan_commitment(secret)}, not the commitment the "
            f"design recorded ({committed})",
        )
    items = sorted(inputs.items, key=lambda i: i.index)
    entries = [
        PlanEntry(
            "", i.kind, tuple(i.runs), (i.conditions[0], i.conditions[1]) if i.is_pair else None
        )
        for i in items
    ]
    apart_runs = inputs.design.document.get(SHARED_RUNS_KEY) is True
    derived = blind(inputs.study_design, entries, secret, apart_runs)
    for item, (code, base) in zip(items, derived, strict=True):
        if item.code != code:
            raise BundleMismatch(
                rec.ITEMS, f"item {item.code}: the plan secret gives it the code {code}"
            )
        if item.base_flip != base:
            raise BundleMismatch(
                rec.ITEMS,
                f"item {item.code}: base_flip is {item.base_flip}, the plan secret gives {base}",
            )
    check_allocation(inputs)
    _check_placements(inputs, items, secret, apart_runs)


def _check_placements(inputs: Inputs, items: list[Item], secret: str, apart_runs: bool) -> None:
    """Each judgment of a pair shows its runs where the plan put them for its reviewer: by the
    assignment, for listed reviewers; for an open design, in one slot parity per reviewer (the
    enrolment order that chose the slot is not published)."""
    design = inputs.study_design
    by_code = {i.code: i for i in items}
    planned = [
        PlannedItem(
            i.code,
            i.code,
            i.kind,
            i.task,
            i.trial,
            PlanRun(0, i.runs[0], i.task, i.conditions[0], i.trial),
            PlanRun(0, i.runs[1], i.task, i.conditions[1], i.trial) if i.is_pair else None,
            i.base_flip,
        )
        for i in items
    ]
    # A human budget's drawn items, dealt alone (a design planned since it records so; its
    # draws were checked before).
    drawn = None
    if inputs.design.document.get(BUDGET_BALANCED_KEY) is True:
        drawn = {d.item for d in inputs.allocation if d.drawn}
    dealt = assign(design, planned, secret, apart_runs, drawn=drawn)
    flips = {(a.item_key, a.reviewer): a.flipped for a in dealt}
    parity: dict[str, bool] = {}
    for number, j in enumerate(inputs.judgments, start=1):
        item = by_code.get(j.item)
        if item is None or not item.is_pair:
            continue
        flipped = is_flipped(j.placement, item.runs)
        where = f"line {number}: {j.reviewer}'s judgment of {j.item}"
        if design.reviewers:
            expected = flips.get((j.item, j.reviewer))
            if expected is None:
                raise BundleMismatch(
                    rec.JUDGMENTS, f"{where}: the plan does not assign the item to them"
                )
            if expected != flipped:
                raise BundleMismatch(
                    rec.JUDGMENTS,
                    f"{where} shows the runs in the order the plan secret does not give them",
                )
        elif parity.setdefault(j.reviewer, flipped != item.base_flip) != (
            flipped != item.base_flip
        ):
            raise BundleMismatch(
                rec.JUDGMENTS,
                f"{where} shows the runs in an order no single slot of the plan gives them",
            )
