"""A generated business-protocol study (seed 002) the conformance tests of this seed share.

Conditions ``S`` (single-agent) and ``M`` (multi-agent), tasks W01-W04 with three attempts each,
on the built-in business rubric; each run scored on its own by reviewer ``alice``. The records
carry latency and cost for some runs only, so that a test sees missing measurements. Nothing
here holds a test.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.models import Judgment, ResponseJudgment, StudyDesign
from abp_tui.models.builtin_rubrics import BUSINESS_V1
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import judging as sql
from tests.factories import write_jsonl

TASKS = ("W01", "W02", "W03", "W04")
TRIALS = (1, 2, 3)
DIMS = tuple(d.id for d in BUSINESS_V1.dimensions)
TIMING_RULE = "From opening the output to a version that meets brief; breaks excluded."


def study_lines(*, with_costs: bool = True) -> list[dict[str, object]]:
    lines: list[dict[str, object]] = [
        {
            "type": "study",
            "id": "biz",
            "name": "Memo workflows",
            "protocol": "business",
            "rubric_id": BUSINESS_V1.id,
            "limitations": ["Generated records."],
        },
        {"type": "condition", "id": "S", "label": "One agent", "instructions": "Draft it."},
        {"type": "condition", "id": "M", "label": "Three agents", "instructions": "Draft, check."},
    ]
    for t in TASKS:
        lines.append({"type": "task", "id": t, "prompt": f"Write the memo ({t}).", "title": t})
        for c in ("S", "M"):
            for trial in TRIALS:
                run: dict[str, Any] = {
                    "type": "run",
                    "id": f"{t}-{c}-{trial}",
                    "task_id": t,
                    "condition_id": c,
                    "trial": trial,
                    "output": f"Memo {t} {c} attempt {trial}.",
                }
                # Latency on every run but the third attempt; cost only on M.
                if trial != 3:
                    run["wall_clock_ms"] = 1000.0 * trial + (500.0 if c == "M" else 0.0)
                if with_costs and c == "M":
                    run["cost_usd"] = 0.01 * trial
                lines.append(run)
    return lines


def make_design(**fields: Any) -> StudyDesign:
    base: dict[str, Any] = {
        "study": "biz",
        "name": "workflows",
        "seed": 11,
        "rubric": BUSINESS_V1.id,
        "contrasts": "none",
        "single_items": True,
        "reviewers": ["alice"],
    }
    base.update(fields)
    return StudyDesign.model_validate(base)


Scorer = Callable[[str, str, int], tuple[int, float | None]]
"""(task, condition, trial) -> (the score of every dimension, the correction minutes)."""


def response(score: int, minutes: float | None, fatal: bool = False) -> ResponseJudgment:
    return ResponseJudgment(
        scores=dict.fromkeys(DIMS, score),
        rationales=dict.fromkeys(DIMS, "needs work") if score < 2 else {},
        fatal_hits=BUSINESS_V1.fatal_criteria[:1] if fatal else (),
        correction_minutes=minutes,
    )


def build(
    tmp_path: Path,
    db: sqlite_utils.Database,
    scorer: Scorer,
    *,
    design: StudyDesign | None = None,
    lines: list[dict[str, object]] | None = None,
    critical: frozenset[tuple[str, str, int]] = frozenset(),
) -> int:
    """Import the study, create the design, judge every run with ``scorer`` (a critical failure
    ticked on the (task, condition, trial) in ``critical``), unblind; the design's pk."""
    import_paths(db, [write_jsonl(tmp_path / "biz.jsonl", lines or study_lines())])
    design = design or make_design()
    pk = create_design(db, design).pk
    asked = design.correction_effort is not None  # minutes are recorded under a timing rule only
    session = ReviewSession(db, pk, "alice")
    items: Mapping[str, Any] = {i.code: i for i in sql.records_of_design(db, pk).items}
    for row in session.queue():
        item = items[row.code]
        key = (item.task, item.conditions[0], item.trial)
        score, minutes = scorer(*key)
        judged = response(score, minutes if asked else None, key in critical)
        session.save(row.code, Judgment(responses={"1": judged}), 5, submit=True)
    unblind(db, "biz", "coordinator")
    return pk
