"""Cohen's kappa from a confusion matrix's cell counts (``pair_from_counts``): a published worked
example, and the very figures (bootstrap draws included) that every reviewer pair gets from its
judgments."""

from __future__ import annotations

import numpy as np
import pytest

from abp_tui.stats.agreement import AgreementError, compute_variable, pair_from_counts


def test_the_published_worked_example() -> None:
    # Wikipedia, "Cohen's kappa", simple example: 50 applications, A and B both say yes to 20,
    # A yes and B no to 5, A no and B yes to 10, both no to 15: p_o = 0.7, p_e = 0.5, kappa = 0.4.
    pair = pair_from_counts([[20, 5], [10, 15]], ("yes", "no"))
    kappa = pair.cohen_kappa
    assert kappa.value == pytest.approx(0.4, abs=1e-12)
    assert kappa.observed_agreement == pytest.approx(0.7, abs=1e-12)
    assert kappa.chance_agreement == pytest.approx(0.5, abs=1e-12)
    assert pair.n_items == 50 and pair.matrix().counts == ((20, 5), (10, 15))


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_the_same_figures_as_the_reviewer_pair(level: str) -> None:
    rng = np.random.default_rng(5)
    scale = (0, 1, 2)
    a = rng.integers(0, 3, 400)
    b = np.where(rng.random(400) < 0.6, a, rng.integers(0, 3, 400))
    records = [(str(i), "ann", int(x)) for i, x in enumerate(a)]
    records += [(str(i), "bo", int(y)) for i, y in enumerate(b)]
    (expected,) = compute_variable(
        records, level, scale, variable="v", seed=9, resamples=0, pair_resamples=300
    ).pairs
    counts = np.bincount(a * 3 + b, minlength=9).reshape(3, 3)
    found = pair_from_counts(
        counts, scale, ("ann", "bo"), level=level, variable="v", seed=9, resamples=300
    )
    assert found == expected
    assert found.cohen_kappa.interval is not None  # the bootstrap was drawn, and matches


def test_a_matrix_that_does_not_fit_is_refused() -> None:
    with pytest.raises(AgreementError, match="2 x 2"):
        pair_from_counts([[1, 2, 3]], ("yes", "no"))
    with pytest.raises(AgreementError, match="non-negative integer"):
        pair_from_counts([[1, -2], [3, 4]], ("yes", "no"))
