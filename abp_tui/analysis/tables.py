"""Results and agreement as neutral tables: typed columns, rows of typed cells, computed once.

A :class:`Table` has an id, a title, columns, rows and notes. Each :class:`Column` has a kind
(count, tally x/n, proportion x/n with its point and interval, interval, p-value, number, text,
...) and, for the machine-readable files, the names of the CSV fields its cells fill. The
builders below turn results (by condition, by task, rubric dimensions, comparisons, the runs left
out of them, efficiency, position bias), agreement (every variable x every declared figure,
reviewer pairs) and disagreements into tables once; the faces only write them: CSV
(:mod:`abp_tui.export.tables`), the report's HTML (:mod:`abp_tui.export.report`), ``rich``
renderables (:mod:`abp_tui.tui.charts`) and the command line's text (:mod:`abp_tui.cli.text`).

Every face shows a cell with the same characters, from :func:`spans`: a proportion is x/n beside
its interval, an undefined value says "undefined: <reason>", never NaN. Spans carry a role
(figure, undefined) that a face may style; they are never markup. Text from records stays as it
came: each face makes it safe for where it goes (:mod:`abp_tui.text.safe`).

The model and the cells' text are :mod:`abp_tui.analysis.table_model`'s, the results' tables
:mod:`abp_tui.analysis.results.tables`', agreement's and disagreements'
:mod:`abp_tui.analysis.agreement.tables`'; every name is importable from here too.

This module is pure: no I/O, no ``rich``, no ``textual``, no database.
"""

from __future__ import annotations

from abp_tui.analysis.agreement.tables import (
    agreement_table,
    disagreements_table,
    figures_table,
    pairs_table,
    references_table,
    variables_table,
)
from abp_tui.analysis.results.tables import (
    STATE_LABELS,
    ResultsSource,
    ResultsTables,
    bootstrap_csv,
    bootstrap_estimate,
    comparisons_table,
    dimensions_table,
    efficiency_table,
    engine_efficiency_table,
    group_table,
    head_to_head_table,
    judge_table,
    left_out_table,
    position_table,
    results_tables,
)
from abp_tui.analysis.table_model import (
    NUMERIC,
    Cell,
    Column,
    Counts,
    Distribution,
    Estimate,
    FigureValue,
    Kind,
    Number,
    Pair,
    PValue,
    Role,
    Span,
    Table,
    Tally,
    cell_text,
    csv_rows,
    cut_list,
    spans,
)

__all__ = [
    "NUMERIC",
    "STATE_LABELS",
    "Cell",
    "Column",
    "Counts",
    "Distribution",
    "Estimate",
    "FigureValue",
    "Kind",
    "Number",
    "PValue",
    "Pair",
    "ResultsSource",
    "ResultsTables",
    "Role",
    "Span",
    "Table",
    "Tally",
    "agreement_table",
    "bootstrap_csv",
    "bootstrap_estimate",
    "cell_text",
    "comparisons_table",
    "csv_rows",
    "cut_list",
    "dimensions_table",
    "disagreements_table",
    "efficiency_table",
    "engine_efficiency_table",
    "figures_table",
    "group_table",
    "head_to_head_table",
    "judge_table",
    "left_out_table",
    "pairs_table",
    "position_table",
    "references_table",
    "results_tables",
    "spans",
    "variables_table",
]
