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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

import numpy as np
from pydantic import NonNegativeInt

from abp_tui.analysis.agreement.input import PREFERENCE_SCALE
from abp_tui.analysis.placement import placement_of, run_picked
from abp_tui.models import DesignRecords, PreferenceChoice
from abp_tui.models.base import Model
from abp_tui.stats.agreement import (
    AgreementReport,
    Observation,
    PairAgreement,
    VariableAgreement,
    WeightBasis,
    compute_variable,
)

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


def run_pair(run_1_pk: int, run_2_pk: int) -> int:
    """One number for two run versions, whichever order they are named in (a map's key that
    costs far less than a set of the two)."""
    lo, hi = sorted((run_1_pk, run_2_pk))
    return (lo << 64) | hi


@dataclass(frozen=True, slots=True)
class PairItem:
    """A design's pair item as a label is mapped onto it: its place in the plan, its code, its
    run a's version and whether it is held back from the viewer."""

    order: int
    code: str
    run_a_pk: int
    hidden: bool


def source_records(
    labels: Iterable[tuple[str, str, str, int, int]], pending: frozenset[int] = frozenset()
) -> list[Observation]:
    """The labels among themselves, as (source item, label set, value) in the source's own
    orientation, from each set's latest label of each source item (source item, label set,
    choice, run 1 key, run 2 key: :func:`abp_tui.store.figure_rows.latest_labels`); labels of a
    pair with a run the viewer still has to judge are left out."""
    out: list[Observation] = []
    names: dict[str, str] = {}
    last = ""
    for item, reviewer, choice, run_1, run_2 in labels:
        if run_1 in pending or run_2 in pending:
            continue
        # A source item's labels come together: its id is held once for all of them.
        last = last if item == last else item
        out.append((last, names.setdefault(reviewer, reviewer), _SOURCE_VALUE[choice]))
    return out


def side_records(
    labels: Iterable[tuple[str, str, int, int]], pairs: Mapping[int, PairItem]
) -> tuple[dict[str, list[Observation]], dict[str, tuple[int, int]]]:
    """Per label set, its labels of the design's pair items (``pairs``, by :func:`run_pair`) as
    the side of the item preferred (unit: the item's code, plan order), held-back items left
    out; and per label set, (labels on the design's items, of which held back). ``labels``:
    each set's latest label of each pair of run versions (label set, choice, run 1 key, run 2
    key: :func:`abp_tui.store.figure_rows.labels_by_runs`); a label of a run's other version is
    another label."""
    found: dict[str, list[Observation]] = {}
    places: dict[str, array[int]] = {}  # each observation's item's place in the plan
    counts: dict[str, list[int]] = {}
    held: dict[str, str] = {}  # a few label sets' names and choices, each held once
    for name, choice, run_1, run_2 in labels:
        reviewer = held.setdefault(name, name)
        found.setdefault(reviewer, [])
        places.setdefault(reviewer, array("q"))
        tally = counts.setdefault(reviewer, [0, 0])
        item = pairs.get(run_pair(run_1, run_2)) if run_1 != run_2 else None
        if item is None:
            continue
        tally[0] += 1
        if item.hidden:
            tally[1] += 1
            continue
        # The label's own placement: the source showed run 1, then run 2.
        run = run_picked(choice, placement_of((run_1, run_2)))
        # A tie or insufficient evidence is the same whichever side.
        value = (
            held.setdefault(choice, choice)
            if run is None
            else ("a" if item.run_a_pk == run else "b")
        )
        found[reviewer].append((item.code, reviewer, value))
        places[reviewer].append(item.order)
    # In plan order (a set labels an item once: its place is its own).
    records = {
        name: [rows[k] for k in np.argsort(places[name], kind="stable").tolist()]
        for name, rows in found.items()
    }
    return records, {name: (t[0], t[1]) for name, t in counts.items()}


def reference_agreements(
    preferences: Sequence[Observation],
    references: Mapping[str, Sequence[Observation]],
    *,
    seed: int,
    resamples: int,
    confidence: float,
    weight_basis: WeightBasis,
) -> tuple[ReferenceAgreement, ...]:
    """Each reviewer of ``preferences`` against each label set that labels an item they judged
    (the same statistics as a pair of reviewers, the pair bootstrapped ``resamples`` times)."""
    reviewers = sorted({r for _u, r, _v in preferences} - set(references))
    out = []
    for reference in sorted(references):
        labels = list(references[reference])
        for reviewer in reviewers:
            own = [o for o in preferences if o[1] == reviewer]
            variable = compute_variable(
                own + labels,
                "nominal",
                PREFERENCE_SCALE,
                variable="preference",
                seed=seed,
                resamples=0,
                pair_resamples=resamples,
                confidence=confidence,
                weight_basis=weight_basis,
            )
            if variable.pairs:
                out.append(
                    ReferenceAgreement(
                        reviewer=reviewer, reference=reference, pair=variable.pairs[0]
                    )
                )
    return tuple(out)
