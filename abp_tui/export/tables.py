"""The bundle's own tables (excluded runs, findings, every judgment) and the CSV writer.

The results, agreement and disagreement tables are built by :mod:`abp_tui.analysis.tables`; the
ones here read a bundle's records, which only the export knows. Every table is a neutral
:class:`~abp_tui.analysis.tables.Table`; :func:`table_csv` writes any of them as the bytes of a
bundle's CSV file (``verify`` compares those bytes, so the field names and their order are the
files' contract).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import overload

from abp_tui.analysis.material import splits_tasks, task_material
from abp_tui.analysis.placement import in_order, picked
from abp_tui.analysis.scoring import result_state
from abp_tui.analysis.table_model import csv_cells, csv_value
from abp_tui.analysis.tables import (
    Cell,
    Column,
    Kind,
    ResultsTables,
    Table,
    agreement_table,
    disagreements_table,
    results_tables,
)
from abp_tui.export.bundle_analysis import Analysis, Summary, excluded_runs
from abp_tui.export.canonical import csv_field, csv_header, csv_lines
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
    rows = iter(table.rows)
    cells = csv_cells(table.columns)
    width = None if cells is not None else len(table.columns)
    while part := tuple(islice(rows, batch)):
        fields = part if cells is None else map(cells, part)
        yield csv_lines(fields, _value_field, width).encode("utf-8")


def _value_field(cell: Cell) -> str:
    """The field of a cell of a one-field column (or of a part of another's cell): its raw
    value's (:func:`csv_value`). A text, a count, a missing cell or an empty list is written
    by :func:`csv_lines` itself, its value being that same cell."""
    return csv_field(csv_value(cell))


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
    """Every judgment revision the bundle holds (submitted: drafts are not published) and every
    adjudication, one row per response, each row made when it is read (:class:`JudgmentRows`):
    a large study's hundreds of thousands of rows are never all held, only their revisions."""
    inputs = analysis.inputs
    dims = [d.id for d in inputs.rubric.dimensions]
    material = splits_tasks(inputs.study_design)
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
    return Table("judgments", "Every judgment and adjudication", columns, JudgmentRows(analysis))


Revision = JudgmentRevision | AdjudicationRevision


def _entry_key(e: Revision) -> tuple[str, int, str, int]:
    if isinstance(e, JudgmentRevision):
        return (e.item, 0, e.reviewer, e.revision)
    return (e.item, 1, e.adjudicator, e.revision)


class JudgmentRows(Sequence[tuple[Cell, ...]]):
    """The rows of :func:`judgments_table`: the revisions in the table's order (item, then
    judgments before adjudications, then who and revision), each revision's rows (one per
    response shown, in the order shown) made when read."""

    def __init__(self, analysis: Analysis) -> None:
        inputs = analysis.inputs
        self._inputs = inputs
        self._dims = tuple(d.id for d in inputs.rubric.dimensions)
        self._material = splits_tasks(inputs.study_design)
        self._items = {i.code: i for i in inputs.items}
        entries: list[Revision] = [*inputs.judgments, *inputs.adjudications]
        entries.sort(key=_entry_key)  # stable: equal keys keep the files' order
        self._entries = entries
        self._starts = array("q", [0])
        """Row number of each revision's first row, and of the row after the last."""
        for e in entries:
            self._starts.append(self._starts[-1] + len(in_order(e.placement)))
        self._conditions: dict[str, str] | None = None
        self._no_response: tuple[Cell, ...] = (
            *((None,) * len(self._dims)),
            *(("",) * len(self._dims)),
            (),
            "",
            "",
            "",
        )
        """The cells of a response the revision judged nothing of (the same for every one)."""
        self._held: tuple[int, list[tuple[Cell, ...]]] = (-1, [])

    def __len__(self) -> int:
        return self._starts[-1]

    @overload
    def __getitem__(self, index: int) -> tuple[Cell, ...]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[Cell, ...]]: ...

    def __getitem__(self, index: int | slice) -> tuple[Cell, ...] | Sequence[tuple[Cell, ...]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        count = len(self)
        if not -count <= index < count:
            raise IndexError(index)
        index %= count
        at = bisect_right(self._starts, index) - 1
        held_at, rows = self._held
        if held_at != at:
            rows = self._rows(self._entries[at])
            self._held = (at, rows)
        return rows[index - self._starts[at]]

    def __iter__(self) -> Iterator[tuple[Cell, ...]]:
        for e in self._entries:
            yield from self._rows(e)

    def _condition_of(self) -> dict[str, str]:
        """Run id -> its condition: the runs', then each item's (made when first needed)."""
        if self._conditions is None:
            inputs = self._inputs
            conditions = {r.id: r.condition for r in inputs.runs}
            for i in inputs.items:
                conditions.update(zip(i.runs, i.conditions, strict=True))
            self._conditions = conditions
        return self._conditions

    def _rows(self, e: Revision) -> list[tuple[Cell, ...]]:
        inputs = self._inputs
        rubric = inputs.rubric
        dims = self._dims
        condition_of = self._condition_of()
        item = self._items.get(e.item)
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
        # The cells every response's row of the revision shares, made once for them all.
        head: tuple[Cell, ...] = (
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
        )
        tail: tuple[Cell, ...] = (
            choice.value if choice else "",
            preferred,
            judgment.justification,
            failed,
            *(
                (task_material(inputs.study_design, item.task if item else ""),)
                if self._material
                else ()
            ),
        )
        no_response = self._no_response
        rows: list[tuple[Cell, ...]] = []
        for position, run in in_order(e.placement):
            response = judgment.responses.get(run)
            shown = (position, run, condition_of.get(run, ""))
            if response is None:
                rows.append(head + shown + no_response + tail)
                continue
            scores = response.scores
            rationales = response.rationales
            state = result_state(rubric, response)
            override = response.state_override
            judged: tuple[Cell, ...] = (
                *([scores.get(d) for d in dims] if dims else ()),
                *([rationales.get(d, "") for d in dims] if dims else ()),
                tuple(response.fatal_hits),
                override.value if override else "",
                response.override_reason,
                state.value if state else "",
            )
            rows.append(head + shown + judged + tail)
        return rows
