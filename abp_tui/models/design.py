"""A study design: what to judge, how pairs are formed, who judges, and the seed of the plan."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from abp_tui.models.base import Model


class DisagreementRules(Model):
    """When two judgments of one item count as a disagreement to adjudicate."""

    result_state_differs: bool = True
    dimension_differs_by: int | None = 2
    """A dimension whose scores differ by at least this much (None: never)."""
    fatal_flag_differs: bool = True
    preference_conflicts: bool = True
    """One reviewer prefers Response 1 and another Response 2."""
    tie_conflicts_with_preference: bool = True
    """One reviewer calls a pair a tie and another prefers one of its runs (False: a tie agrees
    with any preference)."""
    grader_dispute: bool = True
    """Anyone marked GRADER_DISPUTE."""


class StudyDesign(Model):
    """The design file of ``abp-tui study create`` (TOML or JSON)."""

    study: str = Field(min_length=1)
    """The imported study this design judges."""
    name: str = Field(min_length=1)
    """The design's name; a changed design under the same name becomes a new version."""
    rubric: str | None = None
    """Rubric id (a built-in one or one imported with the study); default: the study's."""
    seed: int
    """Seeds the blind codes, the reviewer assignment, the placement and every item order."""
    tasks: Literal["all"] | list[str] = "all"
    conditions: Literal["all"] | list[str] = "all"
    contrasts: Literal["all-pairs", "none"] | list[tuple[str, str]] = "all-pairs"
    """Pairs of conditions to compare, e.g. [["C", "A"], ["D", "B"]]."""
    single_items: bool = False
    """Also score each run on its own (absolute scoring), not only in pairs."""
    reviewers: list[str] = Field(default_factory=list)
    """The reviewers; empty means open: whoever opens the study judges every item."""
    reviewers_per_item: int = Field(default=1, ge=1)
    mask_terms: list[str] = Field(default_factory=list)
    """More identity terms to mask in what reviewers see, besides those from the records."""
    disagreement: DisagreementRules = Field(default_factory=DisagreementRules)

    @field_validator("contrasts")
    @classmethod
    def _distinct_sides(
        cls, value: Literal["all-pairs", "none"] | list[tuple[str, str]]
    ) -> Literal["all-pairs", "none"] | list[tuple[str, str]]:
        if isinstance(value, list):
            for a, b in value:
                if a == b:
                    raise ValueError(
                        f"a contrast compares two different conditions, got {a} vs {b}"
                    )
        return value

    @field_validator("reviewers")
    @classmethod
    def _unique_reviewers(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("reviewers must be listed once each")
        if any(not name.strip() for name in value):
            raise ValueError("reviewer names must not be empty")
        return value
