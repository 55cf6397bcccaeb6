"""What the screen snapshot tests share: the studies they open and how a screen is opened."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.agreement import AgreementScreen
from abp_tui.tui.screens.designs import open_review_screen
from abp_tui.tui.screens.results import ResultsScreen
from tests.tui_helpers import (
    STUDY,
    admin_database,
    pair_design,
    pair_study,
    settle,
    study_database,
    until,
)

Before = Callable[[Pilot[Any]], Awaitable[None]]


class SnapCompare(Protocol):
    def __call__(self, app: Any, *, terminal_size: tuple[int, int], run_before: Before) -> bool: ...


def judging_db(tmp_path: Path) -> Path:
    """Two pair items with short outputs (one empty, one with text that looks like markup) and a
    trace for each run of the second task."""
    outputs = {
        ("T2", "A"): "The launch moves to May.\nAna owns the checklist.\n\n- risk: none stated",
        ("T2", "C"): "The launch moves to June.\nAna owns the checklist and the budget.",
        ("T1", "A"): "",
        ("T1", "C"): "漢字 and plain text; [bold]not markup[/]",
    }
    lines = pair_study(outputs)
    for run_id in ("T2-A", "T2-C"):
        events: list[dict[str, Any]] = [
            {"type": "trace_event", "run_id": run_id, "seq": 1, "kind": "model.call"},
            {
                "type": "trace_event",
                "run_id": run_id,
                "seq": 2,
                "kind": "tool.call",
                "tool": "read_file",
                "input_tokens": 1200,
                "output_tokens": 80,
                "duration_ms": 350.0,
            },
        ]
        at = next(i for i, x in enumerate(lines) if x.get("id") == run_id)
        lines[at:at] = events
    return study_database(tmp_path, lines, pair_design(), name="snap.db")


def judging_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(tmp_path)
    judging_db(tmp_path)
    return make_app(Path("snap.db"), reviewer="ana")


def coordinating_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(tmp_path)
    admin_database(tmp_path)
    return make_app(Path("admin.db"), reviewer="carol")


async def opened(pilot: Pilot[Any], purpose: str, screen: type[object]) -> None:
    """Open a coordinator's screen (as its key would) and wait until it has what it shows."""
    app: Any = pilot.app
    await settle(pilot)
    open_review_screen(app, app.db_path, app.reviewer, purpose)
    await until(pilot, lambda: isinstance(pilot.app.screen, screen), f"the {purpose} screen")
    await settle(pilot)


def admin_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, unblinded: bool) -> Any:
    """The admin study's app as carol (unblinded: the results and agreement screens show)."""
    monkeypatch.chdir(tmp_path)
    admin_database(tmp_path)
    if unblinded:
        db = connect(Path("admin.db"))
        try:
            unblind(db, STUDY, "carol")
            db.execute("UPDATE audit_log SET at = '2026-01-02T03:04:05Z'")  # the moving part
        finally:
            db.close()
    return make_app(Path("admin.db"), reviewer="carol")


async def agreement_shown(pilot: Pilot[Any]) -> None:
    await opened(pilot, "agreement", AgreementScreen)
    await until(pilot, lambda: getattr(pilot.app.screen, "shown", None) is not None)
    # The reliability section comes after the figures, from the same worker.
    section = pilot.app.screen.query_one("#reliability", Static)
    await until(pilot, lambda: "Computing" not in str(section.render()), "the reliability section")
    pilot.app.screen.query_one("#variables", DataTable).move_cursor(row=0)
    await settle(pilot)


async def results_shown(pilot: Pilot[Any]) -> None:
    await opened(pilot, "results", ResultsScreen)
    await until(pilot, lambda: getattr(pilot.app.screen, "shown", None) is not None)
