"""Agreement of a study's reviewers: from stored judgments to the agreement statistics.

Agreement is measured on each reviewer's FIRST submitted judgment of an item. After submitting, a
reviewer may see the others' judgments and revise their own; a revision made then is no longer an
independent judgment, and measuring agreement on it would count reviewers who adopted each
other's view as agreeing. Verdicts, results and disagreements use the latest submitted judgment
(a reviewer may correct a mistake); agreement does not. A publication bundle measures it the same
way, with the same code (:func:`abp_tui.analysis.agreement.input.agreement_input` folds its
records through :class:`~abp_tui.analysis.agreement.input.AgreementFold`). Here the design is
read one item at a time (:func:`abp_tui.store.figure_rows.item_records`) and folded the same
way into integer columns (:class:`~abp_tui.analysis.agreement.coded.CodedFold`): what is held
is each observation as three small integers, never every judgment of a large design, and the
imported labels are folded into each reviewer-label set confusion matrix as they are read.

Variables: each rubric dimension (ordinal on its declared scale), the total (interval, 0 to the
rubric's maximum), the result state (nominal, the six states), whether any fatal criterion was hit
and each fatal criterion as a flag (nominal 0/1) and the preference (nominal). Dimension, total,
state and fatal flags are judged per run within an item (unit: item code and the run's side in
the item); the preference per item, recorded as the side preferred in the item's own
orientation, never as the position shown (each reviewer saw their own placement).

Human labels imported with a study (PandaLM's three annotators, LLMBar's gold label) are a
reference: each design reviewer's preference is measured against each label set, and the label
sets' agreement among themselves is reported beside (:mod:`abp_tui.analysis.agreement.labels`).
A study without a design reports the label sets' agreement alone.

Who looks matters (``viewer``): a reviewer never sees anything derived from other judgments of
an item they have not submitted their own judgment of (the store's rule for ``others()``), so
those items are held back from every figure, and counted. The coordinator, who reviews none of
the items, sees every figure (``viewer`` None, or any name that holds no pending item); a name that
could still enrol in an open design of the study is recorded as having seen them, and its
enrolment is then refused (:mod:`abp_tui.services.coordinator_identity`). AI judges'
verdicts are never in these figures: they are not stored as judgments or preferences. While
the study is blind, the preference's confusion matrices are withheld, its figures kept
(:func:`~abp_tui.analysis.agreement.labels.withhold_sides`): their counts of picks of side a and
side b, the contrast's two conditions, would tell who is ahead before anyone may know. Judgments
made elsewhere, in a CSV table, are :mod:`abp_tui.services.table_agreement`'s.
"""

from __future__ import annotations

import sqlite_utils

from abp_tui.analysis.agreement.coded import CodedFold
from abp_tui.analysis.agreement.input import AgreementFold
from abp_tui.analysis.agreement.labels import (
    AMONG_LABELS,
    LabelSet,
    StudyAgreementReport,
    field_of,
    reference_agreements,
    source_scale,
    source_variable,
    withhold_sides,
)
from abp_tui.analysis.records import first_submitted
from abp_tui.errors import AbpError
from abp_tui.formats.pairwise import label_choices
from abp_tui.models import PreferenceChoice, Rubric
from abp_tui.services.coordinator_identity import note_view
from abp_tui.services.table_agreement import check_settings
from abp_tui.stats.agreement import (
    CONFIDENCE,
    DEFAULT_PAIR_RESAMPLES,
    DEFAULT_RESAMPLES,
    DEFAULT_WEIGHT_BASIS,
    Category,
    Observation,
    WeightBasis,
)
from abp_tui.stats.agreement_coded import compute_coded, compute_coded_variable
from abp_tui.store import judging as sql
from abp_tui.store.agreement_scope import pending_run_pks
from abp_tui.store.figure_rows import (
    item_records,
    label_counts,
    labels_by_runs,
    latest_labels,
    pair_places,
)
from abp_tui.store.queries import imported_preferences, unblinded

Records = dict[str, list[Observation]]


def design_records(
    db: sqlite_utils.Database, design_pk: int
) -> tuple[Records, dict[str, str], dict[str, tuple[Category, ...]]]:
    """(records per variable, level per variable, declared scale per variable) of a design."""
    rubric = Rubric.model_validate(sql.design(db, design_pk).rubric)
    fold = AgreementFold(rubric)
    _fold_design(db, design_pk, fold, frozenset())
    found = fold.result()
    return found.records, found.levels, found.scales


def _fold_design(
    db: sqlite_utils.Database, design_pk: int, fold: AgreementFold, pending: frozenset[int]
) -> int:
    """A design's judgments folded one item at a time into ``fold`` (only the observations are
    held, never the judgments); how many items are held back from the viewer (an item sharing
    a run with one they still have to judge: none of its judgments counts)."""
    hidden = 0
    for found in item_records(db, design_pk):
        item = found.item
        held = not pending.isdisjoint(found.run_pks)
        hidden += held
        fold.pairs = fold.pairs or item.is_pair
        first = first_submitted(() if held else found.judgments).get(item.code)
        if first:
            fold.add(item, first, found.criteria)
    return hidden


def imported_records(db: sqlite_utils.Database, study_id: str) -> Records:
    """Imported human preference labels of a study (external reviewers), per item."""
    rows = imported_preferences(db, study_id)
    labels = {
        PreferenceChoice.RESPONSE_1.value: "1",
        PreferenceChoice.RESPONSE_2.value: "2",
        PreferenceChoice.TIE.value: "tie",
        PreferenceChoice.INSUFFICIENT.value: "insufficient_evidence",
    }
    latest: dict[tuple[str, str], str] = {}
    for item, reviewer, choice in rows:
        latest[(item, reviewer)] = labels[choice]
    return {"preference": [(i, r, v) for (i, r), v in latest.items()]}


def label_scale(names: list[str], study_id: str) -> tuple[str, ...]:
    """The scale of the label sets ``names`` among themselves: the categories their format
    allows (PandaLM's annotators: response 1, response 2, tie), so that a coefficient whose
    chance term counts the scale's categories (Gwet's AC1) counts those the labels can take."""
    allowed: list[list[str] | None] = []
    for name in names:
        choices = label_choices(field_of(name, study_id))
        allowed.append(None if choices is None else [c.value for c in choices])
    return source_scale(allowed)


def study_agreement(
    db: sqlite_utils.Database,
    study_id: str,
    design_pk: int | None,
    *,
    seed: int | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
    confidence: float = CONFIDENCE,
    weight_basis: WeightBasis = DEFAULT_WEIGHT_BASIS,
    viewer: str | None = None,
) -> StudyAgreementReport:
    """Agreement of a design's judgments, each reviewer against the study's imported labels and
    the labels among themselves; or of the imported labels alone when there is no design.

    ``viewer`` names who looks: the items they have not submitted are held back (module notes).
    Each reviewer-against-labels pair is bootstrapped ``resamples`` times; reviewer pairs
    ``pair_resamples`` times. The draws are seeded by ``seed``, by default the design's seed
    (as its publication bundle draws them, so the command, the screen and the report give the
    same intervals), 0 without a design.
    """
    if seed is None:
        seed = 0 if design_pk is None else sql.design(db, design_pk).seed
    check_settings(
        seed=seed,
        resamples=resamples,
        pair_resamples=pair_resamples,
        confidence=confidence,
        weight_basis=weight_basis,
    )
    if viewer is not None and not viewer.strip():
        raise AbpError("reviewer: expected a name (who is looking), got an empty one")
    # Recorded before anything is computed: whoever sees these figures may not enrol later.
    note_view(db, study_id, design_pk, viewer, "agreement")
    pending = pending_run_pks(db, study_id, viewer) if viewer is not None else frozenset()
    per_set, labelled = label_counts(db, study_id)
    names = sorted(per_set)
    scale = label_scale(names, study_id)
    variable = "preference" if design_pk is None else AMONG_LABELS
    if design_pk is None and not per_set:
        raise AbpError(
            f"study {study_id!r} has no study design and no imported judgments: "
            "nothing to measure agreement on"
        )
    among, seen = source_variable(latest_labels(db, study_id), scale, variable, pending)
    labels_back = labelled - seen

    if design_pk is None:
        report = compute_coded(
            [among],
            seed,
            resamples=resamples,
            pair_resamples=pair_resamples,
            confidence=confidence,
            weight_basis=weight_basis,
        )
        sets = tuple(
            LabelSet(
                name=name,
                field=field_of(name, study_id),
                n_labels=per_set[name],
                n_in_design=0,
                n_held_back=0,
            )
            for name in names
        )
        return StudyAgreementReport(
            **dict(report),
            study=study_id,
            viewer=viewer,
            labels_held_back=labels_back,
            label_sets=sets,
        )

    label_agreement = None
    if len(names) > 1:  # first: the labels' records are dropped before the design is read
        label_agreement = compute_coded_variable(
            among,
            seed=seed,
            resamples=resamples,
            pair_resamples=pair_resamples,
            confidence=confidence,
            weight_basis=weight_basis,
        )
    del among
    row = sql.design(db, design_pk)
    design, version, rubric = row.name, row.version_no, Rubric.model_validate(row.rubric)
    del row  # its document lists the design's tasks
    fold = CodedFold(rubric)
    hidden = _fold_design(db, design_pk, fold, pending)
    report = compute_coded(
        fold.variables(),
        seed,
        resamples=resamples,
        pair_resamples=pair_resamples,
        confidence=confidence,
        weight_basis=weight_basis,
    )
    paired = fold.pairs
    preferences = fold.variable("preference")
    del fold
    references, counts = reference_agreements(
        preferences,
        labels_by_runs(db, study_id),
        pair_places(db, design_pk),
        pending,
        seed=seed,
        resamples=resamples,
        confidence=confidence,
        weight_basis=weight_basis,
    )
    sets = tuple(
        LabelSet(
            name=name,
            field=field_of(name, study_id),
            n_labels=per_set[name],
            n_in_design=counts.get(name, (0, 0))[0],
            n_held_back=counts.get(name, (0, 0))[1],
        )
        for name in names
    )
    notes = []
    if per_set and not paired:
        notes.append(
            "The design judges no pairs of responses: nothing to compare with the imported labels."
        )
    elif per_set and not any(s.n_in_design for s in sets):
        notes.append("No imported label names the two responses of any item of this design.")
    found = StudyAgreementReport(
        **dict(report),
        study=study_id,
        design=design,
        design_version=version,
        viewer=viewer,
        items_held_back=hidden,
        labels_held_back=labels_back,
        label_sets=sets,
        references=references,
        label_agreement=label_agreement,
        notes=tuple(notes),
    )
    return withhold_sides(found) if unblinded(db, study_id) is None else found
