"""Import hygiene: the core works without a terminal, and a command loads only what it uses.

Each group of modules is imported in a fresh interpreter that records, after every import, which
forbidden packages have appeared: a leak is reported with the module that first pulled it in.
``lint-imports`` checks the same rules statically (``[tool.importlinter]`` in pyproject.toml);
these tests check what really happens at run time, lazy imports included.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import abp_tui
from abp_tui.store import connect

PACKAGE_ROOT = Path(abp_tui.__file__).resolve().parent
FACES = ("abp_tui.cli", "abp_tui.tui", "abp_tui.export", "abp_tui.bench")
"""The packages that talk to people (a terminal, a file a person reads): Rich is theirs."""
TUI_DRIVERS = ("abp_tui.__main__", "abp_tui.bench.ui", "abp_tui.bench.workstation")
"""Modules that run the Textual app: ``__main__`` starts the CLI, ``bench ui`` and ``bench
workstation`` drive the app."""


def _modules() -> list[str]:
    """Every module of the package, from its files (importing nothing here, in the test's own
    interpreter, where pytest and the fixtures have loaded much already)."""
    root = Path(abp_tui.__file__).resolve().parent
    names = []
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


def _in_package(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


CORE = [m for m in _modules() if not _in_package(m, FACES) and m not in TUI_DRIVERS]
HEADLESS_FACES = [
    m
    for m in _modules()
    if _in_package(m, FACES) and not _in_package(m, ("abp_tui.tui",)) and m not in TUI_DRIVERS
]

_PROBE = """
import importlib, json, sys
forbidden = {forbidden!r}
def loaded():
    return sorted(m for m in sys.modules if m.split(".")[0] in forbidden)
leaks = {{}}
for name in {modules!r}:
    before = set(loaded())
    importlib.import_module(name)
    new = sorted(set(loaded()) - before)
    if new:
        leaks[name] = sorted({{m.split(".")[0] for m in new}})
print(json.dumps(leaks))
"""


def _leaks(modules: list[str], forbidden: set[str]) -> dict[str, list[str]]:
    code = _PROBE.format(forbidden=sorted(forbidden), modules=modules)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, f"a module does not import: {result.stderr[-2000:]}"
    leaks: dict[str, list[str]] = json.loads(result.stdout)
    return leaks


def test_the_groups_cover_every_module() -> None:
    names = set(_modules())
    # The walk found the packages of every layer: a group that silently lost them tests nothing.
    assert {"abp_tui.store.overview", "abp_tui.services.importing", "abp_tui.stats.agreement"} <= (
        set(CORE)
    )
    assert {"abp_tui.cli.parser", "abp_tui.export.bundle", "abp_tui.bench.startup"} <= set(
        HEADLESS_FACES
    )
    tui = {m for m in names if _in_package(m, ("abp_tui.tui",))}
    assert set(CORE) | set(HEADLESS_FACES) | tui | set(TUI_DRIVERS) == names


def test_the_core_loads_neither_textual_nor_rich() -> None:
    assert _leaks(CORE, {"textual", "rich"}) == {}


def test_the_headless_faces_do_not_load_textual() -> None:
    # The CLI, the exporters and the benchmarks other than ``bench ui`` and ``bench
    # workstation`` run on a machine with no terminal at all (a CI job, a pipe); Rich is
    # allowed there, Textual is not.
    assert _leaks(HEADLESS_FACES, {"textual"}) == {}


def test_status_loads_only_the_standard_library_and_the_overview(tmp_path: Path) -> None:
    """``abp-tui status`` answers within 0.3 s because it loads nothing heavy (``bench
    startup`` measures the time; this checks the cause, which does not depend on the machine).
    """
    db = tmp_path / "status.db"
    connect(db).close()
    heavy = ["pydantic", "sqlite_utils", "numpy", "scipy", "textual", "rich"]
    code = (
        "import sys\n"
        "from abp_tui.cli import main\n"
        f"code = main(['status', '--db', {str(db)!r}])\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r})), code)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines()[-1] == "[] 0"


@pytest.mark.parametrize("argv", [["status"], ["formats"], ["--help"]])
def test_no_command_but_the_workstation_loads_textual(argv: list[str], tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from abp_tui.cli import main\n"
        "try:\n"
        f"    main({[*argv, '--db', str(tmp_path / 'x.db')]!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('textual' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines()[-1] == "False"


MAX_MODULE_LINES = 800
"""A module a person can hold in their head: one concept, under this many lines."""


def test_every_module_stays_under_the_size_limit() -> None:
    root = Path(abp_tui.__file__).resolve().parent
    sizes = {
        str(path.relative_to(root.parent)): len(path.read_text(encoding="utf-8").splitlines())
        for path in root.rglob("*.py")
    }
    too_long = {name: lines for name, lines in sorted(sizes.items()) if lines > MAX_MODULE_LINES}
    assert too_long == {}


def test_sql_is_run_only_in_the_store() -> None:
    """One package owns SQL (``abp_tui.store``); the benchmarks' baselines run their own bare
    SQL on purpose (that is what they measure against)."""
    found = []
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        relative = path.relative_to(PACKAGE_ROOT).as_posix()
        if relative.startswith(("store/", "bench/")):
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"\.(execute|executemany|executescript)\(", code):
                found.append(f"{relative}:{number}")
    assert found == [], f"SQL outside abp_tui/store: {found}"
