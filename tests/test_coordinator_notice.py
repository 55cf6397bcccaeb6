"""Asked before it is too late (issue 15, coordinator identity in the workstation).

The trap: in the bundled demo, reviewer ``demo`` may still join abp-demo's open design; pressing
``k`` there used to record them, silently, as the study's coordinator, and their later ``j`` was
refused. Now a first look asks first (view as coordinator / go back, go back by default), only
"view as coordinator" records and shows, and a refused ``j`` leaves the reviewer where they were.
The service that decides when to ask is tested beside it (figures that show nothing ask nothing).
"""

from __future__ import annotations

from pathlib import Path

import sqlite_utils
from textual.widgets import DataTable

from abp_tui.models import StudyDesign
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.coordinator_notice import notice_for
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import create_design
from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from abp_tui.store.coordinator_views import views_by
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.agreement import AgreementScreen
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.coordinator_notice import CoordinatorNoticeScreen
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.join_design import JoinDesignScreen
from abp_tui.tui.screens.judges import JudgesScreen
from abp_tui.tui.screens.results import ResultsScreen
from tests.factories import (
    FIXTURES,
    build_db,
    judged_open_design,
    open_design,
    two_reviewer_design,
    write_jsonl,
)
from tests.tui_helpers import compare_screen, drive, press, settle, static_text, until

SIZE = (140, 44)
DEMO_NOTICE = (
    "Viewing the agreement of study abp-demo makes demo its coordinator: you will not be able "
    "to judge abp-demo's open designs as a reviewer"
)


def _demo(tmp_path: Path) -> Path:
    return build_db(tmp_path / "demo.db", lambda db: load_demo(db, FIXTURES / "demo"))


def _views(db_path: Path, study: str, viewer: str) -> list[str]:
    db = connect(db_path)
    try:
        return [v.figure for v in views_by(db, study, viewer)]
    finally:
        db.close()


def _enrolled(db_path: Path, viewer: str) -> int:
    db = connect(db_path)
    try:
        return int(
            db.execute("SELECT COUNT(*) FROM enrolments WHERE reviewer = ?", [viewer]).fetchone()[0]
        )
    finally:
        db.close()


async def _home_on(pilot: object, study: str) -> HomeScreen:
    """Leave the compare screen the demo opens on, and highlight ``study`` on the home screen."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await settle(pilot)
    if isinstance(pilot.app.screen, CompareScreen):
        await press(pilot, "h")
    home = pilot.app.screen
    assert isinstance(home, HomeScreen)
    table = home.query_one("#studies", DataTable)
    table.move_cursor(row=table.get_row_index(study))
    await settle(pilot)
    assert home.shown_study == study
    return home


def _notified(app: object, text: str) -> bool:
    return any(text in str(n.message) for n in app._notifications)  # type: ignore[attr-defined]


# -- the workstation ------------------------------------------------------------------------------
async def test_k_in_the_demo_asks_first_and_going_back_keeps_judging_open(
    tmp_path: Path,
) -> None:
    db_path = _demo(tmp_path)
    app = make_app(db_path, reviewer="demo")
    async with drive(app, SIZE) as pilot:
        await _home_on(pilot, "abp-demo")
        await press(pilot, "k")
        notice = app.screen
        assert isinstance(notice, CoordinatorNoticeScreen)
        assert DEMO_NOTICE in static_text(pilot, "#coordinator-notice-text")
        # The default is to go back: it has the focus, so Enter chooses it.
        assert app.focused is not None and app.focused.id == "go-back"
        await press(pilot, "enter")
        assert isinstance(app.screen, HomeScreen)
        # Escape goes back too.
        await press(pilot, "k")
        assert isinstance(app.screen, CoordinatorNoticeScreen)
        await press(pilot, "escape")
        assert isinstance(app.screen, HomeScreen)
        assert _views(db_path, "abp-demo", "demo") == []
        # demo can still judge abp-demo: Enter on the study asks, then opens its design and
        # enrols them.
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, JoinDesignScreen), "the question")
        await press(pilot, "y")
        screen = await compare_screen(pilot)
        assert screen.desk.reviewer == "demo"
    assert _enrolled(db_path, "demo") == 1
    assert _views(db_path, "abp-demo", "demo") == []


async def test_viewing_as_coordinator_records_shows_and_then_judging_is_refused_in_place(
    tmp_path: Path,
) -> None:
    db_path = _demo(tmp_path)
    app = make_app(db_path, reviewer="demo")
    async with drive(app, SIZE) as pilot:
        await _home_on(pilot, "abp-demo")
        await press(pilot, "k")
        assert isinstance(app.screen, CoordinatorNoticeScreen)
        await press(pilot, "c")
        await until(pilot, lambda: getattr(app.screen, "shown", None) is not None, "agreement")
        assert isinstance(app.screen, AgreementScreen)
        assert _views(db_path, "abp-demo", "demo") == ["agreement"]
        await press(pilot, "escape")
        # Already the coordinator: nothing more to ask.
        await press(pilot, "k")
        assert isinstance(app.screen, AgreementScreen)
        await press(pilot, "escape")
        home = app.screen
        assert isinstance(home, HomeScreen)
        # Judging abp-demo is refused before any screen opens: home stays, with the reason.
        await press(pilot, "enter")
        await until(pilot, lambda: _notified(app, "demo cannot enrol"), "the refusal")
        await settle(pilot)
        assert app.screen is home
        assert not any(isinstance(s, CompareScreen) for s in app.screen_stack)
    assert _enrolled(db_path, "demo") == 0


def _judged_study(tmp_path: Path, db: sqlite_utils.Database) -> int:
    """A study with an AI judge's verdicts on both its pairs and an open design."""
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "b"},
        {"type": "judge", "id": "j/v1", "model": "judge-model"},
    ]
    for t in ("t1", "t2"):
        lines.append({"type": "task", "id": t, "prompt": f"Answer {t}."})
        for c in ("A", "B"):
            lines.append(
                {"type": "run", "id": f"{t}-{c}", "task_id": t, "condition_id": c, "output": c}
            )
        lines.append(
            {
                "type": "judge_verdict",
                "judge": "j/v1",
                "task_id": t,
                "runs": [f"{t}-A", f"{t}-B"],
                "shown_first": f"{t}-A",
                "verdict": f"{t}-A",
            }
        )
    write_jsonl(tmp_path / "b.jsonl", lines)
    from abp_tui.services.importing import import_paths

    import_paths(db, [tmp_path / "b.jsonl"])
    return create_design(
        db, StudyDesign(study="b", name="open", seed=4, rubric="none", contrasts=[("A", "B")])
    ).pk


async def test_g_asks_before_the_judges_report(tmp_path: Path) -> None:
    db_path = build_db(tmp_path / "judged.db", lambda db: _judged_study(tmp_path, db))
    app = make_app(db_path, reviewer="ivy")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await press(pilot, "g")
        assert isinstance(app.screen, CoordinatorNoticeScreen)
        assert "Viewing the AI judges' report of study b makes ivy its coordinator" in (
            static_text(pilot, "#coordinator-notice-text")
        )
        await press(pilot, "b")
        assert isinstance(app.screen, HomeScreen)
        assert _views(db_path, "b", "ivy") == []
        await press(pilot, "g")
        await press(pilot, "c")
        screen = app.screen
        assert isinstance(screen, JudgesScreen)
        await until(pilot, lambda: bool(screen.lines), "the judge report")
    assert _views(db_path, "b", "ivy") == ["judges"]


async def test_results_of_a_blind_study_open_without_a_question(tmp_path: Path) -> None:
    # A blind study's results screen shows no figure and records nothing: nothing to ask.
    db_path = build_db(tmp_path / "blind.db", lambda db: open_design(tmp_path, db))
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        await settle(pilot)
        assert isinstance(app.screen, ResultsScreen)
    assert _views(db_path, "s", "carol") == []


# -- when to ask (the service) --------------------------------------------------------------------
def test_the_notice_is_asked_only_when_a_first_look_would_be_recorded(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, _codes = judged_open_design(tmp_path, db)
    expected = (
        "Viewing the disagreements of study s makes carol its coordinator: you will not be able "
        "to judge s's open designs as a reviewer (recorded, for good)."
    )
    assert notice_for(db, "carol", "disagreements", None, pk) == expected
    # alice is enrolled in the study's only open design: nothing changes for her.
    assert notice_for(db, "alice", "agreement", "s", pk) is None
    # Nobody named (the coordinator's own export): nothing to ask.
    assert notice_for(db, None, "agreement", "s", pk) is None
    # Results while the study is blind show nothing, so they ask nothing...
    assert notice_for(db, "carol", "results", "s", pk) is None
    # ...and no AI judge verdicts, no judges' report.
    assert notice_for(db, "carol", "judges", "s") is None
    unblind(db, "s", "coordinator")
    assert notice_for(db, "carol", "results", "s", pk) is not None
    # Once carol's look is recorded, asking again would change nothing.
    study_agreement(db, "s", pk, resamples=0, viewer="carol")
    assert notice_for(db, "carol", "results", "s", pk) is None


def test_no_notice_when_every_design_lists_its_reviewers(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, _a, _b, _codes = two_reviewer_design(tmp_path, db)
    assert notice_for(db, "carol", "agreement", "s", pk) is None
