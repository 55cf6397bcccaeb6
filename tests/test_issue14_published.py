"""Figures of ``abp-tui stats`` against values printed in a well-kept package's documentation.

Source: R's documentation of ``binom.test`` (package stats), its example of Mendel's peas
(Conover 1971, p. 97f.): ``binom.test(c(682, 243), p = 3/4)`` prints "p-value = 0.3825". The
two-sided p of R and of ``scipy.stats.binomtest`` is the same rule (the outcomes no more likely
than the one observed), so the figure is the same away from p0 = 0.5, where the tails differ.
"""

from __future__ import annotations

import json

import pytest

from abp_tui.cli import main


def test_binomial_reproduces_r_binom_test_mendels_peas(
    capsys: pytest.CaptureFixture[str],
) -> None:
    capsys.readouterr()
    assert main(["stats", "binomial", "682", "925", "--p", "0.75", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["x"], doc["n"], doc["p0"]) == (682, 925, 0.75)
    assert round(doc["p_value"], 4) == 0.3825
    assert "exact two-sided" in doc["convention"]
