"""Results after unblinding are held back from a reviewer with items still to submit.

The hole: once a study was unblinded, a reviewer who had not finished judging could open the
results (every face: the service, ``abp-tui results``, the workstation's results screen) and see
the study's final verdicts summarized by condition, other reviewers' judgments of the very items
they still had to judge among them. The ranking beside them already refused such a viewer; the
results now do too, in one line saying how many items they still have to submit and in which
design, and record no look. Whoever holds no pending item (the coordinator, a reviewer who has
submitted everything) sees them as before.
"""

from __future__ import annotations

import getpass
import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services.coordinator import read_results
from abp_tui.services.designing import create_design
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store.coordinator_views import views_by
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.results import ResultsScreen
from abp_tui.tui.widgets.ranking_chart import RankingPanel
from tests.factories import Cli, afp_judgment, two_reviewer_design
from tests.tui_helpers import drive, press, screen_text, settle, static_text, until

B_PENDING = (
    "b has 1 item of study s not submitted yet (in design m v1): the results count the other "
    "reviewers' judgments of it, so they are held back from b until they submit their own"
)


def _b_half_done(tmp_path: Path, db: sqlite_utils.Database) -> int:
    """Design m (reviewers a and b on both items): a has submitted both, b one; unblinded."""
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    for code in codes:
        a.save(code, afp_judgment(2, 1, PreferenceChoice.RESPONSE_1), 5, submit=True)
    b.save(codes[0], afp_judgment(1, 2, PreferenceChoice.RESPONSE_2), 5, submit=True)
    unblind(db, "s", "coordinator")
    return pk


def test_the_service_holds_the_results_back_and_records_nothing(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _b_half_done(tmp_path, db)
    db_path = tmp_path / "test.db"
    held = read_results(db_path, pk, "b")
    assert held.report is None and held.held_back
    assert held.blind_reason == B_PENDING
    assert views_by(db, "s", "b") == []
    # a has submitted every item, carol holds none, the coordinator's export names nobody:
    # each sees the results, both runs of each condition counted.
    for viewer in ("a", "carol", None):
        shown = read_results(db_path, pk, viewer)
        assert shown.report is not None and not shown.held_back, viewer
        assert {g.condition: g.pass_rate.n for g in shown.report.conditions} == {"A": 2, "C": 2}


def test_pending_items_of_another_design_of_the_study_hold_them_back_too(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # The study, not the design, is the unit: its designs judge the same runs.
    pk = _b_half_done(tmp_path, db)
    create_design(
        db,
        StudyDesign(study="s", name="x", seed=5, contrasts=[("C", "A")], reviewers=["b"]),
    )
    assert len(ReviewSession(db, pk, "b").queue()) == 2
    held = read_results(tmp_path / "test.db", pk, "b")
    assert held.blind_reason.startswith(
        "b has 3 items of study s not submitted yet (1 in design m v1, 2 in design x v1): the "
        "results count the other reviewers' judgments of them, so they are held back from b"
    )


def test_a_blind_study_still_says_it_is_blind(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk, _a, _b, _codes = two_reviewer_design(tmp_path, db)
    view = read_results(tmp_path / "test.db", pk, "b")
    # b still judges: blind, and nothing for b to unblind (the screen offers no u).
    assert view.blind and view.held_back
    assert view.blind_reason.startswith("Study s is still blind, and b has 2 items of study s")
    coordinator = read_results(tmp_path / "test.db", pk, "lead")
    assert coordinator.blind and not coordinator.held_back
    assert "is still blind" in coordinator.blind_reason


def test_the_results_command_refuses_in_one_line(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    _b_half_done(tmp_path, db)
    target = tmp_path / "test.db"
    monkeypatch.setattr(getpass, "getuser", lambda: "b")
    refused = cli("results", "--db", target, "--json")
    assert (refused.code, refused.out) == (1, "")
    assert refused.err == f"abp-tui: {B_PENDING}\n"
    assert views_by(db, "s", "b") == []
    monkeypatch.setattr(getpass, "getuser", lambda: "a")
    shown = cli("results", "--db", target, "--json")
    assert shown.code == 0, shown.err
    assert json.loads(shown.out)["study"] == "s"


async def test_the_results_screen_shows_the_reason_instead_of_the_figures(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _b_half_done(tmp_path, db)
    app = make_app(tmp_path / "test.db", reviewer="b")
    async with drive(app, (150, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        panel = screen.query_one(RankingPanel)
        await until(pilot, lambda: panel.view is not None, "the ranking")
        await settle(pilot)
        assert screen.shown is not None and screen.shown.view.held_back
        text = screen_text(pilot)
        assert "The results are not shown." in text
        assert "b has 1 item of study s not submitted yet (in design m v1)" in text
        assert static_text(pilot, "#results-body") == ""
        # The study is unblinded already: nothing to unblind, and the ranking below says why
        # it is held back too.
        assert not screen.check_action("unblind", ())
        assert panel.view is not None and panel.view.report is None
        assert "held back from b until they submit" in text
