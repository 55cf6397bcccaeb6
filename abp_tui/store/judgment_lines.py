"""A stored judgment revision as a bundle writes it, made from its row without a model of it.

A bundle's ``judgments.jsonl`` holds each revision as its record's JSON dump
(``JudgmentRevision.model_dump(mode="json")``). The store keeps each judgment as the dump of a
validated :class:`abp_tui.models.Judgment` (runs by key), so a stored payload is almost always
plainly one already: exactly the model's fields, each of the type the model holds and would
write back unchanged. Such a payload is written as it is, its runs named by id
(:func:`judgment_line`): a large study's tens of thousands of revisions are neither validated
nor dumped again. Any other payload (a field missing or left at a default the dump leaves out,
a value the model would convert, anything unknown) goes through the model, as before; so every
line is the bytes the model writes. Nothing here reads the database.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from abp_tui.analysis.placement import relabel
from abp_tui.models import Judgment, PreferenceChoice, ResultState

_JUDGMENT: Final = frozenset(Judgment.model_fields)
_RESPONSE: Final = frozenset(
    ("scores", "rationales", "fatal_hits", "state_override", "override_reason")
)
"""A response's fields its dump always writes; one that holds more (``reclassified``,
``correction_minutes``: written only when set) goes through the model."""
_PREFERENCES: Final = frozenset(c.value for c in PreferenceChoice)
_STATES: Final = frozenset(s.value for s in ResultState)


def judgment_line(r: Sequence[Any], run_ids: Mapping[int, str]) -> dict[str, Any] | None:
    """A row as :data:`abp_tui.store.judging.JUDGMENT_SELECT` reads it as the JSON dump of its
    revision (:func:`abp_tui.store.judging.judgment_revision`'s record), runs by id; None when
    its payload is not plainly a judgment's dump (the caller then makes the record)."""
    item, reviewer, status, reason, created_at = r[0], r[1], r[3], r[6], r[8]
    if not (
        type(item) is str
        and type(reviewer) is str
        and type(status) is str
        and type(reason) is str
        and type(created_at) is str
    ):
        return None
    document = json.loads(r[4])
    if not _plain_judgment(document):
        return None
    responses = document["responses"]
    if responses:
        document["responses"] = {run_ids[int(k)]: v for k, v in responses.items()}
    return {
        "item": item,
        "reviewer": reviewer,
        "revision": int(r[2]),
        "status": status,
        "judgment": document,
        "placement": relabel(json.loads(r[5]), lambda pk: run_ids[int(pk)]),
        "reason": reason,
        "seconds_spent": float(r[7]),
        "created_at": created_at,
    }


def _plain_judgment(document: object) -> bool:
    """Whether ``document`` is plainly a :class:`~abp_tui.models.Judgment`'s JSON dump: what
    validating and dumping it again gives back unchanged."""
    if type(document) is not dict or document.keys() != _JUDGMENT:
        return False
    preference = document["preference"]
    validity = document["validity"]
    responses = document["responses"]
    return (
        (preference is None or (type(preference) is str and preference in _PREFERENCES))
        and type(document["justification"]) is str
        and type(validity) is dict
        and all(type(v) is bool for v in validity.values())
        and type(responses) is dict
        and all(_plain_response(v) for v in responses.values())
    )


def _plain_response(response: object) -> bool:
    """Whether ``response`` is plainly a :class:`ResponseJudgment`'s JSON dump."""
    if type(response) is not dict or response.keys() != _RESPONSE:
        return False
    scores, rationales, hits, state = (
        response["scores"],
        response["rationales"],
        response["fatal_hits"],
        response["state_override"],
    )
    return (
        type(scores) is dict
        and all(type(v) is int for v in scores.values())
        and type(rationales) is dict
        and all(type(v) is str for v in rationales.values())
        and type(hits) is list
        and all(type(v) is str for v in hits)
        and (state is None or (type(state) is str and state in _STATES))
        and type(response["override_reason"]) is str
    )


__all__ = ["judgment_line"]
