"""How the workstation looks: one SVG snapshot per screen state a user meets.

Each test builds its database in ``tmp_path`` from the studies the behaviour tests use
(``tests/tui_helpers.py``), runs the real app (``make_app``) to the state named by the test, and
compares the screen with ``tests/__snapshots__/test_tui_snapshots/<test>.svg``
(``pytest --snapshot-update`` rewrites them; look at the SVG before accepting it). What could
move between runs is fixed: the seeds are the designs', the database path is relative (the
working directory is ``tmp_path``), the times shown come from the database and are set here,
text cursors do not blink, and every state is reached by waiting for its condition.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from abp_tui.models import PreferenceChoice
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.screens.agreement import AgreementScreen
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from abp_tui.tui.screens.help import HelpScreen
from abp_tui.tui.screens.queue import QueueScreen
from abp_tui.tui.screens.results import ResultsScreen
from abp_tui.tui.widgets.response import ResponseView
from tests.factories import full_judgment
from tests.snapshot_helpers import (
    SnapCompare,
    coordinating_app,
    judging_app,
    judging_db,
    opened,
)
from tests.tui_helpers import (
    STUDY,
    admin_database,
    compare_screen,
    home_study,
    press,
    settle,
    steady,
    studies_database,
    until,
)

JUDGING = (160, 45)
"""The compare screen's terminal (its two panes and the scoring panel side by side)."""
COORDINATING = (160, 45)
LISTING = (120, 30)


# -- home -----------------------------------------------------------------------------------------
def test_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare) -> None:
    """The list of studies, the highlighted one's conditions, tasks and synthetic banner."""
    monkeypatch.chdir(tmp_path)
    studies_database(tmp_path, home_study())
    app = make_app(Path("home.db"), reviewer="snapshot")

    def tasks_listed() -> int:
        # The home screen is built once the reviewer is found to have nothing to judge.
        return sum(t.row_count for t in app.screen.query("#tasks").results(DataTable))

    async def ready(pilot: Pilot[Any]) -> None:
        await until(pilot, tasks_listed)
        await settle(pilot)

    assert snap_compare(app, terminal_size=(120, 40), run_before=ready)


# -- judging -------------------------------------------------------------------------------------
def test_compare_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """A pair item nobody has judged: task, both responses with their diff, the empty form."""

    async def ready(pilot: Pilot[Any]) -> None:
        await compare_screen(pilot)
        steady(pilot)

    app = judging_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=JUDGING, run_before=ready)


def test_compare_partly_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """The gate answered and two dimensions scored: a draft saved, what is left counted."""

    async def scored(pilot: Pilot[Any]) -> None:
        screen = await compare_screen(pilot)
        # One key at a time, each stored before the next: the draft's revision is always 3.
        for key in ("Y", "2", "2"):
            await press(pilot, key)
        await until(pilot, lambda: screen.drafts.revision == 3, "the third draft")
        steady(pilot)

    app = judging_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=JUDGING, run_before=scored)


def test_compare_submitted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """An item submitted earlier: its judgment shown, "submitted", changes need a reason."""
    monkeypatch.chdir(tmp_path)
    db_path = judging_db(tmp_path)
    db = connect(db_path)
    try:
        design_pk = db.execute("SELECT pk FROM designs").fetchone()[0]
        session = ReviewSession(db, design_pk, "ana")
        code = session.queue()[0].code
        judgment = full_judgment(2, PreferenceChoice.RESPONSE_1)
        session.save(code, judgment, 42.0, submit=True)
    finally:
        db.close()
    app = make_app(Path("snap.db"), reviewer="ana")

    async def submitted(pilot: Pilot[Any]) -> None:
        screen = await compare_screen(pilot)
        if screen.item is not None and screen.item.code != code:
            await press(pilot, "left_square_bracket")
        await until(pilot, lambda: screen.drafts.status == "submitted", "the submitted item")
        steady(pilot)

    assert snap_compare(app, terminal_size=JUDGING, run_before=submitted)


def test_compare_trace_tab(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """Both responses switched to their traces (r)."""

    async def traces(pilot: Pilot[Any]) -> None:
        screen = await compare_screen(pilot)
        if screen.item is not None and "T2" not in screen.item.task.prompt:
            await press(pilot, "right_square_bracket")
            await until(pilot, lambda: screen.item is not None and "T2" in screen.item.task.prompt)
        await press(pilot, "r")
        await until(
            pilot, lambda: all(v.showing_trace for v in screen.query(ResponseView)), "the traces"
        )
        steady(pilot)

    app = judging_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=JUDGING, run_before=traces)


def test_queue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare) -> None:
    """The reviewer's items with their status (one in draft)."""

    async def queue(pilot: Pilot[Any]) -> None:
        screen = await compare_screen(pilot)
        await press(pilot, "y")
        await until(pilot, lambda: screen.drafts.status == "draft", "the draft")
        await press(pilot, "l")
        await until(pilot, lambda: isinstance(pilot.app.screen, QueueScreen), "the queue")
        await until(pilot, lambda: pilot.app.screen.query_one(DataTable).row_count == 2)

    app = judging_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=LISTING, run_before=queue)


def test_help(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare) -> None:
    """Every key of the compare screen and what it does (?)."""

    async def keys(pilot: Pilot[Any]) -> None:
        await compare_screen(pilot)
        await press(pilot, "question_mark")
        await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")

    app = judging_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=JUDGING, run_before=keys)


# -- the coordinator's screens ---------------------------------------------------------------------
def test_disagreements(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """The disputed item, why the two reviewers disagree, and the verdict sources."""

    async def listed(pilot: Pilot[Any]) -> None:
        await opened(pilot, "disagreements", DisagreementsScreen)
        await until(pilot, lambda: pilot.app.screen.query_one(DataTable).row_count == 1)

    app = coordinating_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=COORDINATING, run_before=listed)


def test_adjudication(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """The disputed item swapped, each reviewer's judgment side by side, names hidden, and the
    empty final judgment."""

    async def adjudicating(pilot: Pilot[Any]) -> None:
        await opened(pilot, "disagreements", DisagreementsScreen)
        await press(pilot, "enter")
        await until(
            pilot,
            lambda: (
                isinstance(shown := pilot.app.screen, AdjudicationScreen) and shown.item is not None
            ),
            "the item to adjudicate",
        )
        await settle(pilot)
        steady(pilot)

    app = coordinating_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=COORDINATING, run_before=adjudicating)


def test_agreement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """Every variable's figures with denominators; the first one's pairs and heat map."""

    async def computed(pilot: Pilot[Any]) -> None:
        await opened(pilot, "agreement", AgreementScreen)
        await until(pilot, lambda: getattr(pilot.app.screen, "shown", None) is not None)
        # The reliability section comes after the figures, from the same worker.
        section = pilot.app.screen.query_one("#reliability", Static)
        await until(pilot, lambda: "Computing" not in str(section.render()), "the reliability")
        pilot.app.screen.query_one("#variables", DataTable).move_cursor(row=0)
        await settle(pilot)

    app = coordinating_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=COORDINATING, run_before=computed)


def test_results_blind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """Before the unblinding: no figure, what unblinding means, and how to do it (u)."""

    async def blind(pilot: Pilot[Any]) -> None:
        await opened(pilot, "results", ResultsScreen)
        await until(pilot, lambda: getattr(pilot.app.screen, "shown", None) is not None)

    app = coordinating_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=COORDINATING, run_before=blind)


def test_results_unblinded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: SnapCompare
) -> None:
    """After the audited unblinding: pass rates with intervals, states, paired tests."""
    monkeypatch.chdir(tmp_path)
    admin_database(tmp_path)
    db = connect(Path("admin.db"))
    try:
        unblind(db, STUDY, "carol")
        # The audit time is the one moving part of the page: fix it.
        db.execute("UPDATE audit_log SET at = '2026-01-02T03:04:05Z'")
    finally:
        db.close()
    app = make_app(Path("admin.db"), reviewer="carol")

    async def unblinded(pilot: Pilot[Any]) -> None:
        await opened(pilot, "results", ResultsScreen)
        await until(pilot, lambda: getattr(pilot.app.screen, "shown", None) is not None)

    assert snap_compare(app, terminal_size=COORDINATING, run_before=unblinded)
