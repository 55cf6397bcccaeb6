"""A design's watched figures (:mod:`abp_tui.analysis.results.watching`) read from the database, for
``abp-tui results`` and the results screen: called only once the results themselves may be
shown (the study unblinded, the viewer not held back), so it reveals nothing they do not."""

from __future__ import annotations

from collections.abc import Iterable

import sqlite_utils

from abp_tui.analysis.business.figures import benchmark_records
from abp_tui.analysis.results.watching import CONFIDENCE, Finals, Watch, finals, watch_finals
from abp_tui.store import judging as sql


def design_watch(
    db: sqlite_utils.Database,
    design_pk: int,
    contrasts: Iterable[tuple[str, str]],
    confidence: float = CONFIDENCE,
) -> Watch:
    """The confidence sequences of a design's win rates (``contrasts``, as its results compare
        them) and pass rates, over the records its results count (development tasks left out), at
    the results' ``confidence``."""
    return watch_finals(design_finals(db, design_pk), contrasts, confidence)


def design_finals(db: sqlite_utils.Database, design_pk: int) -> Finals:
    """What a design's watched figures need of its records (those its results count): read
    before its results are computed, the records are let go before those are read again."""
    return finals(benchmark_records(sql.records_of_design(db, design_pk, figures=True)))


__all__ = ["design_finals", "design_watch"]
