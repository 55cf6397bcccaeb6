"""Seed 002 section 5, "refine the rubric on development material, then freeze a separate
holdout": every output that presents a run's or a condition's outcome says which material it
is over, and development material is never presented as a benchmark result: not in the
publication gate's figures, not in ``verdicts.jsonl`` unmarked, not in ``abp-verdict/v1``'s
medians, not in the report's headline. A task in neither list is warned of and counted as
benchmark material.

Each test is one row of CONFORMANCE.md, driving the real services and commands on generated
records (:mod:`tests.conformance.seed_002.business_helpers`).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.export.bundle import verify, write_folder
from abp_tui.export.ranking import RANKING_JSON, VOTES
from abp_tui.models import Judgment, StudyDesign
from abp_tui.models.builtin_rubrics import BUSINESS_V1
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import build_bundle
from abp_tui.services.ranking_bundle import DEVELOPMENT
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import judging as sql
from abp_tui.text.canonical import sha256_bytes
from tests.conformance.rules_helpers import gate_checks, read_json, read_jsonl
from tests.conformance.seed_002 import business_helpers as biz
from tests.factories import Cli, write_jsonl
from tests.ranking_data import write_pairwise

SPLIT = biz.make_design(development_tasks=["W04"], holdout_tasks=["W01", "W02", "W03"])
DEV_LATENCY_MS = 90_000.0
"""W04's runs are far slower than the holdout's, so that a median over them shows."""


def _lines() -> list[dict[str, object]]:
    """The shared study, W04's measured runs made slow."""
    lines = biz.study_lines()
    for line in lines:
        if line.get("type") == "run" and line["task_id"] == "W04" and "wall_clock_ms" in line:
            line["wall_clock_ms"] = DEV_LATENCY_MS
    return lines


def _scores(task: str, condition: str, trial: int) -> tuple[int, float | None]:
    """Development W04 meets brief everywhere; on the holdout S fails W02 and W03."""
    if task == "W04" or condition == "M" or task == "W01":
        return 2, 5.0
    return 1, 20.0


def _build_leaving(
    tmp_path: Path, db: sqlite_utils.Database, design: StudyDesign, unjudged: frozenset[str]
) -> None:
    """The shared study judged as ``_scores`` says, but for the items of the tasks in
    ``unjudged``, which nobody judges; then unblinded."""
    import_paths(db, [write_jsonl(tmp_path / "biz.jsonl", _lines())])
    pk = create_design(db, design).pk
    session = ReviewSession(db, pk, "alice")
    items: Mapping[str, Any] = {i.code: i for i in sql.records_of_design(db, pk).items}
    for row in session.queue():
        item = items[row.code]
        if item.task in unjudged:
            continue
        score, _minutes = _scores(item.task, item.conditions[0], item.trial)
        # The designs here have no correction timing rule: no minutes are recorded.
        judged = Judgment(responses={"1": biz.response(score, None)})
        session.save(row.code, judged, 5, submit=True)
    unblind(db, "biz", "coordinator")


def _rehash(folder: Path, changed: str) -> None:
    """Update manifest.json for a changed file, as someone covering their tracks would."""
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    data = (folder / changed).read_bytes()
    for entry in manifest["files"]:
        if entry["path"] == changed:
            entry["sha256"] = sha256_bytes(data)
            entry["bytes"] = len(data)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True), "utf-8")


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text("utf-8"))))


def test_every_per_run_output_says_which_material_its_run_is_and_verify_re_derives_it(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    biz.build(tmp_path, db, _scores, design=SPLIT, lines=_lines())
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--db", tmp_path / "test.db", "--out", out).code == 0
    verdicts = read_jsonl(out / "results/verdicts.jsonl")
    assert len(verdicts) == 24
    assert {v["run"]: v["material"] for v in verdicts if v["task"] == "W04"} == {
        f"W04-{c}-{t}": "development" for c in ("S", "M") for t in biz.TRIALS
    }
    assert {v["material"] for v in verdicts if v["task"] != "W04"} == {"holdout"}
    # Every judgment row names its material too; the report's table of runs as well.
    rows = _csv(out / "results/judgments.csv")
    assert {(r["task"], r["material"]) for r in rows} == {
        ("W01", "holdout"),
        ("W02", "holdout"),
        ("W03", "holdout"),
        ("W04", "development"),
    }
    page = (out / "report.html").read_text("utf-8")
    runs_table = page[page.index('<table id="runs-table">') :]
    assert "<th>material</th>" in runs_table[: runs_table.index("</thead>")]
    assert '<td>W04-S-1</td><td>W04</td><td>S</td><td class="num">1</td><td>development' in (
        runs_table
    )
    assert cli("verify", out).code == 0
    # A bundle that presents a development run as a holdout one does not verify.
    text = (out / "results/verdicts.jsonl").read_text("utf-8")
    (out / "results/verdicts.jsonl").write_text(
        text.replace('"material":"development"', '"material":"holdout"', 1), "utf-8"
    )
    _rehash(out, "results/verdicts.jsonl")
    refused = cli("verify", out)
    assert refused.code == 1
    assert "results/verdicts.jsonl" in refused.err and "Traceback" not in refused.err


def test_the_publication_gate_counts_benchmark_material_and_lists_development_apart(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    # Nobody judged the development task: the benchmark result is complete all the same.
    _build_leaving(tmp_path, db, SPLIT, frozenset({"W04"}))
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--db", tmp_path / "test.db", "--out", out).code == 0
    checks = gate_checks(out)
    judged = checks["every item judged"]
    # 3 holdout tasks x 2 conditions x 3 attempts, one single item per run.
    assert judged["met"] is True
    assert judged["detail"].startswith("18 items judged by 1 reviewer(s) each; ")
    assert (
        "development material (not a benchmark result), apart, items lacking a judgment: "
        in (judged["detail"])
    )
    split = checks["development material apart from the benchmark (seed 002 section 5)"]
    assert split["met"] is True
    assert split["detail"] == (
        "development material (not a benchmark result): tasks W04, 6 runs in 6 items, reported "
        "apart and in no benchmark figure; holdout: tasks W01, W02, W03, 18 runs in 18 items"
    )
    assert read_json(out / "status.json")["status"] == "results published"
    assert cli("verify", out).code == 0


def test_a_holdout_gap_holds_the_results_back_where_a_development_gap_does_not(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    _build_leaving(tmp_path, db, SPLIT, frozenset({"W02"}))
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--db", tmp_path / "test.db", "--out", out).code == 0
    judged = gate_checks(out)["every item judged"]
    assert judged["met"] is False
    assert judged["detail"].startswith("6 of 18 items lack a submitted judgment")
    assert "development material" not in judged["detail"]
    assert read_json(out / "status.json")["status"] == "protocol published / results pending"


def test_abp_verdict_medians_and_the_report_headline_are_over_benchmark_material_only(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    biz.build(tmp_path, db, _scores, design=SPLIT, lines=_lines())
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--db", tmp_path / "test.db", "--out", out).code == 0
    verdict = read_json(out / "results/abp-verdict.json")
    engines = {e["engine"]: e for e in verdict["perEngine"]}
    # S's holdout latencies: 1000 and 2000 ms on each of W01-W03 (the third attempt has none):
    # median 1500. With W04's two slow runs it would be the median of 1000 x3, 2000 x3,
    # 90000 x2, that is 2000.
    assert engines["S"]["medianWallClockMs"] == 1500
    assert engines["S"]["scoredTrials"] == 9
    assert "Development material (tasks W04) is not a benchmark result" in verdict["notes"]
    page = (out / "report.html").read_text("utf-8")
    lead = page.index('id="material"')
    assert lead < page.index('<section id="summary">')
    assert (
        "Every figure of these results is over benchmark material only (the holdout: tasks W01, "
        "W02, W03). Development material (tasks W04) is not a benchmark result"
    ) in page[lead:]
    summary = read_json(out / "results/summary.json")
    assert [(c["condition"], c["runs"]) for c in summary["conditions"]] == [("M", 9), ("S", 9)]


def test_a_task_in_neither_list_is_warned_of_and_counted_as_benchmark_material(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    import_paths(db, [write_jsonl(tmp_path / "biz.jsonl", _lines())])
    design = tmp_path / "partial.toml"
    design.write_text(
        'study = "biz"\nname = "partial"\nseed = 3\n'
        f'rubric = "{BUSINESS_V1.id}"\n'
        'contrasts = "none"\nsingle_items = true\nreviewers = ["alice"]\n'
        'development_tasks = ["W04"]\nholdout_tasks = ["W01", "W02"]\n',
        "utf-8",
    )
    warning = (
        "1 task is in neither development_tasks nor holdout_tasks (W03): counted as benchmark "
        "material."
    )
    created = cli("study", "create", "--db", tmp_path / "test.db", design)
    assert created.code == 0
    assert f"  warning: {warning}" in created.out.splitlines()
    again = json.loads(cli("study", "create", "--db", tmp_path / "test.db", design, "--json").out)
    assert again["designs"][0]["warnings"] == [warning]
    # Nobody judged yet: the results already say which tasks the figures are over.
    unblind(db, "biz", "coordinator")
    report = json.loads(cli("results", "--db", tmp_path / "test.db", "--json").out)
    assert report["business"]["unlisted_tasks"] == ["W03"]
    assert {g["task"] for g in report["by_task"]} == {"W01", "W02", "W03"}
    assert warning in cli("results", "--db", tmp_path / "test.db").out


def test_a_design_without_a_task_split_marks_every_run_benchmark_material(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    biz.build(tmp_path, db, _scores)
    assert create_design(db, biz.make_design()).warnings == ()
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--db", tmp_path / "test.db", "--out", out).code == 0
    assert {v["material"] for v in read_jsonl(out / "results/verdicts.jsonl")} == {"benchmark"}
    assert "material" not in _csv(out / "results/judgments.csv")[0]
    checks = gate_checks(out)
    assert "development material apart from the benchmark (seed 002 section 5)" not in checks
    assert 'id="material"' not in (out / "report.html").read_text("utf-8")


def test_a_bundles_rankings_leave_development_material_out_and_say_so(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # Twelve labelled pairs, three annotators each (tests.ranking_data); tasks 0-2 development.
    import_paths(db, [write_pairwise(tmp_path / "small.json")], study="small")
    design = StudyDesign(
        study="small", name="d", seed=5, rubric="none", development_tasks=["0", "1", "2"]
    )
    pk = create_design(db, design).pk
    unblind(db, "small", "coordinator")
    files = build_bundle(db, pk)
    (labels,) = [r for r in json.loads(files[RANKING_JSON])["rankings"] if r["source"] == "labels"]
    assert labels["comparisons"] == 9 * 3
    assert {"reason": DEVELOPMENT, "votes": 3 * 3} in labels["excluded"]
    assert {v["task"] for v in map(json.loads, files[VOTES].decode().splitlines())}.isdisjoint(
        {"0", "1", "2"}
    )
    write_folder(tmp_path / "bundle", files)
    assert verify(tmp_path / "bundle").derived > 0  # the rankings re-derived from these votes
