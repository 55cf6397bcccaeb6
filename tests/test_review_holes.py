"""Holes found in a review of the day's blinding and untrusted-text code, each shown failing
before its fix.

- ``abp-tui ranking`` ranks a design's final human preferences (and compares every source of
  the study with them): a coordinator-level figure like the results it sits beside on the
  results screen. Whoever could still enrol in an open design of the study and runs it is now
  recorded as having seen the results (issue 15), and told so on stderr, so they can no longer
  enrol and judge items whose verdicts they have seen ranked.
- The same ranking, run by a reviewer with items still to judge, counted the votes on those
  items: other reviewers' verdicts, the imported labels, the AI judges' picks, all of which the
  judges report (issue 12) and the agreement hold back from them. It is now refused to them,
  whatever the source, until they submit.
- ``abp-tui merge`` refuses any revision the station's own store would not have stored; the
  day's reclassification rules (seed 000: only a run whose record says INFRA_ERROR or
  PROVIDER_BLOCK is reclassified; seed 004: no state set by hand on a rubric that scores
  abstention) were checked when a station saved, not when its ratings were merged, nor when
  an adjudication was recorded.
"""

from __future__ import annotations

import getpass
import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.errors import AbpError, InputError
from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services.adjudicating import adjudicate
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.judges import judge_report
from abp_tui.services.ranking import ranking_report
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.station_files import body_hash, signature
from abp_tui.services.stations import merge_ratings, open_pack, write_ratings, write_study_pack
from abp_tui.store import connect
from abp_tui.store.coordinator_views import views_by
from abp_tui.store.judges import verdict_table
from abp_tui.store.judging import BlindingError
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.results import ResultsScreen
from abp_tui.tui.widgets.ranking_chart import RankingPanel
from tests.factories import Cli, afp_judgment, afp_study, two_reviewer_design
from tests.tui_helpers import drive, press, screen_text, settle, until


def _open_judged_unblinded(tmp_path: Path, db: sqlite_utils.Database) -> int:
    """Study s, an open C-vs-A design whose items alice has all submitted, unblinded."""
    afp_study(tmp_path, db)
    pk = create_design(db, StudyDesign(study="s", name="open", seed=3, contrasts=[("C", "A")])).pk
    alice = ReviewSession(db, pk, "alice")
    for row in alice.queue():
        alice.save(row.code, afp_judgment(2, 1, PreferenceChoice.RESPONSE_1), 5, submit=True)
    unblind(db, "s", "coordinator")
    return pk


def test_the_ranking_command_records_the_look_and_refuses_a_later_enrolment(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    pk = _open_judged_unblinded(tmp_path, db)
    monkeypatch.setattr(getpass, "getuser", lambda: "hal")
    shown = cli(
        "ranking",
        "--db",
        tmp_path / "test.db",
        "--study",
        "s",
        "--source",
        "verdicts",
        "--resamples",
        "0",
        "--json",
    )
    assert shown.code == 0, shown.err
    report = json.loads(shown.out)  # stdout is still exactly the report
    assert report["source"] == "verdicts" and report["comparisons"] == 2
    assert shown.err == (
        "notice: hal has now seen the results of study s, as its coordinator: you will not be "
        "able to judge s's open designs as a reviewer (recorded, for good)\n"
    )
    assert [(v.design_pk, v.figure) for v in views_by(db, "s", "hal")] == [(pk, "results")]
    with pytest.raises(BlindingError, match="hal cannot enrol as a reviewer of design open"):
        ReviewSession(db, pk, "hal")
    # Said once: the second look changes nothing for hal.
    again = cli(
        "ranking",
        "--db",
        tmp_path / "test.db",
        "--study",
        "s",
        "--source",
        "verdicts",
        "--resamples",
        "0",
    )
    assert again.code == 0 and again.err == ""


def test_an_enrolled_reviewer_running_the_ranking_is_recorded_silently(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    pk = _open_judged_unblinded(tmp_path, db)
    # alice is enrolled in the study's only open design: nothing she may do changes now, so
    # nothing is said; her look is on record for designs created later.
    monkeypatch.setattr(getpass, "getuser", lambda: "alice")
    shown = cli("ranking", "--db", tmp_path / "test.db", "--study", "s", "--resamples", "0")
    assert shown.code == 0, shown.err
    assert shown.err == ""
    assert [v.figure for v in views_by(db, "s", "alice")] == ["results"]
    assert len(ReviewSession(db, pk, "alice").queue()) == 2


def test_a_merged_reclassification_of_a_run_with_no_record_failure_is_refused(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    design_pk = two_reviewer_design(tmp_path, db)[0]
    pack_path = tmp_path / "a.pack.json"
    write_study_pack(db, design_pk, "a", pack_path)
    station = connect(tmp_path / "station.db")
    session = ReviewSession(station, open_pack(station, pack_path), "a")
    code = session.queue()[0].code
    judged = afp_judgment(2, 2, PreferenceChoice.TIE)
    session.save(code, judged, 3.0, submit=True)
    ratings_path = tmp_path / "a.ratings.json"
    write_ratings(station, ratings_path)
    # What the station's store refuses (its record gives no failure to set aside)...
    response = judged.responses["1"].model_copy(
        update={"reclassified": True, "override_reason": "looked fine"}
    )
    forged_judgment = judged.model_copy(update={"responses": {**judged.responses, "1": response}})
    with pytest.raises(AbpError, match="its record gives no INFRA_ERROR or PROVIDER_BLOCK"):
        session.save(code, forged_judgment, 4.0, submit=True, reason="second look")
    # ...a ratings file signed with the pack's own key (as a station could) brings in no more.
    forged = json.loads(ratings_path.read_text("utf-8"))
    forged["judgments"][0]["judgment"]["responses"]["1"]["reclassified"] = True
    forged["judgments"][0]["judgment"]["responses"]["1"]["override_reason"] = "looked fine"
    key = json.loads(pack_path.read_text("utf-8"))["signing_key"]
    forged["sha256"] = body_hash(forged)
    forged["signature"] = signature(forged, key)
    forged_path = tmp_path / "forged.json"
    forged_path.write_text(json.dumps(forged), "utf-8")
    before = db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]
    with pytest.raises(InputError, match="its record gives no INFRA_ERROR or PROVIDER_BLOCK"):
        merge_ratings(db, [forged_path])
    assert db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == before


def test_the_ranking_is_held_back_from_a_reviewer_with_pending_items(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pk, a, b, codes = two_reviewer_design(tmp_path, db)
    for code in codes:
        a.save(code, afp_judgment(2, 1, PreferenceChoice.RESPONSE_1), 5, submit=True)
    b.save(codes[0], afp_judgment(1, 2, PreferenceChoice.RESPONSE_2), 5, submit=True)
    unblind(db, "s", "coordinator")
    target = tmp_path / "test.db"
    monkeypatch.setattr(getpass, "getuser", lambda: "b")
    refused = cli("ranking", "--db", target, "--study", "s", "--resamples", "0", "--json")
    assert (refused.code, refused.out) == (1, "")
    assert refused.err == (
        "abp-tui: b has 1 item of study s not submitted yet: a ranking counts the people's, the "
        "imported labels' and the AI judges' votes on them, so it is held back from b until "
        "they submit their own judgments\n"
    )
    # a has submitted every item: the ranking a sees is everyone's, one vote per item (its
    # final verdict: the first item's two reviewers agree, the second is a's single review).
    monkeypatch.setattr(getpass, "getuser", lambda: "a")
    shown = cli("ranking", "--db", target, "--study", "s", "--resamples", "0", "--json")
    assert shown.code == 0, shown.err
    ranked = json.loads(shown.out)
    assert ranked["comparisons"] == 2
    assert ranked["notes"][0] == (
        "Counts each item's final verdict: 1 unanimous, 0 adjudicated, 1 single review, "
        "0 unresolved."
    )


def test_an_ai_judges_ranking_is_refused_as_its_report_is(
    reference: Path, db: sqlite_utils.Database
) -> None:
    # LLMBar's manual set with two AI judges' verdicts; ann reviews every pair, none submitted.
    import_paths(db, [reference / "llmbar-manual"], study="llmbar")
    create_design(
        db,
        StudyDesign(
            study="llmbar",
            name="m",
            seed=3,
            rubric="none",
            contrasts=[("response1", "response2")],
            reviewers=["ann"],
        ),
    )
    unblind(db, "llmbar", "coordinator")
    with pytest.raises(AbpError, match="ann has 46 items of study llmbar not submitted yet"):
        judge_report(db, "llmbar", viewer="ann", resamples=0)
    assert len(verdict_table(db, "llmbar")) == 184  # two judges, both orders, none shown to ann
    source = "judge:ChatGPT-Vanilla"
    with pytest.raises(AbpError, match="ann has 46 items of study llmbar not submitted yet"):
        ranking_report(db, "llmbar", source=source, resamples=0, viewer="ann")
    # The coordinator (nobody named) ranks every one of the judge's 46 pairs.
    assert ranking_report(db, "llmbar", source=source, resamples=0).comparisons == 46


async def test_the_results_screen_says_why_a_pending_reviewer_sees_no_ranking(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, a, _b, codes = two_reviewer_design(tmp_path, db)
    for code in codes:
        a.save(code, afp_judgment(2, 1, PreferenceChoice.RESPONSE_1), 5, submit=True)
    unblind(db, "s", "coordinator")
    app = make_app(tmp_path / "test.db", reviewer="b")
    async with drive(app, (150, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        panel = screen.query_one(RankingPanel)
        await until(pilot, lambda: panel.view is not None, "the ranking")
        await settle(pilot)
        assert panel.view is not None and panel.view.report is None
        assert "held back from b until they submit" in screen_text(pilot)


def test_an_adjudication_cannot_reclassify_a_run_whose_record_gives_no_failure(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # What a reviewer's save refuses, an adjudicator's final judgment is refused too: the
    # adjudication is the verdict that counts, so it is held to the same record-state rules.
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    a.save(codes[0], afp_judgment(2, 2, PreferenceChoice.RESPONSE_1), 5, submit=True)
    b.save(codes[0], afp_judgment(0, 0, PreferenceChoice.RESPONSE_2), 5, submit=True)
    item = db.execute("SELECT run_a_pk, run_b_pk FROM items WHERE code = ?", [codes[0]]).fetchone()
    final = afp_judgment(1, 2, PreferenceChoice.RESPONSE_2)
    response = final.responses["1"].model_copy(
        update={"reclassified": True, "override_reason": "the failure was not real"}
    )
    final = final.model_copy(update={"responses": {**final.responses, "1": response}})
    with pytest.raises(AbpError, match="its record gives no INFRA_ERROR or PROVIDER_BLOCK"):
        adjudicate(db, pk, codes[0], "carol", final, {"1": item[1], "2": item[0]}, "why")
    assert db.execute("SELECT COUNT(*) FROM adjudications").fetchone() == (0,)
