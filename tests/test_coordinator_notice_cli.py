"""The CLI never asks (it is scripted) but never silently records a first coordinator look that
changes what the viewer may do: ``agreement``, ``results`` and ``judges`` print one notice line
on stderr when they have just recorded one (issue 15), and only then; stdout stays the report
(one JSON document with ``--json``)."""

from __future__ import annotations

import getpass
import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.services.results_report import unblind
from abp_tui.store.coordinator_views import views_by
from tests.factories import Cli, judged_open_design, llmbar_open_design, two_reviewer_design


def _notice(viewer: str, figure: str, study: str) -> str:
    return (
        f"notice: {viewer} has now seen {figure} of study {study}, as its coordinator: you will "
        f"not be able to judge {study}'s open designs as a reviewer (recorded, for good)\n"
    )


def test_agreement_says_once_that_it_recorded_the_first_look(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    judged_open_design(tmp_path, db)
    target = tmp_path / "test.db"
    first = cli("agreement", "--db", target, "--reviewer", "carol", "--resamples", "0", "--json")
    assert first.code == 0, first.err
    assert first.err == _notice("carol", "the agreement", "s")
    json.loads(first.out)  # stdout is still exactly the report
    assert [v.figure for v in views_by(db, "s", "carol")] == ["agreement"]
    again = cli("agreement", "--db", target, "--reviewer", "carol", "--resamples", "0")
    assert again.code == 0 and again.err == ""
    # alice is enrolled in the only open design: nothing she may do changes, nothing said.
    alice = cli("agreement", "--db", target, "--reviewer", "alice", "--resamples", "0")
    assert alice.code == 0 and alice.err == ""


def test_results_and_judges_say_it_too(
    reference: Path,
    tmp_path: Path,
    db: sqlite_utils.Database,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judged_open_design(tmp_path, db)
    unblind(db, "s", "coordinator")
    target = tmp_path / "test.db"
    monkeypatch.setattr(getpass, "getuser", lambda: "hal")
    shown = cli("results", "--db", target)
    assert shown.code == 0, shown.err
    assert shown.err == _notice("hal", "the results", "s")
    assert cli("results", "--db", target).err == ""

    llmbar_open_design(db, reference)
    judged = cli("judges", "--db", target, "--study", "llmbar", "--resamples", "0", "--json")
    assert judged.code == 0, judged.err
    assert judged.err == _notice("hal", "the AI judges' report", "llmbar")
    assert json.loads(judged.out)["study"] == "llmbar"


def test_nothing_is_said_when_nobody_could_enrol(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    two_reviewer_design(tmp_path, db)
    shown = cli(
        "agreement", "--db", tmp_path / "test.db", "--reviewer", "carol", "--resamples", "0"
    )
    assert shown.code == 0, shown.err
    assert shown.err == ""
