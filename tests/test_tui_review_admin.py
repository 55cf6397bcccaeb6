"""The coordinator's screens: the disagreement queue, adjudication, agreement and results.

Every behavioural test drives the real app (``make_app``) with the keyboard on a real SQLite
file made by the core (imports, a study design, reviewers' judgments through ReviewSession), waits
for a condition or for the workers (``tests/tui_helpers.py``), and checks the database and what
the screen shows. The screens' looks are in ``test_tui_snapshots.py``.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.results_report import compute_results
from abp_tui.services.stations import open_pack, write_study_pack
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.adjudicate import NOTE_REQUIRED, AdjudicationScreen
from abp_tui.tui.screens.agreement import AgreementScreen
from abp_tui.tui.screens.designs import DesignPickerScreen, open_review_screen
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from abp_tui.tui.screens.results import ResultsScreen, UnblindScreen
from abp_tui.tui.widgets.keybar import KeyBar
from tests.factories import GATE, Cli
from tests.tui_helpers import (
    ANA,
    BO,
    STUDY,
    admin_database,
    drive,
    press,
    rendered,
    rows,
    settle,
    svg_text,
    type_text,
    until,
)

SIZE = (160, 45)


# -- driving the app ------------------------------------------------------------------------------
def _screen_text(pilot: Pilot[Any]) -> str:
    """What the terminal shows now (line by line, as one string), then the full content of every
    Static of the current screen, so text scrolled out of view counts too."""
    parts = [svg_text(pilot.app.export_screenshot())]
    for widget in pilot.app.screen.query(Static):
        parts.append(rendered(widget.content))
    return "\n".join(parts)


async def _open(pilot: Pilot[Any], purpose: str) -> None:
    app: Any = pilot.app
    await settle(pilot)
    open_review_screen(app, app.db_path, app.reviewer, purpose)
    await settle(pilot)


def _table_text(table: DataTable[Any]) -> str:
    return "\n".join(
        " | ".join(str(getattr(c, "plain", c)) for c in table.get_row_at(i))
        for i in range(table.row_count)
    )


# -- the disagreement queue and adjudication ------------------------------------------------------
async def test_the_queue_lists_the_disagreement_of_two_reviewers(tmp_path: Path) -> None:
    db_path, _pk, codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "disagreements")
        screen = app.screen
        assert isinstance(screen, DisagreementsScreen)
        table = screen.query_one("#disagreements", DataTable)
        text = _table_text(table)
        assert table.row_count == 1
        assert codes[0] in text and codes[1] not in text
        assert "preferences conflict" in text
        assert "Task correctness differs by 2" in text
        assert "open" in text
        shown = _screen_text(pilot)
        assert "1 disagreement: 1 open, 0 adjudicated" in shown
        assert ANA not in shown and BO not in shown


async def test_adjudicating_by_keys_needs_a_note_and_keeps_the_originals(tmp_path: Path) -> None:
    db_path, _pk, codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "disagreements")
        await press(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, AdjudicationScreen)
        assert screen.code == codes[0]
        # The form starts empty; the gate's keys work in it (Y: all checks hold).
        await press(pilot, "Y")
        assert screen.final.validity == GATE
        # Start from Reviewer 1's judgment, then go to the note and try to record without one.
        await press(pilot, "p")
        first = screen.item.reviewers[0].judgment  # type: ignore[union-attr]
        assert (screen.final.responses, screen.final.preference) == (
            first.responses,
            first.preference,
        )
        # Reviewer 1 saw the pair the other way round: their words keep their frame in front.
        assert screen.final.justification == (
            "[Reviewer 1, who saw Response 1 and 2 swapped (their words: their Response 1 is "
            "Response 2 here, their 2 is 1 here):] Clearer about the owner."
        )
        await press(pilot, "e")
        assert isinstance(app.focused, Input) and app.focused.id == "note"
        # s refuses without a note, and brings the note field back.
        await press(pilot, "escape", "s")
        assert rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(0,)]
        assert NOTE_REQUIRED in _screen_text(pilot)
        assert isinstance(app.focused, Input) and app.focused.id == "note"
        # Enter in the note is part of writing it: it records nothing, even with a note.
        await type_text(pilot, "Scores follow the evidence")
        await press(pilot, "enter")
        assert rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(0,)]
        assert isinstance(app.screen, AdjudicationScreen)
        assert isinstance(app.focused, Input) and app.focused.id == "note"
        assert app.focused.value == "Scores follow the evidence"
        # Recording has its own key, once Escape has left the field.
        await press(pilot, "escape", "s")
        found = rows(db_path, "SELECT adjudicator, revision, note, show_names FROM adjudications")
        assert found == [("carol", 1, "Scores follow the evidence", 0)]
        assert rows(db_path, "SELECT COUNT(*) FROM judgments") == [(4,)]
        # Back on the queue, the item is adjudicated (the queue shows open ones by default).
        assert isinstance(app.screen, DisagreementsScreen)
        assert "0 open, 1 adjudicated" in _screen_text(pilot)


async def test_the_item_is_blind_swapped_from_the_first_reviewer(tmp_path: Path) -> None:
    db_path, pk, codes = admin_database(tmp_path)
    first = rows(
        db_path,
        "SELECT j.placement FROM judgments j JOIN items i ON i.pk = j.item_pk "
        "WHERE i.code = ? ORDER BY j.pk LIMIT 1",
        [codes[0]],
    )
    placement = json.loads(first[0][0])
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "disagreements")
        await press(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, AdjudicationScreen) and screen.item is not None
        assert screen.item.placement == {"1": placement["2"], "2": placement["1"]}
        # Reviewer 1 (ana, who submitted first) preferred what she saw as Response 1: on this
        # screen the same run is Response 2.
        assert screen.item.reviewers[0].judgment.preference == PreferenceChoice.RESPONSE_2
        assert screen.item.reviewers[0].judgment.responses["2"].scores["task_correctness"] == 2
        await press(pilot, "p", "e", *"Reviewer 1 is right", "escape", "s")
    payload, stored = rows(
        db_path,
        "SELECT a.payload, a.placement FROM adjudications a JOIN items i ON i.pk = a.item_pk "
        "WHERE i.code = ?",
        [codes[0]],
    )[0]
    assert json.loads(stored) == {"1": placement["2"], "2": placement["1"]}
    assert set(json.loads(payload)["responses"]) == {str(placement["1"]), str(placement["2"])}
    assert pk > 0


async def test_reviewer_names_are_hidden_until_asked_and_the_choice_is_recorded(
    tmp_path: Path,
) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "disagreements")
        await press(pilot, "enter")
        hidden = _screen_text(pilot)
        assert "Reviewer 1" in hidden and "Reviewer 2" in hidden
        assert ANA not in hidden and BO not in hidden
        await press(pilot, "v")
        shown = _screen_text(pilot)
        assert ANA in shown and BO in shown
        await press(pilot, "v")
        assert ANA not in _screen_text(pilot)
        await press(pilot, "p", "e", *"names were looked at", "escape", "s")
    # Hidden again before recording, but they were seen: the adjudication says so.
    assert rows(db_path, "SELECT show_names FROM adjudications") == [(1,)]


async def test_an_unsubmitted_reviewer_of_the_item_is_refused(tmp_path: Path) -> None:
    db_path, _pk, codes = admin_database(tmp_path, dispute_only=True)
    app = make_app(db_path, reviewer=ANA)
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "disagreements")
        screen = app.screen
        assert isinstance(screen, DisagreementsScreen)
        # ana still has codes[1] to judge: the queue does not even say it is disputed.
        text = _table_text(screen.query_one("#disagreements", DataTable))
        assert codes[1] not in text and codes[0] in text
        assert "GRADER_DISPUTE" not in text
        assert "1 item of this design held back" in _screen_text(pilot)
        # Opened all the same (] from another item, a stale list), it is refused.
        adjudication = AdjudicationScreen(db_path, screen.design, ANA, codes[1])
        await app.push_screen(adjudication)
        await settle(pilot)
        assert adjudication.item is None
        shown = _screen_text(pilot)
        assert "Refused" in shown
        assert "has not submitted" in shown and "cannot adjudicate it" in shown
        assert "Judge your items first" in shown
        assert "expected behaviour contradicts" not in shown
        await press(pilot, "s")
    assert rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(0,)]


# -- agreement ------------------------------------------------------------------------------------
async def test_agreement_shows_denominators_and_undefined_reasons(tmp_path: Path) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "agreement")
        screen = app.screen
        assert isinstance(screen, AgreementScreen) and screen.shown is not None
        table = screen.query_one("#variables", DataTable)
        variables = [v.variable for v in screen.shown.report.variables]
        assert "result_state" in variables and "preference" in variables
        overview = _table_text(table)
        # task_correctness: 4 runs judged by both reviewers (two per pair item), 8 judgments.
        first = overview.splitlines()[0]
        assert first.split(" | ")[:5] == ["dimension:task_correctness", "ordinal", "4", "2", "8"]
        detail = _screen_text(pilot)
        assert "Percent agreement" in detail
        assert "Items" in detail and "Reviewers" in detail and "Judgments" in detail
        # Below the figures: each pair's kappas and its confusion-matrix heat map.
        whole = rendered(screen.shown.details[0])
        assert f"{ANA} × {BO}" in whole
        assert "Cohen κ" in whole and "κ quadratic" in whole
        assert f"{ANA} (rows) × {BO} (columns): " in whole and "on the diagonal" in whole
        # Nobody ticked a fatal criterion: no variation, so kappa-type figures are undefined,
        # each with its reason.
        table.move_cursor(row=variables.index("fatal_hit"))
        await settle(pilot)
        detail = _screen_text(pilot)
        assert "undefined: no variation: every judgment is 0" in detail
        assert "nan" not in detail.lower().split()


# -- results --------------------------------------------------------------------------------------
async def test_results_need_a_confirmed_unblinding_which_is_audited(tmp_path: Path) -> None:
    db_path, pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "results")
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        text = _screen_text(pilot)
        assert "still blind" in text and "Press u to unblind" in text
        assert "Pass rate" not in text
        await press(pilot, "u")
        assert isinstance(app.screen, UnblindScreen)
        await press(pilot, *"pilo", "enter")
        assert isinstance(app.screen, UnblindScreen)
        assert "Type the study id exactly" in _screen_text(pilot)
        assert rows(db_path, "SELECT COUNT(*) FROM audit_log WHERE action = 'unblind'") == [(0,)]
        await press(pilot, *["backspace"] * 4, *"pilot", "enter")
        current: object = app.screen
        assert current is screen
        audit = rows(db_path, "SELECT actor, action, detail FROM audit_log")
        assert [(a, b, json.loads(c)) for a, b, c in audit] == [
            ("carol", "unblind", {"study": STUDY})
        ]
        text = _screen_text(pilot)
        assert "unblinded by carol" in text
        # Two runs per condition, each judged by both reviewers; the disputed item's run that
        # they judged differently stays unresolved (unjudged) until it is adjudicated.
        db = connect(db_path)
        try:
            report = compute_results(db, pk)
        finally:
            db.close()
        for group in report.conditions:
            rate = group.pass_rate
            assert rate.point is not None and rate.low is not None and rate.high is not None
            shown = f"{rate.x}/{rate.n} = {rate.point:.3f} [{rate.low:.3f}, {rate.high:.3f}]"
            assert f"{group.condition} " in text and shown in text
        assert "PASS" in text and "DISPUTE" in text and "INFRA" in text
        assert "Exact McNemar" in text
        assert "u Unblind" not in text


async def test_a_reviewer_station_never_offers_unblinding(tmp_path: Path) -> None:
    # ana has the second item left to judge: her pack holds it (a pack holds nothing judged).
    db_path, pk, _codes = admin_database(tmp_path, dispute_only=True)
    pack = tmp_path / "ana.pack.json"
    db = connect(db_path)
    try:
        write_study_pack(db, pk, ANA, pack)
    finally:
        db.close()
    station_path = tmp_path / "station.db"
    station = connect(station_path)
    try:
        open_pack(station, pack)
    finally:
        station.close()
    app = make_app(station_path, reviewer=ANA)
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "results")
        assert isinstance(app.screen, ResultsScreen)
        text = _screen_text(pilot)
        assert "reviewer station" in text
        assert "Press u" not in text and "u Unblind" not in text
        await press(pilot, "u")
        assert not isinstance(app.screen, UnblindScreen)
    assert rows(station_path, "SELECT COUNT(*) FROM audit_log WHERE action = 'unblind'") == [(0,)]


async def test_several_designs_are_offered_in_a_list(tmp_path: Path) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    db = connect(db_path)
    try:
        create_design(
            db,
            StudyDesign(study=STUDY, name="singles", seed=1, single_items=True, reviewers=[ANA]),
        )
    finally:
        db.close()
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "agreement")
        assert isinstance(app.screen, DesignPickerScreen)
        text = _screen_text(pilot)
        assert "pilot / pairs v1" in text and "pilot / singles v1" in text
        # The design created last is highlighted, as commands take it without --design.
        await press(pilot, "enter")
        assert isinstance(app.screen, AgreementScreen)
        assert app.screen.design.name == "singles"


# -- getting there --------------------------------------------------------------------------------
async def test_app_keys_and_the_palette_open_the_coordinator_screens(tmp_path: Path) -> None:
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        home = app.screen
        await press(pilot, "a")
        assert isinstance(app.screen, DisagreementsScreen)
        await press(pilot, "k")
        assert isinstance(app.screen, AgreementScreen)
        await press(pilot, "v")
        assert isinstance(app.screen, ResultsScreen)
        await press(pilot, "escape", "escape", "escape")
        assert app.screen is home
        await press(pilot, "ctrl+p")
        await type_text(pilot, "Agreement between")
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        await until(pilot, lambda: palette.query_one(CommandList).option_count, "the commands")
        await press(pilot, "enter")
        assert isinstance(app.screen, AgreementScreen)


async def test_enter_is_offered_only_with_a_disagreement_to_open(tmp_path: Path) -> None:
    """With no disagreement shown, neither the key bar nor the summary offers Enter (it did, and
    did nothing)."""
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "disagreements")
        opened = app.screen
        assert isinstance(opened, DisagreementsScreen)
        screen: DisagreementsScreen = opened  # narrowed for the function below too

        def offered() -> tuple[bool, bool]:
            bar = {entry.description for entry in screen.query_one(KeyBar).entries}
            summary = rendered(screen.query_one("#disagreements-summary", Static).content)
            return "Adjudicate" in bar, "Enter adjudicates" in summary

        assert offered() == (True, True)
        while screen.status_filter != "adjudicated":  # none is adjudicated yet
            await press(pilot, "f")
        assert screen.query_one("#disagreements", DataTable).row_count == 0
        assert offered() == (False, False)
        await press(pilot, "enter")
        assert app.screen is screen
        while screen.status_filter != "open":
            await press(pilot, "f")
        assert offered() == (True, True)


async def test_the_unblinding_command_offered_runs_as_pasted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The results screen's command to unblind from a shell stands on a line of its own (it was
    followed by a full stop, which a pasted "--yes." turns into a usage error)."""
    db_path, _pk, _codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, SIZE) as pilot:
        await _open(pilot, "results")
        assert isinstance(app.screen, ResultsScreen)
        blind = rendered(app.screen.query_one("#blind", Static).content, 400)
    last = blind.rstrip().splitlines()[-1].strip()
    assert last.startswith("abp-tui unblind --study pilot --yes --reviewer carol")
    words = shlex.split(last)
    # Pasted as it is, the audit log names the workstation's reviewer, as pressing u does.
    assert Cli(db_path, capsys)(*words[1:]).code == 0
    assert rows(db_path, "SELECT actor, action FROM audit_log") == [("carol", "unblind")]
