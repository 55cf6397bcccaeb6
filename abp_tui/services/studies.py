"""The studies in a database as the workstation's home screen lists them, and a new design.

Each function opens its own connection (the screens call them from worker threads), reads
through the store's query functions and returns plain data: every study with its counts; for
one study, its conditions and tasks with their run and exclusion counts and each design's
progress per reviewer; and creating (or versioning) a study design from a file or from the
new-design form's choices, as ``abp-tui study create`` does. Nothing here imports Textual or
runs SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from abp_tui.services.roles import require
from abp_tui.store import connect, judging, queue_pages, task_order
from abp_tui.store.judging import ReviewerProgress as ReviewerProgress
from abp_tui.store.overview import StudyCounts as StudyCounts
from abp_tui.store.queries import (
    ConditionSummary,
    TaskSummary,
    list_studies,
    study_conditions,
)

if TYPE_CHECKING:  # designing is imported when a design is made (not to list the studies)
    from abp_tui.services.designing import CreatedDesign, DesignChoices, DesignDefaults


@dataclass(frozen=True)
class CountedCondition:
    summary: ConditionSummary
    excluded: int


@dataclass(frozen=True)
class CountedTask:
    summary: TaskSummary
    excluded: int


TASK_PAGE = 200
"""Tasks the home screen lists at a time (a study may have a hundred thousand)."""


@dataclass(frozen=True)
class StudyDetail:
    """One study's conditions and a page of its tasks with their counts, and its designs'
    progress."""

    study_id: str
    conditions: list[CountedCondition]
    tasks: list[CountedTask]
    """Tasks ``task_start`` to ``task_start + len(tasks)`` (0-based), in natural order."""
    progress: list[tuple[str, list[ReviewerProgress]]] = field(default_factory=list)
    """Each study design (label) with each reviewer's progress."""
    adjudicators: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each study design (label) -> who it names to adjudicate its disagreements (none: anyone
    who did not judge the item)."""
    task_start: int = 0
    task_total: int = 0
    """How many current tasks the study has."""


def read_studies(db_path: Path) -> list[StudyCounts]:
    """Every study in the database with its counts (blocking)."""
    db = connect(db_path)
    try:
        return list_studies(db)
    finally:
        db.close()


def read_study_detail(
    db_path: Path, study_id: str, task_start: int = 0, task_count: int = TASK_PAGE
) -> StudyDetail:
    """The conditions of a study and ``task_count`` of its tasks from ``task_start`` (natural
    order) with their run and exclusion counts, and its designs' progress (blocking). Counted
    in SQL and read a page at a time: as quick for a hundred thousand tasks as for ten."""
    db = connect(db_path)
    try:
        conditions = study_conditions(db, study_id)
        excluded = task_order.excluded_by_condition(db, study_id)
        page = task_order.page(db, study_id, max(0, task_start), task_count)
        heads = queue_pages.design_heads(db, study_id)
        progress = [(f"{d.name} v{d.version_no}", judging.progress(db, d.pk)) for d in heads]
        adjudicators = {f"{d.name} v{d.version_no}": tuple(d.adjudicators) for d in heads}
    finally:
        db.close()
    return StudyDetail(
        study_id=study_id,
        conditions=[CountedCondition(c, excluded.get(c.condition.id, 0)) for c in conditions],
        tasks=[CountedTask(task, n) for task, n in page.tasks],
        progress=progress,
        adjudicators=adjudicators,
        task_start=page.start,
        task_total=page.total,
    )


def create_design_file(db_path: Path, path: Path) -> CreatedDesign:
    """Create or version the study design in a TOML or JSON file (blocking); a team session's
    reviewer is refused before the file is read."""
    from abp_tui.services.designing import create_design, load_design_file

    require("design")
    design = load_design_file(path)
    db = connect(db_path)
    try:
        return create_design(db, design, str(path))
    finally:
        db.close()


def read_design_defaults(db_path: Path, study_id: str, reviewer: str) -> DesignDefaults:
    """What the new-design form starts from for a study (blocking)."""
    from abp_tui.services.designing import design_defaults

    db = connect(db_path)
    try:
        return design_defaults(db, study_id, reviewer)
    finally:
        db.close()


def create_design_from_choices(db_path: Path, choices: DesignChoices) -> CreatedDesign:
    """Create or version the design the form's choices describe, as ``abp-tui study create
    --study S ...`` does (blocking)."""
    from abp_tui.services.designing import create_from_choices

    db = connect(db_path)
    try:
        return create_from_choices(db, choices)
    finally:
        db.close()
