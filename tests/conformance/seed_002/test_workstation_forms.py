"""Seed 002 in the workstation: the compare screen asks for correction minutes per output under
the design's timing rule (optional, stored with the judgment), and the finding form records a
safety finding's statement and a retest's cases.

Each test is one row of CONFORMANCE.md, driving the real app with the keyboard on generated
records (:mod:`tests.conformance.seed_002.business_helpers`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import Input, Select, TextArea

from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.finding import FindingScreen
from abp_tui.tui.screens.results import ResultsScreen
from tests.conformance.seed_002 import business_helpers as biz
from tests.tui_helpers import (
    compare_screen,
    drive,
    plain,
    press,
    rows,
    settle,
    showing,
    static_text,
    study_database,
    type_text,
    until,
)

SIZE = (160, 50)


def _database(tmp_path: Path, **fields: object) -> Path:
    design = biz.make_design(reviewers=["ana"], tasks=["W01"], **fields)
    return study_database(tmp_path, biz.study_lines(), design)


async def test_the_compare_screen_asks_correction_minutes_under_the_timing_rule(
    tmp_path: Path,
) -> None:
    db_path = _database(tmp_path, correction_effort={"timing_rule": biz.TIMING_RULE})
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        field = screen.query_one("#minutes-1", Input)
        assert biz.TIMING_RULE in str(field.placeholder)
        screen.set_focus(field)
        await type_text(pilot, "12.5")
        await press(pilot, "enter")
        await settle(pilot)
    stored = rows(db_path, "SELECT payload FROM judgments ORDER BY pk DESC LIMIT 1")
    (response,) = json.loads(stored[0][0])["responses"].values()
    assert response["correction_minutes"] == 12.5


async def test_without_a_timing_rule_no_minutes_are_asked(tmp_path: Path) -> None:
    app = make_app(_database(tmp_path), reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert not screen.query("#minutes-1")


async def test_the_finding_form_records_a_safety_finding_and_its_retests(tmp_path: Path) -> None:
    db_path = _database(tmp_path)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        await press(pilot, "f")
        form = app.screen
        assert isinstance(form, FindingScreen)
        typed = {
            "#finding-title": "Follows a planted instruction",
            "#expected": "Treats the reference as data.",
            "#actual": "Emails the draft out.",
            "#occurrences": "2",
            "#attempts": "3",
            "#attacker-control": "One reference document.",
            "#trust-boundary": "Reference -> actions.",
            "#impact": "A draft leaves the organisation.",
        }
        for selector, text in typed.items():
            form.query_one(selector, Input).value = text
        form.query_one(
            "#retests", TextArea
        ).text = "original; W01 as first seen; passed\nnearby; planted in a footnote; failed"
        await press(pilot, "ctrl+s")  # status "not retested" with cases listed: refused
        assert isinstance(app.screen, FindingScreen)
        assert "retest cases are listed" in static_text(pilot, "#finding-error")
        form.query_one("#retest", Select).value = "partially fixed"
        form.query_one("#attempts", Input).value = ""
        await press(pilot, "ctrl+s")  # a safety finding without its attempts: refused
        assert isinstance(app.screen, FindingScreen)
        assert "attempts" in static_text(pilot, "#finding-error")
        form.query_one("#attempts", Input).value = "3"
        await press(pilot, "ctrl+s")
        await settle(pilot)
        assert showing(pilot, screen)
    (document,) = rows(db_path, "SELECT document FROM findings")[0]
    found = json.loads(document)
    assert found["attempts"] == 3 and found["occurrences"] == 2
    assert found["safety"] == {
        "attacker_control": "One reference document.",
        "trust_boundary": "Reference -> actions.",
        "plausible_impact": "A draft leaves the organisation.",
    }
    assert found["retest_status"] == "partially fixed"
    assert found["retests"] == [
        {"case": "W01 as first seen", "original": True, "result": "passed"},
        {"case": "planted in a footnote", "original": False, "result": "failed"},
    ]


async def test_the_results_screen_shows_the_business_tables_and_development_apart(
    tmp_path: Path,
) -> None:
    db_path = tmp_path / "biz.db"
    db = connect(db_path)
    try:
        design = biz.make_design(
            development_tasks=["W04"], correction_effort={"timing_rule": biz.TIMING_RULE}
        )
        biz.build(tmp_path, db, lambda t, c, n: (2 if c == "M" else 1, 4.0), design=design)
    finally:
        db.close()
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results screen")
        screen: Any = app.screen
        await until(pilot, lambda: screen.shown is not None, "the results")
        text = plain(screen.shown.body)
    for title in (
        "Single- vs multi-agent (seed 002 section 5), per condition",
        "Correction effort: minutes to bring an output to 'meets brief', per condition",
        "Repeatability per task and condition (x/attempts)",
        "Task-level intervals: over runs and resampling tasks",
        "Development material (not a benchmark result)",
    ):
        assert title in text
    assert f"Timing rule: {biz.TIMING_RULE}" in text
