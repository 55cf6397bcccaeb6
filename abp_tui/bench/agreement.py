"""``bench agreement``: every agreement figure beside the ``krippendorff`` package's alpha alone.

Both run on the same generated judgments (items x reviewers x variables, deterministic).
"""

from __future__ import annotations

import math
import platform
import statistics
import time
from importlib.metadata import version as _dist_version
from typing import Any, Final

import krippendorff
import numpy as np

from abp_tui.stats.agreement import (
    BENCH_GOAL_RATIO,
    DEFAULT_PAIR_RESAMPLES,
    DEFAULT_RESAMPLES,
    F64,
    AgreementReport,
    Category,
    Level,
    Observation,
    compute_all,
    is_number,
)

_BENCH_VARIABLES: Final[tuple[tuple[str, Level, tuple[Category, ...]], ...]] = (
    # The kinds of variable the agreement report covers: a rubric dimension, the total score,
    # the result state, a fatal flag and the preference.
    ("correctness", "ordinal", (0, 1, 2)),
    ("total", "interval", (0, 1, 2, 3, 4, 5, 6)),
    ("result_state", "nominal", ("PASS", "FAIL", "PARTIAL", "INFRA_ERROR", "GRADER_DISPUTE")),
    ("fatal_flag", "nominal", ("no", "yes")),
    ("preference", "nominal", ("A", "B", "tie")),
)


def bench_data(
    items: int, reviewers: int, variables: int, seed: int
) -> tuple[
    dict[str, list[Observation]],
    dict[str, Level],
    dict[str, tuple[Category, ...]],
    dict[str, tuple[F64, F64]],
]:
    """Synthetic judgments: each item has a true category; a reviewer reports it with p = 0.7,
    else a uniformly random category, and leaves 5% of judgments blank (value None)."""
    rng = np.random.default_rng(seed)
    records: dict[str, list[Observation]] = {}
    levels: dict[str, Level] = {}
    scales: dict[str, tuple[Category, ...]] = {}
    matrices: dict[str, tuple[F64, F64]] = {}
    item_ids = [f"item-{i:06d}" for i in range(items)]
    reviewer_ids = [f"reviewer-{r}" for r in range(reviewers)]
    for j in range(variables):
        base_name, level, scale = _BENCH_VARIABLES[j % len(_BENCH_VARIABLES)]
        name = (
            base_name if j < len(_BENCH_VARIABLES) else f"{base_name}_{j // len(_BENCH_VARIABLES)}"
        )
        q = len(scale)
        skew = rng.dirichlet(np.ones(q) * 2)
        truth = rng.choice(q, size=items, p=skew)
        noise = rng.integers(0, q, size=(reviewers, items))
        agree = rng.random((reviewers, items)) < 0.7
        codes = np.where(agree, truth[None, :], noise)
        blank = rng.random((reviewers, items)) < 0.05
        cats = list(scale)
        rows: list[Observation] = []
        for i in range(items):
            for r in range(reviewers):
                rows.append(
                    (item_ids[i], reviewer_ids[r], None if blank[r, i] else cats[codes[r, i]])
                )
        records[name] = rows
        levels[name] = level
        scales[name] = scale
        numeric = all(is_number(c) for c in scale)
        domain = np.array(scale, dtype=np.float64) if numeric else np.arange(q, dtype=np.float64)
        matrix = domain[codes].astype(np.float64)
        matrix[blank] = np.nan
        matrices[name] = (matrix, domain)
    return records, levels, scales, matrices


def bench_agreement(
    items: int = 10_000,
    reviewers: int = 3,
    variables: int = 5,
    seed: int = 0,
    repeat: int = 3,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
) -> dict[str, Any]:
    """Time ``compute_all`` (every figure, bootstrap included) beside krippendorff.alpha alone.

    Both run on the same generated judgments: ours from the long table of (item, reviewer,
    value) records, as the CLI and the study code hand them over, the baseline from the
    reviewer x item matrix the package takes (built beforehand, not timed), once per variable.
    Runs are interleaved so that drift in the machine's speed touches both; medians are
    compared. Our alpha values are checked against the package's on the same data. Returns a
    JSON-able dict.
    """
    if min(items, reviewers, variables, repeat) < 1:
        raise ValueError("items, reviewers, variables and repeat must be at least 1")
    records, levels, scales, matrices = bench_data(items, reviewers, variables, seed)
    ours: list[float] = []
    ours_plain: list[float] = []
    baseline: list[float] = []
    report: AgreementReport | None = None
    package_alpha: dict[str, float] = {}
    for _ in range(repeat):
        start = time.perf_counter()
        for name, (matrix, domain) in matrices.items():
            package_alpha[name] = float(
                krippendorff.alpha(
                    reliability_data=matrix, value_domain=domain, level_of_measurement=levels[name]
                )
            )
        baseline.append(time.perf_counter() - start)
        start = time.perf_counter()
        report = compute_all(
            records, levels, scales, seed, resamples=resamples, pair_resamples=pair_resamples
        )
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        compute_all(records, levels, scales, seed, resamples=0, pair_resamples=0)
        ours_plain.append(time.perf_counter() - start)
    assert report is not None
    ours_median = statistics.median(ours)
    base_median = statistics.median(baseline)
    ratio = ours_median / base_median if base_median > 0 else math.inf
    differences = [
        abs((v.krippendorff_alpha.value or math.nan) - package_alpha[v.variable])
        for v in report.variables
    ]
    largest = max(differences)
    return {
        "benchmark": "agreement",
        "items": items,
        "reviewers": reviewers,
        "variables": variables,
        "levels": dict(levels),
        "judgments": sum(v.n_judgments for v in report.variables),
        "resamples": resamples,
        "pair_resamples": pair_resamples,
        "repeat": repeat,
        "seed": seed,
        "ours": "compute_all from (item, reviewer, value) records: percent agreement, Fleiss' "
        "kappa (classic and generalized), Krippendorff's alpha, Gwet's AC1 and AC2, and per "
        "reviewer pair Cohen's kappa (unweighted, linear, quadratic) with its confusion matrix; "
        f"bootstrap intervals: {resamples} resamples for the multi-reviewer figures, "
        f"{pair_resamples} for each pair's",
        "ours_seconds": ours_median,
        "ours_samples": ours,
        "ours_without_bootstrap_seconds": statistics.median(ours_plain),
        "baseline": f"krippendorff {_dist_version('krippendorff')} alpha alone, once per "
        "variable, on the prepared reviewer x item matrix",
        "baseline_seconds": base_median,
        "baseline_samples": baseline,
        "ratio": ratio,
        "goal_ratio": BENCH_GOAL_RATIO,
        "goal_met": bool(ratio <= BENCH_GOAL_RATIO),
        "alpha_max_abs_difference_from_package": largest if math.isfinite(largest) else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
