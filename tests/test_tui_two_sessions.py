"""One reviewer in two sessions at once (two windows on a team's server): the item submitted in
one while the other holds a draft of it. The other window was trapped: its draft could never be
stored ("a change is a revised submission, not a draft"), each leave asked to retry a save that
could never succeed, and discarding was the only way out. Now that draft alone is set aside,
with a word, the item read again as the store has it (a change is then a revision, whose reason
`s` asks), and every other draft stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect, judging
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.revise import ReviseScreen
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


async def _shown_as_submitted_elsewhere(pilot: Pilot[Any], screen: CompareScreen) -> None:
    """The window reads the item again as the store has it (the other window's submission),
    says why, and stores or retries nothing; a change then is a revision, whose reason `s`
    asks."""
    await until(pilot, lambda: screen.drafts.status == "submitted", "seen as submitted")
    await until(pilot, lambda: screen.drafts.revision == 3, "the item read again")
    assert screen.drafts.judgment == screen.drafts.stored  # the other window's submission
    assert screen.drafts.judgment.justification == "From A."
    said = [n.message for n in pilot.app._notifications]
    assert any("was submitted in another window meanwhile" in m for m in said)
    assert not screen.drafts.unsaved
    await press(pilot, "1")  # changed here again: a revision of that submission
    await press(pilot, "escape")  # out of the justification, where the choice left the cursor
    await press(pilot, "s")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ReviseScreen)
    await press(pilot, "escape")
    await settle(pilot)
    assert not screen.drafts.unsaved


@pytest.mark.parametrize(
    "key",
    [
        "2",  # a change: stored as a draft, which the store refuses for good
        "s",  # a submission: refused, a change of a submitted item needs a reason
    ],
)
async def test_an_item_submitted_in_another_window_is_shown_as_submitted_and_said(
    tmp_path: Path, key: str
) -> None:
    db_path, pk = _database(tmp_path)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen, code = await _drafted_then_submitted_elsewhere(pilot, db_path, pk)
        stored = rows(db_path, SAVED, [code])
        await press(pilot, key)
        await _shown_as_submitted_elsewhere(pilot, screen)
    # The other window's submission is the last revision, intact: nothing stored after it.
    assert rows(db_path, SAVED, [code]) == stored and stored[-1][1] == "submitted"


async def test_another_items_draft_refused_for_good_is_set_aside_and_this_ones_stored(
    tmp_path: Path,
) -> None:
    """A draft of the item left behind, submitted meanwhile in the other window, reaches the
    store after the reviewer moved on: only that draft is set aside (said so); the draft of the
    item shown is stored, and nothing is left unsaved."""
    db_path, pk = _database(tmp_path)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen, left = await _drafted_then_submitted_elsewhere(pilot, db_path, pk)
        await press(pilot, "]")
        await until(pilot, lambda: screen.item is not None and screen.item.code != left, "next")
        assert screen.item is not None
        shown = screen.item.code
        # The left item's change, staged as a late debounced save would leave it.
        screen.desk.stage(left, 9, Judgment(preference=PreferenceChoice.TIE, justification="?"))
        await press(pilot, "2")  # this item's draft: stored with it, after the refused one
        await until(pilot, lambda: rows(db_path, SAVED, [shown]) != [], "this item's draft")
        await settle(pilot)
        said = [n.message for n in pilot.app._notifications]
        assert any(f"{left} was submitted in another window meanwhile" in m for m in said)
        assert app.failures == []  # set aside and said, not reported as a failed save
        assert not screen.drafts.unsaved and screen.drafts.status == "draft"
    assert rows(db_path, SAVED, [left])[-1] == (3, "submitted")  # nothing after it
