"""The bundled demo data imports with the right counts and marks itself synthetic; its finished
study arrives judged by two reviewers, adjudicated where they disagree, and unblinded."""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
import sqlite_utils

from abp_tui.errors import AbpError, InputError
from abp_tui.export import verify
from abp_tui.services.adjudicating import disagreements, final_verdicts
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import find_design
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import compute_results
from abp_tui.store.queries import list_studies, study_runs, unblinded
from abp_tui.tui.app import make_app
from tests.factories import FIXTURES
from tests.tui_helpers import compare_screen, drive

FINISHED = "business-memo-demo"


def _demo_builder() -> ModuleType:
    """``fixtures/demo_finished.py``: the part of the demo builder writing the finished study."""
    spec = importlib.util.spec_from_file_location("demo_finished", FIXTURES / "demo_finished.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_demo_loads_its_three_studies_and_their_designs(db: sqlite_utils.Database) -> None:
    load_demo(db, FIXTURES / "demo")
    studies = {s.id: s for s in list_studies(db)}
    assert set(studies) == {"afp-pilot-demo", "abp-demo", FINISHED}
    afp, abp, memo = studies["afp-pilot-demo"], studies["abp-demo"], studies[FINISHED]
    assert (afp.tasks, afp.conditions, afp.runs, afp.excluded_runs) == (8, 4, 56, 2)
    assert (abp.tasks, abp.conditions, abp.runs) == (4, 2, 24)
    assert (memo.tasks, memo.conditions, memo.runs, memo.excluded_runs) == (8, 2, 16, 0)
    assert afp.synthetic and abp.synthetic and memo.synthetic
    runs = study_runs(db, "afp-pilot-demo")
    assert all(r.synthetic for r in runs)
    assert all(r.synthetic for r in study_runs(db, FINISHED))
    states = Counter(r.origin_status for r in runs if r.origin_status)
    assert states == {"PROVIDER_BLOCK": 1, "INFRA_ERROR": 1}
    repeats = Counter((r.task_id, r.condition_id) for r in runs)
    for task in ("P05", "P06", "P07"):
        assert all(repeats[(task, c)] == 3 for c in "ABCD")
    for task in ("P01", "P02", "P03", "P04", "P08"):
        assert all(repeats[(task, c)] == 1 for c in "ABCD")
    names = {r[0] for r in db.execute("SELECT name FROM designs").fetchall()}
    assert names == {"blind-pairs", "engine-pairs", "source-brief"}


def test_the_finished_study_is_judged_adjudicated_and_unblinded(
    db: sqlite_utils.Database,
) -> None:
    load_demo(db, FIXTURES / "demo")
    design = find_design(db, FINISHED)
    assert design.frozen_at is not None
    submitted = db.execute(
        "SELECT j.reviewer, COUNT(*) FROM judgments j JOIN items i ON i.pk = j.item_pk "
        "WHERE i.design_pk = ? AND j.status = 'submitted' GROUP BY j.reviewer ORDER BY 1",
        [design.pk],
    ).fetchall()
    assert submitted == [("jonas", 8), ("noor", 8)]
    found = {d.code: d for d in disagreements(db, design.pk)}
    codes = {
        task: code
        for code, task in db.execute(
            "SELECT i.code, t.id FROM items i JOIN tasks t ON t.pk = i.task_pk "
            "WHERE i.design_pk = ?",
            [design.pk],
        ).fetchall()
    }
    assert set(found) == {codes["W03"], codes["W06"]}
    assert found[codes["W03"]].adjudicated and not found[codes["W06"]].adjudicated
    sources = Counter(v.source for v in final_verdicts(db, design.pk))
    assert sources == {"unanimous": 12, "adjudicated": 2, "unresolved": 2}
    who = unblinded(db, FINISHED)
    assert who is not None and who[0] == "lead"
    # The other two studies stay blind, ready to judge.
    assert unblinded(db, "afp-pilot-demo") is None and unblinded(db, "abp-demo") is None

    report = compute_results(db, design.pk)
    rates = {g.condition: (g.pass_rate.x, g.pass_rate.n) for g in report.conditions}
    assert rates == {"A": (3, 7), "B": (7, 7)}
    (paired,) = report.comparisons
    # The contrast is B vs A: 4 pairs where only B passes, none the other way. The exact
    # McNemar test is the binomial test of 4 of 4 discordant pairs at 1/2, two-sided
    # p = 2 * (1/2)^4 = 0.125 (Agresti, Categorical Data Analysis, 3rd ed., 2013, sec. 11.1).
    assert (paired.paired.mcnemar.b, paired.paired.mcnemar.c) == (4, 0)
    assert paired.paired.mcnemar.p_value == pytest.approx(0.125)


def test_the_finished_study_publishes_a_bundle_that_verifies(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    load_demo(db, FIXTURES / "demo")
    design = find_design(db, FINISHED)
    result = export_bundle(db, design.pk, tmp_path / "memo")
    report = verify(result.zip_path)
    assert report.study == FINISHED and report.derived > 0
    html = (tmp_path / "memo" / "report.html").read_text("utf-8")
    assert "SYNTHETIC DEMO DATA" in html
    adjudications = (tmp_path / "memo" / "judging" / "adjudications.jsonl").read_text("utf-8")
    assert "no deployment after 15:30" in adjudications
    # One disagreement is still open, and the publication gate says so.
    assert result.status == "protocol published / results pending"
    assert any("1 disagreement not adjudicated" in m for m in result.missing)


async def test_make_run_opens_on_the_study_ready_to_judge(tmp_path: Path) -> None:
    path = tmp_path / "abp.db"
    from abp_tui.store import connect

    database = connect(path)
    load_demo(database, FIXTURES / "demo")
    afp = find_design(database, "afp-pilot-demo").pk
    database.close()
    app = make_app(path)
    async with drive(app, (150, 45)) as pilot:
        screen = await compare_screen(pilot)
        assert screen.desk.design_pk == afp
        assert screen.item is not None and screen.item.index == 0


def test_loading_the_demo_twice_adds_nothing(db: sqlite_utils.Database) -> None:
    load_demo(db, FIXTURES / "demo")
    before = [
        db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        for table in ("runs", "judgments", "adjudications", "findings", "audit_log")
    ]
    reports = load_demo(db, FIXTURES / "demo")
    assert all(f.status == "unchanged" for r in reports for f in r.files if f.format)
    after = [
        db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        for table in ("runs", "judgments", "adjudications", "findings", "audit_log")
    ]
    assert after == before
    assert before[1:4] == [16, 1, 1]


def test_the_committed_finished_study_is_what_the_builder_writes(tmp_path: Path) -> None:
    written = _demo_builder().write(tmp_path)
    assert written == {"tasks": 8, "runs": 16, "judgments": 16}
    for part in (f"demo/{FINISHED}/runs.jsonl", f"judgments/{FINISHED}.json"):
        assert (tmp_path / part).read_bytes() == (FIXTURES / part).read_bytes(), part


def test_a_bad_judgments_file_is_refused_and_leaves_nothing_judged(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    root = tmp_path / "fixtures"
    for part in ("demo", "designs", "judgments"):
        shutil.copytree(FIXTURES / part, root / part)
    path = root / "judgments" / f"{FINISHED}.json"
    document = json.loads(path.read_text("utf-8"))
    document["judgments"][5]["reviewer"] = "mallory"  # nobody assigned mallory anything
    path.write_text(json.dumps(document), "utf-8")
    with pytest.raises(AbpError, match="mallory"):
        load_demo(db, root / "demo")
    assert db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == 0
    assert unblinded(db, FINISHED) is None

    document["judgments"][5]["reviewer"] = "noor"
    document["judgments"][5]["task"] = "W99"
    path.write_text(json.dumps(document), "utf-8")
    with pytest.raises(InputError, match=r"judgments/business-memo-demo\.json.*W99"):
        load_demo(db, root / "demo")
    assert db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == 0
