"""Offline reviewer stations: study packs out, ratings back (merged by :mod:`merging`).

A **study pack** holds only what its reviewer may see: the rubric, the blind tasks, and for each
assigned item its blind code and masked responses in the placement that reviewer sees; and the
key the station signs its ratings with. It holds no condition labels, instructions, engines,
models, providers, run ids or file names, nothing of the design beyond its name, version and
hash, and nothing derived from a value anyone could guess: codes, placement, order and the
design hash all come from the design's plan secret, which never leaves the coordinator
(:mod:`abp_tui.analysis.blinding`). A design stored before plan secrets has none, and its packs
are refused until it is planned again. Issuing a pack freezes the design: the ratings that come
back refer to its plan.

``open_station`` turns a pack into a station database the ordinary workstation opens, as the
pack's reviewer (:func:`station_reviewer`); a station holds that one pack and nothing else, so a
pack opens only into an empty database (or the station of the same pack, where it changes
nothing), and an inconsistent pack is refused before anything is written
(:mod:`abp_tui.services.station_files`). ``write_ratings`` writes every judgment made there
(every revision, keyed by position), signed with the pack's key; ``merge_ratings`` brings them
back into the coordinator's database (:mod:`abp_tui.services.merging`).
"""

from __future__ import annotations

import contextlib
import json
import secrets
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from abp_tui.analysis.placement import by_position
from abp_tui.errors import AbpError
from abp_tui.export.bundle import placed_when_done
from abp_tui.models import Condition, Run, Study, Task
from abp_tui.models.builtin_rubrics import PREFERENCE_ONLY
from abp_tui.services.merging import merge_ratings
from abp_tui.services.reviewing import BlindResponse, BlindTask, ReviewSession
from abp_tui.services.station_files import (
    PACK_FORMAT,
    RATINGS_FORMAT,
    PackDesign,
    PackItem,
    PackResponse,
    PackTask,
    PackTraceEvent,
    RatedJudgment,
    RatingsFile,
    StudyPack,
    body_hash,
    document_of,
    dumps,
    read_ratings,
    read_study_pack,
    signature,
    write_atomic,
)
from abp_tui.services.station_owner import pack_designs, station_reviewer
from abp_tui.store import ImportWriter
from abp_tui.store import judging as sql
from abp_tui.store import packs as psql
from abp_tui.store import secrets as secret_sql
from abp_tui.store.queries import study_protocol
from abp_tui.text.canonical import canonical_json
from abp_tui.text.hints import command
from abp_tui.text.safe import safe_line

__all__ = [
    "PACK_FORMAT",
    "RATINGS_FORMAT",
    "OpenedPack",
    "PackDesign",
    "RatedJudgment",
    "RatingsFile",
    "StationRefused",
    "StudyPack",
    "build_study_pack",
    "merge_ratings",
    "open_pack",
    "open_station",
    "read_ratings",
    "read_study_pack",
    "station_reviewer",
    "write_ratings",
    "write_study_pack",
]


def _task_of(db: sqlite_utils.Database, item: sql.StoredItem) -> str:
    return str(sql.task_row(db, item.task_pk)["id"])


def _signing_key(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> str:
    """The reviewer's key for this design, issued (256 random bits) with their first pack."""
    key = secret_sql.reviewer_key(db, design_pk, reviewer)
    if key is None:
        key = secrets.token_hex(32)
        secret_sql.store_reviewer_key(db, design_pk, reviewer, key)
    return key


def _refuse_unblindable(db: sqlite_utils.Database, design: sql.DesignRow) -> None:
    if study_protocol(db, design.study_id) == "pack":
        raise AbpError("this is a reviewer station: packs are issued on the coordinator's database")
    if secret_sql.plan_secret(db, design.pk) is None:
        raise AbpError(
            f"design {design.name} v{design.version_no} was planned before plan secrets: its "
            "blind codes and placement follow from its seed, which a reviewer could recover "
            f"from a pack by guessing; plan it again with `{command('study create', db)}` and its "
            "file "
            "(a new version when it was judged) and issue packs of that (refused)"
        )


def build_study_pack(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> StudyPack:
    """The pack of one reviewer (enrolling them first in an open design, and issuing their key
    when they have none): the items they have not judged in this database yet. An item with a
    revision here is left out (:func:`judged_here`): the station would number its own first
    revision 1 again, and the merge refuses a revision that differs from the one stored."""
    design = sql.design(db, design_pk)
    _refuse_unblindable(db, design)
    session = ReviewSession(db, design_pk, reviewer)
    row = session.design_row
    items: list[PackItem] = []
    queue = session.queue()
    if queue and all(q.revisions for q in queue):
        raise AbpError(
            f"{reviewer} has judged every one of their {len(queue)} items of design "
            f"{row.name} v{row.version_no} in this database already: a pack would hold "
            "nothing to judge (a revision is made here, in the workstation)"
        )
    for q in queue:
        if q.revisions:
            continue  # judged here: its revisions go on here, never on a station
        # Read, not opened: opening would move the reviewer to each item in turn, and they
        # would find themselves on the last one when they judge on this database.
        blind = session.read(q.code)
        task: BlindTask = blind.task
        own = len(task.fatal_criteria) - len(session.rubric.fatal_criteria)
        items.append(
            PackItem(
                code=q.code,
                kind="pair" if q.kind == "pair" else "single",
                order_index=len(items),  # its place on the station: 0 to n-1, none left out
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
        rubric=None if not session.rubric.dimensions else session.rubric,
        items=items,
        signing_key=_signing_key(db, design_pk, reviewer),
        timing_rule=(row.document.get("correction_effort") or {}).get("timing_rule"),
    )
    return pack.model_copy(update={"sha256": body_hash(document_of(pack))})


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
    """Issue a reviewer's pack (recorded, with their key) and write it to ``out``; the design is
    frozen from then on. The file is written first, under a temporary name: a disk that
    refuses it leaves nothing recorded, frozen or written; the file takes its name only once
    the record is committed."""
    with contextlib.ExitStack() as placed, db.atomic():
        pack = build_study_pack(db, design_pk, reviewer)
        # Written now; renamed into place when the ExitStack closes, after the commit.
        placed.enter_context(placed_when_done(out, dumps(pack).encode("utf-8"), "the study pack"))
        psql.record_pack(db, pack.sha256, design_pk, reviewer, len(pack.items))
        psql.freeze_design(db, design_pk)
        psql.audit(
            db,
            reviewer,
            "pack issued",
            {"design": pack.design.model_dump(), "pack": pack.sha256, "items": len(pack.items)},
        )
    return pack


def judged_here(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> int:
    """How many of ``reviewer``'s items of the design have a revision of theirs (a draft or a
    submission) in this database: left out of their pack (:func:`build_study_pack`)."""
    return sum(1 for row in sql.queue(db, design_pk, reviewer) if row.revisions)


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


def _refusal(station: sqlite_utils.Database, pack: StudyPack, path: Path) -> str | None:
    """Why ``pack`` may not open into ``station`` (None: it may)."""
    where = safe_line(psql.database_file(station) or "this database")
    name = safe_line(path.name)
    use_new = f"abp-tui --db NEW.db pack open {name} (refused; nothing was changed)"
    held = pack_designs(station)
    if held:
        other = held[0]
        reviewer = station_reviewer(station)
        label = f"{other.study_id} / {other.name} v{other.version_no}"
        if reviewer != pack.reviewer:
            return (
                f"{name} is {pack.reviewer}'s pack, but {where} is the station of "
                f"{reviewer} (design {label}); open it in a database of its own: {use_new}"
            )
        return (
            f"{where} already holds another pack of {reviewer} (design {label}), and a station "
            f"holds one pack; open {name} in a database of its own: {use_new}"
        )
    studies = psql.study_ids(station)
    if studies:
        shown = ", ".join(studies[:3]) + (
            f" and {len(studies) - 3} more" if len(studies) > 3 else ""
        )
        return (
            f"{where} holds other studies ({shown}): a pack opens into a reviewer station's own "
            f"database, never into a coordinator's; use a new file: {use_new}"
        )
    filled = psql.tables_with_rows(station)
    if filled:
        return (
            f"{where} is not an empty database (it has rows in {', '.join(filled[:3])}"
            f"{' and more' if len(filled) > 3 else ''}): a pack opens into a new, empty "
            f"database of its own: {use_new}"
        )
    return None


def open_pack(station: sqlite_utils.Database, path: Path) -> int:
    """Load a study pack into a station database; return the station's design pk."""
    return open_station(station, path).design_pk


def open_station(station: sqlite_utils.Database, path: Path) -> OpenedPack:
    """Load a study pack into a station database (an empty one, or the station of the same
    pack, where opening it again changes nothing). Raises InputError for an inconsistent pack
    and StationRefused for a database that is not an empty station, before anything is
    written."""
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
    rubric = pack.rubric or PREFERENCE_ONLY
    with station.atomic():
        writer = ImportWriter(station, path.name, pack.sha256, 0, "reviewer-pack")
        writer.write(
            Study(
                id=pack.design.study,
                name=pack.design.study,
                protocol="pack",
                description=f"Reviewer pack of design {pack.design.name} "
                f"v{pack.design.version} for {pack.reviewer}",
                rubric_id=rubric.id,
            )
        )
        writer.write(rubric.model_copy(update={"source": "imported"}))
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
            "rubric": rubric.id,
            "contrasts": "none",
            "reviewers": [pack.reviewer],
            "pack": pack.sha256,
        }
        if pack.timing_rule is not None:  # seed 002: the station asks for minutes under it
            document["correction_effort"] = {"timing_rule": pack.timing_rule}
        design_pk = sql.insert_design(
            station,
            pack.design.study,
            pack.design.name,
            pack.design.version,
            pack.design.sha256,
            canonical_json(document),
            rubric.model_dump_json(),
            0,
        )
        sql.ensure_reviewer(station, pack.reviewer)
        secret_sql.store_reviewer_key(station, design_pk, pack.reviewer, pack.signing_key)
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
    """Every judgment made on this station, keyed by position, with the pack's hash, signed
    with the pack's key."""
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
    key = secret_sql.reviewer_key(station, design.pk, reviewer)
    if key is None:
        raise AbpError(
            "this station's pack carries no signing key (an older pack): ask the coordinator "
            "for a new pack"
        )
    judgments = []
    for j in psql.all_judgments(station, design.pk, reviewer):
        positional = by_position(j.judgment, j.placement)
        judgments.append(
            RatedJudgment(
                code=j.item,
                revision=j.revision,
                status="submitted" if j.status == "submitted" else "draft",
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
    document = document_of(ratings)
    ratings = ratings.model_copy(
        update={"sha256": body_hash(document), "signature": signature(document, key)}
    )
    write_atomic(out, dumps(ratings))
    return ratings
