"""The votes a publication bundle carries so that ``verify`` can re-derive its rankings: every
source the study holds, read as ``abp-tui ranking`` reads it, kept to the bundle's scope (its
design's tasks and conditions), so that every vote is on runs the bundle publishes
(:mod:`abp_tui.export.ranking` writes and re-derives them)."""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

from abp_tui.analysis.ranking.models import Excluded
from abp_tui.errors import AbpError
from abp_tui.export.ranking import SourceFound, ranking_sources
from abp_tui.services.ranking import (
    DEVELOPMENT,
    VERDICTS,
    kept_votes,
    read_source,
    study_sources,
)

OUT_OF_SCOPE = "on a task or condition outside the bundle's design"


def ranking_source_files(
    db: sqlite_utils.Database,
    study: str,
    design: str | None,
    keep: Callable[[str, str], bool],
    apart: Callable[[str], bool] = lambda task: False,
) -> dict[str, bytes]:
    """``ranking/votes.jsonl`` and ``ranking/sources.json`` of ``study`` (none: no votes); a
    vote is kept when ``keep(task, condition)`` holds for both its systems and its task is not
    development material (``apart(task)``: left out, and counted). The ``verdicts``
    source is the bundle's design's (none without a design)."""
    found = []
    for source in study_sources(db, study):
        if source == VERDICTS and design is None:
            continue
        try:
            read = read_source(db, study, source, design)
        except AbpError:  # a source that cannot be read holds no vote to publish
            continue
        votes, dropped, development = kept_votes(read.votes, keep, apart)
        excluded = list(read.excluded)
        if dropped:
            excluded.append(Excluded(reason=OUT_OF_SCOPE, votes=dropped))
        if development:
            excluded.append(Excluded(reason=DEVELOPMENT, votes=development))
        found.append(SourceFound(read.name, read.design, votes, excluded))
    return ranking_sources(found)


__all__ = ["DEVELOPMENT", "OUT_OF_SCOPE", "ranking_source_files"]
