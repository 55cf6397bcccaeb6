"""The agreement screen's tables at 80 columns: a figure wraps, it is never cut.

The fault: at 80x24 the highlighted variable's figures were squeezed so that the interval read
"0.571 [0.16…" (the column had six cells for an eight-cell word), the notes column showed two
letters of "1000 resamples", and the header said "1 variables".
"""

from __future__ import annotations

import re
from pathlib import Path

import sqlite_utils

from abp_tui.models import PreferenceChoice
from abp_tui.services.agreement_report import study_agreement
from abp_tui.tui.charts import variable_detail
from tests.factories import afp_judgment, two_reviewer_design
from tests.tui_helpers import rendered

DETAIL_WIDTH = 72
"""What the detail panel's content gets at 80 columns (its border, margin and padding aside)."""
ONE, TWO = PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2


def test_every_figure_of_a_variable_is_whole_at_80_columns(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    for index, code in enumerate(codes):
        a.save(code, afp_judgment(2, 1, ONE), 3, submit=True)
        b.save(
            code, afp_judgment(2 - index % 3, index % 2, TWO if index % 2 else ONE), 3, submit=True
        )
    report = study_agreement(db, "s", pk, resamples=200)
    preference = next(v for v in report.variables if v.variable == "preference")
    shown = rendered(variable_detail(preference), DETAIL_WIDTH)
    words = set(shown.split())
    table = shown.split("Reviewer pairs")[0]  # the heat maps' category names may be cut
    assert not re.search(r"[\d\]\[,.]…", table)  # no number cut short
    assert "resamples" in words  # the notes column keeps its words whole
    intervals = 0
    for _, f in preference.figures():
        if f.value is not None and f.interval is not None:
            intervals += 1
            assert f"[{f.interval.low:.3f}," in words, f.name
            assert f"{f.interval.high:.3f}]" in words, f.name
    assert intervals >= 2  # the check above ran on real intervals
