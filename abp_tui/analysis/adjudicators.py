"""A design's listed adjudicators who also review its items.

Nobody adjudicates an item they reviewed, whether the design lists them as an adjudicator or not
(:mod:`abp_tui.services.adjudicating`). So an adjudicator the plan also gives every item to
review could adjudicate none of the design's disagreements: naming them is refused. One who
reviews some items adjudicates only the others: the design's creation warns, and counts the
items judged by several reviewers with every listed adjudicator among them, whose disagreements
nobody could adjudicate.
"""

from __future__ import annotations

from collections.abc import Iterable

from abp_tui.models.design import StudyDesign
from abp_tui.text.counts import counted


def reviewers_by_item(
    item_keys: Iterable[str], assignments: Iterable[tuple[str, str]]
) -> dict[str, set[str]]:
    """Each planned item's reviewers, from ``(item key, reviewer)`` assignments."""
    found: dict[str, set[str]] = {key: set() for key in item_keys}
    for key, reviewer in assignments:
        found[key].add(reviewer)
    return found


def reviewing_adjudicators(design: StudyDesign) -> list[str]:
    """The listed adjudicators who are also listed reviewers, in the adjudicators' order."""
    return [name for name in design.adjudicators if name in design.reviewers]


def adjudicator_of_nothing(design: StudyDesign, reviewers_of: dict[str, set[str]]) -> str | None:
    """The refusal of a listed adjudicator who reviews every planned item (None: none does)."""
    for name in reviewing_adjudicators(design):
        if reviewers_of and all(name in who for who in reviewers_of.values()):
            return (
                f"{name!r} also reviews every item of this design, so can adjudicate none of "
                "them (nobody adjudicates an item they reviewed): name an adjudicator who "
                f"reviews none, or leave {name!r} out"
            )
    return None


def reviewing_adjudicators_warning(
    design: StudyDesign, reviewers_of: dict[str, set[str]]
) -> str | None:
    """The warning of listed adjudicators who review some items (None: none reviews)."""
    both = reviewing_adjudicators(design)
    if not both:
        return None
    names = ", ".join(repr(name) for name in both)
    if len(both) == 1:
        warning = (
            f"adjudicator {names} is also a reviewer: adjudicates only the items {names} did "
            "not review"
        )
    else:
        warning = (
            f"adjudicators {names} are also reviewers: each adjudicates only the items they "
            "did not review"
        )
    listed = set(design.adjudicators)
    unsettled = sum(1 for who in reviewers_of.values() if len(who) > 1 and listed <= who)
    if unsettled:
        warning += (
            f"; {counted(unsettled, 'item')} judged by several reviewers, every listed "
            "adjudicator among them: a disagreement there can be adjudicated by nobody"
        )
    return warning
