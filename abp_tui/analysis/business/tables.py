"""Seed 002's figures (:mod:`abp_tui.analysis.business.figures`) as the neutral tables every face
writes.

Each table names its denominators; a measurement nobody recorded is "missing" with its count,
never 0; the development material's table says in its title that it is not a benchmark result.
"""

from __future__ import annotations

from typing import Final

from abp_tui.analysis.business.figures import BusinessResults
from abp_tui.analysis.material import unlisted_warning
from abp_tui.analysis.results.tallies import confidence_label
from abp_tui.analysis.tables import (
    Cell,
    Column,
    Kind,
    Number,
    Table,
    Tally,
    bootstrap_csv,
    bootstrap_estimate,
    group_table,
)
from abp_tui.stats.task_bootstrap import Quartiles

DEVELOPMENT_TITLE: Final = "Development material (not a benchmark result)"
MISSING_NOTE: Final = (
    "A measurement a run's record or its reviewers did not give is published as missing, "
    "counted as (measured, missing), never as zero."
)


def _quartile_columns(key: str, label: str) -> list[Column]:
    return [
        Column(
            f"{key}_median",
            f"{label} median (n, missing)",
            Kind.NUMBER,
            csv=((f"{key}_median", "value"), (f"{key}_n", "n"), (f"{key}_missing", "missing")),
            short=f"{label} (n, missing)",
        ),
        Column(f"{key}_q1", f"{label} Q1", Kind.NUMBER, short="Q1"),
        Column(f"{key}_q3", f"{label} Q3", Kind.NUMBER, short="Q3"),
    ]


def _quartile_cells(q: Quartiles) -> list[Cell]:
    return [
        Number(q.median, q.n, q.missing),
        Number(q.q1),
        Number(q.q3),
    ]


def _proportion_csv(key: str, confidence: float) -> tuple[tuple[str, str], ...]:
    level = confidence_label(confidence).rstrip("%")
    return (
        (f"{key}_x", "x"),
        (f"{key}_n", "n"),
        (key, "point"),
        (f"{key}_wilson{level}_low", "low"),
        (f"{key}_wilson{level}_high", "high"),
    )


def workflows_table(b: BusinessResults, confidence: float) -> Table:
    """Seed 002 section 5, one row per condition."""
    wilson = f"Wilson {confidence_label(confidence)}"
    columns = [
        Column("condition", "Condition"),
        Column("workflow", "Workflow"),
        Column(
            "accepted",
            f"Accepted-task rate x/n [{wilson}]",
            Kind.PROPORTION,
            csv=_proportion_csv("accepted", confidence),
            short=f"Accepted [{wilson}]",
        ),
        Column(
            "critical",
            f"Critical failures x/n [{wilson}]",
            Kind.PROPORTION,
            csv=_proportion_csv("critical", confidence),
            short=f"Critical [{wilson}]",
        ),
        *_quartile_columns("correction_minutes", "Correction min"),
        *_quartile_columns("latency_ms", "Latency ms"),
        *_quartile_columns("cost_usd", "Cost USD"),
    ]
    rows = tuple(
        (
            w.condition,
            w.workflow or "not declared",
            w.accepted,
            w.critical,
            *_quartile_cells(w.correction_minutes),
            *_quartile_cells(w.latency_ms),
            *_quartile_cells(w.cost_usd),
        )
        for w in b.workflows
    )
    return Table(
        "business-workflows",
        "Single- vs multi-agent (seed 002 section 5), per condition",
        tuple(columns),
        rows,
        (
            "Accepted and critical failures are over the outputs a person judged (not "
            "excluded); latency and cost are the runs' own records.",
            MISSING_NOTE,
        ),
    )


def correction_table(b: BusinessResults) -> Table:
    rule = b.timing_rule
    columns = (Column("condition", "Condition"), *_quartile_columns("minutes", "Minutes"))
    rows = tuple((c.condition, *_quartile_cells(c.minutes)) for c in b.correction)
    timing = (
        f"Timing rule: {rule}"
        if rule
        else "The design states no timing rule: correction minutes were not recorded."
    )
    return Table(
        "business-correction",
        "Correction effort: minutes to bring an output to 'meets brief', per condition",
        columns,
        rows,
        (
            timing,
            "Over the outputs a person judged (not excluded); a run's minutes are the median of "
            "its reviewers' recorded minutes; quartiles by Hyndman & Fan definition 7.",
            MISSING_NOTE,
        ),
    )


def repeatability_table(b: BusinessResults) -> Table:
    columns = (
        Column("condition", "Condition"),
        Column("task", "Task"),
        Column("attempts", "Attempts", Kind.COUNT),
        Column(
            "passed",
            "Passed x/attempts decided",
            Kind.TALLY,
            csv=(("passed_x", "x"), ("passed_n", "n")),
        ),
        Column(
            "accepted",
            "Accepted x/attempts judged",
            Kind.TALLY,
            csv=(("accepted_x", "x"), ("accepted_n", "n")),
        ),
        Column(
            "critical",
            "Critical x/attempts judged",
            Kind.TALLY,
            csv=(("critical_x", "x"), ("critical_n", "n")),
        ),
    )
    rows = tuple(
        (
            r.condition,
            r.task,
            r.attempts,
            Tally(r.passed, r.decided),
            Tally(r.accepted, r.judged),
            Tally(r.critical, r.judged),
        )
        for r in b.repeatability
    )
    return Table(
        "business-repeatability",
        "Repeatability per task and condition (x/attempts)",
        columns,
        rows,
        (
            "Decided: MODEL_PASS or MODEL_FAIL; judged: judged by a person and not excluded; "
            "attempts left out of a denominator are excluded, unresolved or unjudged.",
        ),
    )


def task_intervals_table(b: BusinessResults, confidence: float) -> Table:
    level = confidence_label(confidence)
    columns = (
        Column("condition", "Condition"),
        Column("figure", "Figure"),
        Column(
            "runs",
            f"Over runs x/n [Wilson {level}]",
            Kind.PROPORTION,
            csv=_proportion_csv("runs", confidence),
        ),
        Column("tasks", "Distinct tasks", Kind.COUNT),
        Column("max_attempts", "Attempts per task (most)", Kind.COUNT),
        Column(
            "by_task",
            f"Resampling tasks [{level} cluster bootstrap]",
            Kind.INTERVAL,
            csv=bootstrap_csv("task_point", "task_bootstrap_low", "task_bootstrap_high"),
            digits=3,
        ),
    )
    rows = tuple(
        (
            r.condition,
            r.figure,
            r.runs,
            r.tasks.tasks,
            r.max_attempts,
            bootstrap_estimate(r.tasks),
        )
        for r in b.task_intervals
    )
    return Table(
        "business-task-intervals",
        "Task-level intervals: over runs and resampling tasks",
        columns,
        rows,
        (b.task_intervals_note,),
    )


def findings_table(b: BusinessResults) -> Table:
    """Each finding's latest revision: occurrences as x/attempts, and what a safety finding
    states (seed 002 section 4)."""
    columns = (
        Column("id", "Finding"),
        Column("title", "Title"),
        Column("severity", "Severity"),
        Column("occurrences", "Occurrences x/attempts", csv=(("occurrences", "value"),)),
        Column("attempts", kind=Kind.COUNT, shown=False),
        Column("safety", "Safety"),
        Column("attacker_control", "Attacker control"),
        Column("trust_boundary", "Trust boundary"),
        Column("expected", "Expected"),
        Column("observed", "Observed"),
        Column("impact", "Plausible impact"),
        Column("retest_status", "Retest"),
    )
    rows = []
    for f in b.findings:
        s = f.safety
        rows.append(
            (
                f.id,
                f.title,
                f.severity,
                f"{f.occurrences}/{f.attempts}"
                + (" (runs of its case)" if f.attempts_source == "runs of its case" else "")
                if f.attempts is not None
                else f"{f.occurrences}/attempts missing",
                f.attempts,
                "yes" if s else "no",
                s.attacker_control if s else "",
                s.trust_boundary if s else "",
                f.expected,
                f.actual,
                s.plausible_impact if s else "",
                f.retest_status,
            )
        )
    return Table(
        "business-findings",
        "Findings: repeatability and safety details",
        columns,
        tuple(rows),
        (
            "Attempts as recorded with the finding, else the runs of its case (the task and "
            "condition of the runs it names); a safety finding's repeatability is its "
            "occurrences out of its attempts.",
        ),
    )


def retests_table(b: BusinessResults) -> Table:
    columns = (
        Column("finding", "Finding"),
        Column("case", "Case retested"),
        Column("kind", "Original or nearby"),
        Column("result", "Result"),
    )
    rows = tuple(
        (f.id, c.case, "original" if c.original else "nearby", c.result)
        for f in b.findings
        for c in sorted(f.retests, key=lambda c: not c.original)
    )
    return Table("business-retests", "Retests: the original and nearby cases", columns, rows)


def development_table(b: BusinessResults, confidence: float) -> Table:
    table = group_table(b.development, by_task=False, confidence=confidence)
    tasks = ", ".join(b.development_tasks)
    return Table(
        "business-development",
        DEVELOPMENT_TITLE,
        table.columns,
        table.rows,
        (
            f"Development material (tasks {tasks}): the rubric was refined on these tasks; "
            "their results are not a benchmark result and enter no figure above.",
        ),
    )


def business_tables(b: BusinessResults | None, confidence: float) -> tuple[Table, ...]:
    """The tables in reading order (those with no rows left out, development last)."""
    if b is None:
        return ()
    tables = [
        workflows_table(b, confidence),
        correction_table(b),
        repeatability_table(b),
        task_intervals_table(b, confidence),
    ]
    if b.findings:
        tables.append(findings_table(b))
        if any(f.retests for f in b.findings):
            tables.append(retests_table(b))
    if b.development_tasks:
        tables.append(development_table(b, confidence))
    return tuple(t for t in tables if t.rows or t.id == "business-task-intervals")


def business_headline(b: BusinessResults | None) -> str | None:
    """What a reader must know before the results: which tasks they are over."""
    if b is None or not (b.development_tasks or b.holdout_tasks):
        return None
    parts = []
    if b.holdout_tasks:
        parts.append(f"Holdout tasks: {', '.join(b.holdout_tasks)}.")
    if b.development_tasks:
        parts.append(
            f"Development material ({', '.join(b.development_tasks)}) is left out of every "
            f"benchmark figure and reported apart under '{DEVELOPMENT_TITLE}'."
        )
    unlisted = unlisted_warning(b.unlisted_tasks)
    if unlisted:
        parts.append(unlisted)
    return " ".join(parts)
