"""Agreement of judgments made elsewhere: a CSV table (item, reviewer, variable, value).

The use case behind ``abp-tui agreement --table``: read the table
(:mod:`abp_tui.formats.agreement_table`), compute every figure with the same statistics as a
study's judgments, and name the reviewers the table lists without a judgment. It touches no
database, so it imports nothing of the store, whose sqlite-utils is slow to import (it loads
pandas when that is installed). :func:`check_settings` is shared with
:mod:`abp_tui.services.agreement_report`.
"""

from __future__ import annotations

from pathlib import Path

from abp_tui.errors import AbpError
from abp_tui.formats.agreement_table import TableAgreementReport, agreement_table
from abp_tui.stats.agreement import (
    CONFIDENCE,
    DEFAULT_PAIR_RESAMPLES,
    DEFAULT_RESAMPLES,
    DEFAULT_WEIGHT_BASIS,
    WEIGHT_BASES,
    WeightBasis,
)
from abp_tui.stats.limits import resamples_problem


def check_settings(
    *,
    seed: int = 0,
    resamples: int,
    pair_resamples: int,
    confidence: float,
    weight_basis: str = DEFAULT_WEIGHT_BASIS,
) -> None:
    """Refuse bootstrap settings that mean nothing, as a message rather than a traceback."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise AbpError(f"seed: expected an integer, got {seed!r}")
    for name, count in (("resamples", resamples), ("pair resamples", pair_resamples)):
        if isinstance(count, bool) or not isinstance(count, int):
            raise AbpError(f"{name}: expected a count of 0 or more (0: no interval), got {count!r}")
        if (problem := resamples_problem(count)) is not None:
            raise AbpError(f"{name}: {problem} (0: no interval)")
    if not isinstance(confidence, int | float) or not 0 < confidence < 1:
        raise AbpError(
            f"confidence: expected a level strictly between 0 and 1 (e.g. 0.95), got {confidence!r}"
        )
    if weight_basis not in WEIGHT_BASES:
        raise AbpError(
            f"weight basis: expected one of {', '.join(WEIGHT_BASES)}, got {weight_basis!r}"
        )


def table_agreement(
    path: Path | str,
    *,
    level: str | None = None,
    scale: str | None = None,
    header: Path | str | None = None,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
    confidence: float = CONFIDENCE,
    weight_basis: WeightBasis = DEFAULT_WEIGHT_BASIS,
) -> TableAgreementReport:
    """Agreement of judgments made elsewhere: a CSV table (item, reviewer, variable, value).

    ``scale`` is the text a person types (``"0, 1, 2"``, ``"low,mid,high"``), read by
    :func:`abp_tui.formats.agreement_scale.parse_scale`. The report also names the reviewers the
    table lists with no judgment, who are in no figure's denominators.
    """
    check_settings(
        seed=seed,
        resamples=resamples,
        pair_resamples=pair_resamples,
        confidence=confidence,
        weight_basis=weight_basis,
    )
    return agreement_table(
        path,
        level=level,
        scale=scale,
        header=header,
        seed=seed,
        resamples=resamples,
        pair_resamples=pair_resamples,
        confidence=confidence,
        weight_basis=weight_basis,
    )
