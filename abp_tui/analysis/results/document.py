"""The results document of a design: one computation, from its records, for every face.

``abp-tui results``, the workstation's results screen, a bundle's ``results/summary.json``,
its report and CSV files, and ``verify`` all read one document, :class:`ResultsDocument`,
computed by :func:`results_document` from one record set (:class:`abp_tui.models.DesignRecords`)
and what results need of the study besides (:class:`StudyFacts`). The database's records
(:mod:`abp_tui.services.results_report`) and a bundle's (:mod:`abp_tui.export.bundle_analysis`)
only differ in where they are read from: neither assembles a document of its own, so neither
can lead with, count or withhold something the other does not.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, field_serializer

from abp_tui.analysis.abp_efficiency import EngineEfficiency
from abp_tui.analysis.automated import JudgeTally
from abp_tui.analysis.business.figures import BusinessResults, benchmark_records, business_results
from abp_tui.analysis.matched_models import ModelMatch, model_match
from abp_tui.analysis.model_versions import ModelVersions, version_warnings
from abp_tui.analysis.reruns import Reclassification, listed_reclassifications
from abp_tui.analysis.results.tallies import (
    DEFAULT_CONFIDENCE,
    Comparison,
    GroupResult,
    PositionBiasResult,
    Results,
    VerdictSource,
    any_state,
    results,
)
from abp_tui.analysis.scibench_results import (
    SciBenchResults,
    SciRunTraits,
    applies,
    declared_status,
    scibench_results,
)
from abp_tui.analysis.verdicts import Decisions
from abp_tui.models import (
    Condition,
    DesignRecords,
    FindingRevision,
    Model,
    ResultState,
    Rubric,
    RunOutcome,
)


class ResultsDocument(Model):
    """The results of a design (or of a study's automated outcomes): what every face shows."""

    warnings: list[str] = Field(default_factory=list)
    """What the results lead with: engines that did not run on the same model, conditions on
    different model versions."""
    headline: list[str] = Field(default_factory=list)
    """The answer to the design's question in a few sentences, before every table."""
    study: str
    design: str
    design_version: int
    design_sha256: str
    rubric: str
    confidence: float
    """The level of every Wilson and bootstrap interval of these results."""
    verdict_source: VerdictSource = "design"
    """``automated`` when the study has no design and every verdict is an automated outcome
    (``design`` is then the scope's name, :data:`abp_tui.analysis.automated.AUTOMATED_DESIGN`)."""
    conditions: list[GroupResult]
    by_task: list[GroupResult]
    comparisons: list[Comparison]
    position_bias: PositionBiasResult
    outcomes: list[RunOutcome]
    """The outcome that counts for each run in scope, in run order."""
    automated_judge: list[JudgeTally] = Field(default_factory=list)
    """The automated judge's own pass / fail / unscored per condition and dimension."""
    notes: list[str]
    preference_only: bool = False
    """The design's rubric scores nothing: its reviewers only preferred one response of a pair."""
    model_match: ModelMatch | None = None
    """Engines (ABP, Arena): whether they ran on the same model; unmatched, no comparisons."""
    engine_efficiency: list[EngineEfficiency] = Field(default_factory=list)
    """Engines (ABP, Arena): each engine's own efficiency medians."""
    reclassifications: list[Reclassification] = Field(default_factory=list)
    """Runs whose record's INFRA_ERROR / PROVIDER_BLOCK a reviewer set aside (seed 000), every
    one of them, development material's too (each marked)."""
    scibench: SciBenchResults | None = Field(default=None, exclude_if=lambda v: v is None)
    """Seed 004's condition and dimension counts, for a rubric that scores abstention."""
    business: BusinessResults | None = Field(default=None, exclude_if=lambda v: v is None)
    """What the business protocol (seed 002) asks a report to carry, for a design under it."""

    @field_serializer("by_task", "outcomes", mode="wrap")
    def _made_when_read(self, rows: Sequence[Any], dump: SerializerFunctionWrapHandler) -> Any:
        """A lazy document's rows (:func:`document_of`: a sequence making each when read) are
        dumped as the list they make, as a list of them is."""
        return dump(rows if isinstance(rows, list) else list(rows))


class ResultsReport(ResultsDocument):
    """The results document as ``abp-tui results`` and the workstation show them from the
    database, with who unblinded the study and when."""

    unblinded_by: str
    unblinded_at: str


@dataclass(frozen=True)
class DesignIdentity:
    """Which design the document is of, as its faces name it."""

    name: str
    version: int
    sha256: str


@dataclass(frozen=True)
class StudyFacts:
    """What results need of a study besides its design's records, from wherever it is read.

    The two callables are only called when the rule they serve applies (seed 000's model
    versions for ABP and Arena, seed 004's traits for a rubric that scores abstention), so a
    study they do not concern never reads its runs' full records for them.
    """

    study: str
    protocol: str
    description: str = ""
    conditions: Sequence[Condition] = ()
    unverified_tokens: Collection[str] = ()
    """Ids of the runs whose metadata says their token totals could not be checked."""
    judge_dimensions: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    """Run id -> the automated judge's dimensions of its current version."""
    findings: Sequence[FindingRevision] = ()
    model_versions: Callable[[Mapping[str, ResultState | None]], ModelVersions | None] = (
        lambda _states: None
    )
    """Seed 000 section 3 over the runs in ``states`` (run id -> the state that counts)."""
    traits: Callable[[], Mapping[str, SciRunTraits]] = dict
    """Seed 004: each run's traits, from its full record."""


def results_document(
    records: DesignRecords,
    study: StudyFacts,
    design: DesignIdentity,
    confidence: float = DEFAULT_CONFIDENCE,
    decisions: Decisions | None = None,
    run_outcomes: Sequence[RunOutcome] | None = None,
    *,
    lazy: bool = False,
) -> ResultsDocument:
    """The results document of ``records``, every interval at ``confidence``.

    ``decisions`` and ``run_outcomes`` may be passed when the caller already computed them from
    these same (whole) records; they are used only when no development material is set apart.
    ``lazy``: the document holds the results' outcomes and rows by task as the sequences they
    are (made when read) rather than lists (:func:`document_of`).
    """
    match = model_match(study.protocol, study.conditions, study.unverified_tokens)
    # Development material is never a benchmark result: reported apart (seed 002).
    bench = benchmark_records(records)
    whole = bench is records
    found = results(
        bench,
        decisions if whole else None,
        run_outcomes if whole else None,
        confidence,
        judge_dimensions=study.judge_dimensions,
        model_match=match,
    )
    sci = _scibench(records, study, bench, found.outcomes)
    return document_of(
        found,
        records.rubric,
        study,
        design,
        match,
        sci,
        # Seed 000 lists every reclassification, development material's too (each marked).
        found.reclassifications if whole else listed_reclassifications(records, decisions),
        business_results(
            records,
            protocol=study.protocol,
            findings=study.findings,
            confidence=found.confidence,
        ),
        lazy=lazy,
    )


def document_of(
    found: Results,
    rubric: Rubric,
    study: StudyFacts,
    design: DesignIdentity,
    match: ModelMatch | None,
    sci: SciBenchResults | None = None,
    reclassifications: Sequence[Reclassification] | None = None,
    business: BusinessResults | None = None,
    *,
    lazy: bool = False,
) -> ResultsDocument:
    """The results document of the results ``found`` (of records under ``rubric``), with what
    seeds 004 (``sci``), 000 (every ``reclassifications``, default the results' own) and 002
    (``business``) add to them. ``lazy``: its outcomes and rows by task are the results' own
    sequences (made when read, :mod:`abp_tui.analysis.results.run_table`), not lists: for a
    face that writes them one at a time and never dumps the document whole."""
    # Seed 000 section 3: conditions on different model versions lead the results.
    versions = study.model_versions(_States(found.outcomes))
    preference_only = rubric.preference_only and found.verdict_source != "automated"
    # A preference design with no state to count has no row by task worth a line: each would
    # read 0/0 (one a task and condition, tens of megabytes for a large study), and the
    # disagreements name the items still open.
    by_task = [] if preference_only and not any_state(found.conditions) else found.by_task
    fields: dict[str, Any] = dict(
        warnings=[*found.warnings, *version_warnings(versions)],
        headline=found.headline,
        study=study.study,
        design=design.name,
        design_version=design.version,
        design_sha256=design.sha256,
        rubric=rubric.id,
        confidence=found.confidence,
        verdict_source=found.verdict_source,
        conditions=found.conditions,
        by_task=by_task,
        # Seed 004: no condition effect before the human gate.
        comparisons=found.comparisons if sci is None or not sci.withheld else [],
        position_bias=found.position_bias,
        outcomes=found.outcomes,
        automated_judge=found.automated_judge,
        notes=found.notes,
        preference_only=preference_only,
        model_match=match,
        engine_efficiency=found.engine_efficiency,
        reclassifications=list(
            found.reclassifications if reclassifications is None else reclassifications
        ),
        scibench=sci,
        business=business,
    )
    if lazy:  # every field already of its type: the rows stay made when read
        return ResultsDocument.model_construct(**fields)
    return ResultsDocument(**fields)


class _States(Mapping[str, ResultState | None]):
    """Run id -> the state that counts, of the results' outcomes: read (and held) only when
    the rule it serves applies (seed 000's model versions)."""

    def __init__(self, outcomes: Sequence[RunOutcome]) -> None:
        self._outcomes = outcomes
        self._states: dict[str, ResultState | None] | None = None

    @property
    def _held(self) -> dict[str, ResultState | None]:
        if self._states is None:
            self._states = {o.run_id: o.state for o in self._outcomes}
        return self._states

    def __getitem__(self, run: str) -> ResultState | None:
        return self._held[run]

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)


def _scibench(
    records: DesignRecords,
    study: StudyFacts,
    bench: DesignRecords,
    run_outcomes: Sequence[RunOutcome],
) -> SciBenchResults | None:
    """Seed 004's counts over the runs of ``run_outcomes``, for a rubric that scores
    abstention."""
    if not applies(records.rubric, study.protocol):
        return None
    by_id = {r.id: r for r in bench.runs}
    runs = [by_id[o.run_id] for o in run_outcomes]
    status = declared_status(study.description)
    return scibench_results(
        records.rubric, runs, run_outcomes, study.judge_dimensions, study.traits(), status
    )


__all__ = [
    "DesignIdentity",
    "ResultsDocument",
    "ResultsReport",
    "StudyFacts",
    "document_of",
    "results_document",
]
