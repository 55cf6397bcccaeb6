"""A contrast no item compares reads as what it is, and an empty list of items reads "none".

A PandaLM-style file compares two models per task: here m-a against m-b on two tasks and m-b
against m-c on two, never m-a against m-c. A preference design over all three (every pair of
conditions) has three contrasts, and nothing can ever compare m-a with m-c. The faces people read
(``abp-tui results``' text, the results screen, the bundle's report) name that contrast once,
"No item compares: m-a vs m-c (no task of the design ran both)", instead of a row of zeros and
undefined figures (which read like judgments missing), and the watched figures say there is no
win rate to watch rather than "no final verdicts yet". The machine-readable outputs keep its row
unchanged: it is one of the design's contrasts.

Both reviewers call each m-a / m-b pair a tie (a contrast with items, none decisive: still a row)
and disagree on every m-b / m-c pair, nobody adjudicating (a contrast with items all unresolved:
still a row, listing them). The "Unresolved items" cell of a row with none reads "none", never a
blank beside "Unresolved judgments 0"; the CSV field stays empty.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from rich.console import Console

from abp_tui.analysis.results.tables import position_table
from abp_tui.analysis.results.tallies import PositionBiasResult
from abp_tui.cli.text import table_lines
from abp_tui.export import verify
from abp_tui.export.tables import table_csv
from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.coordinator import read_results
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.stats.inference import position_bias
from abp_tui.store import connect
from abp_tui.tui.screens.results import build
from tests.factories import Cli

NO_ITEM = "No item compares: m-a vs m-c (no task of the design ran both)."
NOT_WATCHED = (
    "No win rate to watch where no item compares: m-a vs m-c (no task of the design ran both)."
)


def _study(tmp_path: Path, db_path: Path) -> int:
    """The study of the module's docstring, judged and unblinded: the design's pk."""
    records = [
        {
            "idx": i,
            "cmp_key": key,
            "instruction": f"Rewrite sentence {i} more plainly.",
            "input": f"Sentence {i} is long.",
            "response1": f"Sentence {i}, shorter.",
            "response2": f"Sentence {i}, plainer.",
            "annotator1": 0,
            "annotator2": 0,
            "annotator3": 0,
        }
        for i, key in enumerate(("m-a_m-b", "m-a_m-b", "m-b_m-c", "m-b_m-c"))
    ]
    source = tmp_path / "pairs.json"
    source.write_text(json.dumps(records), "utf-8")
    db = connect(db_path)
    try:
        import_paths(db, [source], study="pairs")
        pk = create_from_choices(
            db, DesignChoices(rubric="none", reviewers="ann,bo", reviewers_per_item=2, seed=7)
        ).pk
        for reviewer in ("ann", "bo"):
            session = ReviewSession(db, pk, reviewer)
            for row in session.queue():
                conditions = db.execute(
                    "SELECT c.id FROM items i JOIN runs r ON r.pk = i.run_b_pk "
                    "JOIN conditions c ON c.pk = r.condition_pk WHERE i.code = ?",
                    [row.code],
                ).fetchone()
                compared_with_c = conditions[0] == "m-c"
                pick = (
                    PreferenceChoice.RESPONSE_1
                    if compared_with_c and reviewer == "bo"
                    else PreferenceChoice.TIE
                )
                session.save(
                    row.code, Judgment(preference=pick, justification="Read both."), 5, submit=True
                )
        unblind(db, "pairs", "coordinator")
    finally:
        db.close()
    return pk


def _row(lines: list[str], contrast: str) -> str:
    return next(line for line in lines if line.startswith(contrast + " "))


def test_the_text_names_a_contrast_no_item_compares_once_and_lists_no_empty_items(
    tmp_path: Path, cli: Cli
) -> None:
    _study(tmp_path, cli.db_path)
    done = cli("results")
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert NO_ITEM in lines
    assert not any(line.startswith("m-a vs m-c") for line in lines)
    # A contrast with items stays a row: all ties, or all unresolved (its items listed).
    ties = _row(lines, "m-a vs m-b")
    assert "0 / 0 / 2 / 0" in ties
    assert ties.split()[-2:] == ["0", "none"]
    unresolved = _row(lines, "m-b vs m-c")
    assert "0 / 0 / 0 / 0" in unresolved
    assert unresolved.split()[-1].startswith("P-")
    # Watching: the pair with items waits for verdicts; the pair with none never will.
    assert "  win rate of m-b against m-c: no final verdicts yet" in lines
    assert f"  {NOT_WATCHED}" in lines
    assert not any("m-a against m-c" in line for line in lines)


def test_the_json_keeps_every_contrast_of_the_design_as_it_was(tmp_path: Path, cli: Cli) -> None:
    _study(tmp_path, cli.db_path)
    done = cli("results", "--json")
    assert done.code == 0, done.err
    document = json.loads(done.out)
    pairs = [(c["a"], c["b"]) for c in document["comparisons"]]
    assert pairs == [("m-a", "m-b"), ("m-a", "m-c"), ("m-b", "m-c")]
    uncompared = document["comparisons"][1]
    assert uncompared["preferences"]["total"] == 0
    assert set(uncompared) == set(document["comparisons"][0])  # no field added
    figures = {f["figure"]: f for f in document["watching"]["figures"]}
    assert figures["win rate of m-a against m-c"]["n"] == 0
    assert "no_item" not in figures["win rate of m-a against m-c"]


def test_the_results_screen_names_a_contrast_no_item_compares_once(
    tmp_path: Path, cli: Cli
) -> None:
    pk = _study(tmp_path, cli.db_path)
    shown = build(read_results(cli.db_path, pk, "coordinator"))
    assert shown.body is not None
    console = Console(width=240, record=True, color_system=None)
    console.print(shown.body)
    text = console.export_text()
    lines = [line.strip() for line in text.splitlines()]
    assert NO_ITEM in lines
    assert NOT_WATCHED in lines
    assert not any("m-a vs m-c" in line for line in lines if line not in (NO_ITEM, NOT_WATCHED))
    assert "none" in _row(lines, "m-a vs m-b").split()


def test_the_report_names_it_once_and_the_csv_keeps_its_row(tmp_path: Path, cli: Cli) -> None:
    _study(tmp_path, cli.db_path)
    assert cli("export", "bundle", "--out", tmp_path / "bundle").code == 0
    assert verify(tmp_path / "bundle.zip").derived > 0
    page = (tmp_path / "bundle" / "report.html").read_text("utf-8")
    assert f'<p class="note">{NO_ITEM}</p>' in page
    assert "<td>m-a vs m-c</td>" not in page
    assert "<tr><td>m-a vs m-b</td><td>0 / 0 / 2 / 0</td>" in page
    assert '<td class="num">0</td><td>none</td></tr>' in page
    rows = list(
        csv.DictReader(io.StringIO((tmp_path / "bundle/results/comparisons.csv").read_text()))
    )
    assert [(r["a"], r["b"]) for r in rows] == [("m-a", "m-b"), ("m-a", "m-c"), ("m-b", "m-c")]
    assert rows[1]["pref_wins_a"] == "0" and rows[1]["pref_unresolved_items"] == ""
    assert rows[0]["pref_unresolved_items"] == ""
    summary = json.loads((tmp_path / "bundle/results/summary.json").read_text("utf-8"))
    assert [(c["a"], c["b"]) for c in summary["comparisons"]] == [
        ("m-a", "m-b"),
        ("m-a", "m-c"),
        ("m-b", "m-c"),
    ]


def test_position_bias_with_no_unresolved_item_reads_none_and_its_csv_field_stays_empty() -> None:
    bias = PositionBiasResult(**position_bias(3, 2).model_dump())
    table = position_table(bias)
    header, row = table_lines(table)[:2]
    assert header.split()[-2:] == ["Unresolved", "items"]
    assert row.split()[-2:] == ["0", "none"]
    fields = list(csv.reader(io.StringIO(table_csv(table).decode("utf-8"))))
    assert fields[0][-1] == "unresolved_items" and fields[1][-1] == ""
