"""What the business evaluation protocol (seed 002) asks a report to carry, beside the results.

Section 6: "Report successes as x/n, critical failures as x/n, repeatability as x/attempts,
correction minutes under a consistent timing rule, and observed cost and latency. Publish missing
measurements as missing." Section 5: the single- against multi-agent comparison (accepted-task
rate, critical failures, correction effort, latency and cost) per condition; "Repeat attempts are
not 72 independent task types", so beside each Wilson interval over runs an interval that
resamples tasks; "refine the rubric on development material, then freeze a separate holdout", so
development tasks are reported apart and never as a benchmark result.

The figures come from the same outcomes as the results (:mod:`abp_tui.analysis.results.tallies`),
over the
same records, so that a bundle's ``verify`` re-derives them. Pure: no I/O.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Final, Literal

from pydantic import Field

from abp_tui.analysis.material import unlisted_tasks
from abp_tui.analysis.reruns import held_outcomes
from abp_tui.analysis.results.tallies import (
    DEFAULT_CONFIDENCE,
    GroupResult,
    counts_for_efficiency,
    group_result,
    results,
    unresolved_items,
)
from abp_tui.analysis.verdicts import Decisions, decide
from abp_tui.models import DesignRecords, FindingRevision, Model, RunFacts, RunOutcome
from abp_tui.models.builtin_rubrics import BUSINESS_V1
from abp_tui.models.design import Workflow
from abp_tui.models.judgments import RetestCase, SafetyDetails
from abp_tui.stats.inference import Proportion, wilson
from abp_tui.stats.task_bootstrap import Quartiles, TaskInterval, quartiles, task_bootstrap
from abp_tui.text.natural import natural_key

TASK_LEVEL_PROTOCOLS_EXCLUDED: Final = frozenset({"abp", "arena"})
"""Protocols whose specification keeps Wilson intervals over runs only (seed 003: ABP run folders
and Arena results)."""


DEVELOPMENT_LABEL: Final = (
    "Development material: the rubric was refined on these tasks; not a benchmark result."
)


def is_business(records: DesignRecords) -> bool:
    """A design under the business protocol: its rubric, or a design field only it uses."""
    d = records.design
    return (
        records.rubric.id == BUSINESS_V1.id
        or d.correction_effort is not None
        or bool(d.development_tasks or d.holdout_tasks or d.workflows)
    )


def _scoped(records: DesignRecords, keep: bool) -> DesignRecords:
    """The records of the development tasks (``keep``) or of every other task."""
    dev = set(records.design.development_tasks)
    if not dev:
        return records
    items = tuple(i for i in records.items if (i.task in dev) == keep)
    codes = {i.code for i in items}
    return replace(
        records,
        items=items,
        judgments=tuple(j for j in records.judgments if j.item in codes),
        adjudications=tuple(a for a in records.adjudications if a.item in codes),
        runs=tuple(r for r in records.runs if (r.task in dev) == keep),
    )


def benchmark_records(records: DesignRecords) -> DesignRecords:
    """The records a benchmark result is computed over: every task but development material."""
    return _scoped(records, keep=False)


def development_records(records: DesignRecords) -> DesignRecords:
    """The development material's records alone (none when the design marks none)."""
    return _scoped(records, keep=True)


class CorrectionRow(Model):
    condition: str
    minutes: Quartiles
    """Over the runs a person judged (not excluded): n recorded, missing not recorded."""


class RepeatRow(Model):
    condition: str
    task: str
    attempts: int
    """Runs of the task under the condition."""
    passed: int
    decided: int
    """Attempts with MODEL_PASS or MODEL_FAIL: the denominator of ``passed``."""
    accepted: int
    critical: int
    judged: int
    """Attempts a person judged, not excluded: the denominator of ``accepted`` and ``critical``."""


class TaskIntervalRow(Model):
    condition: str
    figure: str
    """``pass rate`` or ``accepted``."""
    runs: Proportion
    """Over runs, as if every attempt were independent (Wilson)."""
    tasks: TaskInterval
    """Resampling tasks, each with all of its attempts (cluster bootstrap)."""
    max_attempts: int


class WorkflowRow(Model):
    condition: str
    workflow: Workflow | None
    accepted: Proportion
    critical: Proportion
    correction_minutes: Quartiles
    latency_ms: Quartiles
    cost_usd: Quartiles


class FindingRow(Model):
    id: str
    revision: int
    title: str
    severity: str
    layer: str
    occurrences: int
    attempts: int | None
    attempts_source: Literal["recorded", "runs of its case"] | None = None
    """``recorded`` with the finding; else the runs of the task and condition of the runs it
    names, when there are at least as many as its occurrences; None: missing."""
    expected: str
    actual: str
    safety: SafetyDetails | None
    retest_status: str
    retests: list[RetestCase]


class BusinessResults(Model):
    """Seed 002's figures of one design."""

    timing_rule: str | None
    """The design's correction timing rule; None: correction minutes were not asked for."""
    development_tasks: list[str]
    holdout_tasks: list[str]
    unlisted_tasks: list[str] = Field(default_factory=list)
    """When the design marks either list, the tasks in neither: counted as benchmark material
    (:mod:`abp_tui.analysis.material`)."""
    workflows: list[WorkflowRow]
    correction: list[CorrectionRow]
    repeatability: list[RepeatRow]
    task_intervals: list[TaskIntervalRow]
    task_intervals_note: str
    """Why there are none, or which is which."""
    development: list[GroupResult] = Field(default_factory=list)
    """Results by condition over the development tasks alone: not a benchmark result."""
    development_label: str = DEVELOPMENT_LABEL
    """What ``development`` is, for a reader of the JSON alone."""
    findings: list[FindingRow] = Field(default_factory=list)


def run_minutes(decisions: Decisions) -> dict[str, float]:
    """Run id -> correction minutes: the median of the minutes its reviewers recorded in their
    latest submitted judgments (runs with none recorded are absent)."""
    given: dict[str, list[float]] = defaultdict(list)
    for judgments in decisions.latest.values():
        for j in judgments:
            for run, response in j.judgment.responses.items():
                if response.correction_minutes is not None:
                    given[run].append(response.correction_minutes)
    return {run: float(statistics.median(v)) for run, v in given.items()}


def _judged(o: RunOutcome) -> bool:
    """A run a person judged, not excluded, and settled: the acceptance denominator."""
    return (
        o.source != "unresolved"
        and o.human_state is not None
        and o.human_state.in_quality_denominator
    )


def _attempts(
    f: FindingRevision, runs: Sequence[RunFacts]
) -> tuple[int | None, Literal["recorded", "runs of its case"] | None]:
    """A finding's attempts: as recorded, else the runs of its case (the task and condition of
    each run it names) when they are at least its occurrences, else missing."""
    if f.finding.attempts is not None:
        return f.finding.attempts, "recorded"
    named = {r.id: (r.task, r.condition) for r in runs}
    cases = {named[run] for run in f.runs if run in named}
    attempts = sum(1 for r in runs if (r.task, r.condition) in cases)
    if cases and attempts >= f.finding.occurrences:
        return attempts, "runs of its case"
    return None, None


def _latest_findings(
    findings: Sequence[FindingRevision], runs: Sequence[RunFacts]
) -> list[FindingRow]:
    latest: dict[str, FindingRevision] = {}
    for f in findings:
        if f.id not in latest or f.revision > latest[f.id].revision:
            latest[f.id] = f
    return [
        FindingRow(
            id=f.id,
            revision=f.revision,
            title=f.finding.title,
            severity=f.finding.severity,
            layer=f.finding.layer,
            occurrences=f.finding.occurrences,
            attempts=_attempts(f, runs)[0],
            attempts_source=_attempts(f, runs)[1],
            expected=f.finding.expected,
            actual=f.finding.actual,
            safety=f.finding.safety,
            retest_status=f.finding.retest_status,
            retests=list(f.finding.retests),
        )
        for f in (latest[k] for k in sorted(latest, key=natural_key))
    ]


def business_results(
    records: DesignRecords,
    *,
    protocol: str,
    findings: Sequence[FindingRevision] = (),
    confidence: float = DEFAULT_CONFIDENCE,
) -> BusinessResults | None:
    """Seed 002's figures of a business design (None for any other design): over the benchmark
    tasks (every task but development material), and the development material's results apart."""
    if not is_business(records):
        return None
    design = records.design
    bench = benchmark_records(records)
    decisions = decide(bench)
    run_outcomes = held_outcomes(bench, decisions)  # as the results count them
    minutes = run_minutes(decisions)
    open_items = unresolved_items(decisions)
    rubric = records.rubric
    facts = {r.id: r for r in bench.runs}
    by_condition: dict[str, list[RunOutcome]] = defaultdict(list)
    by_cell: dict[tuple[str, str], list[RunOutcome]] = defaultdict(list)
    for o in run_outcomes:
        by_condition[o.condition_id].append(o)
        by_cell[(o.condition_id, o.task_id)].append(o)

    correction, workflows, repeat, intervals = [], [], [], []
    task_level = protocol not in TASK_LEVEL_PROTOCOLS_EXCLUDED
    for c in sorted(by_condition, key=natural_key):
        rows = by_condition[c]
        group = group_result(c, None, rows, rubric, open_items, confidence)
        judged = [o for o in rows if _judged(o)]
        effort = quartiles([minutes.get(o.run_id) for o in judged])
        correction.append(CorrectionRow(condition=c, minutes=effort))
        measured = [facts[o.run_id] for o in rows if counts_for_efficiency(o)]
        workflows.append(
            WorkflowRow(
                condition=c,
                workflow=design.workflows.get(c),
                accepted=wilson(group.acceptance.x, group.acceptance.n, confidence=confidence),
                critical=wilson(
                    group.fatal_failures.x, group.fatal_failures.n, confidence=confidence
                ),
                correction_minutes=effort,
                latency_ms=quartiles([r.wall_clock_ms for r in measured]),
                cost_usd=quartiles([r.cost_usd for r in measured]),
            )
        )
        cells: list[GroupResult] = []
        tasks = sorted({o.task_id for o in rows}, key=natural_key)
        for t in tasks:
            cell = group_result(c, t, by_cell[(c, t)], rubric, open_items, confidence)
            cells.append(cell)
            repeat.append(
                RepeatRow(
                    condition=c,
                    task=t,
                    attempts=cell.runs,
                    passed=cell.pass_rate.x,
                    decided=cell.pass_rate.n,
                    accepted=cell.acceptance.x,
                    critical=cell.fatal_failures.x,
                    judged=cell.acceptance.n,
                )
            )
        most = max((cell.runs for cell in cells), default=0)
        if task_level and most > 1:
            for figure, overall, per_task in (
                ("pass rate", group.pass_rate, [(g.pass_rate.x, g.pass_rate.n) for g in cells]),
                (
                    "accepted",
                    wilson(group.acceptance.x, group.acceptance.n, confidence=confidence),
                    [(g.acceptance.x, g.acceptance.n) for g in cells],
                ),
            ):
                intervals.append(
                    TaskIntervalRow(
                        condition=c,
                        figure=figure,
                        runs=overall,
                        tasks=task_bootstrap(per_task, seed=records.seed, confidence=confidence),
                        max_attempts=most,
                    )
                )
    if not task_level:
        note = (
            f"{protocol} studies keep their Wilson intervals over runs only, as the ABP "
            "specification (seed 003) requires."
        )
    elif not intervals:
        note = "Every condition has one attempt per task: the Wilson interval over runs stands."
    else:
        note = (
            "Repeat attempts are not independent tasks: 'over runs' is the Wilson interval "
            "treating every attempt as independent; 'resampling tasks' is a seeded percentile "
            "bootstrap that draws whole tasks, each with all of its attempts, over the distinct "
            "tasks shown."
        )
    development: list[GroupResult] = []
    if design.development_tasks:
        development = results(development_records(records), confidence=confidence).conditions
    return BusinessResults(
        timing_rule=design.correction_effort.timing_rule if design.correction_effort else None,
        development_tasks=sorted(design.development_tasks, key=natural_key),
        holdout_tasks=sorted(design.holdout_tasks, key=natural_key),
        unlisted_tasks=unlisted_tasks(design, (r.task for r in records.runs)),
        workflows=workflows,
        correction=correction,
        repeatability=repeat,
        task_intervals=intervals,
        task_intervals_note=note,
        development=development,
        findings=_latest_findings(findings, records.runs),
    )
