"""One reviewer in two sessions at once (two windows on a team's server): the item submitted in
one while the other holds a draft of it. The other window was trapped: its draft could never be
stored ("a change is a revised submission, not a draft"), each leave asked to retry a save that
could never succeed, and discarding was the only way out. Now what it shows becomes a revision
of that submission: `s` asks its reason, and leaving asks nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect, judging
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.revise import ReviseScreen
from abp_tui.tui.screens.unsaved import UnsavedScreen
from tests.tui_helpers import (
    compare_screen,
    drive,
    pair_design,
    pair_study,
    press,
    rows,
    settle,
    study_database,
    type_text,
    until,
)

SIZE = (120, 40)
SAVED = (
    "SELECT j.revision, j.status FROM judgments j JOIN items i ON i.pk = j.item_pk "
    "WHERE i.code = ? ORDER BY j.revision"
)


def _database(tmp_path: Path) -> tuple[Path, int]:
    lines = pair_study()
    lines[0] = {k: v for k, v in lines[0].items() if k != "rubric_id"}  # preference only
    db_path = study_database(tmp_path, lines, pair_design().model_copy(update={"rubric": "none"}))
    db = connect(db_path)
    try:
        (design,) = judging.designs(db)
    finally:
        db.close()
    return db_path, design.pk


def _submit_elsewhere(db_path: Path, pk: int, code: str) -> None:
    """The reviewer's other window submits the item."""
    db = connect(db_path)
    try:
        judgment = Judgment(preference=PreferenceChoice.RESPONSE_2, justification="From A.")
        ReviewSession(db, pk, "ana").save(code, judgment, 3, submit=True)
    finally:
        db.close()


async def _drafted_then_submitted_elsewhere(
    pilot: Pilot[Any], db_path: Path, pk: int
) -> tuple[CompareScreen, str]:
    """This window drafts the first item (a preference and its justification); then the other
    window submits it. The compare screen and the item's code."""
    screen = await compare_screen(pilot)
    assert screen.item is not None
    code = screen.item.code
    await press(pilot, "1")
    await type_text(pilot, "Response 1 answers it.")
    await press(pilot, "escape")
    await until(pilot, lambda: screen.drafts.status == "draft", "the draft stored")
    _submit_elsewhere(db_path, pk, code)
    return screen, code


async def test_a_draft_of_an_item_submitted_in_another_window_becomes_a_revision(
    tmp_path: Path,
) -> None:
    db_path, pk = _database(tmp_path)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen, code = await _drafted_then_submitted_elsewhere(pilot, db_path, pk)
        stored = rows(db_path, SAVED, [code])
        await press(pilot, "2")  # a change: stored as a draft, which the store refuses for good
        await until(pilot, lambda: screen.drafts.status == "submitted", "seen as submitted")
        assert not screen.drafts.unsaved
        await press(pilot, "escape")  # out of the justification, where the choice left the cursor
        await press(pilot, "s")  # a revision of the submission: its reason is asked
        await settle(pilot)
        assert isinstance(app.screen, ReviseScreen)
        await press(pilot, "escape")
        await settle(pilot)
        await press(pilot, "q")  # nothing unsaved to ask about
        await settle(pilot)
        assert not isinstance(app.screen, UnsavedScreen)
    # The other window's submission is the last revision, intact: nothing stored after it.
    assert rows(db_path, SAVED, [code]) == stored and stored[-1][1] == "submitted"


async def test_submitting_over_another_windows_submission_asks_for_a_reason(
    tmp_path: Path,
) -> None:
    db_path, pk = _database(tmp_path)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen, _code = await _drafted_then_submitted_elsewhere(pilot, db_path, pk)
        await press(pilot, "s")  # refused: it was submitted meanwhile, a change needs a reason
        await until(pilot, lambda: screen.drafts.status == "submitted", "seen as submitted")
        assert not screen.drafts.unsaved
        await press(pilot, "s")
        await settle(pilot)
        assert isinstance(app.screen, ReviseScreen)
