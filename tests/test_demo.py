"""The bundled demo data imports with the right counts and marks itself synthetic."""

from __future__ import annotations

from collections import Counter

import sqlite_utils

from abp_tui.services.demo import load_demo
from abp_tui.store.queries import list_studies, study_runs
from tests.factories import FIXTURES


def test_demo_loads_both_studies_and_their_designs(db: sqlite_utils.Database) -> None:
    load_demo(db, FIXTURES / "demo")
    studies = {s.id: s for s in list_studies(db)}
    assert set(studies) == {"afp-pilot-demo", "abp-demo"}
    afp, abp = studies["afp-pilot-demo"], studies["abp-demo"]
    assert (afp.tasks, afp.conditions, afp.runs, afp.excluded_runs) == (8, 4, 56, 2)
    assert (abp.tasks, abp.conditions, abp.runs) == (4, 2, 24)
    assert afp.synthetic and abp.synthetic
    runs = study_runs(db, "afp-pilot-demo")
    assert all(r.synthetic for r in runs)
    states = Counter(r.origin_status for r in runs if r.origin_status)
    assert states == {"PROVIDER_BLOCK": 1, "INFRA_ERROR": 1}
    repeats = Counter((r.task_id, r.condition_id) for r in runs)
    for task in ("P05", "P06", "P07"):
        assert all(repeats[(task, c)] == 3 for c in "ABCD")
    for task in ("P01", "P02", "P03", "P04", "P08"):
        assert all(repeats[(task, c)] == 1 for c in "ABCD")
    names = {r[0] for r in db.execute("SELECT name FROM designs").fetchall()}
    assert names == {"blind-pairs", "engine-pairs"}


def test_loading_the_demo_twice_adds_nothing(db: sqlite_utils.Database) -> None:
    load_demo(db, FIXTURES / "demo")
    before = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    reports = load_demo(db, FIXTURES / "demo")
    assert all(f.status == "unchanged" for r in reports for f in r.files if f.format)
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == before
