"""Enter on a study on the home screen asks before it enrols the reviewer in the study's open
design: "No" (the default, Escape) records nothing; "Yes" opens the design and enrols them. A
design that names the reviewer, or that they joined, opens without a question."""

from __future__ import annotations

from pathlib import Path

from abp_tui.models.design import StudyDesign
from abp_tui.tui.app import AbpApp, make_app
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.join_design import JoinDesignScreen
from tests.tui_helpers import (
    drive,
    home_listed,
    pair_design,
    pair_study,
    press,
    rows,
    settle,
    study_database,
    until,
)

SIZE = (120, 40)


def _open_database(tmp_path: Path) -> Path:
    design = StudyDesign(study="pilot", name="open", seed=11, contrasts=[("C", "A")])
    return study_database(tmp_path, pair_study(), design)


def _studies_listed(app: AbpApp) -> bool:
    """The home screen shows, and its worker has listed the studies (Enter acts on a row)."""
    return home_listed(app) > 0


def _enrolled(db_path: Path) -> list[tuple[object, ...]]:
    return rows(db_path, "SELECT reviewer FROM enrolments") + rows(
        db_path, "SELECT reviewer FROM assignments"
    )


async def test_enter_on_a_study_asks_before_joining_its_open_design(tmp_path: Path) -> None:
    db_path = _open_database(tmp_path)
    app = make_app(db_path, reviewer="alice")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: _studies_listed(app), "the studies listed")
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, JoinDesignScreen), "the question")
        assert app.screen.focused is not None and app.screen.focused.id == "no"
        assert _enrolled(db_path) == []
        await press(pilot, "escape")  # No: nothing recorded, back home
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "back home")
        assert _enrolled(db_path) == []
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, JoinDesignScreen), "the question")
        await press(pilot, "enter")  # Enter presses the focused button: No
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "back home")
        assert _enrolled(db_path) == []
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, JoinDesignScreen), "the question")
        await press(pilot, "y")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), "the compare screen")
    assert ("alice",) in _enrolled(db_path)


async def test_a_design_naming_the_reviewer_opens_without_a_question(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design(["ana"]))
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        # At start-up her design opens; back home, Enter opens it again, unasked.
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), "her design")
        await settle(pilot)
        app.pop_screen()
        await until(pilot, lambda: _studies_listed(app), "the home screen")
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), "her design again")
