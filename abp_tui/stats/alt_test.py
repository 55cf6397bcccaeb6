"""The Alternative Annotator Test (alt-test): may an AI judge stand in for a human annotator?

Calderon, Reichart and Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge: How to
Statistically Justify Replacing Human Annotators with LLMs", ACL 2025, as their reference
implementation (github.com/nitaytech/AltTest, ``alt_test``) computes it:

- leave one human annotator j out at a time; on each item i that j annotated with at least one
  other human, score how well j's label and the judge's label align with the remaining humans'
  labels: accuracy, the share of the others giving the same label (labels), or minus the root
  mean squared difference to them (scores);
- W^f_ij = 1 when the judge's alignment is at least j's, W^h_ij = 1 when j's is at least the
  judge's (ties count for both); the advantage probability rho_j = mean_i W^f_ij;
- per annotator, a one-sided one-sample t-test of d_i = W^h_ij - W^f_ij against epsilon
  (H0: mean d >= epsilon, i.e. j beats the judge by at least the cost-benefit margin), rejected
  when the judge holds its own; the Benjamini-Yekutieli procedure at q = 0.05 over the
  annotators; the winning rate omega is the share of annotators whose test is rejected, and the
  judge passes when omega >= 0.5. rho, the mean of rho_j, compares judges.
- epsilon: the authors advise 0.2 for expert annotators, 0.15 for skilled annotators and 0.1
  for crowd workers; an annotator with fewer than 30 items is left out (the t-test's normality
  needs them), as in the reference implementation.

Checked against the authors (``tests/test_alt_test_authors.py``): their notebook's printed
winning rates and advantage probabilities on the paper's MT-Bench data (three annotators, six
LLMs), and every per-annotator rho_j, p-value and decision their code gives on the same inputs.
Where this module differs from their code, on purpose: the items are visited sorted (theirs in
dict order; the t-test's sums may then differ in the last bit); with no variance in the
differences the p-value is the t-test's limit, 0 or 1 (SciPy gives the same except at a mean of
exactly epsilon, where it gives NaN and neither rejects); fewer than three human annotators give
no winning rate (their code runs with two, leaving a "group" of one person).

Pure: labels in, a model out. The caller decides which humans and items take part.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any, Final, Literal

import numpy as np
from pydantic import FiniteFloat, NonNegativeInt
from scipy.stats import ttest_1samp

from abp_tui.models.base import Model

DEFAULT_EPSILON: Final = 0.2
"""The authors' advice for expert annotators (0.15 skilled, 0.1 crowd workers)."""
FDR_Q: Final = 0.05
MIN_ITEMS_PER_ANNOTATOR: Final = 30
MIN_HUMANS_PER_ITEM: Final = 2
"""An item enters when at least this many humans labelled it (the left-out one and another)."""
MIN_ANNOTATORS: Final = 3
"""The authors recommend three or more: with two, the 'group' is one person."""
SOURCE: Final = (
    "Calderon, Reichart & Dror (2025), The Alternative Annotator Test for LLM-as-a-Judge, "
    "ACL 2025; the authors' alt_test implementation"
)

Label = Hashable
Alignment = Literal["accuracy", "neg_rmse"]


class AnnotatorTest(Model):
    """One leave-one-annotator-out comparison."""

    annotator: str
    items: NonNegativeInt
    """Items this annotator labelled with at least one other human and the judge."""
    advantage_probability: FiniteFloat | None = None
    """rho_j: the share of those items where the judge aligns with the others at least as well."""
    human_advantage: FiniteFloat | None = None
    """The share where the annotator aligns at least as well as the judge."""
    p_value: FiniteFloat | None = None
    """One-sided t-test of H0: mean(W^h - W^f) >= epsilon."""
    rejected: bool = False
    """H0 rejected after the Benjamini-Yekutieli correction: the judge wins against this one."""
    left_out_reason: str | None = None
    """Why this annotator is in no test (fewer than 30 items...)."""


class AltTest(Model):
    """The alt-test of one judge against a group of human annotators."""

    epsilon: FiniteFloat
    q: FiniteFloat = FDR_Q
    alignment: Alignment
    annotators: tuple[AnnotatorTest, ...]
    tested: NonNegativeInt
    """Annotators with a test (30 or more items)."""
    winning_rate: FiniteFloat | None = None
    """omega: the share of tested annotators the judge wins against."""
    advantage_probability: FiniteFloat | None = None
    """rho: the mean advantage probability over the tested annotators."""
    passed: bool | None = None
    """omega >= 0.5: the judge may replace a human annotator at this epsilon."""
    undefined_reason: str | None = None
    source: str = SOURCE


def benjamini_yekutieli(p_values: list[float], q: float = FDR_Q) -> list[bool]:
    """Which hypotheses the Benjamini-Yekutieli step-up procedure rejects at FDR level q."""
    m = len(p_values)
    if m == 0:
        return []
    order = np.argsort(np.asarray(p_values, dtype=np.float64), kind="stable")
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    thresholds = np.arange(1, m + 1) / m * (q / harmonic)
    below = np.asarray(p_values, dtype=np.float64)[order] <= thresholds
    rejected = [False] * m
    if below.any():
        last = int(np.flatnonzero(below)[-1])
        for index in order[: last + 1]:
            rejected[int(index)] = True
    return rejected


def _alignment(kind: Alignment, value: Label, others: list[Label]) -> float:
    if kind == "accuracy":
        return sum(1 for o in others if o == value) / len(others)
    x = float(value)  # type: ignore[arg-type]
    squares = [(x - float(o)) ** 2 for o in others]  # type: ignore[arg-type]
    return -math.sqrt(sum(squares) / len(others))


def _p_value(differences: list[float], epsilon: float) -> float:
    """One-sided p of H0: mean >= epsilon. With no variance the t-test is undefined; then the
    mean alone decides (p 0 below epsilon, 1 otherwise), as the limit of the test."""
    values = np.asarray(differences, dtype=np.float64)
    if np.all(values == values[0]):
        return 0.0 if values[0] < epsilon else 1.0
    return float(ttest_1samp(values, epsilon, alternative="less").pvalue)


def alt_test(
    humans: Mapping[str, Mapping[Any, Label]],
    judge: Mapping[Any, Label],
    *,
    epsilon: float = DEFAULT_EPSILON,
    alignment: Alignment = "accuracy",
    q: float = FDR_Q,
    min_items: int = MIN_ITEMS_PER_ANNOTATOR,
) -> AltTest:
    """The alt-test of ``judge`` (item -> label) against ``humans`` (annotator -> item -> label).

    Items the judge did not label, and items with fewer than two human labels, are left out.
    """
    if not 0 <= epsilon < 1:
        raise ValueError(f"epsilon must be in [0, 1), got {epsilon}")
    raters: dict[Any, list[str]] = {}
    for name, labels in humans.items():
        for item in labels:
            raters.setdefault(item, []).append(name)
    kept = {i for i, names in raters.items() if len(names) >= MIN_HUMANS_PER_ITEM and i in judge}
    tests: list[AnnotatorTest] = []
    p_values: list[float] = []
    for name in sorted(humans):
        labels = humans[name]
        w_judge: list[float] = []
        w_human: list[float] = []
        for item in sorted(i for i in labels if i in kept):
            others = [humans[o][item] for o in raters[item] if o != name]
            human_score = _alignment(alignment, labels[item], others)
            judge_score = _alignment(alignment, judge[item], others)
            w_judge.append(1.0 if judge_score >= human_score else 0.0)
            w_human.append(1.0 if human_score >= judge_score else 0.0)
        if len(w_judge) < min_items:
            tests.append(
                AnnotatorTest(
                    annotator=name,
                    items=len(w_judge),
                    left_out_reason=f"{len(w_judge)} items with another human and the judge "
                    f"(the test needs {min_items})",
                )
            )
            continue
        diff = [h - f for h, f in zip(w_human, w_judge, strict=True)]
        p = _p_value(diff, epsilon)
        p_values.append(p)
        tests.append(
            AnnotatorTest(
                annotator=name,
                items=len(w_judge),
                advantage_probability=float(np.mean(w_judge)),
                human_advantage=float(np.mean(w_human)),
                p_value=p,
            )
        )
    rejected = iter(benjamini_yekutieli(p_values, q))
    done = tuple(
        t if t.p_value is None else t.model_copy(update={"rejected": next(rejected)}) for t in tests
    )
    tested = [t for t in done if t.p_value is not None]
    base = {"epsilon": epsilon, "q": q, "alignment": alignment, "annotators": done}
    if len(humans) < MIN_ANNOTATORS:
        return AltTest(
            tested=len(tested),
            undefined_reason=f"{len(humans)} human annotators: the alt-test needs "
            f"{MIN_ANNOTATORS} or more",
            **base,
        )
    if not tested:
        return AltTest(
            tested=0,
            undefined_reason=f"no annotator has {min_items} items labelled with another human "
            "and the judge",
            **base,
        )
    omega = sum(t.rejected for t in tested) / len(tested)
    rho = float(np.mean([t.advantage_probability for t in tested]))
    return AltTest(
        tested=len(tested),
        winning_rate=omega,
        advantage_probability=rho,
        passed=omega >= 0.5,
        **base,
    )


__all__ = [
    "DEFAULT_EPSILON",
    "MIN_ANNOTATORS",
    "SOURCE",
    "AltTest",
    "AnnotatorTest",
    "alt_test",
    "benjamini_yekutieli",
]
