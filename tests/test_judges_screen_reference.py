"""The Judges screen's choice of human reference and design, driven like a user: `f` steps
through the default, a design's final verdicts and the imported labels, each report's first line
naming the one in use; `d` picks the design when the study has several; a choice the service
refuses says why and leaves the report computed before on screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList

from abp_tui.analysis.judges.view import view_lines
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.judges import ReferenceChoice, judge_report
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.coordinator_notice import CoordinatorNoticeScreen
from abp_tui.tui.screens.designs import DesignPickerScreen
from abp_tui.tui.screens.judges import JudgesScreen
from tests.tui_helpers import drive, press, settle, static_text, until

SIZE = (120, 40)
LABELS = "against labels imported with study llmbar"
NO_DESIGN = "has no study design, so no final human verdicts"


def _database(reference: Path, tmp_path: Path, *designs: str) -> Path:
    """The LLMBar manual set (with its labels) as study llmbar, and ``designs`` of it."""
    db_path = tmp_path / "judges.db"
    db = connect(db_path)
    try:
        import_paths(db, [reference / "llmbar-manual"], study="llmbar")
        for seed, name in enumerate(designs, start=1):
            create_from_choices(db, DesignChoices(study="llmbar", name=name, seed=seed))
    finally:
        db.close()
    return db_path


def _first_line(db_path: Path, reference: ReferenceChoice | None, design: str | None) -> str:
    db = connect(db_path)
    try:
        report = judge_report(
            db, "llmbar", reference=reference, design=design, viewer="coordinator"
        )
        return view_lines(report)[0]
    finally:
        db.close()


def _asked(screen: JudgesScreen) -> ReferenceChoice | None:
    """The reference the screen was asked for (read afresh: a key press changes it)."""
    return screen.reference


async def _judges_screen(pilot: Pilot[Any]) -> JudgesScreen:
    await settle(pilot)
    await press(pilot, "g")
    if isinstance(pilot.app.screen, CoordinatorNoticeScreen):
        await press(pilot, "c")  # the design is open: viewing the figures is asked first
    screen = pilot.app.screen
    assert isinstance(screen, JudgesScreen)
    await until(pilot, lambda: bool(screen.lines), "the judge report")
    await settle(pilot)
    return screen


async def test_reference_key_names_the_labels_then_the_final_verdicts(
    reference: Path, tmp_path: Path
) -> None:
    db_path = _database(reference, tmp_path, "d")
    final = _first_line(db_path, "final", None)
    labels = _first_line(db_path, "labels", None)
    assert "final human verdicts of design d v1" in final and LABELS in labels
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        screen = await _judges_screen(pilot)
        # Nobody has judged design d: the default is the labels.
        assert screen.lines[0] == labels
        assert "Reference asked for: default" in static_text(pilot, "#judges-choice")
        seen: list[tuple[ReferenceChoice | None, str]] = []
        for _ in range(4):  # final, labels, the default again, final
            await press(pilot, "f")
            await until(pilot, lambda: screen.refusal is None, "a report")
            seen.append((screen.reference, screen.lines[0]))
            assert screen.lines[0] in static_text(pilot, "#judges-summary")
        assert seen == [("final", final), ("labels", labels), (None, labels), ("final", final)]
        assert "GPT-4-Vanilla" in static_text(pilot, "#judges-body")


async def test_final_verdicts_without_a_design_say_why_and_keep_the_report(
    reference: Path, tmp_path: Path
) -> None:
    db_path = _database(reference, tmp_path)
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        screen = await _judges_screen(pilot)
        before = list(screen.lines)
        assert LABELS in before[0]
        await press(pilot, "f")
        assert _asked(screen) == "final"
        await until(pilot, lambda: screen.refusal is not None, "the refusal")
        summary = static_text(pilot, "#judges-summary")
        assert "No report against the final human verdicts of a design" in summary
        assert NO_DESIGN in summary
        assert f"Still shown below, as before: {before[0]}" in " ".join(summary.split())
        assert "refused" in static_text(pilot, "#judges-choice")
        assert screen.lines == before and "GPT-4-Vanilla" in static_text(pilot, "#judges-body")
        # The next choice, the labels, is a report again.
        await press(pilot, "f")
        await until(pilot, lambda: screen.refusal is None, "the labels' report")
        assert _asked(screen) == "labels" and LABELS in static_text(pilot, "#judges-summary")
        assert "No report" not in static_text(pilot, "#judges-summary")


async def test_a_refused_first_choice_says_there_is_no_report(
    reference: Path, tmp_path: Path
) -> None:
    db_path = _database(reference, tmp_path)
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        await settle(pilot)
        screen = JudgesScreen(db_path, "llmbar", reference="final")
        await app.push_screen(screen)
        await until(pilot, lambda: screen.refusal is not None, "the refusal")
        summary = static_text(pilot, "#judges-summary")
        assert "No judge report:" in summary and NO_DESIGN in summary
        assert "Nothing is shown below." in summary
        assert screen.lines == [] and static_text(pilot, "#judges-body") == ""


async def test_design_key_picks_whose_final_verdicts_are_the_reference(
    reference: Path, tmp_path: Path
) -> None:
    db_path = _database(reference, tmp_path, "d1", "d2")
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        screen = await _judges_screen(pilot)
        await press(pilot, "f")
        await until(pilot, lambda: screen.refusal is None, "the final verdicts' report")
        assert screen.reference == "final"
        assert "final human verdicts of design d2 v1" in screen.lines[0]  # the latest
        assert [c.name for c in screen.designs] == ["d1", "d2"]
        await press(pilot, "d")
        picker = app.screen
        assert isinstance(picker, DesignPickerScreen)
        options = picker.query_one(OptionList)
        assert [str(options.get_option_at_index(i).prompt) for i in range(2)] == [
            "llmbar / d1 v1",
            "llmbar / d2 v1",
        ]
        await press(pilot, "home", "enter")
        assert app.screen is screen and screen.design == "d1"
        await until(pilot, lambda: "design d1 v1" in screen.lines[0], "design d1's report")
        assert "design d1 v1" in static_text(pilot, "#judges-summary")


async def test_design_key_with_one_design_says_there_is_no_other(
    reference: Path, tmp_path: Path
) -> None:
    db_path = _database(reference, tmp_path, "d")
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, SIZE) as pilot:
        screen = await _judges_screen(pilot)
        await press(pilot, "d")
        assert app.screen is screen
        notes = [n.message for n in app._notifications]
        assert any("one design (llmbar / d v1)" in n for n in notes)
