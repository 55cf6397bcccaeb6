"""``abp-tui status`` counts each task's and condition's current runs in one pass over the
study's runs: right (old versions not counted, a task or condition without runs at 0) and
linear in the runs (counted in SQLite's own steps, never timed).

The counts were one subquery per task and per condition, each scanning every run, since
neither ``runs.task_pk`` nor ``runs.condition_pk`` is indexed: ten minutes for a study of
20,000 pairs.
"""

from __future__ import annotations

import json
from pathlib import Path

import sqlite_utils

from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.services.importing import import_paths
from abp_tui.store import overview, queries
from tests.factories import Cli, copy_db, write_jsonl


def _study_lines(output: str) -> list[dict[str, object]]:
    return [
        {"type": "study", "id": "s"},
        {"type": "condition", "id": "A"},
        {"type": "condition", "id": "B"},
        {"type": "condition", "id": "idle"},  # no run
        {"type": "task", "id": "T1"},
        {"type": "task", "id": "T2"},
        {"type": "task", "id": "T3"},  # no run
        {"type": "run", "id": "r1", "task_id": "T1", "condition_id": "A", "output": output},
        {"type": "run", "id": "r2", "task_id": "T1", "condition_id": "B", "output": "b"},
        {"type": "run", "id": "r3", "task_id": "T2", "condition_id": "A", "output": "c"},
    ]


def test_status_counts_current_runs_of_each_task_and_condition(tmp_path: Path, cli: Cli) -> None:
    first = write_jsonl(tmp_path / "one.jsonl", _study_lines("a"))
    second = write_jsonl(tmp_path / "two.jsonl", _study_lines("a, edited"))  # r1: version 2
    for path in (first, second):
        assert cli("import", path).code == 0
    result = cli("status", "--json")
    assert result.code == 0, result.err
    (study,) = json.loads(result.out)["studies"]
    assert study["runs"] == 3
    assert study["condition_runs"] == {"A": 2, "B": 1, "idle": 0}
    assert study["task_runs"] == {"T1": 2, "T2": 1, "T3": 0}


def test_study_summaries_count_the_same(tmp_path: Path, db: sqlite_utils.Database) -> None:
    for name, output in (("one", "a"), ("two", "a, edited")):
        import_paths(db, [write_jsonl(tmp_path / f"{name}.jsonl", _study_lines(output))])
    assert db.execute("SELECT count(*) FROM runs").fetchone() == (4,)  # r1 twice
    assert {c.condition.id: c.runs for c in queries.study_conditions(db, "s")} == {
        "A": 2,
        "B": 1,
        "idle": 0,
    }
    assert {t.task.id: t.runs for t in queries.study_tasks(db, "s")} == {
        "T1": 2,
        "T2": 1,
        "T3": 0,
    }


def _steps(db: sqlite_utils.Database, study: str) -> int:
    """SQLite virtual machine steps (in hundreds) of the per-task and per-condition counts."""
    ticks = 0

    def tick() -> int:
        nonlocal ticks
        ticks += 1
        return 0

    db.conn.set_progress_handler(tick, 100)
    try:
        queries.study_tasks(db, study)
        queries.study_conditions(db, study)
        overview._counted(db.conn, overview._TASK_RUNS, study)
        overview._counted(db.conn, overview._CONDITION_RUNS, study)
    finally:
        db.conn.set_progress_handler(None, 0)
    return ticks


def test_four_times_the_pairs_is_about_four_times_the_counting(
    tmp_path: Path, empty_db_template: Path
) -> None:
    steps = []
    for pairs in (250, 1000):
        path = tmp_path / f"p{pairs}.json"
        write_pairs(path, pairs)
        db = copy_db(empty_db_template, tmp_path / f"p{pairs}.db")
        try:
            import_paths(db, [path], study=path.stem)
            steps.append(_steps(db, path.stem))
        finally:
            db.close()
    small, large = steps
    # Linear counting gives 4 (a little more: the sort of the task ids); a scan of every run
    # for each task gave 16.
    assert 3.0 < large / small < 6.0, (small, large)
