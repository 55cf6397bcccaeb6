"""Who is the coordinator of a study: whoever has seen its coordinator-level figures.

The rule that keeps judgments independent: nobody judges an item after seeing other judgments of
it. A reviewer with pending items has those items held back from every figure (the store's rule
for ``others()`` and the disagreement queue; the results, every export and the ranking are
refused them outright: :func:`results_held_back`, :func:`refuse_held_back`);
a person who holds no pending item sees everything, as the coordinator does. On an open design
(no reviewer list: people enrol when they first open it) that second person could then enrol and
judge items whose judgments they have already seen summarized, whether the design exists when
they look or is created afterwards. So each look at the agreement, the disagreements, an
adjudication, the results, an export or the AI judges' report (measured against the people's
judgments) is recorded, append-only, before the figures are returned
(:mod:`abp_tui.store.coordinator_views`),
when it is by someone who holds no pending item of the study, or who could enrol in an open
design of it at that moment; and enrolment of anyone recorded for the study is refused, in every
design created before or after the look. The study, not the design, is the unit: a study's
designs judge the same runs.

A read-only database is still read. A look that changes nothing the person may do at that moment
(no open design they could enrol in) is then not recorded: nobody can enrol in a read-only
database, and a look there is not on record should the file be made writable later (copy the
database, not its permissions, to hand it to a reviewer). A look that must be recorded first
(they could enrol in an open design) is refused there, in one line, with nothing shown.

Every face goes through here: the CLI's ``agreement``, ``results``, ``export``, ``judges`` and
``ranking`` (recorded as the results, which the ranking sits beside on the results screen), the
workstation's agreement, disagreement, adjudication, results and judges screens (via
:mod:`abp_tui.services.coordinator`, :func:`abp_tui.services.agreement_report.study_agreement`
and :func:`abp_tui.services.judges.judge_report`).
A caller that names nobody (``viewer`` None: a core caller that is nobody's look) records
nothing.

Nobody is made the coordinator by surprise: before a first look that changes what they may do
(an open design they could still enrol in) the workstation asks (:func:`first_look` tells it
when, :func:`viewing_notice` what to say), and the CLI, which is scripted and never asks, says on
stderr that it recorded one (:func:`recorded_notice`); a look that changes nothing they may do at
that moment is recorded without a question, and a later refused enrolment says when it was.
Judging is refused before any screen opens (:func:`check_enrolment`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from abp_tui.errors import AbpError
from abp_tui.services.roles import may, require
from abp_tui.store import coordinator_views as sql
from abp_tui.store import judging
from abp_tui.store.judging import BlindingError
from abp_tui.store.pending_items import pending_by_design, pending_items
from abp_tui.text.safe import safe_line

if TYPE_CHECKING:
    import sqlite_utils

FIGURES = (
    "agreement",
    "disagreements",
    "adjudication",
    "results",
    "judges",
    "exports",
    "reliability",
)
NAMES = {
    "agreement": "the agreement",
    "disagreements": "the disagreements",
    "adjudication": "an adjudication",
    "results": "the results",
    "judges": "the AI judges' report",
    "exports": "an export of its judgments or results",
    "reliability": "the annotators' reliability",
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
    they hold no pending item of it or could enrol in an open design of it now; nothing for a
    reviewer still judging (their items are held back) who could enrol nowhere. BlindingError
    when the look must be recorded first and the database is read-only."""
    if figure not in FIGURES:
        raise ValueError(f"unknown coordinator figure {figure!r}")
    if viewer is None:
        return
    could_enrol = sql.open_designs_without(db, study_id, viewer)
    if not could_enrol and pending_by_design(db, study_id, viewer):
        return
    if could_enrol:
        require(
            "coordinate",
            f"see {NAMES[figure]} of study {study_id} while they could still "
            "enrol in one of its open designs",
        )
    if sql.record_view(db, study_id, design_pk, viewer, figure) or not could_enrol:
        return  # not on record only on a read-only database, where nobody can enrol
    raise BlindingError(
        f"{getattr(db, 'path', 'the database')}: the database is "
        f"read-only, so {viewer}'s look at {NAMES[figure]} of study {study_id} cannot be "
        f"recorded, and {viewer} could still enrol in an open design of {study_id}: not shown "
        "(open the database where it can be written)"
    )


def note_design_view(
    db: sqlite_utils.Database,
    study_id: str,
    design: str,
    version: int,
    viewer: str | None,
    figure: str,
) -> None:
    """:func:`note_view` for a design named as a report names it (name and version)."""
    note_view(db, study_id, judging.design_pk(db, study_id, design, version), viewer, figure)


def first_look(db: sqlite_utils.Database, study_id: str, viewer: str | None) -> bool:
    """Whether a look by ``viewer`` at a figure of the study would now be recorded for the first
    time, so that they could no longer judge its open designs (already recorded: nothing
    changes for them)."""
    if viewer is None or not sql.open_designs_without(db, study_id, viewer):
        return False
    if not may("coordinate"):
        return False  # refused, not asked (note_view)
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
    if viewer is None or not sql.open_designs_without(db, study_id, viewer):
        return None  # recorded, if at all, without changing what they may do now
    first = sql.first_pk(db, study_id, viewer)
    if first is None or first <= mark:
        return None
    study = safe_line(study_id)
    return (
        f"notice: {safe_line(viewer)} has now seen {NAMES[figure]} of study {study}, as its "
        f"coordinator: you will not be able to judge {study}'s open designs as a reviewer "
        "(recorded, for good)"
    )


def results_held_back(db: sqlite_utils.Database, study_id: str, viewer: str | None) -> str | None:
    """Why the study's results are not shown to ``viewer`` (one line), or None: they sum up
    the final verdicts, other reviewers' judgments of the items ``viewer`` still has to submit
    among them, so a reviewer with pending items sees them only once they have submitted."""
    if viewer is None:
        return None
    pending = pending_by_design(db, study_id, viewer)
    if not pending:
        return None
    total = sum(p.items for p in pending)
    if len(pending) == 1:
        where = f"in design {pending[0].design} v{pending[0].version_no}"
    else:
        where = ", ".join(f"{p.items} in design {p.design} v{p.version_no}" for p in pending)
    items = f"{total} item{'' if total == 1 else 's'}"
    return (
        f"{viewer} has {items} of study {study_id} not submitted yet ({where}): the results "
        f"count the other reviewers' judgments of {'it' if total == 1 else 'them'}, so they "
        f"are held back from {viewer} until they submit their own"
    )


def refuse_held_back(db: sqlite_utils.Database, study_id: str, viewer: str | None) -> None:
    """BlindingError (:func:`results_held_back`'s line) when the study's results, and whatever
    else sums up or lists its judgments (every export), are held back from ``viewer``."""
    held = results_held_back(db, study_id, viewer)
    if held is not None:
        raise BlindingError(held)


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


def refuse_pending(db: sqlite_utils.Database, study_id: str, viewer: str, shows: str) -> None:
    """AbpError when ``viewer`` has items of the study still to judge (in any of its designs):
    a figure that ``shows`` what people and judges decided about them waits until they have
    submitted their own judgments."""
    pending = pending_items(db, study_id, viewer)
    if pending.items:
        items = f"{pending.items} item{'' if pending.items == 1 else 's'}"
        raise AbpError(
            f"{viewer} has {items} of study {study_id} not submitted yet: {shows}, so it is "
            f"held back from {viewer} until they submit their own judgments"
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
    "refuse_held_back",
    "refuse_pending",
    "results_held_back",
    "viewing_notice",
]
