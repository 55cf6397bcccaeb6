"""What the screen snapshot tests share: the studies they open and how a screen is opened."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import pytest
from textual.pilot import Pilot

from abp_tui.tui.app import make_app
from abp_tui.tui.screens.designs import open_review_screen
from tests.tui_helpers import (
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
