"""Seed 004: "Scientific errors, invalid structured responses, failure to use a tool, tool misuse,
refusal, and abstention are scored rather than excluded." In the workstation, on the benchmark's
own files: the override row of a sci-bench response offers no INVALID_TEST or GRADER_DISPUTE, and
their keys say why instead of excluding the response."""

from __future__ import annotations

from pathlib import Path

from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.widgets.response_scoring import OverrideRow
from tests.tui_helpers import compare_screen, drive, press

STUDY = "ABENCH-PARALLEL-LIMITS-001"


async def test_a_reviewer_cannot_exclude_a_scored_response_in_the_workstation(
    tmp_path: Path, reference: Path
) -> None:
    db_path = tmp_path / "sci.db"
    db = connect(db_path)
    import_paths(db, [reference / "sci-bench"])
    design = StudyDesign(
        study=STUDY, name="singles", seed=4, contrasts="none", single_items=True, reviewers=["ana"]
    )
    create_design(db, design)
    db.close()
    app = make_app(db_path, reviewer="ana")
    async with drive(app, (160, 50)) as pilot:
        screen = await compare_screen(pilot)
        override = screen.query_one(OverrideRow)
        assert {c.value for c in override.choices}.isdisjoint({"INVALID_TEST", "GRADER_DISPUTE"})
        override.focus()
        await press(pilot, "i", "g")
        assert override.value is None
        notices = [n.message for n in app._notifications]
        assert any("INVALID_TEST cannot be set by hand" in n for n in notices)
        assert any("is scored, not excluded" in n for n in notices)
        assert screen.drafts.judgment.responses.get("1") is None or (
            screen.drafts.judgment.responses["1"].state_override is None
        )
