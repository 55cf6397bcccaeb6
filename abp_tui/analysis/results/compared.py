"""The comparisons as people read them: a contrast of the design that no item compares (no task
of the design ran both of its conditions) is named once in a note under the table, not shown as a
row of zeros and undefined figures, which reads like judgments missing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from abp_tui.analysis.table_model import Pair, Table


def uncompared_line(contrasts: Sequence[tuple[str, str]]) -> str:
    """The one line naming the contrasts no item of the design compares."""
    named = ", ".join(f"{a} vs {b}" for a, b in contrasts)
    return f"No item compares: {named} (no task of the design ran both)."


def compared_table(table: Table, uncompared: Sequence[tuple[str, str]]) -> Table:
    """The comparisons as people read them: a contrast that no item of the design compares
    (:attr:`Comparison.items` 0) is named once in a note under the table rather than shown as a
    row of zeros and undefined figures, which reads like judgments missing. The CSV file and the
    JSON documents keep its row: it is one of the design's contrasts."""
    if not uncompared:
        return table
    skipped = {Pair(a, b) for a, b in uncompared}
    rows = tuple(r for r in table.rows if r[0] not in skipped)
    return replace(table, rows=rows, notes=(*table.notes, uncompared_line(uncompared)))
