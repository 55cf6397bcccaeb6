"""Seed 003 principle 3: "Every number carries its uncertainty. Success rates get Wilson
intervals. Paired comparisons get exact McNemar. Continuous metrics get seeded bootstrap CIs. No
blended scores, ever."

The bundle's report.html of an ABP study is read as a reader reads it, and every number of every
figure table is checked: a rate is x/n with its Wilson interval, a difference has its bootstrap
interval (seed and resamples named), a median its n and missing count, a p-value sits in a row
that carries the counts it was computed on, and a count stays within its row's denominator (the
counts left out of a pairing add up with the pairs to the engine's runs). Tables that list
records rather than figures (runs, judgments, the audit log, the rubric's anchors, the gate's
checks, excluded runs) are not figures and are not checked. No header or label offers a score
that blends anything.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conformance.rules_helpers import ReportTables
from tests.conformance.seed_003.abp_runs import CONFORMANCE, DEMO, copy_run
from tests.factories import Cli

RECORD_TABLES = frozenset(
    {
        "runs-table",
        "judgments-table",
        "audit-log",
        "rubric",
        "gate-checks",
        "excluded-runs",
        "findings-table",
        "disagreements",
    }
)
"""Tables whose cells are records (ids, times, texts), not figures."""
LABEL_COLUMNS = frozenset({"Condition", "Task", "Contrast a vs b", "Metric", "Unresolved items"})
"""Columns of names: a digit in an engine's or task's name is not a figure."""
DENOMINATORS = ("Runs", "Pairs", "Both resolved (n)", "Decisive")
EXCLUDED_STATES = ("PROV BLOCK", "INFRA", "INVALID", "DISPUTE")
"""The summary's columns of runs that are no measurement (never a loss, never a median)."""

NUMBER = r"[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?"
ALLOWED = [
    # a rate: x/n = p [low, high]
    rf"\d+/\d+ = {NUMBER} \[{NUMBER}, {NUMBER}\]",
    # an estimate with its interval, and the bootstrap that drew it
    rf"{NUMBER} \[{NUMBER}, {NUMBER}\](?: \({NUMBER}% bootstrap, seed \d+, \d+/\d+ resamples\))?",
    # a median with the measurements behind it, or none measured: (n, missing)
    rf"(?:{NUMBER}|missing) \(\d+, \d+\)",
    # a p-value (its row's counts are checked below)
    rf"p = {NUMBER}",
    # counts out of a stated denominator
    r"\(of \d+\)",
    # a tally x/n
    r"\d+/\d+",
    # an undefined figure and its reason
    r"undefined: .*$",
]
BLENDED = re.compile(r"\b(score|overall|composite|blended|weighted|aggregate|index)\b", re.I)


def _leftover(cell: str) -> str:
    """The cell with every allowed figure taken out: what is left must hold no number."""
    for pattern in ALLOWED:
        cell = re.sub(pattern, " ", cell)
    return cell


def _report(tmp_path: Path, cli: Cli, source: str) -> str:
    if source == "arena-envelope":
        folder = tmp_path / source
        shutil.copytree(CONFORMANCE / source, folder)
        target, study = folder / "results.json", source
    else:
        target = copy_run(DEMO if source == "abp-demo" else CONFORMANCE / source, tmp_path / source)
        study = source
    assert cli("import", target).code == 0
    assert cli("unblind", "--study", study, "--yes").code == 0
    bundle = tmp_path / "bundle"
    done = cli("export", "bundle", "--study", study, "--out", bundle)
    assert done.code == 0, done.err
    return (bundle / "report.html").read_text(encoding="utf-8")


SOURCES = ["abp-demo", "engine-error", "arena-envelope", "unmatched-models"]


@pytest.mark.parametrize("source", SOURCES)
def test_every_number_in_the_abp_report_has_its_denominator_or_interval(
    tmp_path: Path, cli: Cli, source: str
) -> None:
    parsed = ReportTables()
    parsed.feed(_report(tmp_path, cli, source))
    figures = {k: v for k, v in parsed.tables.items() if k not in RECORD_TABLES}
    assert "summary-conditions" in figures
    checked = 0
    for table_id, (header, rows) in figures.items():
        for row in rows:
            assert len(row) == len(header), (table_id, row)
            cells = dict(zip(header, row, strict=True))
            denominator = next((int(cells[d]) for d in DENOMINATORS if cells.get(d)), None)
            for column, cell in cells.items():
                if column in LABEL_COLUMNS or not re.search(r"\d", cell):
                    continue
                checked += 1
                if re.fullmatch(r"\d+", cell):  # a count, within its row's denominator
                    assert denominator is not None, (table_id, column, cell)
                    assert int(cell) <= denominator, (table_id, column, cell, denominator)
                    continue
                if cell.startswith("p = ") or cell.startswith("undefined"):
                    assert denominator is not None or "(of " in " ".join(row), (table_id, row)
                if re.fullmatch(r"\d+( / \d+)+( \(of \d+\))?", cell):  # counts read together
                    # within the row's denominator; the left-out counts are checked against the
                    # engines' runs below
                    assert (
                        denominator is not None
                        or "(of " in cell
                        or (table_id == "comparisons-left-out")
                    ), (table_id, column, cell)
                    continue
                leftover = _leftover(cell)
                assert not re.search(r"\d", leftover), (table_id, column, cell, leftover)
    assert checked > 0
    _check_accounting(figures)
    for label in parsed.svg_texts:  # the charts' bar labels; axis ticks are not figures
        if not re.search(r"\d", label) or re.fullmatch(NUMBER, label):
            continue
        assert (
            re.fullmatch(rf"\d+/\d+ = {NUMBER} \[{NUMBER}, {NUMBER}\]", label)
            or re.fullmatch(r"\d+/\d+: no estimate \(.*\)", label)
            or "x/n = MODEL_PASS" in label
        ), label


def _check_accounting(figures: dict[str, tuple[list[str], list[list[str]]]]) -> None:
    """Counts read together add up to their denominators: each head-to-head's wins, losses,
    ties and undecided to the pairs both resolved; each engine's pairs and runs left out of the
    pairing to its runs; each engine median's measured and missing runs to its runs that are
    measurements."""
    header, rows = figures.get("head-to-head", ([], []))
    for row in rows:
        cells = dict(zip(header, row, strict=True))
        counts = [int(v) for v in cells["a wins / b wins / ties / undecided"].split(" / ")]
        assert sum(counts) == int(cells["Both resolved (n)"]), row
    header, rows = figures["summary-conditions"]
    runs = {r[0]: int(r[1]) for r in rows}
    excluded = {
        r[0]: sum(int(dict(zip(header, r, strict=True))[s]) for s in EXCLUDED_STATES) for r in rows
    }
    header, rows = figures.get("engine-efficiency", ([], []))
    for row in rows:  # each median is over the engine's runs that are measurements
        for cell in row[1:]:
            n, missing = (int(v) for v in re.findall(r"\((\d+), (\d+)\)", cell)[0])
            assert n + missing == runs[row[0]] - excluded[row[0]], (row, runs, excluded)
    pairs = {
        tuple(r[0].split(" vs ")): int(r[1]) for r in figures.get("comparisons-table", ([], []))[1]
    }
    header, rows = figures.get("comparisons-left-out", ([], []))
    for row in rows:
        a, b = row[0].split(" vs ")
        left = [[int(v) for v in cell.split(" / ")] for cell in row[1:]]
        for side, engine in enumerate((a, b)):
            assert pairs[(a, b)] + sum(c[side] for c in left) == runs[engine], (row, runs)


@pytest.mark.parametrize("source", SOURCES)
def test_no_blended_score_in_the_abp_report(tmp_path: Path, cli: Cli, source: str) -> None:
    page = _report(tmp_path, cli, source)
    parsed = ReportTables()
    parsed.feed(page)
    for table_id, (header, _rows) in parsed.tables.items():
        if table_id in RECORD_TABLES:
            continue
        for column in header:
            assert not BLENDED.search(column), (table_id, column)
    for label in parsed.svg_texts:
        assert not BLENDED.search(label), label
    # The one sentence that names a blended score says there is none.
    mentions = re.findall(r"[^.>]*\bblended score[^.<]*", page)
    assert mentions and all("no blended score" in m for m in mentions), mentions
