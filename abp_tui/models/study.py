"""The protocol's nouns that frame a comparison: Study, Condition and Task."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from abp_tui.models.base import Model


class Study(Model):
    """A set of tasks run under matched conditions and judged together."""

    id: str = Field(min_length=1)
    """Stable identifier, e.g. ``afp-v0.1`` or an ABP run id."""
    name: str = ""
    """Human-readable title."""
    protocol: str = "native"
    """Which protocol the study follows: afp, abp, arena, sci-bench, inspect, pairwise, native."""
    description: str = ""
    """Scope, status and boundaries of the study as its authors state them."""
    rubric_id: str | None = None
    """The rubric the study is judged on (a built-in or an imported one)."""
    limitations: tuple[str, ...] = ()
    """Limitations declared by the study's authors."""
    synthetic: bool = False
    """True when no real model produced the records (demo or conformance fixtures)."""


class Condition(Model):
    """One arm of the comparison: an AFP treatment, an ABP engine, a sci-bench rung, a model."""

    id: str = Field(min_length=1)
    """Identifier as the source writes it (``A``, ``oxagen``, ``C6_NEGATIVE_KNOWLEDGE``)."""
    label: str = ""
    """Human-readable name (``AFP + Governance``)."""
    instructions: str = ""
    """The instruction text given to the model under this condition (may be empty)."""
    version: str = ""
    """Version of the instructions, when the source states one."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else the source says about the condition (capabilities, engine version...)."""


class Task(Model):
    """The fixture: what every condition was asked, with what the grader expects."""

    id: str = Field(min_length=1)
    """Identifier as the source writes it (``P01``, ``gh-vercel-next.js-81234``)."""
    title: str = ""
    """Short label, when the source has one."""
    prompt: str = ""
    """The task statement given to every condition."""
    base_instruction: str = ""
    """Instruction that is part of the task itself, shared by all conditions."""
    evidence: str = ""
    """The evidence visible to the tested model."""
    expected_behaviour: str = ""
    """What the grader expects to observe (not shown to the tested model)."""
    fatal_criteria: tuple[str, ...] = ()
    """Task-specific fatal criteria: hitting any one is MODEL_FAIL whatever the total."""
    risk_type: str = ""
    """The observable risk the task targets (seed 001's table), when declared."""
    version: str = ""
    """The task's version as its source states it."""
    synthetic: bool = False
    """True when the task was written as a synthetic fixture."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else the source says about the task (source repo, verification, oracles...)."""
