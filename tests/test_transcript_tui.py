"""The transcript view on the compare screen: what the agent did, side by side, folded, blind.

Every test drives the real app (``make_app``) with the keyboard on a real SQLite file and waits
for conditions (``tests/tui_helpers.py``). The agent study is in ``tests/transcript_helpers.py``;
the ABP demo folder is driven too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.widgets.response import READING
from abp_tui.tui.widgets.textpane import TextPane
from tests.factories import FIXTURES
from tests.transcript_helpers import SIZE, agent_database, runs_shown, transcripts_shown
from tests.tui_helpers import compare_screen, drive, press, screen_text, settle, steady, until


async def test_r_shows_both_transcripts_side_by_side(tmp_path: Path) -> None:
    app = make_app(agent_database(tmp_path), reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        views = await transcripts_shown(pilot, screen)
        assert all(v.showing_trace for v in views)
        texts = [v.transcript_pane.text for v in views]
        for text in texts:
            # each step: the model's message, the tool and its arguments, its result, tokens
            assert "▌2 model.call" in text and "in 1,200" in text and "out 300" in text
            assert "I am «masked»: I will read the pager first." in text
            assert "→ read_file" in text and '"path": "src/pager.py"' in text
            assert (
                "→ run_tests" in text and "2.1 s" in text and "PASSED tests/test_case_000" in text
            )
        # Response N's transcript is the run shown as Response N (only nebula's tests failed)
        assert screen.item is not None
        shown_runs = runs_shown(app.db_path, screen.item.code)
        for text, run in zip(texts, shown_runs, strict=True):
            assert ("exit status 1" in text) == run.endswith("nebula-agent"), run
        shown = screen_text(pilot).lower()
        for identity in ("quasar", "nebula", "acme", "resolved", "fix-paging/"):
            assert identity not in shown, identity
        # back to the outputs, and the trace stays read for this item
        await press(pilot, "r")
        assert not any(v.showing_trace for v in views)


async def test_long_results_fold_and_e_unfolds_them(tmp_path: Path) -> None:
    app = make_app(agent_database(tmp_path), reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        views = await transcripts_shown(pilot, screen)
        view = views[0]
        assert view.shown is not None
        text = view.transcript_pane.text
        assert "test_case_003" in text and "test_case_059" not in text
        assert "more lines folded" in text
        fold = next(f for f in view.shown.layout.folds if f.folded)
        view.transcript_pane.scroll_to_offset(fold.marker[0])
        await settle(pilot)
        await press(pilot, "e")
        await until(pilot, lambda: "test_case_059" in view.transcript_pane.text, "unfolded")
        assert "e folds this back" in view.transcript_pane.text
        await press(pilot, "E")  # every block folds back
        await until(pilot, lambda: "test_case_059" not in view.transcript_pane.text, "folded")
        await press(pilot, "E")  # and all unfold
        await until(pilot, lambda: "test_case_059" in view.transcript_pane.text, "all unfolded")
        assert all(not f.folded for f in view.shown.layout.folds)


async def test_a_click_on_a_fold_marker_unfolds_it(tmp_path: Path) -> None:
    app = make_app(agent_database(tmp_path), reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        views = await transcripts_shown(pilot, screen)
        pane = views[1].transcript_pane
        shown = views[1].shown
        assert shown is not None
        fold = next(f for f in shown.layout.folds if f.folded)
        pane.scroll_to_offset(fold.marker[0], context=0)
        await settle(pilot)
        row = pane.line_of(fold.marker[0]) - round(pane.scroll_y)
        assert 0 <= row < pane.size.height
        await pilot.click(pane, offset=(4, row))
        await until(pilot, lambda: "test_case_059" in pane.text, "unfolded by the click")


async def test_e_outside_the_transcripts_says_why_nothing_happened(tmp_path: Path) -> None:
    app = make_app(agent_database(tmp_path), reviewer="ana")
    async with drive(app, SIZE) as pilot:
        await compare_screen(pilot)
        await press(pilot, "e")
        assert any("press r" in str(n.message) for n in app._notifications)


async def test_the_next_item_reads_its_transcripts_while_the_trace_tabs_stay(
    tmp_path: Path,
) -> None:
    db_path = tmp_path / "demo.db"
    db = connect(db_path)
    import_paths(db, [FIXTURES / "demo" / "abp-demo"])
    create_design(
        db,
        StudyDesign(
            study="abp-demo",
            name="pairs",
            seed=4,
            contrasts=[("demo-engine-beta", "demo-engine-alpha")],
            reviewers=["ana"],
        ),
    )
    db.close()
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        views = await transcripts_shown(pilot, screen)
        first = screen.item.code if screen.item else ""
        before = [v.transcript_pane.text for v in views]
        await press(pilot, "right_square_bracket")
        await until(
            pilot,
            lambda: (
                screen.item is not None
                and screen.item.code != first
                and all(v.shown is not None for v in views)
            ),
            "the next item's transcripts",
        )
        after = [v.transcript_pane.text for v in views]
        assert after != before and all(READING not in t for t in after)
        for text in after:
            assert text.startswith("ABP trace")
            assert "▌1 run.start" in text and "run.end" in text
        shown = screen_text(pilot).lower()
        for identity in ("demo-engine", "demo-model", "synthetic-demo", "resolved"):
            assert identity not in shown, identity


def test_transcript_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any
) -> None:
    """Both responses switched to their transcripts: steps, tools, a folded result."""
    monkeypatch.setenv("TZ", "UTC")
    app = make_app(agent_database(tmp_path), reviewer="ana")

    async def transcripts(pilot: Pilot[Any]) -> None:
        screen = await compare_screen(pilot)
        await transcripts_shown(pilot, screen)
        for pane in screen.query(TextPane):
            pane.scroll_home(animate=False)
        steady(pilot)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=transcripts)


async def test_shift_down_pages_the_transcripts_as_it_pages_the_outputs(tmp_path: Path) -> None:
    app = make_app(agent_database(tmp_path), reviewer="ana")
    async with drive(app, (120, 30)) as pilot:
        screen = await compare_screen(pilot)
        views = await transcripts_shown(pilot, screen)
        pane = views[0].transcript_pane
        assert pane.scroll_y == 0 and pane.max_scroll_y > 0
        await press(pilot, "shift+down")
        await settle(pilot)
        assert pane.scroll_y > 0  # the transcript shown moved a page, not the hidden output
        assert views[0].pane.scroll_y == 0
        paged = pane.scroll_y
        await press(pilot, "pagedown")  # PageDown pages the responses too, not the form
        await settle(pilot)
        assert pane.scroll_y > paged
