"""Merging ratings files from reviewer stations into the coordinator's database.

A merge is all or nothing (one transaction for every file given) and idempotent. A file is
refused, naming it, the judgment (its place in the file and its item) and the field, when: its
content does not match its hash; this database did not issue its pack; its signature is not the
one the pack's key gives (an edited file, or one claiming another reviewer's pack); it was made
for another design version or reviewer; or any revision in it is one the workstation's save
path would refuse. A reviewer holds their own pack's key and can sign anything, so every
revision goes through the same check a review session's save applies
(:func:`abp_tui.services.revision_rules.check_revision`, one function for both, so they cannot
drift), and its times through plausibility checks: made no earlier than the pack was issued and
no later than the merge, a time spent that is a finite running total no longer than the pack
has existed (:data:`abp_tui.analysis.judgment_checks.CLOCK_SKEW` allowed for the station's
clock). Revisions keep their numbers: one already stored is skipped when identical and refused
when it differs (a revision is never rewritten or renumbered), and a new one must follow the
last stored one.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.analysis.judgment_checks import implausible_seconds, implausible_time, utc_time
from abp_tui.analysis.placement import placement_of, seen_order
from abp_tui.errors import AbpError, InputError
from abp_tui.models import Judgment, Rubric
from abp_tui.services.revision_rules import (
    ItemRules,
    NotReady,
    RevisionRefused,
    check_revision,
    item_rules,
)
from abp_tui.services.station_files import (
    RatedJudgment,
    RatingsFile,
    read_signed_ratings,
    signed_by,
)
from abp_tui.store import judging as sql
from abp_tui.store import packs as psql
from abp_tui.store import secrets as secret_sql


class _File:
    """One ratings file being merged: its name in errors, and the refusal they all share."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.display = str(path)

    def refuse(self, message: str, where: str) -> InputError:
        return InputError(self.display, f"{message} (refused; nothing was merged)", None, where)


def merge_ratings(
    db: sqlite_utils.Database, paths: list[Path], actor: str = "coordinator"
) -> list[dict[str, Any]]:
    """Merge ratings files into the coordinator's database, all or nothing."""
    files = [(_File(p), *read_signed_ratings(p)) for p in paths]
    out: list[dict[str, Any]] = []
    with db.atomic():
        for file, ratings, document in files:
            design_pk, reviewer, issued = _issuer(db, file, ratings, document)
            if psql.merged(db, ratings.sha256):
                out.append(
                    {
                        "file": str(file.path),
                        "reviewer": reviewer,
                        "added": 0,
                        "submitted": 0,
                        "note": "already merged; nothing added",
                    }
                )
                continue
            added = _merge_file(db, file, ratings, design_pk, reviewer, utc_time(issued))
            psql.record_merge(db, ratings.sha256, ratings.pack_sha256, reviewer, added)
            psql.audit(
                db,
                actor,
                "ratings merged",
                {
                    "reviewer": reviewer,
                    "file": file.path.name,
                    "ratings": ratings.sha256,
                    "added": added,
                },
            )
            submitted = sum(1 for j in ratings.judgments if j.status == "submitted")
            out.append(
                {
                    "file": str(file.path),
                    "reviewer": reviewer,
                    "added": added,
                    "submitted": submitted,
                    "note": "",
                }
            )
    return out


def _issuer(
    db: sqlite_utils.Database, file: _File, ratings: RatingsFile, document: dict[str, Any]
) -> tuple[int, str, str]:
    """(design pk, reviewer, when it was issued) of the pack the file answers, once its
    signature is checked."""
    issued = psql.pack(db, ratings.pack_sha256)
    if issued is None:
        raise file.refuse(
            "this database did not issue the pack these ratings come from", "$.pack_sha256"
        )
    design_pk, reviewer, issued_at = issued
    key = secret_sql.reviewer_key(db, design_pk, reviewer)
    if key is None:
        raise file.refuse(
            f"the pack was issued to {reviewer} before packs carried a signing key, so its "
            "ratings cannot be checked; issue a new pack",
            "$.signature",
        )
    if not signed_by(document, key):
        raise file.refuse(
            f"the signature is not that of {reviewer}'s pack: the file was changed after the "
            "station signed it, or it was not signed with the key of the pack it names",
            "$.signature",
        )
    design = sql.design(db, design_pk)
    if (
        design.sha256 != ratings.design.sha256
        or design.version_no != ratings.design.version
        or design.name != ratings.design.name
    ):
        raise file.refuse(
            f"made for design {ratings.design.name} "
            f"v{ratings.design.version} ({ratings.design.sha256[:12]}), "
            f"but the pack was issued for {design.name} v{design.version_no} "
            f"({design.sha256[:12]})",
            "$.design",
        )
    if reviewer != ratings.reviewer:
        raise file.refuse(
            f"the pack was issued to {reviewer!r}, not {ratings.reviewer!r}", "$.reviewer"
        )
    return design_pk, reviewer, issued_at


def _merge_file(
    db: sqlite_utils.Database,
    file: _File,
    ratings: RatingsFile,
    design_pk: int,
    reviewer: str,
    issued: datetime,
) -> int:
    design = sql.design(db, design_pk)
    rubric = Rubric.model_validate(design.rubric)
    times = _Times(issued, datetime.now(UTC))
    by_code: dict[str, list[tuple[int, RatedJudgment]]] = defaultdict(list)
    for number, j in enumerate(ratings.judgments):
        by_code[j.code].append((number, j))
    added = 0
    for code, revisions in by_code.items():
        added += _merge_item(db, file, design, rubric, times, reviewer, code, revisions)
    return added


@dataclass(frozen=True)
class _Times:
    """When the pack was issued, and the time of the merge: the bounds of a plausible time."""

    issued: datetime
    now: datetime


def _merge_item(
    db: sqlite_utils.Database,
    file: _File,
    design: sql.DesignRow,
    rubric: Rubric,
    times: _Times,
    reviewer: str,
    code: str,
    revisions: list[tuple[int, RatedJudgment]],
) -> int:
    """Check and add one item's revisions; return how many were new."""
    first = f"$.judgments[{revisions[0][0]}]"
    try:
        item = sql.item_by_code(db, design.pk, code)
    except AbpError:
        raise file.refuse(f"item {code} is not in the design", f"{first}.code") from None
    found = sql.assignment(db, item.pk, reviewer)
    if found is None:
        raise file.refuse(f"item {code} is not assigned to {reviewer}", f"{first}.code")
    order = seen_order(item.run_pks, found[1])
    rules = item_rules(db, design, rubric, item, order)
    placement = json.dumps(placement_of(order))
    stored = psql.revisions(db, item.pk, reviewer)
    added = 0
    for number, j in sorted(revisions, key=lambda r: r[1].revision):
        where = f"$.judgments[{number}]"
        # What the revision follows: the one before it, stored already or added just now.
        previous = stored.get(j.revision - 1)
        payload = _check_revision(db, file, rules, j, previous, where)
        _check_times(file, code, j, previous, times, where)
        candidate = psql.StoredRevision(
            j.revision,
            j.status,
            payload,
            placement,
            j.reason,
            j.seconds_spent,
            j.created_at,
        )
        held = stored.get(j.revision)
        if held is not None:
            if not held.same_as(candidate):
                raise file.refuse(
                    f"item {code}: revision {j.revision} differs from the revision "
                    f"{j.revision} already stored; a revision is never changed",
                    f"{where}.revision",
                )
        else:
            latest = max(stored, default=0)
            if j.revision != latest + 1:
                raise file.refuse(
                    f"item {code}: revision {j.revision} does not follow the last revision "
                    f"stored ({latest})",
                    f"{where}.revision",
                )
            psql.insert_merged_judgment(db, item.pk, reviewer, candidate)
            stored[j.revision] = candidate
            added += 1
    return added


def _check_revision(
    db: sqlite_utils.Database,
    file: _File,
    rules: ItemRules,
    j: RatedJudgment,
    previous: psql.StoredRevision | None,
    where: str,
) -> Judgment:
    """The revision keyed by run, refused unless the station's own save path
    (:func:`abp_tui.services.revision_rules.check_revision`, the one check) would store it."""
    try:
        payload, _missing = check_revision(
            db,
            rules,
            j.judgment,
            submit=j.status == "submitted",
            reason=j.reason,
            previous=previous.status if previous is not None else None,
        )
    except NotReady as exc:
        raise file.refuse(
            f"{rules.code}: submitted with something undecided: {exc.problems[0]}",
            f"{where}.judgment",
        ) from None
    except RevisionRefused as exc:
        raise file.refuse(str(exc), f"{where}.{exc.field}") from None
    return payload


def _check_times(
    file: _File,
    code: str,
    j: RatedJudgment,
    previous: psql.StoredRevision | None,
    times: _Times,
    where: str,
) -> None:
    """Refuse a time no station could have written: a revision made before its pack was issued
    or after the merge, a time spent that is not a finite running total no longer than the
    time since the pack was issued (:data:`abp_tui.analysis.judgment_checks.CLOCK_SKEW`
    allowed for the station's clock)."""
    when = implausible_time(j.created_at, times.issued, times.now)
    if when is not None:
        raise file.refuse(f"{code}: created_at: {when}", f"{where}.created_at")
    floor = previous.seconds_spent if previous is not None else 0.0
    spent = implausible_seconds(j.seconds_spent, floor, utc_time(j.created_at), times.issued)
    if spent is not None:
        raise file.refuse(
            f"{code}: seconds_spent {j.seconds_spent!r}: {spent}", f"{where}.seconds_spent"
        )
