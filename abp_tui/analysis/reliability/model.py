"""Reliability beyond agreement: every annotator of a study in one latent-class model.

Agreement counts how often two annotators give the same label; annotators who share a model
(two AI judges built on one, or people anchored on the same rubric) can share an error and
agree on it. Dawid-Skene and its one-coin form (:mod:`abp_tui.stats.reliability`) estimate
each annotator's confusion matrix (or competence) and each item's posterior category from all
the labels at once, with no annotator taken as truth. This is a lens beside the verdicts, never
a replacement: the final verdicts stay what people decided, and the report lists the items where
the model's most probable category and the final verdict part, for someone to look at again.

**Units** are pairs of runs. With a design, its pair items in plan order, named by blind code,
the categories being the side preferred in the item's own orientation (``a``, ``b``) or
``tie``; without one, the pairs the study's imported labels name, named by the source's item id,
in the source's own orientation (``1``, ``2``, ``tie``); else the pairs the AI judges judged, in
their own orientation. Every label is mapped through the runs it names, never a position.

**Annotators**, each on its own: a design's reviewers (each one's latest submitted preference
of an item); each label set imported with the study (``<study>:<field>``); each AI judge in each
presentation order (``<judge> (original order)``, ``(swapped order)``: one model shown the
pair both ways is two annotators whose disagreement is its position bias), and per turn when it
judged turns. Insufficient evidence is no label; a tie is a category.

**The comparison** is with the final verdicts of the design (adjudicated, unanimous, single
review; unresolved items have none), or, without a design, the imported labels (their majority
when there are several sets).

Pure: the caller reads the labels and verdicts from the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
from pydantic import FiniteFloat, NonNegativeInt

from abp_tui.errors import AbpError
from abp_tui.models.base import Model
from abp_tui.stats.agreement_models import Interval
from abp_tui.stats.reliability import (
    F64,
    N_ITER,
    TOL,
    LabelData,
    ModelName,
    bootstrap,
    fit,
    interval,
)

TIE: Final = "tie"
AnnotatorKind = Literal["reviewer", "imported labels", "AI judge"]
METHOD: Final = "percentile bootstrap, items resampled with replacement, EM refitted on each"


@dataclass(frozen=True)
class Unit:
    """A pair of runs the model labels: its name, its runs in its own orientation."""

    name: str
    runs: tuple[str, str]


@dataclass(frozen=True)
class PairLabel:
    """One annotator's label of a pair: the run id preferred, or ``tie``."""

    annotator: str
    kind: AnnotatorKind
    runs: tuple[str, str]
    pick: str


def pair_of(runs: Iterable[str]) -> frozenset[str]:
    return frozenset(runs)


class Cell(Model):
    """P(the annotator gives ``label`` | the item's category is ``category``)."""

    category: str
    label: str
    value: FiniteFloat
    interval: Interval | None = None


class AnnotatorReliability(Model):
    """One annotator as the model sees them."""

    name: str
    kind: AnnotatorKind
    n_labels: NonNegativeInt
    n_items: NonNegativeInt
    accuracy: FiniteFloat
    """Dawid-Skene: sum over categories of prior x P(right | category); one-coin: the
    competence, the probability of the right label whatever the category."""
    accuracy_interval: Interval | None = None
    interval_note: str | None = None
    confusion: tuple[Cell, ...] = ()
    """Dawid-Skene only: every (category, label) cell, categories in order."""


class ItemPosterior(Model):
    """An item's posterior over the categories, its most probable one, and the final verdict."""

    item: str
    posterior: dict[str, FiniteFloat]
    label: str
    final: str | None = None
    """The final verdict as a category (None: there is none)."""
    parts: bool = False
    """The model's label differs from the final verdict."""


class ReliabilityFigures(Model):
    """The fitted model: priors, annotators, items, and where it parts from the verdicts."""

    model: ModelName
    categories: tuple[str, ...]
    n_items: NonNegativeInt
    n_labels: NonNegativeInt
    iterations: NonNegativeInt
    converged: bool
    n_iter: NonNegativeInt = N_ITER
    tol: FiniteFloat = TOL
    priors: dict[str, FiniteFloat] | None
    """None when withheld (a blind study: the share of items in each category is a result)."""
    annotators: tuple[AnnotatorReliability, ...]
    items: tuple[ItemPosterior, ...]
    """Every item, or none when withheld (see ``withheld``)."""
    reference: str
    """What the model is compared with."""
    n_compared: NonNegativeInt
    """Items with both a model label and a final verdict."""
    parted: tuple[str, ...]
    """Items where the model's label and the final verdict part."""
    resamples: NonNegativeInt
    seed: int
    confidence: FiniteFloat
    not_converged_resamples: NonNegativeInt = 0
    withheld: str | None = None
    notes: tuple[str, ...] = ()


def _category(unit: Unit, pick: str, sides: tuple[str, str]) -> str | None:
    if pick == TIE:
        return TIE
    if pick == unit.runs[0]:
        return sides[0]
    if pick == unit.runs[1]:
        return sides[1]
    return None  # insufficient evidence, or a run not in the pair


def _cells(
    categories: Sequence[str], values: F64, intervals: list[list[Interval | None]]
) -> tuple[Cell, ...]:
    """Every cell of a matrix ``values[label, category]``, category by category."""
    return tuple(
        Cell(category=k, label=lab, value=float(values[li, ki]), interval=intervals[li][ki])
        for ki, k in enumerate(categories)
        for li, lab in enumerate(categories)
    )


def reliability(
    units: Sequence[Unit],
    labels: Iterable[PairLabel],
    final: Mapping[frozenset[str], str],
    *,
    sides: tuple[str, str],
    reference: str,
    model: ModelName = "dawid-skene",
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> ReliabilityFigures:
    """Fit ``model`` over every annotator's labels of ``units`` and compare it with ``final``
    (pair -> run id preferred or ``tie``). ``sides`` name the categories of a unit's first
    and second run (``a``, ``b``; ``1``, ``2``)."""
    by_pair = {pair_of(u.runs): u for u in units}
    values: dict[tuple[str, str], str] = {}
    kinds: dict[str, AnnotatorKind] = {}
    for label in labels:
        unit = by_pair.get(pair_of(label.runs))
        if unit is None:
            continue
        value = _category(unit, label.pick, sides)
        if value is None:
            continue
        values[(unit.name, label.annotator)] = value  # the latest of an annotator counts
        kinds.setdefault(label.annotator, label.kind)
    order = [sides[0], sides[1], TIE]
    categories = tuple(c for c in order if c in set(values.values()))
    if len(kinds) < 2:
        raise AbpError(
            f"reliability needs the labels of two or more annotators, found {len(kinds)}: "
            "judge the design, import labels or AI judges' verdicts"
        )
    if len(categories) < 2:
        raise AbpError(
            f"every label is {categories[0] if categories else 'absent'}: a model of "
            "annotators' errors needs two or more categories among the labels"
        )
    names = [u.name for u in units if any((u.name, a) in values for a in kinds)]
    item_index = {n: i for i, n in enumerate(names)}
    annotators = sorted(kinds)
    annotator_index = {a: i for i, a in enumerate(annotators)}
    category_index = {c: i for i, c in enumerate(categories)}
    rows = sorted(values.items(), key=lambda kv: (item_index[kv[0][0]], kv[0][1]))
    data = LabelData(
        n_items=len(names),
        n_annotators=len(annotators),
        n_categories=len(categories),
        item=np.array([item_index[i] for (i, _a), _v in rows], dtype=np.int64),
        annotator=np.array([annotator_index[a] for (_i, a), _v in rows], dtype=np.int64),
        label=np.array([category_index[v] for _k, v in rows], dtype=np.int64),
    )
    result = fit(data, model)
    boot = bootstrap(data, model, resamples=resamples, seed=seed) if resamples else None
    notes = []
    if not result.converged:
        notes.append(
            f"EM stopped after {N_ITER} rounds without its lower bound settling (tol {TOL})."
        )
    if boot is not None and boot.not_converged:
        notes.append(
            f"{boot.not_converged} of {resamples} resamples stopped after {N_ITER} rounds "
            "without settling; their figures are still counted."
        )

    def _interval(samples: F64) -> Interval | None:
        if boot is None:
            return None
        found = interval(samples, confidence)
        if found is None:
            return None
        low, high, used = found
        return Interval(
            low=low,
            high=high,
            confidence=confidence,
            method=METHOD,
            resamples=resamples,
            resamples_used=used,
            seed=seed,
        )

    out = []
    for a, name in enumerate(annotators):
        mine = data.annotator == a
        acc_interval = _interval(boot.accuracy[:, a]) if boot is not None else None
        note = None
        if boot is not None and acc_interval is None:
            note = "undefined: the annotator labels nothing in too many resamples"
        cells: tuple[Cell, ...] = ()
        if model == "dawid-skene":
            k = len(categories)
            intervals = [
                [
                    _interval(boot.errors[:, a, li, ki]) if boot is not None else None
                    for ki in range(k)
                ]
                for li in range(k)
            ]
            cells = _cells(categories, result.errors[a], intervals)
        out.append(
            AnnotatorReliability(
                name=name,
                kind=kinds[name],
                n_labels=int(mine.sum()),
                n_items=len(np.unique(data.item[mine])),
                accuracy=float(result.accuracy[a]),
                accuracy_interval=acc_interval,
                interval_note=note,
                confusion=cells,
            )
        )
    items = []
    parted = []
    compared = 0
    labels_of = result.labels
    by_name = {u.name: u for u in units}
    for i, name in enumerate(names):
        unit = by_name[name]
        chosen = final.get(pair_of(unit.runs))
        verdict = None if chosen is None else _category(unit, chosen, sides)
        most = categories[int(labels_of[i])]
        parts = verdict is not None and verdict != most
        compared += verdict is not None
        if parts:
            parted.append(name)
        items.append(
            ItemPosterior(
                item=name,
                posterior={c: float(result.probas[i, j]) for j, c in enumerate(categories)},
                label=most,
                final=verdict,
                parts=parts,
            )
        )
    return ReliabilityFigures(
        model=model,
        categories=categories,
        n_items=data.n_items,
        n_labels=len(rows),
        iterations=result.iterations,
        converged=result.converged,
        priors={c: float(result.priors[j]) for j, c in enumerate(categories)},
        annotators=tuple(out),
        items=tuple(items),
        reference=reference,
        n_compared=compared,
        parted=tuple(parted),
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        not_converged_resamples=boot.not_converged if boot is not None else 0,
        notes=tuple(notes),
    )


class ReliabilityReport(ReliabilityFigures):
    """A study's reliability figures as one viewer may see them."""

    study: str
    design: str | None = None
    design_version: int | None = None
    viewer: str | None = None
    """Whose view: None is the coordinator's; a name holds back the items that share a run
    with one that reviewer has not submitted a judgment of."""
    items_held_back: NonNegativeInt = 0
    """Items left out of the model for the viewer (never named)."""


def withhold(figures: ReliabilityFigures, unblind_hint: str) -> ReliabilityFigures:
    """The figures of a blind study: no priors, no item's posterior or label and no annotator's
    confusion matrix (a side of an item, the share of items on each side and how often each
    annotator gives each side are results by condition: side a is always the contrast's first
    condition); the annotators' accuracies, the count of items compared and the items where
    the model and the final verdicts part stay (as the agreement's figures do)."""
    return figures.model_copy(
        update={
            "priors": None,
            "items": (),
            "annotators": tuple(a.model_copy(update={"confusion": ()}) for a in figures.annotators),
            "withheld": (
                "The categories' priors, each item's posterior and label and each annotator's "
                f"confusion matrix are withheld until {unblind_hint}: the study is blind."
            ),
        }
    )
