"""The plain records of one design, and which of them count.

Runs are keyed by an integer (a database key, or the number a bundle gives each run id); judgment
responses and placements name runs by that key. Items are keyed the same way, their keys in the
plan's order. A reviewer's judgment of an item counts in two ways: the latest submitted revision
for verdicts, disagreements, preferences and position bias (a reviewer may correct themselves);
the first submitted revision for agreement (the one made before they could see anyone else's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from abp_tui.models import (
    DisagreementRules,
    Judgment,
    PreferenceChoice,
    ResultState,
    Rubric,
    StudyDesign,
)

PLAN_KEYS: Final = ("masked_terms", "masked_short_ids", "pack")
"""Keys the store adds to a design document that are not part of the design file."""
_NOT_A_RUN: Final = frozenset({PreferenceChoice.TIE.value, PreferenceChoice.INSUFFICIENT.value})


@dataclass(frozen=True, slots=True)
class ItemJudgment:
    """One reviewer's submitted judgment of an item (one revision), keyed by run key."""

    reviewer: str
    item_pk: int
    judgment: Judgment
    placement: dict[str, int]
    """Position shown ("1", "2") -> run key."""
    revision: int = 1

    def preferred(self) -> str | None:
        """The preferred run key (as text), "tie", "insufficient_evidence", or None."""
        choice = self.judgment.preference
        if choice is None:
            return None
        if choice in (PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2):
            position = "1" if choice == PreferenceChoice.RESPONSE_1 else "2"
            return str(self.placement[position])
        return choice.value

    def preferred_run(self) -> int | None:
        """The run key preferred, or None for no preference, a tie or insufficient evidence."""
        preferred = self.preferred()
        return None if preferred is None or preferred in _NOT_A_RUN else int(preferred)


@dataclass(frozen=True, slots=True)
class Item:
    """An item of the design's plan: one run, or a pair of runs in the item's own order."""

    pk: int
    """The item's key; keys follow the plan's order."""
    code: str
    runs: tuple[int, ...]
    """Run keys: (a, b) for a pair, (a,) for a single item."""
    conditions: tuple[str, ...]
    """The condition of each run, in the same order."""
    fatal_criteria: tuple[str, ...] = ()
    """The task's own fatal criteria (the rubric's general ones are added to them)."""

    @property
    def is_pair(self) -> bool:
        return len(self.runs) == 2

    def side(self, run: int) -> str:
        """Where a run stands in the item's own orientation, "a" or "b" (never as shown)."""
        return dict(zip(self.runs, "ab", strict=False)).get(run, str(run))

    def place(self, run: int) -> int:
        """The run's index in the item (after the item's runs for a run not in it)."""
        return self.runs.index(run) if run in self.runs else len(self.runs)


@dataclass(frozen=True, slots=True)
class Adjudication:
    """One revision of the final judgment of a disputed item, keyed by run key."""

    item_pk: int
    adjudicator: str
    revision: int
    judgment: Judgment
    note: str


@dataclass(frozen=True, slots=True)
class RunRecord:
    """What results need of a run: identity, automated outcome, state, efficiency figures."""

    pk: int
    id: str
    task: str
    condition: str
    trial: int
    origin_status: ResultState | None
    automated_outcome: str | None
    excluded_reason: str | None
    total_tokens: int | None
    wall_clock_ms: float | None
    cost_usd: float | None
    diff_bytes: float | None

    def metric(self, name: str) -> float | None:
        value = getattr(self, name)
        return None if value is None else float(value)


@dataclass(frozen=True)
class DesignRecords:
    """Everything the rules need of one design, as plain records."""

    design: StudyDesign
    rubric: Rubric
    seed: int
    """Seeds the efficiency bootstrap (the design's seed)."""
    items: tuple[Item, ...]
    """In plan order."""
    judgments: tuple[ItemJudgment, ...]
    """Every submitted revision (drafts are not judgments yet)."""
    adjudications: tuple[Adjudication, ...]
    """Every revision, or at least each item's latest."""
    runs: tuple[RunRecord, ...] = ()
    """The runs in the design's scope, in the order results list them."""

    @property
    def rules(self) -> DisagreementRules:
        return self.design.disagreement


def design_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """A stored design document without what the store added to it (masking, pack)."""
    return {k: v for k, v in document.items() if k not in PLAN_KEYS}


def in_scope(design: StudyDesign, task: str, condition: str) -> bool:
    """Whether a run of this task and condition is one the design judges."""
    return (design.tasks == "all" or task in design.tasks) and (
        design.conditions == "all" or condition in design.conditions
    )


def _by_item(judgments: Iterable[ItemJudgment], later: bool) -> dict[int, list[ItemJudgment]]:
    chosen: dict[tuple[int, str], ItemJudgment] = {}
    for j in judgments:
        key = (j.item_pk, j.reviewer)
        held = chosen.get(key)
        if held is None or (j.revision > held.revision if later else j.revision < held.revision):
            chosen[key] = j
    out: dict[int, list[ItemJudgment]] = {}
    for (item, _reviewer), j in sorted(chosen.items()):
        out.setdefault(item, []).append(j)
    return out


def latest_submitted(judgments: Iterable[ItemJudgment]) -> dict[int, list[ItemJudgment]]:
    """Item -> each reviewer's latest submitted judgment (items by key, reviewers by name)."""
    return _by_item(judgments, later=True)


def first_submitted(judgments: Iterable[ItemJudgment]) -> dict[int, list[ItemJudgment]]:
    """Item -> each reviewer's first submitted judgment: the one made before they could see
    anyone else's (items by key, reviewers by name)."""
    return _by_item(judgments, later=False)


def latest_adjudications(adjudications: Iterable[Adjudication]) -> dict[int, Adjudication]:
    """Item -> its latest adjudication."""
    out: dict[int, Adjudication] = {}
    for a in adjudications:
        if a.item_pk not in out or a.revision > out[a.item_pk].revision:
            out[a.item_pk] = a
    return out
