"""Results of a study design, by condition, only after an explicit unblinding.

Every run gets one outcome: a human final verdict when there is one (adjudicated, unanimous,
single review, unresolved); otherwise an automated verification outcome (ABP or Arena: passed,
failed, timeout; an engine error is INFRA_ERROR, excluded, not a loss); otherwise the state its
record carries (PROVIDER_BLOCK, INFRA_ERROR); otherwise it is unjudged. A human verdict supersedes
an automated one and both are kept. Counts of all six states are always reported; pass rates use
MODEL_PASS / (MODEL_PASS + MODEL_FAIL) with a Wilson interval; there is no blended score.

A study with automated outcomes and no design (an imported Arena ``results.json`` or ABP run
folder, a sci-bench study the automated judge scored) has results too: its automated scope
(:mod:`abp_tui.analysis.automated`: every run, every pair of conditions, every verdict's source
``automated``). :func:`find_scope` says which a command means: the study's design when it has
one, else its automated outcomes, else the "create a design" error.

The rules are :mod:`abp_tui.analysis`'s, which a publication bundle's ``verify`` applies to the
bundle's own records too; this module reads a design's records from the database, refuses a blind
study and records the unblinding.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, NoReturn

import sqlite_utils

from abp_tui.analysis.automated import (
    AUTOMATED_DESIGN,
    automated_records,
    automated_sha256,
    has_automated_outcomes,
    shared_seed,
)
from abp_tui.analysis.business.figures import benchmark_records, is_business
from abp_tui.analysis.matched_models import model_match
from abp_tui.analysis.model_versions import VERSION_PROTOCOLS, ModelVersions, model_versions
from abp_tui.analysis.records import in_scope
from abp_tui.analysis.reruns import is_record_failure
from abp_tui.analysis.results.document import (
    DesignIdentity,
    ResultsDocument,
    ResultsReport,
    StudyFacts,
    document_of,
    results_document,
)
from abp_tui.analysis.results.folding import FoldedDesign, ItemFold, folded_finals, folded_results
from abp_tui.analysis.results.run_table import RunTable
from abp_tui.analysis.results.tallies import (
    DEFAULT_CONFIDENCE,
    EFFICIENCY_METRICS,
    Comparison,
    Efficiency,
    GroupResult,
    Tally,
    confidence_level,
    counts_for_efficiency,
    group_result,
)
from abp_tui.analysis.results.watching import Finals, finals
from abp_tui.analysis.scibench_results import all_traits, applies
from abp_tui.analysis.verdicts import AUTOMATED_STATES
from abp_tui.errors import AbpError
from abp_tui.models import DesignRecords, OutcomeSource, ResultState, Rubric, RunOutcome
from abp_tui.services.designing import find_design_if_any, find_study
from abp_tui.services.roles import require
from abp_tui.store import bulk
from abp_tui.store import judging as sql
from abp_tui.store import packs as psql
from abp_tui.store.allocation import draws as allocation_draws
from abp_tui.store.automated import study_scores
from abp_tui.store.design_rules import stated_design
from abp_tui.store.queries import outcomes_changed_at, run_facts, study_protocol, unblinded
from abp_tui.store.result_items import RunRow, design_items, run_rows
from abp_tui.store.result_spill import ResultSpill
from abp_tui.store.run_models import run_models
from abp_tui.store.token_checks import unverified_token_runs
from abp_tui.text.counts import counted
from abp_tui.text.hints import command, no_such_study, quoted

__all__ = [
    "AUTOMATED_STATES",
    "EFFICIENCY_METRICS",
    "AutomatedScope",
    "Comparison",
    "Efficiency",
    "GroupResult",
    "OutcomeSource",
    "ResultsDocument",
    "ResultsReport",
    "RunOutcome",
    "Scope",
    "StudyFacts",
    "StudyIsBlind",
    "Tally",
    "automated_scope",
    "compute_automated_results",
    "compute_results",
    "counts_for_efficiency",
    "design_results",
    "find_scope",
    "group_result",
    "report_results",
    "study_facts",
    "unblind",
    "watched_results",
]


class StudyIsBlind(AbpError):
    """Results by condition were asked for before the study was unblinded."""


STATION_BLIND: Final = (
    "this is a reviewer station: results are never shown here (its study is a pack's blind "
    "copy); they are the coordinator's, once the ratings are merged and the study unblinded"
)


def unblind(db: sqlite_utils.Database, study_id: str, actor: str) -> tuple[str, str]:
    """Unblind a study (recorded in the audit log with who and when); idempotent. Refused to a
    team session's reviewer or adjudicator (:mod:`abp_tui.services.roles`), and to ``actor``
    while they have items of the study still to judge."""
    require("unblind")
    protocol = study_protocol(db, study_id)
    if protocol is None:
        raise AbpError(no_such_study(study_id, db))
    if protocol == "pack":
        raise AbpError(STATION_BLIND)
    done = unblinded(db, study_id)
    if done is not None:
        return done
    from abp_tui.store.pending_items import pending_items

    pending = pending_items(db, study_id, actor).items
    if pending:  # they would unblind what they are still to judge blind
        raise AbpError(
            f"{actor} has {counted(pending, 'item')} of study {study_id} not "
            "submitted yet: a reviewer still judging does not unblind the study (it shows its "
            "results by condition to everyone who may see them); submit them first, or let "
            "whoever coordinates unblind it"
        )
    psql.audit(db, actor, "unblind", {"study": study_id})
    found = unblinded(db, study_id)
    assert found is not None
    return found


def _unblinded_by(db: sqlite_utils.Database, study_id: str) -> tuple[str, str]:
    who = unblinded(db, study_id)
    if who is None and study_protocol(db, study_id) == "pack":  # never unblinded: say so
        raise StudyIsBlind(STATION_BLIND)
    if who is None:
        raise StudyIsBlind(
            f"study {study_id!r} is still blind: results by condition appear only after "
            f"`{command(f'unblind --study {quoted(study_id)} --yes', db)}` (recorded in the "
            "audit log)"
        )
    return who


def judge_dimensions(db: sqlite_utils.Database, study_id: str) -> dict[str, list[dict[str, Any]]]:
    """Run id -> the automated judge's dimensions of its current version (the latest scoring)."""
    return {run: score.dimensions for run, score in study_scores(db, study_id).items()}


def study_facts(db: sqlite_utils.Database, study_id: str) -> StudyFacts:
    """What results need of a study in the database besides its design's records."""
    study = bulk.study(db, study_id)
    protocol = study_protocol(db, study_id) or ""

    def versions(states: Mapping[str, ResultState | None]) -> ModelVersions | None:
        if protocol not in VERSION_PROTOCOLS:
            return None
        return model_versions(
            protocol, (r for r in run_models(db, study_id) if r.run in states), states
        )

    return StudyFacts(
        study=study_id,
        protocol=protocol,
        description=study.description if study else "",
        conditions=bulk.conditions(db, study_id),
        unverified_tokens=unverified_token_runs(db, study_id),
        judge_dimensions=judge_dimensions(db, study_id),
        findings=sql.finding_revisions(db, study_id),
        model_versions=versions,
        traits=lambda: all_traits((r.facts.id, r.record) for r in bulk.current_runs(db, study_id)),
    )


def _report(
    db: sqlite_utils.Database,
    design: DesignIdentity,
    records: DesignRecords,
    who: tuple[str, str],
    study_id: str,
    confidence: float,
) -> ResultsReport:
    found = results_document(records, study_facts(db, study_id), design, confidence)
    return ResultsReport(**dict(found), unblinded_by=who[0], unblinded_at=who[1])


def compute_results(
    db: sqlite_utils.Database, design_pk: int, confidence: float = DEFAULT_CONFIDENCE
) -> ResultsReport:
    """The results of a design, every interval at ``confidence``. Raises StudyIsBlind before the
    study is unblinded, and ConfidenceError for a level out of (0, 1) before reading anything."""
    return design_results(db, design_pk, confidence)[0]


def design_results(
    db: sqlite_utils.Database,
    design_pk: int,
    confidence: float = DEFAULT_CONFIDENCE,
    watched: bool = False,
    lazy: bool = False,
) -> tuple[ResultsReport, Finals | None]:
    """:func:`compute_results`, and (``watched``) what the watched figures need of the same
    records (:func:`abp_tui.analysis.results.watching.finals`), read once for both. ``lazy``:
    the report's outcomes and rows by task are made when read (for a face writing them one
    at a time: :func:`abp_tui.analysis.results.document.document_of`).

    A design's items are read one at a time and folded into what its figures need
    (:mod:`abp_tui.analysis.results.folding`): its judgments are never all held. A design under
    the business protocol (seed 002), one marking development material or one whose rubric
    scores abstention (seed 004) is read whole: their figures read its records in ways of their
    own."""
    confidence = confidence_level(confidence)
    row = sql.design(db, design_pk)
    study_id, design = row.study_id, DesignIdentity(row.name, row.version_no, row.sha256)
    rubric, seed = Rubric.model_validate(row.rubric), row.seed
    # Its document (with the plan's commitment to every task) is not held while computing.
    del row
    who = _unblinded_by(db, study_id)
    stated = stated_design(db, design_pk)
    protocol = study_protocol(db, study_id) or ""
    light = DesignRecords(stated, rubric, seed, items=(), judgments=(), adjudications=())
    if is_business(light) or applies(rubric, protocol) or stated.development_tasks:
        records = sql.records_of_design(db, design_pk, figures=True)
        found = finals(benchmark_records(records)) if watched else None
        return _report(db, design, records, who, study_id, confidence), found
    # The runs in scope and each preference-only run's pairs are written to a temporary
    # database of the results' own as they are read, and read back in the order results list
    # them when they are written: none of them is held here.
    spill = ResultSpill()
    failed: set[str] = set()

    def in_design() -> Iterator[RunRow]:
        for run in run_rows(db, study_id):
            if in_scope(stated, run[1], run[2]):
                if is_record_failure(run[4][0]):
                    failed.add(run[0])
                yield run

    spill.add_runs(in_design())
    allocation = allocation_draws(db, design_pk)
    budget, superseded = bool(allocation), sql.superseded_runs(db, design_pk)
    folding = ItemFold(
        rubric,
        stated.disagreement,
        spill,
        failed=failed,
        drawn={d.item for d in allocation if d.drawn} if budget else None,
        superseded=superseded,
        per_item=stated.reviewers_per_item,
    )
    for place, (item, judgments, adjudication) in enumerate(design_items(db, design_pk)):
        folding.add(item, judgments, adjudication, place)
    del allocation
    spill.order()
    folded = folding.folded()
    del folding
    runs = RunTable(spill)
    scope = FoldedDesign(stated, rubric, seed, runs, superseded, budget)
    watching = folded_finals(scope, folded) if watched else None
    facts = study_facts(db, study_id)
    match = model_match(facts.protocol, facts.conditions, facts.unverified_tokens)
    found_results = folded_results(
        scope, folded, confidence, judge_dimensions=facts.judge_dimensions, model_match=match
    )
    del folded, scope, runs
    document = document_of(found_results, rubric, facts, design, match, lazy=lazy)
    fields = {**dict(document), "unblinded_by": who[0], "unblinded_at": who[1]}
    if lazy:  # read from the spill as it is written: let go with the report
        return ResultsReport.model_construct(**fields), watching
    report = ResultsReport(**fields)
    if watching is not None:  # its final preferences read before the spill is let go
        watching = replace(watching, wins=dict(watching.wins))
    spill.close()
    return report, watching


# -- a study's automated outcomes, with no design ---------------------------------------------
class NoDesign(AbpError):
    """Results or an export were asked of a study with no design and no automated outcomes."""


@dataclass(frozen=True)
class AutomatedScope:
    """A study's automated outcomes as what results and a bundle are computed over, with the
    fields a stored design has (:class:`abp_tui.store.judging.DesignRow`'s) for what a bundle
    publishes of it: never stored, read afresh each time."""

    study_id: str
    name: str
    version_no: int
    sha256: str
    """Of the scope's design document, its rubric and its runs' facts."""
    seed: int
    """The run configuration's seed (Arena's manifest, abp-run/v1), else 0: seeds the bootstrap."""
    created_at: str
    """When the study's automated outcomes last changed (an import, a scoring)."""
    frozen_at: str | None
    document: dict[str, Any]
    rubric: dict[str, Any]
    records: DesignRecords


def automated_scope(db: sqlite_utils.Database, study_id: str) -> AutomatedScope:
    """The automated scope of a study (NoDesign when no run of it carries an automated outcome)."""
    if study_protocol(db, study_id) is None:
        raise AbpError(no_such_study(study_id, db))
    runs = run_facts(db, study_id)
    if not has_automated_outcomes(runs):
        _no_design(db, study_id)
    seed = shared_seed(c.metadata for c in bulk.conditions(db, study_id))
    records = automated_records(study_id, seed, runs)
    return AutomatedScope(
        study_id=study_id,
        name=AUTOMATED_DESIGN,
        version_no=1,
        sha256=automated_sha256(records),
        seed=seed,
        created_at=outcomes_changed_at(db, study_id) or "",
        frozen_at=None,
        document=records.design.model_dump(mode="json"),
        rubric=records.rubric.model_dump(mode="json"),
        records=records,
    )


def _no_design(db: sqlite_utils.Database, study_id: str | None) -> NoReturn:
    where = f" for study {study_id!r}" if study_id else ""
    raise NoDesign(
        f"no study design{where}, and no automated outcomes to report without one; create a "
        f"design with: {command('study create --study STUDY', db)} (or FILE)"
    )


def compute_automated_results(
    db: sqlite_utils.Database, study_id: str, confidence: float = DEFAULT_CONFIDENCE
) -> ResultsReport:
    """The results of a study's automated outcomes alone (no design), every interval at
    ``confidence``; StudyIsBlind before the study is unblinded, NoDesign without automated
    outcomes."""
    confidence = confidence_level(confidence)
    if study_protocol(db, study_id) is None:
        raise AbpError(no_such_study(study_id, db))
    who = _unblinded_by(db, study_id)
    scope = automated_scope(db, study_id)
    design = DesignIdentity(scope.name, scope.version_no, scope.sha256)
    return _report(db, design, scope.records, who, study_id, confidence)


@dataclass(frozen=True)
class Scope:
    """What a results command or an export means: a study design, or (``design_pk`` None) a
    study's automated outcomes alone."""

    study_id: str
    design_pk: int | None
    design_name: str
    version_no: int


def find_scope(
    db: sqlite_utils.Database, study: str | None = None, design: str | None = None
) -> Scope:
    """The design a command means (``designing.find_design``'s choice), else the study's
    automated outcomes when it has no design; NoDesign when it has neither."""
    row = find_design_if_any(db, study, design)
    if row is not None:
        return Scope(row.study_id, row.pk, row.name, row.version_no)
    study_id = find_study(db, study)
    if study_protocol(db, study_id) is None:
        raise AbpError(no_such_study(study_id, db))
    if not has_automated_outcomes(run_facts(db, study_id)):
        _no_design(db, study_id)
    return Scope(study_id, None, AUTOMATED_DESIGN, 1)


def report_results(
    db: sqlite_utils.Database,
    study: str | None = None,
    design: str | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> ResultsReport:
    """The results ``abp-tui results`` reports: of the design meant, else of the study's
    automated outcomes (see :func:`find_scope`)."""
    return watched_results(db, study, design, confidence, watched=False)[0]


def watched_results(
    db: sqlite_utils.Database,
    study: str | None = None,
    design: str | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    watched: bool = True,
    lazy: bool = False,
) -> tuple[ResultsReport, Finals | None]:
    """:func:`report_results`, and for a design (``watched``) what its watched figures need
    (:func:`design_results`, as ``lazy``); None for a study's automated outcomes."""
    confidence = confidence_level(confidence)
    scope = find_scope(db, study, design)
    if scope.design_pk is None:
        return compute_automated_results(db, scope.study_id, confidence), None
    return design_results(db, scope.design_pk, confidence, watched, lazy)
