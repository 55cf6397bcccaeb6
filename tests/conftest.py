"""Shared test fixtures: a real SQLite file per test, the reference data folder, a CLI runner."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.cli import main
from abp_tui.store import connect

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def _reference_dir() -> Path:
    env = os.environ.get("ABP_TUI_REFERENCE")
    return Path(env) if env else ROOT.parent / "shared" / "reference"


@pytest.fixture
def reference() -> Path:
    """The folder of real files written by others (``../shared/reference``)."""
    path = _reference_dir()
    if not path.is_dir():
        pytest.skip(
            f"reference data folder {path} is absent (set ABP_TUI_REFERENCE to point at it)"
        )
    return path


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    database = connect(tmp_path / "test.db")
    yield database
    database.close()


@dataclass
class CliResult:
    code: int
    out: str
    err: str


class Cli:
    """Runs ``abp-tui`` in-process against a database in tmp_path: ``cli("import", path)``."""

    def __init__(self, db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.db_path = db_path
        self._capsys = capsys

    def __call__(self, *args: str | Path) -> CliResult:
        argv = [str(a) for a in args]
        if "--db" not in argv and argv and argv[0] != "--version":
            argv = [argv[0], "--db", str(self.db_path), *argv[1:]]
        self._capsys.readouterr()
        code = main(argv)
        captured = self._capsys.readouterr()
        return CliResult(code, captured.out, captured.err)


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "cli.db", capsys)
