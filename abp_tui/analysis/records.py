"""Which of a design's records count, and where a run stands in an item.

The records themselves are :mod:`abp_tui.models.records`'s (runs named by id, items by blind
code); these are the rules every computation applies to them first. A reviewer's judgment of an
item counts in two ways: the latest submitted revision for verdicts, disagreements, preferences
and position bias (a reviewer may correct themselves); the first submitted revision for agreement
(the one made before they could see anyone else's). Nothing here reads the database or files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from abp_tui.analysis.placement import picked as picked
from abp_tui.analysis.placement import run_picked
from abp_tui.analysis.placement import shown_as as shown_as
from abp_tui.models import (
    AdjudicationRevision,
    Item,
    JudgmentRevision,
    StudyDesign,
)

PLAN_KEYS: Final = (
    "budget_balanced",
    "commitment",
    "masked_terms",
    "masked_short_ids",
    "order_blocks",
    "pack",
    "plan_secret_sha256",
    "shared_runs_apart",
)
"""Keys the store adds to a design document that are not part of the design file
(``plan_secret_sha256`` is the commitment to the design's plan secret,
:func:`abp_tui.analysis.blinding.plan_commitment`; ``shared_runs_apart`` says its plan lays
items sharing a run apart, :mod:`abp_tui.analysis.shared_runs`; ``order_blocks`` that it orders
each reviewer's items in common blocks, and ``budget_balanced`` that it deals a human budget's
drawn items alone, :mod:`abp_tui.analysis.blinding`; ``commitment`` binds the records it planned
and its times, :mod:`abp_tui.analysis.commitment`)."""


def design_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """A stored design document without what the store added to it (masking, pack)."""
    return {k: v for k, v in document.items() if k not in PLAN_KEYS}


def in_scope(design: StudyDesign, task: str, condition: str) -> bool:
    """Whether a run of this task and condition is one the design judges."""
    return (design.tasks == "all" or task in design.tasks) and (
        design.conditions == "all" or condition in design.conditions
    )


def preferred(j: JudgmentRevision | AdjudicationRevision) -> str | None:
    """The run id a judgment or an adjudication preferred, "tie", "insufficient_evidence", or
    None for no preference."""
    return picked(j.judgment.preference, j.placement)


def preferred_run(j: JudgmentRevision) -> str | None:
    """The run id preferred, or None for no preference, a tie or insufficient evidence."""
    return run_picked(j.judgment.preference, j.placement)


def side(item: Item, run: str) -> str:
    """Where a run stands in the item's own orientation, "a" or "b" (never as shown)."""
    return dict(zip(item.runs, "ab", strict=False)).get(run, run)


def place(item: Item, run: str) -> int:
    """The run's index in the item (after the item's runs for a run not in it)."""
    return item.runs.index(run) if run in item.runs else len(item.runs)


def _by_item(
    judgments: Iterable[JudgmentRevision], later: bool
) -> dict[str, list[JudgmentRevision]]:
    chosen: dict[tuple[str, str], JudgmentRevision] = {}
    for j in judgments:
        key = (j.item, j.reviewer)
        held = chosen.get(key)
        if held is None or (j.revision > held.revision if later else j.revision < held.revision):
            chosen[key] = j
    out: dict[str, list[JudgmentRevision]] = {}
    for (item, _reviewer), j in sorted(chosen.items()):
        out.setdefault(item, []).append(j)
    return out


def latest_submitted(judgments: Iterable[JudgmentRevision]) -> dict[str, list[JudgmentRevision]]:
    """Item code -> each reviewer's latest submitted judgment (reviewers by name)."""
    return _by_item(judgments, later=True)


def first_submitted(judgments: Iterable[JudgmentRevision]) -> dict[str, list[JudgmentRevision]]:
    """Item code -> each reviewer's first submitted judgment: the one made before they could see
    anyone else's (reviewers by name)."""
    return _by_item(judgments, later=False)


def in_plan_order(
    items: Iterable[Item], by_item: Mapping[str, list[JudgmentRevision]]
) -> dict[str, list[JudgmentRevision]]:
    """``by_item`` with its items in the plan's order (the order results and statistics walk
    them in); items the plan does not hold are left out."""
    return {i.code: by_item[i.code] for i in items if i.code in by_item}


def latest_adjudications(
    adjudications: Iterable[AdjudicationRevision],
) -> dict[str, AdjudicationRevision]:
    """Item code -> its latest adjudication."""
    out: dict[str, AdjudicationRevision] = {}
    for a in adjudications:
        if a.item not in out or a.revision > out[a.item].revision:
            out[a.item] = a
    return out
