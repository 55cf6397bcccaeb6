"""The bundle's report.html rendered by a real headless browser (Chromium).

Skipped, with the reason, where no Chromium is installed (CI installs one).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.services.publishing import export_bundle
from tests.factories import HOSTILE, afp_judged, judge_all, native_study

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _chromium() -> str:
    env = os.environ.get("ABP_TUI_CHROMIUM")
    candidates = [env] if env else []
    candidates += ["/usr/bin/chromium", *(shutil.which(n) or "" for n in CHROMIUM_NAMES)]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip(
        "no Chromium found (looked for /usr/bin/chromium and chromium, chromium-browser, "
        "google-chrome on PATH; set ABP_TUI_CHROMIUM to a browser binary)"
    )


def _browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        *args,
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


class _Dom(HTMLParser):
    """Element ids, tags and text of the DOM the browser serialised."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}
        self.tags: list[str] = []
        self.rows: dict[str, int] = {}
        self.text: list[str] = []
        self._table: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        attributes = dict(attrs)
        ident = attributes.get("id")
        if ident:
            self.ids[ident] = tag
        if tag == "table":
            self._table.append(ident or "")
        if tag == "tr" and self._table:
            self.rows[self._table[-1]] = self.rows.get(self._table[-1], 0) + 1
        if tag == "g" and "row" in (attributes.get("class") or "").split():
            self.rows["svg-rows"] = self.rows.get("svg-rows", 0) + 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._table:
            self._table.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _dump(tmp_path: Path, report: Path) -> _Dom:
    result = _browser(tmp_path, "--dump-dom", report.as_uri())
    dom = _Dom()
    dom.feed(result.stdout)
    return dom


def test_report_renders_its_tables_and_plots(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = afp_judged(db)
    bundle = export_bundle(db, pk, tmp_path / "bundle")
    dom = _dump(tmp_path, bundle.folder / "report.html")
    for table in (
        "summary-conditions",
        "summary-tasks",
        "comparisons-table",
        "efficiency",
        "position-bias",
        "agreement-table",
        "disagreements",
        "excluded-runs",
        "findings-table",
        "gate-checks",
        "rubric",
        "runs-table",
        "judgments-table",
        "audit-log",
    ):
        assert dom.ids.get(table) == "table", table
    # Header row plus one row per condition / per run.
    assert dom.rows["summary-conditions"] == 1 + 4
    assert dom.rows["runs-table"] == 1 + 56
    assert dom.rows["excluded-runs"] == 1 + 2
    assert dom.ids.get("plot-pass-rate-condition") == "svg"
    assert dom.ids.get("plot-pass-rate-task") == "svg"
    assert dom.rows["svg-rows"] == 4 + 32
    text = " ".join(dom.text)
    assert "Protocol published / results pending" in text
    assert "P06 under C: 2 of 3 usable runs" in text
    assert "SYNTHETIC DATA" in text
    assert "script" not in dom.tags

    shot = tmp_path / "report.png"
    _browser(
        tmp_path,
        f"--screenshot={shot}",
        "--window-size=1280,2000",
        bundle.folder.joinpath("report.html").as_uri(),
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 10_000


def test_hostile_text_stays_text_in_the_browser(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = native_study(tmp_path, db, prompt=HOSTILE, label=HOSTILE, output=HOSTILE)
    judge_all(db, pk, justification=HOSTILE)
    bundle = export_bundle(db, pk, tmp_path / "bundle")
    report = bundle.folder / "report.html"
    dom = _dump(tmp_path, report)
    # No element came from a record: no script ran (the title is the report's), no image.
    assert "script" not in dom.tags and "img" not in dom.tags
    title = _browser(tmp_path, "--dump-dom", report.as_uri()).stdout
    match = re.search(r"<title>(.*?)</title>", title, re.S)
    assert match is not None and "pwned" not in match.group(1)
    assert HOSTILE in " ".join(dom.text)
