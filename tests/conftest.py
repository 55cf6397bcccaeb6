"""Shared test fixtures: a real SQLite file per test, the reference data folder, a CLI runner.

Factories (studies, judgments, constants) live in ``tests/factories.py``; this file turns them
into fixtures and, under xdist, adds up the snapshot comparisons the workers made. Fixtures write
only inside pytest's temporary folders (the test's ``tmp_path``, or the session's for a template
each test copies), so tests run in any order and on any number of xdist workers. ``Cli`` and
``FIXTURES`` are re-exported for older imports.
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.store import connect
from tests.factories import FIXTURES, ROOT, Cli, CliResult, copy_db

__all__ = ["FIXTURES", "ROOT", "Cli", "CliResult"]


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


@pytest.fixture(autouse=True)
def _fixed_plan_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Designs made by a test get their plan secrets from a counter instead of :mod:`secrets`:
    each design still has its own, and a test's plans (codes, placement, order) are the same on
    every run, as snapshots and fixed expectations need. Tests of the secrets themselves call
    :func:`abp_tui.analysis.blinding.new_plan_secret` directly."""
    counter = itertools.count(1)
    monkeypatch.setattr(
        "abp_tui.services.designing.new_plan_secret", lambda: f"test plan secret {next(counter)}"
    )


@pytest.fixture(scope="session")
def empty_db_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database file with the schema and no rows, migrated once per session (per worker)."""
    path = tmp_path_factory.mktemp("template") / "empty.db"
    connect(path).close()
    return path


@pytest.fixture
def db(tmp_path: Path, empty_db_template: Path) -> Iterator[sqlite_utils.Database]:
    """A fresh database in ``tmp_path/test.db``: a copy of the migrated template, opened."""
    database = copy_db(empty_db_template, tmp_path / "test.db")
    yield database
    database.close()


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "cli.db", capsys)


# -- snapshots under xdist -------------------------------------------------------------------------
# Syrupy prints its "snapshot report summary" only in a single process; on xdist workers each
# worker compares its snapshots (a mismatch still fails its test) but no one adds them up. The
# wrapper records each comparison on the test's report, which xdist sends to the controller, and
# the controller prints the count. Unused snapshots, which syrupy cannot find under xdist either,
# are caught by tests/test_suite_rules.py.
SNAPSHOT_PROPERTY = "snapshot_compared"


@pytest.fixture
def snap_compare(
    snap_compare: Callable[..., bool], record_property: Callable[[str, object], None]
) -> Callable[..., bool]:
    """pytest-textual-snapshot's ``snap_compare``, recording whether the snapshot matched."""

    def compare(*args: Any, **kwargs: Any) -> bool:
        matched = snap_compare(*args, **kwargs)
        record_property(SNAPSHOT_PROPERTY, "matched" if matched else "mismatched")
        return matched

    return compare


_snapshots: Counter[str] = Counter()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        _snapshots.update(str(v) for k, v in report.user_properties if k == SNAPSHOT_PROPERTY)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    if config.pluginmanager.getplugin("dsession") is None or not _snapshots:
        return  # one process: syrupy reports the snapshots itself
    terminalreporter.section("snapshot report summary (xdist workers)")
    terminalreporter.line(
        f"{_snapshots['matched']} snapshots matched, {_snapshots['mismatched']} mismatched."
    )


@pytest.fixture(autouse=True)
def _leaving_keys_act_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests press keys far faster than a person and read the screen right after: a key that
    submits or leaves acts at once instead of waiting a moment for a following letter. The
    typing tests that check that wait (tests/test_tui_typing.py) set it back."""
    monkeypatch.setattr("abp_tui.tui.typing_guard.DEFER_SECONDS", 0.0)
    # For the same reason the guards' clock moves a person's pace (a second) per key it reads:
    # only the typing tests, which set their own clock, make a burst of typing.
    pace = itertools.count(1000.0)
    monkeypatch.setattr("abp_tui.tui.typing_guard.CLOCK", lambda: float(next(pace)))
