"""The agent study the transcript and search tests share: two engines' runs with raw events.

The study is native JSONL whose trace events carry the raw JSON an agent harness wrote (tool
arguments, results, errors), so a transcript has something to read. Helpers drive the compare
screen to both transcripts and read back which run each response shows, and wait for a screen
to be ready: pushed, composed and mounted, and its data loaded (``screen_ready``), never just
being the top of the stack (a screen pushed a moment ago has no widgets yet). This module holds
no tests.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from textual.pilot import Pilot
from textual.screen import Screen

from abp_tui.models import StudyDesign
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.widgets.response import ResponseView
from tests.tui_helpers import press, rows, settle, study_database, until

SIZE = (160, 48)
READY_TIMEOUT = 60.0
"""Seconds a screen may take to be pushed, composed and loaded (the suite runs beside others on
a shared machine: a slow start is not a failure)."""

ScreenT = TypeVar("ScreenT", bound=Screen[Any])
LONG_RESULT = "\n".join(f"PASSED tests/test_case_{n:03}.py::test_{n}" for n in range(60))


def _raw(run: str, seq: int, **fields: Any) -> dict[str, Any]:
    """A native trace event carrying the raw event a harness wrote (``raw``)."""
    kind = fields.pop("kind")
    tool = fields.get("tool")
    event = {"t": f"2026-01-18T09:00:0{seq}.000Z", "seq": seq, "kind": kind, **fields}
    line: dict[str, Any] = {
        "type": "trace_event",
        "run_id": run,
        "seq": seq,
        "t": event["t"],
        "kind": kind,
        "raw": json.dumps(event),
    }
    if tool:
        line["tool"] = tool
    tokens = fields.get("tokens")
    if tokens:
        line["input_tokens"], line["output_tokens"] = tokens["input"], tokens["output"]
    if "durationMs" in fields:
        line["duration_ms"] = fields["durationMs"]
    return line


def agent_study() -> list[dict[str, Any]]:
    """Two engines (``quasar-agent`` and ``nebula-agent``, models named after them) on one task;
    each run read a file, ran the tests (a long result) and finished."""
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": "agents", "name": "Agents", "synthetic": True},
        {"type": "condition", "id": "quasar-agent", "label": "Quasar Agent"},
        {"type": "condition", "id": "nebula-agent", "label": "Nebula Agent"},
        {"type": "task", "id": "fix-paging", "prompt": "Fix the off-by-one in the pager."},
    ]
    for engine, model in (("quasar-agent", "quasar-large"), ("nebula-agent", "nebula-pro")):
        run = f"fix-paging/{engine}"
        failing = engine == "nebula-agent"
        lines += [
            _raw(run, 1, kind="run.start", engine=f"{engine}/1.0", model=f"acme/{model}"),
            _raw(
                run,
                2,
                kind="model.call",
                model=f"acme/{model}",
                tokens={"input": 1200, "output": 300, "cacheRead": 0, "cacheWrite": 0},
                message=f"I am {model}: I will read the pager first.",
            ),
            _raw(run, 3, kind="tool.call", tool="read_file", args={"path": "src/pager.py"}),
            _raw(
                run,
                4,
                kind="tool.call",
                tool="run_tests",
                args={"cmd": "pytest -q"},
                durationMs=2077,
                result=LONG_RESULT + ("\nFAILED tests/test_last.py" if failing else ""),
                error="exit status 1" if failing else None,
            ),
            _raw(run, 5, kind="run.end", outcome="failed" if failing else "resolved"),
            {
                "type": "run",
                "id": run,
                "task_id": "fix-paging",
                "condition_id": engine,
                "engine": engine,
                "model": model,
                "provider": "acme",
                "output": f"Fixed the pager ({engine}).",
            },
        ]
    return lines


def agent_design() -> StudyDesign:
    return StudyDesign(
        study="agents",
        name="pairs",
        seed=3,
        contrasts=[("quasar-agent", "nebula-agent")],
        reviewers=["ana"],
    )


def agent_database(tmp_path: Path) -> Path:
    return study_database(tmp_path, agent_study(), agent_design(), name="agents.db")


def runs_shown(db_path: Path, code: str, reviewer: str = "ana") -> list[str]:
    """The ids of an item's runs in the places this reviewer sees them."""
    ((a, b, swapped),) = rows(
        db_path,
        "SELECT ra.id, rb.id, s.flipped FROM items i JOIN assignments s ON s.item_pk = i.pk "
        "JOIN runs ra ON ra.pk = i.run_a_pk JOIN runs rb ON rb.pk = i.run_b_pk "
        "WHERE i.code = ? AND s.reviewer = ?",
        [code, reviewer],
    )
    return [b, a] if swapped else [a, b]


async def screen_ready(
    pilot: Pilot[Any],
    kind: type[ScreenT],
    loaded: Callable[[ScreenT], bool],
    what: str,
    timeout: float = READY_TIMEOUT,
) -> ScreenT:
    """The app's current screen once it is a ``kind``, mounted (its widgets composed and its
    ``on_mount`` run) and ``loaded`` says its worker's data are shown; then settled.

    ``loaded`` is only asked of a mounted screen, so it may query the screen's widgets.
    """

    def ready() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, kind) and screen.is_mounted and loaded(screen)

    await until(pilot, ready, what, timeout)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, kind), f"{what}: the screen changed to {screen!r}"
    return screen


async def both_transcripts(pilot: Pilot[Any], screen: Screen[Any]) -> list[ResponseView]:
    """Press r on ``screen`` (compare or adjudication) and wait for both transcripts to be in
    their panes."""
    await press(pilot, "r")
    views = list(screen.query(ResponseView))
    assert len(views) == 2, f"expected two responses, found {len(views)}"
    await until(
        pilot,
        lambda: all(v.shown is not None and v.transcript_pane.is_laid_out for v in views),
        "both transcripts",
        READY_TIMEOUT,
    )
    await settle(pilot)
    return views


async def transcripts_shown(pilot: Pilot[Any], screen: CompareScreen) -> list[ResponseView]:
    """Press r and wait for both transcripts to be in their panes."""
    return await both_transcripts(pilot, screen)
