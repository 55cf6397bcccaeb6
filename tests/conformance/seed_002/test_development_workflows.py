"""Seed 002 section 5: development material against a frozen holdout ("the supplied starter set
is development material, not a hidden benchmark"), and the single- against multi-agent
comparison per condition: accepted-task rate, critical failures, correction effort, latency and
cost, a missing measurement published as missing.

Each test is one row of CONFORMANCE.md, driving the real services and commands on generated
records (:mod:`tests.conformance.seed_002.business_helpers`).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import sqlite_utils

from tests.conformance.rules_helpers import read_json
from tests.conformance.seed_002 import business_helpers as biz
from tests.factories import Cli

SPLIT = biz.make_design(
    development_tasks=["W04"],
    holdout_tasks=["W01", "W02", "W03"],
    workflows={"S": "single-agent", "M": "multi-agent"},
    correction_effort={"timing_rule": biz.TIMING_RULE},
)


def _scores(task: str, condition: str, trial: int) -> tuple[int, float | None]:
    """Development task W04 meets brief everywhere; on the holdout S fails W02 and W03."""
    if task == "W04" or condition == "M" or task == "W01":
        return 2, 5.0
    return 1, 20.0


def test_development_material_is_reported_apart_and_never_as_a_benchmark_result(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    biz.build(tmp_path, db, _scores, design=SPLIT)
    report = json.loads(cli("results", "--db", tmp_path / "test.db", "--json").out)
    # The benchmark figures are over the holdout alone: 3 tasks x 3 attempts per condition.
    s = next(c for c in report["conditions"] if c["condition"] == "S")
    assert (s["runs"], s["pass_rate"]["x"]) == (9, 3)
    assert {g["task"] for g in report["by_task"]} == {"W01", "W02", "W03"}
    assert "not a benchmark result" in report["business"]["development_label"]
    dev = {g["condition"]: g for g in report["business"]["development"]}
    assert dev["S"]["runs"] == 3 and dev["S"]["pass_rate"]["x"] == 3
    text = cli("results", "--db", tmp_path / "test.db").out
    assert "Development material (not a benchmark result)" in text
    assert "Holdout tasks: W01, W02, W03." in text
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--db", tmp_path / "test.db", "--out", out).code == 0
    summary = read_json(out / "results/summary.json")
    assert [c["runs"] for c in summary["conditions"]] == [9, 9]
    assert (out / "results/business_development.csv").is_file()
    page = (out / "report.html").read_text("utf-8")
    assert "Development material (not a benchmark result)" in page
    assert cli("verify", out).code == 0


def test_a_task_cannot_be_both_development_material_and_holdout(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    biz.build(tmp_path, db, _scores)
    design = tmp_path / "split.toml"
    design.write_text(
        'study = "biz"\nname = "split"\nseed = 3\ndevelopment_tasks = ["W04"]\n'
        'holdout_tasks = ["W01", "W04"]\n',
        "utf-8",
    )
    refused = cli("study", "create", "--db", tmp_path / "test.db", design)
    assert refused.code == 1
    assert "split.toml" in refused.err and "'W04' is both development material and holdout" in (
        refused.err
    )
    assert len(refused.err.strip().splitlines()) == 1
    assert "Traceback" not in refused.err


def test_single_and_multi_agent_are_compared_per_condition_with_missing_left_missing(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    biz.build(tmp_path, db, _scores, design=SPLIT, critical=frozenset({("W02", "S", 1)}))
    rows = {
        r["condition"]: r
        for r in json.loads(cli("results", "--db", tmp_path / "test.db", "--json").out)["business"][
            "workflows"
        ]
    }
    s, m = rows["S"], rows["M"]
    assert (s["workflow"], m["workflow"]) == ("single-agent", "multi-agent")
    assert (s["accepted"]["x"], s["accepted"]["n"]) == (3, 9)
    assert (s["critical"]["x"], s["critical"]["n"]) == (1, 9)
    assert s["correction_minutes"]["median"] == 20.0 and m["correction_minutes"]["median"] == 5.0
    # Latency on attempts 1 and 2 only (S: 1000, 2000 ms per task); cost only on M's records.
    assert (s["latency_ms"]["n"], s["latency_ms"]["missing"], s["latency_ms"]["median"]) == (
        6,
        3,
        1500.0,
    )
    assert s["cost_usd"] == {"n": 0, "missing": 9, "q1": None, "median": None, "q3": None}
    assert m["cost_usd"]["n"] == 9 and m["cost_usd"]["median"] == 0.02
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--db", tmp_path / "test.db", "--out", out).code == 0
    table = {
        r["condition"]: r
        for r in csv.DictReader(io.StringIO((out / "results/business_workflows.csv").read_text()))
    }
    assert table["S"]["cost_usd_median"] == "" and table["S"]["cost_usd_missing"] == "9"
    assert table["S"]["critical_x"] == "1" and table["S"]["critical_n"] == "9"
    text = cli("results", "--db", tmp_path / "test.db").out
    assert "Single- vs multi-agent (seed 002 section 5), per condition" in text
    assert "missing (0, 9)" in text


def test_the_task_split_and_workflows_name_the_studys_own_tasks_and_conditions(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    biz.build(tmp_path, db, _scores)
    for body, expected in (
        ('development_tasks = ["W99"]\n', "development_tasks: 'W99' has no runs in study 'biz'"),
        ('workflows = { X = "multi-agent" }\n', "workflows: condition 'X' has no runs"),
    ):
        design = tmp_path / "named.toml"
        design.write_text(f'study = "biz"\nname = "named"\nseed = 3\n{body}', "utf-8")
        refused = cli("study", "create", "--db", tmp_path / "test.db", design)
        assert refused.code == 1 and expected in refused.err
        assert len(refused.err.strip().splitlines()) == 1
