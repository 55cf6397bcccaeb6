"""The study plan: reproducible, counterbalanced, balanced workload, blind codes, masking."""

from __future__ import annotations

from collections import Counter

import pytest

from abp_tui.analysis.blinding import (
    MASK,
    PlanError,
    PlanRun,
    assign,
    enrol,
    identity_terms,
    plan_items,
)
from abp_tui.models.design import StudyDesign


def _runs(tasks: int = 8, conditions: str = "ABCD", trials: int = 1) -> list[PlanRun]:
    out = []
    pk = 0
    for t in range(tasks):
        for c in conditions:
            for trial in range(1, trials + 1):
                pk += 1
                out.append(PlanRun(pk, f"run-{t}-{c}-{trial}", f"P0{t}", c, trial))
    return out


def _design(**kw: object) -> StudyDesign:
    base: dict[str, object] = {"study": "s", "name": "d", "seed": 7}
    base.update(kw)
    return StudyDesign.model_validate(base)


def test_same_seed_same_plan_and_other_seed_other_plan() -> None:
    design = _design(reviewers=["a", "b", "c"], reviewers_per_item=2)
    one = assign(design, plan_items(design, _runs()))
    two = assign(design, plan_items(design, _runs()))
    assert one == two
    other = _design(seed=8, reviewers=["a", "b", "c"], reviewers_per_item=2)
    assert assign(other, plan_items(other, _runs())) != one


def test_pairs_join_runs_of_the_same_task_and_trial() -> None:
    items = plan_items(_design(contrasts=[("C", "A")]), _runs(trials=3))
    assert len(items) == 8 * 3
    for item in items:
        assert item.run_b is not None
        assert item.run_a.task_id == item.run_b.task_id == item.task_id
        assert item.run_a.trial == item.run_b.trial == item.trial
        assert (item.run_a.condition_id, item.run_b.condition_id) == ("C", "A")


def test_blind_codes_are_unique_and_never_contain_run_ids() -> None:
    items = plan_items(_design(single_items=True), _runs(trials=2))
    codes = [i.code for i in items]
    assert len(set(codes)) == len(codes)
    assert len(items) == 6 * 8 * 2 + 4 * 8 * 2  # all pairs of ABCD, plus single items
    for item in items:
        assert "run-" not in item.code and item.task_id not in item.code


def test_placement_is_counterbalanced_across_reviewers_and_per_reviewer() -> None:
    design = _design(reviewers=["a", "b"], reviewers_per_item=2, contrasts=[("C", "A")])
    items = plan_items(design, _runs(tasks=8, trials=3))
    by_key = {i.key: i for i in items}
    assignments = assign(design, items)
    per_item: dict[str, list[bool]] = {}
    for a in assignments:
        per_item.setdefault(a.item_key, []).append(a.flipped)
    assert all(sorted(v) == [False, True] for v in per_item.values())
    for reviewer in ("a", "b"):
        left = Counter(
            (by_key[a.item_key].run_b if a.flipped else by_key[a.item_key].run_a).condition_id  # type: ignore[union-attr]
            for a in assignments
            if a.reviewer == reviewer
        )
        assert left["C"] == left["A"] == 12


def test_workload_is_balanced_and_each_item_gets_k_distinct_reviewers() -> None:
    design = _design(reviewers=["a", "b", "c"], reviewers_per_item=2)
    items = plan_items(design, _runs())
    assignments = assign(design, items)
    load = Counter(a.reviewer for a in assignments)
    assert sum(load.values()) == 2 * len(items)
    assert max(load.values()) - min(load.values()) <= 1
    per_item: dict[str, set[str]] = {}
    for a in assignments:
        per_item.setdefault(a.item_key, set()).add(a.reviewer)
    assert all(len(v) == 2 for v in per_item.values())


def test_order_is_shuffled_per_reviewer() -> None:
    design = _design()
    items = plan_items(design, _runs())
    first = [a.item_key for a in enrol(design, items, "alice", 0)]
    second = [a.item_key for a in enrol(design, items, "bob", 1)]
    assert sorted(first) == sorted(second) and first != second


def test_misfits_are_clear_errors() -> None:
    with pytest.raises(PlanError, match="condition 'Z' has no runs"):
        plan_items(_design(contrasts=[("A", "Z")]), _runs())
    with pytest.raises(PlanError, match="reviewers_per_item is 3"):
        design = _design(reviewers=["a", "b"], reviewers_per_item=3)
        assign(design, plan_items(design, _runs()))
    with pytest.raises(ValueError, match="two different conditions"):
        _design(contrasts=[("A", "A")])


def test_masking_hides_identities_in_outputs() -> None:
    masker = identity_terms(
        ["A", "B", "C_GOVERNED"],
        ["AFP + Governance", "AFP", "Model Only"],
        ["anthropic/claude-sonnet-5", "oxagen", None],
        extra=["house style"],
    )
    text = (
        "As an AFP + Governance assistant (condition B), claude-sonnet-5 by Anthropic via "
        "oxagen says: AFPX is not a term; C_GOVERNED; follow the House Style."
    )
    masked, n = masker.mask(text)
    assert n == 7
    for term in ("AFP +", "condition B", "claude", "Anthropic", "oxagen", "C_GOVERNED", "House"):
        assert term not in masked
    assert "AFPX" in masked
    assert masked.count(MASK) == 7
