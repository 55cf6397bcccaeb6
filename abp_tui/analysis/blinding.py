"""The study plan: items, blind codes, reviewer assignment, placement, order.

Everything here is a pure function of the design and the stored runs, so the same seed gives the
same plan. The algorithm, step by step:

1. **Items.** For each contrast (a, b) in the design's order, each selected task (sorted by id) and
   each trial present under both conditions, one pair item joins the k-th run of a with the k-th
   run of b (runs of one task, condition and trial sorted by id). With ``single_items`` every
   selected run is also an item of its own. An item's key names what it compares.
2. **Blind codes.** ``P-`` (pair) or ``S-`` (single) and the first six base-32 characters of
   SHA-256(``"{seed}:{key}"``), lengthened on a collision. Codes never contain run ids.
3. **Assignment.** Items are shuffled with ``random.Random(seed)``; with listed reviewers R and k
   reviewers per item, the item at shuffled position i goes to R[(i*k + m) mod |R|] for m < k, in
   slot m, which balances workload. With no listed reviewers every reviewer judges every item, in
   the slot of their enrolment order.
4. **Placement.** Within each contrast, the pair items in shuffled order alternate a base
   orientation (even positions: condition a is Response 1). A reviewer in slot m sees the base
   orientation flipped when m is odd: across the reviewers of a pair both orders occur equally,
   and for each reviewer each condition is on the left about half the time.
5. **Order.** Each reviewer's items are shuffled with ``random.Random("{seed}:{reviewer}")``.

Identity masking, which the plan records, is :mod:`abp_tui.analysis.masking`; its names are
imported here too for the callers that know them from here.
"""

from __future__ import annotations

import base64
import hashlib
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from abp_tui.analysis.masking import MASK, Masker, identity_terms
from abp_tui.models.design import StudyDesign

__all__ = [
    "MASK",
    "Assignment",
    "Masker",
    "PlanError",
    "PlanRun",
    "PlannedItem",
    "assign",
    "contrasts_of",
    "enrol",
    "identity_terms",
    "plan_items",
]


@dataclass(frozen=True)
class PlanRun:
    """What the plan needs of a stored run."""

    pk: int
    id: str
    task_id: str
    condition_id: str
    trial: int


@dataclass(frozen=True)
class PlannedItem:
    key: str
    code: str
    kind: str
    """``pair`` or ``single``."""
    task_id: str
    trial: int
    run_a: PlanRun
    run_b: PlanRun | None
    base_flip: bool
    """Base orientation: False shows run_a as Response 1."""

    @property
    def contrast(self) -> tuple[str, str] | None:
        if self.run_b is None:
            return None
        return (self.run_a.condition_id, self.run_b.condition_id)


@dataclass(frozen=True)
class Assignment:
    item_key: str
    reviewer: str
    slot: int
    order_index: int
    flipped: bool
    """True when run_b is shown as Response 1."""


class PlanError(ValueError):
    """The design does not fit the stored study (unknown task or condition, nothing to judge)."""


def contrasts_of(design: StudyDesign, conditions: Sequence[str]) -> list[tuple[str, str]]:
    if design.contrasts == "none":
        return []
    if design.contrasts == "all-pairs":
        return list(combinations(sorted(conditions), 2))
    return [(a, b) for a, b in design.contrasts]


def _code(seed: int, key: str, prefix: str, taken: set[str]) -> str:
    digest = base64.b32encode(hashlib.sha256(f"{seed}:{key}".encode()).digest()).decode()
    length = 6
    while (code := f"{prefix}-{digest[:length]}") in taken:
        length += 1
    taken.add(code)
    return code


def plan_items(design: StudyDesign, runs: Iterable[PlanRun]) -> list[PlannedItem]:
    """Steps 1 and 2, plus the base orientation of step 4. Raises PlanError on a misfit."""
    all_runs = list(runs)
    known_tasks = sorted({r.task_id for r in all_runs})
    known_conditions = sorted({r.condition_id for r in all_runs})
    tasks = known_tasks if design.tasks == "all" else list(design.tasks)
    conditions = known_conditions if design.conditions == "all" else list(design.conditions)
    for t in tasks:
        if t not in known_tasks:
            raise PlanError(f"tasks: {t!r} has no runs in study {design.study!r}")
    contrasts = contrasts_of(design, conditions)
    for a, b in contrasts:
        for c in (a, b):
            if c not in known_conditions:
                raise PlanError(f"contrasts: condition {c!r} has no runs in study {design.study!r}")
    for c in conditions:
        if c not in known_conditions:
            raise PlanError(f"conditions: {c!r} has no runs in study {design.study!r}")
    cell: dict[tuple[str, str, int], list[PlanRun]] = defaultdict(list)
    for r in all_runs:
        cell[(r.task_id, r.condition_id, r.trial)].append(r)
    for runs_in_cell in cell.values():
        runs_in_cell.sort(key=lambda r: r.id)
    taken: set[str] = set()
    items: list[PlannedItem] = []
    for a, b in contrasts:
        for task in sorted(tasks):
            trials = sorted(
                {t for (tk, c, t) in cell if tk == task and c == a}
                & {t for (tk, c, t) in cell if tk == task and c == b}
            )
            for trial in trials:
                for k, (ra, rb) in enumerate(
                    zip(cell[(task, a, trial)], cell[(task, b, trial)], strict=False)
                ):
                    key = f"pair|{a}|{b}|{task}|{trial}|{k}"
                    items.append(
                        PlannedItem(
                            key,
                            _code(design.seed, key, "P", taken),
                            "pair",
                            task,
                            trial,
                            ra,
                            rb,
                            False,
                        )
                    )
    if design.single_items:
        for r in sorted(all_runs, key=lambda r: (r.task_id, r.condition_id, r.trial, r.id)):
            if r.task_id in tasks and r.condition_id in conditions:
                key = f"single|{r.id}"
                items.append(
                    PlannedItem(
                        key,
                        _code(design.seed, key, "S", taken),
                        "single",
                        r.task_id,
                        r.trial,
                        r,
                        None,
                        False,
                    )
                )
    if not items:
        raise PlanError(f"the design selects nothing to judge in study {design.study!r}")
    # Step 4's base orientation: alternate within each contrast, in seeded order.
    rng = random.Random(design.seed)
    shuffled = list(items)
    rng.shuffle(shuffled)
    position: dict[tuple[str, str] | None, int] = defaultdict(int)
    base: dict[str, bool] = {}
    for item in shuffled:
        if item.kind == "pair":
            base[item.key] = position[item.contrast] % 2 == 1
            position[item.contrast] += 1
    return [
        PlannedItem(
            i.key, i.code, i.kind, i.task_id, i.trial, i.run_a, i.run_b, base.get(i.key, False)
        )
        for i in items
    ]


def _shuffled_keys(design: StudyDesign, items: Sequence[PlannedItem]) -> list[str]:
    keys = [i.key for i in items]
    random.Random(design.seed).shuffle(keys)
    return keys


def assign(design: StudyDesign, items: Sequence[PlannedItem]) -> list[Assignment]:
    """Step 3 (listed reviewers), 4 and 5: every assignment of the study."""
    if not design.reviewers:
        return []
    reviewers = design.reviewers
    if design.reviewers_per_item > len(reviewers):
        raise PlanError(
            f"reviewers_per_item is {design.reviewers_per_item} but only {len(reviewers)} "
            "reviewers are listed"
        )
    by_key = {i.key: i for i in items}
    per_reviewer: dict[str, list[tuple[str, int]]] = defaultdict(list)
    k = design.reviewers_per_item
    for i, key in enumerate(_shuffled_keys(design, items)):
        for m in range(k):
            per_reviewer[reviewers[(i * k + m) % len(reviewers)]].append((key, m))
    out: list[Assignment] = []
    for reviewer in reviewers:
        out.extend(_ordered(design, reviewer, per_reviewer[reviewer], by_key))
    return out


def enrol(
    design: StudyDesign, items: Sequence[PlannedItem], reviewer: str, slot: int
) -> list[Assignment]:
    """Step 3 for an open design: the reviewer enrolled in ``slot`` judges every item."""
    by_key = {i.key: i for i in items}
    return _ordered(design, reviewer, [(i.key, slot) for i in items], by_key)


def _ordered(
    design: StudyDesign, reviewer: str, keyed: list[tuple[str, int]], by_key: dict[str, PlannedItem]
) -> list[Assignment]:
    keyed = sorted(keyed)
    random.Random(f"{design.seed}:{reviewer}").shuffle(keyed)
    return [
        Assignment(
            key,
            reviewer,
            slot,
            index,
            by_key[key].kind == "pair" and (by_key[key].base_flip != (slot % 2 == 1)),
        )
        for index, (key, slot) in enumerate(keyed)
    ]
