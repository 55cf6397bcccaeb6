"""``make run`` installs what the workstation needs and nothing else; the test tools come with
``make test`` (``bench install`` measures the time and the size; this checks the cause)."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _dry_run(target: str, venv: Path) -> str:
    done = subprocess.run(
        ["make", "-n", target, f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_run_installs_the_runtime_dependencies_only(tmp_path: Path) -> None:
    plan = _dry_run("run", tmp_path / "venv")
    installs = [line for line in plan.splitlines() if " pip install " in line]
    assert installs, plan
    assert all("[dev]" not in line for line in installs), plan
    # Byte-compiling every installed module is most of pip's time on SciPy; Python compiles what
    # the workstation imports on first use.
    assert all("--no-compile" in line for line in installs), plan


def test_make_test_adds_the_test_tools(tmp_path: Path) -> None:
    plan = _dry_run("test", tmp_path / "venv")
    assert any(" pip install " in line and "[dev]" in line for line in plan.splitlines()), plan


def test_the_test_tools_are_not_runtime_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = " ".join(project["dependencies"])
    for tool in ("pytest", "mypy", "ruff", "scikit-learn", "statsmodels", "datasette", "evalica"):
        assert tool not in runtime
    # A licence given as a table makes setuptools print a deprecation banner on every install.
    assert isinstance(project["license"], str)
