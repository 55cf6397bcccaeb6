"""The command line's writer of neutral tables: ``abp-tui results`` and ``abp-tui agreement``.

Each table is written as aligned columns under its title, within the terminal's width when
written to one (a table too wide for it as one block per row, prose wrapped; the agreement
figures within 80 columns always), every cell with the characters every
face shows (:func:`abp_tui.analysis.tables.cell_text`), so the text, the workstation and the report
cannot drift apart. Everything from a record passes through :func:`abp_tui.text.safe.safe_line`:
nothing reaches the terminal as an escape sequence. Headers are the columns' full labels, never
the workstation's short ones (those carry Greek letters a legacy console code page cannot print).

This module computes nothing; it writes what :mod:`abp_tui.analysis.tables` builds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from abp_tui.analysis.agreement.labels import view_summary
from abp_tui.analysis.tables import (
    Column,
    Kind,
    ResultsTables,
    Table,
    cell_text,
    figures_table,
    pairs_table,
    references_table,
    results_tables,
)
from abp_tui.text.safe import safe_line
from abp_tui.text.wrapping import GAP, UNLIMITED, WIDTH, prose, wrapped

if TYPE_CHECKING:
    from abp_tui.analysis.agreement.labels import StudyAgreementReport
    from abp_tui.services.results_report import ResultsReport
    from abp_tui.stats.agreement import AgreementReport, VariableAgreement

NOTE: Final = frozenset({"note"})
"""The agreement figures' column said under the table when it is too wide (:func:`narrow_lines`)."""
NARROW_FIGURES: Final = {"reviewers": "Revs", "judgments": "Judged"}
"""The agreement figures' headers when the table is too wide as it is."""


def table_lines(table: Table, indent: str = "") -> list[str]:
    """The table's header and rows as aligned text, then its notes; no title."""
    shown = table.shown
    header = [safe_line(c.header) for c in shown]
    rows = [[safe_line(cell_text(c, v)) for c, v in table.cells(row)] for row in table.rows]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return (indent + GAP.join(c.ljust(w) for c, w in zip(cells, widths, strict=True))).rstrip()

    return [line(header), *(line(r) for r in rows), *(indent + safe_line(n) for n in table.notes)]


def _cells(table: Table, row: Sequence[Any]) -> dict[Column, str]:
    """Each shown column's text of ``row``."""
    made = (cell_text(c, v) for c, v in table.cells(row))
    return dict(zip(table.shown, made, strict=True))


def fitted_lines(table: Table, indent: str = "", width: int = WIDTH) -> list[str]:
    """The table as aligned columns when they fit in ``width``; else one block per row: the
    first cell alone when it names the row (a name or a pair of names), then every other
    column as "label: value" under it (an empty cell left out), wrapped to the width (a row
    named by nothing: every column so, the rows a blank line apart); then the notes, wrapped.
    The cells are the same either way."""
    lines = table_lines(table, indent)
    if all(len(line) <= width for line in lines[: 1 + len(table.rows)]):
        return lines
    first, *rest = table.shown
    named = first.kind in (Kind.TEXT, Kind.PAIR)
    out: list[str] = []
    for row in table.rows:
        cells = _cells(table, row)
        if named:
            out.append(indent + safe_line(cells[first]))
        elif out:
            out.append("")
        for column in rest if named else table.shown:
            if not cells[column].strip():
                continue  # an empty cell (no note) says nothing as a "label:" line
            label = f"{safe_line(column.header)}: {safe_line(cells[column])}"
            out += wrapped(label, indent + GAP if named else indent, GAP, width)
    for note in table.notes:
        out += wrapped(safe_line(note), indent, "", width)
    return out


def narrow_lines(
    table: Table,
    indent: str = "",
    apart: frozenset[str] = frozenset(),
    labels: Mapping[str, str] | None = None,
    width: int = WIDTH,
) -> list[str]:
    """The table as aligned columns within ``width`` if it can be: as it is; else with the
    narrower headers ``labels`` gives (column key -> header) and the columns ``apart`` (keys:
    long notes) said under it, a line for each row that has any ("first cell: note"); else a
    block per row (:func:`fitted_lines`). Its notes and those lines are wrapped to the width.
    The cells are the same every way."""
    lines = table_lines(replace(table, notes=()), indent)
    if any(len(line) > width for line in lines):
        named = labels or {}
        columns = tuple(
            replace(c, label=named.get(c.key, c.label), shown=c.shown and c.key not in apart)
            for c in table.columns
        )
        lines = table_lines(replace(table, columns=columns, notes=()), indent)
        if any(len(line) > width for line in lines):
            return fitted_lines(table, indent, width)
        first = table.shown[0]
        said = [c for c in table.shown if c.key in apart]
        for row in table.rows:
            cells = _cells(table, row)
            notes = "; ".join(safe_line(cells[c]) for c in said if cells[c])
            if notes:
                lines += wrapped(f"{safe_line(cells[first])}: {notes}", indent, GAP, width)
    for note in table.notes:
        lines += wrapped(safe_line(note), indent, GAP, width)
    return lines


def section(table: Table, width: int = UNLIMITED) -> list[str]:
    """A table under its title, within ``width`` (:func:`narrow_lines`)."""
    return [*wrapped(safe_line(table.title), width=width), *narrow_lines(table, width=width)]


def results_text(
    report: ResultsReport, tables: ResultsTables | None = None, width: int = UNLIMITED
) -> str:
    """The results of a design as text: every results table in reading order, then the notes;
    within ``width`` columns (a table too wide as one block per row, prose wrapped)."""
    tables = tables or results_tables(report, preference_only=report.preference_only)
    scope = (
        "from its automated outcomes alone (no study design)"
        if report.verdict_source == "automated"
        else f"design {report.design} v{report.design_version} (rubric {report.rubric})"
    )
    lines = prose(
        [
            *tables.warnings,  # unmatched models lead (seed 003 section 7)
            f"Results of study {report.study}, {scope}; unblinded by "
            f"{report.unblinded_by} at {report.unblinded_at}",
        ],
        width,
    )
    if tables.headline:  # the answer to the design's question leads
        lines += ["", *prose(tables.headline, width)]
    for table in tables.in_order:
        lines += ["", *section(table, width)]
    lines.append("")
    lines += prose([f"Note: {n}" for n in tables.notes], width)
    return "\n".join(lines)


WEIGHTS_ON = {"declared": "the declared scale", "observed": "the ranks of the values observed"}
"""How the header names the weight basis of every weighted figure."""


def agreement_text(report: AgreementReport, where: str) -> str:
    """Agreement of every variable: its denominators, each declared figure with its own, and
    each pair of reviewers' figures."""
    lines = wrapped(_agreement_header(report, where))
    for v in report.variables:
        lines += _variable_lines(v)
    lines += ["", *wrapped(PERCENT_NOTE)]
    return "\n".join(lines)


PERCENT_NOTE = (
    "Percent agreement: mean pairwise agreement over items with at least two judgments. "
    "A reviewer counts by their first submitted judgment of an item, made before they could "
    "see anyone else's; later revisions and adjudications are not in it (the results count "
    "each item's final verdict)."
)


def _agreement_header(report: AgreementReport, where: str) -> str:
    return (
        f"Agreement: {safe_line(where)} (seed {report.seed}, "
        f"{report.resamples} bootstrap resamples, {report.confidence:.0%} percentile intervals, "
        f"weights on {WEIGHTS_ON.get(report.weight_basis, report.weight_basis)})"
    )


def _variable_lines(v: VariableAgreement) -> list[str]:
    if not v.n_judgments:
        # A table of figures each "undefined: no judgments" says less than one line does.
        return ["", f"{safe_line(v.variable)} ({v.level}): no submitted judgments yet"]
    lines = [
        "",
        *wrapped(
            f"{safe_line(v.variable)} ({v.level}): {v.n_items} items with 2+ "
            f"judgments, {v.n_reviewers} reviewers, {v.n_judgments} judgments"
        ),
        *narrow_lines(figures_table(v), GAP, NOTE, NARROW_FIGURES),
    ]
    if v.pairs:
        lines += ["", f"{GAP}Reviewer pairs:", *narrow_lines(pairs_table(v), GAP)]
    return lines


def study_agreement_text(report: StudyAgreementReport, where: str) -> str:
    """A study's agreement: whose view it is, the reviewers among themselves, each reviewer
    against each imported label set, and the label sets among themselves."""
    lines = [*wrapped(_agreement_header(report, where)), *wrapped(safe_line(view_summary(report)))]
    for v in report.variables:
        lines += _variable_lines(v)
    if report.design is not None and report.label_sets:
        names = ", ".join(safe_line(s.name) for s in report.label_sets)
        lines += ["", *wrapped(f"Against imported labels ({names}):")]
        for s in report.label_sets:
            lines.append(
                f"{GAP}{safe_line(s.name)}: {s.n_labels} labels, {s.n_in_design} on this "
                f"design's pair items" + (f", {s.n_held_back} held back" if s.n_held_back else "")
            )
        if report.references:
            lines += fitted_lines(references_table(report.references, report.confidence), GAP)
    if report.label_agreement is not None:
        lines += _variable_lines(report.label_agreement)
    lines += ["", *wrapped(PERCENT_NOTE)]
    for n in report.notes:
        lines += wrapped(f"Note: {safe_line(n)}")
    return "\n".join(lines)
