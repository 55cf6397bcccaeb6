"""The finished demo study's publication report is held back by its one open disagreement
alone: everything else the gate asks for is there, so a newcomer sees what adjudicating it
would publish."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from abp_tui.services.demo import load_demo
from abp_tui.services.designing import find_design
from abp_tui.services.publishing import export_bundle
from tests.factories import FIXTURES


def test_only_the_open_disagreement_holds_back_the_finished_demo(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    load_demo(db, FIXTURES / "demo")
    design = find_design(db, "business-memo-demo")
    result = export_bundle(db, design.pk, tmp_path / "memo")
    assert result.status == "protocol published / results pending"
    assert result.missing == [
        "every disagreement adjudicated: 1 disagreement not adjudicated: P-4RZMBA"
    ]
    html = (tmp_path / "memo" / "report.html").read_text("utf-8")
    assert "Results pending" in html and "P-4RZMBA" in html
