"""The workstation's first item is on screen before anything heavy is imported.

``bench startup`` measures the time; this checks the cause, which does not depend on the
machine: from launch (the command line ``abp-tui --db DB``, as a person starts it) to the first
item of the demo study, neither SciPy, NumPy, Jinja2 nor jsonschema is loaded, nor any of our
statistics (``abp_tui.stats``). They are imported when a figure is first asked for.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from abp_tui.services.demo import load_demo
from abp_tui.store import connect
from tests.factories import FIXTURES

HEAVY = ("scipy", "numpy", "jinja2", "jsonschema", "pandas", "abp_tui.stats")
OPTION_LIMITS = ["abp_tui.stats", "abp_tui.stats.limits", "abp_tui.stats.resampling"]
"""The limits the command line checks its options against: constants, importing nothing."""

_PROBE = """
import asyncio, sys
from pathlib import Path
import textual.app
from abp_tui.cli import main

# The command line's own start, its imports in their own order (its reading of the database
# included), run headless: only Textual's App.run is replaced, before any of ours is imported.
textual.app.App.run = lambda app: asyncio.run(first_item(app))

async def first_item(app) -> None:
    from abp_tui.tui.screens.compare import CompareScreen

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

assert main(["--db", {db!r}]) == 0
heavy = {heavy!r}
print(sorted(m for m in sys.modules if m.startswith(heavy)))
"""


def test_the_first_item_is_shown_without_loading_the_statistics(tmp_path: Path) -> None:
    path = tmp_path / "abp.db"
    database = connect(path)
    load_demo(database, FIXTURES / "demo")
    database.close()
    code = _PROBE.format(db=str(path), heavy=HEAVY)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    loaded = ast.literal_eval(result.stdout.splitlines()[-1])
    assert [m for m in loaded if m not in OPTION_LIMITS] == []
