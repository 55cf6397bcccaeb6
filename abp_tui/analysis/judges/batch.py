"""The judge report's kappas and binomial tests, asked for judge by judge and computed together.

A report of five judges asks for thirty-odd Cohen's kappas (each order, both orders, between
orders, between judges) and a position-bias test per judge. :class:`FigureBatch` collects the
requests while each judge's counts are worked out and computes them in one go
(:func:`abp_tui.stats.agreement_batch.pairs_from_counts`,
:func:`abp_tui.stats.binomial_tests.two_sided_p_values`); each request hands back a getter the
judge's report reads once the batch has run. The figures are those of one ``pair_from_counts``
or ``binomial_test`` call per request. Pure.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from abp_tui.analysis.judges.arrays import I64
from abp_tui.stats.agreement import PairAgreement
from abp_tui.stats.agreement_batch import CountTable, pairs_from_counts
from abp_tui.stats.binomial_tests import two_sided_p_values
from abp_tui.stats.inference import NO_OBSERVATIONS, BinomialTest

Settings = tuple[int, int, float]
"""(seed, resamples, confidence)."""


class FigureBatch:
    """Kappa and binomial-test requests; :meth:`run` computes them all."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._tables: list[CountTable] = []
        self._tests: list[tuple[int, int]] = []
        self._kappas: list[PairAgreement] = []
        self._results: list[BinomialTest] = []

    def kappa(
        self, cells: I64, scale: tuple[str, ...], raters: tuple[str, str], variable: str
    ) -> Callable[[], PairAgreement]:
        """Cohen's kappa of the q x q ``cells`` (rows ``raters[0]``), its bootstrap drawn from
        the stream named by ``variable`` and ``raters``."""
        at = len(self._tables)
        self._tables.append(CountTable(cells, scale, raters, variable))
        return lambda: self._kappas[at]

    def binomial(self, successes: int, n: int) -> Callable[[], BinomialTest]:
        """The exact two-sided binomial test of ``successes`` in ``n`` against 0.5."""
        at = len(self._tests)
        self._tests.append((successes, n))
        return lambda: self._results[at]

    def run(self) -> None:
        seed, resamples, confidence = self.settings
        self._kappas = pairs_from_counts(
            self._tables, seed=seed, resamples=resamples, confidence=confidence
        )
        x = np.array([t[0] for t in self._tests], dtype=np.int64)
        n = np.array([t[1] for t in self._tests], dtype=np.int64)
        tested = n > 0
        p_values = np.ones(x.size)
        p_values[tested] = two_sided_p_values(x[tested], n[tested])
        self._results = [
            BinomialTest(x=int(xi), n=int(ni), p0=0.5, p_value=float(p))
            if ni > 0
            else BinomialTest(x=0, n=0, p0=0.5, undefined_reason=NO_OBSERVATIONS)
            for xi, ni, p in zip(x.tolist(), n.tolist(), p_values.tolist(), strict=True)
        ]


__all__ = ["FigureBatch", "Settings"]
