"""Reviewers meet items in common blocks: two reviewers who each judged a first handful of items
judged many of the same ones, so agreement has something to measure from the first minutes.

Each reviewer's order used to be a shuffle of their whole queue of their own: two reviewers of
a 60-item study who had each judged ten items shared one or two of them (often none), and the
agreement screen had nothing to show until far into the study. Now each reviewer takes the
items in the plan's shared order, shuffled only within blocks of ``ORDER_BLOCK``: their first
block is the same items in different orders.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.analysis.blinding import ORDER_BLOCK, ORDER_BLOCKS_KEY
from abp_tui.models.design import StudyDesign
from abp_tui.services import designing
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import judging as sql
from tests.factories import write_jsonl

TASKS = 60


def _study(tmp_path: Path, db: sqlite_utils.Database) -> None:
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": "s"},
        {"type": "condition", "id": "A"},
        {"type": "condition", "id": "B"},
    ]
    for t in range(TASKS):
        lines.append({"type": "task", "id": f"T{t:02d}"})
        for c in "AB":
            lines.append(
                {
                    "type": "run",
                    "id": f"{c}{t:02d}",
                    "task_id": f"T{t:02d}",
                    "condition_id": c,
                    "output": f"answer {c} to task {t}",
                }
            )
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])


def _first(db: sqlite_utils.Database, pk: int, reviewer: str) -> list[str]:
    return [row.code for row in ReviewSession(db, pk, reviewer).queue()][:ORDER_BLOCK]


def test_two_listed_reviewers_share_their_first_block_in_orders_of_their_own(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    design = StudyDesign(
        study="s",
        name="both",
        seed=7,
        contrasts=[("A", "B")],
        reviewers=["ann", "bo"],
        reviewers_per_item=2,
    )
    pk = create_design(db, design).pk
    ann, bo = _first(db, pk, "ann"), _first(db, pk, "bo")
    assert len(ann) == ORDER_BLOCK
    assert set(ann) == set(bo)  # the same items first
    assert ann != bo  # each in an order of their own
    assert sql.design(db, pk).document[ORDER_BLOCKS_KEY] == ORDER_BLOCK


def test_three_reviewers_two_per_item_share_half_of_a_first_block(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    design = StudyDesign(
        study="s",
        name="three",
        seed=7,
        contrasts=[("A", "B")],
        reviewers=["ann", "bo", "cy"],
        reviewers_per_item=2,
    )
    pk = create_design(db, design).pk
    first = {r: set(_first(db, pk, r)) for r in ("ann", "bo", "cy")}
    for a, b in (("ann", "bo"), ("ann", "cy"), ("bo", "cy")):
        assert len(first[a] & first[b]) >= ORDER_BLOCK // 2 - 1, (a, b)


def test_reviewers_enrolling_in_an_open_design_share_their_first_block(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    design = StudyDesign(study="s", name="open", seed=7, contrasts=[("A", "B")])
    pk = create_design(db, design).pk
    ann, bo = _first(db, pk, "ann"), _first(db, pk, "bo")
    assert set(ann) == set(bo) and ann != bo


def test_a_design_planned_before_keeps_its_order_when_given_again(
    tmp_path: Path, db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A design stored before this rule (no ``order_blocks`` in its document) is unchanged when
    its file is given again: its reviewers' queues are not reshuffled under them. A change
    replans it with the rule."""
    _study(tmp_path, db)
    design = StudyDesign(
        study="s",
        name="old",
        seed=7,
        contrasts=[("A", "B")],
        reviewers=["ann", "bo"],
        reviewers_per_item=2,
    )
    planned: Any = designing._plan

    def as_before(*args: Any, **kwargs: Any) -> Any:
        return planned(*args[:-1], False, **kwargs)  # every reviewer's whole queue shuffled

    with monkeypatch.context() as m:
        m.setattr(designing, "_plan", as_before)
        before = create_design(db, design)
    assert ORDER_BLOCKS_KEY not in sql.design(db, before.pk).document
    queues = {r: ReviewSession(db, before.pk, r).queue() for r in ("ann", "bo")}
    assert set(_first(db, before.pk, "ann")) != set(_first(db, before.pk, "bo"))
    again = create_design(db, design)
    assert (again.status, again.sha256) == ("unchanged", before.sha256)
    assert {r: ReviewSession(db, before.pk, r).queue() for r in ("ann", "bo")} == queues
    changed = create_design(db, design.model_copy(update={"reviewers": ["ann", "bo", "cy"]}))
    assert changed.status == "replaced"
    assert sql.design(db, changed.pk).document[ORDER_BLOCKS_KEY] == ORDER_BLOCK
