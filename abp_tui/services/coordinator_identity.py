"""Who is the coordinator of an open design: whoever has seen its coordinator-level figures.

The rule that keeps judgments independent: nobody judges an item after seeing other judgments of
it. A reviewer with pending items has those items held back from every figure (the store's rule
for ``others()``); a person who holds no item sees everything, as the coordinator does. On an
open design (no reviewer list: people enrol when they first open it) that second person could then
enrol and judge items whose judgments they have already seen summarized. So each look at the
agreement, the disagreements, an adjudication, the results or the AI judges' report (measured
against the people's judgments) by someone who could still enrol in
an open design of the study is recorded, append-only, before the figures are returned
(:mod:`abp_tui.store.coordinator_views`); and enrolment of anyone recorded for the study is
refused. The study, not the design, is the unit: a study's designs judge the same runs.

Every face goes through here: the CLI's ``agreement``, ``results``, ``judges`` and
``ranking`` (recorded as the results, which the ranking sits beside on the results screen), the
workstation's agreement, disagreement, adjudication, results and judges screens (via
:mod:`abp_tui.services.coordinator`, :func:`abp_tui.services.agreement_report.study_agreement`
and :func:`abp_tui.services.judges.judge_report`).
A caller that names nobody (``viewer`` None: an export by the coordinator's own command) records
nothing.

Nobody is made the coordinator by surprise: before a first look is recorded the workstation asks
(:func:`first_look` tells it when, :func:`viewing_notice` what to say), and the CLI, which is
scripted and never asks, says on stderr that it recorded one (:func:`recorded_notice`). Judging
is refused before any screen opens (:func:`check_enrolment`).
"""

from __future__ import annotations

import sqlite_utils

from abp_tui.store import coordinator_views as sql
from abp_tui.store import judging
from abp_tui.store.judging import BlindingError
from abp_tui.text.safe import safe_line

FIGURES = ("agreement", "disagreements", "adjudication", "results", "judges")
NAMES = {
    "agreement": "the agreement",
    "disagreements": "the disagreements",
    "adjudication": "an adjudication",
    "results": "the results",
    "judges": "the AI judges' report",
}
"""How a notice names each figure."""


def note_view(
    db: sqlite_utils.Database,
    study_id: str,
    design_pk: int | None,
    viewer: str | None,
    figure: str,
) -> None:
    """Record that ``viewer`` is about to see ``figure`` of the study (of ``design_pk``), when
    they could still enrol in an open design of it; nothing otherwise."""
    if figure not in FIGURES:
        raise ValueError(f"unknown coordinator figure {figure!r}")
    if viewer is None or not sql.open_designs_without(db, study_id, viewer):
        return
    sql.record_view(db, study_id, design_pk, viewer, figure)


def note_design_view(
    db: sqlite_utils.Database,
    study_id: str,
    design: str,
    version: int,
    viewer: str | None,
    figure: str,
) -> None:
    """:func:`note_view` for a design named as a report names it (name and version)."""
    row = db.execute(
        "SELECT pk FROM designs WHERE study_id = ? AND name = ? AND version_no = ?",
        [study_id, design, version],
    ).fetchone()
    note_view(db, study_id, int(row[0]) if row else None, viewer, figure)


def first_look(db: sqlite_utils.Database, study_id: str, viewer: str | None) -> bool:
    """Whether a look by ``viewer`` at a figure of the study would now be recorded for the first
    time, so that they could no longer judge its open designs (already recorded: nothing
    changes for them)."""
    if viewer is None or not sql.open_designs_without(db, study_id, viewer):
        return False
    return sql.first_pk(db, study_id, viewer) is None


def viewing_notice(study_id: str, viewer: str, figure: str) -> str:
    """What viewing ``figure`` of the study means for ``viewer``, before they look."""
    study = safe_line(study_id)
    return (
        f"Viewing {NAMES[figure]} of study {study} makes {safe_line(viewer)} its coordinator: "
        f"you will not be able to judge {study}'s open designs as a reviewer (recorded, "
        "for good)."
    )


def look_mark(db: sqlite_utils.Database) -> int:
    """A mark taken before a command computes its figures, for :func:`recorded_notice`."""
    return sql.last_pk(db)


def recorded_notice(
    db: sqlite_utils.Database, study_id: str, viewer: str | None, figure: str, mark: int
) -> str | None:
    """The one-line notice a command prints when it has just recorded ``viewer``'s first look
    at the study (since ``mark``: :func:`look_mark`); None when it recorded none."""
    if viewer is None:
        return None
    first = sql.first_pk(db, study_id, viewer)
    if first is None or first <= mark:
        return None
    study = safe_line(study_id)
    return (
        f"notice: {safe_line(viewer)} has now seen {NAMES[figure]} of study {study}, as its "
        f"coordinator: you will not be able to judge {study}'s open designs as a reviewer "
        "(recorded, for good)"
    )


def check_enrolment(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> None:
    """BlindingError when opening the design would enrol ``reviewer`` and enrolment is refused
    (:func:`refuse_enrolment`): checked before a judging screen opens. Reads only."""
    row = judging.design(db, design_pk)
    if row.document.get("reviewers"):
        return  # a design that lists its reviewers enrols nobody
    if judging.enrolment_slot(db, design_pk, reviewer) is not None:
        return
    refuse_enrolment(db, row.study_id, row.name, reviewer)


def refuse_enrolment(
    db: sqlite_utils.Database, study_id: str, design_name: str, reviewer: str
) -> None:
    """BlindingError when ``reviewer`` has seen coordinator-level figures of the study."""
    seen = sql.views_by(db, study_id, reviewer)
    if not seen:
        return
    first = seen[0]
    figures = ", ".join(dict.fromkeys(v.figure for v in seen))
    raise BlindingError(
        f"{reviewer} cannot enrol as a reviewer of design {design_name}: they have seen the "
        f"coordinator's figures of study {study_id} ({figures}; first on {first.viewed_at}), "
        "so their judgments would not be independent; ask someone who has not to review"
    )


__all__ = [
    "FIGURES",
    "NAMES",
    "check_enrolment",
    "first_look",
    "look_mark",
    "note_design_view",
    "note_view",
    "recorded_notice",
    "refuse_enrolment",
    "viewing_notice",
]
