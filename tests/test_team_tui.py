"""The workstation in a team session: a reviewer's keys reach the core's role checks, which
refuse unblinding and adjudication whatever the screens offer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from abp_tui.services import roles
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.screens.designs import open_review_screen
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.results import ResultsScreen, UnblindScreen
from tests.factories import FIXTURES
from tests.tui_helpers import (
    STUDY,
    admin_database,
    drive,
    press,
    rows,
    settle,
    static_text,
    until,
)

SIZE = (160, 45)


async def _open(pilot: Pilot[Any], purpose: str) -> None:
    app: Any = pilot.app
    await settle(pilot)
    open_review_screen(app, app.db_path, app.reviewer, purpose)
    await settle(pilot)


async def test_a_team_reviewer_cannot_unblind_from_the_results_screen(tmp_path: Path) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    with roles.session("dee", "reviewer"):
        app = make_app(db_path, reviewer="dee")
        async with drive(app, SIZE) as pilot:
            assert app.sub_title == "reviewer: dee (reviewer of the team)"
            await _open(pilot, "results")
            screen = app.screen
            assert isinstance(screen, ResultsScreen)
            await until(pilot, lambda: screen.shown is not None, "the results read")
            # Refused before any key, as the core refuses it: `u` is neither offered nor acts.
            said = static_text(pilot, "#blind")
            assert "dee is a reviewer of this team: they cannot unblind" in said
            assert "Press u" not in said
            await press(pilot, "u")
            assert app.screen is screen and not isinstance(app.screen, UnblindScreen)
            # The core refuses it all the same, whatever face asks.
            with pytest.raises(roles.RoleRefused, match="cannot unblind"):
                unblind(connect(db_path), STUDY, "dee")
    assert rows(db_path, "SELECT COUNT(*) FROM audit_log WHERE action = 'unblind'") == [(0,)]


async def test_a_team_reviewer_sees_every_disagreement_refused_for_adjudication(
    tmp_path: Path,
) -> None:
    db_path, _pk, codes = admin_database(tmp_path)
    with roles.session("dee", "reviewer"):
        app = make_app(db_path, reviewer="dee")
        async with drive(app, SIZE) as pilot:
            await _open(pilot, "disagreements")
            screen = app.screen
            assert isinstance(screen, DisagreementsScreen) and screen.queue is not None
            (row,) = screen.queue.rows
            assert row.code == codes[0]
            assert "dee is a reviewer of this team: they cannot adjudicate" in row.refused
            await press(pilot, "enter")
            adjudicating = app.screen
            assert isinstance(adjudicating, AdjudicationScreen)
            await until(pilot, lambda: adjudicating.refused_reason, "the item refused")
            assert "dee is a reviewer of this team: they cannot adjudicate" in str(
                adjudicating.refused_reason
            )
            assert adjudicating.item is None  # nothing of the judgments shown
            assert app.failures == []
    assert rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(0,)]


async def test_a_team_reviewer_imports_nothing_and_opens_no_design_form(tmp_path: Path) -> None:
    """On a team's server, `i` read files of the server into the team's database, for anyone:
    importing and designing are a coordinator's, refused at the key (and in the core)."""
    db_path, _pk, _codes = admin_database(tmp_path)
    runs = rows(db_path, "SELECT COUNT(*) FROM runs")
    with roles.session("dee", "adjudicator"):
        app = make_app(db_path, reviewer="dee")
        async with drive(app, SIZE) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, HomeScreen)
            # Its key runs no other command, and importing is not theirs: no hint offers either
            # (it read "press i, or run abp-tui import PATH --db ...").
            hint = static_text(pilot, "#import-hint")
            assert "abp-tui" not in hint and "press i" not in hint
            await press(pilot, "i")
            assert isinstance(app.screen, HomeScreen)  # no import dialog
            await press(pilot, "n")
            await settle(pilot)
            assert isinstance(app.screen, HomeScreen)  # no design form
            said = [n.message for n in app._notifications]
            assert any(
                "dee is an adjudicator of this team: they cannot import run records" in m
                for m in said
            )
            assert any("they cannot create study designs" in m for m in said)
        with pytest.raises(roles.RoleRefused, match="cannot import run records"):
            import_paths(connect(db_path), [FIXTURES / "demo"])
    assert rows(db_path, "SELECT COUNT(*) FROM runs") == runs
    with roles.session("lead", "coordinator"):  # theirs to import, in the workstation alone
        app = make_app(db_path, reviewer="lead")
        async with drive(app, SIZE) as pilot:
            await settle(pilot)
            hint = static_text(pilot, "#import-hint")
            assert hint == "More run records: press i"
