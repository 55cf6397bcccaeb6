"""Intervals a coordinator may watch (abp_tui.analysis.results.watching): each win rate's and
pass rate's confidence sequence over the final verdicts in the order they became final, and the
design's stopping rule, in ``abp-tui results``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sqlite_utils
from pydantic import ValidationError

from abp_tui.analysis.business.figures import benchmark_records
from abp_tui.analysis.results.watching import final_values, watch, watch_lines, watched
from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services.adjudicating import adjudicate
from abp_tui.services.coordinator import read_results
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import judging as sql
from tests.factories import Cli, afp_judgment, flipped, two_reviewer_design, write_jsonl

CONFSEQ = json.loads(
    (Path(__file__).parent / "reference_values" / "confseq_sequences.json").read_text("utf-8")
)["cases"]
R1, R2 = PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2


@pytest.mark.parametrize(
    "case",
    [c for c in CONFSEQ if c["alpha"] == 0.05 and c["stream"] != "scores beta(2, 5)"],
    ids=lambda c: str(c["stream"]),
)
def test_a_watched_figure_is_confseqs_hedged_cs_at_the_last_verdict(case: dict[str, Any]) -> None:
    # confseq 0.0.11's hedged_cs (running intersection, alpha 0.05) on the same stream.
    low, high = (np.asarray(v) for v in case["hedged_cs"])
    found = watched("f", "win rate", case["x"], 0.5)
    assert (found.low, found.high, found.n) == (low[-1], high[-1], len(case["x"]))
    outside = np.flatnonzero((low > 0.5) | (high < 0.5))
    assert found.first_excluded_at == (int(outside[0]) + 1 if len(outside) else None)
    assert found.stop is (len(outside) > 0)
    assert found.mean == pytest.approx(float(np.mean(case["x"])))


def _study(
    tmp_path: Path, db: sqlite_utils.Database, tasks: int, *, blind: bool = False, **design: Any
) -> int:
    """Study ``s``: conditions A and C, ``tasks`` tasks with one run each; a C-vs-A design
    alice judges alone, unblinded unless ``blind``."""
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "s", "rubric_id": "afp-v0.1"},
        {"type": "condition", "id": "A", "label": "Model Only"},
        {"type": "condition", "id": "C", "label": "Governed Workflow"},
    ]
    for i in range(tasks):
        t = f"T{i:02d}"
        lines.append({"type": "task", "id": t, "prompt": f"Task {t}"})
        for c in ("A", "C"):
            lines.append(
                {
                    "type": "run",
                    "id": f"{t}-{c}",
                    "task_id": t,
                    "condition_id": c,
                    "output": f"Answer {t} {c}",
                }
            )
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    pk = create_design(
        db,
        StudyDesign(
            study="s", name="m", seed=5, contrasts=[("C", "A")], reviewers=["alice"], **design
        ),
    ).pk
    if not blind:
        unblind(db, "s", "coordinator")
    return pk


def _prefer(session: ReviewSession, code: str, condition: str) -> None:
    """alice prefers ``condition``'s run of the item; C passes (all 2s), A fails (all 0s)."""
    c_first = not flipped(session, code)  # the design's orientation puts C as Response 1
    c_score, a_score = 2, 0
    first, second = (c_score, a_score) if c_first else (a_score, c_score)
    choice = R1 if (condition == "C") == c_first else R2
    session.save(code, afp_judgment(first, second, choice), 5, submit=True)


def test_verdicts_count_in_the_order_they_became_final(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _study(tmp_path, db, 3)
    alice = ReviewSession(db, pk, "alice")
    codes = [r.code for r in alice.queue()]
    for code, winner in zip(codes, ("C", "A", "C"), strict=True):
        _prefer(alice, code, winner)
    stored = benchmark_records(sql.records_of_design(db, pk))
    # Submitted one after another (set here, so that no clock's resolution decides).
    at = {code: f"2026-01-01T00:00:0{i}.000000Z" for i, code in enumerate(codes)}
    records = dataclasses.replace(
        stored,
        judgments=tuple(j.model_copy(update={"created_at": at[j.item]}) for j in stored.judgments),
    )
    ((figure, kind, wins), *passes) = final_values(records, [("C", "A")])
    assert (figure, kind, wins) == ("win rate of C against A", "win rate", [1.0, 0.0, 1.0])
    assert [p[0] for p in passes] == ["pass rate of A", "pass rate of C"]
    assert [p[2] for p in passes] == [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    # The second item's judgment submitted last: its verdict became final last.
    later = tuple(
        j.model_copy(update={"created_at": "9999-01-01T00:00:00Z"}) if j.item == codes[1] else j
        for j in records.judgments
    )
    moved = dataclasses.replace(records, judgments=later)
    assert final_values(moved, [("C", "A")])[0][2] == [1.0, 1.0, 0.0]
    # Win rate of A against C: the same verdicts the other way.
    assert final_values(records, [("A", "C")])[0][2] == [0.0, 1.0, 0.0]


def test_a_design_without_a_rule_says_so_and_keeps_its_hash(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    assert "stop_when" not in StudyDesign(study="s", name="m", seed=1).model_dump()
    pk = _study(tmp_path, db, 2)
    alice = ReviewSession(db, pk, "alice")
    for row in alice.queue():
        _prefer(alice, row.code, "C")
    found = watch(benchmark_records(sql.records_of_design(db, pk)), [("C", "A")])
    assert found.rule is None and not found.stopped
    assert any("No stopping rule" in line for line in watch_lines(found))


@pytest.mark.parametrize(
    ("rule", "stored"),
    [
        ("win rate excludes 0.5", "win rate excludes 0.5"),
        ("Pass  Rate excludes .80", "pass rate excludes 0.8"),
    ],
)
def test_a_stopping_rule_is_read_in_one_form(rule: str, stored: str) -> None:
    assert StudyDesign(study="s", name="m", seed=1, stop_when=rule).stop_when == stored


@pytest.mark.parametrize(
    "rule",
    ["win rate excludes 1", "median excludes 0.5", "win rate above 0.5", "win rate excludes x"],
)
def test_a_bad_stopping_rule_is_refused(rule: str) -> None:
    with pytest.raises(ValidationError, match='expected "win rate excludes P"'):
        StudyDesign(study="s", name="m", seed=1, stop_when=rule)


def test_study_create_refuses_a_bad_rule_in_one_line(cli: Cli, tmp_path: Path) -> None:
    cli("import", write_jsonl(tmp_path / "s.jsonl", _lines()))
    result = cli(
        "study", "create", "--db", cli.db_path, "--study", "s", "--stop-when", "win rate excludes 2"
    )
    assert result.code == 1
    assert result.err.strip().splitlines() == [
        'abp-tui: stop when: expected "win rate excludes P" or "pass rate '
        "excludes P\", P between 0 and 1, got 'win rate excludes 2'"
    ]


def _lines() -> list[dict[str, object]]:
    return [
        {"type": "study", "id": "s", "rubric_id": "afp-v0.1"},
        {"type": "condition", "id": "A"},
        {"type": "condition", "id": "C"},
        {"type": "task", "id": "T", "prompt": "Task"},
        {"type": "run", "id": "T-A", "task_id": "T", "condition_id": "A", "output": "a"},
        {"type": "run", "id": "T-C", "task_id": "T", "condition_id": "C", "output": "c"},
    ]


def test_results_show_the_sequences_and_when_the_rule_is_met(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    pk = _study(tmp_path, db, 12, stop_when="win rate excludes 0.5")
    alice = ReviewSession(db, pk, "alice")
    for row in alice.queue():
        _prefer(alice, row.code, "C")
    result = cli("results", "--db", tmp_path / "test.db")
    assert result.code == 0, result.err
    # All ones: confseq's hedged_cs first excludes 0.5 after 10 (tests/test_sequences.py's
    # kernel, itself equal to confseq's bounds).
    expected = watched("x", "win rate", [1.0] * 12, 0.5)
    assert expected.first_excluded_at == 10
    line = (
        f"  stop: the win rate of C against A's 95% sequence [{expected.low:.2f}, "
        f"{expected.high:.2f}] excludes 0.5 after 12 items (first after 10)"
    )
    assert line in result.out.splitlines()
    assert "  pass rate of C: 1.000, sequence [" in result.out
    document = json.loads(cli("results", "--json", "--db", tmp_path / "test.db").out)
    figures = {f["figure"]: f for f in document["watching"]["figures"]}
    assert figures["win rate of C against A"]["stop"] is True
    assert figures["pass rate of A"]["stop"] is False  # the rule watches win rates
    assert document["watching"]["rule"] == "win rate excludes 0.5"
    # At the results' level: --confidence 0.9 watches the 90% sequence.
    narrower = cli("results", "--confidence", "0.9", "--db", tmp_path / "test.db").out
    at_90 = watched("x", "win rate", [1.0] * 12, 0.5, confidence=0.9)
    assert at_90.low is not None and expected.low is not None and at_90.low > expected.low
    assert "Anytime-valid 90% confidence sequences" in narrower
    assert (
        f"  win rate of C against A: 1.000, sequence [{at_90.low:.3f}, 1.000] after 12 items"
        in narrower.splitlines()
    )


def test_nothing_is_watched_while_the_study_is_blind(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _study(tmp_path, db, 12, blind=True, stop_when="win rate excludes 0.5")
    alice = ReviewSession(db, pk, "alice")
    for row in alice.queue():
        _prefer(alice, row.code, "C")
    view = read_results(tmp_path / "test.db", pk, "coordinator")
    assert view.report is None and view.watch is None
    unblind(db, "s", "coordinator")
    view = read_results(tmp_path / "test.db", pk, "coordinator")
    assert view.watch is not None
    assert [f.figure for f in view.watch.stopped] == ["win rate of C against A"]


def test_an_adjudicated_verdict_became_final_when_it_was_adjudicated(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, (disputed, agreed) = two_reviewer_design(tmp_path, db)
    # The disputed item: a and b prefer different runs; the agreed one: both call it a tie.
    same = R1 if flipped(a, disputed) == flipped(b, disputed) else R2
    a.save(disputed, afp_judgment(2, 2, R1), 5, submit=True)
    b.save(disputed, afp_judgment(2, 2, R2 if same == R1 else R1), 5, submit=True)
    for session in (a, b):
        session.save(agreed, afp_judgment(2, 2, PreferenceChoice.TIE), 5, submit=True)
    runs = db.execute("SELECT run_a_pk, run_b_pk FROM items WHERE code = ?", [disputed]).fetchone()
    adjudicate(
        db, pk, disputed, "carol", afp_judgment(2, 2, R1), {"1": runs[0], "2": runs[1]}, "Why."
    )
    stored = sql.records_of_design(db, pk)

    def at(judged: dict[str, str], adjudicated: str) -> list[float]:
        records = dataclasses.replace(
            stored,
            judgments=tuple(
                j.model_copy(update={"created_at": judged[j.item]}) for j in stored.judgments
            ),
            adjudications=tuple(
                x.model_copy(update={"created_at": adjudicated}) for x in stored.adjudications
            ),
        )
        return final_values(records, [("C", "A")])[0][2]

    times = {disputed: "2026-01-01T00:00:01Z", agreed: "2026-01-01T00:00:02Z"}
    # Judged first, adjudicated after the tie: the adjudicated pick comes last.
    after = at(times, "2026-01-01T00:00:03Z")
    assert len(after) == 2 and after[0] == 0.5 and after[1] in (0.0, 1.0)
    # Adjudicated before the tie's last submission: first, whenever its reviewers submitted.
    assert at(times, "2026-01-01T00:00:01.5Z") == [after[1], 0.5]


def test_a_win_rate_under_a_half_is_read_the_other_way_too(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """The results' answer names the condition ahead first; the watched win rate keeps the
    contrast's order (A against C: 1/3), and says the same figure from C's side."""
    pk = _study(tmp_path, db, 3)
    alice = ReviewSession(db, pk, "alice")
    for row, winner in zip(alice.queue(), ("C", "A", "C"), strict=True):
        _prefer(alice, row.code, winner)
    found = watch(benchmark_records(sql.records_of_design(db, pk)), [("A", "C")])
    figure = found.figures[0]
    assert figure.mean is not None and figure.low is not None and figure.high is not None
    assert figure.mean == pytest.approx(1 / 3)
    (line,) = [x for x in watch_lines(found) if "win rate of A against C" in x]
    other = f"C against A: {1 - figure.mean:.3f}, [{1 - figure.high:.3f}, {1 - figure.low:.3f}]"
    assert line.endswith(f"(read the other way: {other})")
    assert "read the other way" not in "".join(
        watch_lines(watch(benchmark_records(sql.records_of_design(db, pk)), [("C", "A")]))
    )
    assert "pair" not in found.model_dump(mode="json")["figures"][0]
