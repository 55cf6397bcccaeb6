"""The command line's writer of neutral tables: ``abp-tui results`` and ``abp-tui agreement``.

Each table is written as aligned columns under its title, every cell with the characters every
face shows (:func:`abp_tui.analysis.tables.cell_text`), so the text, the workstation and the report
cannot drift apart. Everything from a record passes through :func:`abp_tui.text.safe.safe_line`:
nothing reaches the terminal as an escape sequence. Headers are the columns' full labels, never
the workstation's short ones (those carry Greek letters a legacy console code page cannot print).

This module computes nothing; it writes what :mod:`abp_tui.analysis.tables` builds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from abp_tui.analysis.tables import (
    ResultsTables,
    Table,
    cell_text,
    figures_table,
    pairs_table,
    results_tables,
)
from abp_tui.text.safe import safe_line

if TYPE_CHECKING:
    from abp_tui.services.results_report import ResultsReport
    from abp_tui.stats.agreement import AgreementReport

GAP = "  "
"""Between two columns."""


def table_lines(table: Table, indent: str = "") -> list[str]:
    """The table's header and rows as aligned text, then its notes; no title."""
    shown = table.shown
    header = [safe_line(c.header) for c in shown]
    rows = [[safe_line(cell_text(c, v)) for c, v in table.cells(row)] for row in table.rows]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return (indent + GAP.join(c.ljust(w) for c, w in zip(cells, widths, strict=True))).rstrip()

    return [line(header), *(line(r) for r in rows), *(indent + safe_line(n) for n in table.notes)]


def section(table: Table) -> list[str]:
    """A table under its title."""
    return [safe_line(table.title), *table_lines(table)]


def results_text(report: ResultsReport, tables: ResultsTables | None = None) -> str:
    """The results of a design as text: every results table in reading order, then the notes."""
    tables = tables or results_tables(report)
    scope = (
        "from its automated outcomes alone (no study design)"
        if report.verdict_source == "automated"
        else f"design {safe_line(report.design)} v{report.design_version} "
        f"(rubric {safe_line(report.rubric)})"
    )
    lines = [
        f"Results of study {safe_line(report.study)}, {scope}; unblinded by "
        f"{safe_line(report.unblinded_by)} at {safe_line(report.unblinded_at)}",
    ]
    for table in tables.in_order:
        lines += ["", *section(table)]
    lines.append("")
    lines += [f"Note: {safe_line(n)}" for n in tables.notes]
    return "\n".join(lines)


def agreement_text(report: AgreementReport, where: str) -> str:
    """Agreement of every variable: its denominators, each declared figure with its own, and
    each pair of reviewers' figures."""
    lines = [
        f"Agreement: {safe_line(where)} (seed {report.seed}, "
        f"{report.resamples} bootstrap resamples, {report.confidence:.0%} percentile intervals)"
    ]
    for v in report.variables:
        lines += [
            "",
            f"{safe_line(v.variable)} ({v.level}): {v.n_items} items with 2+ "
            f"judgments, {v.n_reviewers} reviewers, {v.n_judgments} judgments",
            *table_lines(figures_table(v), GAP),
        ]
        if v.pairs:
            lines += ["", f"{GAP}Reviewer pairs:", *table_lines(pairs_table(v), GAP)]
    lines += [
        "",
        "Percent agreement: mean pairwise agreement over items with at least two judgments.",
    ]
    return "\n".join(lines)
