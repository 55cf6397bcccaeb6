"""Where each run of an item was shown: the one translation between screen positions and runs.

A reviewer (or an adjudicator) sees an item's runs at positions ``"1"`` (Response 1) and ``"2"``
(Response 2), or a single run at ``"1"``; what they decide is given in those positions. A
judgment is stored by run, with its *placement*: position -> run key (a run id in the shared
records, a run pk in the store), what the reviewer saw where. Its preference stays as it was
given (Response 1 or 2), so it is read in run terms through the placement it was made on.

Everything that turns positions into runs, or runs into positions, calls this module: the save
path (:func:`by_run`), the screens that show a stored judgment (:func:`by_position`), the
adjudication's blind swap (:func:`reverse`, :func:`on_screen`), the records and the bundle
(:func:`picked`, :func:`shown_as`). Nothing else looks inside a placement or builds one
(``tests/test_architecture.py`` holds every other module to it). Pure: no database, no files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final, TypeVar

from abp_tui.errors import AbpError
from abp_tui.models import (
    AdjudicationRevision,
    Judgment,
    JudgmentRevision,
    PreferenceChoice,
    ResponseJudgment,
)

K = TypeVar("K", str, int)
"""A run key: a run id (the shared records) or a run pk (the store)."""
L = TypeVar("L", str, int)
R = TypeVar("R", JudgmentRevision, AdjudicationRevision)

FIRST: Final = "1"
SECOND: Final = "2"
_CHOICE: Final = {FIRST: PreferenceChoice.RESPONSE_1, SECOND: PreferenceChoice.RESPONSE_2}
_POSITION: Final[dict[str, str]] = {choice.value: position for position, choice in _CHOICE.items()}


# -- a placement ---------------------------------------------------------------------------------
def seen_order(runs: Sequence[K], flipped: bool) -> list[K]:
    """An item's runs (in its own orientation, a then b) in the order a reviewer sees them: the
    other way round when their assignment flips the pair; a single run as it is."""
    return [runs[1], runs[0]] if flipped and len(runs) == 2 else list(runs)


def placement_of(order: Iterable[K]) -> dict[str, K]:
    """The placement showing ``order``'s runs in that order: Response 1, then 2."""
    return {str(i): run for i, run in enumerate(order, start=1)}


def in_order(placement: Mapping[str, K]) -> list[tuple[str, K]]:
    """(position, run) pairs of ``placement``, Response 1 first."""
    return sorted(placement.items())


def order_of(placement: Mapping[str, K]) -> list[K]:
    """The runs of ``placement`` in the order shown (Response 1 first)."""
    return [run for _position, run in in_order(placement)]


def positions_shown(placement: Mapping[str, K]) -> list[str]:
    """The positions ``placement`` shows something at, in order ("1", "2")."""
    return [position for position, _run in in_order(placement)]


def run_at(placement: Mapping[str, K], position: str) -> K | None:
    """The run shown at ``position`` ("1", "2"); None when nothing was shown there."""
    return placement.get(position)


def runs_shown(placement: Mapping[str, K]) -> set[K]:
    """The runs ``placement`` shows, wherever they were."""
    return set(placement.values())


def relabel(placement: Mapping[str, K], key: Callable[[K], L]) -> dict[str, L]:
    """``placement`` with each run named by ``key`` instead (a run pk by its run id, say):
    every run stays where it was shown."""
    return {position: key(run) for position, run in placement.items()}


def labels(placement: Mapping[str, K]) -> dict[K, str]:
    """Run -> how the screen named it: "Response 1", "Response 2", or "Response" alone."""
    if len(placement) == 1:
        return {run: "Response" for run in placement.values()}
    return {run: f"Response {position}" for position, run in placement.items()}


def reverse(placement: Mapping[str, K]) -> dict[str, K]:
    """The same runs the other way round (a single run as it is): the adjudication's blind
    swap of the placement the first reviewer saw."""
    if len(placement) < 2:
        return dict(placement)
    return {FIRST: placement[SECOND], SECOND: placement[FIRST]}


def is_flipped(placement: Mapping[str, K], runs: Sequence[K]) -> bool:
    """Whether ``placement`` shows a pair's ``runs`` (its own orientation) the other way round."""
    return len(runs) == 2 and placement.get(FIRST) == runs[1]


def swapped(placement: Mapping[str, K], shown: Mapping[str, K]) -> bool:
    """Whether ``placement`` shows the runs of a pair the other way round from ``shown``."""
    return len(shown) > 1 and placement.get(FIRST) == shown.get(SECOND)


# -- a preference --------------------------------------------------------------------------------
def run_picked(choice: str | None, placement: Mapping[str, K]) -> K | None:
    """The run a preference (a :class:`~abp_tui.models.PreferenceChoice` or its value) given
    under ``placement`` picked; None for no preference, a tie, insufficient evidence or a
    position nothing was shown at."""
    position = _POSITION.get(choice) if choice is not None else None
    return None if position is None else placement.get(position)


def picked(choice: PreferenceChoice | None, placement: Mapping[str, str]) -> str | None:
    """A preference as shown (Response 1 / 2, tie, insufficient evidence) in run terms under the
    ``placement`` it was made on (position -> run id): the run id preferred, "tie",
    "insufficient_evidence", or None for no preference (or a position nothing was shown at).
    :func:`shown_as` is the other way."""
    if choice is None:
        return None
    if choice in _POSITION:
        return run_picked(choice, placement)
    return choice.value


def shown_as(placement: Mapping[str, K], run: K | str) -> str | None:
    """Where ``run`` was shown ("1" first, "2" second) under ``placement``; None when it was not
    shown (a tie, insufficient evidence). :func:`picked` is the other way."""
    return next((position for position, shown in placement.items() if shown == run), None)


def choice_at(position: str | None) -> PreferenceChoice | None:
    """The preference for the response shown at ``position`` (None: none)."""
    return _CHOICE.get(position) if position is not None else None


def other_position(choice: str | None) -> str | None:
    """Where a preference for Response 1 or 2 points for someone who saw the pair the other way
    round ("2" for Response 1); None for no preference, a tie or insufficient evidence."""
    position = _POSITION.get(choice) if choice is not None else None
    return None if position is None else (SECOND if position == FIRST else FIRST)


# -- a judgment ----------------------------------------------------------------------------------
def by_run(judgment: Judgment, placement: Mapping[str, K]) -> Judgment:
    """A judgment given by position, its responses keyed by the run (as text) ``placement``
    shows at each; its preference stays as given (it is read with the placement). Raises
    AbpError for a response at a position ``placement`` shows nothing at."""
    responses: dict[str, ResponseJudgment] = {}
    for position, response in judgment.responses.items():
        if position not in placement:
            raise AbpError(f"unknown response {position!r}")
        responses[str(placement[position])] = response
    return judgment.model_copy(update={"responses": responses})


def by_position(
    judgment: Judgment, made: Mapping[str, K], shown: Mapping[str, K] | None = None
) -> Judgment:
    """A judgment keyed by run (as text), given under the placement ``made``, keyed by the
    positions of ``shown`` (``made`` itself when None): each response where ``shown`` shows its
    run, the preference as ``shown`` shows the run it picked. A response or a preference of a
    run ``shown`` does not show is left out."""
    target = made if shown is None else shown
    position_of = {str(run): position for position, run in target.items()}
    responses = {
        position_of[run]: response
        for run, response in judgment.responses.items()
        if run in position_of
    }
    preference = judgment.preference
    if preference in _POSITION:
        run = run_picked(preference, made)
        preference = choice_at(position_of.get(str(run)) if run is not None else None)
    return judgment.model_copy(update={"responses": responses, "preference": preference})


def on_screen(revision: R, shown: Mapping[str, str]) -> R:
    """A revision re-keyed to a screen's positions (``shown``: position -> run id): its
    responses and its placement by position, its preference as the screen shows the runs."""
    judgment = by_position(revision.judgment, revision.placement, shown)
    return revision.model_copy(
        update={"judgment": judgment, "placement": {p: p for p in sorted(shown)}}
    )
