"""Import hygiene: the core works without a terminal, and a command loads only what it uses.

Each group of modules is imported in a fresh interpreter that records, after every import, which
forbidden packages have appeared: a leak is reported with the module that first pulled it in.
``lint-imports`` checks the same rules statically (``[tool.importlinter]`` in pyproject.toml);
these tests check what really happens at run time, lazy imports included.
"""

from __future__ import annotations

import ast
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


PLACEMENT_MODULE = "analysis/placement.py"
"""The one translation between the positions a judgment was given in and the runs it names."""
POSITION_NAMERS = {
    "models/judgments.py": "defines the choices",
    "formats/pairwise.py": "reads a source's own 1 and 2 as the choice given",
    "tui/widgets/preference.py": "the keys and words of each choice on the form",
    "tui/widgets/judgments_table.py": "the words of each choice in the table",
    "analysis/results/tallies.py": "position bias counts positions, never runs",
    "analysis/agreement/labels.py": "imported labels among themselves, in the source's positions",
    "services/agreement_report.py": "imported labels among themselves, in the source's positions",
    "bench/scale.py": "generated reviewers press a choice at random, as a person would",
}
"""Modules that name Response 1 / Response 2 without turning them into runs, and why."""
_HOLDERS = frozenset({"placement"})
_INSPECTING_CALLS = frozenset(
    {"sorted", "list", "set", "tuple", "reversed", "len", "iter", "next", "enumerate", "zip"}
)


def _holds_placement(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr in _HOLDERS) or (
        isinstance(node, ast.Name) and node.id in _HOLDERS
    )


def _builds_a_mapping(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.DictComp) or (isinstance(n, ast.Dict) and n.keys) for n in ast.walk(node)
    )


def _numbers_positions(node: ast.AST) -> bool:
    """``{str(i): run for i, run in enumerate(runs, start=1)}``: positions numbered from runs."""
    return (
        isinstance(node, ast.DictComp)
        and isinstance(node.key, ast.Call)
        and isinstance(node.key.func, ast.Name)
        and node.key.func.id == "str"
        and any(
            isinstance(g.iter, ast.Call)
            and isinstance(g.iter.func, ast.Name)
            and g.iter.func.id == "enumerate"
            and any(k.arg == "start" for k in g.iter.keywords)
            for g in node.generators
        )
    )


def placement_translations(source: str) -> list[int]:
    """Lines of ``source`` that look inside a placement (its items, keys, values, a position
    of it, its size), build one from a mapping, or name Response 1 / 2 as a preference."""
    found: list[int] = []
    for node in ast.walk(ast.parse(source)):
        inside = (
            (isinstance(node, ast.Subscript) and _holds_placement(node.value))
            or (
                isinstance(node, ast.Attribute)
                and node.attr in {"items", "keys", "values", "get"}
                and _holds_placement(node.value)
            )
            or (isinstance(node, ast.For | ast.comprehension) and _holds_placement(node.iter))
            or (
                isinstance(node, ast.Compare)
                and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
                and any(_holds_placement(c) for c in node.comparators)
            )
            or (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in _INSPECTING_CALLS
                and any(_holds_placement(a) for a in node.args)
            )
        )
        built = (
            (
                isinstance(node, ast.Assign | ast.AnnAssign)
                and node.value is not None
                and any(
                    _holds_placement(t)
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                )
                and _builds_a_mapping(node.value)
            )
            or (
                isinstance(node, ast.keyword)
                and node.arg in _HOLDERS
                and _builds_a_mapping(node.value)
            )
            or (
                isinstance(node, ast.Dict)
                and any(
                    isinstance(k, ast.Constant) and k.value in _HOLDERS and _builds_a_mapping(v)
                    for k, v in zip(node.keys, node.values, strict=True)
                )
            )
        )
        named = isinstance(node, ast.Attribute) and node.attr in {"RESPONSE_1", "RESPONSE_2"}
        if inside or built or named or _numbers_positions(node):
            found.append(getattr(node, "lineno", 0))
    return sorted(set(found))


def test_the_placement_checker_finds_each_way_of_translating() -> None:
    """Translations the code base once held in seven places, each found by the rule below."""
    samples = [
        "by_run = {run: pos for pos, run in j.placement.items()}",
        "run_shown = placement.get('1')",
        "if key not in placement:\n    pass",
        "responses[str(placement[key])] = response",
        "single = len(latest.placement) == 1",
        "for position, run in sorted(placement.items()):\n    pass",
        "placement = json.dumps({str(i): pk for i, pk in enumerate(order, start=1)})",
        "revision.model_copy(update={'placement': {p: p for p in sorted(shown)}})",
        "theirs = {PreferenceChoice.RESPONSE_1: '2', PreferenceChoice.RESPONSE_2: '1'}",
        "adjudicate(final, {str(p): pk for p, pk in enumerate(item.run_pks, start=1)})",
    ]
    assert [bool(placement_translations(s)) for s in samples] == [True] * len(samples)
    assert placement_translations("shown_as(j.placement, pick)\ndict(j.placement)") == []


def test_positions_and_runs_are_translated_in_one_module() -> None:
    """Only :mod:`abp_tui.analysis.placement` looks inside a placement (position -> run), builds
    one, or turns Response 1 / 2 into a run; every other module calls it. Modules that name
    Response 1 / 2 as words or positions alone are listed with the reason."""
    found = []
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        relative = path.relative_to(PACKAGE_ROOT).as_posix()
        if relative == PLACEMENT_MODULE:
            continue
        lines = placement_translations(path.read_text("utf-8"))
        if relative in POSITION_NAMERS:
            source = path.read_text("utf-8").splitlines()
            lines = [n for n in lines if "RESPONSE_" not in source[n - 1]]
        found += [f"{relative}:{n}" for n in lines]
    assert found == [], f"position <-> run translated outside {PLACEMENT_MODULE}: {found}"
