"""Import work grows linearly with the records imported (counted in SQLite's own steps, never
timed: speed figures belong to ``abp-tui bench import``).

Importing copies of a real pairwise set was quadratic: every run's versioning lookup scanned all
current runs of the study, because SQLite's planner took the (study_id, current) index for the
lookup by (study_id, id). The writer now answers lookups in a study it created from memory, and
any other lookup by id uses an index on (study_id, id, current).
"""

from __future__ import annotations

import json
from pathlib import Path

import sqlite_utils

from abp_tui.services.importing import import_paths
from tests.factories import copy_db


def _pairs(path: Path, start: int, n: int) -> Path:
    items = [
        {
            "idx": i,
            "cmp_key": "alpha_beta",
            "instruction": f"Question {i}",
            "response1": f"first answer {i}",
            "response2": f"second answer {i}",
            "annotator1": i % 3,
        }
        for i in range(start, start + n)
    ]
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def _steps_of_second_file(tmp_path: Path, db: sqlite_utils.Database, n: int) -> int:
    """SQLite virtual machine steps (in hundreds) to import n more pairs into a study that
    already holds n: the path where each run is looked up in the database."""
    import_paths(db, [_pairs(tmp_path / f"a{n}.json", 0, n)], study="s")
    ticks = 0

    def tick() -> int:
        nonlocal ticks
        ticks += 1
        return 0

    db.conn.set_progress_handler(tick, 100)
    try:
        import_paths(db, [_pairs(tmp_path / f"b{n}.json", n, n)], study="s")
    finally:
        db.conn.set_progress_handler(None, 0)
    return ticks


def test_four_times_the_pairs_is_four_times_the_work(
    tmp_path: Path, db: sqlite_utils.Database, empty_db_template: Path
) -> None:
    small = _steps_of_second_file(tmp_path, db, 200)
    other = copy_db(empty_db_template, tmp_path / "large.db")
    try:
        large = _steps_of_second_file(tmp_path, other, 800)
    finally:
        other.close()
    # Linear work gives a ratio of 4; the quadratic lookup gave about 15 at these sizes.
    assert 3.0 < large / small < 5.0, (small, large)


def test_a_run_is_looked_up_by_its_id_through_an_index(db: sqlite_utils.Database) -> None:
    plan = db.execute(
        "EXPLAIN QUERY PLAN SELECT pk, sha256, placeholder, version_no FROM runs "
        "WHERE study_id = ? AND id = ? AND current = 1",
        ["s", "r"],
    ).fetchall()
    detail = " ".join(str(row[-1]) for row in plan)
    assert "id=?" in detail, detail
    assert "runs_current " not in detail + " ", detail


def test_a_task_is_looked_up_by_its_id_not_by_scanning_the_studys_tasks(
    db: sqlite_utils.Database,
) -> None:
    # The home screen's count index on (study_id, current) was taken for this lookup, which
    # then read every current task of the study: a second import of 4x the pairs took 11.6x.
    plan = db.execute(
        "EXPLAIN QUERY PLAN SELECT pk, sha256, placeholder, version_no FROM tasks "
        "WHERE study_id = ? AND id = ? AND current = 1",
        ["s", "t"],
    ).fetchall()
    detail = " ".join(str(row[-1]) for row in plan)
    assert "id=?" in detail, detail


def test_the_cycle_collector_is_paused_during_an_import_and_restored_after(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """Records hold no cycles, so an import need not pay the collector's walks over them; the
    collector runs again afterwards, also when the import is refused."""
    import gc

    from abp_tui.errors import ImportFailed

    seen: list[bool] = []
    assert gc.isenabled()
    import_paths(
        db, [_pairs(tmp_path / "ok.json", 0, 5)], progress=lambda _p: seen.append(gc.isenabled())
    )
    assert seen and not any(seen)
    assert gc.isenabled()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"idx": 1, "response1": "a", "response2": "b", "annotator1": 9}]))
    try:
        import_paths(db, [bad])
    except ImportFailed:
        pass
    else:  # pragma: no cover - the label 9 is refused
        raise AssertionError("the bad label was accepted")
    assert gc.isenabled()
    gc.disable()
    try:
        import_paths(db, [_pairs(tmp_path / "more.json", 5, 5)])
        assert not gc.isenabled(), "an import does not enable what its caller disabled"
    finally:
        gc.enable()
