"""Seed 000, "Rerun rules": "INFRA_ERROR or PROVIDER_BLOCK: fix or document the environment and
rerun; do not place these in the model-quality denominator", and "High-risk fixtures P05-P07: at
least three repeats per condition before publishing comparative results".

On the bundled AFP demo: P06 under C (repeat 3) timed out (INFRA_ERROR) and P07 under A (repeat 2)
was blocked by the provider (PROVIDER_BLOCK). Driven through the services and the CLI a person
uses: designs, review sessions, results, the bundle and ``verify``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.blinding import DEMO_PLAN_SECRET
from abp_tui.analysis.reruns import held_outcomes
from abp_tui.analysis.verdicts import decide
from abp_tui.errors import AbpError
from abp_tui.export.bundle import verify
from abp_tui.models import PreferenceChoice, ResponseJudgment, ResultState, StudyDesign
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import create_design, load_design_file
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.services.reviewing import NotReady, ReviewSession
from abp_tui.store import judging as sql
from tests.factories import AFP_INFRA_RUN, DEMO, FIXTURES, Cli, afp_judgment, import_afp_rerun

STUDY = "afp-pilot-demo"
INFRA = AFP_INFRA_RUN
BLOCKED = "afp-demo-run-20260112-P07-A-r2"
DESIGN_FILE = FIXTURES / "designs" / "afp-pilot-demo.toml"


def _planned(db: sqlite_utils.Database, design_pk: int) -> set[str]:
    records = sql.records_of_design(db, design_pk, with_runs=False)
    return {run for item in records.items for run in item.runs}


def _showing(db: sqlite_utils.Database) -> int:
    """The demo design, made to show record failures to its reviewers (a design's choice)."""
    design = load_design_file(DESIGN_FILE).model_copy(
        update={"name": "shows-failures", "show_record_failures": True}
    )
    return create_design(db, design, plan_secret=DEMO_PLAN_SECRET).pk


def _with_record_failure(session: ReviewSession) -> tuple[str, str]:
    """The code of an item showing a record failure, and its position."""
    for row in session.queue():
        item = session.read(row.code)
        for response in item.responses:
            if response.record_state is not None:
                return row.code, response.key
    raise AssertionError("no item shows a record failure")


@pytest.fixture
def demo(db: sqlite_utils.Database) -> sqlite_utils.Database:
    load_demo(db, DEMO)
    return db


def test_infra_error_and_provider_block_runs_are_not_put_before_reviewers(
    demo: sqlite_utils.Database,
) -> None:
    default = sql.designs(demo, STUDY)[-1]
    planned = _planned(demo, default.pk)
    assert INFRA not in planned and BLOCKED not in planned
    # Their counterparts in the same repeat are planned no longer either (no pair to join),
    # while every other repeat of the high-risk fixtures is.
    assert "afp-demo-run-20260112-P06-C-r2" in planned
    assert "afp-demo-run-20260112-P07-A-r3" in planned
    shown = _planned(demo, _showing(demo))
    assert {INFRA, BLOCKED} <= shown


def test_scores_alone_never_turn_a_record_failure_into_a_model_pass(
    demo: sqlite_utils.Database,
) -> None:
    pk = _showing(demo)
    session = ReviewSession(demo, pk, "demo")
    code, _position = _with_record_failure(session)
    with pytest.raises(NotReady, match=r"the record marks this run .*confirm it, or reclassify"):
        session.save(code, afp_judgment(2, 2, PreferenceChoice.TIE), 5, submit=True)
    # Left as a draft, it decides nothing: the record's state is what counts.
    session.save(code, afp_judgment(2, 2, PreferenceChoice.TIE), 5)
    records = sql.records_of_design(demo, pk)
    outcome = {o.run_id: o for o in held_outcomes(records, decide(records))}
    assert (outcome[INFRA].state, outcome[INFRA].source) == (ResultState.INFRA_ERROR, "record")
    assert outcome[BLOCKED].state is ResultState.PROVIDER_BLOCK


def test_an_unconfirmed_judgment_leaves_the_record_state_standing(
    demo: sqlite_utils.Database,
) -> None:
    """Scored 2 everywhere, never confirmed nor reclassified: still INFRA_ERROR, not a pass."""
    pk = _showing(demo)
    session = ReviewSession(demo, pk, "demo")
    code, position = _with_record_failure(session)
    confirmed = afp_judgment(2, 2, PreferenceChoice.TIE)
    state = confirmed.responses[position].model_copy(
        update={"state_override": ResultState.INFRA_ERROR, "override_reason": "timeout"}
    )
    confirmed.responses[position] = state
    session.save(code, confirmed, 5, submit=True)
    records = sql.records_of_design(demo, pk)
    # The stored judgment with its confirmation removed, as an older revision would hold it.
    stripped = tuple(
        j.model_copy(
            update={
                "judgment": j.judgment.model_copy(
                    update={
                        "responses": {
                            run: r.model_copy(
                                update={"state_override": None, "override_reason": ""}
                            )
                            for run, r in j.judgment.responses.items()
                        }
                    }
                )
            }
        )
        for j in records.judgments
    )
    bare = replace(records, judgments=stripped)
    decisions = decide(bare)
    verdict = {v.run: v for v in decisions.verdicts}
    failed = next(run for run in (INFRA, BLOCKED) if run in verdict)
    assert verdict[failed].result_state is ResultState.MODEL_PASS  # what the scores alone say
    outcome = {o.run_id: o for o in held_outcomes(bare, decisions)}[failed]
    assert outcome.state in (ResultState.INFRA_ERROR, ResultState.PROVIDER_BLOCK)
    assert (outcome.source, outcome.human_state) == ("record", ResultState.MODEL_PASS)


def test_a_reclassification_needs_a_reason_and_is_listed_in_results_and_the_bundle(
    demo: sqlite_utils.Database, tmp_path: Path
) -> None:
    pk = _showing(demo)
    session = ReviewSession(demo, pk, "demo")
    code, position = _with_record_failure(session)
    judgment = afp_judgment(2, 2, PreferenceChoice.TIE)
    judgment.responses[position] = judgment.responses[position].model_copy(
        update={"reclassified": True}
    )
    with pytest.raises(NotReady, match="a reason is required to reclassify the record's state"):
        session.save(code, judgment, 5, submit=True)
    reason = "The log shows a full answer arrived; the timeout was the harness's."
    judgment.responses[position] = judgment.responses[position].model_copy(
        update={"override_reason": reason}
    )
    session.save(code, judgment, 5, submit=True)
    other = next(k for k in judgment.responses if k != position)
    with pytest.raises(AbpError, match="no INFRA_ERROR or PROVIDER_BLOCK to reclassify"):
        wrong = afp_judgment(2, 2, PreferenceChoice.TIE)
        wrong.responses[other] = ResponseJudgment(
            scores=wrong.responses[other].scores, reclassified=True, override_reason="x"
        )
        wrong.responses[position] = judgment.responses[position]
        session.save(code, wrong, 1, submit=True, reason="again")
    unblind(demo, STUDY, "coordinator")
    report = compute_results(demo, pk)
    (found,) = report.reclassifications
    assert found.record_state in (ResultState.INFRA_ERROR, ResultState.PROVIDER_BLOCK)
    assert (found.state, found.by, found.reasons) == (ResultState.MODEL_PASS, ("demo",), (reason,))
    outcome = {o.run_id: o for o in report.outcomes}[found.run]
    assert (outcome.state, outcome.source) == (ResultState.MODEL_PASS, "single review")
    bundle = export_bundle(demo, pk, tmp_path / "bundle")
    csv = (bundle.folder / "results" / "reclassified_runs.csv").read_text("utf-8")
    assert found.run in csv and reason in csv
    html = (bundle.folder / "report.html").read_text("utf-8")
    assert "Record failures reclassified by reviewers" in html
    summary = json.loads((bundle.folder / "results" / "summary.json").read_text("utf-8"))
    assert [r["run"] for r in summary["reclassifications"]] == [found.run]
    assert verify(bundle.folder).derived > 0  # raises on any file it cannot re-derive


def test_the_gate_reports_missing_reruns_of_the_high_risk_fixtures(
    demo: sqlite_utils.Database, tmp_path: Path
) -> None:
    """Every item judged with every response scored 2: P06 under C and P07 under A still lack
    their third usable repeat, and condition C is not 14/14 (as it was when the failed runs
    were paired and scored)."""
    pk = sql.designs(demo, STUDY)[-1].pk
    for reviewer in ("demo", "second-reviewer"):
        session = ReviewSession(demo, pk, reviewer)
        for row in session.queue():
            session.save(row.code, afp_judgment(2, 2, PreferenceChoice.TIE), 5, submit=True)
    unblind(demo, STUDY, "coordinator")
    report = compute_results(demo, pk)
    c = next(g for g in report.conditions if g.condition == "C")
    # 14 runs: 12 judged passes, the INFRA_ERROR run, and P07's repeat 2, whose counterpart
    # under A was blocked (no pair to judge until that rerun arrives).
    assert (c.pass_rate.x, c.pass_rate.n, c.states["INFRA_ERROR"], c.unjudged) == (12, 12, 1, 1)
    a = next(g for g in report.conditions if g.condition == "A")
    assert a.states["PROVIDER_BLOCK"] == 1
    missing = "\n".join(export_bundle(demo, pk, tmp_path / "b").missing)
    assert "P06 under C: 2 of 3 usable runs (1 INFRA_ERROR/PROVIDER_BLOCK to rerun)" in missing
    assert "P07 under A: 2 of 3 usable runs (1 INFRA_ERROR/PROVIDER_BLOCK to rerun)" in missing


def test_a_rerun_imported_after_planning_is_listed_until_the_design_is_planned_again(
    cli: Cli, tmp_path: Path
) -> None:
    assert cli("demo").code == 0
    rerun = import_afp_rerun(cli, tmp_path, returned_model="demo-model-1-2026-01-01")
    assert cli("unblind", "--study", STUDY, "--yes").code == 0
    out = tmp_path / "bundle"
    exported = cli("export", "bundle", "--study", STUDY, "--design", "blind-pairs", "--out", out)
    assert exported.code == 0, exported.err
    status = json.loads((out / "status.json").read_text("utf-8"))
    late = [m for m in status["missing"] if m.startswith("reruns planned")]
    assert len(late) == 1 and rerun in late[0]
    # Nobody judged the design yet: planned again, the rerun gets its item with the same secret.
    again = cli("study", "create", DESIGN_FILE, "--db", cli.db_path)
    assert again.code == 0 and "replaced" in again.out, again.out
    db = sqlite_utils.Database(cli.db_path)
    assert rerun in _planned(db, sql.designs(db, STUDY)[-1].pk)


def test_a_design_file_says_whether_it_shows_record_failures(cli: Cli, tmp_path: Path) -> None:
    assert StudyDesign(study=STUDY, name="x", seed=1).show_record_failures is False
    # Left out of the stored document while off: designs written before it keep their hash.
    assert "show_record_failures" not in StudyDesign(study=STUDY, name="x", seed=1).model_dump()
    assert cli("demo").code == 0
    path = tmp_path / "shows.toml"
    text = DESIGN_FILE.read_text("utf-8").replace('name = "blind-pairs"', 'name = "shows"')
    path.write_text(text.replace("[disagreement]", "show_record_failures = true\n\n[disagreement]"))
    made = cli("study", "create", path, "--db", cli.db_path)
    assert made.code == 0, made.err
    db = sqlite_utils.Database(cli.db_path)
    shows = next(d for d in sql.designs(db, STUDY) if d.name == "shows")
    assert {INFRA, BLOCKED} <= _planned(db, shows.pk)
    path.write_text(
        text.replace("[disagreement]", 'show_record_failures = "sometimes"\n[disagreement]')
    )
    refused = cli("study", "create", path, "--db", cli.db_path)
    assert refused.code == 1 and "show_record_failures" in refused.err
    assert len(refused.err.strip().splitlines()) == 1
