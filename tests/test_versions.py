"""A verdict stays attached to the exact content it was judged on: a changed record imported
after judging becomes a new version, and that version is unjudged until someone judges it."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import compute_results
from tests.factories import judge_all, native_study, write_jsonl


def _outcomes(db: sqlite_utils.Database, pk: int) -> dict[str, tuple[str, str | None]]:
    report = compute_results(db, pk)
    return {
        o.run_id: (o.source, None if o.state is None else o.state.value) for o in report.outcomes
    }


def test_a_new_version_of_a_judged_run_is_unjudged(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = native_study(tmp_path, db)
    judge_all(db, pk)
    before = _outcomes(db, pk)
    assert before["P01-A"][0] == "single review"
    changed = {
        "type": "run",
        "id": "P01-A",
        "task_id": "P01",
        "condition_id": "A",
        "output": "A different answer nobody has judged.",
    }
    import_paths(
        db, [write_jsonl(tmp_path / "again.jsonl", [{"type": "study", "id": "s"}, changed])]
    )
    versions = db.execute("SELECT count(*) FROM runs WHERE id = 'P01-A'").fetchone()[0]
    assert versions == 2
    after = _outcomes(db, pk)
    assert after["P01-A"] == ("unjudged", None)
    # The runs whose content did not change keep their verdicts.
    assert {k: v for k, v in after.items() if k != "P01-A"} == {
        k: v for k, v in before.items() if k != "P01-A"
    }
