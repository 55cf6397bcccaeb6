"""Protocol-only bundles: a design frozen and published before any result exists.

Seed 004 asks for a design to be frozen and pre-registered before results: tasks, conditions,
scoring and hashes, and nothing measured. A protocol-only bundle is that: the study, the design
(its document and hash), the rubric, the tasks and the conditions, the same bytes as the
``protocol/`` files of the design's full bundle but for one thing. It holds no runs, outputs,
traces, items, judgments, audit log or results: nothing that ties an output to its condition.

The one thing: the seed is committed to, not shown. The seed and the item keys give every blind
code, the assignment and the placement (README, "The plan"), so a reviewer who read the seed
before judging could tell which response is which condition. The design file shows
``seed_sha256``, the SHA-256 of ``"{salt}:{seed}"``; the salt (random, one per design version)
is in the coordinator's audit log, which the full bundle publishes after unblinding, where
:func:`check_commitments` (run by ``verify``) checks it against the seed.

Its ``manifest.json`` follows ``abp-tui-protocol/v1`` (``"kind": "protocol-only"``);
:func:`check_protocol` is what ``verify`` does with such a bundle once every hash is checked. As
in :mod:`abp_tui.export.bundle`, nothing here reads or writes the database.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from abp_tui import __version__
from abp_tui.analysis.records import design_document
from abp_tui.export import records as rec
from abp_tui.export.bundle_analysis import _json, _model
from abp_tui.export.canonical import json_bytes
from abp_tui.export.errors import BundleMismatch
from abp_tui.models import Condition, Model, Rubric, Study, StudyDesign
from abp_tui.text.canonical import sha256_bytes, sha256_text

PROTOCOL_SCHEMA: Final = "abp-tui-protocol/v1"
PROTOCOL_SCHEMA_FILE: Final = "abp-tui-protocol-v1.schema.json"
PROTOCOL_ONLY: Final = "protocol-only"
"""The manifest's ``kind``: what the bundle is, for a person reading the manifest."""
PROTOCOL_STATUS: Final = "protocol only: frozen before results (no runs, judgments or results)"
PROTOCOL_FILES: Final = (rec.STUDY, rec.DESIGN, rec.RUBRIC, rec.TASKS, rec.CONDITIONS)
"""Every file a protocol-only bundle has besides its manifest, and nothing else."""
COMMITTED: Final = "protocol committed"
"""The audit action that records a design's seed commitment (and its salt)."""


class ProtocolDesign(Model):
    """The design a protocol-only bundle announces: a published design with its seed withheld."""

    study: str
    """The study's id."""
    name: str
    """The design's name."""
    version: int
    """The design's version under its name."""
    sha256: str
    """The design hash recorded when it was stored (design, rubric and the planned items)."""
    seed_sha256: str
    """SHA-256 of ``"{salt}:{seed}"``: the seed, committed to."""
    created_at: str
    """When the design was stored (UTC)."""
    frozen_at: str | None
    """When it was frozen (by this bundle, or by its first judgment before)."""
    document: dict[str, Any]
    """The design as stored, without its seed."""


def seed_commitment(seed: int, salt: str) -> str:
    """The published commitment to a design's seed."""
    return sha256_text(f"{salt}:{seed}")


def protocol_files(
    source: Mapping[str, bytes], salt: str, environment: dict[str, str]
) -> dict[str, bytes]:
    """Every file of a protocol-only bundle, the manifest included, from the ``protocol/``
    files of the design's full bundle (``source``): the design's seed is replaced by its
    commitment under ``salt``."""
    published = _model(rec.PublishedDesign, _json(source, rec.DESIGN), rec.DESIGN)
    document = {k: v for k, v in published.document.items() if k != "seed"}
    design = ProtocolDesign(
        study=published.study,
        name=published.name,
        version=published.version,
        sha256=published.sha256,
        seed_sha256=seed_commitment(published.seed, salt),
        created_at=published.created_at,
        frozen_at=published.frozen_at,
        document=document,
    )
    files = {path: source[path] for path in PROTOCOL_FILES if path != rec.DESIGN}
    files[rec.DESIGN] = json_bytes(design.model_dump(mode="json"))
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
            "files, the seed, and in its audit log the salt of seed_sha256.",
            "files": [
                {"path": p, "sha256": sha256_bytes(files[p]), "bytes": len(files[p])}
                for p in sorted(files)
            ],
        }
    )
    return files


def _manifest_design(design: ProtocolDesign) -> dict[str, Any]:
    return {
        "name": design.name,
        "version": design.version,
        "sha256": design.sha256,
        "seed_sha256": design.seed_sha256,
    }


def check_protocol_files(files: Mapping[str, bytes]) -> tuple[Study, ProtocolDesign]:
    """The study and design of a protocol-only bundle's files (the manifest aside).

    Raises BundleMismatch naming the first file that is missing, is not a protocol file (a run,
    a judgment, a result: never in such a bundle) or does not agree with the others.
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
    design = _model(ProtocolDesign, _json(files, rec.DESIGN), rec.DESIGN)
    if "seed" in design.document:
        raise BundleMismatch(rec.DESIGN, "document.seed: the seed is shown, not committed to")
    # The document without its seed is a design file's; the seed's value is not checked here.
    scope = _model(
        StudyDesign, {**design_document(design.document), "seed": 0}, rec.DESIGN, "document."
    )
    rubric = _model(Rubric, _json(files, rec.RUBRIC), rec.RUBRIC)
    tasks = _records(files, rec.TASKS, rec.PublishedTask)
    conditions = _records(files, rec.CONDITIONS, Condition)
    if design.study != study.id or scope.study != study.id:
        raise BundleMismatch(rec.DESIGN, f"a design of study {design.study!r}, not {study.id!r}")
    if isinstance(scope.rubric, str) and scope.rubric != rubric.id:
        raise BundleMismatch(
            rec.RUBRIC, f"rubric {rubric.id!r}, but the design names {scope.rubric!r}"
        )
    _in_scope(rec.TASKS, scope.tasks, [t.id for t in tasks])
    _in_scope(rec.CONDITIONS, scope.conditions, [c.id for c in conditions])
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


def check_protocol(files: Mapping[str, bytes], manifest: Mapping[str, Any]) -> tuple[str, str]:
    """``verify``'s check of a protocol-only bundle whose hashes were checked: the files are
    the protocol's and agree with each other and with the manifest. Returns (study, design)."""
    study, design = check_protocol_files(files)
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
    return study.id, design.name


def check_commitments(
    audit: Iterable[rec.PublishedAuditEntry], design: rec.PublishedDesign
) -> None:
    """A full bundle's check of the seed commitments its design's protocol bundles published:
    each must be the commitment to the seed this bundle shows."""
    for number, entry in enumerate(audit, start=1):
        detail = entry.detail
        if entry.action != COMMITTED or (
            detail.get("study"),
            detail.get("design"),
            detail.get("version"),
        ) != (design.study, design.name, design.version):
            continue
        salt, committed = detail.get("seed_salt"), detail.get("seed_sha256")
        if not isinstance(salt, str) or seed_commitment(design.seed, salt) != committed:
            raise BundleMismatch(
                rec.AUDIT,
                f"line {number}: the seed commitment a protocol-only bundle published "
                f"({committed}) is not that of this design's seed {design.seed} and its salt",
            )
