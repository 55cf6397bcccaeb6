"""The one translation between the positions a judgment was given in and the runs it names."""

from __future__ import annotations

import pytest

from abp_tui.analysis import placement as pl
from abp_tui.errors import AbpError
from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment

SEEN = {"1": "run-b", "2": "run-a"}  # a reviewer who saw the pair flipped


def judged(preference: PreferenceChoice | None, **scores: int) -> Judgment:
    return Judgment(
        responses={key: ResponseJudgment(scores={"d": score}) for key, score in scores.items()},
        preference=preference,
    )


def test_a_reviewers_order_follows_their_flip() -> None:
    assert pl.seen_order(("run-a", "run-b"), flipped=True) == ["run-b", "run-a"]
    assert pl.seen_order(("run-a", "run-b"), flipped=False) == ["run-a", "run-b"]
    assert pl.seen_order(("run-a",), flipped=True) == ["run-a"]
    assert pl.placement_of(["run-b", "run-a"]) == SEEN
    assert pl.order_of(SEEN) == ["run-b", "run-a"]
    assert pl.is_flipped(SEEN, ("run-a", "run-b"))
    assert not pl.is_flipped(pl.reverse(SEEN), ("run-a", "run-b"))


def test_a_preference_names_the_run_shown_there_and_back() -> None:
    assert pl.picked(PreferenceChoice.RESPONSE_1, SEEN) == "run-b"
    assert pl.picked(PreferenceChoice.RESPONSE_2, SEEN) == "run-a"
    assert pl.picked(PreferenceChoice.TIE, SEEN) == "tie"
    assert pl.run_picked(PreferenceChoice.TIE, SEEN) is None
    assert pl.picked(PreferenceChoice.RESPONSE_2, {"1": "run-a"}) is None  # nothing shown there
    for run in SEEN.values():
        assert pl.choice_at(pl.shown_as(SEEN, run)) is not None
        assert pl.picked(pl.choice_at(pl.shown_as(SEEN, run)), SEEN) == run
    assert pl.shown_as(SEEN, "tie") is None
    assert pl.other_position(PreferenceChoice.RESPONSE_1) == "2"
    assert pl.other_position(PreferenceChoice.TIE) is None


def test_a_judgment_by_position_is_stored_by_run_and_read_back() -> None:
    given = judged(PreferenceChoice.RESPONSE_1, **{"1": 2, "2": 0})
    stored = pl.by_run(given, SEEN)
    assert stored.responses["run-b"].scores == {"d": 2}
    assert stored.preference == PreferenceChoice.RESPONSE_1  # read with its placement
    assert pl.by_position(stored, SEEN) == given
    with pytest.raises(AbpError, match="unknown response '3'"):
        pl.by_run(judged(None, **{"3": 1}), SEEN)


def test_a_judgment_shown_the_other_way_round_keeps_its_runs_and_its_pick() -> None:
    stored = pl.by_run(judged(PreferenceChoice.RESPONSE_1, **{"1": 2, "2": 0}), SEEN)
    other = pl.reverse(SEEN)
    shown = pl.by_position(stored, SEEN, other)
    assert shown.responses["2"].scores == {"d": 2}  # run-b, now shown second
    assert shown.preference == PreferenceChoice.RESPONSE_2  # still run-b
    assert pl.swapped(SEEN, other) and not pl.swapped(SEEN, SEEN)
    # A screen showing one of the runs alone: the other run's response and a pick of it go.
    alone = pl.by_position(stored, SEEN, {"1": "run-a"})
    assert set(alone.responses) == {"1"} and alone.preference is None


def test_runs_renamed_stay_where_they_were_shown() -> None:
    by_pk = {"1": 12, "2": 11}
    assert pl.relabel(by_pk, {11: "run-a", 12: "run-b"}.__getitem__) == SEEN
    assert pl.labels(SEEN) == {"run-b": "Response 1", "run-a": "Response 2"}
    assert pl.labels({"1": "run-a"}) == {"run-a": "Response"}
    assert pl.runs_shown(SEEN) == {"run-a", "run-b"}
    assert pl.positions_shown(SEEN) == ["1", "2"]
