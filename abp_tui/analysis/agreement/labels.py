"""Imported labels as a reference for a design's reviewers, and what a viewer may be shown.

A study imported with human labels (PandaLM's three annotators, LLMBar's gold ``label``) holds
them as preferences of external reviewers named ``<study>:<field>``. Each label set is a
reference: every design reviewer's preference is measured against it (percent agreement and
Cohen's kappa, with its bootstrap and large-sample intervals), beside the reviewers' agreement
with each other; the label sets' agreement among themselves is the source's own, published data.

A label names response 1 or 2 of the source; a design's item holds the same two runs in its own
orientation (a, b), and each reviewer saw them in a placement of their own. So a label is mapped
through the exact run versions it names, never through a position: "response 1 better" becomes
the side of the item that run 1 stands on.

What a viewer may see is the store's rule for another reviewer's judgment of an item
(:func:`abp_tui.store.judging.others_judgments`), applied to every figure: nothing derived from
an item's judgments, people's or imported labels, reaches a reviewer who has not submitted their
own judgment of it. An item that shares a run with one they still have to judge (in any design of
the study) is held back too: its judgments score the same response. Held back means left out of
every figure, and counted, so the view says how many.

Pure: the caller reads the labels, the items' runs and the viewer's pending runs from the store.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

import numpy as np
from pydantic import NonNegativeInt

from abp_tui.analysis.agreement.input import PREFERENCE_SCALE
from abp_tui.analysis.placement import placement_of, run_picked
from abp_tui.models import DesignRecords, PreferenceChoice
from abp_tui.models.base import Model
from abp_tui.stats.agreement import (
    AgreementError,
    AgreementReport,
    PairAgreement,
    VariableAgreement,
    WeightBasis,
    category_label,
    declared_categories,
    pair_from_counts,
    unsided,
)
from abp_tui.stats.agreement_coded import CodedVariable

SOURCE_SCALE: Final = ("1", "2", "tie", "insufficient_evidence")
"""The labels among themselves, in the source's own orientation (response 1, response 2)."""
_SOURCE_VALUE: Final = {
    PreferenceChoice.RESPONSE_1.value: "1",
    PreferenceChoice.RESPONSE_2.value: "2",
    PreferenceChoice.TIE.value: "tie",
    PreferenceChoice.INSUFFICIENT.value: "insufficient_evidence",
}


def source_scale(allowed: Iterable[Iterable[str] | None]) -> tuple[str, ...]:
    """The categories of the labels among themselves: those the label sets' format allows
    (each set's :class:`~abp_tui.models.PreferenceChoice` values, None when unknown), in
    :data:`SOURCE_SCALE`'s order; every category of the source when any set's is unknown. A
    coefficient whose chance term counts the scale's categories (Gwet's AC1) counts these."""
    values: set[str] = set()
    for choices in allowed:
        if choices is None:
            return SOURCE_SCALE
        values.update(_SOURCE_VALUE[c] for c in choices)
    return tuple(v for v in SOURCE_SCALE if v in values) or SOURCE_SCALE


AMONG_LABELS: Final = "preference among imported labels"
"""The variable name of the label sets' agreement among themselves, beside a design's own."""


@dataclass(frozen=True, slots=True)
class ItemRuns:
    """A design item's blind code and its run versions in the item's own orientation (a, b)."""

    code: str
    run_pks: tuple[int, ...]


class LabelSet(Model):
    """One imported label set and how much of it the figures use."""

    name: str
    """The external reviewer: ``<study>:<field>``."""
    field: str
    """The source's field (``annotator1``, ``label``)."""
    n_labels: NonNegativeInt
    """Items of the source it labels."""
    n_in_design: NonNegativeInt
    """Of those, items whose two runs are a pair item of the design."""
    n_held_back: NonNegativeInt
    """Of those in the design, items held back from the viewer (left out of every figure)."""


class ReferenceAgreement(Model):
    """A design reviewer's preference measured against one imported label set."""

    reviewer: str
    reference: str
    """The label set (``<study>:<field>``)."""
    pair: PairAgreement
    """Percent agreement and Cohen's kappa on the pair items both judged; its bootstrap draws
    the report's ``resamples`` (a reference comparison is a figure people read on its own)."""


class StudyAgreementReport(AgreementReport):
    """A study's agreement as one viewer may see it: the design's reviewers among themselves
    (``variables``), each against every imported label set, and the label sets among
    themselves. Without a design, ``variables`` are the label sets' agreement."""

    study: str
    design: str | None = None
    design_version: int | None = None
    viewer: str | None = None
    """Whose view: None is the coordinator's (every item counts); a name holds back the items
    that reviewer has not submitted a judgment of."""
    items_held_back: NonNegativeInt = 0
    """Design items left out of every figure for the viewer."""
    labels_held_back: NonNegativeInt = 0
    """Source items whose imported labels are left out for the viewer."""
    label_sets: tuple[LabelSet, ...] = ()
    references: tuple[ReferenceAgreement, ...] = ()
    """Each design reviewer against each label set, label sets in name order."""
    label_agreement: VariableAgreement | None = None
    """With a design and two or more label sets: the label sets' agreement among themselves."""
    notes: tuple[str, ...] = ()


SIDES_WITHHELD: Final = (
    "counts withheld while the study is blind: they count picks of side a and side b, the "
    "contrast's two conditions"
)
"""What a face shows in place of a preference's confusion matrix (:func:`withhold_sides`)."""


def withhold_sides(report: StudyAgreementReport) -> StudyAgreementReport:
    """``report`` without the counts of the preference's confusion matrices (between reviewers
    and against each imported label set); every figure stays. A preference's categories are
    the item's sides, a and b, always the contrast's first and second condition: while the
    study is blind its counts would say which condition the reviewers favour, and so would a
    figure's reason naming the one side used (:func:`~abp_tui.stats.agreement.unsided`)."""
    variables = tuple(
        unsided(v).model_copy(update={"pairs": tuple(p.without_sides() for p in v.pairs)})
        if v.variable == "preference"
        else v
        for v in report.variables
    )
    references = tuple(
        r.model_copy(update={"pair": r.pair.without_sides()}) for r in report.references
    )
    return report.model_copy(
        update={
            "variables": variables,
            "references": references,
            "notes": (*report.notes, f"The preference's confusion matrices: {SIDES_WITHHELD}."),
        }
    )


def view_summary(report: StudyAgreementReport) -> str:
    """Whose view the figures are, and what is held back from it: one line every face shows."""
    if report.viewer is None:
        return "Seen as the coordinator: every item counts."
    who = report.viewer
    held = [
        f"{n} {noun}{'s' if n != 1 else ''} {where}"
        for n, noun, where in (
            (report.items_held_back, "item", "of this design"),
            (report.labels_held_back, "labelled source item", "of the imported labels"),
        )
        if n
    ]
    if not held:
        return f"Seen by {who}: every item counts ({who} has no item here left to judge)."
    return (
        f"Seen by {who}: {' and '.join(held)} held back from every figure, until {who} "
        "submits their own judgment of them."
    )


def field_of(label_set: str, study: str) -> str:
    """``annotator1`` of ``<study>:annotator1``."""
    return label_set.removeprefix(f"{study}:")


def held_back(items: Iterable[ItemRuns], pending: frozenset[int]) -> frozenset[str]:
    """Codes of the items that share a run with one the viewer has not submitted."""
    return frozenset(i.code for i in items if pending.intersection(i.run_pks))


def visible(records: DesignRecords, hidden: frozenset[str]) -> DesignRecords:
    """The design's records without any judgment of a held-back item."""
    if not hidden:
        return records
    return replace(records, judgments=tuple(j for j in records.judgments if j.item not in hidden))


def source_variable(
    labels: Iterable[tuple[str, str, str, int, int, int]],
    scale: Sequence[str],
    variable: str,
    pending: frozenset[int] = frozenset(),
) -> tuple[CodedVariable, int]:
    """The labels among themselves as a coded variable (unit: the source item, label set:
    the reviewer, value: the choice in the source's own orientation) from each set's latest
    label of each source item, a source item's labels together (source item, label set, choice,
    run 1 key, run 2 key, stored order: :func:`abp_tui.store.figure_rows.latest_labels`); and
    how many source items it holds. Labels of a pair with a run the viewer still has to judge
    are left out. Raises AgreementError for a label off ``scale``, naming the first stored."""
    categories = declared_categories("nominal", scale, variable)
    index = {c: k for k, c in enumerate(categories)}
    names: dict[str, int] = {}
    unit, reviewer, value = array("q"), array("h"), array("b")
    last, units = None, -1
    offender: tuple[int, str, str, str] | None = None
    for item, name, choice, run_1, run_2, first in labels:
        if run_1 in pending or run_2 in pending:
            continue
        label = _SOURCE_VALUE[choice]
        code = index.get(label)
        if code is None:
            if offender is None or first < offender[0]:
                offender = (first, item, name, label)
            continue
        if item != last:
            last, units = item, units + 1
        unit.append(units)
        reviewer.append(names.setdefault(name, len(names)))
        value.append(code)
    if offender is not None:
        _first, item, name, label = offender
        shown = ", ".join(category_label(c) for c in categories[:12])
        raise AgreementError(
            f"variable {variable!r}: reviewer {name!r} gave item {item!r} the value {label!r}, "
            f"which is not on the scale ({shown})"
        )
    coded = CodedVariable(
        variable=variable,
        level="nominal",
        categories=categories,
        reviewers=tuple(names),
        unit=np.frombuffer(unit, dtype=np.int64),
        reviewer=np.frombuffer(reviewer, dtype=np.int16).astype(np.int64),
        value=np.frombuffer(value, dtype=np.int8).astype(np.int64),
    )
    return coded, units + 1


_SIDE_INDEX: Final = {c: k for k, c in enumerate(PREFERENCE_SCALE)}


def reference_agreements(
    preferences: CodedVariable,
    labels: Iterable[tuple[str, str, int, int]],
    places: Iterable[tuple[int, int, int, int]],
    pending: frozenset[int],
    *,
    seed: int,
    resamples: int,
    confidence: float,
    weight_basis: WeightBasis,
) -> tuple[tuple[ReferenceAgreement, ...], dict[str, tuple[int, int]]]:
    """Each reviewer of ``preferences`` (units: the items' places in the plan) against each
    label set that labels a pair item of the design (percent agreement and Cohen's kappa on
    the items both judged, the pair bootstrapped ``resamples`` times); and per label set,
    (labels on the design's items, of which held back from the viewer).

    ``labels``: each set's latest label of each pair of run versions (label set, choice, run 1
    key, run 2 key: :func:`abp_tui.store.figure_rows.labels_by_runs`), a label of a run's other
    version another label; ``places``: the design's pair items by their runs
    (:func:`abp_tui.store.figure_rows.pair_places`), both by their lower run key, then the
    higher, so that each label meets its item in one pass over both. A label counts as the side
    of the item it preferred, mapped through the runs; an item sharing a run with ``pending``
    is held back. What is held is each pair's confusion matrix: the figures are what
    :func:`~abp_tui.stats.agreement.compute_variable` gives the reviewer's and the set's
    preferences as records (:func:`~abp_tui.stats.agreement.pair_from_counts`). Raises
    AgreementError for a choice that is no preference."""
    names = preferences.reviewers
    judged = np.bincount(preferences.reviewer, minlength=len(names)) > 0
    size = int(preferences.unit.max(initial=-1)) + 1
    q = len(PREFERENCE_SCALE)
    # Each reviewer's pick of each item (-1: none): one small row per item judged.
    picks = np.full((size, len(names)), -1, dtype=np.int8)
    picks[preferences.unit, preferences.reviewer] = preferences.value
    cells: dict[str, list[list[int]]] = {}  # per set, per reviewer: its q x q cells
    counts: dict[str, list[int]] = {}
    labelled: set[str] = set()
    pairs = iter(places)
    at: tuple[int, int, int, int] | None = next(pairs, None)
    for name, choice, run_1, run_2 in labels:
        tally = counts.setdefault(name, [0, 0])
        own = cells.setdefault(name, [[0] * (q * q) for _ in names])
        key = (run_1, run_2) if run_1 < run_2 else (run_2, run_1)
        while at is not None and (at[0], at[1]) < key:
            at = next(pairs, None)
        if at is None or (at[0], at[1]) != key:
            continue
        _lo, _hi, place, run_a = at
        tally[0] += 1
        if run_1 in pending or run_2 in pending:
            tally[1] += 1
            continue
        # The label's own placement: the source showed run 1, then run 2.
        run = run_picked(choice, placement_of((run_1, run_2)))
        # A tie or insufficient evidence is the same whichever side.
        side = choice if run is None else ("a" if run_a == run else "b")
        value = _SIDE_INDEX.get(side)
        if value is None:
            raise AgreementError(
                f"label set {name!r}: the choice {choice!r} is not a preference "
                f"({', '.join(PREFERENCE_SCALE)})"
            )
        labelled.add(name)
        if place < size:
            for k, pick in enumerate(picks[place].tolist()):
                if pick >= 0:
                    own[k][pick * q + value] += 1
    reviewers = sorted({names[k] for k in np.flatnonzero(judged).tolist()} - set(counts))
    out = []
    for reference in sorted(cells):
        if reference not in labelled:
            continue  # no label of the design's items: one reviewer, no pair
        for reviewer in reviewers:
            square = np.array(cells[reference][names.index(reviewer)], dtype=np.int64)
            square = square.reshape(q, q)
            pair = (reviewer, reference)
            if reference < reviewer:
                square, pair = square.T, (reference, reviewer)
            figures = pair_from_counts(
                square,
                PREFERENCE_SCALE,
                pair,
                level="nominal",
                variable="preference",
                seed=seed,
                resamples=resamples,
                confidence=confidence,
                weight_basis=weight_basis,
            )
            out.append(ReferenceAgreement(reviewer=reviewer, reference=reference, pair=figures))
    return tuple(out), {name: (t[0], t[1]) for name, t in counts.items()}
