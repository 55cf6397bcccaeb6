"""From a bundle's source records to verdicts, outcomes and results: pure, no database.

``verify`` recomputes a bundle's derived files from its own source files, so the results of a
bundle are computed here from the published records alone. The rules are the core's: the final
verdict of a run follows :func:`abp_tui.adjudication.final_verdicts` (adjudicated, unanimous,
single review, unresolved), a run's outcome follows :func:`abp_tui.results.compute_results`
(a human verdict, else automated verification, else the record's state, else unjudged), and the
tables are built with the same functions (``find_disagreements``, ``result_state``, the group
tally and the statistics of :mod:`abp_tui.stats.results`). An export cross-checks the verdicts
computed here against the database's before it writes anything.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from abp_tui.adjudication import ItemJudgment, VerdictSource, find_disagreements
from abp_tui.blinding import contrasts_of
from abp_tui.export import records as rec
from abp_tui.export.errors import BundleMismatch
from abp_tui.models import (
    Condition,
    DisagreementRules,
    Model,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    Rubric,
    StudyDesign,
)
from abp_tui.results import (
    AUTOMATED_STATES,
    EFFICIENCY_METRICS,
    Comparison,
    Efficiency,
    GroupResult,
    OutcomeSource,
    RunOutcome,
    counts_for_efficiency,
    group_result,
)
from abp_tui.scoring import result_state
from abp_tui.stats.agreement import AgreementReport, compute_all
from abp_tui.stats.results import (
    PositionBias,
    paired_pass_fail,
    position_bias,
    preference_test,
    relative_median_difference,
)

NOTES = (
    "Pass rate is MODEL_PASS / (MODEL_PASS + MODEL_FAIL); other states are reported "
    "separately and never enter the denominator.",
    "Preferences count each reviewer's judgment of a pair; judgments of one pair by "
    "several reviewers are not independent.",
    "Agreement uses each reviewer's first submitted judgment of an item, made before they "
    "could see anyone else's; later revisions and adjudications are not in it.",
)

M = TypeVar("M", bound=BaseModel)
PLAN_KEYS = ("masked_terms", "masked_short_ids", "pack")
"""Keys the store adds to a design document that are not part of the design file."""


# -- parsing ---------------------------------------------------------------------------------------
def _json(files: Mapping[str, bytes], path: str) -> Any:
    if path not in files:
        raise BundleMismatch(path, "missing from the bundle")
    try:
        return json.loads(files[path].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleMismatch(path, f"not a readable JSON document ({exc})") from None


def _model(model: type[M], data: Any, path: str, where: str = "") -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise BundleMismatch(path, f"{where}{loc}: {first['msg']}") from None


def _jsonl(files: Mapping[str, bytes], path: str, model: type[M]) -> list[M]:
    if path not in files:
        raise BundleMismatch(path, "missing from the bundle")
    out = []
    for number, line in enumerate(files[path].decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BundleMismatch(path, f"line {number}: not JSON ({exc})") from None
        out.append(_model(model, data, path, f"line {number}: "))
    return out


@dataclass(frozen=True)
class Inputs:
    """The source records of a bundle, parsed."""

    study: rec.PublishedStudy
    design: rec.PublishedDesign
    study_design: StudyDesign
    rules: DisagreementRules
    rubric: Rubric
    tasks: list[rec.PublishedTask]
    conditions: list[Condition]
    runs: list[rec.PublishedRun]
    items: list[rec.PublishedItem]
    judgments: list[rec.PublishedJudgment]
    adjudications: list[rec.PublishedAdjudication]
    findings: list[rec.PublishedFinding]
    audit: list[rec.PublishedAuditEntry]


def parse(files: Mapping[str, bytes]) -> Inputs:
    """Parse the source files; a missing or malformed one raises BundleMismatch naming it."""
    design = _model(rec.PublishedDesign, _json(files, rec.DESIGN), rec.DESIGN)
    document = design.document
    study_design = _model(
        StudyDesign,
        {
            k: v
            for k, v in document.items()
            if k not in ("masked_terms", "masked_short_ids", "pack")
        },
        rec.DESIGN,
        "document.",
    )
    tasks_raw = _json(files, rec.TASKS)
    conditions_raw = _json(files, rec.CONDITIONS)
    if not isinstance(tasks_raw, list):
        raise BundleMismatch(rec.TASKS, "expected a list of tasks")
    if not isinstance(conditions_raw, list):
        raise BundleMismatch(rec.CONDITIONS, "expected a list of conditions")
    inputs = Inputs(
        study=_model(rec.PublishedStudy, _json(files, rec.STUDY), rec.STUDY),
        design=design,
        study_design=study_design,
        rules=_model(DisagreementRules, document.get("disagreement", {}), rec.DESIGN),
        rubric=_model(Rubric, _json(files, rec.RUBRIC), rec.RUBRIC),
        tasks=[_model(rec.PublishedTask, t, rec.TASKS, f"[{i}].") for i, t in enumerate(tasks_raw)],
        conditions=[
            _model(Condition, c, rec.CONDITIONS, f"[{i}].") for i, c in enumerate(conditions_raw)
        ],
        runs=_jsonl(files, rec.RUNS, rec.PublishedRun),
        items=_jsonl(files, rec.ITEMS, rec.PublishedItem),
        judgments=_jsonl(files, rec.JUDGMENTS, rec.PublishedJudgment),
        adjudications=_jsonl(files, rec.ADJUDICATIONS, rec.PublishedAdjudication),
        findings=_jsonl(files, rec.FINDINGS, rec.PublishedFinding),
        audit=_jsonl(files, rec.AUDIT, rec.PublishedAuditEntry),
    )
    _check_references(inputs)
    return inputs


def _check_references(inputs: Inputs) -> None:
    """Every judgment names an item of the bundle and only runs of that item."""
    items = {i.code: set(i.runs) for i in inputs.items}
    rows: list[tuple[str, int, str, set[str]]] = []
    for number, j in enumerate(inputs.judgments, start=1):
        rows.append(
            (rec.JUDGMENTS, number, j.item, set(j.placement.values()) | set(j.judgment.responses))
        )
    for number, a in enumerate(inputs.adjudications, start=1):
        rows.append(
            (
                rec.ADJUDICATIONS,
                number,
                a.item,
                set(a.placement.values()) | set(a.judgment.responses),
            )
        )
    for path, number, item, named in rows:
        runs = items.get(item)
        if runs is None:
            raise BundleMismatch(path, f"line {number}: item {item!r} is not in {rec.ITEMS}")
        if not named <= runs:
            stray = sorted(named - runs)[0]
            raise BundleMismatch(
                path, f"line {number}: run {stray!r} is not a run of item {item!r}"
            )


# -- verdicts and outcomes -------------------------------------------------------------------------
class Review(Model):
    """One reviewer's latest submitted judgment of one run in one item."""

    item: str
    reviewer: str
    revision: int
    position: str
    """Where the run was shown ("1" left / first, "2" right / second)."""
    scores: dict[str, int]
    rationales: dict[str, str]
    fatal_hits: tuple[str, ...]
    state_override: ResultState | None
    override_reason: str
    state: ResultState | None


class AdjudicatedJudgment(Model):
    item: str
    adjudicator: str
    revision: int
    note: str
    scores: dict[str, int]
    rationales: dict[str, str]
    fatal_hits: tuple[str, ...]
    state_override: ResultState | None
    override_reason: str
    state: ResultState | None


class RunVerdict(Model):
    """A run's final verdict as ``verdicts.jsonl`` publishes it."""

    run: str
    task: str
    condition: str
    trial: int
    state: ResultState | None
    """The outcome that counts: the human verdict's, else automated, else the record's."""
    source: OutcomeSource
    human_state: ResultState | None
    automated_state: ResultState | None
    automated_outcome: str | None
    record_state: str | None
    excluded_reason: str | None
    scores: dict[str, float]
    """Component scores: the adjudicated or single judgment's; the median when several."""
    fatal_hits: tuple[str, ...]
    judgments: int
    """Reviewer judgments behind the verdict."""
    items: tuple[str, ...]
    reviews: tuple[Review, ...]
    """Each reviewer's judgment of the run, with rationales."""
    adjudication: AdjudicatedJudgment | None


@dataclass(frozen=True)
class HumanVerdict:
    source: VerdictSource
    state: ResultState | None
    scores: dict[str, float]
    fatal_hits: tuple[str, ...]
    judgments: int
    items: tuple[str, ...]


@dataclass
class Disagreement:
    item: str
    reviewers: list[str]
    reasons: list[str]
    adjudicated: bool


@dataclass
class Analysis:
    inputs: Inputs
    latest: dict[str, list[rec.PublishedJudgment]]
    """Item code -> each reviewer's latest submitted judgment (reviewers in sorted order)."""
    first: dict[str, list[rec.PublishedJudgment]]
    """Item code -> each reviewer's first submitted judgment."""
    adjudications: dict[str, rec.PublishedAdjudication]
    """Item code -> latest adjudication."""
    human: dict[str, HumanVerdict]
    """Run id -> final human verdict (judged runs only)."""
    verdicts: list[RunVerdict]
    """One per run in scope, in run order."""
    outcomes: list[RunOutcome]
    disagreements: list[Disagreement]
    number: dict[str, int] = field(default_factory=dict)
    """Run id -> the integer the core's functions key runs by."""


def _latest_and_first(
    judgments: list[rec.PublishedJudgment],
) -> tuple[dict[str, list[rec.PublishedJudgment]], dict[str, list[rec.PublishedJudgment]]]:
    latest: dict[tuple[str, str], rec.PublishedJudgment] = {}
    first: dict[tuple[str, str], rec.PublishedJudgment] = {}
    for j in judgments:
        if j.status != "submitted":
            continue
        key = (j.item, j.reviewer)
        if key not in latest or j.revision > latest[key].revision:
            latest[key] = j
        if key not in first or j.revision < first[key].revision:
            first[key] = j
    by_item: dict[str, list[rec.PublishedJudgment]] = defaultdict(list)
    firsts: dict[str, list[rec.PublishedJudgment]] = defaultdict(list)
    for (item, _reviewer), j in sorted(latest.items()):
        by_item[item].append(j)
    for (item, _reviewer), j in sorted(first.items()):
        firsts[item].append(j)
    return dict(by_item), dict(firsts)


def _numbered(j: rec.PublishedJudgment, item_index: int, number: dict[str, int]) -> ItemJudgment:
    judgment = j.judgment.model_copy(
        update={"responses": {str(number[k]): v for k, v in j.judgment.responses.items()}}
    )
    return ItemJudgment(
        j.reviewer, item_index, judgment, {pos: number[run] for pos, run in j.placement.items()}
    )


def analyse(inputs: Inputs) -> Analysis:
    """Final verdicts and the outcome of every run in scope."""
    rubric = inputs.rubric
    known = {r.id for r in inputs.runs} | {run for i in inputs.items for run in i.runs}
    number = {run: n for n, run in enumerate(sorted(known), start=1)}
    items = {i.code: i for i in inputs.items}
    latest, first = _latest_and_first(inputs.judgments)
    adjudications: dict[str, rec.PublishedAdjudication] = {}
    for a in inputs.adjudications:
        if a.item not in adjudications or a.revision > adjudications[a.item].revision:
            adjudications[a.item] = a

    per_run: dict[str, list[ResponseJudgment]] = defaultdict(list)
    adjudicated_run: dict[str, tuple[ResponseJudgment, rec.PublishedAdjudication]] = {}
    unresolved: set[str] = set()
    codes: dict[str, set[str]] = defaultdict(set)
    reviews: dict[str, list[Review]] = defaultdict(list)
    disagreements: list[Disagreement] = []
    for code in sorted(latest, key=lambda c: items[c].index if c in items else -1):
        js = latest[code]
        index = items[code].index if code in items else -1
        numbered = [_numbered(j, index, number) for j in js]
        for j in js:
            positions = {run: pos for pos, run in j.placement.items()}
            for run, response in j.judgment.responses.items():
                per_run[run].append(response)
                codes[run].add(code)
                reviews[run].append(
                    Review(
                        item=code,
                        reviewer=j.reviewer,
                        revision=j.revision,
                        position=positions.get(run, ""),
                        scores=dict(response.scores),
                        rationales=dict(response.rationales),
                        fatal_hits=response.fatal_hits,
                        state_override=response.state_override,
                        override_reason=response.override_reason,
                        state=result_state(rubric, response),
                    )
                )
        reasons = find_disagreements(inputs.rules, rubric, numbered)
        adjudication = adjudications.get(code)
        if reasons:
            disagreements.append(
                Disagreement(
                    code, sorted(j.reviewer for j in js), reasons, adjudication is not None
                )
            )
        if adjudication is not None:
            for run, response in adjudication.judgment.responses.items():
                adjudicated_run[run] = (response, adjudication)
        elif reasons:
            unresolved.update(run for j in js for run in j.judgment.responses)

    human: dict[str, HumanVerdict] = {}
    for run in sorted(per_run):
        responses = per_run[run]
        if run in adjudicated_run:
            chosen = adjudicated_run[run][0]
            human[run] = HumanVerdict(
                "adjudicated",
                result_state(rubric, chosen),
                {k: float(v) for k, v in chosen.scores.items()},
                tuple(chosen.fatal_hits),
                len(responses),
                tuple(sorted(codes[run])),
            )
            continue
        states = {result_state(rubric, r) for r in responses}
        source: VerdictSource
        if len(responses) == 1:
            source = "single review"
        elif run in unresolved or len(states) > 1:
            source = "unresolved"
        else:
            source = "unanimous"
        dims = sorted({d for r in responses for d in r.scores})
        human[run] = HumanVerdict(
            source,
            states.pop() if len(states) == 1 else None,
            {
                d: float(statistics.median(r.scores[d] for r in responses if d in r.scores))
                for d in dims
            },
            tuple(sorted({h for r in responses for h in r.fatal_hits})),
            len(responses),
            tuple(sorted(codes[run])),
        )

    verdicts: list[RunVerdict] = []
    outcomes: list[RunOutcome] = []
    for published in inputs.runs:
        automated = AUTOMATED_STATES.get((published.automated_outcome or "").lower())
        record = published.origin_status
        verdict = human.get(published.id)
        outcome_source: OutcomeSource
        state: ResultState | None
        if verdict is not None:
            state, outcome_source = verdict.state, verdict.source
        elif automated is not None:
            state, outcome_source = automated, "automated verification"
        elif record is not None:
            state, outcome_source = record, "record"
        else:
            state, outcome_source = None, "unjudged"
        adjudicated = adjudicated_run.get(published.id)
        final: AdjudicatedJudgment | None = None
        if adjudicated is not None:
            response, row = adjudicated
            final = AdjudicatedJudgment(
                item=row.item,
                adjudicator=row.adjudicator,
                revision=row.revision,
                note=row.note,
                scores=dict(response.scores),
                rationales=dict(response.rationales),
                fatal_hits=response.fatal_hits,
                state_override=response.state_override,
                override_reason=response.override_reason,
                state=result_state(rubric, response),
            )
        verdicts.append(
            RunVerdict(
                run=published.id,
                task=published.task,
                condition=published.condition,
                trial=published.trial,
                state=state,
                source=outcome_source,
                human_state=verdict.state if verdict else None,
                automated_state=automated,
                automated_outcome=published.automated_outcome,
                record_state=published.origin_status,
                excluded_reason=published.excluded_reason,
                scores=dict(verdict.scores) if verdict else {},
                fatal_hits=verdict.fatal_hits if verdict else (),
                judgments=verdict.judgments if verdict else 0,
                items=verdict.items if verdict else (),
                reviews=tuple(reviews.get(published.id, ())),
                adjudication=final,
            )
        )
        outcomes.append(
            RunOutcome(
                run_pk=number[published.id],
                run_id=published.id,
                task_id=published.task,
                condition_id=published.condition,
                trial=published.trial,
                state=state,
                source=outcome_source,
                human_state=verdict.state if verdict else None,
                automated_state=automated,
                fatal=bool(verdict.fatal_hits) if verdict else None,
                scores=dict(verdict.scores) if verdict else {},
            )
        )
    return Analysis(
        inputs, latest, first, adjudications, human, verdicts, outcomes, disagreements, number
    )


# -- results ---------------------------------------------------------------------------------------
class Summary(Model):
    """The results of a bundle, shaped as ``abp-tui results --json`` shapes them."""

    study: str
    design: str
    design_version: int
    design_sha256: str
    rubric: str
    conditions: list[GroupResult]
    by_task: list[GroupResult]
    comparisons: list[Comparison]
    position_bias: PositionBias
    notes: list[str]


def _preferences(analysis: Analysis, a: str, b: str) -> tuple[int, int, int, int]:
    items = {i.code: i for i in analysis.inputs.items}
    wins_a = wins_b = ties = insufficient = 0
    for code, judgments in analysis.latest.items():
        item = items.get(code)
        if item is None or len(item.runs) != 2:
            continue
        if set(item.conditions) != {a, b}:
            continue
        condition_of = dict(zip(item.runs, item.conditions, strict=True))
        for j in judgments:
            choice = j.judgment.preference
            if choice is None:
                continue
            if choice == PreferenceChoice.TIE:
                ties += 1
            elif choice == PreferenceChoice.INSUFFICIENT:
                insufficient += 1
            else:
                position = "1" if choice == PreferenceChoice.RESPONSE_1 else "2"
                if condition_of[j.placement[position]] == a:
                    wins_a += 1
                else:
                    wins_b += 1
    return wins_a, wins_b, ties, insufficient


def _compare(analysis: Analysis, a: str, b: str, by_condition: dict[str, list[int]]) -> Comparison:
    outcomes, runs = analysis.outcomes, analysis.inputs.runs

    def keyed(rows: list[int]) -> dict[tuple[str, int], ResultState | None]:
        out: dict[tuple[str, int], ResultState | None] = {}
        for i in sorted(rows, key=lambda i: outcomes[i].run_id):
            out.setdefault((outcomes[i].task_id, outcomes[i].trial), outcomes[i].state)
        return out

    efficiency = []
    for metric in EFFICIENCY_METRICS:
        values_a = [
            _metric(runs[i], metric) for i in by_condition[a] if counts_for_efficiency(outcomes[i])
        ]
        values_b = [
            _metric(runs[i], metric) for i in by_condition[b] if counts_for_efficiency(outcomes[i])
        ]
        if any(v is not None for v in values_a + values_b):
            efficiency.append(
                Efficiency(
                    metric=metric,
                    difference=relative_median_difference(
                        values_a, values_b, seed=analysis.inputs.design.seed
                    ),
                )
            )
    return Comparison(
        a=a,
        b=b,
        paired=paired_pass_fail(keyed(by_condition[a]), keyed(by_condition[b])),
        preferences=preference_test(*_preferences(analysis, a, b)),
        efficiency=efficiency,
    )


def _metric(run: rec.PublishedRun, metric: str) -> float | None:
    value = getattr(run, metric)
    return None if value is None else float(value)


def summarise(analysis: Analysis) -> Summary:
    inputs = analysis.inputs
    by_condition: dict[str, list[int]] = defaultdict(list)
    by_cell: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, o in enumerate(analysis.outcomes):
        by_condition[o.condition_id].append(i)
        by_cell[(o.condition_id, o.task_id)].append(i)
    conditions = sorted(by_condition)
    rubric = inputs.rubric

    def rows(indices: list[int]) -> list[RunOutcome]:
        return [analysis.outcomes[i] for i in indices]

    left = right = 0
    for judgments in analysis.latest.values():
        for j in judgments:
            if j.judgment.preference == PreferenceChoice.RESPONSE_1:
                left += 1
            elif j.judgment.preference == PreferenceChoice.RESPONSE_2:
                right += 1
    return Summary(
        study=inputs.study.id,
        design=inputs.design.name,
        design_version=inputs.design.version,
        design_sha256=inputs.design.sha256,
        rubric=rubric.id,
        conditions=[group_result(c, None, rows(by_condition[c]), rubric) for c in conditions],
        by_task=[group_result(c, t, rows(by_cell[(c, t)]), rubric) for c, t in sorted(by_cell)],
        comparisons=[
            _compare(analysis, a, b, by_condition)
            for a, b in contrasts_of(inputs.study_design, conditions)
            if a in by_condition and b in by_condition
        ],
        position_bias=position_bias(left, right),
        notes=list(NOTES),
    )


# -- agreement -------------------------------------------------------------------------------------
STATE_SCALE = tuple(s.value for s in ResultState)
PREFERENCE_SCALE = ("a", "b", "tie", "insufficient_evidence")


def agreement(analysis: Analysis) -> AgreementReport:
    """Agreement of the reviewers' first submitted judgments: every scored rubric dimension
    (ordinal, on its declared scale), the result state, the fatal flag and the preference."""
    rubric = analysis.inputs.rubric
    items = {i.code: i for i in analysis.inputs.items}
    records: dict[str, list[tuple[str, str, str | int | float | None]]] = {}
    levels: dict[str, str] = {}
    scales: dict[str, tuple[str | int | float, ...] | None] = {}
    for d in rubric.dimensions:
        if d.scored:
            records[d.id] = []
            levels[d.id] = "ordinal"
            scales[d.id] = tuple(d.scale)
    records["result_state"], levels["result_state"] = [], "nominal"
    scales["result_state"] = STATE_SCALE
    records["fatal_hit"], levels["fatal_hit"] = [], "nominal"
    scales["fatal_hit"] = ("no", "yes")
    records["preference"], levels["preference"] = [], "nominal"
    scales["preference"] = PREFERENCE_SCALE
    for code in sorted(analysis.first):
        for j in analysis.first[code]:
            for run, response in sorted(j.judgment.responses.items()):
                unit = f"{code}/{run}"
                for d in rubric.dimensions:
                    if d.scored and d.id in response.scores:
                        records[d.id].append((unit, j.reviewer, response.scores[d.id]))
                state = result_state(rubric, response)
                if state is not None:
                    records["result_state"].append((unit, j.reviewer, state.value))
                if response.state_override is None:
                    hit = "yes" if response.fatal_hits else "no"
                    records["fatal_hit"].append((unit, j.reviewer, hit))
            item = items.get(code)
            choice = j.judgment.preference
            if item is not None and len(item.runs) == 2 and choice is not None:
                value: str = choice.value
                if choice in (PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2):
                    shown = j.placement["1" if choice == PreferenceChoice.RESPONSE_1 else "2"]
                    value = "a" if shown == item.runs[0] else "b"
                records["preference"].append((code, j.reviewer, value))
    return compute_all(records, levels, scales, seed=analysis.inputs.design.seed)


def excluded_runs(analysis: Analysis) -> list[dict[str, Any]]:
    """Runs outside the quality denominator, or excluded by their source, with their reasons."""
    out = []
    for v in analysis.verdicts:
        excluded = v.state is not None and not v.state.in_quality_denominator
        if not excluded and not v.excluded_reason:
            continue
        reasons = []
        if v.excluded_reason:
            reasons.append(f"record: {v.excluded_reason}")
        elif v.record_state:
            reasons.append(f"record state: {v.record_state}")
        if v.automated_state is not None and not v.automated_state.in_quality_denominator:
            reasons.append(f"automated verification: {v.automated_outcome}")
        sources = [v.adjudication] if v.adjudication else list(v.reviews)
        for r in sources:
            if r is not None and r.state_override is not None:
                who = r.adjudicator if isinstance(r, AdjudicatedJudgment) else r.reviewer
                reasons.append(f"{who}: {r.state_override.value}: {r.override_reason}")
        out.append(
            {
                "run": v.run,
                "task": v.task,
                "condition": v.condition,
                "trial": v.trial,
                "state": v.state.value if v.state else None,
                "source": v.source,
                "reasons": reasons,
            }
        )
    return out


def state_counts(analysis: Analysis) -> Counter[str]:
    return Counter(v.state.value if v.state else "unjudged" for v in analysis.verdicts)
