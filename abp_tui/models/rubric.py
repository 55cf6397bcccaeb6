"""Rubrics and the six AFP result states."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from abp_tui.models.base import Model


class ResultState(StrEnum):
    """The six result states of AFP v0.1; only PASS and FAIL enter the quality denominator."""

    MODEL_PASS = "MODEL_PASS"
    MODEL_FAIL = "MODEL_FAIL"
    PROVIDER_BLOCK = "PROVIDER_BLOCK"
    INFRA_ERROR = "INFRA_ERROR"
    INVALID_TEST = "INVALID_TEST"
    GRADER_DISPUTE = "GRADER_DISPUTE"

    @property
    def in_quality_denominator(self) -> bool:
        return self in (ResultState.MODEL_PASS, ResultState.MODEL_FAIL)


class Dimension(Model):
    """One rubric dimension scored 0, 1 or 2, with the anchor text of each score."""

    id: str = Field(min_length=1)
    """Stable key (``task_correctness``)."""
    name: str
    """Label shown to reviewers (``Task correctness``)."""
    anchors: dict[int, str]
    """Anchor text for each score on the declared scale."""
    scale: tuple[int, ...] = (0, 1, 2)
    """The declared scale; agreement weights are built on it, not on the levels observed."""
    scored: bool = True
    """False for a dimension the study declares but does not score (sci-bench code_correctness)."""
    pass_fail: bool = False
    """True when the dimension is judged pass/fail (0 fail, 2 pass) rather than 0-1-2."""


class AcceptanceRule(Model):
    """When a judged output counts as MODEL_PASS (absent fatal hits and exclusions)."""

    min_total: int | None = None
    """Minimum total over scored dimensions, if the rule has one."""
    required_twos: tuple[str, ...] = ()
    """Dimensions that must each score 2."""
    min_each: int | None = None
    """Lowest score any scored dimension may have."""
    all_scored_pass: bool = False
    """Every scored dimension must pass (sci-bench: pass/fail per dimension)."""
    text: str
    """The rule in the protocol's own words."""


class Rubric(Model):
    """A scoring rubric: dimensions, general fatal criteria and the acceptance rule."""

    id: str = Field(min_length=1)
    name: str
    version: str
    dimensions: tuple[Dimension, ...]
    fatal_criteria: tuple[str, ...] = ()
    """General fatal (critical) failures; tasks may add their own."""
    acceptance: AcceptanceRule
    allows_abstention: bool = False
    """Whether abstaining is a scored, legitimate answer (sci-bench)."""
    source: Literal["built-in", "imported"] = "built-in"

    @property
    def max_total(self) -> int:
        return sum(max(d.scale) for d in self.dimensions if d.scored)
