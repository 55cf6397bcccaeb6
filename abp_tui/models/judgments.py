"""Judgments made by people: reviewers, ratings, preferences, adjudications and the audit log."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from abp_tui.models.base import Model
from abp_tui.models.rubric import AFP_VALIDITY_GATE, ResultState


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


VALIDITY_CHECKS: tuple[tuple[str, str], ...] = tuple((c.id, c.text) for c in AFP_VALIDITY_GATE)
"""Seed 000's validity gate as (id, text) pairs: the AFP rubrics' gate. Which questions an item
asks is its rubric's ``validity_gate``."""

OVERRIDE_STATES = (
    ResultState.INVALID_TEST,
    ResultState.GRADER_DISPUTE,
    ResultState.PROVIDER_BLOCK,
    ResultState.INFRA_ERROR,
)


class ResponseJudgment(Model):
    """A reviewer's rubric judgment of one response (one run)."""

    scores: dict[str, int] = Field(default_factory=dict)
    """Dimension id -> score on the dimension's scale."""
    rationales: dict[str, str] = Field(default_factory=dict)
    """Dimension id -> why; required for every score below 2."""
    fatal_hits: tuple[str, ...] = ()
    """The fatal criteria (task-specific or general) the response hits."""
    state_override: ResultState | None = None
    """INVALID_TEST, GRADER_DISPUTE, or a confirmed PROVIDER_BLOCK / INFRA_ERROR."""
    override_reason: str = ""


class Judgment(Model):
    """Everything a reviewer decides about one item; saved as drafts, then submitted."""

    responses: dict[str, ResponseJudgment] = Field(default_factory=dict)
    """Run id -> judgment of that run."""
    preference: PreferenceChoice | None = None
    """Pair items: which response is better, as shown (Response 1 or 2), tie or insufficient."""
    justification: str = ""
    validity: dict[str, bool] = Field(default_factory=dict)
    """Validity gate check id -> passed. A failed check calls for INVALID_TEST or GRADER_DISPUTE."""


class Finding(Model):
    """A finding as seed 002 section 6 asks: repeatable, inspectable, with its retest status."""

    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    severity: Literal["critical", "high", "medium", "low"]
    layer: Literal["model", "retrieval", "tool", "interface", "grader"]
    """The likely failure layer."""
    environment: str = ""
    steps: str = ""
    expected: str = ""
    actual: str = ""
    evidence: str = ""
    """An excerpt of the output that shows the failure."""
    occurrences: int = Field(default=1, ge=1)
    mitigation: str = ""
    retest_status: Literal["not retested", "fixed", "still failing", "partially fixed"] = (
        "not retested"
    )
    run_ids: tuple[str, ...] = ()
