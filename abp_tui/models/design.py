"""A study design: what to judge, how pairs are formed, who judges, the seed of the plan, and
what the design adds to a study its records left without (description, limitations, condition
instructions)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from abp_tui.models.base import Model
from abp_tui.models.rubric import KEY_PATTERN, ValidityCheck
from abp_tui.models.study import Condition, Study

STOP_FIGURES: tuple[str, ...] = ("win rate", "pass rate")
"""The figures a design's ``stop_when`` may watch."""


def stopping_rule(text: str) -> tuple[str, float]:
    """``"win rate excludes 0.5"`` -> ("win rate", 0.5); ValueError in one line otherwise."""
    expected = 'expected "win rate excludes P" or "pass rate excludes P", P between 0 and 1'
    words = " ".join(str(text).lower().split())
    figure, sep, bound = words.partition(" excludes ")
    if not sep or figure not in STOP_FIGURES:
        raise ValueError(f"{expected}, got {text!r}")
    try:
        value = float(bound)
    except ValueError:
        raise ValueError(f"{expected}, got {text!r}") from None
    if not 0 < value < 1:
        raise ValueError(f"{expected}, got {text!r}")
    return figure, value


SCALE = (0, 1, 2)
"""The scale of a design file's own rubric dimensions."""


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


class InlineDimension(Model):
    """A dimension of a design file's own rubric, scored 0, 1 or 2."""

    id: str = Field(pattern=KEY_PATTERN)
    """Letters, digits, ``_`` and ``-``, starting with a letter or ``_``."""
    name: str = ""
    """Label shown to reviewers (default: the id)."""
    anchors: dict[int, str]
    """The anchor text of each score 0, 1 and 2."""

    @field_validator("anchors")
    @classmethod
    def _every_score_anchored(cls, value: dict[int, str]) -> dict[int, str]:
        missing = [s for s in SCALE if not value.get(s, "").strip()]
        extra = sorted(s for s in value if s not in SCALE)
        if extra:
            raise ValueError(f"scores are 0, 1 and 2; got an anchor for {extra[0]}")
        if missing:
            shown = ", ".join(str(s) for s in missing)
            raise ValueError(f"expected an anchor text for each score 0, 1 and 2 (missing {shown})")
        return value


class InlineAcceptance(Model):
    """A design file's acceptance rule (a fatal hit fails a response whatever this says)."""

    min_total: int | None = None
    """Minimum total over the dimensions."""
    min_each: int | None = Field(default=None, ge=0, le=2)
    """Lowest score any dimension may have."""
    required_twos: tuple[str, ...] = ()
    """Dimensions that must each score 2."""
    text: str = ""
    """The rule in words (default: written from the fields above)."""


class InlineRubric(Model):
    """A rubric defined in the design file itself (``[rubric]`` with ``[[rubric.dimensions]]``)."""

    id: str = ""
    """Default: the design's name."""
    name: str = ""
    version: str = "1"
    dimensions: tuple[InlineDimension, ...] = Field(min_length=1)
    fatal_criteria: tuple[str, ...] = ()
    acceptance: InlineAcceptance
    validity_gate: tuple[ValidityCheck, ...] = ()
    """The questions asked before scoring; none when left out."""


class CorrectionEffort(Model):
    """Seed 002: correction minutes "under a consistent timing rule": the one rule the design
    states, which the judgment form shows beside the minutes it asks for."""

    timing_rule: str = Field(min_length=1)
    """How minutes are timed, e.g. "from reading the output to a version that meets brief,
    excluding breaks"."""

    @field_validator("timing_rule")
    @classmethod
    def _rule_has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the timing rule must not be empty")
        return value


Workflow = Literal["single-agent", "multi-agent"]
"""Seed 002 section 5: the workflow a condition stands for."""


class StudyDesign(Model):
    """The design file of ``abp-tui study create`` (TOML or JSON)."""

    study: str = Field(min_length=1)
    """The imported study this design judges."""
    name: str = Field(min_length=1)
    """The design's name; a changed design under the same name becomes a new version."""
    rubric: str | InlineRubric | None = None
    """A rubric id (built in or imported with the study), ``"none"`` for a preference-only
    design, or the design's own rubric; default: the study's rubric, else preference-only."""
    seed: int = Field(ge=-(2**63), le=2**63 - 1)
    """With the design's plan secret, seeds the blind codes, the reviewer assignment, the
    placement and every item order (a 64-bit integer: the database stores it); on its own it
    unlocks nothing, so it may be shown."""
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
    mask_well_known: bool = True
    """Also mask the well-known model, vendor and agent names (ChatGPT, OpenAI, Claude, Gemini,
    Llama...: ``abp_tui.analysis.masking.WELL_KNOWN``); ``mask_terms`` extends the list."""
    disagreement: DisagreementRules = Field(default_factory=DisagreementRules)
    show_record_failures: bool = Field(default=False, exclude_if=lambda v: v is False)
    """Also put in front of reviewers the runs whose record carries INFRA_ERROR or
    PROVIDER_BLOCK (seed 000: fix and rerun, never in the quality denominator). Shown or not,
    such a run keeps its record's state unless a reviewer reclassifies it with a reason
    (:mod:`abp_tui.analysis.reruns`). Left out of the stored document while off, so a design
    written before it existed keeps its hash."""
    description: str = ""
    """What the study is, for a study whose records do not say (published after the study's
    own description)."""
    limitations: list[str] = Field(default_factory=list)
    """Limitations to publish besides those the study's records declare."""
    instructions: dict[str, str] = Field(default_factory=dict)
    """Condition id -> its instructions, for conditions whose records carry none."""
    # AI judges (abp_tui.models.judges). Left out of the stored document while at their
    # defaults, so that a design written before they existed keeps its hash.
    show_ai_after_submit: bool = Field(default=False, exclude_if=lambda v: v is False)
    """Show a reviewer the AI judges' verdicts on an item once they have submitted their own
    judgment of it (never before: it would anchor them)."""
    calibration_sample: float | None = Field(
        default=None, gt=0, le=1, exclude_if=lambda v: v is None
    )
    """A seeded random share of the items people judge first, blind, so that judge-assisted
    estimates are unbiased (abp_tui.analysis.judges.queue); the rest of each queue follows,
    where the AI judges are least trustworthy first."""
    human_budget: int | str | None = Field(default=None, exclude_if=lambda v: v is None)
    """Active allocation (abp_tui.stats.allocation): how many items people judge, a count
    (200) or a share of the items ("25%"); each item goes to people with a probability that
    grows with the AI judges' uncertainty on it, never below ``allocation_floor``, and only the
    items drawn enter the reviewers' queues."""
    allocation_floor: float | None = Field(
        default=None, gt=0, le=1, allow_inf_nan=False, exclude_if=lambda v: v is None
    )
    """The least probability of any item under ``human_budget`` (default 0.05)."""
    stop_when: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """A stopping rule the coordinator watches (abp_tui.analysis.results.watching): ``"win rate
    excludes 0.5"`` or ``"pass rate excludes 0.8"``, met once a figure's anytime-valid
    confidence sequence over the final verdicts (at the results' level, 95% by default)
    excludes that value. Left out of the stored document while unset, so that a design written
    before it keeps its hash."""
    # Seed 002 (business evaluation); left out of the stored document while unset, so that a
    # design written before them keeps its hash.
    correction_effort: CorrectionEffort | None = Field(default=None, exclude_if=lambda v: v is None)
    """When set, reviewers record correction minutes per output under its timing rule."""
    development_tasks: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    """Tasks that are development material (the rubric was refined on them): their results are
    reported apart, labelled, and never as a benchmark result."""
    holdout_tasks: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    """The frozen holdout: the tasks whose results are the benchmark's."""
    workflows: dict[str, Workflow] = Field(default_factory=dict, exclude_if=lambda v: not v)
    """Condition id -> ``single-agent`` or ``multi-agent`` (seed 002 section 5)."""
    adjudicators: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    """Who may adjudicate the design's disagreements; empty: anyone. Never a reviewer of the
    item adjudicated, whether listed or not (:mod:`abp_tui.services.adjudicating`). Left out of
    the stored document while empty, so that a design written before it keeps its hash."""

    @field_validator("human_budget")
    @classmethod
    def _budget_readable(cls, value: int | str | None, info: ValidationInfo) -> int | str | None:
        if value is None:
            return None
        if info.data.get("calibration_sample") is not None:
            raise ValueError(
                "human_budget and calibration_sample both choose the items people judge: set one"
            )
        if isinstance(value, bool):
            raise ValueError('expected a number of items (200) or a share ("25%")')
        if isinstance(value, int):
            if value < 1:
                raise ValueError(f"expected at least 1 item, got {value}")
            return value
        text = value.strip()
        number = text[:-1].strip() if text.endswith("%") else text
        try:
            amount = float(number)
        except ValueError:
            raise ValueError('expected a number of items (200) or a share ("25%")') from None
        if text.endswith("%"):
            if not 0 < amount <= 100:
                raise ValueError(f"a share is more than 0% and at most 100%, got {value!r}")
            return f"{number}%"
        if amount != int(amount) or amount < 1:
            raise ValueError(f"expected a whole number of items, at least 1, got {value!r}")
        return int(amount)

    @field_validator("stop_when")
    @classmethod
    def _stopping_rule(cls, value: str | None) -> str | None:
        if value is None:
            return None
        figure, bound = stopping_rule(value)
        return f"{figure} excludes {bound:g}"

    @field_validator("allocation_floor")
    @classmethod
    def _floor_with_budget(cls, value: float | None, info: ValidationInfo) -> float | None:
        # A budget that failed its own check is not in info.data: that error is the one said.
        if value is not None and "human_budget" in info.data and info.data["human_budget"] is None:
            raise ValueError("allocation_floor applies to a human_budget: set human_budget too")
        return value

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

    @field_validator("reviewers", "adjudicators")
    @classmethod
    def _unique_names(cls, value: list[str], info: ValidationInfo) -> list[str]:
        who = "reviewer" if info.field_name == "reviewers" else "adjudicator"
        seen: set[str] = set()
        for name in value:
            if name in seen:
                raise ValueError(f"{who} {name!r} is listed twice: {who}s are listed once each")
            seen.add(name)
        if any(not name.strip() for name in value):
            raise ValueError(f"{who} names must not be empty")
        return value

    @field_validator("limitations")
    @classmethod
    def _limitations_have_text(cls, value: list[str]) -> list[str]:
        if any(not text.strip() for text in value):
            raise ValueError("a limitation must not be empty")
        return value

    @field_validator("development_tasks", "holdout_tasks")
    @classmethod
    def _tasks_once(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("each task is listed once")
        return value

    @model_validator(mode="after")
    def _development_apart_from_holdout(self) -> StudyDesign:
        both = sorted(set(self.development_tasks) & set(self.holdout_tasks))
        if both:
            raise ValueError(
                f"task {both[0]!r} is both development material and holdout: a holdout is "
                "separate from the material the rubric was refined on"
            )
        return self

    @field_validator("instructions")
    @classmethod
    def _instructions_have_text(cls, value: dict[str, str]) -> dict[str, str]:
        for condition, text in value.items():
            if not text.strip():
                raise ValueError(f"the instructions of condition {condition} must not be empty")
        return value

    # -- what the design adds to the study's own records ----------------------------------------
    def framed_study(self, study: Study) -> Study:
        """The study as published with this design: its description followed by the design's,
        its limitations followed by the design's (each once)."""
        description = "\n\n".join(
            part for part in (study.description.strip(), self.description.strip()) if part
        )
        limitations = tuple(dict.fromkeys((*study.limitations, *self.limitations)))
        return study.model_copy(update={"description": description, "limitations": limitations})

    def framed_condition(self, condition: Condition) -> Condition:
        """A condition with the design's instructions when its records carry none."""
        given = self.instructions.get(condition.id)
        if given is None or condition.instructions.strip():
            return condition
        return condition.model_copy(update={"instructions": given})
