"""A design's watched figures (:mod:`abp_tui.analysis.results.watching`) read from the database, for
``abp-tui results`` and the results screen: read only of an unblinded study, before its results
(so that a large study's records are not held twice), and shown only with them (the viewer not
held back), so it reveals nothing they do not."""

from __future__ import annotations

import sqlite_utils

from abp_tui.analysis.business.figures import benchmark_records
from abp_tui.analysis.results.watching import Finals, finals
from abp_tui.store import judging as sql


def design_finals(db: sqlite_utils.Database, design_pk: int) -> Finals:
    """What a design's watched figures need of its records (those its results count): read
    before its results are computed, the records are let go before those are read again."""
    return finals(benchmark_records(sql.records_of_design(db, design_pk, figures=True)))


__all__ = ["design_finals"]
