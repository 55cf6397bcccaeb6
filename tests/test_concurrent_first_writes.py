"""Two processes doing the same first write at once: one wins, the other sees its result.

The faults (issue 27): two first loads of the demo into one new database at once ended in an
internal error (exit 3, ``UNIQUE constraint failed``) in 5 of 6 tries, two ``study create`` of
one file in 2 of 16: each planned the design from what it read before taking the write lock,
and both then stored "version 1".

The first test makes the interleaving certain (another connection stores the design while this
one plans it); the others run real processes started together, a bounded number of times: each
finishes, or on a loaded machine may wait past the busy timeout and say so in one line.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.services import designing
from abp_tui.services.designing import create_design, load_design_file
from abp_tui.services.importing import import_paths
from abp_tui.store import connect

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "fixtures" / "designs" / "afp-pilot-demo.toml"
STUDY = ROOT / "fixtures" / "demo" / "afp-pilot-demo"


def _imported(path: Path) -> Path:
    db = connect(path)
    import_paths(db, [STUDY], study=STUDY.name)
    db.close()
    return path


def _designs(path: Path) -> list[tuple[str, int]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT name, version_no FROM designs ORDER BY pk").fetchall()
    finally:
        conn.close()


def test_a_design_stored_by_another_process_while_this_one_plans_it_is_found_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _imported(tmp_path / "two.db")
    real = vars(designing)["held_back"]
    raced: list[str] = []

    def meanwhile(*args: object, **kwargs: object) -> object:
        if not raced:  # once: the other process plans, stores and commits first
            raced.append("other")
            other = connect(path)
            raced.append(create_design(other, load_design_file(DESIGN)).status)
            other.close()
        return real(*args, **kwargs)

    monkeypatch.setattr(designing, "held_back", meanwhile)
    db: sqlite_utils.Database = connect(path)
    created = create_design(db, load_design_file(DESIGN))
    db.close()
    assert raced == ["other", "created"]
    assert created.status == "unchanged"
    assert _designs(path) == [("blind-pairs", 1)]


def _none_failed(results: list[subprocess.CompletedProcess[str]]) -> None:
    """Each finished, or (on a loaded machine) waited past the busy timeout and said so in one
    line, having changed nothing; never an internal error; at least one finished."""
    for result in results:
        if result.returncode != 0:
            assert result.returncode == 1, result.stderr
            assert "the database stayed busy" in result.stderr, result.stderr
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert 0 in [r.returncode for r in results]


def _together(*argvs: list[str]) -> list[subprocess.CompletedProcess[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "abp_tui", *argv],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv in argvs
    ]
    done = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


@pytest.mark.parametrize("attempt", range(3))
def test_two_first_loads_of_the_demo_at_once(tmp_path: Path, attempt: int) -> None:
    path = tmp_path / f"demo-{attempt}.db"
    _none_failed(_together(["demo", "--db", str(path)], ["demo", "--db", str(path)]))
    conn = sqlite3.connect(path)
    try:
        studies = conn.execute("SELECT count(*) FROM studies").fetchone()[0]
        versions = conn.execute(
            "SELECT count(*) FROM designs GROUP BY study_id, name HAVING count(*) > 1"
        ).fetchall()
        judgments = conn.execute(
            "SELECT count(*) FROM judgments GROUP BY item_pk, reviewer, revision "
            "HAVING count(*) > 1"
        ).fetchall()
    finally:
        conn.close()
    assert studies == 3
    assert versions == [] and judgments == []  # one of each, not two


@pytest.mark.parametrize("attempt", range(3))
def test_two_study_create_of_one_file_at_once(tmp_path: Path, attempt: int) -> None:
    path = _imported(tmp_path / f"create-{attempt}.db")
    argv = ["study", "create", str(DESIGN), "--db", str(path)]
    results = _together(argv, argv)
    _none_failed(results)
    statuses = sorted(r.stdout.split()[0] for r in results if r.returncode == 0)
    assert statuses in (["created", "unchanged"], ["created"])
    assert _designs(path) == [("blind-pairs", 1)]
