"""Rules the test suite keeps about itself, read from the test files and the stored snapshots.

- A test module never imports another test module: shared set-ups live in ``tests/factories.py``
  (fixtures in ``conftest.py``, which pytest loads itself). Importing a test module from another
  drags its collection along and couples files that change for unrelated reasons.
- Every stored SVG snapshot belongs to a test that still exists, and is stored with LF endings.
  Syrupy finds unused snapshots itself only in a single process; ``make test`` runs on xdist
  workers, where it cannot, so this check stands in for it.

This file checks the suite's shape, not the product's behaviour.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
MODULES = sorted(p for p in TESTS.rglob("*.py") if "__snapshots__" not in p.parts)
"""Every test file, those in sub-packages (the conformance tests) included."""
SNAPSHOTS = sorted((TESTS / "__snapshots__").glob("*/*.svg"))


def _imported_modules(tree: ast.Module) -> list[tuple[int, str]]:
    """Every module an import statement names, with its line (relative imports resolved)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "tests." * bool(node.level) + (node.module or "")
            if node.module is None:
                found.extend((node.lineno, base + alias.name) for alias in node.names)
            else:
                found.append((node.lineno, base))
    return found


def _is_test_module(name: str) -> bool:
    in_tests = name.startswith("tests.") or "." not in name
    return in_tests and name.split(".")[-1].startswith("test_")


def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    functions = (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    return {f.name for f in functions if f.name.startswith("test_")}


def test_the_scan_sees_every_kind_of_import() -> None:
    tree = ast.parse(
        "import tests.test_a\n"
        "from tests.test_b import x\n"
        "from . import test_c\n"
        "from .conftest import Cli\n"  # a fixture module, not a test module
        "from test_d import y\n"
        "from tests.factories import GATE\n"
        "import pytest\n"
    )
    bad = [name for _, name in _imported_modules(tree) if _is_test_module(name)]
    assert bad == ["tests.test_a", "tests.test_b", "tests.test_c", "test_d"]


def test_the_scan_reaches_the_conformance_tests() -> None:
    assert any("conformance" in p.parts for p in MODULES)


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(TESTS)) for p in MODULES])
def test_no_test_module_imports_another(path: Path) -> None:
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    imported = _imported_modules(tree)
    bad = [f"line {line}: {name}" for line, name in imported if _is_test_module(name)]
    assert not bad, f"{path.name} imports test modules (move shared set-ups to factories.py): {bad}"


@pytest.mark.parametrize("svg", SNAPSHOTS, ids=[f"{p.parent.name}/{p.name}" for p in SNAPSHOTS])
def test_every_snapshot_has_its_test_and_lf_endings(svg: Path) -> None:
    module = TESTS / f"{svg.parent.name}.py"
    # Syrupy names a parametrized test's snapshot test_name[params].svg.
    test_name = svg.stem.split("[", 1)[0]
    assert module.is_file(), f"{svg.name}: no test module {module.name}"
    assert test_name in _test_functions(module), f"{svg.name}: {module.name} has no {test_name}"
    assert b"\r\n" not in svg.read_bytes(), f"{svg.name} has CRLF line endings"
