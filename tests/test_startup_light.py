"""The workstation's launch path stays light: when the first item's texts go on screen, the process
has not imported sqlite-utils (nor the click, pluggy and dateutil it brings) nor the diff's
process pool (multiprocessing): the store's connection runs on ``sqlite3`` alone and the helper
process starts after the first paint. Nor Textual's ``TabbedContent`` (each response's Output
and Trace tabs are a plain tab bar over the two panes), nor the rules of a revision and the
coordinator's identity checks with the re-runs, verdicts and statistics they bring (they are
imported with the first save or enrolment). Nor has any pydantic model been validated (the
design and rubric the store keeps are read back without building their validators, whose first
build imports ``importlib.metadata`` and scans every installed package for pydantic's plugins).
Nor the transcripts' reading and layout (read when a Trace tab is first shown) and the AI
judges' verdicts with their models (read once an item is submitted), nor the studies' use cases
(the home screen beneath the first item reads the studies when it is shown), nor the diff's
library (imported with the first diff). Nor has the garbage
collector run (it walked the start-up's objects again and again for nothing): it runs again once
the first item is on screen and its form built.

``bench startup`` measures the time; this checks the cause, which does not depend on the
machine. The modules are read at the moment the compare screen is given its first item's texts
(the paint that shows them follows), in a fresh interpreter started as a person starts it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from abp_tui.services.demo import load_demo
from abp_tui.store import connect
from tests.factories import FIXTURES

NOT_BEFORE_THE_FIRST_ITEM = (
    "sqlite_utils",
    "click",
    "pluggy",
    "dateutil",
    "multiprocessing",
    "concurrent.futures.process",
    "textual.widgets._tabbed_content",
    "abp_tui.services.revision_rules",
    "abp_tui.services.reclassify",
    "abp_tui.services.coordinator_identity",
    "abp_tui.analysis.verdicts",
    "statistics",
    "importlib.metadata",
    "abp_tui.analysis.transcript",
    "abp_tui.services.transcripts",
    "abp_tui.tui.widgets.transcriptlayout",
    "abp_tui.services.judge_display",
    "abp_tui.models.judges",
    "abp_tui.services.studies",
    "diff_match_patch",
)

_PROBE = """
import asyncio, gc, sys
import textual.app
from abp_tui.cli import main

# The command line's own start, run headless: only Textual's App.run is replaced.
textual.app.App.run = lambda app: asyncio.run(first_item(app))
loaded = []
collector = {{}}

async def first_item(app) -> None:
    from abp_tui.tui.screens.compare import CompareScreen

    first_texts = CompareScreen._first_texts

    def shown(screen, message):
        if not loaded:
            loaded.append(sorted(sys.modules))
            collector["at the first item"] = gc.isenabled()
        first_texts(screen, message)

    CompareScreen._first_texts = shown
    async with app.run_test(size=(120, 35)) as pilot:
        for _ in range(2400):  # up to a minute on a loaded machine
            screen = app.screen
            if isinstance(screen, CompareScreen) and screen.item is not None:
                break
            await pilot.pause(0.025)
        else:
            failed = [f"{{f.description}}: {{f.reason}}" for f in app.failures]
            raise SystemExit(f"no item on screen: {{app.screen!r}} {{failed}}")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
        collector["once it is shown"] = gc.isenabled()

assert main(["--db", {db!r}]) == 0
assert loaded, "the first item's texts were never shown"
names = {names!r}
print(collector)
print([m for m in loaded[0] if m.startswith(names)])
"""


def test_the_first_item_is_shown_before_sqlite_utils_the_process_pool_and_any_collection(
    tmp_path: Path,
) -> None:
    path = tmp_path / "abp.db"
    database = connect(path)
    load_demo(database, FIXTURES / "demo")
    database.close()
    code = _PROBE.format(db=str(path), names=NOT_BEFORE_THE_FIRST_ITEM)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    collector = ast.literal_eval(result.stdout.splitlines()[-2])
    loaded = ast.literal_eval(result.stdout.splitlines()[-1])
    assert [m for m in loaded if _is_one_of(m)] == []
    assert collector == {"at the first item": False, "once it is shown": True}


def _is_one_of(module: str) -> bool:
    return any(
        module == name or module.startswith(name + ".") for name in NOT_BEFORE_THE_FIRST_ITEM
    )
