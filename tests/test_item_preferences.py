"""The final preference of one pair under each of the rules, from records alone (no database):
adjudicated, unresolved, single review, unanimous, and what the design's disagreement rules let
stand beside a preference (a tie, insufficient evidence)."""

from __future__ import annotations

import pytest

from abp_tui.analysis.item_preferences import counting_line, item_preference
from abp_tui.analysis.records import picked, shown_as
from abp_tui.analysis.verdicts import find_disagreements
from abp_tui.models import (
    AdjudicationRevision,
    DisagreementRules,
    Item,
    Judgment,
    JudgmentRevision,
    PreferenceChoice,
)
from abp_tui.models.builtin_rubrics import PREFERENCE_ONLY

R1, R2 = PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2
TIE, INSUFFICIENT = PreferenceChoice.TIE, PreferenceChoice.INSUFFICIENT
ITEM = Item(
    code="P-AAAAAA",
    index=0,
    kind="pair",
    task="t",
    trial=1,
    runs=("run-x", "run-y"),
    conditions=("X", "Y"),
    base_flip=False,
)
AS_IS = {"1": "run-x", "2": "run-y"}
SWAPPED = {"1": "run-y", "2": "run-x"}


def _judged(reviewer: str, choice: PreferenceChoice, placement: dict[str, str]) -> JudgmentRevision:
    return JudgmentRevision(
        item=ITEM.code,
        reviewer=reviewer,
        revision=1,
        status="submitted",
        created_at="2026-01-01T00:00:00Z",
        reason="",
        seconds_spent=1.0,
        placement=placement,
        judgment=Judgment(preference=choice, justification="Why."),
    )


def _final(
    judgments: list[JudgmentRevision],
    rules: DisagreementRules | None = None,
    adjudicated: PreferenceChoice | None = None,
) -> tuple[str, str | None]:
    disputed = bool(find_disagreements(rules or DisagreementRules(), PREFERENCE_ONLY, judgments))
    adjudication = (
        None
        if adjudicated is None
        else AdjudicationRevision(
            item=ITEM.code,
            adjudicator="carol",
            revision=1,
            created_at="2026-01-02T00:00:00Z",
            note="Read again.",
            show_names=False,
            placement=SWAPPED,
            judgment=Judgment(preference=adjudicated, justification="Final."),
        )
    )
    found = item_preference(ITEM, judgments, adjudication, disputed and adjudication is None)
    assert found is not None
    return found.source, found.preferred


def test_positions_become_runs_and_back_in_one_place() -> None:
    assert picked(R1, SWAPPED) == "run-y" and picked(R2, SWAPPED) == "run-x"
    assert (picked(TIE, AS_IS), picked(INSUFFICIENT, AS_IS), picked(None, AS_IS)) == (
        "tie",
        "insufficient_evidence",
        None,
    )
    assert (shown_as(SWAPPED, "run-x"), shown_as(SWAPPED, "tie")) == ("2", None)


def test_the_same_run_seen_in_different_places_is_agreement() -> None:
    # ann saw run-x first and picked Response 1; bo saw it second and picked Response 2.
    both = [_judged("ann", R1, AS_IS), _judged("bo", R2, SWAPPED)]
    assert _final(both) == ("unanimous", "run-x")
    assert _final(both[:1]) == ("single review", "run-x")


def test_a_conflict_is_unresolved_until_adjudicated_in_the_adjudicators_placement() -> None:
    conflict = [_judged("ann", R1, AS_IS), _judged("bo", R1, SWAPPED)]
    assert _final(conflict) == ("unresolved", None)
    # carol saw the swapped placement: her Response 2 is run-x.
    assert _final(conflict, adjudicated=R2) == ("adjudicated", "run-x")
    assert _final(conflict, adjudicated=TIE) == ("adjudicated", "tie")


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (DisagreementRules(), ("unresolved", None)),
        (DisagreementRules(tie_conflicts_with_preference=False), ("unanimous", "run-x")),
    ],
)
def test_a_tie_beside_a_preference_follows_the_designs_rules(
    rules: DisagreementRules, expected: tuple[str, str | None]
) -> None:
    assert _final([_judged("ann", R1, AS_IS), _judged("bo", TIE, SWAPPED)], rules) == expected


def test_insufficient_evidence_is_no_pick_against_a_preference() -> None:
    judged = [_judged("ann", INSUFFICIENT, AS_IS), _judged("bo", R2, SWAPPED)]
    # bo's pick stands, on bo's word alone: insufficient evidence states no preference.
    assert _final(judged) == ("single review", "run-x")
    both = [*judged, _judged("cy", R2, SWAPPED)]
    assert _final(both) == ("unanimous", "run-x")
    unsure = [_judged("ann", INSUFFICIENT, AS_IS), _judged("bo", INSUFFICIENT, SWAPPED)]
    assert _final(unsure) == ("unanimous", "insufficient_evidence")
    assert _final([_judged("ann", INSUFFICIENT, AS_IS)]) == (
        "single review",
        "insufficient_evidence",
    )


def test_two_runs_picked_stay_unresolved_even_when_the_rules_let_them_be() -> None:
    rules = DisagreementRules(preference_conflicts=False)
    conflict = [_judged("ann", R1, AS_IS), _judged("bo", R1, SWAPPED)]
    assert _final(conflict, rules) == ("unresolved", None)


def test_the_counting_line_names_single_reviews_only_when_there_are_some() -> None:
    assert counting_line({"unanimous": 4, "adjudicated": 2}) == (
        "Counts each item's final verdict: 4 unanimous, 2 adjudicated, 0 unresolved."
    )
    assert counting_line({"single review": 3, "unresolved": 1}) == (
        "Counts each item's final verdict: 0 unanimous, 0 adjudicated, 3 single review, "
        "1 unresolved."
    )
