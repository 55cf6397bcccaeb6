"""The ranking on the results screen, driven like a user: a study imported with labels and no
design (PandaLM as is) reaches it from the home screen with `v`, blind first (how to unblind),
then ranked with the figures ``abp-tui ranking`` computes; `s` switches between the study's
sources with Kendall's tau between them; record text stays text; and how it looks (an SVG
snapshot, ``tests/__snapshots__/test_ranking_tui/``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.ranking import ranking_report
from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.results import ResultsScreen, UnblindScreen
from abp_tui.tui.widgets.ranking_chart import RankingPanel, score_track
from tests.factories import Cli
from tests.ranking_data import small_study, write_pairwise
from tests.tui_helpers import drive, plain, press, screen_text, settle, until

SIZE = (150, 50)


async def _ranked(pilot: Pilot[Any]) -> RankingPanel:
    await settle(pilot)
    await press(pilot, "v")
    if not isinstance(pilot.app.screen, ResultsScreen):
        # Someone who could still join an open design is asked first (issue 15): view.
        await press(pilot, "c")
    screen = pilot.app.screen
    assert isinstance(screen, ResultsScreen)
    panel = screen.query_one(RankingPanel)
    await until(pilot, lambda: panel.view is not None, "the ranking")
    await settle(pilot)
    return panel


async def test_labels_without_a_design_are_ranked_after_unblinding(
    reference: Path, tmp_path: Path
) -> None:
    db_path = tmp_path / "panda.db"
    db = connect(db_path)
    try:
        import_paths(db, [reference / "pandalm" / "testset-v1.json"])
    finally:
        db.close()
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        await until(pilot, lambda: screen.shown is not None, "the results")
        await settle(pilot)
        text = screen_text(pilot)
        assert "no study design" in text and "still blind" in text
        assert "The ranking of its systems (it names them) appears only after" in text
        assert "abp-tui unblind --study pandalm-testset-v1 --yes --reviewer coordinator" in text
        assert "Press u" in text
        panel = screen.query_one(RankingPanel)
        assert panel.view is None  # nothing is computed, let alone shown, while blind
        assert "llama-7b" not in text
        await press(pilot, "u")
        assert isinstance(app.screen, UnblindScreen)
        await press(pilot, *"pandalm-testset-v1", "enter")
        await until(pilot, lambda: panel.view is not None, "the ranking")
        await settle(pilot)
        view = panel.view
        assert view is not None and view.report is not None
        db = connect(db_path)
        try:
            expected = ranking_report(db, "pandalm-testset-v1")
        finally:
            db.close()
        assert view.report == expected  # the command's figures, the same seed and resamples
        text = screen_text(pilot)
        for s in expected.systems:
            assert s.condition in text and f"{s.score:.1f}" in text
            assert s.rank_interval is not None
            assert f"{s.rank_interval[0]}-{s.rank_interval[1]}" in text
        assert "resamples of tasks" in text and "half a win to each side" in text
        assert "not resolved from the next one down: pythia-6.9b / bloom-7b" in text
        assert "Pairwise (a ranked above b)" in text and "Wilson 95%" in text
        assert "Length bias" in text and "chose the longer" in text
        assert "length-controlled" in text
        assert "s Ranking source" not in text  # one source: nothing to switch to


async def test_s_switches_between_sources_with_kendalls_tau(tmp_path: Path) -> None:
    db_path = small_study(tmp_path, judged=True, unblinded=True, tasks=36)
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        panel = await _ranked(pilot)
        assert panel.view is not None and panel.view.sources == ("labels", "judge:j1")
        assert panel.view.source == "labels"
        text = screen_text(pilot)
        assert "labels vs judge:j1: tau = " in text
        await press(pilot, "s")
        await until(pilot, lambda: panel.view is not None and panel.view.source == "judge:j1")
        await settle(pilot)
        text = screen_text(pilot)
        assert "FastChat's convention" in text
        assert "judge:j1 vs labels: tau = " in text
        await press(pilot, "s")
        await until(pilot, lambda: panel.view is not None and panel.view.source == "labels")


async def test_a_source_with_too_few_votes_says_so_instead_of_a_chart(tmp_path: Path) -> None:
    # The AI judge's 12 votes leave alpha and beta 4 decisive votes each.
    app = make_app(small_study(tmp_path, judged=True, unblinded=True), reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        panel = await _ranked(pilot)
        assert "labels vs judge:j1: no tau: judge:j1: too few votes" in screen_text(pilot)
        await press(pilot, "s")
        await until(pilot, lambda: panel.view is not None and panel.view.source == "judge:j1")
        await settle(pilot)
        text = screen_text(pilot)
        report = panel.view.report if panel.view is not None else None
        assert report is not None and report.too_few_votes is not None
        assert "Not ranked: too few votes: every system needs at least 10 decisive" in text
        assert "Elo score and interval" not in text and "Pairwise" not in text
        assert not any(f"{s.score:.1f}" in text for s in report.systems)


async def test_a_design_shows_its_results_and_the_ranking_below(tmp_path: Path) -> None:
    db_path = small_study(tmp_path, judged=False, unblinded=True)
    db = connect(db_path)
    try:
        create_design(db, StudyDesign(study="small", name="d", seed=1, rubric="none"))
    finally:
        db.close()
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        panel = await _ranked(pilot)
        view = panel.view
        # The design's verdicts come first, and nobody has judged yet: the panel says so and
        # offers the labels.
        assert view is not None and view.sources == ("verdicts", "labels")
        assert view.report is None and "no votes to rank" in view.reason
        assert "s: next source" in screen_text(pilot)
        await press(pilot, "s")
        await until(pilot, lambda: panel.view is not None and panel.view.report is not None)
        assert "Ranking of study small from labels" in screen_text(pilot)


async def test_record_text_in_a_ranking_is_never_markup_or_an_escape(tmp_path: Path) -> None:
    names = ("[bold red]alpha[/]", "be\x1b[2Jta", "gamma")
    db_path = tmp_path / "hostile.db"
    db = connect(db_path)
    try:
        import_paths(db, [write_pairwise(tmp_path / "h.json", names)], study="hostile")
        unblind(db, "hostile", "coordinator")
    finally:
        db.close()
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        panel = await _ranked(pilot)
        assert panel.view is not None and panel.view.report is not None
        text = plain(panel.content)
        assert "[bold red]alpha[/]" in text
        assert "\x1b" not in text and "be" in text


def test_the_score_track_marks_the_point_and_interval() -> None:
    track = score_track(1000.0, (950.0, 1050.0), (900.0, 1100.0)).plain
    assert len(track) == 36 and track.count("●") == 1
    assert track.index("├") < track.index("●") < track.index("┤")
    unbounded = score_track(1000.0, (950.0, "+inf"), (900.0, 1100.0)).plain
    assert unbounded.endswith("▶")


def test_results_of_labels_without_a_design_point_to_the_ranking(tmp_path: Path, cli: Cli) -> None:
    assert cli("import", write_pairwise(tmp_path / "small.json"), "--study", "small").code == 0
    out = cli("results")
    assert out.code == 1 and out.out == ""
    assert out.err.count("\n") == 1
    assert "no study design" in out.err and "abp-tui ranking --study small" in out.err
    assert "abp-tui unblind --study small --yes" in out.err
    assert cli("unblind", "--study", "small", "--yes").code == 0
    assert "unblind" not in cli("results").err


def test_ranking_screen_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any
) -> None:
    """The results screen of a small labelled study with an AI judge and no design: the
    ranking chart, the pairwise table, length bias and Kendall's tau."""
    monkeypatch.chdir(tmp_path)
    db_path = small_study(tmp_path, judged=True, unblinded=True, tasks=36)
    app = make_app(Path(db_path.name), reviewer="coordinator")

    async def ranked(pilot: Pilot[Any]) -> None:
        await _ranked(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ranked)
