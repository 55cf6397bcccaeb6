"""A large study's report.html stays a page a browser opens: each long table (every run, every
judgment, every task...) shows its first ``REPORT_ROWS`` rows and says how many there are and
which file of the bundle holds every one; the protocol section likewise lists its first tasks'
texts. Verify re-derives the page as it is, and a study under the limit is shown whole.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.export import report, verify
from abp_tui.services.publishing import export_bundle
from tests.factories import afp_judged

SHOWN = 5


def _table(page: str, table_id: str) -> str:
    """The table's markup with the lines under it, up to the next table or section."""
    start = page.index(f'<table id="{table_id}">')
    ends = [page.find(mark, start + 1) for mark in ('<div class="scroll">', "</section>")]
    return page[start : min(e for e in ends if e > 0)]


def test_long_tables_show_their_first_rows_and_name_the_file_with_all(
    tmp_path: Path, db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report, "REPORT_ROWS", SHOWN)
    pk = afp_judged(db)
    bundle = export_bundle(db, pk, tmp_path / "bundle")
    folder = bundle.folder
    page = (folder / "report.html").read_text("utf-8")
    runs = len((folder / "results" / "verdicts.jsonl").read_text("utf-8").splitlines())
    tasks = len(json.loads((folder / "protocol" / "tasks.json").read_text("utf-8")))
    judgments = len((folder / "results" / "judgments.csv").read_text("utf-8").splitlines()) - 1
    assert runs > SHOWN and tasks > SHOWN and judgments > SHOWN

    table = _table(page, "runs-table")
    assert table.count("<tr>") == 1 + SHOWN
    assert (
        f"Showing the first {SHOWN} of {runs:,} rows: every one is in "
        '<a href="results/verdicts.jsonl">results/verdicts.jsonl</a>.'
    ) in table
    table = _table(page, "judgments-table")
    assert table.count("<tr>") == 1 + SHOWN
    assert f"of {judgments:,} rows: every one is in " in table
    assert '<a href="results/judgments.csv">' in table
    # The protocol section: the first tasks' texts, and where every task's are.
    assert len(re.findall(r'<h4 id="task-', page)) == SHOWN
    assert (
        f"Showing the first {SHOWN} of {tasks:,} tasks: every task's texts are in "
        '<a href="protocol/tasks.json">protocol/tasks.json</a>.'
    ) in page
    # A table no longer than the limit is whole, with no such line.
    assert "Showing the first" not in _table(page, "summary-conditions")

    # Verify re-derives the page with the same limit: the bundle is whole and unchanged.
    assert verify(folder).derived > 0  # refused otherwise
    assert verify(bundle.zip_path).derived > 0


def test_a_study_under_the_limit_is_shown_whole(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = afp_judged(db)
    bundle = export_bundle(db, pk, tmp_path / "bundle")
    page = (bundle.folder / "report.html").read_text("utf-8")
    runs = len((bundle.folder / "results" / "verdicts.jsonl").read_text("utf-8").splitlines())
    assert report.REPORT_ROWS >= 5_000
    assert _table(page, "runs-table").count("<tr>") == 1 + runs
    assert "Showing the first" not in page
