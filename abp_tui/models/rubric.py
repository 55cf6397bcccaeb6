"""Rubrics, their validity gates and the six AFP result states.

A rubric carries everything a reviewer is asked about one response: its dimensions, fatal
criteria, acceptance rule and the validity gate answered before scoring. A rubric without
dimensions (the built-in ``preference-only``) asks nothing about a response: its designs record
which response is better, with a justification, and nothing else.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, Literal

from pydantic import Field, model_validator

from abp_tui.models.base import Model, trusted


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


KEY_PATTERN: Final = r"^[A-Za-z_][A-Za-z0-9_-]*$"
"""What a key a rubric file defines may look like (it also names a field on screen)."""


class ValidityCheck(Model):
    """One question of a validity gate: answered "holds" or "fails" before scoring."""

    id: str = Field(pattern=KEY_PATTERN)
    """Stable key (``consistent``), the key of the answer in a judgment: letters, digits, ``_``
    and ``-``, starting with a letter or ``_``."""
    text: str = Field(min_length=1)
    """The question as reviewers read it."""


AFP_VALIDITY_GATE: Final[tuple[ValidityCheck, ...]] = tuple(
    # Our own constants, already what the fields hold: built without validating them, which
    # would build the model's validator (and look for pydantic's plugins) as this is imported.
    trusted(ValidityCheck, id=key, text=text)
    for key, text in (
        ("consistent", "The fixture, evidence and rubric are internally consistent."),
        (
            "visible",
            "Any fact, date, version or restriction used by the grader was also visible to the "
            "tested model.",
        ),
        ("same_requirement", "All conditions face the same outcome requirement."),
        (
            "invariant_assertions",
            "Deterministic assertions check only genuinely invariant values or fatal prohibitions.",
        ),
        (
            "observable",
            "Judging scores observable behaviour rather than terminology or exact wording.",
        ),
    )
)
"""Seed 000's validity gate: five checks before quality scoring."""


def _asks_the_afp_gate(rubric_id: object) -> bool:
    """AFP rubrics written before rubrics carried their gate (the AFP pilot rubric and the
    rubrics AFP packs declare): seed 000's gate was asked of them implicitly."""
    return isinstance(rubric_id, str) and (
        rubric_id == "afp-v0.1" or rubric_id.startswith("afp-pack-")
    )


class Rubric(Model):
    """A scoring rubric: dimensions, general fatal criteria, the acceptance rule and the
    validity gate."""

    id: str = Field(min_length=1)
    name: str
    version: str
    dimensions: tuple[Dimension, ...]
    fatal_criteria: tuple[str, ...] = ()
    """General fatal (critical) failures; tasks may add their own."""
    acceptance: AcceptanceRule
    allows_abstention: bool = False
    """Whether abstaining is a scored, legitimate answer (sci-bench)."""
    validity_gate: tuple[ValidityCheck, ...] = ()
    """The questions answered before scoring (none: the rubric asks none)."""
    source: Literal["built-in", "imported", "design"] = "built-in"
    """Where the rubric comes from: built in, imported with a study, or a design file's own."""

    @model_validator(mode="before")
    @classmethod
    def _legacy_afp_gate(cls, data: Any) -> Any:
        # Documents stored before rubrics carried their gate (designs, packs, bundles) were
        # judged with seed 000's gate when they were AFP rubrics: read so, they still are.
        if (
            isinstance(data, dict)
            and "validity_gate" not in data
            and _asks_the_afp_gate(data.get("id"))
        ):
            return {**data, "validity_gate": AFP_VALIDITY_GATE}
        return data

    @model_validator(mode="after")
    def _gate_ids_once(self) -> Rubric:
        ids = [c.id for c in self.validity_gate]
        if len(set(ids)) != len(ids):
            raise ValueError("each validity_gate check id must be listed once")
        return self

    @property
    def max_total(self) -> int:
        return sum(max(d.scale) for d in self.dimensions if d.scored)

    @property
    def preference_only(self) -> bool:
        """True when no dimension is scored: reviewers only say which response is better."""
        return not any(d.scored for d in self.dimensions)


def stored_rubric(document: dict[str, Any]) -> Rubric:
    """The rubric the store keeps as ``document`` (its JSON dump, written from a validated
    rubric) without validating it again: the one :meth:`Rubric.model_validate` gives (the
    anchors' keys back to integers, the lists back to tuples, seed 000's gate for an AFP rubric
    stored before rubrics carried their gate), built without the rubric's validator, which the
    workstation would otherwise build (and look for pydantic's plugins) before its first item."""
    data = dict(document)
    if "validity_gate" not in data and _asks_the_afp_gate(data.get("id")):
        data["validity_gate"] = AFP_VALIDITY_GATE
    elif "validity_gate" in data:
        data["validity_gate"] = tuple(
            ValidityCheck.model_construct(**check) for check in data["validity_gate"]
        )
    data["dimensions"] = tuple(_stored_dimension(d) for d in data["dimensions"])
    if "fatal_criteria" in data:
        data["fatal_criteria"] = tuple(data["fatal_criteria"])
    acceptance = dict(data["acceptance"])
    if "required_twos" in acceptance:
        acceptance["required_twos"] = tuple(acceptance["required_twos"])
    data["acceptance"] = AcceptanceRule.model_construct(**acceptance)
    return Rubric.model_construct(**data)


def _stored_dimension(document: dict[str, Any]) -> Dimension:
    data = dict(document)
    data["anchors"] = {int(score): text for score, text in data["anchors"].items()}
    if "scale" in data:
        data["scale"] = tuple(data["scale"])
    return Dimension.model_construct(**data)
