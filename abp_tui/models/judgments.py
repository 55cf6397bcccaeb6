"""Judgments made by people: reviewers, ratings, preferences, adjudications and the audit log."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field

from abp_tui.models.base import Model
from abp_tui.models.rubric import ResultState


class PreferenceChoice(StrEnum):
    """A pairwise preference as seed 002 allows it."""

    RESPONSE_1 = "response_1"
    RESPONSE_2 = "response_2"
    TIE = "tie"
    INSUFFICIENT = "insufficient_evidence"


class Reviewer(Model):
    """A person (or an imported annotator) who judges."""

    name: str = Field(min_length=1)
    external: bool = False
    """True for annotators whose labels were imported rather than made here."""


class Rating(Model):
    """One reviewer's rubric judgment of one run."""

    reviewer: str
    run_id: str
    scores: dict[str, int]
    """Dimension id -> 0, 1 or 2."""
    rationales: dict[str, str] = Field(default_factory=dict)
    fatal_hits: tuple[str, ...] = ()
    result_state: ResultState
    reason: str = ""


class Preference(Model):
    """One reviewer's preference between two runs of the same task."""

    reviewer: str
    item_id: str
    """The comparison the preference belongs to."""
    task_id: str
    run_1: str
    """The run shown as Response 1."""
    run_2: str
    """The run shown as Response 2."""
    choice: PreferenceChoice
    justification: str = ""


class Adjudication(Model):
    """A final judgment that settles a disagreement; the originals are kept."""

    adjudicator: str
    item_id: str
    note: str = Field(min_length=1)
    result: dict[str, Any]


class AuditEvent(Model):
    """Something that happened, who did it and when."""

    at: str
    actor: str
    action: str
    detail: dict[str, Any] = Field(default_factory=dict)
