"""The transcript view on the adjudication screen: what each agent did, swapped, masked, searchable.

Two reviewers (ana, bo) disagree on an item of two agent runs (``tests/transcript_helpers.py``:
engines quasar-agent and nebula-agent, only nebula's tests fail). The adjudicator, cora, opens it
from the disagreement list and presses ``r``: both responses show the compare screen's full
transcript (each step's message, tool and arguments, result folded, error, tokens and time), in
the adjudication's blind-swapped placement, masked like the outputs. ``/`` searches them and
``n`` / ``N`` jump between hits; ``z`` unfolds (``e`` is the note's key on this screen).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.adjudication_transcripts import adjudication_transcripts
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store.judging import BlindingError
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.screens.designs import open_review_screen
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from abp_tui.tui.widgets.response import ResponseView
from abp_tui.tui.widgets.textpane import TextPane
from tests.factories import flipped
from tests.transcript_helpers import (
    SIZE,
    agent_study,
    both_transcripts,
    runs_shown,
    screen_ready,
)
from tests.tui_helpers import drive, press, rows, screen_text, settle, steady, study_database, until

ADJUDICATOR = "cora"


def _disputed(tmp_path: Path, *, bo_submits: bool = True) -> tuple[Path, int, str]:
    """The agent study with a design ana and bo both judge; they prefer different runs.
    Returns the database, the design's key and the item's code."""
    design = StudyDesign(
        study="agents",
        name="pairs",
        seed=3,
        contrasts=[("quasar-agent", "nebula-agent")],
        reviewers=["ana", "bo"],
        reviewers_per_item=2,
    )
    db_path = study_database(tmp_path, agent_study(), design, name="agents.db")
    db = connect(db_path)
    try:
        ana, bo = ReviewSession(db, 1, "ana"), ReviewSession(db, 1, "bo")
        (row,) = ana.queue()
        code = row.code
        ana.save(
            code,
            Judgment(preference=PreferenceChoice.RESPONSE_1, justification="A"),
            3,
            submit=True,
        )
        same = flipped(ana, code) == flipped(bo, code)
        other = PreferenceChoice.RESPONSE_2 if same else PreferenceChoice.RESPONSE_1
        bo.save(code, Judgment(preference=other, justification="B"), 3, submit=bo_submits)
    finally:
        db.close()
    return db_path, 1, code


def _listed(screen: DisagreementsScreen) -> bool:
    """The screen's worker has read the queue and its one disagreement is in the table."""
    tables = list(screen.query(DataTable))
    return screen.queue is not None and len(tables) == 1 and tables[0].row_count == 1


async def _adjudication(pilot: Pilot[Any], db_path: Path) -> AdjudicationScreen:
    await settle(pilot)
    open_review_screen(pilot.app, db_path, ADJUDICATOR, "disagreements")
    await screen_ready(pilot, DisagreementsScreen, _listed, "the disagreement list")
    await press(pilot, "enter")
    return await screen_ready(
        pilot, AdjudicationScreen, lambda s: s.item is not None, "the item to adjudicate"
    )


async def _transcripts(pilot: Pilot[Any], screen: AdjudicationScreen) -> list[ResponseView]:
    return await both_transcripts(pilot, screen)


def _run_ids(db_path: Path, placement: dict[str, int]) -> list[str]:
    found = dict(rows(db_path, "SELECT pk, id FROM runs"))
    return [found[placement[p]] for p in sorted(placement)]


async def test_r_shows_both_full_transcripts_in_the_swapped_placement(tmp_path: Path) -> None:
    db_path, _pk, code = _disputed(tmp_path)
    app = make_app(db_path, reviewer=ADJUDICATOR)
    async with drive(app, SIZE) as pilot:
        screen = await _adjudication(pilot, db_path)
        views = await _transcripts(pilot, screen)
        assert len(views) == 2 and all(v.showing_trace for v in views)
        texts = [v.transcript_pane.text for v in views]
        for text in texts:
            # the compare screen's transcript, not the trace table: messages, tools, results
            assert "▌2 model.call" in text and "in 1,200" in text and "out 300" in text
            assert "I am «masked»: I will read the pager first." in text
            assert "→ read_file" in text and '"path": "src/pager.py"' in text
            assert "→ run_tests" in text and "2.1 s" in text
            assert "PASSED tests/test_case_000" in text
        assert screen.item is not None
        shown = _run_ids(db_path, screen.item.placement)
        # Blind-swapped: the reverse of what ana, who submitted first, saw.
        assert shown == list(reversed(runs_shown(db_path, code, "ana")))
        # Response N's transcript is the run in position N (only nebula's tests failed).
        for text, run in zip(texts, shown, strict=True):
            assert ("exit status 1" in text) == run.endswith("nebula-agent"), run
        seen = screen_text(pilot).lower()
        for identity in ("quasar", "nebula", "acme", "resolved", "fix-paging/"):
            assert identity not in seen, identity


async def test_slash_searches_the_transcripts_and_n_jumps_between_hits(tmp_path: Path) -> None:
    db_path, _pk, _code = _disputed(tmp_path)
    app = make_app(db_path, reviewer=ADJUDICATOR)
    async with drive(app, SIZE) as pilot:
        screen = await _adjudication(pilot, db_path)
        views = await _transcripts(pilot, screen)
        assert all("test_case_059" not in v.transcript_pane.text for v in views)
        await press(pilot, "slash")
        assert isinstance(app.focused, Input) and app.focused.id != "note"
        for char in "TEST_CASE_059":
            await pilot.press(char)
        await press(pilot, "enter")
        pair = screen.pair
        await until(pilot, lambda: len(pair.hits) == 2 and not pair.searching, "the hits")
        for view in views:
            pane = view.transcript_pane
            ((a, b),) = pane.hits  # the folded block holding the hit is unfolded
            assert pane.text[a:b] == "test_case_059"
        first = pair.hit_index
        await press(pilot, "n")
        assert pair.hit_index != first
        await press(pilot, "N")
        assert pair.hit_index == first
        # The note was never typed into, and nothing was recorded.
        assert screen.query_one("#note", Input).value == ""
        assert not rows(db_path, "SELECT pk FROM adjudications")


async def test_z_unfolds_a_long_result_and_e_still_goes_to_the_note(tmp_path: Path) -> None:
    db_path, _pk, _code = _disputed(tmp_path)
    app = make_app(db_path, reviewer=ADJUDICATOR)
    async with drive(app, SIZE) as pilot:
        screen = await _adjudication(pilot, db_path)
        views = await _transcripts(pilot, screen)
        view = views[0]
        assert view.shown is not None
        text = view.transcript_pane.text
        assert "more lines folded" in text and "z unfolds" in text and "e unfolds" not in text
        fold = next(f for f in view.shown.layout.folds if f.folded)
        view.transcript_pane.scroll_to_offset(fold.marker[0])
        await settle(pilot)
        await press(pilot, "z")
        await until(pilot, lambda: "test_case_059" in view.transcript_pane.text, "unfolded")
        assert "z folds this back" in view.transcript_pane.text
        # The other pane scrolls on its own here: its block is still folded, so Z unfolds all...
        await press(pilot, "Z")
        await until(
            pilot,
            lambda: all("test_case_059" in v.transcript_pane.text for v in views),
            "all unfolded",
        )
        # ...and Z again folds every block back.
        await press(pilot, "Z")
        await until(
            pilot,
            lambda: all("test_case_059" not in v.transcript_pane.text for v in views),
            "all folded",
        )
        await press(pilot, "e")
        assert isinstance(app.focused, Input) and app.focused.id == "note"


def test_the_core_refuses_a_pending_reviewer_and_a_foreign_placement(tmp_path: Path) -> None:
    db_path, pk, code = _disputed(tmp_path, bo_submits=False)
    db = connect(db_path)
    try:
        pks = [int(r[0]) for r in db.execute("SELECT pk FROM runs ORDER BY pk").fetchall()]
        placement = dict(zip(("1", "2"), pks, strict=True))
    finally:
        db.close()
    with pytest.raises(BlindingError, match="bo is a reviewer of"):
        adjudication_transcripts(db_path, pk, code, "bo", placement)
    shown = adjudication_transcripts(db_path, pk, code, ADJUDICATOR, placement)
    assert len(shown) == 2 and all(t.masked for t in shown)
    with pytest.raises(Exception, match="does not name this item's responses"):
        adjudication_transcripts(db_path, pk, code, ADJUDICATOR, {"1": placement["1"]})


def test_adjudication_transcript_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any
) -> None:
    """The disputed item with both responses switched to their transcripts."""
    monkeypatch.setenv("TZ", "UTC")
    db_path, _pk, _code = _disputed(tmp_path)
    app = make_app(db_path, reviewer=ADJUDICATOR)

    async def transcripts(pilot: Pilot[Any]) -> None:
        screen = await _adjudication(pilot, db_path)
        await _transcripts(pilot, screen)
        for pane in screen.query(TextPane):
            pane.scroll_home(animate=False)
        steady(pilot)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=transcripts)
