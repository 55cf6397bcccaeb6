"""Before a coordinator's screen opens: whether to ask first, and whether judging is refused.

The workstation's reads (from worker threads, each on its own connection) for two moments:

- before the agreement, the disagreements, the results or the AI judges' report opens,
  :func:`view_notice` says what viewing it would mean when the look would be the viewer's first
  recorded one (:func:`abp_tui.services.coordinator_identity.first_look`), so the screen can ask
  first; nothing is recorded here (the figures' own service records the look once it is shown).
  A screen that would show no figure records nothing, so it needs no question: results of a
  study still blind, of its automated outcomes alone, or held back from a reviewer still
  judging, and an AI judges' report of a study with no judge verdicts;
- before the compare screen opens, :func:`check_judging` refuses a reviewer whose enrolment
  would be refused, so that no empty screen is left open.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from abp_tui.errors import AbpError
from abp_tui.services.coordinator_identity import (
    FIGURES,
    check_enrolment,
    first_look,
    results_held_back,
    viewing_notice,
)
from abp_tui.store import connect, judging
from abp_tui.store.queries import study_protocol, unblinded

if TYPE_CHECKING:
    import sqlite_utils


def _shows_figures(
    db: sqlite_utils.Database, study_id: str, design_pk: int | None, figure: str, viewer: str
) -> bool:
    if figure == "results":
        return (
            design_pk is not None
            and unblinded(db, study_id) is not None
            and results_held_back(db, study_id, viewer) is None
        )
    if figure == "judges":
        from abp_tui.store import judges as judge_sql  # NumPy: imported when asked

        return study_id in judge_sql.judged_studies(db)
    return True


def notice_for(
    db: sqlite_utils.Database,
    viewer: str | None,
    figure: str,
    study: str | None,
    design_pk: int | None = None,
) -> str | None:
    """What viewing ``figure`` would mean for ``viewer``, when it would be their first recorded
    look at the study; None when opening it changes nothing for them. ``study`` None: the
    design's study (or, for the judges' report, the study it would show)."""
    if figure not in FIGURES:
        raise ValueError(f"unknown coordinator figure {figure!r}")
    if viewer is None:
        return None
    try:
        if design_pk is not None:
            study_id = judging.design(db, design_pk).study_id
        elif figure == "judges":
            # Imported here (the judges' modules load NumPy and the statistics): the workstation's
            # first screens ask about the other figures and must not wait for them.
            from abp_tui.services.judges import judged_study

            study_id = judged_study(db, study)
        elif study is not None:
            study_id = study
        else:
            return None
    except AbpError:
        return None  # the screen itself says what is wrong, and shows no figure
    if study_protocol(db, study_id) is None or not _shows_figures(
        db, study_id, design_pk, figure, viewer
    ):
        return None
    if not first_look(db, study_id, viewer):
        return None
    return viewing_notice(study_id, viewer, figure)


def view_notice(
    db_path: Path,
    viewer: str | None,
    figure: str,
    study: str | None,
    design_pk: int | None = None,
) -> str | None:
    """:func:`notice_for` on a connection of its own (a worker's)."""
    db = connect(db_path)
    try:
        return notice_for(db, viewer, figure, study, design_pk)
    finally:
        db.close()


def view_notices(
    db_path: Path,
    viewer: str | None,
    figure: str,
    places: Sequence[tuple[str | None, int | None]],
) -> list[str | None]:
    """:func:`notice_for` of each (study, design key), on one connection of its own (read with
    the list of designs, so that choosing one needs no further read)."""
    db = connect(db_path)
    try:
        return [notice_for(db, viewer, figure, study, pk) for study, pk in places]
    finally:
        db.close()


def check_judging(db_path: Path, design_pk: int, reviewer: str) -> None:
    """BlindingError when opening the design to judge would enrol ``reviewer`` and their
    enrolment is refused (they have seen the study's coordinator figures). Reads only."""
    db = connect(db_path)
    try:
        check_enrolment(db, design_pk, reviewer)
    finally:
        db.close()


__all__ = ["check_judging", "notice_for", "view_notice", "view_notices"]
