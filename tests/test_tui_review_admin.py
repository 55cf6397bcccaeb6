"""The coordinator's screens: the disagreement queue, adjudication, agreement and results.

Every behavioural test drives the real app (``make_app``) with the keyboard on a real SQLite
file made by the core (imports, a study design, reviewers' judgments through ReviewSession), waits
for the workers, and checks the database and what the screen shows.
"""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from rich.console import Console
from textual.command import CommandList, CommandPalette
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment, ResultState, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.stations import open_pack, write_study_pack
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.adjudicate import NOTE_REQUIRED, AdjudicationScreen
from abp_tui.tui.screens.agreement import AgreementScreen
from abp_tui.tui.screens.designs import DesignPickerScreen, open_review_screen
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from abp_tui.tui.screens.results import ResultsScreen, UnblindScreen

SIZE = (160, 45)
DIMS = ("task_correctness", "evidence_discipline", "uncertainty_handling", "failure_control")
GATE = {
    k: True
    for k in ("consistent", "visible", "same_requirement", "invariant_assertions", "observable")
}
ANA, BO = "ana-lindqvist", "bo-okafor"
STUDY = "pilot"


# -- building studies -----------------------------------------------------------------------------
def _study_lines() -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": STUDY, "rubric_id": "afp-v0.1", "synthetic": True},
        {"type": "condition", "id": "A", "label": "Model only"},
        {"type": "condition", "id": "C", "label": "Workflow"},
    ]
    for task in ("T1", "T2"):
        lines.append(
            {
                "type": "task",
                "id": task,
                "prompt": f"Summarise the memo for {task}.",
                "evidence": "Memo: the launch moves to May; Ana owns the checklist.",
                "fatal_criteria": [f"Invents an owner for {task}."],
            }
        )
        for cond in ("A", "C"):
            lines.append(
                {
                    "type": "run",
                    "id": f"{task}-{cond}",
                    "task_id": task,
                    "condition_id": cond,
                    "output": f"The launch moves to May ({task}, {cond.lower()}).",
                }
            )
    return lines


def _response(score: int) -> ResponseJudgment:
    return ResponseJudgment(
        scores={d: score for d in DIMS},
        rationales={d: "only partly supported" for d in DIMS} if score < 2 else {},
    )


def _judgment(first: int, second: int, preference: PreferenceChoice) -> Judgment:
    return Judgment(
        responses={"1": _response(first), "2": _response(second)},
        preference=preference,
        justification="Clearer about the owner.",
        validity=GATE,
    )


def _flipped(session: ReviewSession, code: str) -> bool:
    return next(r.flipped for r in session.queue() if r.code == code)


def _database(tmp_path: Path, *, dispute_only: bool = False) -> tuple[Path, int, list[str]]:
    """A study with two pair items judged by ana and bo.

    The first item: ana prefers one run and scores everything 2, bo prefers the other run and
    scores one response 0 (preferences conflict, a dimension differs by 2). The second item:
    both agree. With ``dispute_only``, bo alone judges the second item and marks it
    GRADER_DISPUTE, so it is disputed while ana has not submitted it.
    """
    db_path = tmp_path / "admin.db"
    source = tmp_path / "study.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in _study_lines()), "utf-8")
    db = connect(db_path)
    try:
        import_paths(db, [source])
        pk = create_design(
            db,
            StudyDesign(
                study=STUDY,
                name="pairs",
                seed=5,
                contrasts=[("C", "A")],
                reviewers=[ANA, BO],
                reviewers_per_item=2,
            ),
        ).pk
        ana, bo = ReviewSession(db, pk, ANA), ReviewSession(db, pk, BO)
        codes = sorted(r.code for r in ana.queue())
        same = _flipped(ana, codes[0]) == _flipped(bo, codes[0])
        other_for_bo = PreferenceChoice.RESPONSE_2 if same else PreferenceChoice.RESPONSE_1
        ana.save(codes[0], _judgment(2, 2, PreferenceChoice.RESPONSE_1), 3, submit=True)
        bo.save(codes[0], _judgment(0, 2, other_for_bo), 3, submit=True)
        if dispute_only:
            disputed = _judgment(2, 2, PreferenceChoice.TIE)
            responses = dict(disputed.responses)
            responses["1"] = ResponseJudgment(
                state_override=ResultState.GRADER_DISPUTE,
                override_reason="The expected behaviour contradicts the evidence.",
            )
            bo.save(codes[1], disputed.model_copy(update={"responses": responses}), 3, submit=True)
        else:
            ana.save(codes[1], _judgment(2, 2, PreferenceChoice.TIE), 3, submit=True)
            bo.save(codes[1], _judgment(2, 2, PreferenceChoice.TIE), 3, submit=True)
    finally:
        db.close()
    return db_path, pk, codes


def _rows(db_path: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    db = sqlite_utils.Database(db_path)
    try:
        return [tuple(r) for r in db.execute(sql, params or []).fetchall()]
    finally:
        db.close()


# -- driving the app ------------------------------------------------------------------------------
async def _settle(pilot: Pilot[Any]) -> None:
    """Let workers finish and their messages be handled (one result may start another worker)."""
    for _ in range(6):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def _screen_text(pilot: Pilot[Any]) -> str:
    """What the terminal shows now (line by line, as one string), then the full content of every
    Static of the current screen, so text scrolled out of view counts too."""
    svg = pilot.app.export_screenshot()
    parts = [html.unescape("".join(re.findall(r">([^<]*)</text>", svg))).replace("\xa0", " ")]
    for widget in pilot.app.screen.query(Static):
        parts.append(_rendered(widget.content))
    return "\n".join(parts)


async def _open(pilot: Pilot[Any], purpose: str) -> None:
    app: Any = pilot.app
    await _settle(pilot)
    open_review_screen(app, app.db_path, app.reviewer, purpose)
    await _settle(pilot)


def _rendered(renderable: Any) -> str:
    console = Console(width=160, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def _table_text(table: DataTable[Any]) -> str:
    return "\n".join(
        " | ".join(str(getattr(c, "plain", c)) for c in table.get_row_at(i))
        for i in range(table.row_count)
    )


# -- the disagreement queue and adjudication ------------------------------------------------------
async def test_the_queue_lists_the_disagreement_of_two_reviewers(tmp_path: Path) -> None:
    db_path, _pk, codes = _database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with app.run_test(size=SIZE) as pilot:
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
    db_path, _pk, codes = _database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, "disagreements")
        await pilot.press("enter")
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdjudicationScreen)
        assert screen.code == codes[0]
        # The form starts empty; the gate's keys work in it (Y: all checks hold).
        await pilot.press("Y")
        assert screen.final.validity == GATE
        # Start from Reviewer 1's judgment, then go to the note and try to record without one.
        await pilot.press("p")
        assert screen.final == screen.item.reviewers[0].judgment  # type: ignore[union-attr]
        await pilot.press("e")
        assert isinstance(app.focused, Input) and app.focused.id == "note"
        await pilot.press("enter")
        await _settle(pilot)
        assert _rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(0,)]
        assert NOTE_REQUIRED in _screen_text(pilot)
        # s refuses too, and brings the note field back.
        await pilot.press("escape", "s")
        await _settle(pilot)
        assert _rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(0,)]
        assert isinstance(app.focused, Input) and app.focused.id == "note"
        await pilot.press(*"Scores follow the evidence", "enter")
        await _settle(pilot)
        rows = _rows(db_path, "SELECT adjudicator, revision, note, show_names FROM adjudications")
        assert rows == [("carol", 1, "Scores follow the evidence", 0)]
        assert _rows(db_path, "SELECT COUNT(*) FROM judgments") == [(4,)]
        # Back on the queue, the item is adjudicated (the queue shows open ones by default).
        assert isinstance(app.screen, DisagreementsScreen)
        assert "0 open, 1 adjudicated" in _screen_text(pilot)


async def test_the_item_is_blind_swapped_from_the_first_reviewer(tmp_path: Path) -> None:
    db_path, pk, codes = _database(tmp_path)
    first = _rows(
        db_path,
        "SELECT j.placement FROM judgments j JOIN items i ON i.pk = j.item_pk "
        "WHERE i.code = ? ORDER BY j.pk LIMIT 1",
        [codes[0]],
    )
    placement = json.loads(first[0][0])
    app = make_app(db_path, reviewer="carol")
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, "disagreements")
        await pilot.press("enter")
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdjudicationScreen) and screen.item is not None
        assert screen.item.placement == {"1": placement["2"], "2": placement["1"]}
        # Reviewer 1 (ana, who submitted first) preferred what she saw as Response 1: on this
        # screen the same run is Response 2.
        assert screen.item.reviewers[0].judgment.preference == PreferenceChoice.RESPONSE_2
        assert screen.item.reviewers[0].judgment.responses["2"].scores["task_correctness"] == 2
        await pilot.press("p", "e", *"Reviewer 1 is right", "enter")
        await _settle(pilot)
    payload, stored = _rows(
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
    db_path, _pk, _codes = _database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, "disagreements")
        await pilot.press("enter")
        await _settle(pilot)
        hidden = _screen_text(pilot)
        assert "Reviewer 1" in hidden and "Reviewer 2" in hidden
        assert ANA not in hidden and BO not in hidden
        await pilot.press("v")
        await pilot.pause()
        shown = _screen_text(pilot)
        assert ANA in shown and BO in shown
        await pilot.press("v")
        await pilot.pause()
        assert ANA not in _screen_text(pilot)
        await pilot.press("p", "e", *"names were looked at", "enter")
        await _settle(pilot)
    # Hidden again before recording, but they were seen: the adjudication says so.
    assert _rows(db_path, "SELECT show_names FROM adjudications") == [(1,)]


async def test_an_unsubmitted_reviewer_of_the_item_is_refused(tmp_path: Path) -> None:
    db_path, _pk, codes = _database(tmp_path, dispute_only=True)
    app = make_app(db_path, reviewer=ANA)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, "disagreements")
        screen = app.screen
        assert isinstance(screen, DisagreementsScreen)
        text = _table_text(screen.query_one("#disagreements", DataTable))
        assert codes[1] in text
        assert "have not submitted" in text
        assert "GRADER_DISPUTE" not in text
        table = screen.query_one("#disagreements", DataTable)
        keys = [
            table.coordinate_to_cell_key(Coordinate(i, 0)).row_key.value
            for i in range(table.row_count)
        ]
        table.move_cursor(row=keys.index(codes[1]))
        await pilot.press("enter")
        await _settle(pilot)
        adjudication = app.screen
        assert isinstance(adjudication, AdjudicationScreen)
        assert adjudication.item is None
        shown = _screen_text(pilot)
        assert "Refused" in shown
        assert "has not submitted" in shown and "cannot adjudicate it" in shown
        assert "expected behaviour contradicts" not in shown
        await pilot.press("s")
        await _settle(pilot)
    assert _rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(0,)]


# -- agreement ------------------------------------------------------------------------------------
async def test_agreement_shows_denominators_and_undefined_reasons(tmp_path: Path) -> None:
    db_path, _pk, _codes = _database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with app.run_test(size=SIZE) as pilot:
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
        whole = _rendered(screen.shown.details[0])
        assert f"{ANA} × {BO}" in whole
        assert "Cohen κ" in whole and "κ quadratic" in whole
        assert f"{ANA} (rows) × {BO} (columns): " in whole and "on the diagonal" in whole
        # Nobody ticked a fatal criterion: no variation, so kappa-type figures are undefined,
        # each with its reason.
        table.move_cursor(row=variables.index("fatal_hit"))
        await pilot.pause()
        detail = _screen_text(pilot)
        assert "undefined: no variation: every judgment is 0" in detail
        assert "nan" not in detail.lower().split()


# -- results --------------------------------------------------------------------------------------
async def test_results_need_a_confirmed_unblinding_which_is_audited(tmp_path: Path) -> None:
    db_path, pk, _codes = _database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, "results")
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        text = _screen_text(pilot)
        assert "still blind" in text and "Press u to unblind" in text
        assert "Pass rate" not in text
        await pilot.press("u")
        await pilot.pause()
        assert isinstance(app.screen, UnblindScreen)
        await pilot.press(*"pilo", "enter")
        await _settle(pilot)
        assert isinstance(app.screen, UnblindScreen)
        assert "Type the study id exactly" in _screen_text(pilot)
        assert _rows(db_path, "SELECT COUNT(*) FROM audit_log WHERE action = 'unblind'") == [(0,)]
        await pilot.press(*["backspace"] * 4, *"pilot", "enter")
        await _settle(pilot)
        current: object = app.screen
        assert current is screen
        audit = _rows(db_path, "SELECT actor, action, detail FROM audit_log")
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
    db_path, pk, _codes = _database(tmp_path)
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
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, "results")
        assert isinstance(app.screen, ResultsScreen)
        text = _screen_text(pilot)
        assert "reviewer station" in text
        assert "Press u" not in text and "u Unblind" not in text
        await pilot.press("u")
        await pilot.pause()
        assert not isinstance(app.screen, UnblindScreen)
    assert _rows(station_path, "SELECT COUNT(*) FROM audit_log WHERE action = 'unblind'") == [(0,)]


async def test_several_designs_are_offered_in_a_list(tmp_path: Path) -> None:
    db_path, _pk, _codes = _database(tmp_path)
    db = connect(db_path)
    try:
        create_design(
            db,
            StudyDesign(study=STUDY, name="singles", seed=1, single_items=True, reviewers=[ANA]),
        )
    finally:
        db.close()
    app = make_app(db_path, reviewer="carol")
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, "agreement")
        assert isinstance(app.screen, DesignPickerScreen)
        text = _screen_text(pilot)
        assert "pilot / pairs v1" in text and "pilot / singles v1" in text
        await pilot.press("enter")
        await _settle(pilot)
        assert isinstance(app.screen, AgreementScreen)
        assert app.screen.design.name == "pairs"


# -- getting there --------------------------------------------------------------------------------
async def test_app_keys_and_the_palette_open_the_coordinator_screens(tmp_path: Path) -> None:
    db_path, _pk, _codes = _database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        home = app.screen
        await pilot.press("a")
        await _settle(pilot)
        assert isinstance(app.screen, DisagreementsScreen)
        await pilot.press("k")
        await _settle(pilot)
        assert isinstance(app.screen, AgreementScreen)
        await pilot.press("v")
        await _settle(pilot)
        assert isinstance(app.screen, ResultsScreen)
        await pilot.press("escape", "escape", "escape")
        await _settle(pilot)
        assert app.screen is home
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Agreement between")
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        for _ in range(50):
            if palette.query_one(CommandList).option_count:
                break
            await pilot.pause(0.05)
        await pilot.press("enter")
        await _settle(pilot)
        assert isinstance(app.screen, AgreementScreen)


# -- looks ----------------------------------------------------------------------------------------
def _snapshot_db(tmp_path: Path) -> Path:
    db_path, _pk, _codes = _database(tmp_path)
    return db_path


def test_agreement_screen_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    _snapshot_db(tmp_path)
    app = make_app(Path("admin.db"), reviewer="carol")

    async def open_agreement(pilot: Pilot[Any]) -> None:
        await _open(pilot, "agreement")
        table = pilot.app.screen.query_one("#variables", DataTable)
        table.move_cursor(row=0)
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=open_agreement)


def test_results_screen_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    _snapshot_db(tmp_path)
    db = connect(Path("admin.db"))
    try:
        unblind(db, STUDY, "carol")
        # The audit time is the one moving part of the page: fix it.
        db.execute("UPDATE audit_log SET at = '2026-01-02T03:04:05Z'")
    finally:
        db.close()
    app = make_app(Path("admin.db"), reviewer="carol")

    async def open_results(pilot: Pilot[Any]) -> None:
        await _open(pilot, "results")

    assert snap_compare(app, terminal_size=SIZE, run_before=open_results)
