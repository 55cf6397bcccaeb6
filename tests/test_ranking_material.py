"""``abp-tui ranking`` and the publication bundle's rankings leave out the same votes: those on a
task the design marks as development material (seed 002 section 5: never a benchmark result),
counted under the same reason, for every source, and with the same scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.ranking.fit import Votes
from abp_tui.export.ranking import RANKING_JSON
from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import build_bundle
from abp_tui.services.ranking import DEVELOPMENT, kept_votes, ranking_report
from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from tests.factories import Cli, write_jsonl
from tests.ranking_data import judge_lines, pairwise_items, write_pairwise

DEV_TASKS = ["0", "1", "2"]
"""Of the twelve labelled tasks of tests.ranking_data, three annotators each."""


def _study(db: sqlite_utils.Database, tmp_path: Path, development: list[str]) -> int:
    """The small labelled study with an AI judge, a design marking ``development``, unblinded."""
    import_paths(db, [write_pairwise(tmp_path / "small.json")], study="small")
    judged = write_jsonl(tmp_path / "judge.jsonl", judge_lines(pairwise_items()))
    import_paths(db, [judged], study="small")
    design = StudyDesign(
        study="small", name="d", seed=5, rubric="none", development_tasks=development
    )
    pk = create_design(db, design).pk
    unblind(db, "small", "coordinator")
    return pk


def test_the_command_leaves_development_votes_out_and_says_how_many(
    tmp_path: Path, cli: Cli
) -> None:
    db = connect(cli.db_path)  # migrated, as the command opens it
    _study(db, tmp_path, DEV_TASKS)
    db.close()
    shown = cli("ranking", "--study", "small", "--source", "labels", "--json")
    assert shown.code == 0, shown.err
    report = json.loads(shown.out)
    assert (report["comparisons"], report["tasks"]) == (9 * 3, 9)
    assert {"reason": DEVELOPMENT, "votes": 3 * 3} in report["excluded"]
    text = cli("ranking", "--study", "small", "--source", "labels")
    assert f"9 votes: {DEVELOPMENT}" in text.out
    # The AI judge's source too: one vote per pair, its two orders combined.
    judge = json.loads(cli("ranking", "--study", "small", "--source", "judge:j1", "--json").out)
    assert {"reason": DEVELOPMENT, "votes": 3} in judge["excluded"]
    assert judge["comparisons"] == 9


@pytest.mark.parametrize("source", ["labels", "judge:j1"])
def test_the_command_and_the_bundle_rank_the_same_votes(
    db: sqlite_utils.Database, tmp_path: Path, source: str
) -> None:
    pk = _study(db, tmp_path, DEV_TASKS)
    published = json.loads(build_bundle(db, pk)[RANKING_JSON])
    (bundled,) = [r for r in published["rankings"] if r["source"] == source]
    command = ranking_report(db, "small", source=source, resamples=0)
    assert command.comparisons == bundled["comparisons"]
    assert [e.model_dump() for e in command.excluded] == bundled["excluded"]
    scores = {s["condition"]: s["score"] for s in bundled["systems"]}
    # The bundle publishes scores to two decimals.
    assert {s.condition: s.score for s in command.systems} == pytest.approx(scores, abs=0.005)


def test_a_design_without_development_material_leaves_every_vote_in(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    _study(db, tmp_path, [])
    report = ranking_report(db, "small", source="labels", resamples=0)
    assert (report.comparisons, report.excluded) == (12 * 3, [])


def test_kept_votes_counts_out_of_scope_and_development_votes_apart() -> None:
    votes = Votes.from_rows(
        [
            ("t1", "a", "b", 1, 1.0, 2.0),
            ("t2", "a", "b", 0, 1.0, 2.0),
            ("t2", "a", "c", 2, 1.0, 2.0),
            ("t3", "b", "c", 1, 1.0, 2.0),
        ]
    )
    kept, dropped, development = kept_votes(votes, lambda _t, c: c != "c", lambda t: t == "t2")
    # t2's a-b vote is development; t2's and t3's votes with c are out of scope, counted once.
    assert (len(kept), dropped, development) == (1, 2, 1)
    assert kept.tasks[int(kept.task[0])] == "t1"
