"""Merging ratings files from reviewer stations into the coordinator's database.

A merge is all or nothing (one transaction for every file given) and idempotent. A file is
refused, naming it and the field, when: its content does not match its hash; this database did
not issue its pack; its signature is not the one the pack's key gives (an edited file, or one
claiming another reviewer's pack); it was made for another design version or reviewer; or any
revision in it is one the station's own store would not have stored
(:mod:`abp_tui.analysis.judgment_checks` and :func:`abp_tui.analysis.scoring.problems`, the same
rules a review session applies): a dimension the rubric lacks, a score off its scale, a
submission with something undecided, a draft after a submission, a revised submission without a
reason, a time that is not the store's UTC form, a time spent that is not a finite, growing
number, a run's record state neither confirmed nor reclassified, or set by hand where the
rubric scores abstention (:mod:`abp_tui.services.reclassify`). Revisions keep their numbers:
one already stored is skipped when identical and refused when it differs (a revision is never
rewritten or renumbered), and a new one must follow the last stored one.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.analysis.judgment_checks import malformed, timestamp_problem
from abp_tui.analysis.scoring import problems
from abp_tui.errors import AbpError, InputError
from abp_tui.models import Judgment, Rubric
from abp_tui.services.reclassify import record_state_problems, refused_override
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
            design_pk, reviewer = _issuer(db, file, ratings, document)
            if psql.merged(db, ratings.sha256):
                out.append(
                    {
                        "file": str(file.path),
                        "reviewer": reviewer,
                        "added": 0,
                        "note": "already merged; nothing added",
                    }
                )
                continue
            added = _merge_file(db, file, ratings, design_pk, reviewer)
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
            out.append({"file": str(file.path), "reviewer": reviewer, "added": added, "note": ""})
    return out


def _issuer(
    db: sqlite_utils.Database, file: _File, ratings: RatingsFile, document: dict[str, Any]
) -> tuple[int, str]:
    """(design pk, reviewer) of the pack the file answers, once its signature is checked."""
    issued = psql.pack(db, ratings.pack_sha256)
    if issued is None:
        raise file.refuse(
            "this database did not issue the pack these ratings come from", "$.pack_sha256"
        )
    design_pk, reviewer = issued
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
    return design_pk, reviewer


def _merge_file(
    db: sqlite_utils.Database, file: _File, ratings: RatingsFile, design_pk: int, reviewer: str
) -> int:
    rubric = Rubric.model_validate(sql.design(db, design_pk).rubric)
    by_code: dict[str, list[tuple[int, RatedJudgment]]] = defaultdict(list)
    for number, j in enumerate(ratings.judgments):
        by_code[j.code].append((number, j))
    added = 0
    for code, revisions in by_code.items():
        added += _merge_item(db, file, rubric, design_pk, reviewer, code, revisions)
    return added


def _merge_item(
    db: sqlite_utils.Database,
    file: _File,
    rubric: Rubric,
    design_pk: int,
    reviewer: str,
    code: str,
    revisions: list[tuple[int, RatedJudgment]],
) -> int:
    """Check and add one item's revisions; return how many were new."""
    first = f"$.judgments[{revisions[0][0]}]"
    try:
        item = sql.item_by_code(db, design_pk, code)
    except AbpError:
        raise file.refuse(f"item {code} is not in the design", f"{first}.code") from None
    found = sql.assignment(db, item.pk, reviewer)
    if found is None:
        raise file.refuse(f"item {code} is not assigned to {reviewer}", f"{first}.code")
    order = (
        [item.run_a_pk]
        if item.run_b_pk is None
        else [item.run_b_pk, item.run_a_pk]
        if found[1]
        else [item.run_a_pk, item.run_b_pk]
    )
    placement = json.dumps({str(i): pk for i, pk in enumerate(order, start=1)})
    stored = psql.revisions(db, item.pk, reviewer)
    added = 0
    for number, j in sorted(revisions, key=lambda r: r[1].revision):
        where = f"$.judgments[{number}]"
        # What the revision follows: the one before it, stored already or added just now.
        previous = stored.get(j.revision - 1)
        payload = _by_run(j.judgment, order)
        _check_revision(file, rubric, item, j, payload, order, previous, where)
        _check_record_state(db, file, rubric, code, j, payload, order, where)
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


def _by_run(judgment: Judgment, order: list[int]) -> Judgment:
    responses = {
        str(order[int(key) - 1]): response
        for key, response in judgment.responses.items()
        if key.isdigit() and 1 <= int(key) <= len(order)
    }
    return judgment.model_copy(update={"responses": responses})


def _check_record_state(
    db: sqlite_utils.Database,
    file: _File,
    rubric: Rubric,
    code: str,
    j: RatedJudgment,
    payload: Judgment,
    order: list[int],
    where: str,
) -> None:
    """Refuse what a review session refuses of a run's record state (seed 000: a record's
    failure is confirmed or reclassified, a run without one is never reclassified; seed 004:
    no state set by hand where abstention is scored), against the records the pack was made
    from."""
    try:
        refused_override(db, rubric, code, order, payload)
    except AbpError as exc:
        raise file.refuse(str(exc), f"{where}.judgment") from None
    if j.status == "submitted" and not rubric.preference_only:
        missing = record_state_problems(db, order, payload)
        if missing:
            raise file.refuse(
                f"item {code}: submitted with something undecided: {missing[0]}",
                f"{where}.judgment",
            )


def _check_revision(
    file: _File,
    rubric: Rubric,
    item: sql.StoredItem,
    j: RatedJudgment,
    payload: Judgment,
    order: list[int],
    previous: psql.StoredRevision | None,
    where: str,
) -> None:
    """Refuse a revision the station's own store would not have stored."""
    code = item.code
    bad = malformed(rubric, j.judgment, [str(i) for i in range(1, len(order) + 1)])
    if bad:
        raise file.refuse(f"item {code}: {bad[0]}", f"{where}.judgment")
    if j.status == "submitted":
        missing = problems(rubric, payload, [str(pk) for pk in order], item.is_pair)
        if missing:
            raise file.refuse(
                f"item {code}: submitted with something undecided: {missing[0]}",
                f"{where}.judgment",
            )
    when = timestamp_problem(j.created_at)
    if when is not None:
        raise file.refuse(f"item {code}: created_at: {when}", f"{where}.created_at")
    floor = previous.seconds_spent if previous is not None else 0.0
    if not math.isfinite(j.seconds_spent) or j.seconds_spent < floor:
        raise file.refuse(
            f"item {code}: seconds_spent {j.seconds_spent!r}: expected the running total, "
            f"at least {floor}",
            f"{where}.seconds_spent",
        )
    if previous is not None and previous.status == "submitted":
        if j.status != "submitted":
            raise file.refuse(
                f"item {code}: a draft after a submission; a change is a revised submission",
                f"{where}.status",
            )
        if not j.reason.strip():
            raise file.refuse(
                f"item {code}: revision {j.revision} changes a submitted judgment without a reason",
                f"{where}.reason",
            )
