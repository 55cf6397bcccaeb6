"""Offline reviewer stations: study packs out, ratings back, merged into the coordinator's store.

A **study pack** holds only what its reviewer may see: the rubric, the blind tasks, and for each
assigned item its blind code and masked responses in the placement that reviewer sees. It holds no
condition labels, instructions, engines, models, providers, run ids or file names, and nothing of
the design beyond its name, version and hash. ``open_pack`` turns a pack into a station database
the ordinary workstation opens, as the pack's reviewer (:func:`station_reviewer`); a station holds
that one pack and nothing else, so a pack is refused by a database that holds other studies or
another pack. ``write_ratings`` writes every judgment made there (every revision,
keyed by position); ``merge_ratings`` brings ratings back into the coordinator's database:
idempotent, all or nothing, refusing a pack this database did not issue, a pack made for another
design version, and a file whose content does not match its hash.

The hashes detect corruption and naive tampering; they are not signatures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import sqlite_utils
from pydantic import Field

from abp_tui.errors import AbpError, InputError
from abp_tui.formats.base import loads_json, validate
from abp_tui.models import Condition, Judgment, Model, Rubric, Run, Study, Task
from abp_tui.services.reviewing import BlindResponse, BlindTask, ReviewSession
from abp_tui.store import ImportWriter
from abp_tui.store import judging as sql
from abp_tui.store import packs as psql
from abp_tui.text.canonical import canonical_json, sha256_text

PACK_FORMAT = "abp-tui-reviewer-pack/v1"
RATINGS_FORMAT = "abp-tui-ratings/v1"


class PackDesign(Model):
    study: str
    name: str
    version: int
    sha256: str


class PackTraceEvent(Model):
    seq: int
    kind: str
    tool: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    duration_ms: float | None = None


class PackResponse(Model):
    key: str
    text: str
    masked: int
    record_state: str | None = None
    trace: list[PackTraceEvent] = Field(default_factory=list)


class PackTask(Model):
    id: str
    title: str = ""
    prompt: str = ""
    base_instruction: str = ""
    evidence: str = ""
    expected_behaviour: str = ""
    fatal_criteria: list[str] = Field(default_factory=list)
    risk_type: str = ""


class PackItem(Model):
    code: str
    kind: Literal["pair", "single"]
    order_index: int
    task: PackTask
    responses: list[PackResponse]


class StudyPack(Model):
    """The file a reviewer takes to an offline station."""

    format: Literal["abp-tui-reviewer-pack/v1"]
    design: PackDesign
    reviewer: str
    rubric: Rubric
    items: list[PackItem]
    sha256: str = ""
    """SHA-256 of the canonical JSON of everything else in the file."""


class RatedJudgment(Model):
    code: str
    revision: int
    status: Literal["draft", "submitted"]
    judgment: Judgment
    """Keyed by position, as the reviewer saw it."""
    reason: str = ""
    seconds_spent: float = 0.0
    created_at: str


class RatingsFile(Model):
    """What a reviewer station sends back."""

    format: Literal["abp-tui-ratings/v1"]
    pack_sha256: str
    design: PackDesign
    reviewer: str
    judgments: list[RatedJudgment]
    sha256: str = ""


def _body_hash(document: dict[str, Any]) -> str:
    return sha256_text(canonical_json({k: v for k, v in document.items() if k != "sha256"}))


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _task_of(db: sqlite_utils.Database, item: sql.StoredItem) -> str:
    return str(sql.task_row(db, item.task_pk)["id"])


def build_study_pack(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> StudyPack:
    """The pack of one reviewer (enrolling them first in an open design)."""
    session = ReviewSession(db, design_pk, reviewer)
    row = session.design_row
    items = []
    for q in session.queue():
        # Read, not opened: opening would move the reviewer to each item in turn, and they
        # would find themselves on the last one when they judge on this database.
        blind = session.read(q.code)
        task: BlindTask = blind.task
        own = len(task.fatal_criteria) - len(session.rubric.fatal_criteria)
        items.append(
            PackItem(
                code=q.code,
                kind="pair" if q.kind == "pair" else "single",
                order_index=q.order_index,
                task=PackTask(
                    id=_task_of(db, sql.item_by_code(db, design_pk, q.code)),
                    title=task.title,
                    prompt=task.prompt,
                    base_instruction=task.base_instruction,
                    evidence=task.evidence,
                    expected_behaviour=task.expected_behaviour,
                    fatal_criteria=list(task.fatal_criteria[:own]),
                    risk_type=task.risk_type,
                ),
                responses=[_pack_response(r) for r in blind.responses],
            )
        )
    pack = StudyPack(
        format=PACK_FORMAT,
        design=PackDesign(
            study=row.study_id, name=row.name, version=row.version_no, sha256=row.sha256
        ),
        reviewer=reviewer,
        rubric=session.rubric,
        items=items,
    )
    document = pack.model_dump(mode="json")
    return pack.model_copy(update={"sha256": _body_hash(document)})


def _pack_response(r: BlindResponse) -> PackResponse:
    return PackResponse(
        key=r.key,
        text=r.text,
        masked=r.masked,
        record_state=r.record_state,
        trace=[
            PackTraceEvent(
                seq=e.seq,
                kind=e.kind,
                tool=e.tool,
                input_tokens=e.input_tokens,
                output_tokens=e.output_tokens,
                duration_ms=e.duration_ms,
            )
            for e in r.trace
        ],
    )


def write_study_pack(
    db: sqlite_utils.Database, design_pk: int, reviewer: str, out: Path
) -> StudyPack:
    pack = build_study_pack(db, design_pk, reviewer)
    with db.atomic():
        psql.record_pack(db, pack.sha256, design_pk, reviewer, len(pack.items))
        psql.audit(
            db,
            reviewer,
            "pack issued",
            {"design": pack.design.model_dump(), "pack": pack.sha256, "items": len(pack.items)},
        )
    _write_atomic(out, json.dumps(pack.model_dump(mode="json"), ensure_ascii=False, indent=1))
    return pack


def _read_verified(
    path: Path, model: type[StudyPack] | type[RatingsFile]
) -> StudyPack | RatingsFile:
    display = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    data = loads_json(raw, display)
    if not isinstance(data, dict):
        raise InputError(display, "expected a JSON object")
    expected = "abp-tui-reviewer-pack/v1" if model is StudyPack else "abp-tui-ratings/v1"
    if data.get("format") != expected:
        raise InputError(display, f"expected format {expected!r}", None, "$.format")
    parsed = validate(model, data, display)
    if _body_hash(data) != parsed.sha256:
        raise InputError(
            display,
            "the content does not match its sha256: the file was changed "
            "after it was written (refused)",
            None,
            "$.sha256",
        )
    return parsed


def read_study_pack(path: Path) -> StudyPack:
    pack = _read_verified(path, StudyPack)
    assert isinstance(pack, StudyPack)
    return pack


def read_ratings(path: Path) -> RatingsFile:
    ratings = _read_verified(path, RatingsFile)
    assert isinstance(ratings, RatingsFile)
    return ratings


@dataclass(frozen=True)
class OpenedPack:
    """What ``pack open`` did: the station's design, for whom, and whether it was open already."""

    design_pk: int
    reviewer: str
    design: PackDesign
    items: int
    already_open: bool


class StationRefused(AbpError):
    """A pack cannot open into this database (nothing was written)."""


def _pack_designs(station: sqlite_utils.Database) -> list[sql.DesignRow]:
    return [d for d in sql.designs(station) if d.document.get("pack")]


def station_reviewer(db: sqlite_utils.Database) -> str | None:
    """The reviewer a station database judges as (its pack's), or None for any other database.

    This is how a station remembers its reviewer: ``abp-tui --db STATION`` opens as them.
    """
    for design in _pack_designs(db):
        reviewers = design.document.get("reviewers")
        if isinstance(reviewers, list) and reviewers and isinstance(reviewers[0], str):
            return reviewers[0]
    return None


def _refusal(station: sqlite_utils.Database, pack: StudyPack, path: Path) -> str | None:
    """Why ``pack`` may not open into ``station`` (None: it may)."""
    where = psql.database_file(station) or "this database"
    held = _pack_designs(station)
    if held:
        other = held[0]
        reviewer = station_reviewer(station)
        label = f"{other.study_id} / {other.name} v{other.version_no}"
        if reviewer != pack.reviewer:
            return (
                f"{path.name} is {pack.reviewer}'s pack, but {where} is the station of "
                f"{reviewer} (design {label}); open it in a database of its own: "
                f"abp-tui --db NEW.db pack open {path.name} (refused; nothing was changed)"
            )
        return (
            f"{where} already holds another pack of {reviewer} (design {label}), and a station "
            f"holds one pack; open {path.name} in a database of its own: "
            f"abp-tui --db NEW.db pack open {path.name} (refused; nothing was changed)"
        )
    studies = psql.study_ids(station)
    if studies:
        shown = ", ".join(studies[:3]) + (
            f" and {len(studies) - 3} more" if len(studies) > 3 else ""
        )
        return (
            f"{where} holds other studies ({shown}): a pack opens into a reviewer station's own "
            f"database, never into a coordinator's; use a new file: "
            f"abp-tui --db NEW.db pack open {path.name} (refused; nothing was changed)"
        )
    return None


def open_pack(station: sqlite_utils.Database, path: Path) -> int:
    """Load a study pack into a station database; return the station's design pk."""
    return open_station(station, path).design_pk


def open_station(station: sqlite_utils.Database, path: Path) -> OpenedPack:
    """Load a study pack into a station database (an empty one, or the station of the same
    pack, where opening it again changes nothing). Raises StationRefused, before anything is
    written, for a database holding other studies or another pack."""
    pack = read_study_pack(path)
    existing = [
        d
        for d in sql.designs(station, pack.design.study)
        if d.sha256 == pack.design.sha256 and d.document.get("pack") == pack.sha256
    ]
    if existing:
        return OpenedPack(existing[0].pk, pack.reviewer, pack.design, len(pack.items), True)
    refused = _refusal(station, pack, path)
    if refused is not None:
        raise StationRefused(refused)
    with station.atomic():
        writer = ImportWriter(station, path.name, pack.sha256, 0, "reviewer-pack")
        writer.write(
            Study(
                id=pack.design.study,
                name=pack.design.study,
                protocol="pack",
                description=f"Reviewer pack of design {pack.design.name} "
                f"v{pack.design.version} for {pack.reviewer}",
                rubric_id=pack.rubric.id,
            )
        )
        writer.write(pack.rubric.model_copy(update={"source": "imported"}))
        for label in ("1", "2"):
            writer.write(Condition(id=f"response-{label}"))
        seen_tasks: set[str] = set()
        for item in pack.items:
            if item.task.id not in seen_tasks:
                seen_tasks.add(item.task.id)
                writer.write(
                    Task(
                        id=item.task.id,
                        title=item.task.title,
                        prompt=item.task.prompt,
                        base_instruction=item.task.base_instruction,
                        evidence=item.task.evidence,
                        expected_behaviour=item.task.expected_behaviour,
                        fatal_criteria=tuple(item.task.fatal_criteria),
                        risk_type=item.task.risk_type,
                    )
                )
            for response in item.responses:
                writer.write(
                    Run(
                        id=f"{item.code}/{response.key}",
                        task_id=item.task.id,
                        condition_id=f"response-{response.key}",
                        output=response.text,
                        origin_status=response.record_state,
                    )
                )
        writer.finish()
        document = {
            "study": pack.design.study,
            "name": pack.design.name,
            "seed": 0,
            "rubric": pack.rubric.id,
            "contrasts": "none",
            "reviewers": [pack.reviewer],
            "pack": pack.sha256,
        }
        design_pk = sql.insert_design(
            station,
            pack.design.study,
            pack.design.name,
            pack.design.version,
            pack.design.sha256,
            canonical_json(document),
            pack.rubric.model_dump_json(),
            0,
        )
        sql.ensure_reviewer(station, pack.reviewer)
        for item in pack.items:
            runs = {
                r.key: psql.station_run_pk(station, pack.design.study, f"{item.code}/{r.key}")
                for r in item.responses
            }
            task_pk = sql.task_pk_of(station, runs["1"])
            psql.insert_station_item(
                station,
                design_pk,
                item.code,
                item.kind,
                task_pk,
                runs["1"],
                runs.get("2"),
                json.dumps({r.key: r.masked for r in item.responses}),
                pack.reviewer,
                item.order_index,
            )
        _store_traces(station, pack)
        psql.audit(
            station,
            pack.reviewer,
            "pack opened",
            {"design": pack.design.model_dump(), "pack": pack.sha256, "items": len(pack.items)},
        )
    return OpenedPack(design_pk, pack.reviewer, pack.design, len(pack.items), False)


def _store_traces(station: sqlite_utils.Database, pack: StudyPack) -> None:
    for item in pack.items:
        for response in item.responses:
            if not response.trace:
                continue
            psql.attach_station_trace(
                station,
                psql.station_run_pk(station, pack.design.study, f"{item.code}/{response.key}"),
                [
                    (e.seq, e.kind, e.tool, e.input_tokens, e.output_tokens, e.duration_ms)
                    for e in response.trace
                ],
            )


def write_ratings(
    station: sqlite_utils.Database, out: Path, design_pk: int | None = None
) -> RatingsFile:
    """Every judgment made on this station, keyed by position, with the pack's hash."""
    candidates = [d for d in sql.designs(station) if d.document.get("pack")]
    if design_pk is not None:
        candidates = [d for d in candidates if d.pk == design_pk]
    if len(candidates) != 1:
        raise AbpError(
            "this database is not a reviewer station with one open pack "
            f"({len(candidates)} packs found)"
        )
    design = candidates[0]
    reviewer = design.document["reviewers"][0]
    judgments = []
    for j in psql.all_judgments(station, design.pk, reviewer):
        by_run = {run: pos for pos, run in j.placement.items()}
        positional = j.judgment.model_copy(
            update={"responses": {by_run[k]: v for k, v in j.judgment.responses.items()}}
        )
        judgments.append(
            RatedJudgment(
                code=j.item,
                revision=j.revision,
                status=j.status,
                judgment=positional,
                reason=j.reason,
                seconds_spent=j.seconds_spent,
                created_at=j.created_at,
            )
        )
    ratings = RatingsFile(
        format=RATINGS_FORMAT,
        pack_sha256=design.document["pack"],
        design=PackDesign(
            study=design.study_id, name=design.name, version=design.version_no, sha256=design.sha256
        ),
        reviewer=reviewer,
        judgments=judgments,
    )
    ratings = ratings.model_copy(update={"sha256": _body_hash(ratings.model_dump(mode="json"))})
    _write_atomic(out, json.dumps(ratings.model_dump(mode="json"), ensure_ascii=False, indent=1))
    return ratings


def merge_ratings(
    db: sqlite_utils.Database, paths: list[Path], actor: str = "coordinator"
) -> list[dict[str, Any]]:
    """Merge ratings files into the coordinator's database, all or nothing."""
    files = [(p, read_ratings(p)) for p in paths]
    out: list[dict[str, Any]] = []
    with db.atomic():
        for path, ratings in files:
            issued = psql.pack(db, ratings.pack_sha256)
            if issued is None:
                raise InputError(
                    str(path),
                    "this database did not issue the pack these ratings come from (refused)",
                    None,
                    "$.pack_sha256",
                )
            design_pk, reviewer = issued
            design = sql.design(db, design_pk)
            if (
                design.sha256 != ratings.design.sha256
                or design.version_no != ratings.design.version
                or design.name != ratings.design.name
            ):
                raise InputError(
                    str(path),
                    f"made for design {ratings.design.name} "
                    f"v{ratings.design.version} ({ratings.design.sha256[:12]}), "
                    f"but the pack was issued for {design.name} v{design.version_no} "
                    f"({design.sha256[:12]}) (refused)",
                    None,
                    "$.design",
                )
            if reviewer != ratings.reviewer:
                raise InputError(
                    str(path),
                    f"the pack was issued to {reviewer!r}, not {ratings.reviewer!r} (refused)",
                    None,
                    "$.reviewer",
                )
            if psql.merged(db, ratings.sha256):
                out.append(
                    {
                        "file": str(path),
                        "reviewer": reviewer,
                        "added": 0,
                        "note": "already merged; nothing added",
                    }
                )
                continue
            added = 0
            for j in ratings.judgments:
                try:
                    item = sql.item_by_code(db, design_pk, j.code)
                except AbpError:
                    raise InputError(
                        str(path),
                        f"item {j.code} is not in the design (refused)",
                        None,
                        "$.judgments",
                    ) from None
                found = sql.assignment(db, item.pk, reviewer)
                if found is None:
                    raise InputError(
                        str(path),
                        f"item {j.code} is not assigned to {reviewer}",
                        None,
                        "$.judgments",
                    )
                order = (
                    [item.run_a_pk]
                    if item.run_b_pk is None
                    else [item.run_b_pk, item.run_a_pk]
                    if found[1]
                    else [item.run_a_pk, item.run_b_pk]
                )
                responses = {}
                for key, response in j.judgment.responses.items():
                    if not key.isdigit() or not 1 <= int(key) <= len(order):
                        raise InputError(
                            str(path),
                            f"item {j.code}: unknown response {key!r}",
                            None,
                            "$.judgments",
                        )
                    responses[str(order[int(key) - 1])] = response
                payload = j.judgment.model_copy(update={"responses": responses})
                payload_json = payload.model_dump_json()
                if psql.judgment_exists(
                    db, item.pk, reviewer, j.created_at, j.status, payload_json
                ):
                    continue
                placement = json.dumps({str(i): pk for i, pk in enumerate(order, start=1)})
                psql.insert_merged_judgment(
                    db,
                    item.pk,
                    reviewer,
                    j.status,
                    payload_json,
                    placement,
                    j.reason,
                    j.seconds_spent,
                    j.created_at,
                )
                added += 1
            psql.record_merge(db, ratings.sha256, ratings.pack_sha256, reviewer, added)
            psql.audit(
                db,
                actor,
                "ratings merged",
                {
                    "reviewer": reviewer,
                    "file": path.name,
                    "ratings": ratings.sha256,
                    "added": added,
                },
            )
            out.append({"file": str(path), "reviewer": reviewer, "added": added, "note": ""})
    return out
