"""The figures' screens open at once the first time (found walking the main path: the first
`a`, `k` or `v` of a session took about two seconds, importing SciPy and the screens, while a
second took a tenth of that). Shortly after the first screen is shown, a worker thread imports
them; the first screen never waits for it."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from abp_tui.tui import app as app_module
from abp_tui.tui.app import make_app
from tests.tui_helpers import drive, home_study, studies_database, until


async def test_the_figures_screens_are_imported_in_a_thread_once_the_first_screen_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded_in: list[threading.Thread] = []
    monkeypatch.setattr(app_module, "FIGURES_LOADED_AFTER", 0.05)
    monkeypatch.setattr(
        app_module, "_import_figures", lambda: loaded_in.append(threading.current_thread())
    )
    app = make_app(studies_database(tmp_path, home_study()), reviewer="ana")
    async with drive(app, (80, 24)) as pilot:
        await until(pilot, lambda: loaded_in, "the figures' screens imported")
        assert app.home is not None and app.screen is app.home  # shown first
    assert loaded_in == [loaded_in[0]] and loaded_in[0] is not threading.main_thread()


def test_the_modules_imported_are_the_figures_screens() -> None:
    app_module._import_figures()  # each importable, from the core and the screens
    assert {
        "abp_tui.tui.screens.agreement",
        "abp_tui.tui.screens.disagreements",
        "abp_tui.tui.screens.results",
        "scipy.stats",
    } <= set(sys.modules)
