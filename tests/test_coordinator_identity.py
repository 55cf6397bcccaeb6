"""Who counts as the coordinator of an open design (issue 15, blinding).

The attack: on an open design (reviewers enrol when they first open it), carol, who holds no
item, opens the agreement view: she sees everyone's judgments summarized, as the coordinator
does. She then opens the design, is enrolled, and judges items whose other judgments she has
already seen. Now her look is recorded (append-only) before the figures reach her, and her
enrolment in any design of that study is refused with a clear message, on every face. A reviewer
already enrolled, with pending items, is held back exactly as before and keeps judging.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.coordinator import (
    disagreement_queue,
    open_adjudication,
    read_agreement,
    read_results,
)
from abp_tui.services.designing import create_design, find_design
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store.coordinator_views import views_by
from abp_tui.store.judging import BlindingError
from tests.factories import (
    Cli,
    afp_judgment,
    build_db,
    judged_open_design,
    llmbar_open_design,
    two_reviewer_design,
)


def _count(db: sqlite_utils.Database) -> int:
    return int(db.execute("SELECT COUNT(*) FROM coordinator_views").fetchone()[0])


def test_viewing_the_agreement_then_enrolling_is_refused(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, _codes = judged_open_design(tmp_path, db)
    report = study_agreement(db, "s", pk, resamples=0, viewer="carol")
    # carol holds no item: the coordinator's view, every item counted...
    assert report.items_held_back == 0
    # ...and her look is on record before she saw it.
    (seen,) = views_by(db, "s", "carol")
    assert (seen.design_pk, seen.figure) == (pk, "agreement")
    with pytest.raises(BlindingError) as refused:
        ReviewSession(db, pk, "carol")
    message = str(refused.value)
    assert "carol cannot enrol as a reviewer of design open" in message
    assert "coordinator's figures of study s (agreement; first on" in message
    # Nothing was half-written: no enrolment, no assignment.
    assert db.execute("SELECT COUNT(*) FROM enrolments WHERE reviewer = 'carol'").fetchone() == (0,)
    assert db.execute("SELECT COUNT(*) FROM assignments WHERE reviewer = 'carol'").fetchone() == (
        0,
    )


def test_another_open_design_of_the_same_study_is_refused_too(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # The study's designs judge the same runs: seeing one design's figures is seeing them.
    pk, _codes = judged_open_design(tmp_path, db)
    other = create_design(
        db, StudyDesign(study="s", name="second", seed=4, contrasts=[("C", "A")])
    ).pk
    study_agreement(db, "s", pk, resamples=0, viewer="carol")
    with pytest.raises(BlindingError, match="carol cannot enrol as a reviewer of design second"):
        ReviewSession(db, other, "carol")


def test_an_enrolled_reviewer_with_pending_items_is_held_back_and_keeps_judging(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, codes = judged_open_design(tmp_path, db)
    ReviewSession(db, pk, "bob")  # enrolled first, judging nothing yet
    report = study_agreement(db, "s", pk, resamples=0, viewer="bob")
    assert report.items_held_back == len(codes)
    # Enrolled in the study's only open design: nothing to record, nothing to refuse.
    assert views_by(db, "s", "bob") == []
    again = ReviewSession(db, pk, "bob")
    code = again.queue()[0].code
    assert again.save(code, afp_judgment(2, 2, PreferenceChoice.TIE), 3, submit=True).status == (
        "submitted"
    )


def test_every_coordinator_figure_is_recorded(tmp_path: Path) -> None:
    db_path = tmp_path / "study.db"
    db = connect(db_path)
    try:
        pk, codes = judged_open_design(tmp_path, db)
        bob = ReviewSession(db, pk, "bob")
        for code in codes:
            bob.save(code, afp_judgment(0, 0, PreferenceChoice.RESPONSE_2), 5, submit=True)
        design = find_design(db, "s", "open")
    finally:
        db.close()
    queue = disagreement_queue(db_path, pk, "dave")
    assert queue.rows and not any(r.refused for r in queue.rows) and queue.held_back == 0
    open_adjudication(db_path, pk, codes[0], "erin")
    read_agreement(db_path, queue.design, "frank", resamples=0)
    # Results are blind until unblinding: nothing shown, nothing recorded.
    assert read_results(db_path, pk, "gina").blind
    db = connect(db_path)
    try:
        unblind(db, "s", "coordinator")
    finally:
        db.close()
    assert not read_results(db_path, pk, "gina").blind
    db = connect(db_path)
    try:
        seen = {
            name: [v.figure for v in views_by(db, "s", name)]
            for name in ("dave", "erin", "frank", "gina")
        }
        assert seen == {
            "dave": ["disagreements"],
            "erin": ["adjudication"],
            "frank": ["agreement"],
            "gina": ["results"],
        }
        for name in seen:
            with pytest.raises(BlindingError, match=f"{name} cannot enrol"):
                ReviewSession(db, design.pk, name)
        # alice and bob were enrolled before: they keep their queues.
        assert ReviewSession(db, pk, "alice").queue()
    finally:
        db.close()


def test_a_second_look_is_not_recorded_twice_and_the_record_is_append_only(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, _codes = judged_open_design(tmp_path, db)
    study_agreement(db, "s", pk, resamples=0, viewer="carol")
    study_agreement(db, "s", pk, resamples=0, viewer="carol")
    assert _count(db) == 1
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM coordinator_views")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE coordinator_views SET viewer = 'nobody'")
    assert _count(db) == 1


def test_a_study_with_only_closed_designs_records_the_look_for_designs_created_later(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # Nobody can enrol in a design that lists its reviewers, but an open design created later
    # could be joined: the look is on record (tests/test_coordinator_later_designs.py).
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    for session in (a, b):
        for code in codes:
            session.save(code, afp_judgment(2, 2, PreferenceChoice.TIE), 3, submit=True)
    study_agreement(db, "s", pk, resamples=0, viewer="carol")
    assert _count(db) == 1


def test_the_cli_records_the_look_and_refuses_the_pack(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    judged_open_design(tmp_path, db)
    target = tmp_path / "test.db"
    shown = cli("agreement", "--db", target, "--reviewer", "carol", "--resamples", "0")
    assert shown.code == 0, shown.err
    # Issuing carol a pack enrols her: refused, one line, exit 1, no pack written.
    out = tmp_path / "carol.pack.json"
    refused = cli("pack", "study", "--db", target, "--reviewer", "carol", "--out", out)
    assert refused.code == 1
    assert "carol cannot enrol as a reviewer of design open" in refused.err
    assert "Traceback" not in refused.err and not out.exists()
    # Someone who saw nothing still gets their pack.
    issued = cli("pack", "study", "--db", target, "--reviewer", "dan", "--out", out)
    assert issued.code == 0, issued.err
    assert out.exists()


def test_the_results_command_records_the_look(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import getpass

    pk, _codes = judged_open_design(tmp_path, db)
    unblind(db, "s", "coordinator")
    monkeypatch.setattr(getpass, "getuser", lambda: "hal")
    shown = cli("results", "--db", tmp_path / "test.db")
    assert shown.code == 0, shown.err
    assert [(v.design_pk, v.figure) for v in views_by(db, "s", "hal")] == [(pk, "results")]


async def test_the_workstation_records_the_k_screen_and_refuses_judging_after(
    tmp_path: Path,
) -> None:
    from abp_tui.tui.app import make_app
    from abp_tui.tui.screens.agreement import AgreementScreen
    from abp_tui.tui.screens.coordinator_notice import CoordinatorNoticeScreen
    from abp_tui.tui.screens.designs import open_review_screen
    from abp_tui.tui.screens.home import HomeScreen
    from tests.tui_helpers import drive, press, settle, until

    db_path = build_db(tmp_path / "shared.db", lambda db: judged_open_design(tmp_path, db))
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 45)) as pilot:
        await settle(pilot)
        open_review_screen(app, db_path, "carol", "agreement")
        # Asked first (the coordinator notice), she chooses to view as the coordinator.
        await until(pilot, lambda: isinstance(app.screen, CoordinatorNoticeScreen), "the notice")
        await press(pilot, "c")
        await until(pilot, lambda: getattr(app.screen, "shown", None) is not None, "agreement")
        assert isinstance(app.screen, AgreementScreen)
        await press(pilot, "escape")
        await press(pilot, "j")  # judge: the open design would enrol carol
        await until(
            pilot,
            lambda: any("carol cannot enrol" in str(n.message) for n in app._notifications),
            "the refusal",
        )
        await settle(pilot)
        # Refused before any screen opened: she stays where she was.
        assert isinstance(app.screen, HomeScreen)
    db = connect(db_path)
    try:
        assert [v.figure for v in views_by(db, "s", "carol")] == ["agreement"]
        assert (
            db.execute("SELECT COUNT(*) FROM enrolments WHERE reviewer = 'carol'").fetchone()[0]
            == 0
        )
    finally:
        db.close()


def test_the_judges_report_counts_as_a_coordinator_figure(
    reference: Path,
    tmp_path: Path,
    db: sqlite_utils.Database,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The AI judges are measured against the people's judgments (here LLMBar's gold labels):
    # whoever reads that report may not enrol in an open design of the study after.
    from abp_tui.services.judges import judge_report

    pk = llmbar_open_design(db, reference)
    judge_report(db, "llmbar", viewer="ivy", resamples=0)
    assert [v.figure for v in views_by(db, "llmbar", "ivy")] == ["judges"]
    with pytest.raises(BlindingError, match="ivy cannot enrol"):
        ReviewSession(db, pk, "ivy")
    # The command records whoever runs it (the user logged in).
    import getpass

    monkeypatch.setattr(getpass, "getuser", lambda: "jo")
    shown = cli("judges", "--db", tmp_path / "test.db", "--study", "llmbar", "--resamples", "0")
    assert shown.code == 0, shown.err
    assert [v.figure for v in views_by(db, "llmbar", "jo")] == ["judges"]
