"""The bundle's own tables (excluded runs, findings, every judgment) and the CSV writer.

The results, agreement and disagreement tables are built by :mod:`abp_tui.analysis.tables`; the
ones here read a bundle's records, which only the export knows. Every table is a neutral
:class:`~abp_tui.analysis.tables.Table`; :func:`table_csv` writes any of them as the bytes of a
bundle's CSV file (``verify`` compares those bytes, so the field names and their order are the
files' contract).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from abp_tui.analysis.material import splits_tasks, task_material
from abp_tui.analysis.placement import in_order, picked
from abp_tui.analysis.scoring import result_state
from abp_tui.analysis.tables import (
    Cell,
    Column,
    Kind,
    ResultsTables,
    Table,
    agreement_table,
    csv_rows,
    disagreements_table,
    results_tables,
)
from abp_tui.export.bundle_analysis import Analysis, Summary, excluded_runs
from abp_tui.export.canonical import csv_header, csv_lines
from abp_tui.models import (
    AdjudicationRevision,
    FindingRevision,
    JudgmentRevision,
)
from abp_tui.stats.agreement import AgreementReport


@dataclass(frozen=True)
class BundleTables:
    """Every table a bundle publishes, built once for its CSV files and its report."""

    results: ResultsTables
    agreement: Table
    disagreements: Table
    excluded: Table
    findings: Table
    judgments: Table


def bundle_tables(analysis: Analysis, summary: Summary, agreement: AgreementReport) -> BundleTables:
    return BundleTables(
        results=results_tables(summary, analysis.inputs.rubric),
        agreement=agreement_table(agreement),
        disagreements=disagreements_table(analysis.disagreements),
        excluded=excluded_table(analysis),
        findings=findings_table(analysis.inputs.findings),
        judgments=judgments_table(analysis),
    )


def table_csv(table: Table) -> bytes:
    """A table as CSV bytes: every column's fields, shown or not, in column order."""
    return b"".join(table_csv_chunks(table))


def table_csv_chunks(table: Table, batch: int = 2000) -> Iterator[bytes]:
    """The bytes of :func:`table_csv`, ``batch`` rows at a time (a long table's rows of fields
    are never all made at once)."""
    header = [name for c in table.columns for name, _part in c.fields]
    yield csv_header(header).encode("utf-8")
    rows = table.rows
    for start in range(0, len(rows), batch):
        part = Table(table.id, table.title, table.columns, rows[start : start + batch])
        yield csv_lines(csv_rows(part)[1]).encode("utf-8")


def _columns(
    *keys: str, counts: Sequence[str] = (), numbers: Sequence[str] = ()
) -> tuple[Column, ...]:
    """Columns named by their keys (these tables read as their CSV files do)."""
    return tuple(
        Column(k, kind=Kind.COUNT if k in counts else Kind.NUMBER if k in numbers else Kind.TEXT)
        for k in keys
    )


def excluded_table(analysis: Analysis) -> Table:
    """Runs outside the quality denominator, or excluded by their source, with the reasons."""
    # Seed 002: a design that marks development material says which material each run is.
    material = splits_tasks(analysis.inputs.study_design)
    columns = _columns(
        "run",
        "task",
        "condition",
        "trial",
        "state",
        "source",
        "reasons",
        *(("material",) if material else ()),
        counts=("trial",),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            r["run"],
            r["task"],
            r["condition"],
            r["trial"],
            r["state"],
            r["source"],
            tuple(r["reasons"]),
            *((r["material"],) if material else ()),
        )
        for r in excluded_runs(analysis)
    )
    return Table("excluded-runs", "Excluded runs", columns, rows)


def latest_findings(findings: Sequence[FindingRevision]) -> list[FindingRevision]:
    latest: dict[str, FindingRevision] = {}
    for f in findings:
        if f.id not in latest or f.revision > latest[f.id].revision:
            latest[f.id] = f
    return [latest[k] for k in sorted(latest)]


def findings_table(findings: Sequence[FindingRevision]) -> Table:
    """The latest revision of each finding."""
    columns = _columns(
        "id",
        "revision",
        "title",
        "severity",
        "layer",
        "occurrences",
        "retest_status",
        "runs",
        "reviewer",
        "created_at",
        counts=("revision", "occurrences"),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            f.id,
            f.revision,
            f.finding.title,
            f.finding.severity,
            f.finding.layer,
            f.finding.occurrences,
            f.finding.retest_status,
            tuple(f.runs),
            f.reviewer,
            f.created_at,
        )
        for f in latest_findings(findings)
    )
    return Table("findings", "Findings", columns, rows)


def judgments_table(analysis: Analysis) -> Table:
    """Every judgment revision (drafts included) and every adjudication, one row per response."""
    inputs = analysis.inputs
    rubric = inputs.rubric
    dims = [d.id for d in rubric.dimensions]
    items = {i.code: i for i in inputs.items}
    condition_of = {r.id: r.condition for r in inputs.runs}
    material = splits_tasks(inputs.study_design)
    for i in inputs.items:
        condition_of.update(zip(i.runs, i.conditions, strict=True))
    columns = (
        *_columns(
            "kind",
            "item",
            "item_kind",
            "task",
            "trial",
            "reviewer",
            "revision",
            "status",
            "created_at",
            "reason",
            "seconds_spent",
            "position",
            "run",
            "condition",
            counts=("trial", "revision"),
            numbers=("seconds_spent",),
        ),
        *(Column(f"score:{d}", kind=Kind.NUMBER) for d in dims),
        *_columns(
            *(f"rationale:{d}" for d in dims),
            "fatal_hits",
            "state_override",
            "override_reason",
            "state",
            "preference",
            "preferred_run",
            "justification",
            "validity_failed",
            # Seed 002: last, so that a design without development material keeps its columns.
            *(("material",) if material else ()),
        ),
    )
    rows: list[tuple[Cell, ...]] = []
    entries: list[tuple[tuple[str, int, str, int], JudgmentRevision | AdjudicationRevision]] = []
    entries += [((j.item, 0, j.reviewer, j.revision), j) for j in inputs.judgments]
    entries += [((a.item, 1, a.adjudicator, a.revision), a) for a in inputs.adjudications]
    for _key, e in sorted(entries, key=lambda x: x[0]):
        item = items.get(e.item)
        judgment = e.judgment
        choice = judgment.preference
        preferred = picked(choice, e.placement) or ""
        failed = tuple(k for k, ok in sorted(judgment.validity.items()) if not ok)
        if isinstance(e, JudgmentRevision):
            kind, who, status, reason, seconds = (
                "judgment",
                e.reviewer,
                e.status,
                e.reason,
                e.seconds_spent,
            )
        else:
            kind, who, status, reason, seconds = (
                "adjudication",
                e.adjudicator,
                "adjudicated",
                e.note,
                None,
            )
        for position, run in in_order(e.placement):
            response = judgment.responses.get(run)
            scores = response.scores if response else {}
            rationales = response.rationales if response else {}
            state = result_state(rubric, response) if response else None
            rows.append(
                (
                    kind,
                    e.item,
                    item.kind if item else "",
                    item.task if item else "",
                    item.trial if item else None,
                    who,
                    e.revision,
                    status,
                    e.created_at,
                    reason,
                    seconds,
                    position,
                    run,
                    condition_of.get(run, ""),
                    *(scores.get(d) for d in dims),
                    *(rationales.get(d, "") for d in dims),
                    tuple(response.fatal_hits) if response else (),
                    response.state_override.value if response and response.state_override else "",
                    response.override_reason if response else "",
                    state.value if state else "",
                    choice.value if choice else "",
                    preferred,
                    judgment.justification,
                    failed,
                    *(
                        (task_material(inputs.study_design, item.task if item else ""),)
                        if material
                        else ()
                    ),
                )
            )
    return Table("judgments", "Every judgment and adjudication", columns, tuple(rows))
