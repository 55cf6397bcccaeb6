"""The tables of two protocol rules, in the one table model every face writes
(:mod:`abp_tui.analysis.tables`): seed 000's reclassified record failures and seed 004's
condition and dimension counts (with the runs excluded before a response, and their reasons)."""

from __future__ import annotations

from collections.abc import Sequence

from abp_tui.analysis.reruns import Reclassification
from abp_tui.analysis.scibench_results import SciBenchResults
from abp_tui.analysis.tables import Cell, Column, Kind, Table

RECLASSIFIED_NOTE = (
    "A run whose record says INFRA_ERROR or PROVIDER_BLOCK keeps that state unless every "
    "judgment behind its verdict reclassifies it with a reason; scores alone never change it."
)
RECLASSIFIED_DEVELOPMENT_NOTE = (
    "Every reclassification is listed, those on development material too (material "
    "development): such a run is not a benchmark result and enters no benchmark figure."
)


def _count(key: str, label: str) -> Column:
    return Column(key, label, Kind.COUNT)


def reclassified_table(found: Sequence[Reclassification]) -> Table:
    """Every run whose record failure its reviewers set aside: what the record said, what
    counts instead, who decided and why, and which material its task is."""
    columns = (
        Column("run", "Run"),
        Column("task", "Task"),
        Column("material", "Material"),
        Column("condition", "Condition"),
        _count("trial", "Trial"),
        Column("record_state", "Record says"),
        Column("state", "Counts as"),
        Column("source", "Decided by"),
        Column("by", "Who"),
        Column("items", "Items"),
        Column("reasons", "Reasons"),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            r.run,
            r.task,
            r.material,
            r.condition,
            r.trial,
            r.record_state.value,
            r.state.value if r.state else "unresolved",
            r.source,
            r.by,
            r.items,
            r.reasons,
        )
        for r in found
    )
    return Table(
        "reclassified-runs",
        "Record failures reclassified by reviewers",
        columns,
        rows,
        (RECLASSIFIED_NOTE,)
        + (
            (RECLASSIFIED_DEVELOPMENT_NOTE,)
            if any(r.material == "development" for r in found)
            else ()
        ),
    )


def sci_condition_table(sci: SciBenchResults) -> Table:
    columns = (
        Column("condition", "Condition"),
        _count("runs", "Runs"),
        _count("excluded", "Excluded (pre-response)"),
        _count("eligible", "Eligible (n)"),
        _count("abstained", "Abstained"),
        _count("not_scored", "Not scored"),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (c.condition, c.runs, c.excluded, c.eligible, c.abstained, c.not_scored)
        for c in sci.conditions
    )
    return Table("sci-conditions", "Runs by condition (no imputation)", columns, rows)


def sci_dimension_table(sci: SciBenchResults) -> Table:
    columns = (
        Column("condition", "Condition"),
        Column("dimension", "Dimension"),
        _count("pass", "Pass"),
        _count("fail", "Fail"),
        _count("not_scored", "Not scored"),
        _count("n", "n"),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (d.condition, d.dimension, d.passed, d.failed, d.not_scored, d.n) for d in sci.dimensions
    )
    return Table(
        "sci-dimensions",
        "Dimension counts by condition (no top-line accuracy)",
        columns,
        rows,
    )


def sci_excluded_table(sci: SciBenchResults) -> Table:
    columns = (
        Column("run", "Run"),
        Column("task", "Task"),
        Column("condition", "Condition"),
        _count("trial", "Trial"),
        Column("state", "State"),
        Column("reason", "Reason"),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (e.run, e.task, e.condition, e.trial, e.state, e.reason) for e in sci.excluded
    )
    return Table(
        "sci-excluded", "Excluded before a response (kept, with the reason)", columns, rows
    )


def sci_tables(sci: SciBenchResults | None) -> tuple[Table, ...]:
    """Seed 004's tables in reading order (none for another rubric)."""
    if sci is None:
        return ()
    return (sci_condition_table(sci), sci_dimension_table(sci), sci_excluded_table(sci))
