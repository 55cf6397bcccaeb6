"""A look at the coordinator's figures bars enrolment in an open design created later too.

The gap: a look was recorded only when the study had, at that moment, an open design the viewer
had not joined. carol, holding no item of a study whose designs all listed their reviewers, saw
the agreement (nothing recorded: she could enrol nowhere); the coordinator then created an open
design, and carol enrolled and judged items whose judgments she had already seen summarized.
Now every look by someone who holds no pending item of the study is recorded (silently when it
changes nothing they may do at that moment: no question, no notice), so that enrolment in a
design created later is refused too. A read-only database is still read: a look there is not
recorded when nobody could enrol at that moment (nobody can enrol in a read-only database at
all), and is refused, in one line, when it would have to be recorded first.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.coordinator import disagreement_queue, read_results
from abp_tui.services.coordinator_notice import check_judging, notice_for
from abp_tui.services.designing import create_design
from abp_tui.services.ranking import ranking_report
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.stations import write_study_pack
from abp_tui.store import db as store_db
from abp_tui.store.coordinator_views import views_by
from abp_tui.store.judging import BlindingError
from tests.factories import Cli, afp_judgment, two_reviewer_design


def _closed_and_judged(tmp_path: Path, db: sqlite_utils.Database) -> int:
    """Design m lists its reviewers a and b, who have both submitted both items (a tie each
    time, whichever side each was shown; they disagree on one item's scores); the study is
    unblinded. No open design yet."""
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    for code in codes:
        a.save(code, afp_judgment(2, 1, PreferenceChoice.TIE), 5, submit=True)
    b.save(codes[0], afp_judgment(2, 1, PreferenceChoice.TIE), 5, submit=True)
    b.save(codes[1], afp_judgment(0, 2, PreferenceChoice.TIE), 5, submit=True)
    unblind(db, "s", "coordinator")
    return pk


def _later_open_design(db: sqlite_utils.Database) -> int:
    return create_design(
        db, StudyDesign(study="s", name="later", seed=9, contrasts=[("C", "A")])
    ).pk


def _agreement(db: sqlite_utils.Database, db_path: Path, pk: int, viewer: str) -> None:
    study_agreement(db, "s", pk, resamples=0, viewer=viewer)


def _disagreements(db: sqlite_utils.Database, db_path: Path, pk: int, viewer: str) -> None:
    assert disagreement_queue(db_path, pk, viewer).rows


def _results(db: sqlite_utils.Database, db_path: Path, pk: int, viewer: str) -> None:
    assert read_results(db_path, pk, viewer).report is not None


def _ranking(db: sqlite_utils.Database, db_path: Path, pk: int, viewer: str) -> None:
    ranking_report(db, "s", resamples=0, viewer=viewer)


LOOKS: dict[str, Callable[[sqlite_utils.Database, Path, int, str], None]] = {
    "agreement": _agreement,
    "disagreements": _disagreements,
    "results": _results,
    "ranking": _ranking,
}


@pytest.mark.parametrize("figure", sorted(LOOKS))
def test_a_look_before_the_open_design_exists_bars_enrolment_in_it(
    tmp_path: Path, db: sqlite_utils.Database, figure: str
) -> None:
    pk = _closed_and_judged(tmp_path, db)
    db_path = tmp_path / "test.db"
    # Nothing carol may do changes at this moment (no design she could enrol in): no question.
    assert notice_for(db, "carol", "agreement", "s", pk) is None
    LOOKS[figure](db, db_path, pk, "carol")
    seen = views_by(db, "s", "carol")
    assert len(seen) == 1 and seen[0].design_pk == pk
    later = _later_open_design(db)
    # Every way of enrolling in the later design is refused, and none writes anything.
    with pytest.raises(BlindingError, match="carol cannot enrol as a reviewer of design later"):
        ReviewSession(db, later, "carol")
    with pytest.raises(BlindingError, match="carol cannot enrol"):
        check_judging(db_path, later, "carol")
    out = tmp_path / "carol.pack.json"
    with pytest.raises(BlindingError, match="carol cannot enrol"):
        write_study_pack(db, later, "carol", out)
    assert not out.exists()
    assert db.execute("SELECT COUNT(*) FROM enrolments WHERE reviewer = 'carol'").fetchone() == (0,)
    # Someone who has seen nothing enrols.
    assert ReviewSession(db, later, "dan").queue()


def test_a_reviewer_who_has_submitted_everything_keeps_their_design_only(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _closed_and_judged(tmp_path, db)
    study_agreement(db, "s", pk, resamples=0, viewer="a")
    assert [v.figure for v in views_by(db, "s", "a")] == ["agreement"]
    later = _later_open_design(db)
    with pytest.raises(BlindingError, match="a cannot enrol as a reviewer of design later"):
        ReviewSession(db, later, "a")
    # Their own design lists them: it is theirs to revise as before.
    assert len(ReviewSession(db, pk, "a").queue()) == 2


def test_a_reviewer_still_judging_is_held_back_and_not_recorded(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # b's items are held back from the figures b sees, so b's look is no coordinator's look.
    pk, a, _b, codes = two_reviewer_design(tmp_path, db)
    for code in codes:
        a.save(code, afp_judgment(2, 1, PreferenceChoice.RESPONSE_1), 5, submit=True)
    report = study_agreement(db, "s", pk, resamples=0, viewer="b")
    assert report.items_held_back == len(codes)
    assert views_by(db, "s", "b") == []
    later = _later_open_design(db)
    assert ReviewSession(db, later, "b").queue()


def test_the_command_records_silently_and_a_later_pack_is_refused(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    _closed_and_judged(tmp_path, db)
    target = tmp_path / "test.db"
    monkeypatch.setattr(getpass, "getuser", lambda: "hal")
    shown = cli("results", "--db", target)
    # Nothing hal may do changed at that moment: nothing said...
    assert (shown.code, shown.err) == (0, "")
    assert [v.figure for v in views_by(db, "s", "hal")] == ["results"]
    # ...but the design created after it is closed to hal.
    _later_open_design(db)
    out = tmp_path / "hal.pack.json"
    refused = cli(
        "pack", "study", "--db", target, "--design", "later", "--reviewer", "hal", "--out", out
    )
    assert refused.code == 1
    assert "hal cannot enrol as a reviewer of design later" in refused.err
    assert refused.err.count("\n") == 1 and not out.exists()


def test_a_read_only_database_is_read_without_a_record_when_nobody_could_enrol(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    _closed_and_judged(tmp_path, db)
    target = tmp_path / "test.db"
    monkeypatch.setattr(store_db, "_writable", lambda path: False)
    monkeypatch.setattr(getpass, "getuser", lambda: "carol")
    for command in ("agreement", "results"):
        shown = cli(command, "--db", target)
        assert (shown.code, shown.err) == (0, ""), command
    assert views_by(db, "s", "carol") == []


def test_a_read_only_database_refuses_a_look_that_must_be_recorded_first(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # carol could enrol in the open design (were the database writable): her look has to be on
    # record before she sees anything, and it cannot be written.
    _closed_and_judged(tmp_path, db)
    _later_open_design(db)
    target = tmp_path / "test.db"
    monkeypatch.setattr(store_db, "_writable", lambda path: False)
    refused = cli("agreement", "--db", target, "--reviewer", "carol", "--resamples", "0")
    assert (refused.code, refused.out) == (1, "")
    assert refused.err == (
        f"abp-tui: {target}: the database is read-only, so carol's look at the agreement of "
        "study s cannot be recorded, and carol could still enrol in an open design of s: not "
        "shown (open the database where it can be written)\n"
    )
    assert views_by(db, "s", "carol") == []
