"""The judge report's batched arithmetic gives what one call per figure gives.

- ``pairs_from_counts``: each table's ``pair_from_counts`` model, field for field (bootstrap
  intervals included: the same per-pair draws), over tables of every shape, the degenerate ones
  (no items, one item, one category, perfect agreement, one column) too;
- ``two_sided_p_values``: ``scipy.stats.binomtest(k, n, p).pvalue``, exactly, at both tails,
  the mode and the ends.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from abp_tui.stats.agreement import pair_from_counts
from abp_tui.stats.agreement_batch import CountTable, pairs_from_counts
from abp_tui.stats.binomial_tests import two_sided_p_values


def _tables() -> list[CountTable]:
    rng = np.random.default_rng(3)
    out = []
    for i in range(120):
        q = int(rng.integers(1, 4))
        kind = i % 6
        if kind == 0:
            counts = rng.integers(0, 50, (q, q))
        elif kind == 1:  # perfect agreement: the bootstrap bounds coincide
            counts = np.diag(rng.integers(0, 30, q))
        elif kind == 2:  # no item or one item
            counts = np.zeros((q, q), dtype=np.int64)
            counts[0, 0] = int(rng.integers(0, 2))
        elif kind == 3:  # few items: many resamples have chance agreement 1
            counts = rng.integers(0, 3, (q, q))
        elif kind == 4:  # one reviewer uses one category
            counts = np.zeros((q, q), dtype=np.int64)
            counts[:, 0] = rng.integers(0, 20, q)
        else:
            counts = rng.integers(0, 4000, (q, q))
        scale = ("a", "b", "tie")[:q]
        out.append(
            CountTable(counts.astype(np.int64), scale, (f"judge {i}", "people"), f"v{i % 7}")
        )
    # A scale of nine categories (past the common case: pair_from_counts computes it).
    wide = rng.integers(0, 40, (9, 9)).astype(np.int64)
    out.append(CountTable(wide, tuple(range(1, 10)), ("judge 9", "people"), "score"))
    return out


@pytest.mark.parametrize(("resamples", "confidence"), [(1000, 0.95), (0, 0.95), (137, 0.9)])
def test_each_table_gets_what_pair_from_counts_gives(resamples: int, confidence: float) -> None:
    tables = _tables()
    got = pairs_from_counts(tables, seed=11, resamples=resamples, confidence=confidence)
    assert len(got) == len(tables)
    for table, pair in zip(tables, got, strict=True):
        alone = pair_from_counts(
            table.counts,
            table.categories,
            table.reviewers,
            variable=table.variable,
            seed=11,
            resamples=resamples,
            confidence=confidence,
        )
        assert pair == alone
        assert pair.model_dump(mode="json") == alone.model_dump(mode="json")
        assert pair.model_dump(exclude_unset=True) == alone.model_dump(exclude_unset=True)
    if not resamples:
        assert all(p.cohen_kappa.interval is None for p in got)
        return
    defined = [p for p in got if p.cohen_kappa.interval is not None]
    refused = [p for p in got if (p.cohen_kappa.interval_note or "").startswith("undefined")]
    assert defined and refused  # both paths of the interval are exercised


def test_a_tables_interval_does_not_depend_on_the_others_in_the_batch() -> None:
    tables = _tables()
    alone = pairs_from_counts(tables[5:6], seed=2, resamples=200)
    assert pairs_from_counts(tables, seed=2, resamples=200)[5] == alone[0]


@pytest.mark.parametrize("p", [0.5, 0.3, 0.9, 0.01])
def test_binomial_p_values_are_scipys_binomtest(p: float) -> None:
    rng = np.random.default_rng(1)
    n = np.r_[rng.integers(1, 3000, 300), [1, 2, 3, 10, 20_000, 17_001]]
    k = np.minimum((rng.random(n.size) * (n + 1)).astype(np.int64), n)
    k[:20], k[20:40], k[40:60] = 0, n[20:40], np.round(p * n[40:60])
    got = two_sided_p_values(k, n, p)
    want = [
        binomtest(int(x), int(m), p, alternative="two-sided").pvalue
        for x, m in zip(k, n, strict=True)
    ]
    assert got.tolist() == want


def test_binomial_p_values_refuse_impossible_counts() -> None:
    with pytest.raises(ValueError, match="n >= 1"):
        two_sided_p_values([3], [2])
    with pytest.raises(ValueError, match="n >= 1"):
        two_sided_p_values([0], [0])
    assert two_sided_p_values([], []).size == 0
