"""The blind scoring workstation: the compare screen, the queue, findings, drafts and blinding.

Every behavioural test drives the real app (``make_app``) with the keyboard on a real SQLite
file, waits for a condition or for the workers (never a fixed sleep: ``tests/tui_helpers.py``),
and checks the database and what the screen shows. The screens' looks are in
``test_tui_snapshots.py``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Collapsible, DataTable, Input, Static

from abp_tui.models import Judgment, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.desk import StoredDraft
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.finding import FindingScreen
from abp_tui.tui.screens.help import HelpScreen
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.join_design import JoinDesignScreen
from abp_tui.tui.screens.queue import QueueScreen
from abp_tui.tui.screens.revise import ReviseScreen
from abp_tui.tui.typing_guard import FOLLOW_SECONDS, TYPING_SECONDS
from abp_tui.tui.widgets.choices import ChoiceRow, OptionLabel
from abp_tui.tui.widgets.fatal_list import FatalOption
from abp_tui.tui.widgets.item_bar import OPENING_NOTICE_SECONDS
from abp_tui.tui.widgets.keybar import KeyBar
from abp_tui.tui.widgets.response import ResponseView
from abp_tui.tui.widgets.response_scoring import DimensionRow
from abp_tui.tui.widgets.textlayout import Alignment, diff_marks, display_text, wrap_offsets
from abp_tui.tui.widgets.textpane import TextPane
from tests.factories import AFP_DIMS, write_jsonl
from tests.tui_helpers import (
    TIMEOUT,
    compare_screen,
    drive,
    pair_design,
    pair_study,
    plain,
    press,
    rows,
    screen_text,
    settle,
    showing,
    static_text,
    study_database,
    svg_text,
    type_text,
    until,
)

SIZE = (160, 50)


# -- building studies -----------------------------------------------------------------------------
# -- pure layout functions ------------------------------------------------------------------------
def test_wrap_offsets_cover_the_text_by_cells() -> None:
    text = "word " * 30 + "\n\n" + "x" * 25 + "\n" + "漢字" * 12 + "\n" + "שלום עולם " * 3
    lines = wrap_offsets(text, 20)
    assert lines[0] == (0, 20) and text[0:20] == "word " * 4
    # every character except the line breaks is on exactly one visual line, in order
    covered = "".join(text[a:b] for a, b in lines)
    assert covered == text.replace("\n", "")
    from rich.cells import cell_len

    assert all(cell_len(text[a:b].rstrip()) <= 20 for a, b in lines)
    cjk = [text[a:b] for a, b in lines if "漢" in text[a:b]]
    assert cjk == ["漢字" * 5, "漢字" * 5, "漢字" * 2]  # 20 cells = 10 wide characters


def test_wrap_of_a_megabyte_is_fast_and_display_text_neutralises_controls() -> None:
    big = ("lorem ipsum dolor sit amet " * 40 + "\n") * 930
    assert len(big) > 1_000_000
    started = time.perf_counter()
    lines = wrap_offsets(big, 60)
    assert time.perf_counter() - started < 2.0
    assert len(lines) > 930 * 18
    shown = display_text("a\tb\r\nc\x1b[31md\u202ee\u200bf\x9b")
    assert shown == "a   b\nc␛[31md⟨U+202E⟩e⟨U+200B⟩f⟨U+009B⟩"


def test_diff_marks_hunks_and_alignment() -> None:
    left = "The launch moves to May. Ana owns the checklist."
    right = "The launch moves to June. Ana owns the checklist and the budget."
    marks = diff_marks(left, right)
    assert [left[a:b] for a, b in marks.left] == ["May"]
    assert [right[a:b] for a, b in marks.right] == ["June", " and the budget"]
    assert len(marks.hunks) == 2
    # "Ana" lines up in both texts
    assert marks.alignment.map(left.index("Ana"), True) == right.index("Ana")
    assert marks.alignment.map(right.index("Ana"), False) == left.index("Ana")
    plain = Alignment.plain(100, 300)
    assert plain.map(50, True) == 150 and plain.map(150, False) == 50


# -- (a) a whole pair item by keys --------------------------------------------------------------
async def test_score_a_whole_pair_by_keys_and_submit(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        code = screen.item.code
        assert len(pilot.app.screen_stack) >= 2 and isinstance(app.screen_stack[-2], HomeScreen)
        # the left and right texts shown are the two runs of the item's task
        shown = [screen.query_one(f"#text-{p}", TextPane).text for p in ("1", "2")]
        assert all("The launch moves to May." in t for t in shown)

        # submitting an empty judgment is refused and says what is missing
        await press(pilot, "s")
        assert screen.drafts.status == "todo"
        assert screen.query_one("#missing").has_class("-refused")
        listed = plain(screen.query_one("#missing", Static).content)
        assert "validity gate: check 'consistent' is not answered" in listed
        assert "Response 2: Failure control is not scored" in listed
        assert app.focused is not None and app.focused.id == "check-consistent"
        assert rows(db_path, "SELECT status FROM judgments WHERE status = 'submitted'") == []

        await press(pilot, *"yyyyy")  # the validity gate
        assert isinstance(app.focused, DimensionRow)
        await press(pilot, "2", "2", "1")  # Response 1: a 1 asks for a rationale
        assert isinstance(app.focused, Input)
        await type_text(pilot, "misses the owner")
        await press(pilot, "enter", "2")  # last dimension, then the fatal criteria
        await press(pilot, "tab", "tab")  # past the fatal list and the override row
        assert isinstance(app.focused, DimensionRow) and app.focused.id == "dim-2-task_correctness"
        await press(pilot, "2", "2", "2", "0")
        await type_text(pilot, "invents a date")
        await press(pilot, "enter")
        await press(pilot, "space")  # ticks the first fatal criterion of Response 2
        await press(pilot, "tab", "tab", "1")  # preference: Response 1
        await type_text(pilot, "Response 1 keeps to the memo")
        await press(pilot, "enter")
        assert "ready to submit" in plain(screen.query_one("#item-bar", Static).content)
        await press(pilot, "s")
        # the screen moved on to the next unfinished item
        assert screen.item is not None and screen.item.code != code
        assert screen.drafts.status == "todo"

    found = rows(
        db_path,
        "SELECT j.status, j.payload, j.placement, j.seconds_spent, j.revision FROM judgments j "
        "JOIN items i ON i.pk = j.item_pk WHERE i.code = ? AND j.reviewer = 'ana' "
        "ORDER BY j.revision",
        [code],
    )
    assert len(found) > 10  # every decision was stored as a draft as it was made
    assert [r[0] for r in found[:-1]] == ["draft"] * (len(found) - 1)
    status, payload_json, placement_json, seconds, _revision = found[-1]
    assert status == "submitted"
    assert seconds > 0
    payload, placement = json.loads(payload_json), json.loads(placement_json)
    first, second = (
        payload["responses"][str(placement["1"])],
        payload["responses"][str(placement["2"])],
    )
    assert first["scores"] == dict(zip(AFP_DIMS, (2, 2, 1, 2), strict=True))
    assert first["rationales"] == {"uncertainty_handling": "misses the owner"}
    assert second["scores"] == dict(zip(AFP_DIMS, (2, 2, 2, 0), strict=True))
    assert second["rationales"] == {"failure_control": "invents a date"}
    assert len(second["fatal_hits"]) == 1 and second["fatal_hits"][0].startswith("Invents an owner")
    assert payload["preference"] == "response_1"
    assert payload["justification"] == "Response 1 keeps to the memo"
    assert all(payload["validity"].values()) and len(payload["validity"]) == 5
    # the placement stored is the one shown: Response 1's text is that run's output
    (output_1,) = rows(
        db_path,
        "SELECT b.text FROM runs r JOIN blobs b ON b.sha256 = r.output_sha256 WHERE r.pk = ?",
        [placement["1"]],
    )[0]
    assert output_1 == shown[0]


async def test_keys_typed_in_one_burst_reach_the_rows_they_were_meant_for(tmp_path: Path) -> None:
    """A fast typist (or a paste) sends keys faster than the screen moves the focus: each key
    must still land on the row the previous choice moved to."""
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        burst = [*"yyyyy221", *"gap", "enter", "2", "tab", "tab", *"2220", *"no", "enter"]
        for key in burst:  # all queued before any is handled
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await settle(pilot)
        judgment = screen.drafts.judgment
    assert (
        judgment.validity == dict.fromkeys(judgment.validity, True) and len(judgment.validity) == 5
    )
    first, second = judgment.responses["1"], judgment.responses["2"]
    assert first.scores == dict(zip(AFP_DIMS, (2, 2, 1, 2), strict=True))
    assert first.rationales == {"uncertainty_handling": "gap"}
    assert second.scores == dict(zip(AFP_DIMS, (2, 2, 2, 0), strict=True))
    assert second.rationales == {"failure_control": "no"}


async def test_the_mouse_scores_ticks_and_switches_tabs(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        labels = list(screen.query_one("#dim-1-task_correctness").query(OptionLabel))
        labels[2].scroll_visible(animate=False)
        await pilot.pause()
        await pilot.click(labels[2])
        fatal = list(screen.query_one("#fatal-1").query(FatalOption))
        fatal[0].scroll_visible(animate=False)
        await pilot.pause()
        await pilot.click(fatal[0])
        await press(pilot, "r")  # the Trace tabs (a response without a trace has no tab bar)
        await pilot.click("#response-2 #output-2")
        await settle(pilot)
        response = screen.drafts.judgment.responses["1"]
        assert response.scores == {"task_correctness": 2}
        assert screen.item is not None
        assert response.fatal_hits == (screen.item.task.fatal_criteria[0],)
        assert response.fatal_hits[0].startswith("Invents an owner")
        assert not screen.query_one("#response-2", ResponseView).showing_trace
        assert screen.query_one("#response-1", ResponseView).showing_trace


async def test_fatal_hit_shows_model_fail_and_override_needs_a_reason(tmp_path: Path) -> None:
    lines = pair_study()
    lines[-1]["origin_status"] = "INFRA_ERROR"
    # A design shows such runs only when it asks to (seed 000: they are rerun, not judged).
    shows = pair_design().model_copy(update={"show_record_failures": True})
    db_path = study_database(tmp_path, lines, shows)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        # find the item with the INFRA_ERROR run
        for _ in range(2):
            assert screen.item is not None
            if any(r.record_state for r in screen.item.responses):
                break
            await press(pilot, "right_square_bracket")
        assert screen.item is not None
        position = next(r.key for r in screen.item.responses if r.record_state)
        text = screen_text(pilot)
        assert "The record marks this run INFRA_ERROR" in text
        section = screen.query_one(f"#score-{position}")
        result = section.query_one(".result", Static)
        section.query_one(DimensionRow).focus()
        await press(pilot, "2", "2", "2", "2")
        # Scores alone never change the record's state (seed 000's rerun rules).
        assert plain(result.content).startswith("Result: INFRA_ERROR  (the record's")
        fatal = app.focused
        assert fatal is not None and fatal.id == f"fatal-{position}"
        await press(pilot, "enter")  # Enter on the fatal criteria moves on, ticking nothing
        assert app.focused is not fatal
        fatal.focus()
        await press(pilot, "space")
        await press(pilot, "tab", "x")  # reclassify: the scores decide, with a reason
        assert "MODEL_FAIL" in plain(result.content)  # a fatal hit fails it whatever the total
        assert "reclassified from INFRA_ERROR" in plain(result.content)
        assert any("a reason is required to reclassify" in p for p in screen.form.missing())
        override = screen.query_one(f"#override-{position}")
        override.focus()
        await press(pilot, "c")  # confirm the record's state instead
        assert "INFRA_ERROR" in plain(result.content)
        assert f"Response {position}: a reason is required for INFRA_ERROR" in screen.form.missing()
        assert isinstance(app.focused, Input)
        await type_text(pilot, "runner timed out")
        await press(pilot, "enter")
        assert not any("a reason is required" in p for p in screen.form.missing())
    (payload,) = rows(
        db_path,
        "SELECT payload FROM judgments WHERE reviewer = 'ana' ORDER BY pk DESC LIMIT 1",
    )[0]
    states = [r["state_override"] for r in json.loads(payload)["responses"].values()]
    assert "INFRA_ERROR" in states


# -- (b) restart --------------------------------------------------------------------------------
async def test_drafts_survive_a_restart_and_the_reviewer_resumes_on_the_same_item(
    tmp_path: Path,
) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        first = screen.item.code
        await press(pilot, "right_square_bracket")
        assert screen.item is not None and screen.item.code != first
        second = screen.item.code
        await press(pilot, "y", "n")
        await press(pilot, *"yyy")
        await press(pilot, "1")
        assert "draft saved" in plain(screen.query_one("#item-bar", Static).content)
        # typing still waiting for its pause when the app closes is stored on the way out
        await type_text(pilot, "half a thought")
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None and screen.item.code == second
        assert screen.drafts.status == "draft"
        gate = {row.id: row.value for row in screen.query("#gate ChoiceRow").results(ChoiceRow)}
        assert gate == {
            "check-consistent": "yes",
            "check-visible": "no",
            "check-same_requirement": "yes",
            "check-invariant_assertions": "yes",
            "check-observable": "yes",
        }
        assert screen.query_one("#dim-1-task_correctness", ChoiceRow).value == "1"
        assert screen.query_one("#rationale-1-task_correctness", Input).value == "half a thought"
        # the first missing answer has the focus: the next dimension of Response 1
        assert app.focused is not None and app.focused.id == "dim-1-evidence_discipline"
        assert any("failed (visible)" in p for p in screen.form.missing())


# -- failures ------------------------------------------------------------------------------------
async def test_a_draft_the_store_refuses_is_said_and_the_app_keeps_running(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)

        def locked() -> list[StoredDraft]:
            raise sqlite3.OperationalError("database is locked")

        screen.desk.store_staged = locked  # type: ignore[method-assign]
        await press(pilot, "y")
        await until(pilot, lambda: app.failures, "the failure to be reported")
        failure = app.failures[-1]
        assert (failure.description, failure.reason) == ("Storing the draft", "database is locked")
        assert not failure.internal
        assert "NOT SAVED: database is locked" in static_text(pilot, "#item-bar")
        notices = [(n.title, n.message) for n in app._notifications]
        assert ("Storing the draft failed", "database is locked") in notices
        assert app.is_running and showing(pilot, screen)
        # The decision stayed staged; once the store answers again the newest one is stored.
        del screen.desk.store_staged
        await press(pilot, "n")
        await until(pilot, lambda: "draft saved" in static_text(pilot, "#item-bar"))
    stored = rows(db_path, "SELECT payload FROM judgments WHERE reviewer = 'ana'")
    assert [json.loads(p)["validity"] for (p,) in stored] == [
        {"consistent": True, "visible": False}
    ]


async def test_a_bug_in_a_worker_is_shown_and_does_not_end_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ABP_TUI_DEBUG", raising=False)  # with it, a bug ends the app loudly
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    # Not ``drive``: an internal error is what this test is about.
    async with app.run_test(size=SIZE) as pilot:
        screen = await compare_screen(pilot)

        def broken() -> set[str]:
            raise RuntimeError("a bug")

        screen.desk.finding_ids = broken  # type: ignore[method-assign]
        await press(pilot, "f")
        await until(pilot, lambda: app.failures, "the failure to be reported")
        failure = app.failures[-1]
        assert failure.internal and failure.reason == "RuntimeError: a bug"
        titles = [n.title for n in app._notifications]
        assert "Internal error: Reading the findings" in titles
        assert isinstance(app.screen, FindingScreen) and app.is_running
        assert "RuntimeError: a bug" in static_text(pilot, "#finding-error")


async def test_a_bug_while_submitting_keeps_the_decisions_as_a_draft(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ABP_TUI_DEBUG", raising=False)  # with it, a bug ends the app loudly
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with app.run_test(size=SIZE) as pilot:
        screen = await compare_screen(pilot)
        real_submit = screen.desk.submit

        def broken(code: str, judgment: Judgment, reason: str = "") -> object:
            with screen.desk._staged_lock:  # as the real one does before it saves
                screen.desk._staged.pop(code, None)
            raise RuntimeError("a bug")

        screen.desk.submit = broken  # type: ignore[assignment,method-assign]
        await press(pilot, "y")
        await press(pilot, "s")
        await until(pilot, lambda: app.failures, "the failure to be reported")
        assert app.failures[-1].internal
        await until(pilot, lambda: not screen.drafts.submitting, "the submission to be undone")
        assert screen.drafts.status != "submitting"
        assert "submitting…" not in static_text(pilot, "#item-bar")
        # The decision made before the failed submission was stored as a draft.
        await until(
            pilot,
            lambda: (
                rows(db_path, "SELECT count(*) FROM judgments WHERE reviewer = 'ana'")[0][0] > 0
            ),
            "the draft to be stored",
        )
        screen.desk.submit = real_submit  # type: ignore[method-assign]
        assert app.is_running
    stored = rows(db_path, "SELECT status, payload FROM judgments WHERE reviewer = 'ana'")
    assert stored and all(status == "draft" for status, _ in stored)
    assert json.loads(stored[-1][1])["validity"] == {"consistent": True}


def _position(db_path: Path, reviewer: str) -> list[tuple[Any, ...]]:
    return rows(
        db_path,
        "SELECT i.code FROM positions p JOIN items i ON i.pk = p.item_pk WHERE p.reviewer = ?",
        [reviewer],
    )


async def test_the_next_item_is_read_ahead_and_entered_only_when_shown(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        first = screen.item.code
        # While the first item is shown, the second is read ahead, diffed and wrapped ...
        ahead = screen.navigator.ahead
        assert ahead is not None and ahead.item.index == screen.item.index + 1
        assert ahead.read_ahead and ahead.item.code != first
        assert ahead.marks is not None and ahead.marks.hunks
        assert all(w is not None for w in ahead.wrapped)
        # ... without moving the reviewer there: a restart now resumes on the first item.
        assert _position(db_path, "ana") == [(first,)]
        # Another window saves a draft of the second item after it was read ahead.
        design_pk = rows(db_path, "SELECT pk FROM designs")[0][0]
        other = ReviewSession(connect(db_path), design_pk, "ana")
        try:
            other.save(ahead.item.code, Judgment(validity={"consistent": True}), 3.0)
        finally:
            other.db.close()
        started = time.monotonic()
        await press(pilot, "right_square_bracket")
        assert screen.item is not None and screen.item.code == ahead.item.code
        # The item shown is the newest: what was read ahead was read again.
        assert screen.drafts.status == "draft" and screen.drafts.revision == 1
        assert screen.query_one("#check-consistent", ChoiceRow).value == "yes"
        assert screen.pair.marks is not None and screen.pair.marks.hunks
        assert _position(db_path, "ana") == [(ahead.item.code,)]
        await press(pilot, "n")
        assert "draft saved" in plain(screen.query_one("#item-bar", Static).content)
    # The clock ran from when the item was shown, not from when it was read ahead.
    spent = rows(
        db_path,
        "SELECT j.seconds_spent FROM judgments j JOIN items i ON i.pk = j.item_pk "
        "WHERE i.code = ? ORDER BY j.revision DESC LIMIT 1",
        [ahead.item.code],
    )[0][0]
    assert 3.0 <= spent <= 3.0 + (time.monotonic() - started) + 0.5


async def test_the_last_key_wins_when_an_item_is_still_opening(tmp_path: Path) -> None:
    lines = pair_study()
    lines.append({"type": "task", "id": "T3", "prompt": "Summarise the memo for T3."})
    for cond in ("A", "C"):
        lines.append(
            {
                "type": "run",
                "id": f"T3-{cond}",
                "task_id": "T3",
                "condition_id": cond,
                "output": f"The launch moves to May (T3, {cond.lower()}).",
            }
        )
    db_path = study_database(tmp_path, lines, pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        await press(pilot, "right_square_bracket")
        assert screen.item is not None and screen.item.index == 1
        assert screen.navigator.ahead is not None and screen.navigator.ahead.item.index == 2
        third = screen.navigator.ahead.item.code
        open_item = screen.desk.open
        disk = threading.Event()

        def slow(code: str | None = None) -> Any:
            disk.wait(TIMEOUT)  # the disk answers when the test says so
            return open_item(code)

        screen.desk.open = slow  # type: ignore[method-assign]
        # "[" starts a slow opening of the first item; "]" then shows the third at once. The
        # first item, arriving later, is not shown over it.
        await press(pilot, "left_square_bracket", "right_square_bracket", settled=False)
        await until(pilot, lambda: screen.item is not None and screen.item.code == third)
        disk.set()
        await settle(pilot)
        assert screen.item is not None and screen.item.code == third
        assert _position(db_path, "ana") == [(third,)]


async def test_a_slow_item_is_announced_and_a_quick_one_is_not(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        bar = screen.query_one("#item-bar", Static)
        shown: list[str] = []
        update = bar.update

        def watched(content: Any = "", *, layout: bool = True) -> None:
            shown.append(plain(content))
            update(content, layout=layout)

        bar.update = watched  # type: ignore[method-assign]
        # Quick (not read ahead, but small): the bar goes straight from one item to the next.
        screen.navigator.drop_ahead()
        await press(pilot, "right_square_bracket")
        assert shown and not any("Opening" in text for text in shown)
        # Slow: opening takes longer than the notice's delay, so the bar says so meanwhile.
        open_item = screen.desk.open
        disk = threading.Event()

        def slow(code: str | None = None) -> Any:
            disk.wait(TIMEOUT)  # the disk answers when the test says so
            return open_item(code)

        screen.desk.open = slow  # type: ignore[method-assign]
        shown.clear()
        started = time.monotonic()
        await press(pilot, "left_square_bracket", settled=False)
        await until(pilot, lambda: any("Opening" in text for text in shown), "the notice")
        assert time.monotonic() - started >= OPENING_NOTICE_SECONDS
        disk.set()
        await until(pilot, lambda: screen.item is not None and screen.item.index == 0)
        await settle(pilot)
        assert "Opening" not in plain(bar.content)


async def test_text_typed_outside_a_field_is_held_back_with_a_notice(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        gate = screen.query_one("#check-consistent", ChoiceRow)
        assert app.focused is gate
        # The guard's clock is the test's: keys come when the test says they do.
        clock = [time.monotonic() + 1000.0]
        screen.guard.clock = lambda: clock[0]
        # "we say": w and e are bound to nothing here, so they start a burst of typing; the
        # space, the s (submit) and the y (a score) that follow closely are held back too.
        await press(pilot, *"we", "space", *"sy")
        assert showing(pilot, screen) and gate.value is None and screen.drafts.status == "todo"
        assert not screen.query_one("#missing").has_class("-refused")  # no submit was tried
        notices = [n.message for n in app._notifications]
        assert sum("keys act at once" in m for m in notices) == 1  # one notice per burst
        # Once the burst is over, keys act again.
        clock[0] += TYPING_SECONDS + 0.05
        await press(pilot, "y")
        assert gate.value == "yes"

        # The rules, one key at a time.
        def key(name: str, char: str) -> bool:
            clock[0] += 0.1
            return screen.holds_back(events.Key(name, char))

        row = screen.query_one("#check-visible", ChoiceRow)
        row.focus()
        await pilot.pause()
        clock[0] += 5
        assert not key("d", "d")  # a view key (the diff) acts ...
        assert key("h", "h")  # ... but "home" right after it is the "h" of "the"
        clock[0] += 5
        assert not key("y", "y")  # a score, then submit: both act (a letter's decision is
        clock[0] += FOLLOW_SECONDS  # tentative a moment: a letter that soon would undo it)
        assert not key("s", "s")
        clock[0] += 5
        assert not key("Y", "Y")  # bound elsewhere on the screen (the gate): just ignored
        clock[0] += FOLLOW_SECONDS
        assert not key("d", "d")
        clock[0] += 5
        assert key("w", "w") and key("d", "d")  # typing, then everything close behind it
        clock[0] += TYPING_SECONDS + 0.1
        assert not key("d", "d")
        assert not key("tab", "\t")  # not printable: never held back


async def test_revising_a_submitted_judgment_asks_for_a_reason(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        code = screen.item.code
        await press(pilot, *"YYYY")  # shift+y: all five checks hold
        await press(pilot, *"2222", "tab", "tab", *"2222", "tab", "tab", "t")
        await type_text(pilot, "same")
        await press(pilot, "enter", "s")
        assert screen.item is not None and screen.item.code != code
        await press(pilot, "left_square_bracket")
        assert screen.item is not None and screen.item.code == code
        assert screen.drafts.status == "submitted"
        await press(pilot, "right_curly_bracket")  # to Response 1
        await press(pilot, "1")
        assert "changed: s resubmits" in plain(screen.query_one("#item-bar", Static).content)
        assert isinstance(app.focused, Input)  # the rationale of a 1
        await type_text(pilot, "owner unclear")
        # leaving asks first (Escape leaves the text field); Back stays on the item
        await press(pilot, "escape", "right_square_bracket")
        assert isinstance(app.screen, ReviseScreen)
        await press(pilot, "escape")
        assert showing(pilot, screen) and screen.item is not None and screen.item.code == code
        screen.query_one("#dim-1-task_correctness").focus()
        await press(pilot, "s")
        assert isinstance(app.screen, ReviseScreen)
        await press(pilot, "enter")  # an empty reason is refused
        assert isinstance(app.screen, ReviseScreen)
        await type_text(pilot, "reread the memo")
        await press(pilot, "enter")
        assert showing(pilot, screen)
        # Quitting with a changed, unsubmitted judgment asks first too (Back keeps the app).
        if screen.item is not None and screen.item.code != code:
            await press(pilot, "left_square_bracket")
        assert screen.item is not None and screen.item.code == code
        assert screen.drafts.status == "submitted"
        screen.query_one("#dim-2-task_correctness").focus()
        await press(pilot, "1")
        await press(pilot, "escape", "q")
        assert isinstance(app.screen, ReviseScreen) and app.is_running
        await press(pilot, "escape")
        assert showing(pilot, screen) and app.is_running
    found = rows(
        db_path,
        "SELECT j.revision, j.status, j.reason FROM judgments j JOIN items i ON i.pk = j.item_pk "
        "WHERE i.code = ? AND j.status = 'submitted' ORDER BY j.revision",
        [code],
    )
    assert [(r[1], r[2]) for r in found] == [("submitted", ""), ("submitted", "reread the memo")]


# -- (c) hostile text -----------------------------------------------------------------------------
HOSTILE = (
    "[/] [bold red]x[/] [link=http://x]y[/link]\n"
    "esc \x1b[31mred\x1b[0m osc \x1b]8;;http://evil\x07click\x1b]8;;\x07 csi \x9b2J\n"
    "bidi \u202eevil\u202c zero\u200bwidth\ufeff\n"
    "漢字とかな、한국어 text; عربي مرحبا; עברית\n" + "long" * 2000
)


async def test_hostile_outputs_show_literally_and_a_megabyte_stays_responsive(
    tmp_path: Path,
) -> None:
    big = ("A very long answer line with words that wrap again and again. " * 30 + "\n") * 560
    assert len(big) > 1_000_000
    outputs = {
        ("T1", "A"): HOSTILE,
        ("T1", "C"): big,
        ("T2", "A"): "",
        ("T2", "C"): "[b]",
    }
    lines = pair_study(outputs)
    lines[3]["prompt"] = "[/] Summarise [bold red]T1[/] \x1b[2J"
    lines.insert(
        3,
        {
            "type": "trace_event",
            "run_id": "T1-A",
            "seq": 1,
            "kind": "[bold]call\x1b[2J",
            "tool": "[/]",
        },
    )
    db_path = study_database(tmp_path, lines, pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        for _ in range(2):
            assert screen.item is not None
            if "T1" in screen.item.task.prompt:
                break
            await press(pilot, "right_square_bracket")
        assert screen.item is not None and "T1" in screen.item.task.prompt
        title = screen.query_one("#task", Collapsible).query_one("CollapsibleTitle", Static)
        assert plain(title.visual).strip() == "▼ Task: [/] Summarise [bold red]T1[/] ␛[2J"
        output_panes = [view.pane for view in screen.query(ResponseView)]
        hostile = next(p for p in output_panes if p.text.startswith("[/]"))
        huge = next(p for p in output_panes if p is not hostile)
        assert hostile.text.startswith("[/] [bold red]x[/] [link=http://x]y[/link]")
        assert "␛[31mred␛[0m" in hostile.text and "␛]8;;http://evil␇click" in hostile.text
        assert "⟨U+009B⟩2J" in hostile.text
        assert "bidi ⟨U+202E⟩evil⟨U+202C⟩ zero⟨U+200B⟩width⟨U+FEFF⟩" in hostile.text
        assert "漢字とかな、한국어" in hostile.text and "عربي مرحبا" in hostile.text
        # the very long line is wrapped, not cut
        assert hostile.line_count > 8000 // hostile.size.width
        svg = app.export_screenshot()
        shown = svg_text(svg)
        assert "[bold red]x[/]" in shown and "[link=http://x]y[/link]" in shown
        assert "\x1b" not in svg and "\u202e" not in svg and "\x9b" not in svg
        # the megabyte is laid out (in a worker) and only the rows in view are drawn
        assert huge.is_laid_out and huge.line_count > 560 * 30
        assert len(huge._cache) <= huge.size.height + 2
        huge.focus()
        await press(pilot, "end")
        # Scrolling to the end may be animated: wait for it to arrive, then check.
        await until(pilot, lambda: huge.scroll_y == huge.max_scroll_y, "the end of the output")
        assert huge.scroll_y == huge.max_scroll_y > 0
        assert "again and again." in huge.visible_text()
        # Scrolling to the end draws the frames on the way (more when the machine is slow):
        # the cache stays a small fraction of the lines, never the whole megabyte.
        assert len(huge._cache) < huge.line_count // 10
        # the trace tab (the transcript) shows hostile trace text literally
        await press(pilot, "r")
        views = list(screen.query(ResponseView))
        await until(pilot, lambda: all(v.shown is not None for v in views), "the transcripts")
        traced = "\n".join(v.transcript_pane.text for v in views)
        assert "[bold]call␛[2J" in traced and "→ [/]" in traced
        await press(pilot, "r")
        assert screen.item is not None
        await press(pilot, "left_square_bracket" if screen.item.index else "right_square_bracket")
        texts = [view.pane.visible_text() for view in screen.query(ResponseView)]
        assert "(empty output)" in texts and "[b]" in texts


# -- diff, scrolling, navigation ----------------------------------------------------------------
async def test_diff_toggles_and_next_change_scrolls_both_panes(tmp_path: Path) -> None:
    common = "".join(f"Line {i} of the shared report says nothing new.\n" for i in range(120))
    outputs = {
        ("T1", "A"): common + "The owner is Ana.\n" + common,
        ("T1", "C"): common + "The owner is Bruno.\n" + common,
        ("T2", "A"): "same",
        ("T2", "C"): "same",
    }
    db_path = study_database(tmp_path, pair_study(outputs), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        if screen.item is not None and "T1" not in screen.item.task.prompt:
            await press(pilot, "right_square_bracket")
        assert screen.pair.marks is not None and len(screen.pair.marks.hunks) == 1
        left = screen.query_one("#text-1", TextPane)
        right = screen.query_one("#text-2", TextPane)
        assert left.changed and right.changed
        await press(pilot, "c")
        assert left.scroll_y > 100 and right.scroll_y > 100
        assert "The owner is" in left.visible_text() and "The owner is" in right.visible_text()
        assert left.current is not None
        # scrolling one pane scrolls the other to the same passage
        left.scroll_to(y=10, animate=False, immediate=True)
        await pilot.pause()
        assert abs(right.scroll_y - 10) <= 1
        await press(pilot, "d")
        assert left.changed == [] and right.changed == []
        assert "diff off" in plain(screen.query_one("#item-bar", Static).content)
        await press(pilot, "d")
        assert left.changed


async def test_queue_filters_and_jumps(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        first = screen.item.code
        await press(pilot, "y")
        await press(pilot, "l")
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        table = queue.query_one(DataTable)
        assert table.row_count == 2
        statuses = [plain(table.get_row_at(i)[3]) for i in range(2)]
        assert statuses == ["draft", "todo"]
        await press(pilot, "f", "f", "f")  # all -> unfinished -> todo -> draft
        assert queue.status_filter == "draft" and table.row_count == 1
        await press(pilot, "f")  # submitted: nothing yet
        assert table.row_count == 0
        await press(pilot, "f", "f")  # all (its rows read before the cursor moves on them)
        await press(pilot, "down", "enter")  # the second row
        assert showing(pilot, screen)
        assert screen.item is not None and screen.item.code != first


async def test_the_queue_offers_enter_on_its_list_and_leaves_it_to_the_find_field(
    tmp_path: Path,
) -> None:
    """The queue's key bar shows Enter (it was hidden behind the table's own Enter); typing in
    the find field, Enter is the field's: it goes to the list and opens nothing."""
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        await press(pilot, "l")
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        await until(pilot, lambda: queue.query_one(DataTable).row_count == 2, "the queue")

        def offered() -> set[str]:
            return {entry.description for entry in queue.query_one(KeyBar).active_entries()}

        assert "Open" in offered()
        await press(pilot, "slash")
        assert isinstance(app.focused, Input) and "Open" not in offered()
        await type_text(pilot, "zzz")
        await press(pilot, "enter")  # to the list, which is empty: nothing opens
        await settle(pilot)
        assert app.screen is queue and queue.query_one(DataTable).row_count == 0
        assert "Open" not in offered()
        await press(pilot, "slash", "escape")  # the field cleared: the items are back
        await until(pilot, lambda: queue.query_one(DataTable).row_count == 2, "the items")
        queue.query_one(DataTable).focus()
        await settle(pilot)
        assert "Open" in offered()
        await press(pilot, "enter")
        assert showing(pilot, screen)


async def test_command_palette_and_help_list_the_study_actions(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        screen.set_focus(None)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        listed = {k.description for k in app.screen.keys}
        assert {"Submit", "Next", "Prev", "Unfinished", "Queue", "Diff", "Change"} <= listed
        assert {"Trace", "Task", "Finding", "Home", "Keys"} <= listed
        await press(pilot, "escape")
        await press(pilot, "ctrl+p")
        await type_text(pilot, "open my queue")
        await press(pilot, "enter")
        assert isinstance(app.screen, QueueScreen)
        await press(pilot, "escape")
        await press(pilot, "h")
        assert isinstance(app.screen, HomeScreen)
        await press(pilot, "j")
        assert isinstance(app.screen, CompareScreen)


async def test_a_finding_is_recorded_and_linked_to_the_item_runs(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        code = screen.item.code
        await press(pilot, "f")
        assert isinstance(app.screen, FindingScreen)
        assert app.screen.query_one("#finding-id", Input).value == f"F-{code}-ana"
        await press(pilot, "ctrl+s")  # no title yet: refused, stays open
        assert isinstance(app.screen, FindingScreen)
        await type_text(pilot, "Owner invented")
        await press(pilot, "ctrl+s")
        assert showing(pilot, screen)
    found = rows(
        db_path,
        "SELECT f.id, f.reviewer, f.document, COUNT(fr.run_pk) FROM findings f "
        "JOIN finding_runs fr ON fr.finding_pk = f.pk GROUP BY f.pk",
    )
    assert len(found) == 1
    finding_id, reviewer, document, runs = found[0]
    assert (finding_id, reviewer, runs) == (f"F-{code}-ana", "ana", 2)
    assert json.loads(document)["title"] == "Owner invented"
    assert json.loads(document)["layer"] == "model"


async def test_no_design_opens_home_and_an_open_design_waits_for_the_reviewer(
    tmp_path: Path,
) -> None:
    db_path = tmp_path / "plain.db"
    db = connect(db_path)
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", pair_study())])
    db.close()
    app = make_app(db_path, reviewer="bo")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
    db_path = study_database(tmp_path, pair_study(), pair_design(reviewers=[]), name="open.db")
    app = make_app(db_path, reviewer="bo")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        # An open design is not joined behind the reviewer's back at start-up...
        assert isinstance(app.screen, HomeScreen)
        enrolled = connect(db_path).execute("SELECT COUNT(*) FROM enrolments").fetchone()[0]
        assert enrolled == 0
        # ...but `j` (judge) opens it and, once they say yes, enrols them.
        await press(pilot, "j")
        await until(pilot, lambda: isinstance(app.screen, JoinDesignScreen), "the question")
        await press(pilot, "y")
        screen = await compare_screen(pilot)
        assert screen.item is not None and screen.item.total == 2


# -- (d) blinding ---------------------------------------------------------------------------------
IDENTITIES = (
    "zephyr-governed",
    "Zephyr Governed Workflow",
    "quasar-base",
    "Quasar Baseline Mode",
    "acmeco/zeta-model-9",
    "zeta-model-9",
    "borealis/nimbus-7b",
    "nimbus-7b",
    "acmecloud",
    "borealis-ai",
    "warpdrive",
    "hyperlane",
    "run-0",
    "blind-runs.jsonl",
)


def _blind_study() -> list[dict[str, Any]]:
    who = {
        "zephyr-governed": (
            "acmeco/zeta-model-9",
            "acmecloud",
            "warpdrive",
            "Zephyr Governed Workflow",
        ),
        "quasar-base": ("borealis/nimbus-7b", "borealis-ai", "hyperlane", "Quasar Baseline Mode"),
    }
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": "blind-study", "rubric_id": "afp-v0.1"},
        {"type": "condition", "id": "zephyr-governed", "label": "Zephyr Governed Workflow"},
        {"type": "condition", "id": "quasar-base", "label": "Quasar Baseline Mode"},
    ]
    n = 0
    for task in ("T1", "T2"):
        lines.append({"type": "task", "id": task, "prompt": f"Answer question {task}."})
        for cond, (model, provider, engine, label) in who.items():
            n += 1
            run_id = f"run-0{n}"
            lines.append(
                {
                    "type": "trace_event",
                    "run_id": run_id,
                    "seq": 1,
                    "kind": f"{engine}.model_call",
                    "tool": f"{provider}-search",
                    "input_tokens": 10,
                }
            )
            lines.append(
                {
                    "type": "run",
                    "id": run_id,
                    "task_id": task,
                    "condition_id": cond,
                    "model": model,
                    "provider": provider,
                    "engine": engine,
                    "engine_version": "4.2",
                    "origin_status": "INFRA_ERROR" if n == 4 else None,
                    "output": (
                        f"As {model.split('/')[1]} served by {provider} on {engine}, following "
                        f"the {label} ({cond}), my answer to {task} is: the launch moves to May."
                    ),
                }
            )
    return lines


async def test_no_blind_screen_shows_an_identity(tmp_path: Path) -> None:
    db_path = tmp_path / "blind.db"
    db = connect(db_path)
    import_paths(db, [write_jsonl(tmp_path / "blind-runs.jsonl", _blind_study())])
    create_design(
        db,
        StudyDesign(
            study="blind-study",
            name="blind",
            seed=5,
            contrasts="all-pairs",
            single_items=True,
            reviewers=["ana"],
            show_record_failures=True,  # the INFRA_ERROR run's note is a screen to check too
        ),
    )
    db.close()
    app = make_app(db_path, reviewer="ana")
    seen: list[str] = []
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        total = screen.item.total
        assert total == 6  # two pairs and four single responses
        codes = set()
        for _ in range(total):
            assert screen.item is not None
            codes.add(screen.item.code)
            # the masking really happened on this item (so the check below can fail)
            assert all("«masked»" in r.text for r in screen.item.responses)
            seen.append(screen_text(pilot))
            await press(pilot, "r")  # the trace tabs
            seen.append(screen_text(pilot))
            await press(pilot, "r")
            await press(pilot, "right_square_bracket")
        assert len(codes) == total
        screen.set_focus(None)
        for key in ("l", "question_mark", "f"):
            await press(pilot, key)
            assert app.screen is not screen
            seen.append(screen_text(pilot))
            await press(pilot, "escape")
    text = "\n".join(seen).lower()
    assert "«masked»" in text and "infra_error" in text and "response 2" in text
    for identity in IDENTITIES:
        assert identity.lower() not in text, identity


async def test_the_key_bar_offers_every_preference_at_80_columns(tmp_path: Path) -> None:
    """On a preference-only design the bar showed "1 Response 1" alone at 80 columns, 2, t and
    i behind its "+13": the four choices are one entry, shown first."""
    design = pair_design().model_copy(update={"rubric": "none"})
    db_path = study_database(tmp_path, pair_study(), design)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (80, 24)) as pilot:
        screen = await compare_screen(pilot)
        await settle(pilot)
        entries = screen.query_one(KeyBar).active_entries()
        (prefer,) = [e for e in entries if e.description == "Prefer"]
        assert prefer.display == "1 2 t i"
        assert "1 2 t i Prefer" in plain(screen.query_one(KeyBar).render())
