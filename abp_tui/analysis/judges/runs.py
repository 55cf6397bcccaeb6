"""Score and pass/fail judges: each verdict on one run measured against people's verdict of the
same run, with masks over the verdict table (:mod:`abp_tui.analysis.judges.arrays`).

- score judges: Spearman's rho and Kendall's tau (SciPy) with people's total scores;
- pass/fail judges: the confusion matrix, sensitivity and specificity (Wilson), agreement and
  Cohen's kappa (:func:`abp_tui.stats.agreement.pair_from_counts`), and each condition's
  judge-assisted pass rate.

Every verdict left out is listed with its reason. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
from scipy.stats import kendalltau, spearmanr

from abp_tui.analysis.judges.arrays import (
    F64,
    FAIL,
    I64,
    NO_TURN,
    PASS,
    Bools,
    VerdictTable,
)
from abp_tui.analysis.judges.estimates import drawn_runs, pass_rates, sampled_runs
from abp_tui.analysis.judges.models import Correlation, PassFailJudgeReport, ScoreJudgeReport
from abp_tui.analysis.judges.pairs import NO_HUMAN, LeftOuts
from abp_tui.analysis.judges.units import Reference, unit_name
from abp_tui.models.judges import Judge
from abp_tui.stats.agreement import pair_from_counts
from abp_tui.stats.inference import wilson

JUDGE: Final = "judge"
PEOPLE: Final = "people"
PASS_SCALE: Final = ("pass", "fail")
SPEARMAN: Final = "scipy.stats.spearmanr (ranks, ties averaged)"
KENDALL: Final = "scipy.stats.kendalltau (tau-b)"


@dataclass(frozen=True, eq=False)
class RunSide:
    """People's side of every run of the table, indexed by its run code."""

    passed: I64
    """1 passed, 0 failed, -1 neither (see ``why``)."""
    listed: Bools
    """People judged the run without a pass or fail (the reference gives a reason)."""
    why: I64
    """Index into ``reasons`` (0: no human verdict)."""
    reasons: tuple[str, ...]
    score: F64
    """People's total score, NaN for none."""
    condition: I64
    """Index into ``conditions``, -1 unknown."""
    conditions: tuple[str, ...]
    sampled: Bools | None = None
    """Per run: it is in the design's calibration sample, or drawn for people under its human
    budget (None: the reference has neither)."""
    probability: F64 | None = None
    """Per run under a human budget: its probability of reaching people (else None)."""


def run_side(table: VerdictTable, reference: Reference) -> RunSide:
    """People's side of the table's runs (one pass over the run ids)."""
    n = len(table.runs)
    passed = np.full(n, -1, dtype=np.int64)
    listed = np.zeros(n, dtype=bool)
    why = np.zeros(n, dtype=np.int64)
    score = np.full(n, np.nan)
    condition = np.full(n, -1, dtype=np.int64)
    reasons = {NO_HUMAN: 0}
    conditions: dict[str, int] = {}
    for r, run in enumerate(table.runs):
        found = reference.runs.get(run)
        if found is not None:
            passed[r] = int(found)
        reason = reference.run_reasons.get(run)
        listed[r] = reason is not None
        why[r] = reasons.setdefault(reason or NO_HUMAN, len(reasons))
        total = reference.scores.get(run)
        if total is not None:
            score[r] = total
        named = reference.conditions.get(run)
        if named is not None:
            condition[r] = conditions.setdefault(named, len(conditions))
    sampled, probability = sampled_runs(table.runs, reference.calibration), None
    if reference.allocation is not None:
        sampled, probability = drawn_runs(table.runs, reference.allocation)
    return RunSide(
        passed,
        listed,
        why,
        tuple(reasons),
        score,
        condition,
        tuple(conditions),
        sampled,
        probability,
    )


def run_names(table: VerdictTable, rows: I64) -> tuple[str, ...]:
    """How a verdict on one run names its unit: the run (and turn)."""
    return tuple(
        unit_name((table.runs[a],), None if t == NO_TURN else t)
        for a, t in zip(table.run_a[rows].tolist(), table.turn[rows].tolist(), strict=True)
    )


def error_mask(table: VerdictTable) -> Bools:
    """Rows whose verdict carries an error."""
    mask = np.zeros(len(table), dtype=bool)
    if table.errors:
        mask[np.fromiter(table.errors, dtype=np.int64, count=len(table.errors))] = True
    return mask


def correlation(name: str, x: F64, y: F64) -> Correlation:
    method = SPEARMAN if name == "spearman" else KENDALL
    n = int(x.size)
    if n < 3:
        return Correlation(
            name=name, n=n, undefined_reason=f"{n} runs: needs 3 or more", method=method
        )
    if np.unique(x).size < 2 or np.unique(y).size < 2:
        return Correlation(
            name=name, n=n, undefined_reason="no variation on one side", method=method
        )
    result = spearmanr(x, y) if name == "spearman" else kendalltau(x, y)
    return Correlation(
        name=name,
        statistic=float(result.statistic),
        p_value=float(result.pvalue),
        n=n,
        method=method,
    )


def _common(
    table: VerdictTable, rows: I64, errors: Bools, figure: str, missing: Bools, side: RunSide
) -> tuple[LeftOuts, Bools]:
    """The reasons every run-level verdict may be left out for, in their order of precedence:
    the run changed, the judge's error, no usable verdict of people. Returns what is kept."""
    left = LeftOuts(table, lambda found: run_names(table, rows[found]))
    stale = ~table.current[rows]
    left.add(figure, "the run changed since", stale)
    rest = ~stale
    failed = rest & errors[rows]
    left.errors(figure, failed, rows)
    rest &= ~failed
    run = table.run_a[rows]
    left.by_reason(figure, rest & missing, side.why[run], side.reasons)
    return left, rest & ~missing


def score_report(
    judge: Judge, table: VerdictTable, rows: I64, side: RunSide, errors: Bools
) -> ScoreJudgeReport:
    people = side.score[table.run_a[rows]]
    left, kept = _common(table, rows, errors, "score", np.isnan(people), side)
    ours = table.score[rows]
    left.add("score", "no score", kept & np.isnan(ours))
    kept &= ~np.isnan(ours)
    x, y = ours[kept], people[kept]
    return ScoreJudgeReport(
        judge=judge,
        verdicts=int(rows.size),
        n=int(x.size),
        spearman=correlation("spearman", x, y),
        kendall=correlation("kendall", x, y),
        left_out=left.models(),
    )


def pass_fail_report(
    judge: Judge,
    table: VerdictTable,
    rows: I64,
    side: RunSide,
    errors: Bools,
    settings: tuple[int, int, float],
) -> PassFailJudgeReport:
    seed, resamples, confidence = settings
    run = table.run_a[rows]
    people = side.passed[run]
    left, kept = _common(table, rows, errors, "pass/fail", people < 0, side)
    verdict = table.verdict[rows]
    decisive = (verdict == PASS) | (verdict == FAIL)
    left.add("pass/fail", "partial credit: neither pass nor fail", kept & ~decisive)
    kept &= decisive
    # judge down the rows, people across the columns: pass, fail
    cells = np.bincount(
        (verdict[kept] == FAIL).astype(np.int64) * 2 + (people[kept] == 0), minlength=4
    ).reshape(2, 2)
    tp, fp, ff, tf = (int(c) for c in cells.reshape(4))
    n = tp + fp + ff + tf
    live = table.current[rows] & ~errors[rows] & decisive & (side.condition[run] >= 0)
    status = np.where(people >= 0, 1, np.where(side.listed[run], -1, 0))
    return PassFailJudgeReport(
        judge=judge,
        verdicts=int(rows.size),
        n=n,
        confusion={"true_pass": tp, "false_pass": fp, "false_fail": ff, "true_fail": tf},
        sensitivity=wilson(tp, tp + ff, confidence=confidence),
        specificity=wilson(tf, tf + fp, confidence=confidence),
        agreement=wilson(tp + tf, n, confidence=confidence),
        kappa=pair_from_counts(
            cells,
            PASS_SCALE,
            (JUDGE, PEOPLE),
            variable=f"{judge.id}: pass",
            seed=seed,
            resamples=resamples,
            confidence=confidence,
        ),
        estimates=pass_rates(
            side.conditions,
            np.where(live, side.condition[run], -1),
            verdict == PASS,
            people,
            status,
            confidence,
            None if side.sampled is None else side.sampled[run],
            None if side.probability is None else side.probability[run],
        ),
        left_out=left.models(),
    )


__all__ = [
    "JUDGE",
    "PASS_SCALE",
    "PEOPLE",
    "RunSide",
    "correlation",
    "error_mask",
    "pass_fail_report",
    "run_names",
    "run_side",
    "score_report",
]
