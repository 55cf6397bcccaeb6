"""Which material a task is: development, holdout or benchmark (seed 002 section 5).

"Refine the rubric on development material, then freeze a separate holdout": a design may mark
``development_tasks`` and ``holdout_tasks``. Every output that presents a run's or a condition's
outcome says which material it is over, from this one rule:

- ``development``: a task in ``development_tasks``; its results are reported apart and never
  presented as a benchmark result;
- ``holdout``: a task in ``holdout_tasks``: the frozen holdout, a benchmark result;
- ``benchmark``: any other task. When the design marks neither list, every task is benchmark
  material; when it marks either, a task in neither list is counted as benchmark material and
  a warning says so, since the design may have forgotten it.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

from abp_tui.models import StudyDesign
from abp_tui.text.natural import natural_key

Material = Literal["development", "holdout", "benchmark"]
DEVELOPMENT: Final = "development"
HOLDOUT: Final = "holdout"
BENCHMARK: Final = "benchmark"
DEVELOPMENT_APART: Final = "development material (not a benchmark result), apart"
"""How a gate check names the development material it lists beside its benchmark figure."""


def splits_tasks(design: StudyDesign) -> bool:
    """Whether the design marks any task as development material or holdout."""
    return bool(design.development_tasks or design.holdout_tasks)


def task_material(design: StudyDesign, task: str) -> Material:
    """The material ``task`` is under ``design``."""
    if task in design.development_tasks:
        return "development"
    if task in design.holdout_tasks:
        return "holdout"
    return "benchmark"


def is_development(design: StudyDesign, task: str) -> bool:
    return task in design.development_tasks


def unlisted_tasks(design: StudyDesign, tasks: Iterable[str]) -> list[str]:
    """The tasks in neither list, when the design marks either (none when it marks neither),
    in natural order."""
    if not splits_tasks(design):
        return []
    listed = {*design.development_tasks, *design.holdout_tasks}
    return sorted({t for t in tasks if t not in listed}, key=natural_key)


def unlisted_warning(unlisted: list[str]) -> str | None:
    """What design creation and the results say about tasks in neither list."""
    if not unlisted:
        return None
    n = len(unlisted)
    shown = ", ".join(unlisted[:12]) + (f" and {n - 12} more" if n > 12 else "")
    tasks = "task is" if n == 1 else "tasks are"
    return (
        f"{n} {tasks} in neither development_tasks nor holdout_tasks ({shown}): counted as "
        "benchmark material."
    )


def split_apart(
    design: StudyDesign, values: Iterable[tuple[str, str]]
) -> tuple[list[str], list[str]]:
    """``(task, value)`` pairs parted into the values of benchmark material (holdout and
    unlisted tasks) and those of development material, each in the order given."""
    bench: list[str] = []
    dev: list[str] = []
    for task, value in values:
        (dev if is_development(design, task) else bench).append(value)
    return bench, dev


MATERIAL_REQUIREMENT: Final = "development material apart from the benchmark (seed 002 section 5)"


def _tasks(tasks: list[str]) -> str:
    return ", ".join(tasks[:12]) + (f" and {len(tasks) - 12} more" if len(tasks) > 12 else "")


def material_detail(
    design: StudyDesign, run_tasks: Iterable[str], item_tasks: Iterable[str]
) -> str:
    """What the publication gate says of a design that marks development or holdout tasks:
    which tasks each material is, with its runs and items (one task per run and per item), and
    the tasks in neither list."""
    run_list, item_list = list(run_tasks), list(item_tasks)
    runs: dict[str, int] = {}
    items: dict[str, int] = {}
    for counts, tasks in ((runs, run_list), (items, item_list)):
        for t in tasks:
            m = task_material(design, t)
            counts[m] = counts.get(m, 0) + 1
    parts = []
    dev = sorted(design.development_tasks, key=natural_key)
    if dev:
        parts.append(
            f"development material (not a benchmark result): tasks {_tasks(dev)}, "
            f"{runs.get(DEVELOPMENT, 0)} runs in {items.get(DEVELOPMENT, 0)} items, reported "
            "apart and in no benchmark figure"
        )
    holdout = sorted(design.holdout_tasks, key=natural_key)
    if holdout:
        parts.append(
            f"holdout: tasks {_tasks(holdout)}, {runs.get(HOLDOUT, 0)} runs in "
            f"{items.get(HOLDOUT, 0)} items"
        )
    unlisted = unlisted_tasks(design, run_list + item_list)
    if unlisted:
        parts.append(
            f"in neither list: tasks {_tasks(unlisted)}, {runs.get(BENCHMARK, 0)} runs in "
            f"{items.get(BENCHMARK, 0)} items, counted as benchmark material"
        )
    return "; ".join(parts)


def with_apart(detail: str, development: list[str], what: str) -> str:
    """A gate check's detail with what development material lacks listed apart (it does not
    hold back a benchmark result)."""
    if not development:
        return detail
    return f"{detail}; {DEVELOPMENT_APART}, {what}: {_tasks(development)}"


def development_note(design: StudyDesign) -> tuple[str, ...]:
    """The sentence a summary document (abp-verdict/v1's notes) adds for development material."""
    dev = sorted(design.development_tasks, key=natural_key)
    if not dev:
        return ()
    return (
        f"Development material (tasks {_tasks(dev)}) is not a benchmark result and is in no "
        "figure here; results/verdicts.jsonl marks each run's material.",
    )


def material_headline(design: StudyDesign, tasks: Iterable[str]) -> str | None:
    """What a report leads with for a design that marks development or holdout tasks: every
    figure is over benchmark material; development material is reported apart."""
    if not splits_tasks(design):
        return None
    holdout = sorted(design.holdout_tasks, key=natural_key)
    dev = sorted(design.development_tasks, key=natural_key)
    text = "Every figure of these results is over benchmark material only" + (
        f" (the holdout: tasks {_tasks(holdout)})." if holdout else "."
    )
    if dev:
        text += (
            f" Development material (tasks {_tasks(dev)}) is not a benchmark result: it is "
            "reported apart, labelled, and enters no benchmark figure."
        )
    warning = unlisted_warning(unlisted_tasks(design, tasks))
    return f"{text} {warning}" if warning else text
