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

import sqlite_utils

from abp_tui.analysis.blinding import PlanRun, plan_items
from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.stations import open_pack, write_study_pack
from abp_tui.store import connect
from abp_tui.store import judging as sql
from tests.factories import afp_study

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
    runs = [PlanRun(n, f"{t}-{c}", t, c, 1) for n, (t, c) in enumerate(
        [("P01", "A"), ("P01", "C"), ("P02", "A"), ("P02", "C")], start=1
    )]
    items = plan_items(design, runs)
    pack = {"items": [{"code": i.code, "task": {"id": i.task_id}} for i in items]}
    shown = _attack(pack)
    assert shown == {
        i.code: (i.run_b or i.run_a).condition_id if i.base_flip else i.run_a.condition_id
        for i in items
    }


def test_a_pack_cannot_be_unblinded_by_guessing_the_seed(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, path = _pack(tmp_path, db)
    pack = json.loads(path.read_text("utf-8"))
    assert len(pack["items"]) == 2
    assert _truth(db, pk, "a")  # there is a plan to find
    assert _attack(pack) is None
    # Not even the true seed, published with the design, gives a code of the pack.
    keys = [f"pair|C|A|{t}|1|0" for t in ("P01", "P02")]
    codes = {item["code"] for item in pack["items"]}
    assert not codes & {f"P-{_legacy_code(DATE_SEED, key)}" for key in keys}
