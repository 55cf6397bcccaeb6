"""The Judges screen, driven like a user: from the home screen, `g` opens the AI judges of the
highlighted study and shows the figures ``abp-tui judges`` prints, as text; and how it looks
(an SVG snapshot, ``tests/__snapshots__/test_judges_tui/``)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from abp_tui.analysis.judges.view import view_lines
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.judges import judge_report
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.judges import JudgesScreen
from tests.factories import Cli, write_jsonl
from tests.tui_helpers import drive, press, settle, static_text, until

SIZE = (120, 40)


async def test_judges_screen_shows_the_report_of_the_highlighted_study(
    reference: Path, tmp_path: Path
) -> None:
    db_path = tmp_path / "judges.db"
    db = connect(db_path)
    try:
        import_paths(db, [reference / "llmbar-manual"], study="llmbar")
        expected = view_lines(judge_report(db, "llmbar", viewer="coordinator"))
    finally:
        db.close()
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await press(pilot, "g")
        screen = app.screen
        assert isinstance(screen, JudgesScreen)
        await until(pilot, lambda: bool(screen.lines), "the judge report")
        await settle(pilot)
        assert screen.lines == expected
        assert "llmbar" in static_text(pilot, "#judges-summary")
        body = static_text(pilot, "#judges-body")
        assert "GPT-4-Vanilla" in body and "position consistency" in body
        await press(pilot, "escape")
        assert isinstance(app.screen, HomeScreen)


async def test_judges_screen_says_why_there_is_no_report(tmp_path: Path) -> None:
    db_path = tmp_path / "empty.db"
    connect(db_path).close()
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "g")
        await settle(pilot)
        assert isinstance(app.screen, JudgesScreen)
        assert "No judge report" in static_text(pilot, "#judges-summary")
        # Said once, on the screen: not again in a "failed" notice beside it.
        assert not [n for n in app._notifications if "failed" in (n.title or "")]
        assert app.failures == []


def test_judges_screen_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any
) -> None:
    """The Judges screen of a study whose AI judge disagrees with itself on one pair and whose
    reviewer judged five pairs of eight: figures, position bias and judge-assisted estimates
    (the study unblinded: before, the estimates by condition are withheld)."""
    monkeypatch.chdir(tmp_path)
    db = connect(Path("judges.db"))
    try:
        lines: list[dict[str, object]] = [
            {"type": "study", "id": "judged", "name": "Judged study"},
            {"type": "judge", "id": "snap-judge/v1", "model": "judge-model", "prompt": "pair-v2"},
        ]
        for t in (f"t{i}" for i in range(1, 9)):
            lines.append({"type": "task", "id": t, "prompt": f"Answer {t}."})
            runs = [f"{t}-A", f"{t}-B"]
            for run, c in zip(runs, "AB", strict=True):
                lines.append(
                    {"type": "run", "id": run, "task_id": t, "condition_id": c, "output": c}
                )
            for first in runs:
                verdict = first if t == "t2" else runs[0]
                lines.append(
                    {
                        "type": "judge_verdict",
                        "judge": "snap-judge/v1",
                        "task_id": t,
                        "runs": runs,
                        "shown_first": first,
                        "verdict": verdict,
                    }
                )
        import_paths(db, [write_jsonl(tmp_path / "judged.jsonl", lines)])
        design = StudyDesign(
            study="judged",
            name="d",
            seed=3,
            rubric="none",
            contrasts=[("A", "B")],
            reviewers=["alice"],
        )
        session = ReviewSession(db, create_design(db, design).pk, "alice")
        for row in session.queue()[:5]:
            first_is_a = session.read(row.code).responses[0].text == "A"
            choice = PreferenceChoice.RESPONSE_1 if first_is_a else PreferenceChoice.RESPONSE_2
            session.save(row.code, Judgment(preference=choice, justification="A."), 3, submit=True)
        unblind(db, "judged", "coordinator")
    finally:
        db.close()
    app = make_app(Path("judges.db"), reviewer="coordinator")

    async def computed(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "g")
        screen = pilot.app.screen
        assert isinstance(screen, JudgesScreen)
        await until(pilot, lambda: bool(screen.lines), "the judge report")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=computed)


async def test_judges_screen_plans_as_abp_tui_plan_prints(
    reference: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db_path = tmp_path / "judges.db"
    db = connect(db_path)
    try:
        import_paths(db, [reference / "llmbar-manual"], study="llmbar")
    finally:
        db.close()
    printed = Cli(db_path, capsys)("plan", "--reviewer", "coordinator")
    assert printed.code == 0, printed.err
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "g")
        screen = app.screen
        assert isinstance(screen, JudgesScreen)
        await until(pilot, lambda: bool(screen.lines), "the judge report")
        await settle(pilot)
        assert screen.planning == printed.out.rstrip("\n").splitlines()
        assert any("without the judge: " in line for line in screen.planning)
        body = static_text(pilot, "#judges-body")
        assert "Planning (as `abp-tui plan --study llmbar --db " in body
        assert "Human judgments for a 95% half-width of 0.05, study llmbar" in body
        # The command it names runs as pasted, other half-widths included (it lacked the study
        # and the database: "choose a study with --study").
        pasted = body.split("Planning (as `", 1)[1].split("`", 1)[0]
    words = shlex.split(pasted)
    assert words[0] == "abp-tui"
    again = Cli(db_path, capsys)(*words[1:], "--width", "0.1", "--reviewer", "coordinator")
    assert again.code == 0, again.err
    assert "Human judgments for a 95% half-width of 0.1, study llmbar" in again.out
