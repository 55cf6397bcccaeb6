"""Tasks as people read them: listed in natural order (T2 before T10) wherever tasks are listed,
and a task's title on one line, never with a literal ``\\n``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlite_utils
from hypothesis import given
from hypothesis import strategies as st

from abp_tui.export.bundle import read_bundle
from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.store.queries import study_runs, study_tasks
from abp_tui.text.lines import one_line
from abp_tui.text.natural import natural_key
from abp_tui.tui.app import make_app
from abp_tui.tui.widgets.task_panel import TaskPanel
from tests.factories import Cli, write_jsonl
from tests.tui_helpers import compare_screen, drive

IDS = ["10", "2", "0", "11", "1"]
NATURAL = ["0", "1", "2", "10", "11"]


def test_natural_order_puts_numbers_in_numeric_order() -> None:
    assert sorted(IDS) == ["0", "1", "10", "11", "2"]  # text order, the bug
    assert sorted(IDS, key=natural_key) == NATURAL
    mixed = ["T10", "T2", "T1", "P01", "P1", "task-9b", "task-10a", "a", ""]
    assert sorted(mixed, key=natural_key) == [
        "",
        "P01",
        "P1",
        "T1",
        "T2",
        "T10",
        "a",
        "task-9b",
        "task-10a",
    ]


@given(st.lists(st.integers(min_value=0, max_value=10**12), unique=True), st.text(max_size=3))
def test_numbered_ids_sort_by_their_number(numbers: list[int], prefix: str) -> None:
    prefix = "".join(c for c in prefix if not c.isdigit())
    ids = [f"{prefix}{n}" for n in numbers]
    assert sorted(ids, key=natural_key) == [f"{prefix}{n}" for n in sorted(numbers)]


@given(st.lists(st.text(max_size=6), unique=True))
def test_natural_order_is_total(ids: list[str]) -> None:
    # Different texts never tie, so the order never depends on where the ids came from.
    keys = [natural_key(i) for i in ids]
    assert len(set(keys)) == len(ids)
    assert sorted(sorted(ids, key=natural_key), key=natural_key) == sorted(ids, key=natural_key)


def _lines(prompt: str = "Check the memo.") -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": "n", "rubric_id": "afp-v0.1", "synthetic": True},
        {"type": "condition", "id": "A", "label": "Model only"},
        {"type": "condition", "id": "C", "label": "Workflow"},
    ]
    for task in IDS:
        lines.append({"type": "task", "id": task, "prompt": f"{prompt} ({task})"})
        for condition in "AC":
            lines.append(
                {
                    "type": "run",
                    "id": f"{task}-{condition}",
                    "task_id": task,
                    "condition_id": condition,
                    "output": f"Answer {task} {condition}",
                }
            )
    return lines


def test_every_task_list_is_in_natural_order(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    import_paths(db, [write_jsonl(tmp_path / "n.jsonl", _lines())])
    assert [t.task.id for t in study_tasks(db, "n")] == NATURAL
    assert [r.task_id for r in study_runs(db, "n")] == [t for t in NATURAL for _c in "AC"]
    design = StudyDesign(study="n", name="d", seed=1, contrasts=[("C", "A")], reviewers=["r"])
    pk = create_design(db, design).pk
    unblind(db, "n", "lead")
    report = compute_results(db, pk)
    assert [(g.condition, g.task) for g in report.by_task] == [
        (c, t) for c in "AC" for t in NATURAL
    ]
    files = read_bundle(export_bundle(db, pk, tmp_path / "b").zip_path)
    assert [t["id"] for t in json.loads(files["protocol/tasks.json"])] == NATURAL
    runs = [json.loads(line)["task"] for line in files["runs/runs.jsonl"].splitlines()]
    assert runs == [t for _c in "AC" for t in NATURAL]
    db.close()
    status = json.loads(cli("--db", tmp_path / "test.db", "status", "--study", "n", "--json").out)
    (study,) = status["studies"]
    assert list(study["task_runs"]) == NATURAL


def test_a_title_is_one_line_of_safe_text() -> None:
    assert one_line("Does vendor A\n\nmeet the cap?") == "Does vendor A meet the cap?"
    assert one_line("Escaped\\n\\nbreaks\\r\\nand\\ttabs") == "Escaped breaks and tabs"
    assert one_line("  spaced \t out \r\n ") == "spaced out"
    assert one_line("red \x1b[31m alert") == "red \u241b[31m alert"
    assert one_line("a" * 20, 10) == "a" * 9 + "…"
    assert one_line("short", 10) == "short"


async def test_the_compare_screen_shows_a_task_title_on_one_line(tmp_path: Path) -> None:
    from abp_tui.store import connect

    path = tmp_path / "titles.db"
    db = connect(path)
    lines = _lines(prompt="First paragraph.\n\nSecond\\n\\nparagraph.")
    import_paths(db, [write_jsonl(tmp_path / "n.jsonl", lines)])
    create_design(
        db, StudyDesign(study="n", name="d", seed=1, contrasts=[("C", "A")], reviewers=["r"])
    )
    db.close()
    app = make_app(path, "r")
    async with drive(app, (150, 45)) as pilot:
        screen = await compare_screen(pilot)
        title = screen.query_one(TaskPanel).title
        assert title.startswith("Task: First paragraph. Second paragraph. (")
        assert "\\n" not in title and "\n" not in title
