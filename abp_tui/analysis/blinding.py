"""The study plan: items, blind codes, reviewer assignment, placement, order.

Everything here is a pure function of the design, the stored runs and the design's **plan
secret**, so the same secret and seed give the same plan. The secret (:func:`new_plan_secret`,
256 random bits) stays in the coordinator's database: a pack or a station database never holds
it, so nothing a reviewer has is derived from a value they could guess. The design records its
commitment (:func:`plan_commitment`, the SHA-256 of the secret) when it is stored, so the design
hash binds it; the publication bundle reveals the secret after unblinding and ``verify``
re-derives the codes and placement from it. The algorithm, step by step:

1. **Items.** For each contrast (a, b) in the design's order, each selected task (sorted by id) and
   each trial present under both conditions, one pair item joins the k-th run of a with the k-th
   run of b (runs of one task, condition and trial sorted by id). With ``single_items`` every
   selected run is also an item of its own. An item's key names what it compares.
2. **Blind codes.** ``P-`` (pair) or ``S-`` (single) and the first six base-32 characters of
   HMAC-SHA256(secret, ``["code", seed, kind, run ids...]``), lengthened on a collision (in plan
   order).
3. **Assignment.** Items are shuffled with a generator seeded by HMAC(secret, ``["plan",
   seed]``); with listed reviewers R and k reviewers per item, the item at shuffled position i
   goes to R[(i*k + m) mod |R|] for m < k, in slot m, which balances workload. With no listed
   reviewers every reviewer judges every item, in the slot of their enrolment order. Items that
   share a run (a baseline compared with several conditions) would show one reviewer the same
   text twice: when the reviewers are enough, a design planned since that rule (its document
   records ``shared_runs_apart``) moves each group of such items onto consecutive shuffled
   positions, which go to different reviewers (:mod:`abp_tui.analysis.shared_runs`). Under a
   human budget only the items drawn for people are dealt, i counting them alone, so each
   reviewer gets as many as the others (a design planned since: its document records
   ``budget_balanced``).
4. **Placement.** Items judged by the same reviewers (the same i*k mod |R|) within one contrast,
   taken in the order of a second shuffle (HMAC(secret, ``["orientation", seed]``)), alternate a
   base orientation (even positions: condition a is Response 1). A reviewer in slot m sees the
   base orientation flipped when m is odd: across the reviewers of a pair both orders occur
   equally, and each reviewer sees each condition as Response 1 on half of their items of a
   contrast (one more on an odd count).
5. **Order.** Each reviewer's items are shuffled with a generator seeded by HMAC(secret,
   ``["order", seed, reviewer]``). A design planned since reviewers meet items in common blocks
   (its document records ``order_blocks``, :data:`ORDER_BLOCK`) shuffles within blocks: each
   reviewer takes their items in step 3's shared order (for an open design, the order of
   HMAC(secret, ``["plan", seed]``)'s shuffle of every item), cut into consecutive blocks of
   :data:`ORDER_BLOCK`, and only each block is shuffled with the reviewer's generator. Two
   reviewers who have each judged their first block have judged many of the same items (all of
   them when both judge every item), so agreement has items to measure from the first minutes,
   while no two reviewers see the same sequence.

A design stored before plan secrets has none (``secret=None``): its plan followed from the seed
alone (codes from SHA-256 of ``"{seed}:{key}"``, ``random.Random(seed)`` for steps 3 and 4 with
one shuffle, ``random.Random("{seed}:{reviewer}")`` for step 5). That derivation is kept only so
such a design still enrols reviewers as it did; nothing new is planned with it, and a pack of
such a design is refused (:mod:`abp_tui.services.stations`).

The bundled demo studies use :data:`DEMO_PLAN_SECRET`, a published secret, so that the synthetic
demo gets the same codes everywhere; a demo pack is therefore not blind.

Identity masking, which the plan records, is :mod:`abp_tui.analysis.masking`; its names are
imported here too for the callers that know them from here.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import secrets
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Final

from abp_tui.analysis.masking import MASK, Masker, identity_terms
from abp_tui.analysis.shared_runs import apart, keeps_apart
from abp_tui.models.design import StudyDesign
from abp_tui.text.canonical import canonical_json, sha256_text

__all__ = [
    "BUDGET_BALANCED_KEY",
    "DEMO_PLAN_SECRET",
    "MASK",
    "ORDER_BLOCK",
    "ORDER_BLOCKS_KEY",
    "Assignment",
    "Masker",
    "PlanEntry",
    "PlanError",
    "PlanRun",
    "PlannedItem",
    "assign",
    "blind",
    "contrasts_of",
    "enrol",
    "identity_terms",
    "item_runs",
    "new_plan_secret",
    "plan_commitment",
    "plan_items",
    "unblinded_warning",
]


@dataclass(frozen=True, slots=True)
class PlanRun:
    """What the plan needs of a stored run."""

    pk: int
    id: str
    task_id: str
    condition_id: str
    trial: int


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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


DEMO_PLAN_SECRET: Final = (
    "abp-tui DEMO plan secret, published on purpose: the bundled synthetic demo plans the same "
    "codes everywhere, so its packs are not blind. A real design gets a secret of its own."
)
"""The plan secret of the bundled demo designs (public, so their codes and snapshots are
stable); never used for anything else."""

ORDER_BLOCK: Final = 10
"""Items per common block of the reviewers' order (step 5)."""
ORDER_BLOCKS_KEY: Final = "order_blocks"
"""The design document's record that its plan orders reviewers' items in common blocks (the
block's size)."""
BUDGET_BALANCED_KEY: Final = "budget_balanced"
"""The design document's record that its human budget's drawn items alone are dealt to its
listed reviewers (:func:`assign`'s ``drawn``)."""


def new_plan_secret() -> str:
    """A fresh plan secret: 256 random bits from :mod:`secrets`, as 64 hex digits."""
    return secrets.token_hex(32)


def plan_commitment(secret: str) -> str:
    """The commitment a design records and publishes before the secret: SHA-256 (hex) of the
    secret's UTF-8 text, so anyone can check a revealed secret with ``sha256sum``."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def plan_hmac(secret: str, plan: list[list[Any]]) -> str:
    """The plan's part of a design hash: HMAC-SHA256 under the plan secret of the canonical JSON
    of ``plan`` (each item's ``[key, code, run_a_pk, run_b_pk, base_flip]``, in planning order),
    so a published design hash reveals nothing of the plan, and a bundle can carry it to let
    anyone recompute the hash."""
    return hmac.new(
        secret.encode("utf-8"), canonical_json(plan).encode("utf-8"), hashlib.sha256
    ).hexdigest()


def design_hash(document: Mapping[str, Any], rubric: Mapping[str, Any], plan_mac: str) -> str:
    """A design's hash, as the store records it: SHA-256 of the canonical JSON of its stored
    document (with the commitment to its plan secret), its rubric and :func:`plan_hmac`.
    ``verify`` recomputes it from a bundle's ``protocol/`` files."""
    return sha256_text(canonical_json([document, rubric, plan_mac]))


def _message(*parts: object) -> bytes:
    """The HMAC input: a JSON list, so that no two different inputs share their bytes."""
    return json.dumps(parts, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@dataclass(frozen=True)
class _Derivation:
    """Where each random choice of the plan comes from: the secret (and the seed), or for a
    design stored before plan secrets, the seed alone."""

    seed: int
    secret: str | None

    def _mac(self, *parts: object) -> bytes:
        assert self.secret is not None
        return hmac.new(self.secret.encode("utf-8"), _message(*parts), hashlib.sha256).digest()

    def code(self, key: str, kind: str, run_ids: Sequence[str]) -> str:
        raw = (
            hashlib.sha256(f"{self.seed}:{key}".encode()).digest()
            if self.secret is None
            else self._mac("code", self.seed, kind, *run_ids)
        )
        return base64.b32encode(raw).decode()

    def plan_rng(self) -> random.Random:
        if self.secret is None:
            return random.Random(self.seed)
        return random.Random(self._mac("plan", self.seed).hex())

    def orientation_rng(self) -> random.Random:
        if self.secret is None:
            return random.Random(self.seed)  # the plan's own shuffle, as it was
        return random.Random(self._mac("orientation", self.seed).hex())

    def order_rng(self, reviewer: str) -> random.Random:
        if self.secret is None:
            return random.Random(f"{self.seed}:{reviewer}")
        return random.Random(self._mac("order", self.seed, reviewer).hex())


@dataclass(frozen=True)
class PlanEntry:
    """What steps 2 and 4 need of an item, in plan order: enough to re-derive its code and base
    orientation from a publication bundle's items."""

    key: str
    """The item key (what a design stored before plan secrets derived its code from)."""
    kind: str
    run_ids: tuple[str, ...]
    contrast: tuple[str, str] | None


def blind(
    design: StudyDesign, entries: Sequence[PlanEntry], secret: str | None, apart_runs: bool = False
) -> list[tuple[str, bool]]:
    """Steps 2 and 4: each entry's blind code and base orientation, in the entries' order
    (``apart_runs``: the design lays items sharing a run apart, step 3)."""
    plan = _Derivation(design.seed, secret)
    taken: set[str] = set()
    codes = []
    for entry in entries:
        digest = plan.code(entry.key, entry.kind, entry.run_ids)
        prefix = "P" if entry.kind == "pair" else "S"
        length = 6
        while (code := f"{prefix}-{digest[:length]}") in taken:
            length += 1
        taken.add(code)
        codes.append(code)
    positions = _sequence(plan, design, [e.run_ids for e in entries], apart_runs)
    judged_by = _reviewer_groups(design, positions, secret)
    shuffled = list(range(len(entries)))
    plan.orientation_rng().shuffle(shuffled)
    counter: dict[tuple[tuple[str, str] | None, int], int] = defaultdict(int)
    base = [False] * len(entries)
    for index in shuffled:
        entry = entries[index]
        if entry.kind == "pair":
            group = (entry.contrast, judged_by[index])
            base[index] = counter[group] % 2 == 1
            counter[group] += 1
    return list(zip(codes, base, strict=True))


def _sequence(
    plan: _Derivation,
    design: StudyDesign,
    run_ids: Sequence[Sequence[str]],
    apart_runs: bool,
) -> list[int]:
    """Step 3's shuffle of the items (indices in plan order), with each group of items sharing
    a run on consecutive positions when the design lays them apart and can."""
    order = list(range(len(run_ids)))
    plan.plan_rng().shuffle(order)
    if apart_runs and plan.secret is not None and keeps_apart(design, run_ids):
        return apart(order, run_ids)
    return order


def _reviewer_groups(
    design: StudyDesign, positions: Sequence[int], secret: str | None
) -> dict[int, int]:
    """Entry index -> which reviewers judge it (i*k mod |R| of its shuffled position i; one
    group with no listed reviewers, or for a design stored before plan secrets)."""
    if secret is None or not design.reviewers:
        return dict.fromkeys(positions, 0)
    k, n = design.reviewers_per_item, len(design.reviewers)
    return {index: (i * k) % n for i, index in enumerate(positions)}


def plan_items(
    design: StudyDesign,
    runs: Iterable[PlanRun],
    secret: str | None = None,
    apart_runs: bool = False,
) -> list[PlannedItem]:
    """Steps 1 and 2, plus the base orientation of step 4. Raises PlanError on a misfit.

    ``secret`` is the design's plan secret; None only re-derives the plan of a design stored
    before plan secrets (from its seed alone). ``apart_runs``: lay items sharing a run apart
    (step 3; every new design does, a stored one as its document records)."""
    all_runs = list(runs)
    known_tasks = sorted({r.task_id for r in all_runs})
    known_conditions = sorted({r.condition_id for r in all_runs})
    tasks = known_tasks if design.tasks == "all" else list(design.tasks)
    conditions = known_conditions if design.conditions == "all" else list(design.conditions)
    task_set, condition_set = set(known_tasks), set(known_conditions)  # lookups, not scans
    for t in tasks:
        if t not in task_set:
            raise PlanError(f"tasks: {t!r} has no runs in study {design.study!r}")
    contrasts = contrasts_of(design, conditions)
    for a, b in contrasts:
        for c in (a, b):
            if c not in condition_set:
                raise PlanError(f"contrasts: condition {c!r} has no runs in study {design.study!r}")
    for c in conditions:
        if c not in condition_set:
            raise PlanError(f"conditions: {c!r} has no runs in study {design.study!r}")
    # Seed 002's task split and workflows name the study's own tasks and conditions.
    for key, named in (
        ("development_tasks", design.development_tasks),
        ("holdout_tasks", design.holdout_tasks),
    ):
        for t in named:
            if t not in task_set:
                raise PlanError(f"{key}: {t!r} has no runs in study {design.study!r}")
    for c in design.workflows:
        if c not in condition_set:
            raise PlanError(f"workflows: condition {c!r} has no runs in study {design.study!r}")
    task_set, condition_set = set(tasks), set(conditions)
    cell: dict[tuple[str, str, int], list[PlanRun]] = defaultdict(list)
    trials_of: dict[tuple[str, str], set[int]] = defaultdict(set)
    for r in all_runs:
        cell[(r.task_id, r.condition_id, r.trial)].append(r)
        trials_of[(r.task_id, r.condition_id)].add(r.trial)
    for runs_in_cell in cell.values():
        runs_in_cell.sort(key=lambda r: r.id)
    found: list[tuple[str, str, str, int, PlanRun, PlanRun | None]] = []
    for a, b in contrasts:
        for task in sorted(tasks):
            # Looked up per (task, condition): scanning every cell per task was quadratic.
            trials = sorted(trials_of.get((task, a), set()) & trials_of.get((task, b), set()))
            for trial in trials:
                for k, (ra, rb) in enumerate(
                    zip(cell[(task, a, trial)], cell[(task, b, trial)], strict=False)
                ):
                    found.append((f"pair|{a}|{b}|{task}|{trial}|{k}", "pair", task, trial, ra, rb))
    if design.single_items:
        for r in sorted(all_runs, key=lambda r: (r.task_id, r.condition_id, r.trial, r.id)):
            if r.task_id in task_set and r.condition_id in condition_set:
                found.append((f"single|{r.id}", "single", r.task_id, r.trial, r, None))
    if not found:
        raise PlanError(f"the design selects nothing to judge in study {design.study!r}")
    entries = [
        PlanEntry(
            key,
            kind,
            (ra.id,) if rb is None else (ra.id, rb.id),
            None if rb is None else (ra.condition_id, rb.condition_id),
        )
        for key, kind, _task, _trial, ra, rb in found
    ]
    return [
        PlannedItem(key, code, kind, task, trial, ra, rb, base_flip)
        for (key, kind, task, trial, ra, rb), (code, base_flip) in zip(
            found, blind(design, entries, secret, apart_runs), strict=True
        )
    ]


def assign(
    design: StudyDesign,
    items: Sequence[PlannedItem],
    secret: str | None = None,
    apart_runs: bool = False,
    in_blocks: bool = False,
    drawn: Collection[str] | None = None,
) -> list[Assignment]:
    """Step 3 (listed reviewers), 4 and 5: every assignment of the study (``items`` in plan
    order; ``secret`` and ``apart_runs`` as for :func:`plan_items`; ``in_blocks``: each
    reviewer's order is shuffled within common blocks, step 5). ``drawn``: a human budget's
    items drawn for people (their keys), the only ones assigned, dealt in turn in step 3's
    order so that every reviewer gets as many as the others, give or take one (a design whose
    document records :data:`BUDGET_BALANCED_KEY`; before it, every item was dealt and the
    undrawn ones dropped, leaving one reviewer a third more than another)."""
    if not design.reviewers:
        return []
    reviewers = design.reviewers
    if design.reviewers_per_item > len(reviewers):
        raise PlanError(
            f"reviewers_per_item is {design.reviewers_per_item} but only {len(reviewers)} "
            "reviewers are listed"
        )
    plan = _Derivation(design.seed, secret)
    by_key = {i.key: i for i in items}
    run_ids = [item_runs(i) for i in items]
    keys = [items[index].key for index in _sequence(plan, design, run_ids, apart_runs)]
    if drawn is not None:
        keys = [key for key in keys if key in drawn]
    per_reviewer: dict[str, list[tuple[str, int]]] = defaultdict(list)
    k = design.reviewers_per_item
    for i, key in enumerate(keys):
        for m in range(k):
            per_reviewer[reviewers[(i * k + m) % len(reviewers)]].append((key, m))
    out: list[Assignment] = []
    for reviewer in reviewers:
        out.extend(_ordered(plan, reviewer, per_reviewer[reviewer], by_key, in_blocks))
    return out


def item_runs(item: PlannedItem) -> tuple[str, ...]:
    """The run ids an item shows."""
    return (item.run_a.id,) if item.run_b is None else (item.run_a.id, item.run_b.id)


def enrol(
    design: StudyDesign,
    items: Sequence[PlannedItem],
    reviewer: str,
    slot: int,
    secret: str | None = None,
    in_blocks: bool = False,
) -> list[Assignment]:
    """Step 3 for an open design: the reviewer enrolled in ``slot`` judges every item
    (``items`` in plan order; ``in_blocks`` as for :func:`assign`)."""
    by_key = {i.key: i for i in items}
    plan = _Derivation(design.seed, secret)
    shared = list(range(len(items)))
    if in_blocks:
        plan.plan_rng().shuffle(shared)
    keyed = [(items[index].key, slot) for index in shared]
    return _ordered(plan, reviewer, keyed, by_key, in_blocks)


def _ordered(
    plan: _Derivation,
    reviewer: str,
    keyed: list[tuple[str, int]],
    by_key: dict[str, PlannedItem],
    in_blocks: bool = False,
) -> list[Assignment]:
    """Step 5: ``keyed`` in the reviewer's order (``in_blocks``: ``keyed`` is in the shared
    order, and only each block of :data:`ORDER_BLOCK` is shuffled)."""
    rng = plan.order_rng(reviewer)
    if in_blocks:
        blocks = [keyed[i : i + ORDER_BLOCK] for i in range(0, len(keyed), ORDER_BLOCK)]
        for block in blocks:
            rng.shuffle(block)
        keyed = [entry for block in blocks for entry in block]
    else:
        keyed = sorted(keyed)
        rng.shuffle(keyed)
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


def unblinded_warning(study: str, who: str, when: str) -> str:
    """The warning of a design made in a study already unblinded (by ``who`` at ``when``): its
    results by condition could be known to whoever judges it, and its bundle says so."""
    return (
        f"study {study} was unblinded by {who} at {when}: its results by condition may be known "
        "to whoever judges this design (each item is still shown blind); a bundle of it lists "
        "the judgments submitted after the unblinding among its limitations"
    )
