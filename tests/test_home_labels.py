"""A study imported with its labels and no design (PandaLM as is), as a newcomer meets it: the
home screen says that `v` ranks its imported preferences once unblinded, the unblind dialog says
that what it reveals is the ranking of the systems, and a ranking note suggesting ``--prior K``
says on the screen that this is an option of ``abp-tui ranking``, naming the command that ranks
what is shown (the command itself keeps the core's wording)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.ranking_view import RankingView
from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.results import ResultsScreen, UnblindScreen
from abp_tui.tui.widgets.ranking_chart import RankingPanel, command_line_prior, ranking_command
from tests.factories import Cli
from tests.ranking_data import pairwise_items, small_study
from tests.tui_helpers import (
    drive,
    home_listed,
    home_study,
    plain,
    press,
    rows,
    screen_text,
    settle,
    studies_database,
    until,
)

SIZE = (150, 50)
NO_DESIGN = "No study design yet: press n to create one"


def _sweeping(tmp_path: Path) -> Path:
    """An unblinded labelled study where alpha wins every comparison it is in: the Bradley-Terry
    maximum does not exist (Hunter 2004, assumption 1 fails), so only a prior ranks it."""
    items = pairwise_items()
    for k, item in enumerate(items):
        if k % 3 != 1:  # the pairs alpha-beta and alpha-gamma, alpha shown as response 1
            item.update(annotator1=1, annotator2=1, annotator3=1)
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    db_path = tmp_path / "sweep.db"
    db = connect(db_path)
    try:
        import_paths(db, [path], study="sweep")
        unblind(db, "sweep", "coordinator")
    finally:
        db.close()
    return db_path


async def _home_progress(pilot: Pilot[Any]) -> str:
    """The home screen's line under the highlighted study, once its detail is read."""
    await until(pilot, lambda: home_listed(pilot.app), "the home screen")
    screen = pilot.app.screen
    assert isinstance(screen, HomeScreen)
    await until(pilot, lambda: screen.shown_study in screen.details, "the study's detail")
    await settle(pilot)
    return plain(screen.query_one("#progress", Static).content)


async def _results(pilot: Pilot[Any]) -> ResultsScreen:
    """Press v on the home screen and wait for the results screen to have read its figures."""
    await settle(pilot)
    await press(pilot, "v")
    if not isinstance(pilot.app.screen, ResultsScreen):
        # Someone who could still join an open design is asked first: view.
        await press(pilot, "c")
    screen = pilot.app.screen
    assert isinstance(screen, ResultsScreen)
    await until(pilot, lambda: screen.shown is not None, "the results")
    await settle(pilot)
    return screen


def _dialog_text(pilot: Pilot[Any]) -> str:
    """What the unblind dialog itself says (the results screen beneath it says more)."""
    dialog = pilot.app.screen
    assert isinstance(dialog, UnblindScreen)
    return "\n".join(plain(s.content) for s in dialog.query(Static))


async def _ranking(pilot: Pilot[Any], source: str) -> str:
    """The results screen's ranking from ``source`` (s switches), as the screen says it."""
    screen = await _results(pilot)
    panel = screen.query_one(RankingPanel)
    await until(pilot, lambda: panel.view is not None, "the ranking")
    while panel.view is not None and panel.view.source != source:
        await press(pilot, "s")
        await until(pilot, lambda: panel.view is not None, "the next source")
    await settle(pilot)
    return plain(panel.content, width=2000)  # a line per note, however long


async def test_home_says_v_ranks_the_imported_preferences_of_pandalm(
    reference: Path, tmp_path: Path
) -> None:
    db_path = tmp_path / "panda.db"
    db = connect(db_path)
    try:
        import_paths(db, [reference / "pandalm" / "testset-v1.json"])
    finally:
        db.close()
    ((preferences,),) = rows(db_path, "SELECT count(*) FROM preferences")
    # PandaLM's test set: 999 pairs, each labelled by three annotators.
    assert preferences == 2997
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        progress = await _home_progress(pilot)
        assert progress == (
            f"{NO_DESIGN}.  v (results) shows the ranking of its 2,997 imported preferences, "
            "after the study is unblinded (u on that screen)."
        )
        # ...and v does lead there: the results screen of the study, blind, offering u.
        screen = await _results(pilot)
        assert screen.shown is not None and screen.shown.blind
        assert "The ranking of its systems (it names them) appears" in screen_text(pilot)


async def test_home_of_a_study_without_preferences_only_offers_a_design(tmp_path: Path) -> None:
    app = make_app(studies_database(tmp_path, home_study()), reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        assert await _home_progress(pilot) == NO_DESIGN


async def test_the_unblind_dialog_of_labels_without_a_design_names_the_ranking(
    tmp_path: Path,
) -> None:
    db_path = small_study(tmp_path, judged=False, unblinded=False)
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        await _results(pilot)
        await press(pilot, "u")
        text = _dialog_text(pilot)
        assert "Unblinding shows the ranking of its systems (it names them) to everyone" in text
        assert "results by condition" not in text
        assert "If people are to judge this study blind, let them judge first" in text
        assert "Reviewers still judging" not in text
        await press(pilot, "escape")
        assert isinstance(app.screen, ResultsScreen)
    assert rows(db_path, "SELECT pk FROM audit_log WHERE action = 'unblind'") == []


async def test_the_unblind_dialog_of_a_design_still_names_results_by_condition(
    tmp_path: Path,
) -> None:
    db_path = small_study(tmp_path, judged=False, unblinded=False)
    db = connect(db_path)
    try:
        create_design(db, StudyDesign(study="small", name="d", seed=1, rubric="none"))
    finally:
        db.close()
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        await _results(pilot)
        await press(pilot, "u")
        text = _dialog_text(pilot)
        assert "Unblinding shows this study's results by condition to everyone" in text
        assert "ranking of its systems" not in text
        assert "Reviewers still judging should finish first" in text


async def test_a_note_on_too_few_votes_suggests_no_prior(tmp_path: Path, cli: Cli) -> None:
    db_path = small_study(tmp_path, judged=True, unblinded=True)
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        text = await _ranking(pilot, "judge:j1")
    # Some resamples of the judge's verdicts leave a system unbeaten (its bound is +inf), but
    # its 12 votes are too few to rank with or without a prior: no prior is suggested (it
    # suggested one, and the command it named said "Not ranked" again), and the resamples go
    # unmentioned: no interval is shown for the note to explain (the JSON keeps their count).
    assert "resamples left some system" not in text
    assert "Not ranked: too few votes" in text
    assert "--prior" not in text and "screen cannot set" not in text
    cli.db_path = db_path
    out = cli("ranking", "--study", "small", "--source", "judge:j1")
    assert out.code == 0 and "Not ranked: too few votes" in out.out and "--prior" not in out.out
    assert "resamples left some system" not in out.out
    counted = cli("ranking", "--study", "small", "--source", "judge:j1", "--json")
    found = json.loads(counted.out)
    assert found["unbounded_resamples"] > 0
    assert any("resamples left some system" in n for n in found["notes"])
    prior = cli("ranking", "--study", "small", "--source", "judge:j1", "--prior", "1")
    assert prior.code == 0 and "Not ranked: too few votes" in prior.out


async def test_no_ranking_without_a_prior_says_where_to_set_one(tmp_path: Path, cli: Cli) -> None:
    db_path = _sweeping(tmp_path)
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        text = await _ranking(pilot, "labels")
    assert "no finite Bradley-Terry scores: alpha won or tied every one of its" in text
    assert (
        "fit with --prior K (K pseudo-ties per compared pair) to rank them. --prior K is a "
        "command-line option this screen cannot set: "
        f"abp-tui ranking --db {shlex.quote(str(db_path))} --study sweep --source labels "
        "--prior K"
    ) in text
    cli.db_path = db_path
    refused = cli("ranking", "--study", "sweep")
    assert refused.code == 1 and "to rank them" in refused.err and "screen" not in refused.err
    ranked = cli("ranking", "--study", "sweep", "--source", "labels", "--prior", "1")
    assert ranked.code == 0 and "alpha" in ranked.out


def test_the_suggested_command_names_the_design_and_quotes_for_a_shell() -> None:
    view = RankingView("my study", ("verdicts", "labels"), "verdicts", None, "no votes")
    command = ranking_command(view, Path("judge data.db"), "first pass")
    assert shlex.split(command) == [
        "abp-tui",
        "ranking",
        "--db",
        "judge data.db",
        "--study",
        "my study",
        "--design",
        "first pass",
        "--source",
        "verdicts",
    ]
    # Labels are the study's own: no design is named for them.
    labels = RankingView("my study", ("verdicts", "labels"), "labels", None)
    assert "--design" not in ranking_command(labels, None, "first pass")
    # A note without the option is left as the command wrote it.
    assert command_line_prior("the scores are pulled together", command) == (
        "the scores are pulled together"
    )
