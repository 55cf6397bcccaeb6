"""Judging after a study was unblinded: a design made then is warned of, on the command line
and in the workstation's message; the bundle lists the judgments submitted and the items
adjudicated after the unblinding among its limitations (each item was still shown blind, but
its results by condition could be known), and still verifies."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sqlite_utils
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from abp_tui.export import verify
from abp_tui.export.bundle import read_bundle
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.adjudicating import adjudicate, disagreements
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store import judging as sql
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.newdesign import NewDesignScreen
from tests.factories import Cli, write_jsonl
from tests.tui_helpers import drive, press, settle, until

LIMITATIONS = "results/limitations.json"


def _study(tmp_path: Path) -> Path:
    """Study ``s``: conditions A and B, one run of each on three tasks."""
    lines: list[dict[str, object]] = [{"type": "study", "id": "s"}]
    lines += [{"type": "condition", "id": c, "label": f"Condition {c}"} for c in "AB"]
    for t in range(3):
        lines.append({"type": "task", "id": f"T{t}", "prompt": f"Task {t}"})
        lines += [
            {
                "type": "run",
                "id": f"T{t}-{c}",
                "task_id": f"T{t}",
                "condition_id": c,
                "output": f"Answer {t} {c}.",
            }
            for c in "AB"
        ]
    return write_jsonl(tmp_path / "s.jsonl", lines)


def _judge(db: sqlite_utils.Database, pk: int, reviewer: str, first: bool = True) -> None:
    """``reviewer`` prefers each item's first run (``first``), else its second."""
    session = ReviewSession(db, pk, reviewer)
    for row in session.queue():
        choice = RESPONSE[first != row.flipped]
        judgment = Judgment(preference=choice, justification=f"{reviewer} read both.")
        session.save(row.code, judgment, 4, submit=True)


RESPONSE = {True: PreferenceChoice.RESPONSE_1, False: PreferenceChoice.RESPONSE_2}


def _stated(db: sqlite_utils.Database, pk: int, out: Path) -> list[str]:
    path = export_bundle(db, pk, out).zip_path
    verify(path)
    return [x["text"] for x in json.loads(read_bundle(path)[LIMITATIONS])]


def test_judging_after_unblinding_is_warned_of_and_stated_in_the_bundle(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [_study(tmp_path)])
    first = create_design(
        db,
        StudyDesign(
            study="s",
            name="first",
            seed=3,
            rubric="none",
            reviewers=["ann", "bo"],
            reviewers_per_item=2,
        ),
    )
    assert not any("unblinded" in w for w in first.warnings)
    _judge(db, first.pk, "ann")
    _judge(db, first.pk, "bo", first=False)  # every item disputed
    opened_by, opened_at = unblind(db, "s", "lead")
    # An item adjudicated now: its adjudicator could have known the conditions.
    code = disagreements(db, first.pk)[0].code
    item = sql.item_by_code(db, first.pk, code)
    assert item.run_b_pk is not None  # a pair
    placement = {"1": item.run_a_pk, "2": item.run_b_pk}
    settled = Judgment(preference=PreferenceChoice.RESPONSE_2, justification="B reads better.")
    adjudicate(db, first.pk, code, "cy", settled, placement, "read both")
    stated = _stated(db, first.pk, tmp_path / "first")
    late = [t for t in stated if f"unblinded at {opened_at}" in t]
    assert late == [
        f"1 of 1 adjudicated items were adjudicated (or their adjudication revised) after the "
        f"study was unblinded at {opened_at}: their adjudicators could have known which "
        f"condition produced each response ({code})."
    ]
    # A design made after the unblinding is warned of, naming who unblinded the study and when.
    again = create_design(
        db, StudyDesign(study="s", name="again", seed=5, rubric="none", reviewers=["dee"])
    )
    warned = [w for w in again.warnings if "unblinded" in w]
    assert len(warned) == 1 and f"unblinded by {opened_by} at {opened_at}" in warned[0]
    _judge(db, again.pk, "dee")
    stated = _stated(db, again.pk, tmp_path / "again")
    late = [t for t in stated if f"unblinded at {opened_at}" in t]
    assert len(late) == 1
    assert late[0].startswith("3 of 3 submitted judgments were submitted (or revised) after")
    assert re.search(r"\(P-\w+, P-\w+, P-\w+\)\.$", late[0]), late[0]


def test_study_create_prints_the_warning_of_an_unblinded_study(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(tmp_path / "abp.db", capsys)
    assert cli("import", _study(tmp_path)).code == 0
    made = cli("study", "create", "--study", "s", "--rubric", "none", "--reviewers", "ann")
    assert made.code == 0 and "unblinded" not in made.out
    db = connect(tmp_path / "abp.db")
    try:
        _judge(db, sql.designs(db, "s")[-1].pk, "ann")
    finally:
        db.close()
    assert cli("unblind", "--study", "s", "--yes").code == 0
    again = cli(
        "study",
        "create",
        "--study",
        "s",
        "--name",
        "again",
        "--rubric",
        "none",
        "--reviewers",
        "bo",
    )
    assert again.code == 0
    line = next(x for x in again.out.splitlines() if "unblinded" in x)
    assert line.startswith("  warning: study s was unblinded by ")
    assert "may be known to whoever judges this design" in line


@pytest.mark.parametrize("unblinded", [False, True])
async def test_the_new_design_form_says_the_study_is_unblinded_before_it_is_made(
    tmp_path: Path, unblinded: bool
) -> None:
    """The home screen's form shows the study's unblinding above its fields, in view at 80x24
    with the name to type in focus, and the fields open at their start."""
    db_path = tmp_path / "abp.db"
    db = connect(db_path)
    try:
        import_paths(db, [_study(tmp_path)])
        made = create_design(
            db, StudyDesign(study="s", name="first", seed=3, rubric="none", reviewers=["ann"])
        )
        _judge(db, made.pk, "ann")
        if unblinded:
            unblind(db, "s", "lead")
    finally:
        db.close()
    app = make_app(db_path, reviewer="lead")
    async with drive(app, (80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "h")
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "the home screen")
        await press(pilot, "n")
        await until(pilot, lambda: isinstance(app.screen, NewDesignScreen), "the form")
        await settle(pilot)
        form = app.screen
        shown = form.query("#design-unblinded")
        if not unblinded:
            assert not shown
            return
        text = str(shown.first(Static).render())
        assert text.startswith("Unblinded by lead at ")
        assert "whoever judges this design may know the study's results" in text
        assert shown.first().region.y < form.query_one("#design-name", Input).region.y < 24
        assert form.query_one(".design-fields", VerticalScroll).scroll_y == 0
        assert isinstance(form.focused, Input) and form.focused.id == "design-name"
