"""The votes a publication bundle carries so that ``verify`` can re-derive its rankings: every
source the study holds, read as ``abp-tui ranking`` reads it, kept to the bundle's scope (its
design's tasks and conditions), so that every vote is on runs the bundle publishes
(:mod:`abp_tui.export.ranking` writes and re-derives them).

The votes file is written as :func:`abp_tui.export.ranking.ranking_sources` makes it (the same
bytes), a vote at a time: each kept vote's line goes to SQLite with its sort key as it is read
(:mod:`abp_tui.store.sorting`) and the lines are written back in order, so that no line or
record of every vote is held (a large study's hundreds of thousands)."""

from __future__ import annotations

import math
from collections.abc import Callable, MutableMapping
from typing import Any

import sqlite_utils

from abp_tui.analysis.ranking.fit import Votes
from abp_tui.analysis.ranking.models import Excluded
from abp_tui.errors import AbpError
from abp_tui.export.bundle_writing import put_chunks
from abp_tui.export.canonical import json_bytes
from abp_tui.export.ranking import OUTCOMES, SOURCES, VOTES, SourceLine
from abp_tui.services.ranking import (
    DEVELOPMENT,
    VERDICTS,
    read_source,
    study_sources,
    vote_fates,
)
from abp_tui.store.sorting import SortedLines, sorted_lines
from abp_tui.text.canonical import ascii_canonical_json, canonical_json

OUT_OF_SCOPE = "on a task or condition outside the bundle's design"


def ranking_source_files(
    db: sqlite_utils.Database,
    study: str,
    design: str | None,
    keep: Callable[[str, str], bool],
    apart: Callable[[str], bool] = lambda task: False,
) -> dict[str, bytes]:
    """``ranking/votes.jsonl`` and ``ranking/sources.json`` of ``study`` (none: no votes), as
    :func:`put_ranking_sources` writes them."""
    files: dict[str, bytes] = {}
    put_ranking_sources(db, files, study, design, keep, apart)
    return files


def put_ranking_sources(
    db: sqlite_utils.Database,
    files: MutableMapping[str, bytes],
    study: str,
    design: str | None,
    keep: Callable[[str, str], bool],
    apart: Callable[[str], bool] = lambda task: False,
) -> None:
    """Set ``ranking/votes.jsonl`` and ``ranking/sources.json`` of ``study`` in ``files`` (none:
    no votes); a vote is kept when ``keep(task, condition)`` holds for both its systems and its
    task is not development material (``apart(task)``: left out, and counted). The
    ``verdicts`` source is the bundle's design's (none without a design)."""
    sources: list[dict[str, Any]] = []
    with sorted_lines(db) as votes:
        for source in study_sources(db, study):
            if source == VERDICTS and design is None:
                continue
            try:
                read = read_source(db, study, source, design)
            except AbpError:  # a source that cannot be read holds no vote to publish
                continue
            kept, dropped, development = _sorted_votes(read.name, read.votes, keep, apart, votes)
            if not kept:  # a source without a vote kept is not listed
                continue
            excluded = list(read.excluded)
            if dropped:
                excluded.append(Excluded(reason=OUT_OF_SCOPE, votes=dropped))
            if development:
                excluded.append(Excluded(reason=DEVELOPMENT, votes=development))
            line = SourceLine(source=read.name, design=read.design, excluded=excluded)
            sources.append(line.model_dump(mode="json"))
        if not sources:
            return
        put_chunks(files, VOTES, (f"{line}\n".encode() for line in votes.lines()))
    files[SOURCES] = json_bytes(sources)


def _sorted_votes(
    source: str,
    v: Votes,
    keep: Callable[[str, str], bool],
    apart: Callable[[str], bool],
    into: SortedLines,
) -> tuple[int, int, int]:
    """Add each vote of ``v`` kept to ``into``, its
    line as :func:`abp_tui.export.ranking.ranking_sources` writes it, keyed as it sorts them;
    the votes kept, out of scope, and on development material: the rule of
    :func:`abp_tui.services.ranking.vote_fates`, without a record of every vote kept."""
    kept = development = 0
    for fate in vote_fates(v, keep, apart):
        development += fate.development
        if not fate.kept:
            continue
        k, task, a, b = fate.at, fate.task, fate.a, fate.b
        row = {
            "source": source,
            "task": task,
            "a": a,
            "b": b,
            "outcome": OUTCOMES[int(v.outcome[k])],
            "length_a": _length(float(v.length_a[k])),
            "length_b": _length(float(v.length_b[k])),
        }
        line = canonical_json(row)
        into.add(sort_key(row, line), line)
        kept += 1
    return kept, len(v) - kept - development, development


def sort_key(row: dict[str, Any], line: str) -> str:
    """A key that sorts votes' lines as :func:`abp_tui.export.ranking.ranking_sources` sorts
    them (by ``json.dumps(row, sort_keys=True)``), for ``row`` and its ``line`` (its canonical
    JSON): that JSON without the spaces after separators, which every vote has at the same
    places (the same keys), so that two keys first differ at the same character. A line of
    printable ASCII alone is that key already (``json.dumps`` escapes the rest as ``\\u``):
    no second text is made for most votes."""
    if line.isascii() and "\x7f" not in line:
        return line
    return ascii_canonical_json(row)


def _length(value: float) -> float | int | None:
    """A length as :func:`abp_tui.export.ranking.ranking_sources` writes it."""
    if math.isnan(value):
        return None
    return int(value) if value.is_integer() else value


__all__ = ["DEVELOPMENT", "OUT_OF_SCOPE", "put_ranking_sources", "ranking_source_files"]
