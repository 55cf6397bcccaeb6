"""The records of a study design as every layer exchanges them, each declared once.

A run's facts, an item of the plan, a revision of a judgment, of an adjudication or of a finding,
a run's final verdict and the outcome that counts for it. The store reads them from the database,
the rules of :mod:`abp_tui.analysis` take them, and a publication bundle writes them as its
source files (``runs/runs.jsonl``, ``judging/*.jsonl``) and reads them back for ``verify``; a
bundle's record is one of these, or one of these plus the bundle's own fields.

Runs are named by their id and items by their blind code, here and in every file: never by a
database key (the store maps its keys to these names when it reads). Nothing here reads the
database or files, or decides anything: the rules that read these records live in
:mod:`abp_tui.analysis`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pydantic import Field

from abp_tui.models.base import Model
from abp_tui.models.design import DisagreementRules, StudyDesign
from abp_tui.models.judgments import Finding, Judgment
from abp_tui.models.rubric import ResultState, Rubric

VerdictSource = Literal["adjudicated", "unanimous", "single review", "unresolved"]
"""Where a final human verdict comes from."""
OutcomeSource = Literal[
    "adjudicated",
    "unanimous",
    "single review",
    "unresolved",
    "automated",
    "record",
    "unjudged",
]
"""Where the outcome that counts for a run comes from: a verdict's source, or what stands in for
one when no person judged the run."""


class RunFacts(Model):
    """What results need of a run: its identity, the outcome its source states, its efficiency
    figures. The run's full record (output, trace, metadata) is :class:`abp_tui.models.Run`."""

    id: str
    """The run's id, unique within its study."""
    task: str
    """The id of the task the run answers."""
    condition: str
    """The id of the condition the run was made under."""
    trial: int
    """Repeat / trial / epoch number."""
    origin_status: ResultState | None
    """A result state the source itself assigned (INFRA_ERROR rows, PROVIDER_BLOCK...)."""
    automated_outcome: str | None
    """An automated verification outcome (passed, failed, timeout, agent-error, resolved...)."""
    excluded_reason: str | None
    """Why the source excluded the run before scoring; the run stays visible."""
    total_tokens: int | None
    """Total tokens: the source's total, else input plus output; None when not measured."""
    wall_clock_ms: float | None
    """Wall-clock time of the run, when measured."""
    cost_usd: float | None
    """Cost in US dollars, when measured."""
    diff_bytes: float | None
    """Normalized diff bytes of the run's patch, when the source measures them."""

    def metric(self, name: str) -> float | None:
        """An efficiency figure by field name, as a float (None when not measured)."""
        value = getattr(self, name)
        return None if value is None else float(value)


class Item(Model):
    """An item of a design's plan: one run judged on its own, or a pair of runs of one task and
    trial judged side by side."""

    code: str
    """The blind code (``P-`` or ``S-`` and six characters): how every record names the item."""
    index: int
    """Position in the design's plan (the order items were planned in)."""
    kind: str
    """``pair`` or ``single``."""
    task: str
    """The id of the task both runs answer."""
    trial: int
    """The trial both runs belong to."""
    runs: tuple[str, ...]
    """Run ids: (a, b) for a pair, (a,) for a single item: the item's own orientation."""
    conditions: tuple[str, ...]
    """The condition of each run, in the same order."""
    base_flip: bool
    """The plan's base orientation: False shows run a as Response 1 to reviewers in even slots
    (odd slots see the reverse)."""

    @property
    def is_pair(self) -> bool:
        return len(self.runs) == 2


class JudgmentRevision(Model):
    """One revision of one reviewer's judgment of an item: a draft or a submission.

    Revisions are appended, never changed; the latest submitted one counts for verdicts, the
    first submitted one for agreement (:mod:`abp_tui.analysis.records`).
    """

    item: str
    """The item's blind code."""
    reviewer: str
    """Who judged."""
    revision: int
    """1, 2...: this reviewer's revisions of this item, in the order they were saved."""
    status: str
    """``draft`` or ``submitted``."""
    created_at: str
    """When the revision was made (UTC, on the station that made it)."""
    reason: str
    """Why a submitted judgment was changed (revisions after the first submission)."""
    seconds_spent: float
    """Time spent on the item until this revision, in total."""
    placement: dict[str, str]
    """Position shown ("1", "2") -> run id: what the reviewer saw where."""
    judgment: Judgment
    """What the reviewer decided; responses keyed by run id."""


class AdjudicationRevision(Model):
    """One revision of the final judgment of a disputed item; the reviewers' own are kept."""

    item: str
    """The item's blind code."""
    adjudicator: str
    """Who settled the item."""
    revision: int
    """1, 2...: the item's adjudications, in the order they were recorded."""
    created_at: str
    """When it was recorded (UTC)."""
    note: str
    """Why: every adjudication says so."""
    show_names: bool
    """Whether the adjudicator asked to see the reviewers' names."""
    placement: dict[str, str]
    """Position shown to the adjudicator ("1", "2") -> run id."""
    judgment: Judgment
    """The final judgment; responses keyed by run id."""


class FindingRevision(Model):
    """One revision of a finding recorded about a study's runs."""

    id: str
    """The finding's id, unique within its study."""
    revision: int
    """1, 2...: recording the same id again adds a revision."""
    reviewer: str
    """Who recorded this revision."""
    created_at: str
    """When it was recorded (UTC)."""
    finding: Finding
    """The finding itself (severity, layer, steps, evidence, retest status...)."""
    runs: tuple[str, ...]
    """Ids of the runs the finding is about, sorted."""


class Verdict(Model):
    """The final human verdict of one run in a design."""

    run: str
    """The run's id."""
    source: VerdictSource
    """adjudicated, unanimous, single review or unresolved."""
    result_state: ResultState | None
    """None when the reviewers' states differ and nobody adjudicated."""
    scores: dict[str, float]
    """Component scores: the adjudicated or single judgment's; the median when several."""
    fatal_hits: tuple[str, ...]
    """Every fatal criterion any judgment behind the verdict hit (the adjudication's alone when
    adjudicated)."""
    judgments: int
    """How many reviewer judgments of the run stand behind it."""
    items: tuple[str, ...]
    """Blind codes of the items the run was judged in."""
    preference_only: bool = False
    """The run was judged by preference alone (its pairs' final preferences,
    :class:`ItemPreference`): no result state, no scores; ``source`` and ``judgments`` are its
    pairs' preferences'."""


class PreferenceReview(Model):
    """One reviewer's latest submitted preference of a pair, in run terms."""

    reviewer: str
    revision: int
    pick: str
    """The run id preferred, ``tie`` or ``insufficient_evidence``."""
    shown_as: str | None
    """Where the preferred run was shown ("1" first, "2" second); None for a tie or
    insufficient evidence."""
    placement: dict[str, str]
    """Position shown ("1", "2") -> run id: what the reviewer saw where."""
    justification: str = ""
    """Why, in the reviewer's words (naming the responses as they were shown: ``placement``)."""


class ItemPreference(Model):
    """The final preference of one judged pair: a preference belongs to the pair, not a run."""

    item: str
    """The item's blind code."""
    task: str
    runs: tuple[str, ...]
    """The item's runs, in its own orientation (a, b)."""
    conditions: tuple[str, ...]
    """The conditions of ``runs``, in the same order."""
    source: VerdictSource
    """adjudicated, unanimous, single review or unresolved."""
    preferred: str | None
    """The run id preferred, ``tie``, ``insufficient_evidence``; None while unresolved."""
    preferred_condition: str | None
    """The preferred run's condition (None for a tie, insufficient evidence or unresolved)."""
    reviews: tuple[PreferenceReview, ...]
    """The reviewers' own preferences behind it, by reviewer."""
    adjudicator: str | None = None
    """Who settled it, when adjudicated."""
    note: str | None = None
    """The adjudicator's note, when adjudicated: why this is the final preference."""


class RunOutcome(Model):
    """The outcome that counts for one run: its verdict, else what stands in for one."""

    run_id: str
    """The run's id."""
    task_id: str
    """The id of the run's task."""
    condition_id: str
    """The id of the run's condition."""
    trial: int
    """The run's trial."""
    state: ResultState | None
    """The state that counts; None while the run is unjudged."""
    source: OutcomeSource
    """Where ``state`` comes from."""
    human_state: ResultState | None
    """The final human verdict's state, when a person judged the run."""
    automated_state: ResultState | None
    """The state the automated verification outcome stands for, when there is one."""
    fatal: bool | None
    """A fatal criterion was hit (human judgment only; None when no person judged)."""
    scores: dict[str, float]
    """The verdict's component scores (empty without a human verdict)."""


class AllocationDraw(Model):
    """One item of a design with a human budget: how uncertain the AI judges were on it when
    the plan was stored, the probability it had of going to people, and whether the seeded
    draw sent it (``judging/allocation.jsonl`` of a bundle)."""

    item: str
    """The item's blind code."""
    uncertainty: float = Field(ge=0, allow_inf_nan=False)
    probability: float = Field(gt=0, le=1, allow_inf_nan=False)
    drawn: bool


@dataclass(frozen=True)
class DesignRecords:
    """Everything the rules need of one design: what the store reads from the database and a
    bundle from its own source files."""

    design: StudyDesign
    """The design file's part of the stored design (its disagreement rules included)."""
    rubric: Rubric
    """The rubric frozen with the design."""
    seed: int
    """Seeds the efficiency bootstrap (the design's seed)."""
    items: tuple[Item, ...]
    """In plan order."""
    judgments: tuple[JudgmentRevision, ...]
    """Every submitted revision (drafts are not judgments yet)."""
    adjudications: tuple[AdjudicationRevision, ...]
    """Every revision, or at least each item's latest."""
    runs: tuple[RunFacts, ...] = ()
    """The runs in the design's scope, in the order results list them."""
    task_criteria: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Task id -> the task's own fatal criteria (the rubric's general ones are added to them)."""
    superseded: frozenset[str] = frozenset()
    """Ids of runs whose current version is not the one the design's items hold (a changed
    record was imported after planning): what was judged is other content, so their verdicts
    do not count for the current version, which stays unjudged."""
    allocation: tuple[AllocationDraw, ...] = ()
    """A design with a human budget: each item's probability of going to people and whether
    the draw sent it (:mod:`abp_tui.stats.allocation`); empty for any other design."""

    @property
    def rules(self) -> DisagreementRules:
        return self.design.disagreement
