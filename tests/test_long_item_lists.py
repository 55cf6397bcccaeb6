"""A list of item codes people read is cut; the CSV field keeps every code.

What was found: a 20,000-pair study with 13,354 open disagreements showed each contrast's
"Unresolved items" as one cell of about 2,700 codes in the report, `results` and the results
screen, a row nobody can read. Now the faces name the first 20 and say how many more there are;
`comparisons.csv`, `position_bias.csv` and `summary.json` list them all.
"""

from __future__ import annotations

from abp_tui.analysis.results.tables import ITEMS_SHOWN
from abp_tui.analysis.table_model import (
    Column,
    Table,
    cell_text,
    csv_rows,
    cut_list,
    spans,
)
from abp_tui.export.report import _html

CODES = " ".join(f"P-{n:04d}" for n in range(2_722))


def test_a_list_is_cut_after_the_most_shown_and_says_how_many_more() -> None:
    assert cut_list("P-1 P-2 P-3", 3) == "P-1 P-2 P-3"
    assert cut_list("P-1 P-2 P-3 P-4", 3) == "P-1 P-2 P-3 P-4"  # "and 1 more" says no less
    assert cut_list("P-1 P-2 P-3 P-4 P-5", 3) == "P-1 P-2 P-3 and 2 more"
    cut = cut_list(CODES, ITEMS_SHOWN)
    assert cut.startswith("P-0000 P-0001 ") and cut.endswith(" P-0019 and 2,702 more")
    assert len(cut.split(" and ")[0].split()) == ITEMS_SHOWN == 20


def test_every_face_reads_the_cut_list_and_the_csv_keeps_every_code() -> None:
    column = Column("unresolved_items", "Unresolved items", empty="none", cut=ITEMS_SHOWN)
    table = Table("t", "T", (Column("contrast"), column), (("a vs b", CODES), ("a vs c", "")))
    # The results' text and the workstation (cell_text), every styled face (spans).
    assert cell_text(column, CODES).endswith("P-0019 and 2,702 more")
    assert "".join(text for text, _role in spans(column, CODES)) == cell_text(column, CODES)
    assert cell_text(column, "") == "none"
    # The report's table.
    html = _html(table, "t")
    assert html.rows[0][1].endswith("P-0019 and 2,702 more") and html.rows[1][1] == "none"
    # The CSV: every code, as the table holds it.
    _header, rows = csv_rows(table)
    assert rows[0][1] == CODES and rows[1][1] == ""
