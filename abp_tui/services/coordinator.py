"""The coordinator's side of the workstation: disagreements, adjudication, agreement, results.

The screens of the disagreement queue, the adjudication, the agreement and the results call these
functions from worker threads. Each opens its own connection, calls the core
(``abp_tui.services.adjudicating``, ``abp_tui.services.agreement_report``,
``abp_tui.services.results_report``) and the store's read
functions, and returns plain frozen data. Nothing here imports textual or runs SQL.

Blinding rules kept here, so no screen can forget them:

- an adjudication item is shown blind-swapped: its placement is the reverse of the placement the
  first reviewer saw (the reviewer whose submission came first), and reviewers are "Reviewer 1",
  "Reviewer 2"... in the order they submitted; names travel with the data but the screens show
  them only when asked;
- a reviewer of an item who has not submitted their own judgment never receives the others'
  judgments of it (:class:`BlindingError`, the core's refusal); the disagreement queue and the
  agreement figures leave out every item they still have to judge, and every item sharing a
  response with one, in any design of the study (the queue says how many: whether an item is
  disputed, and why, is other reviewers' judgments of it);
- nobody adjudicates an item they reviewed, nor, when the design names its adjudicators,
  unless they are one (:func:`abp_tui.services.adjudicating.adjudication_refused`: the queue
  says so on the item's row, and opening or recording it is refused);
- each reviewer's judgment reaches the adjudication screen re-keyed to its placement, and with
  the placement that reviewer saw (:attr:`AdjudicationItem.seen_swapped`): their own words
  name the responses as they saw them;
- a reviewer with items of the study still to submit never receives its results (they sum up
  the others' judgments of those items): the view says why instead;
- whoever sees the disagreements, an adjudication, the agreement or the results holding no
  pending item of the study, or while they could still enrol in an open design of it, is
  recorded first, and may then never enrol in a design of the study, one created later included
  (:mod:`abp_tui.services.coordinator_identity`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from abp_tui.analysis.agreement.labels import ItemRuns, StudyAgreementReport, held_back, visible
from abp_tui.analysis.placement import (
    on_screen,
    order_of,
    placement_of,
    relabel,
    reverse,
    swapped,
)
from abp_tui.analysis.results.watching import Watch, watch_finals
from abp_tui.analysis.verdicts import decide
from abp_tui.errors import AbpError
from abp_tui.models import (
    AdjudicationRevision,
    Judgment,
    JudgmentRevision,
    Rubric,
)
from abp_tui.services.adjudicating import (
    adjudicate,
    adjudication_refused,
    disagreements,
    item_judgments,
)
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.coordinator_identity import note_view, results_held_back
from abp_tui.services.design_choices import DesignChoice, _choice, _design, design_choices
from abp_tui.services.results_report import (
    ResultsReport,
    StudyIsBlind,
    compute_automated_results,
    compute_results,
    unblind,
)
from abp_tui.services.reviewing import (
    BlindResponse,
    BlindTask,
    blind_responses,
    blind_task,
    design_masker,
)
from abp_tui.services.watching import design_finals
from abp_tui.store import connect
from abp_tui.store import judging as sql
from abp_tui.store.agreement_scope import pending_run_pks
from abp_tui.store.judging import BlindingError
from abp_tui.store.queries import (
    unblinded,
)

__all__ = [
    "AdjudicationItem",
    "BlindingError",
    "DesignChoice",
    "DisagreementQueue",
    "DisagreementRow",
    "ResultsView",
    "design_choices",
    "disagreement_queue",
    "open_adjudication",
    "read_agreement",
    "read_choice_results",
    "read_results",
    "record_adjudication",
    "unblind_study",
]


# -- the disagreement queue ------------------------------------------------------------------------
@dataclass(frozen=True)
class DisagreementRow:
    code: str
    reviewers: int
    """How many reviewers' submitted judgments the item has (names are not listed)."""
    reasons: tuple[str, ...]
    """Why the judgments disagree."""
    adjudicated: bool
    refused: str = ""
    """Why the viewer may not adjudicate the item (one line), or empty."""


@dataclass(frozen=True)
class DisagreementQueue:
    design: DesignChoice
    rows: tuple[DisagreementRow, ...]
    """In the plan's order; never an item held back from the viewer."""
    verdict_sources: dict[str, int]
    """How many runs' final verdicts come from each source (adjudicated, unanimous...), over
    the items not held back and the runs a person scored or gave a state (a preference alone is
    its pair's, below)."""
    held_back: int = 0
    """Items of the design left out of the queue and the counts: the viewer still has to judge
    them, or an item sharing a response with them."""
    preference_sources: dict[str, int] = field(default_factory=dict)
    """How many judged pairs' final preferences come from each source."""

    @property
    def open(self) -> int:
        return sum(1 for r in self.rows if not r.adjudicated)


def disagreement_queue(db_path: Path, design_pk: int, viewer: str) -> DisagreementQueue:
    """The design's disagreements as ``viewer`` may see them, with the verdict sources: the
    items they still have to judge (or sharing a response with one, in any design of the
    study) are held back from both, as from the agreement, since whether an item is disputed
    is what the others judged of it."""
    db = connect(db_path)
    try:
        row = sql.design(db, design_pk)
        design = _choice(db, row)
        note_view(db, design.study_id, design_pk, viewer, "disagreements")
        items = {i.code: i for i in sql.items(db, design_pk)}
        pending = pending_run_pks(db, design.study_id, viewer)
        hidden = held_back((ItemRuns(i.code, i.run_pks) for i in items.values()), pending)
        decided = decide(visible(sql.records_of_design(db, design_pk, with_runs=False), hidden))
        rows = []
        for d in decided.disagreements:
            refused = adjudication_refused(db, row, items[d.code], viewer, pending)
            rows.append(
                DisagreementRow(
                    d.code,
                    len(d.reviewers),
                    tuple(d.reasons),
                    d.adjudicated,
                    "" if refused is None else str(refused),
                )
            )
        sources: Counter[str] = Counter(v.source for v in decided.verdicts if not v.preference_only)
        preferred: Counter[str] = Counter(p.source for p in decided.preferences)
    finally:
        db.close()
    return DisagreementQueue(design, tuple(rows), dict(sources), len(hidden), dict(preferred))


# -- one item to adjudicate ------------------------------------------------------------------------
def reviewer_label(n: int) -> str:
    """How the adjudication screen names the n-th reviewer to submit (from 1): never by name."""
    return f"Reviewer {n}"


@dataclass(frozen=True)
class AdjudicationItem:
    """A disputed item as the adjudicator sees it: blind, swapped, with every judgment."""

    design: DesignChoice
    code: str
    kind: str
    task: BlindTask
    responses: tuple[BlindResponse, ...]
    """In this screen's order: the reverse of the first reviewer's placement."""
    rubric: Rubric
    placement: dict[str, int]
    """This screen's position ("1", "2") -> run key: what an adjudication is recorded with."""
    reasons: tuple[str, ...]
    reviewers: tuple[JudgmentRevision, ...]
    """Each reviewer's latest submitted judgment, in the order they first submitted, re-keyed to
    this screen: responses and placement by this screen's positions, the preference as this
    screen shows the runs. Names travel with them; the screen shows :attr:`labels` instead."""
    latest: AdjudicationRevision | None
    """The item's latest adjudication, re-keyed to this screen like :attr:`reviewers`."""
    seen_swapped: tuple[bool, ...] = ()
    """For each of :attr:`reviewers` (a pair), whether they saw its responses the other way
    round from this screen: their own Response 1 is this screen's Response 2. Their words
    (justification, rationales, reasons) name the responses as they saw them."""
    latest_swapped: bool = False
    """Whether :attr:`latest` was recorded with the responses the other way round."""
    unblinded: tuple[str, str] | None = None
    """Who unblinded the study, and when (None: still blind). An adjudication recorded now is
    stated in the bundle's limitations as made after unblinding."""
    submitted: tuple[int, ...] = ()
    """For each of :attr:`reviewers`, how many times they submitted (their drafts not counted):
    more than once, their judgment was revised after it was first submitted."""

    @property
    def is_pair(self) -> bool:
        return len(self.responses) > 1

    @property
    def labels(self) -> tuple[str, ...]:
        """What the screen calls each of :attr:`reviewers`: "Reviewer 1", "Reviewer 2"..."""
        return tuple(reviewer_label(n) for n in range(1, len(self.reviewers) + 1))

    def names(self) -> tuple[str, ...]:
        return tuple(r.reviewer for r in self.reviewers)


def open_adjudication(
    db_path: Path, design_pk: int, code: str, adjudicator: str
) -> AdjudicationItem:
    """A disputed item for ``adjudicator``, blind-swapped, with each reviewer's judgment.

    Raises BlindingError when the adjudicator is a reviewer of the item who has not submitted
    their own judgment (or has an item sharing a response with it to judge), NotAnAdjudicator
    when they reviewed it or the design names other adjudicators
    (:func:`abp_tui.services.adjudicating.adjudication_refused`), and AbpError when the item
    has no submitted judgment to adjudicate.
    """
    db = connect(db_path)
    try:
        design = _design(db, design_pk)
        row = sql.design(db, design_pk)
        item = sql.item_by_code(db, design_pk, code)
        refused = adjudication_refused(db, row, item, adjudicator)
        if refused is not None:
            raise refused
        judged = item_judgments(db, design_pk).get(code, [])
        if not judged:
            raise AbpError(f"{code} has no submitted judgment to adjudicate yet")
        note_view(db, row.study_id, design_pk, adjudicator, "adjudication")
        submitted = sql.submissions(db, item.pk)
        order = list(submitted)
        judged = sorted(judged, key=lambda j: (order.index(j.reviewer), j.reviewer))
        shown = reverse(judged[0].placement) if item.is_pair else placement_of(item.runs[:1])
        reviewers = tuple(on_screen(j, shown) for j in judged)
        seen_swapped = tuple(swapped(j.placement, shown) for j in judged)
        latest_swapped = False
        reasons: tuple[str, ...] = ()
        for d in disagreements(db, design_pk):
            if d.code == code:
                reasons = tuple(d.reasons)
        latest = None
        for past in sql.latest_adjudications(db, design_pk):
            if past.item == code:
                latest, latest_swapped = on_screen(past, shown), swapped(past.placement, shown)
        pk_of = dict(zip(item.runs, item.run_pks, strict=True))
        placement = relabel(shown, pk_of.__getitem__)
        rubric = Rubric.model_validate(row.rubric)
        task = blind_task(db, item.task_pk, rubric)
        responses = blind_responses(db, design_masker(db, row), order_of(placement))
        opened = unblinded(db, row.study_id)
    finally:
        db.close()
    return AdjudicationItem(
        design=design,
        code=code,
        kind=item.kind,
        task=task,
        responses=responses,
        rubric=rubric,
        placement=placement,
        reasons=reasons,
        reviewers=reviewers,
        latest=latest,
        seen_swapped=seen_swapped if item.is_pair else (),
        latest_swapped=latest_swapped and item.is_pair,
        unblinded=opened,
        submitted=tuple(submitted.get(j.reviewer, 1) for j in judged),
    )


def record_adjudication(
    db_path: Path,
    design_pk: int,
    code: str,
    adjudicator: str,
    final: Judgment,
    placement: dict[str, int],
    note: str,
    show_names: bool,
) -> int:
    """Record the final judgment of a disputed item (keyed by position); its revision."""
    db = connect(db_path)
    try:
        return adjudicate(
            db, design_pk, code, adjudicator, final, placement, note, show_names=show_names
        )
    finally:
        db.close()


# -- agreement -------------------------------------------------------------------------------------
def read_agreement(
    db_path: Path,
    choice: DesignChoice,
    viewer: str,
    *,
    seed: int | None = None,
    resamples: int = 1000,
) -> StudyAgreementReport:
    """The agreement figures of a design (or of a study's imported labels) as ``viewer`` may
    see them: the items they have not submitted are held back from every figure (``seed``: by
    default the design's, as ``abp-tui agreement`` and the bundle draw them)."""
    db = connect(db_path)
    try:
        return study_agreement(
            db, choice.study_id, choice.pk, seed=seed, resamples=resamples, viewer=viewer
        )
    finally:
        db.close()


# -- results ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ResultsView:
    """A design's results, or why there are none yet."""

    design: DesignChoice
    report: ResultsReport | None
    """None while the study is blind, or while they are held back from the viewer."""
    blind_reason: str = ""
    held_back: bool = False
    """The viewer still has items to submit, the study blind or not: ``blind_reason`` says how
    many, in which design (nothing for them to unblind: the core refuses it)."""
    watch: Watch | None = None
    """The design's confidence sequences and stopping rule (with the results, never without)."""

    @property
    def blind(self) -> bool:
        return self.report is None


def read_results(db_path: Path, design_pk: int, viewer: str | None = None) -> ResultsView:
    """A design's results as ``viewer`` sees them (recorded when shown: see
    :mod:`abp_tui.services.coordinator_identity`), or why there are none yet."""
    db = connect(db_path)
    try:
        design = _design(db, design_pk)
        if design.is_station:
            return ResultsView(
                design,
                None,
                "This is a reviewer station (a study opened from a reviewer pack): results are "
                "never unblinded here. The coordinator merges your ratings and reports results.",
            )
        held = results_held_back(db, design.study_id, viewer)
        try:
            if held is not None:
                blind = unblinded(db, design.study_id) is None
                said = f"Study {design.study_id} is still blind, and {held}" if blind else held
                return ResultsView(design, None, said, held_back=True)
            # The watched figures' verdicts first: a large study's records are not held twice.
            open_to_view = unblinded(db, design.study_id) is not None
            found = design_finals(db, design_pk) if open_to_view else None
            report = compute_results(db, design_pk)
            note_view(db, design.study_id, design_pk, viewer, "results")
            contrasts = [(c.a, c.b) for c in report.comparisons]
            found = found if found is not None else design_finals(db, design_pk)
            watched = watch_finals(found, contrasts, report.confidence)
            return ResultsView(design, report, watch=watched)
        except StudyIsBlind as exc:
            return ResultsView(design, None, str(exc))
    finally:
        db.close()


def read_choice_results(
    db_path: Path, choice: DesignChoice, viewer: str | None = None
) -> ResultsView:
    """The results of a design, or of a study's automated outcomes (a choice without a
    design), or why there are none yet."""
    if choice.pk is not None:
        return read_results(db_path, choice.pk, viewer)
    if not choice.is_automated:
        raise AbpError(f"{choice.label}: results need a study design or automated outcomes")
    db = connect(db_path)
    try:
        return ResultsView(choice, compute_automated_results(db, choice.study_id))
    except StudyIsBlind as exc:
        return ResultsView(choice, None, str(exc))
    finally:
        db.close()


def unblind_study(db_path: Path, study_id: str, actor: str) -> tuple[str, str]:
    """Unblind a study as ``actor`` (audited; refused on a reviewer station): (who, when)."""
    db = connect(db_path)
    try:
        return unblind(db, study_id, actor)
    finally:
        db.close()
