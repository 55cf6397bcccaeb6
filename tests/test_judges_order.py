"""The judge-informed review order in the reviewer's real queue: a design with a calibration
sample puts its seeded random sample first in every reviewer's queue, then the items the AI
judges are least trustworthy on, each group in the reviewer's own shuffled order; the placement
of the responses stays the plan's, and nothing of a verdict reaches the reviewer."""

from __future__ import annotations

import math
from pathlib import Path

import sqlite_utils

from abp_tui.analysis.judges.queue import (
    FATAL_NAMED,
    JUDGES_DISAGREE,
    ORDERS_DISAGREE,
    WEIGHTS,
    calibration_sample,
    reviewer_order,
)
from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.judge_order import review_queue
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.stations import build_study_pack
from abp_tui.store import judging
from abp_tui.store.secrets import plan_secret
from tests.factories import write_jsonl

TASKS = [f"t{i:02d}" for i in range(1, 21)]
SPLIT = {"t03", "t07", "t15"}
"""j1's two presentation orders disagree."""
FATAL = "t05"
JUDGES_SPLIT = "t11"
EXPLANATION = "Response B INVENTS A CITATION for the 2019 figure."
JUDGE = "order-judge/v1"


def _study(tmp_path: Path, db: sqlite_utils.Database) -> None:
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "q"},
        {"type": "judge", "id": JUDGE, "model": "judge-model"},
        {"type": "judge", "id": "second-judge", "model": "judge-model-2"},
    ]
    for t in TASKS:
        lines.append(
            {
                "type": "task",
                "id": t,
                "prompt": f"Answer {t}.",
                "fatal_criteria": ["Invents a citation"],
            }
        )
        runs = [f"{t}-A", f"{t}-B"]
        for run, c in zip(runs, "AB", strict=True):
            lines.append({"type": "run", "id": run, "task_id": t, "condition_id": c, "output": c})
        common = {"type": "judge_verdict", "task_id": t, "runs": runs}
        swapped_pick = runs[1] if t in SPLIT else runs[0]
        lines.append(
            {
                **common,
                "judge": JUDGE,
                "shown_first": runs[0],
                "verdict": runs[0],
                "explanation": EXPLANATION if t == FATAL else "A is fine.",
            }
        )
        lines.append({**common, "judge": JUDGE, "shown_first": runs[1], "verdict": swapped_pick})
        other = runs[1] if t == JUDGES_SPLIT else runs[0]
        lines.append({**common, "judge": "second-judge", "shown_first": runs[0], "verdict": other})
    import_paths(db, [write_jsonl(tmp_path / "q.jsonl", lines)])


def _design(name: str, calibration: float | None, reviewers: list[str]) -> StudyDesign:
    return StudyDesign(
        study="q",
        name=name,
        seed=-77,  # a negative seed is valid, and seeds the calibration sample too
        rubric="none",
        contrasts=[("A", "B")],
        reviewers=reviewers,
        reviewers_per_item=len(reviewers) or 1,
        calibration_sample=calibration,
    )


def _queue(db: sqlite_utils.Database, pk: int, reviewer: str) -> list[str]:
    return [row.code for row in ReviewSession(db, pk, reviewer).queue()]


def _task_of(db: sqlite_utils.Database, pk: int) -> dict[str, str]:
    return {item.code: item.task for item in judging.items(db, pk)}


def test_calibration_first_then_where_the_judges_are_least_trustworthy(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    reviewers = ["alice", "bo"]
    pk = create_design(db, _design("calibrated", 0.2, reviewers)).pk
    secret = plan_secret(db, pk)
    # The same plan (secret, seed, reviewers) without a calibration sample: the shuffled
    # order each reviewer gets when nothing informs it.
    plain = create_design(db, _design("plain", None, reviewers), plan_secret=secret).pk
    tasks = _task_of(db, pk)
    assert _task_of(db, plain) == tasks  # the same blind codes
    plan_codes = [item.code for item in judging.items(db, pk)]
    sample = calibration_sample(plan_codes, 0.2, -77)
    assert len(sample) == math.ceil(0.2 * len(TASKS))
    queued = {q.code: q for q in review_queue(db, pk)}
    assert {c for c, q in queued.items() if q.calibration} == sample
    reasons = {tasks[c]: q.reasons for c, q in queued.items()}
    assert reasons[FATAL] == (FATAL_NAMED,)
    assert all(reasons[t] == (ORDERS_DISAGREE,) for t in SPLIT)
    assert reasons[JUDGES_SPLIT] == (JUDGES_DISAGREE,)
    assert sum(1 for r in reasons.values() if r) == 5
    orders = {}
    for reviewer in reviewers:
        order = _queue(db, pk, reviewer)
        shuffled = _queue(db, plain, reviewer)
        orders[reviewer] = order
        assert sorted(order) == sorted(plan_codes)
        # The calibration sample first, in the reviewer's own shuffled order.
        head = order[: len(sample)]
        assert set(head) == sample
        assert head == [c for c in shuffled if c in sample]
        # Then from the most distrusted down, ties in the reviewer's shuffled order.
        rest = order[len(sample) :]
        weights = [sum(WEIGHTS[r] for r in queued[c].reasons) for c in rest]
        assert weights == sorted(weights, reverse=True)
        assert weights[0] > 0 and weights[-1] == 0
        for weight in set(weights):
            same = [c for c, w in zip(rest, weights, strict=True) if w == weight]
            assert same == [c for c in shuffled if c in same]
        assert order == reviewer_order(list(queued.values()), shuffled)
        # Only the order moved: where each response is shown is the plan's.
        flips = {r.code: r.flipped for r in ReviewSession(db, plain, reviewer).queue()}
        assert {r.code: r.flipped for r in ReviewSession(db, pk, reviewer).queue()} == flips
        positions = [r.order_index for r in ReviewSession(db, pk, reviewer).queue()]
        assert positions == list(range(len(plan_codes)))
    assert orders["alice"] != orders["bo"]  # each reviewer keeps a shuffle of their own


def test_an_open_design_orders_each_reviewer_when_they_enrol(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    pk = create_design(db, _design("open", 0.1, [])).pk
    queued = {q.code: q for q in review_queue(db, pk)}
    for reviewer in ("carol", "dan"):
        order = _queue(db, pk, reviewer)  # enrols, and orders the new queue
        calibration = [c for c in order if queued[c].calibration]
        assert len(calibration) == 2 and order[:2] == calibration
        weights = [sum(WEIGHTS[r] for r in queued[c].reasons) for c in order[2:]]
        assert weights == sorted(weights, reverse=True) and weights[0] > 0


def test_a_design_without_a_calibration_sample_keeps_the_plan_order(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    pk = create_design(db, _design("plain", None, ["alice"])).pk
    order = _queue(db, pk, "alice")
    tasks = _task_of(db, pk)
    # The distrusted items are not pulled forward: their places are the shuffle's.
    distrusted = [i for i, c in enumerate(order) if tasks[c] in {*SPLIT, FATAL, JUDGES_SPLIT}]
    assert distrusted != list(range(len(distrusted)))
    assert all(not q.calibration for q in review_queue(db, pk))


def test_the_judge_informed_queue_says_nothing_of_a_verdict(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    pk = create_design(db, _design("calibrated", 0.2, ["alice"])).pk
    session = ReviewSession(db, pk, "alice")
    rows = session.queue()
    # What the queue holds of an item: its blind code, kind, place, placement and status.
    assert set(vars(rows[0])) == {
        "item_pk",
        "code",
        "kind",
        "order_index",
        "flipped",
        "status",
        "revisions",
    }
    seen = repr(rows) + repr(session.read(rows[0].code))
    seen += build_study_pack(db, pk, "alice").model_dump_json()
    for secret in (
        JUDGE,
        "judge-model",
        EXPLANATION,
        FATAL_NAMED,
        ORDERS_DISAGREE,
        JUDGES_DISAGREE,
    ):
        assert secret not in seen
