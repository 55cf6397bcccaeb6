"""A reviewer holding their study pack tries to recover the blind plan: which condition is
Response 1 on every item. Codes, placement and order come from a secret the coordinator keeps,
so nothing in a pack or a station database is derived from a value anyone can guess."""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.analysis.blinding import (
    DEMO_PLAN_SECRET,
    PlannedItem,
    PlanRun,
    assign,
    enrol,
    new_plan_secret,
    plan_commitment,
    plan_items,
)
from abp_tui.errors import AbpError
from abp_tui.export import BundleMismatch, verify
from abp_tui.export import records as rec
from abp_tui.export.bundle import read_bundle, write_bundle
from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import create_design, find_design
from abp_tui.services.publishing import export_bundle, export_protocol_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.stations import open_pack, write_study_pack
from abp_tui.store import connect
from abp_tui.store import judging as sql
from abp_tui.store.secrets import plan_secret
from tests.factories import DEMO, afp_judgment, afp_study, two_reviewer_design

DATE_SEED = 20260314
"""A seed as people choose them: a date."""
CONDITIONS = ("A", "B", "C", "D")
"""What the attacker guesses the condition ids are (the study's are A and C)."""


def _date_seeds() -> Iterable[int]:
    """Every date of 2024 to 2027 as YYYYMMDD: 1,461 guesses."""
    day = datetime.date(2024, 1, 1)
    while day.year < 2028:
        yield int(day.strftime("%Y%m%d"))
        day += datetime.timedelta(days=1)


def _legacy_code(seed: int, key: str) -> str:
    """How a blind code was derived before plan secrets: public inputs only."""
    return base64.b32encode(hashlib.sha256(f"{seed}:{key}".encode()).digest()).decode()[:6]


def _attack(pack: dict[str, Any]) -> dict[str, str] | None:
    """From a pack alone: find a seed that gives its codes, then rebuild the plan and say which
    condition each item shows as Response 1 (code -> condition), or None when no seed fits."""
    tasks = sorted({item["task"]["id"] for item in pack["items"]})
    codes = {item["code"] for item in pack["items"]}
    guesses = [(a, b) for a in CONDITIONS for b in CONDITIONS if a != b]
    for seed in _date_seeds():
        for a, b in guesses:
            keys = [f"pair|{a}|{b}|{task}|1|0" for task in tasks]
            if {f"P-{_legacy_code(seed, key)}" for key in keys} != codes:
                continue
            # The seed opens the plan: the plan's shuffle gives each item's base orientation.
            order = list(keys)
            random.Random(seed).shuffle(order)
            base = {key: position % 2 == 1 for position, key in enumerate(order)}
            # One reviewer in slot 0: Response 1 is condition a unless the base flips it.
            return {f"P-{_legacy_code(seed, key)}": b if base[key] else a for key in keys}
    return None


def _truth(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> dict[str, str]:
    """Code -> the condition shown as Response 1 to ``reviewer``, from the coordinator's store."""
    out = {}
    for item in sql.items(db, design_pk):
        found = sql.assignment(db, item.pk, reviewer)
        assert found is not None
        out[item.code] = item.conditions[1] if found[1] else item.conditions[0]
    return out


def _pack(tmp_path: Path, db: sqlite_utils.Database) -> tuple[int, Path]:
    afp_study(tmp_path, db)
    design = StudyDesign(
        study="s", name="m", seed=DATE_SEED, contrasts=[("C", "A")], reviewers=["a"]
    )
    pk = create_design(db, design).pk
    path = tmp_path / "a.pack.json"
    write_study_pack(db, pk, "a", path)
    return pk, path


def test_the_attack_recovers_a_plan_derived_from_a_date_like_seed() -> None:
    """The attack is real: against a plan made from the seed alone (as every plan was before
    plan secrets, and as designs stored before them still are), it finds the seed and reads
    off the placement."""
    design = StudyDesign(
        study="s", name="m", seed=DATE_SEED, contrasts=[("C", "A")], reviewers=["a"]
    )
    runs = [
        PlanRun(n, f"{t}-{c}", t, c, 1)
        for n, (t, c) in enumerate(
            [("P01", "A"), ("P01", "C"), ("P02", "A"), ("P02", "C")], start=1
        )
    ]
    items = plan_items(design, runs)
    pack = {"items": [{"code": i.code, "task": {"id": i.task_id}} for i in items]}
    shown = _attack(pack)
    assert shown == {
        i.code: (i.run_b or i.run_a).condition_id if i.base_flip else i.run_a.condition_id
        for i in items
    }


def test_a_pack_cannot_be_unblinded_by_guessing_the_seed(
    tmp_path: Path, db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The secret as a coordinator gets it (the suite otherwise fixes secrets per test).
    monkeypatch.setattr("abp_tui.services.designing.new_plan_secret", new_plan_secret)
    pk, path = _pack(tmp_path, db)
    pack = json.loads(path.read_text("utf-8"))
    assert len(pack["items"]) == 2
    assert _truth(db, pk, "a")  # there is a plan to find
    assert _attack(pack) is None
    # Not even the true seed, published with the design, gives a code of the pack.
    keys = [f"pair|C|A|{t}|1|0" for t in ("P01", "P02")]
    codes = {item["code"] for item in pack["items"]}
    assert not codes & {f"P-{_legacy_code(DATE_SEED, key)}" for key in keys}


# -- where the secret is, and what commits to it ----------------------------------------------
def test_the_secret_stays_on_the_coordinator(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk, path = _pack(tmp_path, db)
    secret = plan_secret(db, pk)
    assert secret is not None
    assert len(new_plan_secret()) == 64 and new_plan_secret() != new_plan_secret()
    design = find_design(db, "s")
    assert design.document["plan_secret_sha256"] == plan_commitment(secret)
    assert plan_commitment(secret) == hashlib.sha256(secret.encode("utf-8")).hexdigest()
    station_path = tmp_path / "station.db"
    open_pack(connect(station_path), path)
    station = sqlite_utils.Database(station_path)
    dump = "\n".join(station.conn.iterdump())
    assert secret not in path.read_text("utf-8") and secret not in dump
    assert station.execute("SELECT COUNT(*) FROM plan_secrets").fetchone()[0] == 0


def test_the_plan_and_its_hash_change_with_the_secret_alone(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    design = StudyDesign(study="s", name="m", seed=DATE_SEED, contrasts=[("C", "A")])
    afp_study(tmp_path, db)
    one = create_design(db, design, plan_secret="one secret")
    codes_one = sorted(i.code for i in sql.items(db, one.pk))
    two = create_design(db, design, plan_secret="another secret")
    assert two.status == "replaced"  # nobody judged: the plan is simply replaced
    assert one.sha256 != two.sha256
    assert sorted(i.code for i in sql.items(db, two.pk)) != codes_one
    again = create_design(db, design)  # no secret given: the stored one is kept
    assert (again.status, again.sha256) == ("unchanged", two.sha256)


def test_the_demo_uses_its_published_secret_and_loads_once(db: sqlite_utils.Database) -> None:
    load_demo(db, DEMO)
    first = {d.pk: d.sha256 for d in sql.designs(db)}
    for pk in first:
        assert plan_secret(db, pk) == DEMO_PLAN_SECRET
    load_demo(db, DEMO)
    assert {d.pk: d.sha256 for d in sql.designs(db)} == first


def test_each_reviewer_sees_each_condition_first_on_half_their_items() -> None:
    """One reviewer per item of two: a placement alternating over the shuffled order gave one
    reviewer condition a first on every item (positions i*k+m of one parity are theirs)."""
    design = StudyDesign(study="s", name="d", seed=7, contrasts=[("C", "A")], reviewers=["a", "b"])
    runs = [
        PlanRun(n, f"{t}-{c}", t, c, 1)
        for n, (t, c) in enumerate(((f"P{t:02}", c) for t in range(12) for c in "AC"), start=1)
    ]
    items = plan_items(design, runs, "s3cret")
    by_key = {i.key: i for i in items}
    first: dict[str, list[str]] = {"a": [], "b": []}
    for a in assign(design, items, "s3cret"):
        item = by_key[a.item_key]
        shown = item.run_b if a.flipped else item.run_a
        assert shown is not None
        first[a.reviewer].append(shown.condition_id)
    for reviewer, conditions in first.items():
        assert len(conditions) == 6, reviewer
        assert conditions.count("C") == conditions.count("A") == 3, reviewer


# -- a design stored before plan secrets ---------------------------------------------------------
def test_a_design_planned_before_plan_secrets_is_not_packed_until_planned_again(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    afp_study(tmp_path, db)
    design = StudyDesign(study="s", name="m", seed=DATE_SEED, contrasts=[("C", "A")])
    pk = create_design(db, design).pk
    db.execute("DELETE FROM plan_secrets WHERE design_pk = ?", [pk])  # as migration 0009 left it
    with pytest.raises(AbpError, match=r"planned before plan secrets.*study create"):
        write_study_pack(db, pk, "a", tmp_path / "a.pack.json")
    with pytest.raises(AbpError, match="planned before plan secrets"):
        export_protocol_bundle(db, pk, tmp_path / "proto")
    assert not (tmp_path / "a.pack.json").exists()
    again = create_design(db, design)
    assert again.status == "replaced" and plan_secret(db, again.pk) is not None
    write_study_pack(db, again.pk, "a", tmp_path / "a.pack.json")


# -- verify re-derives the plan from the revealed secret ------------------------------------------
def _rehash(files: dict[str, bytes]) -> dict[str, bytes]:
    """The files with manifest.json listing their current hashes (a forger's bundle)."""
    manifest = json.loads(files[rec.MANIFEST])
    manifest["files"] = [
        {"path": p, "sha256": hashlib.sha256(files[p]).hexdigest(), "bytes": len(files[p])}
        for p in sorted(files)
        if p != rec.MANIFEST
    ]
    return {**files, rec.MANIFEST: json.dumps(manifest).encode("utf-8")}


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def _jsonl(records: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")


def test_verify_rederives_codes_and_placement_from_the_revealed_secret(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    for session in (a, b):
        for code in codes:
            session.save(code, afp_judgment(2, 1, PreferenceChoice.RESPONSE_1), 9, submit=True)
    unblind(db, "s", "lead")
    files = read_bundle(export_bundle(db, pk, tmp_path / "full").zip_path)
    assert json.loads(files[rec.DESIGN])["plan_secret"] == plan_secret(db, pk)
    assert verify(tmp_path / "full.zip").design == "m"

    def refused(name: str, changed: dict[str, bytes], pattern: str) -> None:
        write_bundle(tmp_path / name, _rehash({**files, **changed}))
        with pytest.raises(BundleMismatch, match=pattern):
            verify(tmp_path / name)

    items = _lines(files[rec.ITEMS])
    flipped = [{**items[0], "base_flip": not items[0]["base_flip"]}, *items[1:]]
    refused("flip", {rec.ITEMS: _jsonl(flipped)}, r"items\.jsonl: item P-\w+: base_flip is")
    judgments = _lines(files[rec.JUDGMENTS])
    first = judgments[0]
    swapped = {"1": first["placement"]["2"], "2": first["placement"]["1"]}
    moved = [{**first, "placement": swapped}, *judgments[1:]]
    refused("moved", {rec.JUDGMENTS: _jsonl(moved)}, r"judgments\.jsonl: line 1: .* order")
    design = json.loads(files[rec.DESIGN])
    other = {**design, "plan_secret": "a guess"}
    refused("guess", {rec.DESIGN: json.dumps(other).encode()}, r"plan_secret: its SHA-256")
    hidden = {k: v for k, v in design.items() if k != "plan_secret"}
    refused("hidden", {rec.DESIGN: json.dumps(hidden).encode()}, r"plan_secret: missing")


def test_the_finished_demo_study_verifies_with_its_published_secret(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    load_demo(db, DEMO)
    design = find_design(db, "business-memo-demo")
    files = read_bundle(export_bundle(db, design.pk, tmp_path / "demo").zip_path)
    assert json.loads(files[rec.DESIGN])["plan_secret"] == DEMO_PLAN_SECRET
    assert _lines(files[rec.JUDGMENTS])  # placements of real (demo) judgments are checked
    verify(tmp_path / "demo.zip")


def test_a_reviewer_enrolling_in_an_open_design_gets_the_secrets_order(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    afp_study(tmp_path, db)
    design = StudyDesign(
        study="s", name="open", seed=DATE_SEED, contrasts=[("C", "A")], single_items=True
    )
    pk = create_design(db, design, plan_secret="open secret").pk
    queue = [r.code for r in ReviewSession(db, pk, "zoe").queue()]
    rows = sql.items(db, pk)
    planned = [
        PlannedItem(
            r.key,
            r.code,
            r.kind,
            r.task,
            r.trial,
            PlanRun(r.run_a_pk, "", "", "", 0),
            PlanRun(r.run_b_pk, "", "", "", 0) if r.run_b_pk else None,
            r.base_flip,
        )
        for r in rows
    ]
    code = {r.key: r.code for r in rows}

    def order(secret: str | None) -> list[str]:
        made = enrol(design, planned, "zoe", 0, secret, in_blocks=True)
        return [code[a.item_key] for a in sorted(made, key=lambda a: a.order_index)]

    assert len(queue) == 6
    assert queue == order("open secret") != order(None)
