"""The sci-bench automated judge in results and bundles, and on the reviewer's desk (issue 13).

The scored files are the benchmark's own conformance files (``../shared/reference/sci-bench``).
Seed 004 says what they observe: one submission passes (conditions C6), one fails
invalid-assumption detection (C0, on the unsafe case), one fails abstention (C1, on the boundary
case), and code_correctness is unscored for every case; the pilot run record of C6 reuses the
passing submission, and the excluded pilot record (C1) is never scored. Every tally below is
worked out from those statements, not read back from our output.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from abp_tui.analysis.automated import JudgeTally, judge_tallies
from abp_tui.export import BundleMismatch, verify
from abp_tui.models import RunOutcome, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.desk import Desk
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.services.scibench_scoring import score_files, store_report
from abp_tui.store import connect
from abp_tui.store.automated import current_run_pks
from tests.factories import Cli, full_judgment
from tests.tui_helpers import scored_pair_database

STUDY = "ABENCH-PARALLEL-LIMITS-001"
C0, C1, C6 = "C0_MODEL_ONLY", "C1_REPOSITORY_DOCS", "C6_NEGATIVE_KNOWLEDGE"


@pytest.fixture
def bench(reference: Path) -> Path:
    return reference / "sci-bench"


def _outcome(run: str, condition: str) -> RunOutcome:
    return RunOutcome(
        run_id=run,
        task_id="t",
        condition_id=condition,
        trial=1,
        state=None,
        source="unjudged",
        human_state=None,
        automated_state=None,
        fatal=None,
        scores={},
    )


def test_judge_tallies_count_unscored_apart_and_skip_what_was_not_scored() -> None:
    dims = {
        "a1": [
            {"dimension": "schema", "outcome": "pass", "reason": ""},
            {"dimension": "code", "outcome": "unscored", "reason": "declared unscored"},
        ],
        "a2": [
            {"dimension": "schema", "outcome": "fail", "reason": ""},
            {"dimension": "code", "outcome": "unscored", "reason": ""},
            {"dimension": "odd", "outcome": "0", "reason": "not an outcome: left out"},
        ],
        "b1": [{"dimension": "schema", "outcome": "pass", "reason": ""}],
    }
    runs = [_outcome("a1", "A"), _outcome("a2", "A"), _outcome("b1", "B"), _outcome("b2", "B")]
    assert judge_tallies(runs, dims) == [
        JudgeTally(condition="A", dimension="schema", passed=1, failed=1, unscored=0),
        JudgeTally(condition="A", dimension="code", passed=0, failed=0, unscored=2),
        JudgeTally(condition="B", dimension="schema", passed=1, failed=0, unscored=0),
    ]


def test_results_and_the_bundle_show_the_automated_judge(
    tmp_path: Path, cli: Cli, bench: Path
) -> None:
    assert cli("import", bench).code == 0
    assert cli("score", "sci-bench", bench, "--study", STUDY, "--db", cli.db_path).code == 0
    assert cli("unblind", "--study", STUDY, "--yes").code == 0
    found = cli("results", "--study", STUDY, "--json")
    assert found.code == 0, found.err
    report = json.loads(found.out)
    assert report["verdict_source"] == "automated"
    rates = {
        g["condition"]: (g["pass_rate"]["x"], g["pass_rate"]["n"]) for g in report["conditions"]
    }
    # The judge's outcome counts: C6 passes both cases twice (its submission and its pilot
    # record), C0 and C1 fail both of theirs; the excluded C1 record stays out (PROVIDER_BLOCK).
    assert rates[C6] == (4, 4) and rates[C0] == (0, 2) and rates[C1] == (0, 2)
    c1 = next(g for g in report["conditions"] if g["condition"] == C1)
    assert c1["states"]["PROVIDER_BLOCK"] == 2
    tallies = {(t["condition"], t["dimension"]): t for t in report["automated_judge"]}
    for condition, scored in ((C0, 2), (C1, 2), (C6, 4)):
        code = tallies[(condition, "code_correctness")]
        # Unscored, never a zero: neither a pass nor a fail.
        assert (code["passed"], code["failed"], code["unscored"]) == (0, 0, scored)
    unsafe = tallies[(C0, "invalid_assumption_detection")]
    assert (unsafe["passed"], unsafe["failed"], unsafe["unscored"]) == (0, 1, 1)
    overclaim = tallies[(C1, "abstention")]
    assert (overclaim["passed"], overclaim["failed"], overclaim["unscored"]) == (0, 1, 1)
    assert all(t["failed"] == 0 for t in report["automated_judge"] if t["condition"] == C6)
    text = cli("results", "--study", STUDY).out
    # Seed 004: the text leads with the counts per condition and dimension (the judge's own
    # tallies above, which the dimension table shows for a study nobody judged by hand).
    assert "Dimension counts by condition (no top-line accuracy)" in text
    assert "C0_MODEL_ONLY          invalid_assumption_detection      0     1     1" in text

    made = cli("export", "bundle", "--study", STUDY, "--out", tmp_path / "b")
    assert made.code == 0, made.err
    folder = tmp_path / "b"
    assert verify(folder).study == STUDY
    summary = json.loads((folder / "results" / "summary.json").read_text("utf-8"))
    assert summary["automated_judge"] == report["automated_judge"]
    scores = (folder / "runs" / "automated_scores.jsonl").read_text("utf-8").splitlines()
    # The scores without the scorer's document: no path of the machine that scored them.
    assert len(scores) == 8 and all(str(bench) not in line for line in scores)
    csv = (folder / "results" / "automated_judge.csv").read_text("utf-8").splitlines()
    assert csv[0] == "condition,dimension,pass,fail,unscored"
    assert f"{C0},invalid_assumption_detection,0,1,1" in csv
    # A dimension's outcome is changed in the published scores (and its hash in the manifest):
    # the judge's table no longer re-derives from the records.
    path = folder / "runs" / "automated_scores.jsonl"
    path.write_text(path.read_text("utf-8").replace('"outcome":"fail"', '"outcome":"pass"', 1))
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    data = path.read_bytes()
    for entry in manifest["files"]:
        if entry["path"] == "runs/automated_scores.jsonl":
            entry["sha256"], entry["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    # Caught at the first file derived from the judge's outcomes: its own table, or the seed 004
    # dimension counts built on them (in report.html and results/sci_dimensions.csv).
    with pytest.raises(
        BundleMismatch,
        match=r"results/automated_judge\.csv|report\.html: .*reproducibility|sci_dimensions",
    ):
        verify(folder)


def test_a_designs_results_show_the_judge_beside_the_human_verdicts(
    tmp_path: Path, bench: Path
) -> None:
    db = connect(tmp_path / "s.db")
    try:
        import_paths(db, [bench])
        store_report(db, STUDY, score_files([bench]), [bench])
        design = StudyDesign(
            study=STUDY, name="c6-vs-c0", seed=7, conditions=[C6, C0], contrasts=[(C6, C0)]
        )
        pk = create_design(db, design).pk
        unblind(db, STUDY, "coordinator")
        report = compute_results(db, pk)
    finally:
        db.close()
    assert report.verdict_source == "design"
    assert {t.condition for t in report.automated_judge} == {C0, C6}  # the design's scope
    assert {o.source for o in report.outcomes} == {"automated"}  # nobody judged yet


# -- the desk: by position, after submission only ---------------------------------------------
def test_the_desk_reveals_the_judge_by_position_after_submission(tmp_path: Path) -> None:
    db_path, pk = scored_pair_database(tmp_path)
    desk = Desk(db_path, pk, "ana")
    try:
        item = desk.open()
        assert item is not None
        assert desk.automated(item.code) is None  # not before the reviewer's own submission
        desk.submit(item.code, full_judgment(2))
        found = desk.automated(item.code)
    finally:
        desk.close()
    assert found is not None and [o.position for o in found] == ["1", "2"]
    db = connect(db_path)
    try:
        (placement,) = db.execute(
            "SELECT j.placement FROM judgments j JOIN items i ON i.pk = j.item_pk "
            "WHERE i.code = ? AND j.status = 'submitted'",
            [item.code],
        ).fetchone()
        run_of = {str(pk): run for run, (pk, _m) in current_run_pks(db, "pilot").items()}
    finally:
        db.close()
    shown = {p: run_of[str(run_pk)] for p, run_pk in json.loads(placement).items()}
    for outcome in found:
        run = shown[outcome.position]
        assert outcome.outcome == ("passed" if run.endswith("-C") else "failed")
        oracle = outcome.dimensions[0]
        # Condition labels are masked as in the responses; no run id, no label.
        assert "«masked»" in oracle.reason
        assert "Workflow" not in oracle.reason and "Model only" not in oracle.reason
        assert run not in oracle.reason
        assert outcome.dimensions[1].outcome == "unscored"
