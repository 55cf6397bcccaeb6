"""The automated judge on the compare screen (only after submission) and results without a design
on the results screen (issue 13), driven as a reviewer and a coordinator would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from abp_tui.services.desk import AutomatedOutcome, Desk
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.results import ResultsScreen
from abp_tui.tui.widgets.automated_judge import AutomatedJudgePanel
from tests.factories import FIXTURES
from tests.tui_helpers import (
    compare_screen,
    drive,
    plain,
    press,
    scored_pair_database,
    screen_text,
    settle,
    type_text,
    until,
)

SIZE = (160, 50)


async def test_the_automated_judge_shows_only_after_submission(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path, _pk = scored_pair_database(tmp_path)
    asked: list[tuple[str, bool]] = []
    real = Desk.automated

    def recorded(desk: Desk, code: str) -> tuple[AutomatedOutcome, ...] | None:
        found = real(desk, code)
        asked.append((code, found is not None))
        return found

    monkeypatch.setattr(Desk, "automated", recorded)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        code = screen.item.code
        panel = screen.query_one(AutomatedJudgePanel)
        assert not panel.has_class("-shown") and panel.code is None
        assert "Automated judge" not in screen_text(pilot)
        assert asked == []  # never asked for an item the reviewer has not submitted

        await press(pilot, *"yyyyy", "2", "2", "2", "2", "tab", "tab")
        await press(pilot, "2", "2", "2", "2", "tab", "tab", "1")
        await type_text(pilot, "Response 1 keeps to the memo")
        await press(pilot, "enter")
        assert "ready to submit" in plain(screen.query_one("#item-bar", Static).content)
        await press(pilot, "s")
        await until(pilot, lambda: any(n.title == "Automated judge" for n in app._notifications),
                    "the automated judge's notice")  # fmt: skip
        notice = next(n.message for n in app._notifications if n.title == "Automated judge")
        assert f"Automated judge on {code}:" in notice
        assert "Response 1 " in notice and "Response 2 " in notice
        assert "failed: oracle" in notice  # the A run (its condition is never named)
        # The screen moved on to the next item: nothing of the judge is shown for it.
        assert screen.item is not None and screen.item.code != code
        assert not screen.query_one(AutomatedJudgePanel).has_class("-shown")

        await press(pilot, "[")  # back to the submitted item: its outcome is shown
        await until(pilot, lambda: panel.code == code, "the judge's panel")
        await settle(pilot)
        assert panel.has_class("-shown")
        shown = plain(panel.content)
        assert "Automated judge" in shown and "shown after your submission" in shown
        assert "Response 1: " in shown and "Response 2: " in shown
        assert "unscored" in shown and "code_correctness" in shown
        assert "«masked»" in shown and "Workflow" not in shown and "Model only" not in shown
        assert "\x1b" not in shown and "␛[31m" in shown  # the escape made visible, inert
    # Every call was for a submitted item (none while reading ahead, none before submission).
    assert asked and all(revealed for _code, revealed in asked)
    assert {c for c, _r in asked} == {code}


async def test_the_results_screen_shows_automated_outcomes_without_a_design(
    tmp_path: Path,
) -> None:
    db_path = tmp_path / "arena.db"
    db = connect(db_path)
    try:
        import_paths(db, [FIXTURES / "ci-gate" / "baseline.results.json"])
        unblind(db, "run-baseline", "coordinator")
    finally:
        db.close()
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results screen")
        screen: Any = app.screen
        await until(pilot, lambda: screen.shown is not None, "the results")
        await settle(pilot)
        text = screen_text(pilot)
        assert "automated outcomes alone (no study design)" in text
        assert "14/20 = 0.700" in text and "18/20 = 0.900" in text
        assert "Exact McNemar" in text and "p = 0.2891" in text
        assert "Position bias" not in text
        # Nobody can judge a study without a design: no compare screen was opened.
        assert not any(isinstance(s, CompareScreen) for s in app.screen_stack)
