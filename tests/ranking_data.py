"""Small pairwise studies the ranking tests share (the results screen's and the bundle's): a file
in PandaLM's format (``response1`` / ``response2`` / ``annotatorN``; 1: response 1 better, 2:
response 2, 0: a tie) over three systems, and an AI judge's verdicts on its pairs.

Every pair of systems is met on four tasks, and each system both wins and loses some votes, so
the Bradley-Terry maximum exists (Hunter 2004, assumption 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from tests.factories import write_jsonl

SYSTEMS = ("alpha", "beta", "gamma")
PAIRS = (("alpha", "beta"), ("beta", "gamma"), ("alpha", "gamma"))
LABELS = ((1, 1, 2), (1, 2, 0), (2, 1, 1), (1, 1, 1))
"""The three annotators' labels of item k are LABELS[k % 4]."""


def pairwise_items(
    systems: tuple[str, str, str] = SYSTEMS, tasks: int = 12
) -> list[dict[str, Any]]:
    pairs = ((systems[0], systems[1]), (systems[1], systems[2]), (systems[0], systems[2]))
    items = []
    for k in range(tasks):
        first, second = pairs[k % 3]
        labels = LABELS[k % 4]
        items.append(
            {
                "idx": str(k),
                "cmp_key": f"{first}_{second}",
                "instruction": f"Question {k}.",
                "input": "",
                "response1": "x" * (10 + k),
                "response2": "y" * (5 + 2 * k),
                **{f"annotator{n}": label for n, label in enumerate(labels, start=1)},
            }
        )
    return items


def write_pairwise(path: Path, systems: tuple[str, str, str] = SYSTEMS, tasks: int = 12) -> Path:
    path.write_text(json.dumps(pairwise_items(systems, tasks)), encoding="utf-8")
    return path


def judge_lines(items: list[dict[str, Any]], judge: str = "j1") -> list[dict[str, Any]]:
    """An AI judge that picks response 1, whichever order it is shown in, but response 2 on
    every fourth task from the second, and on every third task whichever response is shown
    first (an order change: a tie by FastChat's convention)."""
    lines: list[dict[str, Any]] = [
        {"type": "judge", "id": judge, "kind": "ai", "model": "synthetic", "prompt": "pair"}
    ]
    for k, item in enumerate(items):
        task = str(item["idx"])
        runs = [f"{task}/1", f"{task}/2"]
        for shown in runs:
            lines.append(
                {
                    "type": "judge_verdict",
                    "judge": judge,
                    "kind": "ai",
                    "task_id": task,
                    "runs": runs,
                    "shown_first": shown,
                    "verdict": shown if k % 3 == 0 else runs[1] if k % 4 == 1 else runs[0],
                }
            )
    return lines


def small_study(tmp_path: Path, *, judged: bool, unblinded: bool, tasks: int = 12) -> Path:
    """A database holding the small labelled study ``small`` (12 tasks, three annotators each),
    with an AI judge's verdicts when ``judged``, unblinded by ``coordinator`` when asked. The
    judge's 12 votes are too few for its own ranking: ``tasks=36`` gives it one."""
    db_path = tmp_path / "small.db"
    db = connect(db_path)
    try:
        import_paths(db, [write_pairwise(tmp_path / "small.json", tasks=tasks)], study="small")
        if judged:
            lines = judge_lines(pairwise_items(tasks=tasks))
            import_paths(db, [write_jsonl(tmp_path / "judge.jsonl", lines)], study="small")
        if unblinded:
            unblind(db, "small", "coordinator")
    finally:
        db.close()
    return db_path
