"""Items that share a run: the same output shown in several items of one task.

A design that compares several conditions with one baseline (``B:A``, ``C:A``, ``D:A``) puts
the baseline's run of a task and trial in three items; an all-pairs design over three or more
conditions, or a design with ``single_items``, does the same to every run. A reviewer who gets
two such items sees one text twice and knows it is the shared one (the baseline), wherever it
is placed: the placement hides nothing from them. What hides it is that no reviewer gets two of
those items.

A **run group** is a set of items linked by shared runs (directly, or through another item of
the group); items of different groups share nothing. When the design lists its reviewers and
``reviewers_per_item`` times the size of the largest run group is at most their number, a
design planned since this rule (its stored document records ``shared_runs_apart``) lays each run
group out on consecutive positions of the assignment's shuffle (:mod:`abp_tui.analysis.blinding`,
step 3), and consecutive positions go to different reviewers: each reviewer judges at most one
item of each group. Otherwise (an open design, where every reviewer judges every item, or too
few reviewers) some reviewers judge several items of a group: the design's creation warns,
naming how many reviewers it needs, and a results bundle states it among its limitations.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Final

from abp_tui.models.design import StudyDesign
from abp_tui.text.counts import counted

SHARED_RUNS_KEY: Final = "shared_runs_apart"
"""The key a stored design document holds (true) when its plan lays run groups apart; a design
stored before the rule, or one with no run shared, plans as it always did."""


def run_groups(run_ids: Sequence[Sequence[str]]) -> list[int]:
    """The run group of each item (given as its run ids): items sharing a run, directly or
    through others, get the same number (numbered by their first item)."""
    parent = list(range(len(run_ids)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_with: dict[str, int] = {}
    for index, runs in enumerate(run_ids):
        for run in runs:
            other = first_with.setdefault(run, index)
            a, b = root(index), root(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return [root(i) for i in range(len(run_ids))]


def largest_group(run_ids: Sequence[Sequence[str]]) -> int:
    """The number of items of the largest run group (1: no run is shared; 0: no items)."""
    sizes: dict[int, int] = defaultdict(int)
    for group in run_groups(run_ids):
        sizes[group] += 1
    return max(sizes.values(), default=0)


def reviewers_needed(design: StudyDesign, run_ids: Sequence[Sequence[str]]) -> int:
    """How many listed reviewers keep every reviewer to one item of each run group."""
    return design.reviewers_per_item * largest_group(run_ids)


def keeps_apart(design: StudyDesign, run_ids: Sequence[Sequence[str]]) -> bool:
    """Whether laying run groups apart gives every reviewer at most one item of each: some run
    is shared, the reviewers are listed and there are enough of them."""
    if not design.reviewers:
        return False
    largest = largest_group(run_ids)
    return largest > 1 and design.reviewers_per_item * largest <= len(design.reviewers)


def apart(order: Sequence[int], run_ids: Sequence[Sequence[str]]) -> list[int]:
    """``order`` (a shuffle of item indices) with each run group on consecutive positions: the
    groups in the order of their first item in ``order``, each group's items in that order."""
    groups = run_groups(run_ids)
    first: dict[int, int] = {}
    for position, index in enumerate(order):
        first.setdefault(groups[index], position)
    return sorted(order, key=lambda index: first[groups[index]])


def exposed_reviewers(
    items: Iterable[tuple[str, Sequence[str]]], judged: Iterable[tuple[str, str]]
) -> list[str]:
    """The reviewers who judge (or judged) two items showing the same run, sorted.

    ``items``: (item key or code, its run ids); ``judged``: (reviewer, item key or code)."""
    runs_of = dict(items)
    seen: dict[str, set[str]] = defaultdict(set)
    exposed: set[str] = set()
    for reviewer, item in sorted(set(judged)):
        runs = runs_of.get(item, ())
        if any(run in seen[reviewer] for run in runs):
            exposed.add(reviewer)
        seen[reviewer].update(runs)
    return sorted(exposed)


def shared_runs_warning(
    design: StudyDesign, run_ids: Sequence[Sequence[str]], exposed: int
) -> str | None:
    """The one-line warning of a planned design whose reviewers see a shared run more than once
    (``exposed``: how many do; an open design counts every reviewer); None when none does."""
    largest = largest_group(run_ids)
    if largest < 2 or (design.reviewers and not exposed):
        return None
    who = f"{exposed} of {len(design.reviewers)} reviewers judge more than one of them"
    return _warning(len(design.reviewers), design.reviewers_per_item, largest, who)


def expected_group(contrasts: Iterable[tuple[str, str]], single_items: bool = False) -> int:
    """The largest run group a design's choices make in one task and trial, before planning:
    the contrasts linked by a condition (plus, with single items, their conditions)."""
    edges: dict[str, set[int]] = defaultdict(set)
    pairs = list(contrasts)
    for n, (a, b) in enumerate(pairs):
        edges[a].add(n)
        edges[b].add(n)
    groups = run_groups([[f"{a}\0", f"{b}\0"] for a, b in pairs])
    sizes: dict[int, int] = defaultdict(int)
    for group in groups:
        sizes[group] += 1
    if single_items:
        for runs in edges.values():
            sizes[groups[min(runs)]] += 1
    return max(sizes.values(), default=1 if single_items else 0)


def planned_warning(
    contrasts: Iterable[tuple[str, str]],
    reviewers: int,
    per_item: int = 1,
    single_items: bool = False,
) -> str | None:
    """The warning a design's choices call for before it is planned (the new-design form's
    preview): its items will share runs and its ``reviewers`` (listed; 0: an open design) are
    too few to keep them apart."""
    largest = expected_group(contrasts, single_items)
    if largest < 2 or 0 < per_item * largest <= reviewers:
        return None
    too_few = f"{counted(reviewers, 'reviewer')} {'is' if reviewers == 1 else 'are'} too few"
    return _warning(reviewers, per_item, largest, too_few)


def _warning(reviewers: int, per_item: int, largest: int, who: str) -> str:
    if not reviewers:
        who = "every reviewer of an open design judges every item"
    return (
        f"items share runs (up to {largest} items of one task show the same output, e.g. a "
        f"baseline compared with several conditions) and {who}: the repeated text tells them "
        f"which output is the shared one, wherever it is placed; list at least "
        f"{per_item * largest} reviewers to give each at most one of them"
    )


SHARED_RUNS_LIMITATION: Final = (
    "{exposed} of {reviewers} reviewers judged more than one item showing the same run (e.g. a "
    "baseline compared with several conditions): the repeated text told them which output was "
    "the shared one, so for those items they were not blind to it."
)
"""The limitation a results bundle states when reviewers saw a shared run more than once."""


__all__ = [
    "SHARED_RUNS_KEY",
    "SHARED_RUNS_LIMITATION",
    "apart",
    "expected_group",
    "exposed_reviewers",
    "keeps_apart",
    "largest_group",
    "planned_warning",
    "reviewers_needed",
    "run_groups",
    "shared_runs_warning",
]
