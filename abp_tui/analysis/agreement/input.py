"""What agreement between reviewers is measured on: records, levels and declared scales."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from abp_tui.analysis.records import (
    first_submitted,
    in_plan_order,
    place,
    preferred,
    preferred_run,
    side,
)
from abp_tui.analysis.scoring import result_state, total
from abp_tui.models import DesignRecords, Item, JudgmentRevision, ResultState, Rubric
from abp_tui.stats.agreement import Category, Observation

STATE_SCALE: Final = tuple(s.value for s in ResultState)
PREFERENCE_SCALE: Final = ("a", "b", "tie", "insufficient_evidence")
FLAG_SCALE: Final = (0, 1)


@dataclass(frozen=True)
class AgreementInput:
    """Per variable: the (unit, reviewer, value) records, the level and the declared scale."""

    records: dict[str, list[Observation]]
    levels: dict[str, str]
    scales: dict[str, tuple[Category, ...]]


def agreement_input(records: DesignRecords) -> AgreementInput:
    """What agreement is measured on, from each reviewer's FIRST submitted judgment of an item.

    A reviewer may revise a submitted judgment after seeing the others' (and adjudication comes
    later still); a revision made that way is no longer an independent judgment, so agreement is
    measured on the first submission. Verdicts use the latest.

    Variables: each scored rubric dimension (``dimension:<id>``, ordinal on its declared scale),
    the total (interval, 0 to the rubric's maximum), the result state (nominal, the six states),
    whether any fatal criterion was hit (``fatal_hit``) and each fatal criterion of the judged
    items' tasks and of the rubric (``fatal:<criterion>``), both nominal 0/1, and, when the
    design has pairs, the preference (nominal); for a preference-only design, the preference
    alone. Total and fatal flags are not recorded for a response whose state the reviewer
    overrode (it was not scored against the rubric). All but
    the preference are judged per run within an item (unit: item code and the run's side in the
    item); the preference per item (unit: item code), recorded as the side preferred in the
    item's own orientation, never as the position shown (each reviewer saw their own placement).
    """
    fold = AgreementFold(records.rubric)
    items = {i.code: i for i in records.items}
    # In plan order: the statistics' bootstrap draws units in the order they first appear.
    first = in_plan_order(records.items, first_submitted(records.judgments))
    fold.pairs = any(i.is_pair for i in records.items)
    for code, judgments in first.items():
        item = items[code]
        fold.add(item, judgments, records.task_criteria.get(item.task, ()))
    return fold.result()


class AgreementFold:
    """:func:`agreement_input` one item at a time: what agreement is measured on, folded from
    each item's first submitted judgments in plan order, so that a large design's judgments
    are never all held (only the observations are)."""

    def __init__(self, rubric: Rubric) -> None:
        self.rubric = rubric
        self.levels: dict[str, str] = {}
        self.scales: dict[str, tuple[Category, ...]] = {}
        for dim in rubric.dimensions:
            if dim.scored:
                self.levels[f"dimension:{dim.id}"] = "ordinal"
                self.scales[f"dimension:{dim.id}"] = tuple(dim.scale)
        if not rubric.preference_only:  # a preference-only design judges no response alone
            self.levels["total"], self.scales["total"] = (
                "interval",
                tuple(range(rubric.max_total + 1)),
            )
            self.levels["result_state"], self.scales["result_state"] = "nominal", STATE_SCALE
            self.levels["fatal_hit"], self.scales["fatal_hit"] = "nominal", FLAG_SCALE
        self.out: dict[str, list[Observation]] = {name: [] for name in self.levels}
        self.criteria: dict[str, None] = {}
        """Fatal criteria of the judged items' tasks and of the rubric, as first met."""
        self.pairs = False
        """Whether the design has pair items (judged or not): then the preference counts."""
        self._code = ""
        self._units: dict[str | None, str] = {}

    def add(
        self, item: Item, judgments: Sequence[JudgmentRevision], task_criteria: Sequence[str]
    ) -> None:
        """One judged item: each reviewer's first submitted judgment of it (reviewers by name),
        and the fatal criteria of its task."""
        rubric = self.rubric
        put = self._put
        self.pairs = self.pairs or item.is_pair
        self._begin(item)
        criteria: tuple[str, ...] = ()
        if not rubric.preference_only:
            criteria = tuple(dict.fromkeys((*task_criteria, *rubric.fatal_criteria)))
            for criterion in criteria:
                if criterion not in self.criteria:
                    self.criteria[criterion] = None
                    self._new_variable(f"fatal:{criterion}", FLAG_SCALE)
        for j in judgments:
            # In the item's own order, whatever order a record kept: the statistics' bootstrap
            # draws units in the order they first appear.
            ordered = sorted(j.judgment.responses.items(), key=lambda r: (place(item, r[0]), r[0]))
            for run, response in ordered:
                at = side(item, run)
                for dim in rubric.dimensions:
                    if dim.scored and dim.id in response.scores:
                        put(f"dimension:{dim.id}", at, j.reviewer, response.scores[dim.id])
                state = result_state(rubric, response)
                if state is not None:
                    put("result_state", at, j.reviewer, state.value)
                if response.state_override is not None or rubric.preference_only:
                    continue
                summed = total(rubric, response)
                if summed is not None:
                    put("total", at, j.reviewer, summed)
                put("fatal_hit", at, j.reviewer, int(bool(response.fatal_hits)))
                for criterion in criteria:
                    put(f"fatal:{criterion}", at, j.reviewer, int(criterion in response.fatal_hits))
            choice = preferred(j)
            if item.is_pair and choice is not None:
                chosen = preferred_run(j)
                value = choice if chosen is None else side(item, chosen)
                put("preference", None, j.reviewer, value)

    def _begin(self, item: Item) -> None:
        """The item whose judgments are put next."""
        self._code = item.code
        self._units = {None: item.code}

    def _new_variable(self, name: str, scale: tuple[Category, ...]) -> None:
        """A fatal criterion first met: its variable, on ``scale``."""
        self.out[name] = []

    def _put(self, name: str, at: str | None, reviewer: str, value: Category | None) -> None:
        """One observation of variable ``name``: the item put last's run on side ``at`` (None:
        the item itself), as one reviewer judged it."""
        unit = self._units.get(at)
        if unit is None:  # one string for every variable of the run
            unit = self._units[at] = f"{self._code}:{at}"
        self.out.setdefault(name, []).append((unit, reviewer, value))

    def result(self) -> AgreementInput:
        """The records, levels and scales: the rubric's variables, then each fatal criterion as
        first met, then the preference when the design has pairs."""
        levels, scales = dict(self.levels), dict(self.scales)
        for name in self.criteria:
            levels[f"fatal:{name}"], scales[f"fatal:{name}"] = "nominal", FLAG_SCALE
        if self.pairs:
            levels["preference"], scales["preference"] = "nominal", PREFERENCE_SCALE
        records = {name: self.out.get(name, []) for name in levels}
        return AgreementInput(records, levels, scales)
