"""Seed 003 section 4: an ABP study is scored by its automated verification (resolution x/n with
its Wilson interval, the paired McNemar test, the efficiency order) and its engine errors are
excluded. Nobody judged such runs, so the results of automated outcomes alone (an ABP run folder
or an Arena results.json with no study design) show only what the study has: no AFP columns
(fatal failures, acceptance) that could only read 0/0, no empty rubric-dimension, position-bias,
agreement or judgment tables, in the CLI, the results screen and the bundle's report. The CSV
files keep every field, so their layout is the same for every study.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.analysis.tables import results_tables
from abp_tui.services.results_report import report_results
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.results import ResultsScreen
from tests.conformance.rules_helpers import ReportTables
from tests.conformance.seed_003.abp_runs import CONFORMANCE, copy_run
from tests.factories import Cli, afp_judged
from tests.tui_helpers import drive, press, screen_text, settle, until

JUDGED_HEADERS = ("Fatal", "Accepted", "Unresolved items")
"""What people's judgments of runs give; automated outcomes alone have none of it."""
SOURCES = ["engine-error", "arena-envelope"]


def _imported(tmp_path: Path, cli: Cli, source: str) -> str:
    if source == "arena-envelope":
        folder = tmp_path / source
        shutil.copytree(CONFORMANCE / source, folder)
        target = folder / "results.json"
    else:
        target = copy_run(CONFORMANCE / source, tmp_path / source)
    done = cli("import", target)
    assert done.code == 0, done.err
    assert cli("unblind", "--study", source, "--yes").code == 0
    return source


def _header(text: str, title: str) -> str:
    """The header line of the text table under ``title``."""
    lines = text.splitlines()
    return lines[lines.index(title) + 1]


@pytest.mark.parametrize("source", SOURCES)
def test_automated_cli_results_show_no_afp_columns(tmp_path: Path, cli: Cli, source: str) -> None:
    study = _imported(tmp_path, cli, source)
    done = cli("results", "--study", study)
    assert done.code == 0, done.err
    text = done.out
    for title in ("By condition: all six result states", "By task: all six result states"):
        header = _header(text, title)
        assert "Pass rate x/n [Wilson 95%]" in header and "INFRA" in header
        for judged in JUDGED_HEADERS:
            assert judged not in header, (title, judged)
    # No tally of nothing anywhere (a pass rate with no runs in its denominator says why).
    assert not re.search(r"(?<![\d/])0/0(?! undefined)", text)
    assert "Rubric dimensions" not in text and "Position bias" not in text
    assert "Preferences" not in text and "reviewers disagree" not in text
    # What the study has: resolution, the paired test, the efficiency order, exclusions.
    assert "Exact McNemar" in text and "Head-to-head efficiency" in text
    assert "Left out of the pairing" in text and "Efficiency by engine" in text


@pytest.mark.parametrize("source", SOURCES)
def test_automated_report_shows_only_what_the_study_has(
    tmp_path: Path, cli: Cli, source: str
) -> None:
    study = _imported(tmp_path, cli, source)
    bundle = tmp_path / "bundle"
    assert cli("export", "bundle", "--study", study, "--out", bundle).code == 0
    page = (bundle / "report.html").read_text(encoding="utf-8")
    parsed = ReportTables()
    parsed.feed(page)
    tables = parsed.tables
    for table_id in ("summary-conditions", "summary-tasks"):
        header, rows = tables[table_id]
        assert rows and "Pass rate x/n [Wilson 95%]" in header
        assert not set(JUDGED_HEADERS) & set(header), (table_id, header)
        assert not any(cell == "0/0" for row in rows for cell in row), (table_id, rows)
    for empty in (
        "summary-dimensions",
        "position-bias",
        "agreement-table",
        "disagreements",
        "judgments-table",
        "rubric",
    ):
        assert empty not in tables, empty
    assert "<h3>Rubric dimensions</h3>" not in page and "<h3>Position bias</h3>" not in page
    assert 'id="fatal-criteria"' not in page
    assert 'id="no-reviewers"' in page and 'id="no-judgments"' in page
    for shown in ("comparisons-table", "head-to-head", "engine-efficiency", "excluded-runs"):
        assert tables[shown][1], shown
    # The machine-readable file keeps its fields (the same layout for every study).
    conditions = list(
        csv.DictReader(io.StringIO((bundle / "results" / "conditions.csv").read_text("utf-8")))
    )
    assert {"fatal_x", "fatal_n", "acceptance_x", "acceptance_n"} <= set(conditions[0])
    assert cli("verify", bundle).code == 0


async def test_automated_results_screen_shows_no_afp_columns(tmp_path: Path, cli: Cli) -> None:
    _imported(tmp_path, cli, "engine-error")
    app = make_app(cli.db_path, reviewer="carol")
    async with drive(app, (160, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results screen")
        screen: Any = app.screen
        await until(pilot, lambda: screen.shown is not None, "the results")
        await settle(pilot)
        text = screen_text(pilot)
    assert "1/2 = 0.500" in text and "3/3 = 1.000" in text
    for judged in (*JUDGED_HEADERS, "Rubric dimensions", "Position bias"):
        assert judged not in text, judged
    assert not re.search(r"(?<![\d/])0/0(?! undefined)", text)


def test_judged_results_keep_the_afp_columns(db: sqlite_utils.Database) -> None:
    """The control: where people judged the runs, fatal failures and acceptance are shown."""
    afp_judged(db)
    tables = results_tables(report_results(db, "afp-pilot-demo"))
    headers = [c.header for c in tables.conditions.shown]
    assert "Fatal" in headers and "Accepted" in headers
    assert tables.dimensions in tables.in_order and tables.position_bias in tables.in_order
