"""Adjudicating the main study: a pairwise preference, nothing else, judged by two reviewers.

The adjudicator finds the way in from the home screen (which names each design's adjudicators
and tells the one who may adjudicate that ``a`` lists the disagreements: at 80 columns ``a`` is
one of the footer's hidden keys). On a preference-only item's first adjudication the
preference's justification is the note, rather than asking the same sentence twice; a revision
still needs a note of its own. With the focus already in the note, the item bar does not tell
the adjudicator to press ``e`` (which would type an "e" there).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input

from abp_tui.models import PreferenceChoice
from abp_tui.services.results_report import unblind
from abp_tui.services.studies import read_study_detail
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.adjudicate import NOTE_REQUIRED, AdjudicationScreen
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from abp_tui.tui.screens.home import progress_text
from tests.tui_helpers import (
    ANA,
    BO,
    HumanPace,
    adjudicate_highlighted,
    drive,
    plain,
    preference_admin_database,
    press,
    rows,
    settle,
    static_text,
    type_text,
    until,
)

WORDS = "Response 1 keeps every fact in fewer words."


def test_the_home_screen_names_the_adjudicators_and_tells_theirs_the_key(tmp_path: Path) -> None:
    db_path, _pk, _codes = preference_admin_database(tmp_path)
    detail = read_study_detail(db_path, "pilot")
    ((label, _reviewers),) = detail.progress
    assert detail.adjudicators == {label: ("carol",)}
    for_carol = plain(
        progress_text(detail.progress, viewer="carol", adjudicators=detail.adjudicators)
    )
    assert "adjudicator carol" in for_carol
    assert "you adjudicate: a lists its disagreements" in for_carol
    for_ana = plain(progress_text(detail.progress, viewer=ANA, adjudicators=detail.adjudicators))
    assert "adjudicator carol" in for_ana and "you adjudicate" not in for_ana
    # A design naming nobody may be adjudicated by anyone who did not judge its items.
    anyone = plain(progress_text(detail.progress, viewer="dave", adjudicators={}))
    assert "you adjudicate: a lists its disagreements" in anyone
    assert "you adjudicate" not in plain(progress_text(detail.progress, viewer=ANA))


async def _first_disagreement(pilot: Any) -> AdjudicationScreen:
    """From the home screen: a, then Enter on the first disagreement listed."""
    await settle(pilot)
    await press(pilot, "a")
    assert isinstance(pilot.app.screen, DisagreementsScreen)
    await settle(pilot)
    screen = await adjudicate_highlighted(pilot)
    screen.guard.clock = HumanPace()
    return screen


async def _prefer_first_and_record(pilot: Any, screen: AdjudicationScreen, db_path: Path) -> None:
    """Response 1, its justification typed and no note, then Escape and s: recorded."""
    await press(pilot, "1")
    assert screen.final.preference == PreferenceChoice.RESPONSE_1
    # The cursor is in the justification once the preference is chosen.
    focused = pilot.app.focused
    assert isinstance(focused, Input) and focused.id != "note"
    await type_text(pilot, WORDS)
    assert screen.final.justification == WORDS
    assert "ready to record (s)" in static_text(pilot, "#item-bar")
    await press(pilot, "escape", "s")
    await until(
        pilot, lambda: rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(1,)], "recorded"
    )


async def test_a_preference_is_adjudicated_with_its_justification_as_the_note(
    tmp_path: Path,
) -> None:
    db_path, _pk, codes = preference_admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 48)) as pilot:
        await settle(pilot)
        assert "you adjudicate: a lists its disagreements" in static_text(pilot, "#progress")
        screen = await _first_disagreement(pilot)
        assert screen.code == codes[0]
        assert static_text(pilot, "#note-title").startswith("Note (optional)")
        await _prefer_first_and_record(pilot, screen, db_path)
        assert rows(db_path, "SELECT adjudicator, revision, note FROM adjudications") == [
            ("carol", 1, WORDS)
        ]


async def _adjudicated_once(tmp_path: Path) -> Path:
    """The preference study with its first disagreement adjudicated by carol."""
    db_path, _pk, _codes = preference_admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 48)) as pilot:
        await _prefer_first_and_record(pilot, await _first_disagreement(pilot), db_path)
    return db_path


async def _reopened(pilot: Any) -> AdjudicationScreen:
    """The adjudicated item opened again from the disagreements (listed under "all")."""
    await settle(pilot)
    await press(pilot, "a")
    await settle(pilot)
    await press(pilot, "f")
    screen = await adjudicate_highlighted(pilot)
    screen.guard.clock = HumanPace()
    return screen


async def test_a_revision_needs_its_own_note_and_the_bar_does_not_say_press_e_in_it(
    tmp_path: Path,
) -> None:
    db_path = await _adjudicated_once(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 48)) as pilot:
        screen = await _reopened(pilot)
        # Already adjudicated: the form holds that judgment, the focus on its first row (never
        # in the note, where a key read to look would be typed).
        note = screen.query_one("#note", Input)
        assert app.focused is not note and not isinstance(app.focused, Input)
        assert static_text(pilot, "#note-title").startswith("Note (required to revise)")
        assert note.placeholder == "Why you revise the final judgment (required)"
        bar = static_text(pilot, "#item-bar")
        # The item is done: the bar says what a revision needs, not that a note is missing.
        assert "to revise, say why (e)" in bar
        assert "note needed" not in bar and "adjudicated (revision 1)" in bar
        await press(pilot, "e")
        assert app.focused is note
        assert "to revise, say why: type it here" in static_text(pilot, "#item-bar")
        await press(pilot, "escape")
        assert "to revise, say why (e)" in static_text(pilot, "#item-bar")
        await press(pilot, "s")
        assert NOTE_REQUIRED in static_text(pilot, "#note-error")
        assert rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(1,)]
        await type_text(pilot, "Read again: still response 1.")
        await press(pilot, "escape", "s")
        await until(
            pilot, lambda: rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(2,)], "revised"
        )
        assert rows(db_path, "SELECT note FROM adjudications WHERE revision = 2") == [
            ("Read again: still response 1.",)
        ]


async def test_at_80_columns_reopening_an_adjudicated_item_types_nothing_into_its_note(
    tmp_path: Path,
) -> None:
    """The form hidden behind the item at 80 columns, the focus was in the note: `o` (show the
    form) and `s` went into it unseen, and a revision could be recorded with "os" as its
    reason. Now the keys act: `o` shows the form, the note stays empty."""
    db_path = await _adjudicated_once(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (80, 24)) as pilot:
        screen = await _reopened(pilot)
        await press(pilot, "o", "s")
        assert screen.query_one("#note", Input).value == ""
        assert screen.has_class("-form-shown")
        assert rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(1,)]


async def test_once_unblinded_the_bar_says_the_bundle_will_list_the_adjudication(
    tmp_path: Path,
) -> None:
    """An adjudication recorded after unblinding could know which condition wrote each response:
    the bar says so before it is recorded (the bundle's limitations then name the item)."""
    db_path = await _adjudicated_once(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 48)) as pilot:
        await _reopened(pilot)
        assert "unblinded" not in static_text(pilot, "#item-bar")
    db = connect(db_path)
    try:
        unblind(db, "pilot", "lead")
    finally:
        db.close()
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 48)) as pilot:
        await _reopened(pilot)
        assert "study unblinded: the bundle will list this" in static_text(pilot, "#item-bar")


def test_a_reviewers_heading_counts_submissions_not_drafts(tmp_path: Path) -> None:
    """The adjudicator reads "submitted 2 times" under a reviewer who revised a submitted
    judgment, and nothing under one who submitted once (a revision number, which counts
    drafts too, read "revision 3" for a single submission after two drafts)."""
    from rich.console import Console

    from abp_tui.models.judgments import Judgment
    from abp_tui.services.coordinator import open_adjudication
    from abp_tui.services.reviewing import ReviewSession
    from abp_tui.tui.widgets.judgments_table import judgments_table

    db_path, pk, codes = preference_admin_database(tmp_path)
    db = connect(db_path)
    try:
        kept = Judgment(preference=PreferenceChoice.TIE, justification="The same, on reflection.")
        ReviewSession(db, pk, BO).save(codes[0], kept, 2, submit=True, reason="Read it again.")
    finally:
        db.close()
    item = open_adjudication(db_path, pk, codes[0], "carol")
    assert dict(zip(item.names(), item.submitted, strict=True)) == {ANA: 1, BO: 2}
    console = Console(width=120, record=True)
    console.print(judgments_table(item, show_names=True))
    text = console.export_text()
    assert "submitted 2 times" in text and "revision" not in text
    assert text.count("submitted") == 1


async def test_once_a_note_is_written_the_hint_no_longer_offers_the_justification(
    tmp_path: Path,
) -> None:
    """The hint said "s records it, its justification as the note" after a note of the
    adjudicator's own was typed, which is what is stored: it now says the note is theirs."""
    db_path, _pk, _codes = preference_admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 48)) as pilot:
        screen = await _first_disagreement(pilot)
        await press(pilot, "1")
        await type_text(pilot, WORDS)
        await press(pilot, "escape")
        assert "its justification as the note" in static_text(pilot, "#missing")
        await press(pilot, "e")
        await type_text(pilot, "Both reviewers read the same facts.")
        await settle(pilot)
        hint = static_text(pilot, "#missing")
        assert "its justification as the note" not in hint
        assert "records it with your note" in hint
        await press(pilot, "escape", "s")
        await until(
            pilot, lambda: rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(1,)], "saved"
        )
        assert screen.code is not None
    assert rows(db_path, "SELECT note FROM adjudications") == [
        ("Both reviewers read the same facts.",)
    ]
