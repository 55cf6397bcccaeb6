"""The agreement printed by the command line says which judgment of a reviewer it counts, and
says in one line that nothing is judged yet.

The fault: a reviewer who revised a submitted preference (a mis-keyed pick) made the item
unanimous in the results while ``abp-tui agreement`` still counted the first submission as a
disagreement (0.571, 4 of 7 items, beside "5 unanimous" of 7), with nothing on the page saying why
the two differ: the workstation's agreement screen and the bundle's report said it, the command
line did not.
"""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from abp_tui.models import PreferenceChoice
from tests.factories import Cli, afp_judgment, flipped, two_reviewer_design

ONE, TWO = PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2


def test_agreement_says_it_counts_the_first_submitted_judgment(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    _, a, b, codes = two_reviewer_design(tmp_path, db)
    revised = codes[0]
    for code in codes:
        a.save(code, afp_judgment(2, 1, ONE), 3, submit=True)
        # b's pick of the run a picked: the two may see the pair in different places.
        same = ONE if flipped(a, code) == flipped(b, code) else TWO
        first = (TWO if same == ONE else ONE) if code == revised else same
        b.save(code, afp_judgment(2, 1, first), 3, submit=True)
        if code == revised:
            b.save(code, afp_judgment(2, 1, same), 3, submit=True, reason="mis-keyed")
    shown = cli("agreement", "--db", tmp_path / "test.db", "--study", "s", "--resamples", "0")
    assert shown.code == 0, shown.err
    assert f"percent agreement                 {(len(codes) - 1) / len(codes):.3f}" in shown.out
    prose = " ".join(shown.out.split())  # wrapped to 80 columns
    assert "A reviewer counts by their first submitted judgment" in prose
    assert "later revisions and adjudications are not in it" in prose


def test_a_variable_nobody_has_judged_is_one_line_not_a_table_of_undefined(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    # As for an imported set of human labels before any reviewer has judged: the reviewers'
    # part said "undefined: no judgments" five times over before the labels' figures.
    two_reviewer_design(tmp_path, db)
    shown = cli("agreement", "--db", tmp_path / "test.db", "--study", "s", "--resamples", "0")
    assert shown.code == 0, shown.err
    assert "undefined: no judgments" not in shown.out
    assert "preference (nominal): no submitted judgments yet" in shown.out
