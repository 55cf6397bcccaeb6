"""The Judges screen, driven like a user: from the home screen, `g` opens the AI judges of the
highlighted study and shows the figures ``abp-tui judges`` prints, as text."""

from __future__ import annotations

from pathlib import Path

from abp_tui.analysis.judge_summary import report_lines
from abp_tui.services.importing import import_paths
from abp_tui.services.judges import judge_report
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.judges import JudgesScreen
from tests.tui_helpers import drive, press, settle, static_text, until

SIZE = (120, 40)


async def test_judges_screen_shows_the_report_of_the_highlighted_study(
    reference: Path, tmp_path: Path
) -> None:
    db_path = tmp_path / "judges.db"
    db = connect(db_path)
    try:
        import_paths(db, [reference / "llmbar-manual"], study="llmbar")
        expected = report_lines(judge_report(db, "llmbar"))
    finally:
        db.close()
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await press(pilot, "g")
        screen = app.screen
        assert isinstance(screen, JudgesScreen)
        await until(pilot, lambda: bool(screen.lines), "the judge report")
        await settle(pilot)
        assert screen.lines == expected
        assert "llmbar" in static_text(pilot, "#judges-summary")
        body = static_text(pilot, "#judges-body")
        assert "GPT-4-Vanilla" in body and "position consistency" in body
        await press(pilot, "escape")
        assert isinstance(app.screen, HomeScreen)


async def test_judges_screen_says_why_there_is_no_report(tmp_path: Path) -> None:
    db_path = tmp_path / "empty.db"
    connect(db_path).close()
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "g")
        await settle(pilot)
        assert isinstance(app.screen, JudgesScreen)
        assert "No judge report" in static_text(pilot, "#judges-summary")
