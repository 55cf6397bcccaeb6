"""`abp-tui results`, `ranking`, `export` and `verify` written to a terminal keep to its width:
a table too wide for it comes as one block per row (each cell beside its column's label), prose
is wrapped, and no figure is lost. Written to a file or a pipe, the tables stay aligned as they
are, for a pager or a script."""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.tables import results_tables
from abp_tui.cli.text import results_text
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import find_design
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.store import connect
from abp_tui.text.wrapping import UNLIMITED, prose, terminal_width
from tests.factories import Cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _memo(db: sqlite_utils.Database) -> int:
    """The demo's finished rubric study, unblinded: its tables are wider than 80 columns."""
    load_demo(db, FIXTURES / "demo")
    unblind(db, "business-memo-demo", "lead")
    return find_design(db, "business-memo-demo").pk


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gives_its_width_and_a_file_or_pipe_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert terminal_width(_Tty()) == 80
    monkeypatch.setenv("COLUMNS", "160")
    assert terminal_width(_Tty()) == 160
    monkeypatch.setenv("COLUMNS", "12")
    assert terminal_width(_Tty()) == 40  # a sliver of a pane still gets readable lines
    assert terminal_width(io.StringIO()) == UNLIMITED


def test_at_80_columns_every_line_fits_and_every_cell_is_kept(db: sqlite_utils.Database) -> None:
    report = compute_results(db, _memo(db))
    tables = results_tables(report, preference_only=report.preference_only)
    wide = results_text(report, tables)
    narrow = results_text(report, tables, width=80)
    assert max(map(len, wide.splitlines())) > 80  # the case at hand: tables wider than 80
    assert max(map(len, narrow.splitlines())) <= 80
    # No figure is lost: every one of the wide text is in the narrow one, as often. A block
    # leaves out a "label:" line with nothing after it: the wide table's headers of the
    # quartiles no run measured (its cells empty) are the only words it does not repeat.
    assert _words(wide) - _words(narrow) == Counter({"Q1": 1, "Q3": 1})
    assert not [line for line in narrow.splitlines() if line.rstrip().endswith(":")]
    # The paired comparison's row comes as a block under its pair, each cell labelled.
    lines = narrow.splitlines()
    at = lines.index("B vs A")
    assert "  Exact McNemar: p = 0.125" in lines[at : at + 12]
    # Position bias has no naming column: every cell is labelled, none stands alone.
    bias = lines.index("Position bias")
    assert lines[bias + 1] == "Left preferred: 6"
    assert lines[bias + 2] == "Right preferred: 6"
    # The headline is wrapped, its following lines indented under it.
    preferred = next(i for i, line in enumerate(lines) if line.startswith("B preferred over A"))
    assert lines[preferred + 1].startswith("  ") and "p = 0.0312" in " ".join(
        lines[preferred : preferred + 3]
    )


def test_a_table_that_fits_stays_aligned(db: sqlite_utils.Database) -> None:
    report = compute_results(db, _memo(db))
    narrow = results_text(report, width=80).splitlines()
    at = narrow.index("Left out of the pairing")
    assert re.match(r"Contrast a vs b +Excluded a / b +Unjudged", narrow[at + 1])
    assert re.match(r"B vs A +0 / 0 +1 / 1 +0 / 0$", narrow[at + 2])


def test_the_command_in_a_terminal_and_in_a_pipe(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    db = connect(cli.db_path)
    _memo(db)
    db.close()
    study = "business-memo-demo"
    piped = cli("results", "--study", study)
    assert piped.code == 0
    assert max(map(len, piped.out.splitlines())) > 80  # a pipe: the tables as they are
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    shown = cli("results", "--study", study)
    assert shown.code == 0
    assert max(map(len, shown.out.splitlines())) <= 80
    assert "Watching" in shown.out.splitlines()
    # Every figure is kept; the quartiles no run measured have no "label:" line of their own.
    assert _words(piped.out) - _words(shown.out) == Counter({"Q1": 1, "Q3": 1})


def _words(text: str) -> Counter[str]:
    """How often each figure occurs: each word with a digit, a label's colon left off (``a >=
    b``: every figure of b is in a, at least as often)."""
    return Counter(w.removesuffix(":") for w in text.split() if any(c.isdigit() for c in w))


def test_the_ranking_in_a_terminal_and_in_a_pipe(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    db = connect(cli.db_path)
    _memo(db)
    db.close()
    piped = cli("ranking", "--study", "business-memo-demo")
    assert piped.code == 0
    assert max(map(len, piped.out.splitlines())) > 80
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    shown = cli("ranking", "--study", "business-memo-demo")
    assert shown.code == 0
    assert max(map(len, shown.out.splitlines())) <= 80
    assert shown.out.split() == piped.out.split()  # the same words, wrapped


def test_export_and_verify_keep_to_the_terminal_too(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = connect(cli.db_path)
    _memo(db)
    db.close()
    out = tmp_path / "memo"
    exported = cli("export", "bundle", "--study", "business-memo-demo", "--out", out)
    assert exported.code == 0, exported.err
    piped = cli("verify", f"{out}.zip")
    assert piped.code == 0 and len(piped.out.splitlines()) == 1  # a pipe: one line, whole
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    shown = cli("verify", f"{out}.zip")
    assert shown.code == 0
    assert len(shown.out.splitlines()) > 1 and _fits(shown.out)
    assert shown.out.split() == piped.out.split()
    again = cli("export", "bundle", "--study", "business-memo-demo", "--out", tmp_path / "m2")
    assert again.code == 0 and _fits(again.out)
    assert len(again.out.split()) == len(exported.out.split())


def test_a_ranking_too_wide_for_the_terminal_comes_as_a_block_per_system(
    cli: Cli, reference: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PandaLM's five models with the length-controlled column: 100 columns as a table."""
    assert cli("import", reference / "pandalm" / "testset-v1.json").code == 0
    assert cli("unblind", "--study", "pandalm-testset-v1", "--yes").code == 0
    piped = cli("ranking", "--resamples", "100")
    assert piped.code == 0, piped.err
    table = piped.out.splitlines()
    assert any(line.startswith("rank  condition") and len(line) > 80 for line in table)
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    shown = cli("ranking", "--resamples", "100")
    assert shown.code == 0
    lines = shown.out.splitlines()
    assert max(map(len, lines)) <= 80
    at = lines.index("1  llama-7b")
    assert lines[at + 1].startswith("  score: ") and lines[at + 4].startswith("  W-L-T: ")
    assert "2  pythia-6.9b  ~" in lines  # not resolved from the next one down: still marked
    assert _words(shown.out) >= _words(piped.out)  # every figure, as often


def test_a_refusal_is_one_line_to_a_script_and_wrapped_on_a_terminal(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = connect(cli.db_path)
    load_demo(db, FIXTURES / "demo")  # afp-pilot-demo: blind, waiting to be judged
    db.close()
    piped = cli("ranking", "--study", "afp-pilot-demo")
    assert piped.code == 1
    assert piped.err.startswith("abp-tui: ") and piped.err.count("\n") == 1
    assert len(piped.err) > 81  # the case at hand: longer than the terminal
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    shown = cli("ranking", "--study", "afp-pilot-demo")
    assert shown.code == 1
    lines = shown.err.splitlines()
    assert len(lines) > 1 and _fits(shown.err) and lines[1].startswith("  ")
    assert shown.err.split() == piped.err.split()


def _fits(text: str, width: int = 80) -> bool:
    """Every line within ``width``, but a line of one word (a long path, which is never
    broken) after its indent."""
    return all(len(line) <= width or " " not in line.strip() for line in text.splitlines())


def test_for_no_terminal_prose_is_each_line_as_it_was() -> None:
    """A pipe or a file (and the bundle's report) gets every line byte for byte: trailing
    spaces, runs of spaces and long lines included."""
    lines = ["Note: ", "a  b   c ", "x" * 300 + " y", "  indented  "]
    assert prose(lines, UNLIMITED) == lines
    assert prose(["Note: a long line " * 10], 40)[0].endswith("a long line")
