"""The ranking as the results screen reads it: one source's report, the study's other sources
(the key that switches between them), or why there is no ranking.

Blindness is the core's (:func:`abp_tui.services.ranking.ranking_report` refuses a blind study);
this only turns the refusals a user can meet into a reason to show, so the screen says why
instead of failing. A study with imported labels and no design (PandaLM as imported) has no
results by condition, only this ranking: :func:`labels_only_view` is what the screen shows
above it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from abp_tui.analysis.ranking.models import RankingReport
from abp_tui.errors import AbpError
from abp_tui.services.coordinator import DesignChoice, ResultsView
from abp_tui.services.designing import find_study
from abp_tui.services.ranking import ranking_report, study_sources
from abp_tui.services.results_report import StudyIsBlind
from abp_tui.store import connect
from abp_tui.store.queries import unblinded
from abp_tui.text.hints import command, quoted


@dataclass(frozen=True)
class RankingView:
    """One source's ranking of a study, or why there is none."""

    study: str
    sources: tuple[str, ...]
    """Every source the study holds (verdicts, labels, judge:ID), in the command's order."""
    source: str | None
    """The source shown (None: the study holds none)."""
    report: RankingReport | None
    reason: str = ""
    """Why there is no report: the study is blind, holds no preferences, or its votes hold no
    ranking (NoRanking's message)."""
    blind: bool = False


def read_ranking_view(
    db_path: Path,
    study: str,
    source: str | None = None,
    design: str | None = None,
    viewer: str | None = None,
) -> RankingView:
    """The ranking of ``source`` (default: the command's default source) for the workstation,
    read on its own connection (a worker's), as ``viewer`` may see it (a reviewer with items
    still to judge is told why not)."""
    db = connect(db_path)
    try:
        held = tuple(study_sources(db, study))
        if not held:
            return RankingView(
                study, held, None, None, "the study holds no pairwise preferences to rank"
            )
        chosen = source if source in held else held[0]
        try:
            report = ranking_report(db, study, design=design, source=chosen, viewer=viewer)
        except StudyIsBlind as exc:
            return RankingView(study, held, chosen, None, str(exc), blind=True)
        except AbpError as exc:  # NoRanking and its kin: the data hold no ranking
            return RankingView(study, held, chosen, None, str(exc))
        return RankingView(study, held, report.source, report)
    finally:
        db.close()


def ranking_hint(db: sqlite_utils.Database, study: str | None) -> str | None:
    """The one line ``abp-tui results`` gives for a study with pairwise preferences but no
    design (None: the study holds none, or cannot be named)."""
    try:
        study_id = find_study(db, study)
    except AbpError:
        return None
    held = study_sources(db, study_id)
    if not held:
        return None
    blind = unblinded(db, study_id) is None
    after = f" after `{command(f'unblind --study {quoted(study_id)} --yes', db)}`" if blind else ""
    return (
        f"study {study_id!r} has no study design, so no results by condition; its pairwise "
        f"preferences ({', '.join(held)}) rank its systems: "
        f"`{command(f'ranking --study {quoted(study_id)}', db)}`{after}"
    )


def labels_only_view(db_path: Path, choice: DesignChoice) -> tuple[ResultsView, bool]:
    """(the view, unblinded) of a study with imported labels and no design: no results by
    condition (no report), blind until the study is unblinded."""
    db = connect(db_path)
    try:
        who = unblinded(db, choice.study_id)
    finally:
        db.close()
    reason = (
        ""
        if who is not None
        else f"study {choice.study_id!r} is still blind: its ranking names the systems"
    )
    return ResultsView(choice, None, reason), who is not None


__all__ = ["RankingView", "labels_only_view", "ranking_hint", "read_ranking_view"]
