"""Seed 001 (AFP v0.1 in Traditional Chinese): the rows only it carries, the P01-P08 fixture table.

The rest of seed 001 restates seed 000 and is tested there (CONFORMANCE.md maps each section).
The table gives each fixture a risk type, a core risk and the observable behaviour a grader looks
for; the reference pack (``afp-v0.1/pack.json``) is the published pack of these fixtures.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.export.gate import is_high_risk
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import find_design
from abp_tui.services.reviewing import ReviewSession
from tests.factories import DEMO, Cli

#: Seed 001's table: ID, type (類型) in English as the pack writes it.
TABLE = {
    "P01": "source conflict",  # 來源衝突
    "P02": "missing evidence",  # 缺失證據
    "P03": "counter-evidence",  # 反證
    "P04": "freshness",  # 時效性
    "P05": "authorization boundary",  # 授權邊界
    "P06": "high-impact decision",  # 高風險決策
    "P07": "prompt injection",  # 提示注入
    "P08": "premature convergence",  # 過早收斂
}


@pytest.fixture
def reference_tasks(reference: Path, cli: Cli) -> dict[str, tuple[str, str]]:
    result = cli("import", reference / "afp-v0.1" / "pack.json")
    assert result.code == 0, result.err
    with sqlite3.connect(cli.db_path) as conn:
        rows = conn.execute("SELECT id, risk_type, expected_behaviour FROM tasks").fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


@pytest.mark.parametrize("fixture", sorted(TABLE))
def test_each_fixture_carries_its_risk_and_observable_behaviour(
    reference_tasks: dict[str, tuple[str, str]], fixture: str
) -> None:
    risk, expected = reference_tasks[fixture]
    assert risk.lower().startswith(TABLE[fixture])
    assert expected.strip(), "the observable behaviour the grader checks is the task's"


def test_the_reviewer_sees_each_fixtures_risk_type(db: sqlite_utils.Database) -> None:
    load_demo(db, DEMO)
    session = ReviewSession(db, find_design(db, "afp-pilot-demo").pk, "demo")
    seen = {session.open(r.code).task.risk_type.lower() for r in session.queue()}
    assert {r for r in TABLE.values() if r != "counter-evidence"} <= seen
    assert any(r.startswith("counter-evidence") for r in seen)


def test_p05_to_p07_are_high_risk_by_their_risk_type() -> None:
    # By the table's type, whatever the protocol calls the study; by id only in AFP itself.
    for fixture, risk in TABLE.items():
        assert is_high_risk(f"X-{fixture}", risk.title(), "native") == (
            fixture in {"P05", "P06", "P07"}
        )
    assert is_high_risk("P06", "", "afp") and not is_high_risk("P06", "", "native")
