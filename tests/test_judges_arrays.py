"""The judges' verdicts as columns: the store reads them into the report's table with one query
and NumPy codes, and the table keeps the rules the report relies on (the latest verdict of each
slot, a run changed since, the judge's own error text, every kind of verdict)."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from abp_tui.analysis.judges.arrays import VerdictTable, latest_of_slots
from abp_tui.analysis.judges.report import PassFailJudgeReport, PreferenceJudgeReport, judges_report
from abp_tui.analysis.judges.units import Reference, VerdictRow
from abp_tui.services.importing import import_paths
from abp_tui.store import judges as sql
from tests.factories import write_jsonl


def _row(judge: str, runs: tuple[str, ...], first: str | None, verdict: str) -> VerdictRow:
    kind = "preference" if len(runs) == 2 else "pass_fail"
    return VerdictRow(judge, runs, first, None, kind, verdict, None, None)


def test_the_latest_verdict_of_each_slot_counts() -> None:
    rows = [
        _row("j", ("x", "y"), "x", "x"),
        _row("j", ("x", "y"), "y", "y"),  # the other order: a slot of its own
        _row("k", ("x", "y"), "x", "y"),  # another judge: a slot of its own
        _row("j", ("x", "y"), "x", "tie"),  # replaces the first
    ]
    table = VerdictTable.from_rows(rows)
    assert [(r.judge, r.shown_first, r.verdict) for r in table.rows()] == [
        ("j", "y", "y"),
        ("k", "x", "y"),
        ("j", "x", "tie"),
    ]
    assert latest_of_slots(table) is table  # nothing left to drop


def _lines(tmp_path: Path, name: str, lines: list[dict[str, object]]) -> Path:
    return write_jsonl(tmp_path / name, lines)


def _study(tmp_path: Path, db: sqlite_utils.Database) -> None:
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "s"},
        {"type": "task", "id": "t", "prompt": "Answer."},
        {"type": "judge", "id": "pref", "model": "m"},
        {"type": "judge", "id": "grader", "model": "m"},
    ]
    for run, condition in (("r1", "A"), ("r2", "B"), ("r3", "A")):
        lines.append(
            {"type": "run", "id": run, "task_id": "t", "condition_id": condition, "output": run}
        )
    common = {"type": "judge_verdict", "task_id": "t", "judge": "pref"}
    lines += [
        {**common, "runs": ["r1", "r2"], "shown_first": "r1", "verdict": "r1"},
        {**common, "runs": ["r1", "r2"], "shown_first": "r2", "verdict": "tie"},
        {**common, "runs": ["r3", "r2"], "shown_first": "r2", "error": "unparsable: [[C]]"},
        {**common, "judge": "grader", "run": "r1", "verdict": "pass"},
        {**common, "judge": "grader", "run": "r2", "verdict": "partial"},
        {**common, "judge": "grader", "run": "r3", "score": 4, "scale": [1, 10]},
    ]
    import_paths(db, [_lines(tmp_path, "s.jsonl", lines)])


def test_the_store_reads_what_the_verdict_models_say(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    table = sql.verdict_table(db, "s")
    assert len(table) == 6
    expected = {
        (v.judge, v.runs, v.shown_first, v.kind, v.verdict, v.score, v.error)
        for v, _current in sql.study_verdicts(db, "s")
    }
    assert {
        (r.judge, r.runs, r.shown_first, r.kind, r.verdict, r.score, r.error) for r in table.rows()
    } == expected
    assert all(table.current)
    assert list(table.errors.values()) == ["unparsable: [[C]]"]
    assert sql.verdict_rows(db, "s") == table.rows()


def test_a_verdict_imported_again_and_a_run_changed_since(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    # The judge changes its mind on (r1, r2) shown r1 first; r3 is imported with new content.
    import_paths(
        db,
        [
            _lines(
                tmp_path,
                "again.jsonl",
                [
                    {"type": "study", "id": "s"},
                    {
                        "type": "judge_verdict",
                        "task_id": "t",
                        "judge": "pref",
                        "runs": ["r1", "r2"],
                        "shown_first": "r1",
                        "verdict": "r2",
                    },
                    {
                        "type": "run",
                        "id": "r3",
                        "task_id": "t",
                        "condition_id": "A",
                        "output": "a new r3",
                    },
                ],
            )
        ],
    )
    rows = sql.verdict_rows(db, "s")
    first = [r for r in rows if r.judge == "pref" and r.shown_first == "r1"]
    assert [r.verdict for r in first] == ["r2"]
    stale = {r.runs: r.current for r in rows}
    assert stale[("r3", "r2")] is False and stale[("r3",)] is False
    assert stale[("r1", "r2")] is True
    report = judges_report(
        "s",
        sql.study_judges(db, "s"),
        sql.verdict_table(db, "s"),
        Reference(name="none", kind="labels"),
        resamples=0,
    )
    pref = next(j for j in report.judges if isinstance(j, PreferenceJudgeReport))
    changed = {
        (e.figure, u) for e in pref.left_out if e.reason == "a run changed since" for u in e.units
    }
    # A unit on a changed run is in no figure, whichever order its verdicts came in.
    figures = ("original", "swapped", "both orders", "position consistency")
    assert changed == {(figure, "r3 vs r2") for figure in figures}


def test_a_judge_with_two_kinds_of_verdict_gets_a_report_for_each() -> None:
    rows = [
        _row("j", ("x", "y"), "x", "x"),
        _row("j", ("x",), None, "pass"),
        _row("j", ("y",), None, "fail"),
    ]
    reference = Reference(name="t", kind="final", runs={"x": True, "y": True})
    report = judges_report("s", [], rows, reference, resamples=0)
    assert [(j.judge.id, j.kind) for j in report.judges] == [
        ("j", "preference"),
        ("j", "pass_fail"),
    ]
    grades = report.judges[1]
    assert isinstance(grades, PassFailJudgeReport)
    assert grades.confusion == {"true_pass": 1, "false_pass": 0, "false_fail": 1, "true_fail": 0}
    assert (grades.sensitivity.x, grades.sensitivity.n) == (1, 2)
