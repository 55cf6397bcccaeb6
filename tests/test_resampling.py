"""No "95%" bootstrap interval from 1 or 2 resamples: one rule for every bootstrap, refused on
the command line as a usage error and in the core as a clear message."""

from __future__ import annotations

import numpy as np
import pytest

from abp_tui.analysis.ranking.fit import A_WON, B_WON, NoRanking, Votes, rank
from abp_tui.errors import AbpError
from abp_tui.services.table_agreement import check_settings
from abp_tui.stats.agreement import compute_variable
from abp_tui.stats.inference import relative_median_difference
from abp_tui.stats.ranking import Segments
from abp_tui.stats.ranking import task_bootstrap as ranking_bootstrap
from abp_tui.stats.resampling import MIN_RESAMPLES, resamples_refusal
from abp_tui.stats.task_bootstrap import task_bootstrap
from tests.factories import Cli

RECORDS = [(f"i{k}", r, (k + (r == "b") * (k % 3 == 0)) % 2) for k in range(30) for r in "ab"]


def _votes() -> Votes:
    rows = [(f"t{k}", "x", "y", A_WON if k % 3 else B_WON, 10.0, 12.0) for k in range(30)]
    return Votes.from_rows(rows)


def test_the_rule_allows_none_or_at_least_the_minimum() -> None:
    assert MIN_RESAMPLES == 100
    assert resamples_refusal(0) is None and resamples_refusal(100) is None
    assert resamples_refusal(1000) is None
    for bad in (1, 2, 99, -1):
        refusal = resamples_refusal(bad)
        assert refusal is not None and "0 (no interval) or at least 100" in refusal


@pytest.mark.parametrize(
    "argv",
    [
        ("ranking", "--resamples", "1"),
        ("agreement", "--resamples", "2"),
        ("agreement", "--pair-resamples", "5"),
        ("judges", "--resamples", "99"),
        ("agreement", "--pair-resamples", "-5"),
    ],
)
def test_the_command_line_refuses_too_few_resamples_in_one_line(
    cli: Cli, argv: tuple[str, ...]
) -> None:
    # A number out of an option's range is bad input (exit 1), refused before anything is read.
    result = cli(*argv)
    assert result.code == 1 and result.out == ""
    (line,) = result.err.splitlines()
    assert line.startswith(f"abp-tui: {argv[1]}: ") and "at least 100" in line


def test_resamples_that_are_no_number_are_a_usage_error(
    cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        cli("agreement", "--resamples", "many")
    assert exc.value.code == 2
    assert "--resamples" in capsys.readouterr().err


def test_every_bootstrap_refuses_too_few_resamples() -> None:
    with pytest.raises(NoRanking, match=r"--resamples: expected 0 \(no interval\) or at least"):
        rank(_votes(), study="s", source="labels", resamples=1)
    with pytest.raises(ValueError, match="resamples: expected 0"):
        compute_variable(RECORDS, "nominal", resamples=2)
    with pytest.raises(ValueError, match="pair_resamples: expected 0"):
        compute_variable(RECORDS, "nominal", resamples=0, pair_resamples=3)
    with pytest.raises(AbpError, match="resamples: expected 0"):
        check_settings(resamples=1, pair_resamples=0, confidence=0.95)
    with pytest.raises(ValueError, match="resamples: expected 0"):
        task_bootstrap([(1, 2), (2, 2)], seed=0, confidence=0.95, resamples=2)
    with pytest.raises(ValueError, match="resamples: expected 0"):
        relative_median_difference([1.0, 2.0, 3.0], [2.0, 3.0, 4.0], seed=0, resamples=1)
    segments = Segments(
        n_systems=2,
        n_tasks=1,
        pairs=np.array([[0, 1]]),
        task=np.array([0]),
        pair=np.array([0]),
        w=np.array([[1.0, 1.0]]),
    )
    with pytest.raises(ValueError, match="resamples: expected 0"):
        ranking_bootstrap(segments, 1, 0, np.zeros(2))
    # At the minimum, every one of them draws its interval.
    report = rank(_votes(), study="s", source="labels", resamples=MIN_RESAMPLES)
    assert all(s.interval is not None for s in report.systems)
    variable = compute_variable(RECORDS, "nominal", resamples=MIN_RESAMPLES)
    assert variable.percent_agreement.interval is not None
