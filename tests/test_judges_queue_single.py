"""The judge-informed queue of single items (one run, judged pass/fail or scored): what makes the
judges untrustworthy on a run, and fatal criteria matched as words, not as verbatim text."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.judges.arrays import VerdictTable
from abp_tui.analysis.judges.queue import (
    FATAL_NAMED,
    JUDGE_ERROR,
    JUDGES_DISAGREE,
    ORDERS_DISAGREE,
    SCORES_APART,
    WEIGHTS,
    WIDE_SCORE_GAP,
    ScaleKey,
    calibration_sample,
    distrust,
    names_criterion,
    review_order,
)
from abp_tui.analysis.judges.units import VerdictRow
from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.judge_order import review_queue
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import judging
from tests.factories import write_jsonl


def _pass_fail(
    judge: str,
    run: str,
    verdict: str | None,
    *,
    error: str | None = None,
    text: str = "",
    turn: int | None = None,
    current: bool = True,
) -> VerdictRow:
    return VerdictRow(judge, (run,), None, turn, "pass_fail", verdict, None, error, current, text)


def _score(judge: str, run: str, score: float, turn: int | None = None) -> VerdictRow:
    return VerdictRow(judge, (run,), None, turn, "score", None, score, None, True, "")


def _pref(judge: str, a: str, b: str, first: str, winner: str, text: str = "") -> VerdictRow:
    return VerdictRow(judge, (a, b), first, None, "preference", winner, None, None, True, text)


TEN = (1.0, 10.0)
UNIT = (0.0, 1.0)


@pytest.mark.parametrize(
    ("explanation", "criterion", "named"),
    [
        ("Response A invents a figure for revenue.", "Invents a figure.", True),
        ("INVENTS   A\nFIGURE", "invents a figure", True),
        ("It invents a figure.", "  - Invents a figure!  ", True),
        ("(invents a figure)", "Invents a figure.", True),
        ("Response A figured out the revenue.", "Figure", False),
        ("It reinvents a figure.", "Invents a figure.", False),
        ("It invents a figures table.", "Invents a figure.", False),
        ("Invents a date.", "Invents a figure.", False),
        ("Anything at all.", "...", False),
        ("Anything at all.", "", False),
        ("Strasse is misspelt", "STRASSE", True),
        ("Uses 30-day months.", "Uses 30-day", True),
    ],
)
def test_a_fatal_criterion_is_named_as_words(explanation: str, criterion: str, named: bool) -> None:
    assert names_criterion(explanation, criterion) is named


def test_a_pair_is_flagged_when_its_explanation_names_the_criterion_without_its_period() -> None:
    rows = [_pref("j", "x", "y", "x", "x", "Response A invents a figure for revenue.")]
    table = VerdictTable.from_rows(rows)
    assert distrust(table, {("x", "y"): ("Invents a figure.",)}) == {("x", "y"): (FATAL_NAMED,)}
    assert distrust(table, {("x", "y"): ("Invents a figured.",)}) == {}


def test_single_items_get_reasons_of_their_own() -> None:
    rows = [
        # r1: both pass/fail judges pass it; the two score judges are close on their scales.
        _pass_fail("pf1", "r1", "pass"),
        _pass_fail("pf2", "r1", "pass"),
        _score("s10", "r1", 7),
        _score("s1", "r1", 0.7),
        # r2: the pass/fail judges differ.
        _pass_fail("pf1", "r2", "pass"),
        _pass_fail("pf2", "r2", "fail"),
        # r3: partial is a verdict of its own.
        _pass_fail("pf1", "r3", "partial"),
        _pass_fail("pf2", "r3", "pass"),
        # r4: 9 of 1-10 against 0.1 of 0-1: far apart.
        _score("s10", "r4", 9),
        _score("s1", "r4", 0.1),
        # r5: a judge gave no verdict.
        _pass_fail("pf1", "r5", None, error="unparsable: [[maybe]]"),
        _pass_fail("pf2", "r5", "pass"),
        # r6: the explanation names the task's fatal criterion.
        _pass_fail("pf1", "r6", "fail", text="The answer INVENTS a figure, so it fails."),
        # r7: one judge alone: nothing to disagree with.
        _pass_fail("pf1", "r7", "fail"),
        _score("s10", "r7", 1),
    ]
    criteria = {f"r{i}": ("Invents a figure.",) for i in range(1, 8)}
    scales: dict[ScaleKey, tuple[float, float]] = {
        (judge, f"r{i}", None): s for i in range(1, 8) for judge, s in [("s10", TEN), ("s1", UNIT)]
    }
    found = distrust(VerdictTable.from_rows(rows), {}, run_criteria=criteria, scales=scales)
    assert found == {
        ("r2",): (JUDGES_DISAGREE,),
        ("r3",): (JUDGES_DISAGREE,),
        ("r4",): (SCORES_APART,),
        ("r5",): (JUDGE_ERROR,),
        ("r6",): (FATAL_NAMED,),
    }


@pytest.mark.parametrize(
    ("ten", "unit", "apart"),
    [
        (4, 0.0, True),  # 3 of 9 points against 0: a third of the scale
        (3.7, 0.0, True),  # 2.7 of 9: exactly the share counts
        (3.6, 0.0, False),  # 2.6 of 9: under the share
        (10, 0.65, True),  # 1.0 against 0.65 is 0.35 apart
        (10, 0.75, False),
    ],
)
def test_scores_are_far_apart_from_a_stated_share_of_their_scales(
    ten: float, unit: float, apart: bool
) -> None:
    table = VerdictTable.from_rows([_score("s10", "r", ten), _score("s1", "r", unit)])
    scales: dict[ScaleKey, tuple[float, float]] = {("s10", "r", None): TEN, ("s1", "r", None): UNIT}
    assert WIDE_SCORE_GAP == 0.3
    assert distrust(table, {}, scales=scales) == ({("r",): (SCORES_APART,)} if apart else {})


def test_a_judge_without_a_stated_scale_is_placed_on_the_range_of_its_own_scores() -> None:
    rows = [
        # "raw" scores 0 to 100 and states no scale; "ten" states 1 to 10.
        _score("raw", "low", 0),
        _score("raw", "high", 100),
        _score("raw", "r", 80),
        _score("ten", "r", 3),  # 80/100 against 2/9: far apart
        _score("ten", "s", 8),
        _score("raw", "s", 70),  # 7/9 against 0.7: close
        # "flat" states no scale and always gives 5: it is not compared.
        _score("flat", "r", 5),
        _score("flat", "s", 5),
    ]
    scales: dict[ScaleKey, tuple[float, float]] = {("ten", run, None): TEN for run in ("r", "s")}
    assert distrust(VerdictTable.from_rows(rows), {}, scales=scales) == {("r",): (SCORES_APART,)}


def test_only_the_same_turn_of_the_current_run_is_compared() -> None:
    rows = [
        # Two turns of one run: 2 on turn 1 against 9 on turn 2 is no disagreement.
        _score("s10", "r1", 2, turn=1),
        _score("other", "r1", 9, turn=2),
        _pass_fail("pf1", "r1", "pass", turn=1),
        _pass_fail("pf2", "r1", "fail", turn=2),
        # The same turn: they disagree.
        _pass_fail("pf1", "r2", "pass", turn=1),
        _pass_fail("pf2", "r2", "fail", turn=1),
        # A verdict on an earlier version of the run does not count, nor does its error.
        _pass_fail("pf1", "r3", "pass"),
        _pass_fail("pf2", "r3", "fail", current=False),
        _pass_fail("pf3", "r3", None, error="timeout", current=False),
        _pass_fail("pf3", "r4", "fail", text="invents a figure", current=False),
    ]
    scales: dict[ScaleKey, tuple[float, float]] = {("s10", "r1", 1): TEN, ("other", "r1", 2): TEN}
    found = distrust(
        VerdictTable.from_rows(rows), {}, run_criteria={"r4": ("Invents a figure",)}, scales=scales
    )
    assert found == {("r2",): (JUDGES_DISAGREE,)}


def test_a_design_of_pairs_and_single_items_orders_both() -> None:
    items = [
        ("P1", ("x1", "y1")),  # j1's two orders disagree
        ("P2", ("x2", "y2")),  # agreed
        ("S1", ("x1",)),  # pass/fail judges differ
        ("S2", ("y1",)),  # a judge's error
        ("S3", ("x2",)),  # its explanation names the criterion
        ("S4", ("y2",)),  # agreed
    ]
    rows = [
        _pref("j1", "x1", "y1", "x1", "x1"),
        _pref("j1", "x1", "y1", "y1", "y1"),
        _pref("j1", "x2", "y2", "x2", "x2"),
        _pref("j1", "x2", "y2", "y2", "x2"),
        _pass_fail("pf1", "x1", "pass"),
        _pass_fail("pf2", "x1", "fail"),
        _pass_fail("pf1", "y1", None, error="refused"),
        _pass_fail("pf1", "x2", "fail", text="Fabricates a key fact absent from the fixture"),
        _pass_fail("pf1", "y2", "pass"),
        _pass_fail("pf2", "y2", "pass"),
    ]
    fatal = ("Fabricates a key fact absent from the fixture.",)
    # The pair's own criteria do not reach its runs' single items, nor the other way round.
    table = VerdictTable.from_rows(rows)
    pairs = {("x2", "y2"): fatal}
    singles = {"x2": fatal, "y2": ()}
    order = review_order(items, table, pairs, share=None, seed=3, run_criteria=singles)
    assert [q.code for q in order] == ["S3", "P1", "S1", "S2", "P2", "S4"]
    reasons = {q.code: q.reasons for q in order}
    assert reasons == {
        "P1": (ORDERS_DISAGREE,),
        "P2": (),
        "S1": (JUDGES_DISAGREE,),
        "S2": (JUDGE_ERROR,),
        "S3": (FATAL_NAMED,),
        "S4": (),
    }
    sampled = review_order(items, table, pairs, share=0.5, seed=3, run_criteria=singles)
    head = [q.code for q in sampled[:3]]
    assert all(q.calibration for q in sampled[:3]) and not any(q.calibration for q in sampled[3:])
    assert set(head) == calibration_sample([c for c, _r in items], 0.5, 3)


# -- in a stored design -----------------------------------------------------------------------
TASKS = [f"t{i:02d}" for i in range(1, 11)]
SCORES = {"t03": (9.0, 0.1), "t04": (5.0, 0.45)}
"""Task -> (score on 1-10, score on 0-1); the other runs get (6, 0.6). On their stated scales
t04's scores are close (4/9 against 0.45); on the ranges the scores span (5-9, 0.1-0.6) they
would be 0 against 0.7: the stated scale must be the one read."""
AFP_FATAL = "The answer fabricates a key fact absent from the fixture (the 2019 revenue)."


def _single_study(tmp_path: Path, db: sqlite_utils.Database) -> None:
    lines: list[dict[str, object]] = [{"type": "study", "id": "singles"}]
    for judge in ("pf-1", "pf-2", "score-ten", "score-unit"):
        lines.append({"type": "judge", "id": judge, "model": f"model-{judge}"})
    for t in TASKS:
        run = f"{t}-A"
        lines.append({"type": "task", "id": t, "prompt": f"Answer {t}."})
        lines.append({"type": "run", "id": run, "task_id": t, "condition_id": "A", "output": t})
        common = {"type": "judge_verdict", "task_id": t, "run": run}
        first: dict[str, object] = {"verdict": "pass"}
        if t == "t05":
            first = {"error": "unparsable: [[maybe]]"}
        elif t == "t06":
            first = {"verdict": "fail", "explanation": AFP_FATAL}
        lines.append({**common, "judge": "pf-1", **first})
        second = "fail" if t in ("t02", "t06") else "pass"  # t06: both fail it
        lines.append({**common, "judge": "pf-2", "verdict": second})
        ten, unit = SCORES.get(t, (6.0, 0.6))
        lines.append({**common, "judge": "score-ten", "score": ten, "scale": [1, 10]})
        lines.append({**common, "judge": "score-unit", "score": unit, "scale": [0, 1]})
    import_paths(db, [write_jsonl(tmp_path / "singles.jsonl", lines)])


def _single_design(calibration: float | None) -> StudyDesign:
    return StudyDesign(
        study="singles",
        name="scored",
        seed=41,
        rubric="afp-v0.1",
        contrasts="none",
        single_items=True,
        reviewers=["alice"],
        calibration_sample=calibration,
    )


def test_a_single_item_design_queues_the_distrusted_runs_first(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _single_study(tmp_path, db)
    pk = create_design(db, _single_design(0.2)).pk
    task = {item.code: item.task for item in judging.items(db, pk)}
    assert len(task) == len(TASKS) and all(code.startswith("S-") for code in task)
    queued = {q.code: q for q in review_queue(db, pk)}
    reasons = {task[c]: q.reasons for c, q in queued.items()}
    expected = {
        "t02": (JUDGES_DISAGREE,),
        "t03": (SCORES_APART,),
        "t05": (JUDGE_ERROR,),
        "t06": (FATAL_NAMED,),  # the rubric's general criterion, its period left out
    }
    assert reasons == {t: expected.get(t, ()) for t in TASKS}
    sample = {c for c, q in queued.items() if q.calibration}
    assert len(sample) == math.ceil(0.2 * len(TASKS))
    # The order written when the design was created: the calibration items, then by distrust.
    order = [row.code for row in ReviewSession(db, pk, "alice").queue()]
    assert set(order[: len(sample)]) == sample
    weights = [sum(WEIGHTS[r] for r in queued[c].reasons) for c in order[len(sample) :]]
    assert weights == sorted(weights, reverse=True) and weights[0] > 0 and weights[-1] == 0
