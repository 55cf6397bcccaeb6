"""``abp-tui study create`` says which runs its plan holds back from reviewers (seed 000: a run
whose record says INFRA_ERROR or PROVIDER_BLOCK is rerun, never judged as a model outcome), in
its text and in ``--json``, and whether each one's rerun is planned; the workstation's
new-design form says the same.

On the bundled AFP demo: P06 under C (repeat 3) timed out (INFRA_ERROR) and P07 under A (repeat 2)
was blocked by the provider (PROVIDER_BLOCK).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from textual.widgets import Input

from abp_tui.models import PreferenceChoice
from abp_tui.services.demo import load_demo
from abp_tui.services.results_report import unblind
from abp_tui.services.revision_rules import RevisionRefused
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.newdesign import NewDesignScreen
from tests.factories import (
    AFP_INFRA_RUN,
    DEMO,
    FIXTURES,
    Cli,
    afp_judgment,
    import_afp_rerun,
    two_reviewer_design,
)
from tests.tui_helpers import drive, press, rows, settle, type_text, until

STUDY = "afp-pilot-demo"
INFRA = AFP_INFRA_RUN
BLOCKED = "afp-demo-run-20260112-P07-A-r2"
DESIGN_FILE = FIXTURES / "designs" / "afp-pilot-demo.toml"
HEADLINE = "held back 2 runs whose record says INFRA_ERROR or PROVIDER_BLOCK"


def _created(cli: Cli, path: Path) -> dict[str, Any]:
    made = cli("study", "create", path, "--json", "--db", cli.db_path)
    assert made.code == 0, made.err
    (design,) = json.loads(made.out)["designs"]
    return dict(design)


def _design(tmp_path: Path, name: str, extra: str) -> Path:
    """The demo design under another name, with ``extra`` top-level lines."""
    text = DESIGN_FILE.read_text("utf-8").replace('name = "blind-pairs"', f'name = "{name}"')
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace("[disagreement]", f"{extra}\n\n[disagreement]"), "utf-8")
    return path


def test_study_create_names_the_runs_it_holds_back(cli: Cli) -> None:
    assert cli("demo").code == 0
    made = cli("study", "create", DESIGN_FILE, "--db", cli.db_path)
    assert made.code == 0, made.err
    (note,) = [line for line in made.out.splitlines() if HEADLINE in line]
    assert "P06 under C trial 3 INFRA_ERROR, no rerun imported yet" in note
    assert "P07 under A trial 2 PROVIDER_BLOCK, no rerun imported yet" in note
    assert "show_record_failures" in note
    design = _created(cli, DESIGN_FILE)
    assert HEADLINE in design["held_back_note"]
    assert {h["run"]: (h["state"], h["rerun"]) for h in design["held_back"]} == {
        INFRA: ("INFRA_ERROR", None),
        BLOCKED: ("PROVIDER_BLOCK", None),
    }


def test_a_planned_rerun_is_named_beside_the_run_it_replaces(cli: Cli, tmp_path: Path) -> None:
    assert cli("demo").code == 0
    rerun = import_afp_rerun(cli, tmp_path)
    design = _created(cli, DESIGN_FILE)  # nobody judged it yet: planned again, rerun included
    assert design["status"] == "replaced"
    held = {h["run"]: h["rerun"] for h in design["held_back"]}
    assert held == {INFRA: rerun, BLOCKED: None}
    assert f"P06 under C trial 3 INFRA_ERROR, rerun {rerun} planned" in design["held_back_note"]


def test_nothing_is_held_back_when_shown_or_outside_the_design(cli: Cli, tmp_path: Path) -> None:
    assert cli("demo").code == 0
    shows = _created(cli, _design(tmp_path, "shows", "show_record_failures = true"))
    assert (shows["held_back"], shows["held_back_note"]) == ([], None)
    shown = _design(tmp_path, "shows", "show_record_failures = true")
    text = cli("study", "create", shown, "--db", cli.db_path)
    assert "held back" not in text.out
    # A design over B and D alone holds none of the study's failed runs: none to report.
    path = _design(tmp_path, "bd", "")
    toml = path.read_text("utf-8").replace('conditions = "all"', 'conditions = ["B", "D"]')
    path.write_text(toml.replace('[["C", "A"], ["D", "B"]]', '[["D", "B"]]'), "utf-8")
    other = _created(cli, path)
    assert other["items"] > 0
    assert (other["held_back"], other["held_back_note"]) == ([], None)


async def test_the_workstation_says_the_same_when_a_design_is_created(tmp_path: Path) -> None:
    db_path = tmp_path / "demo.db"
    db = connect(db_path)
    load_demo(db, DEMO)
    db.close()
    path = _design(tmp_path, "again", "")
    app = make_app(db_path, reviewer="coordinator")  # no queue to resume: the home screen
    async with drive(app, (120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await press(pilot, "n")
        await until(pilot, lambda: isinstance(app.screen, NewDesignScreen), "the form")
        await settle(pilot)
        app.screen.query_one("#design-path", Input).focus()
        await type_text(pilot, str(path))
        await press(pilot, "enter")
        await until(
            pilot, lambda: any(n.title == "Design" for n in app._notifications), "the notice"
        )
        (notice,) = [n.message for n in app._notifications if n.title == "Design"]
    assert HEADLINE in notice
    assert "P06 under C trial 3 INFRA_ERROR, no rerun imported yet" in notice


def test_a_reviewer_still_judging_cannot_unblind_and_the_coordinator_is_told_who_is(
    tmp_path: Path, cli: Cli
) -> None:
    """Unblinding shows the results by condition to everyone who may see them: a reviewer with
    items left would unblind what they are still to judge blind. The coordinator may, and is
    told who is still judging, once."""
    db = connect(cli.db_path)
    _pk, a, _b, codes = two_reviewer_design(tmp_path, db)
    a.save(codes[0], afp_judgment(2, 2, PreferenceChoice.TIE), 20, submit=True)
    db.close()
    refused = cli("unblind", "--study", "s", "--yes", "--reviewer", "a")
    assert refused.code == 1 and refused.err.count("\n") == 1
    assert "a has 1 item of study s not submitted yet" in refused.err
    assert rows(cli.db_path, "SELECT COUNT(*) FROM audit_log WHERE action = 'unblind'") == [(0,)]
    done = cli("unblind", "--study", "s", "--yes", "--reviewer", "lead")
    assert done.code == 0 and "study s unblinded by lead" in done.out
    assert "unblinded while reviewers are still judging (items left: a 1, b 2)" in done.err
    again = cli("unblind", "--study", "s", "--yes", "--reviewer", "lead")
    assert again.code == 0 and again.err == ""  # already unblinded: nothing new to say
    assert "study s was already unblinded by lead" in again.out


def test_a_judgment_is_not_revised_once_its_reviewer_may_see_the_results(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """Unblinded while b still judges: a, who has judged everything and may read the results,
    can no longer change a submitted judgment (it would not be blind, and the results would
    call it so); b, from whom the results are held back, still may. Nothing is stored by the
    refusal."""
    _pk, a, b, codes = two_reviewer_design(tmp_path, db)
    first, second = codes
    for code in codes:
        a.save(code, afp_judgment(2, 2, PreferenceChoice.TIE), 5, submit=True)
    b.save(first, afp_judgment(2, 2, PreferenceChoice.TIE), 5, submit=True)
    unblind(db, "s", "lead")
    before = rows_of(db)
    with pytest.raises(RevisionRefused, match="a revision now would not be a blind judgment"):
        a.save(first, afp_judgment(1, 2, PreferenceChoice.TIE), 5, submit=True, reason="Typo.")
    assert rows_of(db) == before
    revised = b.save(
        first, afp_judgment(1, 2, PreferenceChoice.TIE), 5, submit=True, reason="Typo."
    )
    assert revised.status == "submitted" and revised.revision == 2
    b.save(second, afp_judgment(2, 2, PreferenceChoice.TIE), 5, submit=True)  # b's last item
    with pytest.raises(RevisionRefused, match="results are open to b"):
        b.save(second, afp_judgment(0, 2, PreferenceChoice.TIE), 5, submit=True, reason="No.")


def rows_of(db: sqlite_utils.Database) -> list[tuple[Any, ...]]:
    return list(db.execute("SELECT item_pk, reviewer, revision, status FROM judgments").fetchall())
