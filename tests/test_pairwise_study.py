"""The pairwise study end to end, on the reference MT-Bench answers: a preference-only design
(no rubric), two reviewers on every pair, four pairs agreed and two disputed, both adjudicated.

Every face counts the same thing, each item's final preference (with its source), and says so;
nothing judged reads as "unjudged"; the results lead with the answer to the design's question.

Alice and Bob judge six pairs of phi-3 and phi-3-dpo answers. They agree that phi-3-dpo is
better on two pairs, that phi-3 is on one, and call one a tie; they disagree on two pairs, which
carol adjudicates for phi-3-dpo. Final preferences: phi-3-dpo 4, phi-3 1, tie 1 (4 unanimous,
2 adjudicated); the reviewers' own twelve judgments say phi-3-dpo 6, phi-3 4, tie 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.adjudicating import adjudicate
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.results_report import unblind
from abp_tui.store import judging
from tests.factories import flipped

DPO, BASE = "phi-3-dpo", "phi-3"
TASKS = "81,82,83,84,85,86"
# Per item (in sorted code order): alice's pick, bob's pick, the adjudicator's (disputes only).
PLAN: tuple[tuple[str, str, str | None], ...] = (
    (DPO, DPO, None),
    (DPO, DPO, None),
    (BASE, BASE, None),
    ("tie", "tie", None),
    (DPO, BASE, DPO),
    (BASE, DPO, DPO),
)


@dataclass(frozen=True)
class Scenario:
    pk: int
    codes: list[str]
    """Sorted item codes, in PLAN's order."""
    disputed: list[str]


def _choice(
    db: sqlite_utils.Database, pk: int, code: str, want: str, reversed_: bool
) -> PreferenceChoice:
    """The position at which the condition ``want`` is shown (``reversed_``: run b first)."""
    if want == "tie":
        return PreferenceChoice.TIE
    item = judging.item_by_code(db, pk, code)
    side = item.conditions.index(want)  # 0: run a, 1: run b
    first = 1 if reversed_ else 0
    return PreferenceChoice.RESPONSE_1 if side == first else PreferenceChoice.RESPONSE_2


def judged_study(db: sqlite_utils.Database, reference: Path) -> Scenario:
    """The scenario of this module's docstring, unblinded."""
    import_paths(db, [reference / "mt-bench"])
    created = create_from_choices(
        db,
        DesignChoices(
            rubric="none", reviewers="alice,bob", reviewers_per_item=2, tasks=TASKS, seed=7
        ),
    )
    pk = created.pk
    sessions = {name: ReviewSession(db, pk, name) for name in ("alice", "bob")}
    codes = sorted(r.code for r in sessions["alice"].queue())
    assert len(codes) == len(PLAN)
    for code, (alice, bob, _final) in zip(codes, PLAN, strict=True):
        for name, want in (("alice", alice), ("bob", bob)):
            session = sessions[name]
            choice = _choice(db, pk, code, want, flipped(session, code))
            session.save(code, Judgment(preference=choice, justification="Read both."), 5, submit=True)
    disputed = []
    for code, (_alice, _bob, final) in zip(codes, PLAN, strict=True):
        if final is None:
            continue
        disputed.append(code)
        item = judging.item_by_code(db, pk, code)
        assert item.run_b_pk is not None
        adjudicate(
            db,
            pk,
            code,
            "carol",
            Judgment(preference=_choice(db, pk, code, final, False), justification="Tighter."),
            {"1": item.run_a_pk, "2": item.run_b_pk},
            "Read both again.",
        )
    unblind(db, "mt-bench", "coordinator")
    return Scenario(pk, codes, disputed)


@pytest.fixture
def scenario(db: sqlite_utils.Database, reference: Path) -> Scenario:
    return judged_study(db, reference)
