"""Preferences of an item whose reviewers disagree stay out of the tally and the position-bias test
until the item is adjudicated: counted apart, listed by blind code, in every face (results, the
CSV files, the report, abp-verdict/v1).

Two reviewers judge both items of a C-vs-A design. On the first item they prefer the same run;
on the second they prefer different runs, which the design's rules call a disagreement.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.tables import csv_rows, results_tables
from abp_tui.models import PreferenceChoice
from abp_tui.services.adjudicating import adjudicate
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import ResultsReport, compute_results, unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from tests.factories import Cli, afp_judgment, flipped, two_reviewer_design

R1, R2 = PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2


def _other(choice: PreferenceChoice) -> PreferenceChoice:
    return R2 if choice == R1 else R1


def _same_run(a: ReviewSession, b: ReviewSession, code: str) -> PreferenceChoice:
    """The position at which b sees the run that a sees as Response 1."""
    return R1 if flipped(a, code) == flipped(b, code) else R2


def _judged(
    tmp_path: Path, db: sqlite_utils.Database
) -> tuple[int, ReviewSession, ReviewSession, str, str]:
    """Agreeing reviewers on the first item, conflicting preferences on the second."""
    pk, a, b, (agreed, disputed) = two_reviewer_design(tmp_path, db)
    unblind(db, "s", "coordinator")
    for code, b_choice in ((agreed, _same_run(a, b, agreed)), (disputed, None)):
        a.save(code, afp_judgment(2, 2, R1), 10, submit=True)
        choice = b_choice if b_choice is not None else _other(_same_run(a, b, code))
        b.save(code, afp_judgment(2, 2, choice), 10, submit=True)
    return pk, a, b, agreed, disputed


def _row(table_csv: str) -> dict[str, str]:
    (row,) = list(csv.DictReader(io.StringIO(table_csv)))
    return row


def test_an_open_disagreement_leaves_the_preference_tally_and_position_bias(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, agreed, disputed = _judged(tmp_path, db)
    report = compute_results(db, pk)
    (cmp,) = report.comparisons
    prefs = cmp.preferences
    # Only the agreed item counts, once (its final verdict): both reviewers preferred one run.
    assert sorted((prefs.wins_a, prefs.wins_b)) == [0, 1]
    assert (prefs.ties, prefs.insufficient, prefs.total, prefs.decisive) == (0, 0, 1, 1)
    assert (prefs.unresolved_judgments, prefs.unresolved_items) == (2, [disputed])
    assert prefs.sources == {"unanimous": 1, "adjudicated": 0, "single review": 0, "unresolved": 1}
    assert (
        prefs.counting
        == "Counts each item's final verdict: 1 unanimous, 0 adjudicated, 1 unresolved."
    )
    # Exact two-sided binomial test of 1 win in 1 decisive item against 1/2: 2 * (1/2) = 1
    # (not 2 judgments of one item, nor 4 with the disputed item's).
    assert prefs.test.n == 1 and prefs.test.p_value == pytest.approx(1.0)
    assert (prefs.a_share.x, prefs.a_share.n) == (prefs.wins_a, 1)

    bias = report.position_bias
    # a put Response 1 first on the agreed item; b saw the same run first or second.
    left = 1 + (not flipped(a, agreed) ^ flipped(b, agreed))
    assert (bias.left_preferred, bias.right_preferred, bias.decisive) == (left, 2 - left, 2)
    assert (bias.unresolved_judgments, bias.unresolved_items) == (2, [disputed])
    assert bias.test.n == 2


def test_the_held_back_judgments_are_in_every_face(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, _a, _b, _agreed, disputed = _judged(tmp_path, db)
    report = compute_results(db, pk)
    tables = results_tables(report)

    header, rows = csv_rows(tables.comparisons)
    comparison = dict(zip(header, rows[0], strict=True))
    assert comparison["pref_unresolved"] == 2
    assert comparison["pref_unresolved_items"] == disputed
    assert comparison["pref_total"] == 1 and comparison["pref_decisive"] == 1
    header, rows = csv_rows(tables.position_bias)
    bias = dict(zip(header, rows[0], strict=True))
    assert (bias["decisive"], bias["unresolved"], bias["unresolved_items"]) == (2, 2, disputed)
    assert "Unresolved judgments" in [c.header for c in tables.comparisons.shown]

    result = export_bundle(db, pk, tmp_path / "bundle")
    folder = result.folder
    comparisons = _row((folder / "results/comparisons.csv").read_text("utf-8"))
    assert (comparisons["pref_unresolved"], comparisons["pref_unresolved_items"]) == ("2", disputed)
    position = _row((folder / "results/position_bias.csv").read_text("utf-8"))
    assert (position["decisive"], position["unresolved"]) == ("2", "2")
    assert position["unresolved_items"] == disputed
    summary = json.loads((folder / "results/summary.json").read_text("utf-8"))
    assert summary["position_bias"]["unresolved_items"] == [disputed]
    assert summary["comparisons"][0]["preferences"]["unresolved_judgments"] == 2
    verdict = json.loads((folder / "results/abp-verdict.json").read_text("utf-8"))
    assert verdict["pairwise"][0]["unresolvedItems"] == [disputed]
    page = (folder / "report.html").read_text("utf-8")
    position_section = page.split("<h3>Position bias</h3>", 1)[1].split("</table>", 1)[0]
    assert disputed in position_section and "Unresolved items" in position_section
    comparisons_section = page.split('id="comparisons-table"', 1)[1].split("</table>", 1)[0]
    assert disputed in comparisons_section


def test_the_cli_counts_them_apart(tmp_path: Path, cli: Cli) -> None:
    db = connect(cli.db_path)
    _pk, _a, _b, _agreed, disputed = _judged(tmp_path, db)
    db.close()
    doc = json.loads(cli("results", "--study", "s", "--json").out)
    (cmp,) = doc["comparisons"]
    assert cmp["preferences"]["unresolved_items"] == [disputed]
    assert (cmp["preferences"]["total"], cmp["preferences"]["unresolved_judgments"]) == (1, 2)
    assert doc["position_bias"]["unresolved_items"] == [disputed]
    text = cli("results", "--study", "s")
    assert text.code == 0, text.err
    position = text.out.split("Position bias", 1)[1]
    assert "Unresolved items" in position and disputed in position.split("Note:", 1)[0]
    assert any("Preferences of an item whose reviewers disagree" in n for n in doc["notes"])


def test_adjudicating_the_item_brings_its_preferences_back(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, _a, _b, _agreed, disputed = _judged(tmp_path, db)
    before = compute_results(db, pk)
    item = db.execute("SELECT run_a_pk, run_b_pk FROM items WHERE code = ?", [disputed]).fetchone()
    adjudicate(
        db,
        pk,
        disputed,
        "carol",
        afp_judgment(2, 2, R1),
        {"1": item[0], "2": item[1]},
        "Both meet the requirement; the first is tighter.",
    )
    after = compute_results(db, pk)
    _assert_back(before, after)


def _assert_back(before: ResultsReport, after: ResultsReport) -> None:
    (was,), (now,) = before.comparisons, after.comparisons
    # The item counts again, once, by the adjudicator's pick; the reviewers' own judgments
    # are back in the position-bias test (a test of the reviewers).
    assert now.preferences.wins_a + now.preferences.wins_b == (
        was.preferences.wins_a + was.preferences.wins_b + 1
    )
    assert (now.preferences.total, now.preferences.decisive) == (2, 2)
    assert now.preferences.sources["adjudicated"] == 1
    assert (now.preferences.unresolved_judgments, now.preferences.unresolved_items) == (0, [])
    assert after.position_bias.decisive == 4
    assert (after.position_bias.unresolved_judgments, after.position_bias.unresolved_items) == (
        0,
        [],
    )
