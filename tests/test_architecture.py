"""The core works without a terminal: nothing outside abp_tui.tui imports Textual."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import abp_tui


def test_core_modules_do_not_import_textual() -> None:
    core = [
        m.name
        for m in pkgutil.walk_packages(abp_tui.__path__, "abp_tui.")
        if not m.name.startswith("abp_tui.tui")
        and m.name not in ("abp_tui.__main__", "abp_tui.bench.ui")
    ]
    assert "abp_tui.store" in core and "abp_tui.services.importing" in core
    code = (
        "import importlib, sys\n"
        f"for name in {core!r}:\n"
        "    importlib.import_module(name)\n"
        "leaked = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(leaked))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
