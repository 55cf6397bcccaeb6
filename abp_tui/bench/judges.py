"""``bench judges``: the whole judge report beside Cohen's kappa alone in NumPy.

Generated data (deterministic): 10,000 pairs judged by people, and 5 AI judges each judging every
pair in both presentation orders (100,000 verdicts). Each judge follows the human pick with its
own accuracy and prefers the first position a little; ties and errors appear.

- Ours: the judge report (:func:`abp_tui.analysis.judges.report.judges_report`: every figure of
every
  judge, bootstrap intervals, alt-test note, judge-assisted estimates, every left-out pair with
  its reason, agreement between judges) from the verdicts as the store hands them over, a
  :class:`~abp_tui.analysis.judges.arrays.VerdictTable` (built beforehand, not timed).
- Baseline: Cohen's kappa alone, written in NumPy (no scikit-learn), for each kappa the report
  gives (each judge's two orders and both orders against people, its two orders against each
  other, each pair of judges), on integer arrays built beforehand (not timed).
- Floor: the bootstrap's multinomial draws alone (the same tables, the same per-pair seeded
  generators, the same resamples), the part of ours no rearrangement of the arithmetic can
  remove: an exact 1000-resample bootstrap of each kappa costs at least this.
- Without bootstrap: the same report with no resamples, so the part of ours beside the
  bootstrap is measured on its own.
- Also: the store reading the same verdicts from SQLite into that table
  (:func:`abp_tui.store.judges.verdict_table`), beside a bare ``SELECT ... fetchall()`` of
  their stored columns (:mod:`abp_tui.bench.judges_store`), so the part before the report is
  measured too.

Runs are interleaved (after one untimed report, which also names the tables the floor
draws); medians are compared.
"""

from __future__ import annotations

import itertools
import math
import platform
import statistics
import time
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from abp_tui.analysis.judges.arrays import NO_VERDICT, PREFERENCE, VerdictTable
from abp_tui.analysis.judges.pairs import left_out_count
from abp_tui.analysis.judges.report import (
    RESAMPLES,
    JudgesReport,
    PreferenceJudgeReport,
    judges_report,
)
from abp_tui.analysis.judges.units import Reference
from abp_tui.models.judges import TIE, Judge
from abp_tui.stats.agreement import PairAgreement
from abp_tui.stats.agreement_data import generator

GOAL_RATIO: Final = 3.0
JUDGES: Final = 5
I64 = npt.NDArray[np.int64]


def bench_data(items: int, seed: int) -> tuple[VerdictTable, Reference, dict[str, I64]]:
    """(the verdict table, the human reference, integer arrays for the baseline: people's picks
    and each judge x order's, 0 = a, 1 = b, 2 = tie). Pair i is runs ``a{i}`` and ``b{i}``."""
    rng = np.random.default_rng(seed)
    human = rng.choice(3, size=items, p=[0.45, 0.45, 0.10])
    arrays: dict[str, I64] = {"people": human.astype(np.int64)}
    picks, errors, swapped, judge = [], [], [], []
    for j in range(JUDGES):
        accuracy = 0.6 + 0.07 * j
        for first in (0, 1):
            follow = rng.random(items) < accuracy
            noise = rng.choice(3, size=items, p=[0.45, 0.45, 0.10])
            # A little position bias: some wrong picks go to the output shown first.
            biased = rng.random(items) < 0.1
            pick = np.where(follow, human, np.where(biased, first, noise)).astype(np.int64)
            arrays[f"judge-{j}:{first}"] = pick
            picks.append(pick)
            errors.append(rng.random(items) < 0.005)
            swapped.append(np.full(items, bool(first)))
            judge.append(np.full(items, j, dtype=np.int64))
    failed = np.concatenate(errors)
    pair = np.tile(np.arange(items, dtype=np.int64), 2 * JUDGES)
    n = pair.size
    table = VerdictTable(
        judges=tuple(f"judge-{j}" for j in range(JUDGES)),
        runs=tuple(f"{side}{i:06d}" for i in range(items) for side in "ab"),
        judge=np.concatenate(judge),
        run_a=2 * pair,
        run_b=2 * pair + 1,
        swapped=np.concatenate(swapped),
        turn=np.full(n, -1, dtype=np.int64),
        kind=np.full(n, PREFERENCE, dtype=np.int64),
        verdict=np.where(failed, NO_VERDICT, np.concatenate(picks)),
        score=np.full(n, np.nan),
        current=np.ones(n, dtype=bool),
        errors=dict.fromkeys(np.flatnonzero(failed).tolist(), "no verdict"),
    )
    pairs = {
        (f"a{i:06d}", f"b{i:06d}"): (f"a{i:06d}", f"b{i:06d}", TIE)[h]
        for i, h in enumerate(human.tolist())
    }
    conditions = {run: "A" if run.startswith("a") else "B" for run in table.runs}
    reference = Reference(name="generated", kind="final", pairs=pairs, conditions=conditions)
    return table, reference, arrays


def numpy_kappa(x: I64, y: I64, q: int = 3) -> float:
    """Cohen's kappa of two integer-coded label arrays, in NumPy alone."""
    table = np.bincount(x * q + y, minlength=q * q).reshape(q, q) / len(x)
    po = float(np.trace(table))
    pe = float(table.sum(axis=1) @ table.sum(axis=0))
    return (po - pe) / (1 - pe) if pe < 1 else math.nan


def _baseline(arrays: dict[str, I64]) -> list[float]:
    """The report's 30 kappas, each alone: per judge its two orders and both orders (a pair
    whose orders differ coded 3) against people and its orders against each other; each pair
    of judges in the original order. Every pair counts (nothing is left out)."""
    people = arrays["people"]
    out = []
    for j in range(JUDGES):
        first, second = arrays[f"judge-{j}:0"], arrays[f"judge-{j}:1"]
        out.append(numpy_kappa(first, people))
        out.append(numpy_kappa(second, people))
        out.append(numpy_kappa(np.where(first == second, first, 3), people, 4))
        out.append(numpy_kappa(first, second))
    for j, k in itertools.combinations(range(JUDGES), 2):
        out.append(numpy_kappa(arrays[f"judge-{j}:0"], arrays[f"judge-{k}:0"]))
    return out


def bootstrapped_kappas(report: JudgesReport) -> list[tuple[tuple[str, ...], PairAgreement]]:
    """Every kappa of the report with the name of its bootstrap stream (variable, raters)."""
    out: list[tuple[tuple[str, ...], PairAgreement]] = []
    for j in report.judges:
        if isinstance(j, PreferenceJudgeReport):
            for o in j.orders:
                out.append(((f"{j.judge.id}: {o.order}",), o.kappa))
            if j.position.kappa_between_orders is not None:
                out.append(((f"{j.judge.id}: between orders",), j.position.kappa_between_orders))
    for between in report.between:
        out.extend(((between.kind,), pair) for pair in between.pairs)
    return [((variable, pair.reviewer_a, pair.reviewer_b), pair) for (variable,), pair in out]


def floor_tables(
    report: JudgesReport, resamples: int
) -> list[tuple[tuple[str, ...], int, npt.NDArray[np.float64]]]:
    """(stream, n, cell probabilities) of every kappa in ``report`` the bootstrap resamples."""
    out = []
    for stream, pair in bootstrapped_kappas(report):
        cells = np.asarray(pair.matrix().counts, dtype=np.int64).reshape(-1)
        n = int(cells.sum())
        if n >= 2 and resamples:
            out.append((stream, n, cells[cells > 0] / n))
    return out


def draw_floor(
    tables: list[tuple[tuple[str, ...], int, npt.NDArray[np.float64]]], seed: int, resamples: int
) -> int:
    """Draw the tables' bootstrap resamples as the report draws them (one multinomial of the
    occupied cells per table, from its own generator); the tables drawn."""
    for stream, n, p in tables:
        generator(seed, *stream).multinomial(n, p, size=resamples)
    return len(tables)


def bench_judges(
    items: int = 10_000,
    seed: int = 0,
    repeat: int = 3,
    resamples: int = RESAMPLES,
    store: bool = True,
) -> dict[str, Any]:
    if min(items, repeat) < 1:
        raise ValueError("items and repeat must be at least 1")
    table, reference, arrays = bench_data(items, seed)
    judges = [Judge(id=name, model="generated") for name in table.judges]
    report = judges_report("bench", judges, table, reference, resamples=resamples, seed=seed)
    drawn = floor_tables(report, resamples)
    ours: list[float] = []
    baseline: list[float] = []
    floor: list[float] = []
    unbootstrapped: list[float] = []
    tables = 0
    for _ in range(repeat):
        start = time.perf_counter()
        kappas = _baseline(arrays)
        baseline.append(time.perf_counter() - start)
        start = time.perf_counter()
        report = judges_report("bench", judges, table, reference, resamples=resamples, seed=seed)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        tables = draw_floor(drawn, seed, resamples)
        floor.append(time.perf_counter() - start)
        start = time.perf_counter()
        judges_report("bench", judges, table, reference, resamples=0, seed=seed)
        unbootstrapped.append(time.perf_counter() - start)
    ours_median, base_median = statistics.median(ours), statistics.median(baseline)
    floor_median = statistics.median(floor)
    bare_median = statistics.median(unbootstrapped)
    ratio = ours_median / base_median if base_median > 0 else math.inf
    found: dict[str, Any] = {
        "benchmark": "judges",
        "items": items,
        "judges": JUDGES,
        "verdicts": len(table),
        "resamples": resamples,
        "repeat": repeat,
        "seed": seed,
        "ours": "judges_report from the verdict table as the store hands it over: per judge and "
        "order (and both orders) agreement with Wilson intervals and Cohen's kappa with a "
        f"bootstrap interval ({resamples} resamples) and confusion matrix, position "
        "consistency, kappa between orders, position bias with an exact binomial test, "
        "judge-assisted win rates, every left-out pair with its reason, agreement between "
        "judges",
        "ours_seconds": ours_median,
        "ours_samples": ours,
        "baseline": f"Cohen's kappa alone in NumPy on integer arrays: {len(kappas)} kappas, the "
        "report's (each judge's two orders and both orders against people, between its orders, "
        "and each pair of judges), every pair counted",
        "baseline_seconds": base_median,
        "baseline_samples": baseline,
        "ratio": ratio,
        "floor": f"the bootstrap's multinomial draws alone: {tables} tables x {resamples} "
        "resamples, the same generators as ours (what an exact bootstrap of every kappa costs "
        "whatever else is done)",
        "floor_seconds": floor_median,
        "floor_samples": floor,
        "floor_ratio": floor_median / base_median if base_median > 0 else math.inf,
        "ours_over_floor": ours_median / floor_median if floor_median > 0 else math.inf,
        "without_bootstrap": "the same report with no resamples: every figure but the "
        "bootstrap intervals (each kappa keeps its large-sample interval)",
        "without_bootstrap_seconds": bare_median,
        "without_bootstrap_samples": unbootstrapped,
        "without_bootstrap_ratio": bare_median / base_median if base_median > 0 else math.inf,
        "goal_ratio": GOAL_RATIO,
        "goal_met": bool(ratio <= GOAL_RATIO),
        "left_out": sum(left_out_count(j.left_out) for j in report.judges),
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
    if store:
        from abp_tui.bench.judges_store import bench_store_read

        found["store_read"] = bench_store_read(table, repeat)
    return found
