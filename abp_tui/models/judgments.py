"""Judgments made by people: reviewers, the judgment of an item (each response's scores and
state, the validity gate, the preference and its justification), imported preferences and
findings."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

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
    reclassified: bool = Field(default=False, exclude_if=lambda v: v is False)
    """The run's record says PROVIDER_BLOCK or INFRA_ERROR and the reviewer reclassifies it:
    the scores (or ``state_override``) decide instead, for ``override_reason``. Without it the
    record's state stands whatever the scores (seed 000's rerun rules). Left out of the stored
    judgment while False, so judgments written before it keep their bytes."""
    correction_minutes: float | None = Field(
        default=None, ge=0, le=100_000, allow_inf_nan=False, exclude_if=lambda v: v is None
    )
    """Seed 002: minutes needed to bring the output to "meets brief", under the design's timing
    rule (``correction_effort``); None when not recorded, which stays missing, never zero. Left
    out of the stored document while None, so that earlier judgments keep their bytes."""


class Judgment(Model):
    """Everything a reviewer decides about one item; saved as drafts, then submitted."""

    responses: dict[str, ResponseJudgment] = Field(default_factory=dict)
    """Run id -> judgment of that run."""
    preference: PreferenceChoice | None = None
    """Pair items: which response is better, as shown (Response 1 or 2), tie or insufficient."""
    justification: str = ""
    validity: dict[str, bool] = Field(default_factory=dict)
    """Validity gate check id -> passed. A failed check calls for INVALID_TEST or GRADER_DISPUTE."""


RetestResult = Literal["passed", "failed", "partially passed"]


class RetestCase(Model):
    """One case run again after a change (seed 002 section 6: "retest the original case and
    nearby cases after a change")."""

    case: str = Field(min_length=1)
    """The case retested: the original's task or item, or what the nearby case varies."""
    original: bool = False
    """True for the original case of the finding; False for a nearby case."""
    result: RetestResult


class SafetyDetails(Model):
    """What seed 002 section 4 asks of a safety finding besides expected and observed behaviour
    (the finding's ``expected`` and ``actual``) and repeatability (its occurrences out of its
    attempts)."""

    attacker_control: str = Field(min_length=1)
    """What the attacker controls (an untrusted reference, a field of the input...)."""
    trust_boundary: str = Field(min_length=1)
    """The boundary crossed (untrusted document -> instructions, draft -> publication...)."""
    plausible_impact: str = Field(min_length=1)


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
    # Seed 002's repeatability and safety fields; left out of the stored document while at
    # their defaults, so that a finding recorded before them keeps its bytes.
    attempts: int | None = Field(default=None, ge=1, exclude_if=lambda v: v is None)
    """The attempts of the case: the occurrences are reported as occurrences/attempts."""
    safety: SafetyDetails | None = Field(default=None, exclude_if=lambda v: v is None)
    """Set for a safety finding (seed 002 section 4)."""
    retests: tuple[RetestCase, ...] = Field(default=(), exclude_if=lambda v: not v)
    """The original case and the nearby cases retested, each with its result."""

    @model_validator(mode="after")
    def _reported_as_the_seed_asks(self) -> Finding:
        if self.attempts is not None and self.occurrences > self.attempts:
            raise ValueError(
                f"occurrences ({self.occurrences}) cannot exceed attempts ({self.attempts})"
            )
        if self.safety is not None:
            missing = [
                name
                for name, value in (
                    ("expected", self.expected),
                    ("actual", self.actual),
                    ("attempts", self.attempts),
                )
                if value is None or (isinstance(value, str) and not value.strip())
            ]
            if missing:
                raise ValueError(
                    "a safety finding states expected and observed behaviour and its "
                    f"repeatability (occurrences of attempts): missing {', '.join(missing)}"
                )
        if self.retest_status == "not retested" and self.retests:
            raise ValueError("retest cases are listed but the status is 'not retested'")
        return self

    def retest_problem(self) -> str | None:
        """Why a new revision may not be recorded as it is: a retest status with no original
        case listed. Checked when a finding is recorded, not when one is read, so that a
        finding stored before retest cases existed still reads."""
        if self.retest_status != "not retested" and not any(c.original for c in self.retests):
            return (
                f"retest status {self.retest_status!r}: list the original case retested (and "
                "the nearby cases), each with its result"
            )
        return None
