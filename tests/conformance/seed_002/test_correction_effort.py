"""Seed 002 section 6: "correction minutes under a consistent timing rule" and "publish missing
measurements as missing", per condition (median, quartiles, n).

Each test is one row of CONFORMANCE.md, driving the real services and commands on generated
records (:mod:`tests.conformance.seed_002.business_helpers`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.errors import AbpError
from abp_tui.models import Judgment
from abp_tui.services.design_files import load_design_file
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.merging import merge_ratings
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.stations import open_pack, write_ratings, write_study_pack
from abp_tui.stats.task_bootstrap import quartiles
from abp_tui.store import connect
from tests.conformance.rules_helpers import read_json
from tests.conformance.seed_002 import business_helpers as biz
from tests.factories import Cli, write_jsonl


def _minutes(task: str, condition: str, trial: int) -> tuple[int, float | None]:
    """M: minutes 1, 2, 3, 4 on W01-W02's attempts 1-2, none recorded on attempt 3; S: none."""
    if condition == "S":
        return 1, None
    if trial == 3:
        return 2, None
    return 2, float({"W01": 0, "W02": 2}.get(task, 0) + trial)


def test_correction_minutes_follow_the_design_timing_rule_and_stay_missing_when_unrecorded(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    design = biz.make_design(correction_effort={"timing_rule": biz.TIMING_RULE})
    biz.build(tmp_path, db, _minutes, design=design)
    done = cli("results", "--db", tmp_path / "test.db", "--json")
    assert done.code == 0, done.err
    business = json.loads(done.out)["business"]
    assert business["timing_rule"] == biz.TIMING_RULE
    by = {c["condition"]: c["minutes"] for c in business["correction"]}
    # M on W01-W03 (W04 too: every task is benchmark material here): attempts 1 and 2 carry
    # 1, 2 (W01), 3, 4 (W02), 1, 2 (W03), 1, 2 (W04); attempt 3 of each task none.
    assert by["M"]["n"] == 8 and by["M"]["missing"] == 4
    assert by["M"]["median"] == 2.0 and by["M"]["q1"] == 1.0 and by["M"]["q3"] == 2.25
    # Nobody recorded minutes under S: missing, never zero.
    assert by["S"] == {"n": 0, "missing": 12, "q1": None, "median": None, "q3": None}
    text = cli("results", "--db", tmp_path / "test.db")
    assert f"Timing rule: {biz.TIMING_RULE}" in text.out
    assert "missing (0, 12)" in text.out


def test_correction_effort_reaches_the_bundle_and_verify_re_derives_it(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    design = biz.make_design(correction_effort={"timing_rule": biz.TIMING_RULE})
    biz.build(tmp_path, db, _minutes, design=design)
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--db", tmp_path / "test.db", "--out", out).code == 0
    csv = (out / "results/business_correction.csv").read_text("utf-8").splitlines()
    assert csv[0] == "condition,minutes_median,minutes_n,minutes_missing,minutes_q1,minutes_q3"
    assert csv[1:] == ["M,2,8,4,1,2.25", "S,,0,12,,"]
    summary = read_json(out / "results/summary.json")
    assert summary["business"]["timing_rule"] == biz.TIMING_RULE
    assert "Correction effort" in (out / "report.html").read_text("utf-8")
    assert cli("verify", out).code == 0
    # A changed minute in the published judgments no longer matches the derived tables.
    judgments = out / "judging/judgments.jsonl"
    judgments.write_text(
        judgments.read_text("utf-8").replace(
            '"correction_minutes":4.0', '"correction_minutes":40.0'
        ),
        "utf-8",
    )
    refused = cli("verify", out)
    assert refused.code == 1
    assert "judging/judgments.jsonl" in refused.out + refused.err


def test_the_timing_rule_is_a_design_field_with_one_line_errors(tmp_path: Path) -> None:
    good = tmp_path / "d.toml"
    good.write_text(
        'study = "biz"\nname = "w"\nseed = 1\n[correction_effort]\ntiming_rule = "Wall clock."\n',
        "utf-8",
    )
    assert load_design_file(good).correction_effort is not None
    bad = tmp_path / "bad.toml"
    bad.write_text('study = "biz"\nname = "w"\nseed = 1\n[correction_effort]\ntiming_rule = " "\n')
    with pytest.raises(AbpError) as refused:
        load_design_file(bad)
    message = str(refused.value)
    assert "bad.toml" in message and "correction_effort.timing_rule" in message
    assert "\n" not in message


def test_quartiles_are_hyndman_fan_definition_7() -> None:
    # Hyndman & Fan (1996), definition 7 (R's quantile() default): Q(p) = x[j] + g (x[j+1] -
    # x[j]) with h = (n - 1) p + 1; for 1..10: Q(0.25) = 3.25, Q(0.5) = 5.5, Q(0.75) = 7.75,
    # as R's quantile(1:10) prints them.
    q = quartiles([*map(float, range(1, 11)), None])
    assert (q.q1, q.median, q.q3, q.n, q.missing) == (3.25, 5.5, 7.75, 10, 1)


def test_an_offline_station_asks_minutes_under_the_same_rule_and_they_merge(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [write_jsonl(tmp_path / "biz.jsonl", biz.study_lines())])
    design = biz.make_design(
        reviewers=["ana"], tasks=["W01"], correction_effort={"timing_rule": biz.TIMING_RULE}
    )
    pk = create_design(db, design).pk
    pack = tmp_path / "ana.pack.json"
    write_study_pack(db, pk, "ana", pack)
    station = connect(tmp_path / "station.db")
    try:
        session = ReviewSession(station, open_pack(station, pack), "ana")
        code = session.queue()[0].code
        assert session.open(code).timing_rule == biz.TIMING_RULE
        session.save(code, Judgment(responses={"1": biz.response(2, 7.0)}), 3, submit=True)
        ratings = tmp_path / "ana.ratings.json"
        write_ratings(station, ratings)
    finally:
        station.close()
    assert merge_ratings(db, [ratings])[0]["added"] == 1
    merged = ReviewSession(db, pk, "ana").open(code)
    assert merged.judgment.responses["1"].correction_minutes == 7.0
