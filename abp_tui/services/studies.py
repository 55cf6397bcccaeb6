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

from abp_tui.models import ResultState
from abp_tui.services.designing import (
    CreatedDesign,
    DesignChoices,
    DesignDefaults,
    create_design,
    create_from_choices,
    design_defaults,
    load_design_file,
)
from abp_tui.services.roles import require
from abp_tui.store import connect, judging
from abp_tui.store.judging import ReviewerProgress as ReviewerProgress
from abp_tui.store.overview import StudyCounts as StudyCounts
from abp_tui.store.queries import (
    ConditionSummary,
    RunSummary,
    TaskSummary,
    list_studies,
    study_conditions,
    study_runs,
    study_tasks,
)


def is_excluded(run: RunSummary) -> bool:
    """Kept visible but outside the quality denominator (the same rule ``list_studies`` counts)."""
    if run.excluded_reason is not None:
        return True
    if run.origin_status is None:
        return False
    try:
        return not ResultState(run.origin_status).in_quality_denominator
    except ValueError:
        return False


@dataclass(frozen=True)
class CountedCondition:
    summary: ConditionSummary
    excluded: int


@dataclass(frozen=True)
class CountedTask:
    summary: TaskSummary
    excluded: int


@dataclass(frozen=True)
class StudyDetail:
    """One study's conditions and tasks with their counts, and its designs' progress."""

    study_id: str
    conditions: list[CountedCondition]
    tasks: list[CountedTask]
    progress: list[tuple[str, list[ReviewerProgress]]] = field(default_factory=list)
    """Each study design (label) with each reviewer's progress."""


def read_studies(db_path: Path) -> list[StudyCounts]:
    """Every study in the database with its counts (blocking)."""
    db = connect(db_path)
    try:
        return list_studies(db)
    finally:
        db.close()


def read_study_detail(db_path: Path, study_id: str) -> StudyDetail:
    """The conditions and tasks of a study with their run and exclusion counts (blocking)."""
    db = connect(db_path)
    try:
        conditions = study_conditions(db, study_id)
        tasks = study_tasks(db, study_id)
        runs = study_runs(db, study_id)
        progress = [
            (f"{d.name} v{d.version_no}", judging.progress(db, d.pk))
            for d in judging.designs(db, study_id)
        ]
    finally:
        db.close()
    excluded_by_condition: dict[str, int] = {}
    excluded_by_task: dict[str, int] = {}
    for run in runs:
        if is_excluded(run):
            excluded_by_condition[run.condition_id] = (
                excluded_by_condition.get(run.condition_id, 0) + 1
            )
            excluded_by_task[run.task_id] = excluded_by_task.get(run.task_id, 0) + 1
    return StudyDetail(
        study_id=study_id,
        conditions=[
            CountedCondition(c, excluded_by_condition.get(c.condition.id, 0)) for c in conditions
        ],
        tasks=[CountedTask(t, excluded_by_task.get(t.task.id, 0)) for t in tasks],
        progress=progress,
    )


def create_design_file(db_path: Path, path: Path) -> CreatedDesign:
    """Create or version the study design in a TOML or JSON file (blocking); a team session's
    reviewer is refused before the file is read."""
    require("design")
    design = load_design_file(path)
    db = connect(db_path)
    try:
        return create_design(db, design, str(path))
    finally:
        db.close()


def read_design_defaults(db_path: Path, study_id: str, reviewer: str) -> DesignDefaults:
    """What the new-design form starts from for a study (blocking)."""
    db = connect(db_path)
    try:
        return design_defaults(db, study_id, reviewer)
    finally:
        db.close()


def create_design_from_choices(db_path: Path, choices: DesignChoices) -> CreatedDesign:
    """Create or version the design the form's choices describe, as ``abp-tui study create
    --study S ...`` does (blocking)."""
    db = connect(db_path)
    try:
        return create_from_choices(db, choices)
    finally:
        db.close()
