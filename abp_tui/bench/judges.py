"""``bench judges``: the whole judge report beside Cohen's kappa alone in NumPy.

Generated data (deterministic): 10,000 pairs judged by people, and 5 AI judges each judging every
pair in both presentation orders (100,000 verdicts). Each judge follows the human pick with its
own accuracy and prefers the first position a little; ties and errors appear. Ours: the judge
report (:func:`abp_tui.analysis.judges.judges_report`: every figure of every judge, bootstrap
intervals, alt-test, judge-assisted estimates, agreement between judges) from the verdict rows
as the store hands them over. Baseline: Cohen's kappa alone, written in NumPy (no scikit-learn),
for the same judge x order pairs and between each judge's two orders, on integer arrays built
beforehand (not timed). Runs are interleaved; medians are compared.
"""

from __future__ import annotations

import math
import platform
import statistics
import time
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from abp_tui.analysis.judge_units import Reference, VerdictRow
from abp_tui.analysis.judges import RESAMPLES, judges_report
from abp_tui.models.judges import TIE, Judge

GOAL_RATIO: Final = 3.0
JUDGES: Final = 5
I64 = npt.NDArray[np.int64]


def bench_data(items: int, seed: int) -> tuple[list[VerdictRow], Reference, dict[str, I64]]:
    """(verdict rows, the human reference, integer arrays for the baseline: people's picks and
    each judge x order's, 0 = a, 1 = b, 2 = tie)."""
    rng = np.random.default_rng(seed)
    human = rng.choice(3, size=items, p=[0.45, 0.45, 0.10])
    arrays: dict[str, I64] = {"people": human.astype(np.int64)}
    rows: list[VerdictRow] = []
    runs = [(f"a{i:06d}", f"b{i:06d}") for i in range(items)]
    pairs = {r: (r[0], r[1], TIE)[h] for r, h in zip(runs, human.tolist(), strict=True)}
    for j in range(JUDGES):
        name = f"judge-{j}"
        accuracy = 0.6 + 0.07 * j
        for order, first in ((0, 0), (1, 1)):
            follow = rng.random(items) < accuracy
            noise = rng.choice(3, size=items, p=[0.45, 0.45, 0.10])
            # A little position bias: some wrong picks go to the output shown first.
            biased = rng.random(items) < 0.1
            picks = np.where(follow, human, np.where(biased, first, noise))
            error = rng.random(items) < 0.005
            arrays[f"{name}:{order}"] = picks.astype(np.int64)
            for i, (pick, failed) in enumerate(zip(picks.tolist(), error.tolist(), strict=True)):
                pair = runs[i]
                rows.append(
                    VerdictRow(
                        judge=name,
                        runs=pair,
                        shown_first=pair[first],
                        turn=None,
                        kind="preference",
                        verdict=None if failed else (pair[0], pair[1], TIE)[pick],
                        score=None,
                        error="no verdict" if failed else None,
                    )
                )
    conditions = {r: "A" if r.startswith("a") else "B" for pair in runs for r in pair}
    reference = Reference(name="generated", kind="final", pairs=pairs, conditions=conditions)
    return rows, reference, arrays


def numpy_kappa(x: I64, y: I64, q: int = 3) -> float:
    """Cohen's kappa of two integer-coded label arrays, in NumPy alone."""
    table = np.bincount(x * q + y, minlength=q * q).reshape(q, q) / len(x)
    po = float(np.trace(table))
    pe = float(table.sum(axis=1) @ table.sum(axis=0))
    return (po - pe) / (1 - pe) if pe < 1 else math.nan


def _baseline(arrays: dict[str, I64]) -> list[float]:
    people = arrays["people"]
    out = []
    for j in range(JUDGES):
        first, second = arrays[f"judge-{j}:0"], arrays[f"judge-{j}:1"]
        out.append(numpy_kappa(first, people))
        out.append(numpy_kappa(second, people))
        out.append(numpy_kappa(first, second))
    return out


def bench_judges(
    items: int = 10_000, seed: int = 0, repeat: int = 3, resamples: int = RESAMPLES
) -> dict[str, Any]:
    if min(items, repeat) < 1:
        raise ValueError("items and repeat must be at least 1")
    rows, reference, arrays = bench_data(items, seed)
    judges = [Judge(id=f"judge-{j}", model="generated") for j in range(JUDGES)]
    ours: list[float] = []
    baseline: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        kappas = _baseline(arrays)
        baseline.append(time.perf_counter() - start)
        start = time.perf_counter()
        report = judges_report("bench", judges, rows, reference, resamples=resamples, seed=seed)
        ours.append(time.perf_counter() - start)
    ours_median, base_median = statistics.median(ours), statistics.median(baseline)
    ratio = ours_median / base_median if base_median > 0 else math.inf
    return {
        "benchmark": "judges",
        "items": items,
        "judges": JUDGES,
        "verdicts": len(rows),
        "resamples": resamples,
        "repeat": repeat,
        "seed": seed,
        "ours": "judges_report from the verdict rows: per judge and order (and both orders) "
        "agreement with Wilson intervals and Cohen's kappa with a bootstrap interval "
        f"({resamples} resamples) and confusion matrix, position consistency, kappa between "
        "orders, position bias with an exact binomial test, judge-assisted win rates, every "
        "left-out pair with its reason, agreement between judges",
        "ours_seconds": ours_median,
        "ours_samples": ours,
        "baseline": f"Cohen's kappa alone in NumPy on integer arrays: {len(kappas)} kappas (each "
        "judge's two orders against people, and between its orders)",
        "baseline_seconds": base_median,
        "baseline_samples": baseline,
        "ratio": ratio,
        "goal_ratio": GOAL_RATIO,
        "goal_met": bool(ratio <= GOAL_RATIO),
        "left_out": sum(len(j.left_out) for j in report.judges),
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
