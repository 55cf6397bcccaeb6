"""Active allocation of a design's human budget: which items people judge, drawn with
probabilities that grow with the AI judges' uncertainty (:mod:`abp_tui.stats.allocation`).

An item's **uncertainty** is its distrust as the judge-informed queue measures it
(:func:`abp_tui.analysis.judges.queue.distrust`): the sum of the ``WEIGHTS`` of its reasons, a
judge's two presentation orders at odds or two judges at odds 2 each, scores far apart 2, a
fatal criterion named 3, a judge's error 1; plus 1 where a judge's verdict sits on the
decision boundary (:func:`boundary_items`: a tie, a partial pass, a score within 0.1 of its
scale's middle); 0 where the judges agree and are decided (or none judged it). The
probabilities are computed once, when the plan is stored, from the verdicts stored then; the
draw is seeded by :func:`allocation_seed`, an HMAC of the design's seed under its plan secret,
so it is secret while the study is blind and anyone can redraw it once a full bundle reveals
the secret (:func:`check_draws`, which ``verify`` runs). Only drawn items are assigned to
reviewers.

The estimates' units are pairs (a contrast's win rate) and runs (a condition's pass rate). A
pair's probability of reaching people is its item's; a run judged in several items (two pairs,
or a pair and its own single item) reaches people when any of them is drawn, with probability
1 - prod(1 - pi) over those items (the draws are independent): :func:`allocation_units`. Pure.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from abp_tui.analysis.judges.arrays import (
    NO_RUN,
    PARTIAL,
    PASS_FAIL,
    PREFERENCE,
    SCORE,
    TIE_PICK,
    VerdictTable,
)
from abp_tui.analysis.judges.queue import WEIGHTS, ItemKey, ScaleKey, item_key, place_on_scale
from abp_tui.analysis.judges.units import AllocationUnits, Pair, pair_key
from abp_tui.models import AllocationDraw, Item, StudyDesign
from abp_tui.stats.allocation import (
    DEFAULT_FLOOR,
    allocation_probabilities,
    budget_items,
    draw,
    inclusion,
)

_TOLERANCE = 1e-9
BOUNDARY_WEIGHT = 1
"""What a verdict on the decision boundary adds to an item's uncertainty."""
MIDDLE_BAND = 0.1
"""A score within this share of its scale from the middle is on the boundary (4.6 to 6.4 on
1 to 10)."""


def allocation_seed(secret: str | None, seed: int) -> int:
    """The draw's seed: the first 8 bytes of HMAC-SHA256 under the plan secret of
    ``allocation:{seed}`` as a signed 64-bit number, as the database stores it (a design
    without a secret: its seed)."""
    if secret is None:
        return seed
    mac = hmac.new(secret.encode("utf-8"), f"allocation:{seed}".encode(), hashlib.sha256)
    return int.from_bytes(mac.digest()[:8], "big", signed=True)


def uncertainty(reasons: Sequence[str], near_boundary: bool = False) -> float:
    """An item's uncertainty: the sum of its distrust reasons' weights, plus
    ``BOUNDARY_WEIGHT`` when a judge's verdict on it sits on the decision boundary."""
    return float(sum(WEIGHTS.get(r, 1) for r in reasons) + BOUNDARY_WEIGHT * near_boundary)


def boundary_items(
    table: VerdictTable, scales: Mapping[ScaleKey, tuple[float, float]]
) -> set[ItemKey]:
    """The items (:func:`abp_tui.analysis.judges.queue.item_key`) a judge's current verdict puts
    on the decision boundary: a pair it calls a tie, a run it passes partially, or a run whose
    score sits within ``MIDDLE_BAND`` of the middle of its scale (the scale the verdict
    states, else the judge's own range, as the queue places scores)."""
    runs = table.runs
    out: set[ItemKey] = set()
    current = table.current
    pair = current & (table.kind == PREFERENCE) & (table.run_b != NO_RUN)
    for row in np.flatnonzero(pair & (table.verdict == TIE_PICK)).tolist():
        out.add(item_key((runs[int(table.run_a[row])], runs[int(table.run_b[row])])))
    single = current & (table.run_b == NO_RUN) & (table.kind != PREFERENCE)
    partial = single & (table.kind == PASS_FAIL) & (table.verdict == PARTIAL)
    for row in np.flatnonzero(partial).tolist():
        out.add((runs[int(table.run_a[row])],))
    scored = np.flatnonzero(single & (table.kind == SCORE) & ~np.isnan(table.score))
    if scored.size:
        place = place_on_scale(table, scored, scales)
        with np.errstate(invalid="ignore"):
            near = np.abs(place - 0.5) <= MIDDLE_BAND + 1e-9
        for row in scored[near].tolist():
            out.add((runs[int(table.run_a[row])],))
    return out


def floor_of(design: StudyDesign) -> float:
    return DEFAULT_FLOOR if design.allocation_floor is None else design.allocation_floor


def probabilities(design: StudyDesign, uncertainties: Sequence[float]) -> np.ndarray:
    """Each item's probability under the design's budget and floor (ValueError: the budget
    cannot be met, e.g. below the floor times the number of items)."""
    assert design.human_budget is not None
    u = np.asarray(uncertainties, dtype=np.float64)
    budget = budget_items(design.human_budget, u.size)
    return allocation_probabilities(u, budget, floor_of(design))


def allocate(
    design: StudyDesign, codes: Sequence[str], uncertainties: Sequence[float], draw_seed: int
) -> tuple[AllocationDraw, ...]:
    """The draw of a design with a human budget: one per item, in plan order."""
    pi = probabilities(design, uncertainties)
    drawn = draw(pi, draw_seed)
    return tuple(
        AllocationDraw(item=c, uncertainty=float(u), probability=float(p), drawn=bool(d))
        for c, u, p, d in zip(codes, uncertainties, pi.tolist(), drawn.tolist(), strict=True)
    )


def check_draws(
    design: StudyDesign, codes: Sequence[str], draws: Sequence[AllocationDraw], draw_seed: int
) -> list[str]:
    """What in ``draws`` does not re-derive from their uncertainties, the design's budget and
    floor and the seed: each a line naming the item and the field (empty: all re-derive)."""
    if design.human_budget is None:
        return ["the design sets no human_budget, yet the bundle carries allocation draws"] * bool(
            draws
        )
    by_code = {d.item: d for d in draws}
    missing = [c for c in codes if c not in by_code]
    extra = sorted(set(by_code) - set(codes))
    if missing or extra:
        named = missing[:1] or extra[:1]
        what = "has no draw" if missing else "is no item of the design"
        return [f"item {named[0]} {what} ({len(missing)} missing, {len(extra)} unknown)"]
    ordered = [by_code[c] for c in codes]
    problems: list[str] = []
    try:
        pi = probabilities(design, [d.uncertainty for d in ordered])
    except ValueError as exc:
        return [f"the probabilities cannot be derived: {exc}"]
    drawn = draw(pi, draw_seed)
    for d, p, x in zip(ordered, pi.tolist(), drawn.tolist(), strict=True):
        if abs(d.probability - p) > _TOLERANCE:
            problems.append(
                f"item {d.item}: probability {d.probability!r}, but its uncertainty "
                f"{d.uncertainty:g} under the design's budget and floor gives {p!r}"
            )
        elif d.drawn != x:
            problems.append(
                f"item {d.item}: drawn is {str(d.drawn).lower()}, but the seeded draw gives "
                f"{str(x).lower()}"
            )
    return problems


def allocation_units(
    design: StudyDesign, items: Sequence[Item], draws: Sequence[AllocationDraw]
) -> AllocationUnits | None:
    """The units of a design's draw (None: the design has no human budget or no draw)."""
    if design.human_budget is None or not draws:
        return None
    by_code = {d.item: d for d in draws}
    pair_pi: dict[Pair, list[float]] = defaultdict(list)
    run_pi: dict[str, list[float]] = defaultdict(list)
    drawn_pairs: set[Pair] = set()
    drawn_runs: set[str] = set()
    for item in items:
        d = by_code.get(item.code)
        if d is None:
            continue
        if item.is_pair:
            pair_pi[pair_key(item.runs)].append(d.probability)
            if d.drawn:
                drawn_pairs.add(pair_key(item.runs))
        for run in item.runs:
            run_pi[run].append(d.probability)
            if d.drawn:
                drawn_runs.add(run)
    return AllocationUnits(
        budget=str(design.human_budget),
        floor=floor_of(design),
        items=len(draws),
        drawn_items=sum(d.drawn for d in draws),
        expected=float(sum(d.probability for d in draws)),
        pairs={k: inclusion(np.asarray(v)) for k, v in pair_pi.items()},
        runs={k: inclusion(np.asarray(v)) for k, v in run_pi.items()},
        drawn_pairs=frozenset(drawn_pairs),
        drawn_runs=frozenset(drawn_runs),
    )


__all__ = [
    "allocate",
    "allocation_seed",
    "allocation_units",
    "boundary_items",
    "check_draws",
    "floor_of",
    "probabilities",
    "uncertainty",
]
