"""A finding's proposed id tells a reviewer nothing of another reviewer's findings.

The reviewers of an item see it under the same blind code, so an id counted over everyone's
findings (``F-{code}-2`` once someone else recorded ``F-{code}``) would tell a reviewer that
someone found something on the item they are judging. The form proposes an id from the
reviewer's own findings alone, and an id another reviewer holds is refused without a word about
their finding (and never becomes a revision of it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from abp_tui.errors import AbpError
from abp_tui.models import Finding, StudyDesign
from abp_tui.services.desk import Desk
from abp_tui.store import connect, judging
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.finding import FindingScreen, free_id, reviewer_part
from tests.tui_helpers import (
    compare_screen,
    drive,
    pair_study,
    press,
    rows,
    static_text,
    study_database,
    type_text,
    until,
)

SECRET_TITLE = "Bo saw the owner invented"


def _two_reviewer_study(tmp_path: Path) -> tuple[Path, int]:
    design = StudyDesign(
        study="pilot",
        name="pairs",
        seed=11,
        contrasts=[("C", "A")],
        reviewers=["ana", "bo"],
        reviewers_per_item=2,
    )
    db_path = study_database(tmp_path, pair_study(), design)
    db = connect(db_path)
    try:
        (row,) = judging.designs(db, "pilot")
        return db_path, row.pk
    finally:
        db.close()


def _finding(finding_id: str, title: str = SECRET_TITLE) -> Finding:
    return Finding(id=finding_id, title=title, severity="high", layer="model")


def test_the_proposed_id_depends_only_on_the_reviewers_own_findings(tmp_path: Path) -> None:
    db_path, design_pk = _two_reviewer_study(tmp_path)
    ana, bo = Desk(db_path, design_pk, "ana"), Desk(db_path, design_pk, "bo")
    try:
        code = sorted({r.code for r in ana.queue().rows} & {r.code for r in bo.queue().rows})[0]
        before = free_id(code, "ana", ana.finding_ids())
        assert before == f"F-{code}-ana"
        bo.record_finding(code, _finding(free_id(code, "bo", bo.finding_ids())), ())
        bo.record_finding(code, _finding(free_id(code, "bo", bo.finding_ids())), ())
        assert bo.finding_ids() == {f"F-{code}-bo", f"F-{code}-bo-2"}
        # Nothing of bo's two findings reaches ana's proposal.
        assert ana.finding_ids() == set()
        assert free_id(code, "ana", ana.finding_ids()) == before
        ana.record_finding(code, _finding(before, "Ana's"), ())
        assert free_id(code, "ana", ana.finding_ids()) == f"F-{code}-ana-2"
    finally:
        ana.close()
        bo.close()


def test_item_codes_are_shared_by_the_reviewers_of_an_item(tmp_path: Path) -> None:
    # Why the id needs a reviewer's part at all.
    db_path, design_pk = _two_reviewer_study(tmp_path)
    ana, bo = Desk(db_path, design_pk, "ana"), Desk(db_path, design_pk, "bo")
    try:
        assert {r.code for r in ana.queue().rows} == {r.code for r in bo.queue().rows} != set()
    finally:
        ana.close()
        bo.close()


def test_a_reviewer_part_is_plain_and_short() -> None:
    assert reviewer_part("ana") == "ana"
    hashed = reviewer_part("Dr. Ana María")
    assert len(hashed) == 6 and hashed.isalnum() and hashed != reviewer_part("Dr. Ana Maria")


def test_an_id_another_reviewer_holds_is_refused_without_revealing_their_finding(
    tmp_path: Path,
) -> None:
    db_path, design_pk = _two_reviewer_study(tmp_path)
    ana, bo = Desk(db_path, design_pk, "ana"), Desk(db_path, design_pk, "bo")
    try:
        code = ana.queue().rows[0].code
        taken = f"F-{code}-bo"
        assert bo.record_finding(code, _finding(taken), ()) == 1
        with pytest.raises(AbpError) as refused:
            ana.record_finding(code, _finding(taken, "Ana's"), ())
        message = str(refused.value)
        assert message == f"finding id {taken!r} is not free in this study: choose another id"
        assert SECRET_TITLE not in message and "revision" not in message
        # Nothing written: bo's finding is still bo's alone, at its first revision.
        found = rows(db_path, "SELECT id, revision, reviewer, document FROM findings")
        assert [(i, n, who) for i, n, who, _doc in found] == [(taken, 1, "bo")]
        assert SECRET_TITLE in found[0][3]
        # A reviewer revises their own finding as before.
        assert bo.record_finding(code, _finding(taken, "Bo, revised"), ()) == 2
    finally:
        ana.close()
        bo.close()


async def test_the_form_proposes_the_reviewers_own_id_and_a_clash_says_nothing_more(
    tmp_path: Path,
) -> None:
    db_path, design_pk = _two_reviewer_study(tmp_path)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (120, 40)) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        code = screen.item.code
        bo = Desk(db_path, design_pk, "bo")
        try:
            bo.record_finding(code, _finding(f"F-{code}"), ())
            bo.record_finding(code, _finding(f"F-{code}-ana-2"), ())
        finally:
            bo.close()
        await press(pilot, "f")
        form = app.screen
        assert isinstance(form, FindingScreen)
        field = form.query_one("#finding-id", Input)
        await until(pilot, lambda: bool(field.value), "the proposed id")
        assert field.value == f"F-{code}-ana"
        field.value = f"F-{code}"  # bo's, typed by hand
        form.query_one("#finding-title", Input).focus()
        await type_text(pilot, "Ana's")
        await press(pilot, "ctrl+s")
        await until(
            pilot, lambda: "not free" in static_text(pilot, "#finding-error"), "the refusal"
        )
        shown = static_text(pilot, "#finding-error")
        assert SECRET_TITLE not in shown and "bo" not in shown.replace(f"F-{code}", "")
        assert isinstance(app.screen, FindingScreen)
    assert rows(db_path, "SELECT COUNT(*) FROM findings WHERE reviewer = 'ana'") == [(0,)]
