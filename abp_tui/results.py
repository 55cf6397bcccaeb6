"""Results of a study design, by condition, only after an explicit unblinding.

Every run gets one outcome: a human final verdict when there is one (adjudicated, unanimous,
single review, unresolved); otherwise an automated verification outcome (ABP or Arena: passed,
failed, timeout; an engine error is INFRA_ERROR, excluded, not a loss); otherwise the state its
record carries (PROVIDER_BLOCK, INFRA_ERROR); otherwise it is unjudged. A human verdict supersedes
an automated one and both are kept. Counts of all six states are always reported; pass rates use
MODEL_PASS / (MODEL_PASS + MODEL_FAIL) with a Wilson interval; there is no blended score.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Literal

import sqlite_utils

from abp_tui.adjudication import final_verdicts, item_judgments
from abp_tui.blinding import contrasts_of
from abp_tui.errors import AbpError
from abp_tui.models import (
    Model,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    Rubric,
    StudyDesign,
)
from abp_tui.scoring import result_state
from abp_tui.stats.results import (
    PairedPassFail,
    PositionBias,
    PreferenceTest,
    Proportion,
    RelativeMedianDifference,
    paired_pass_fail,
    pass_rate,
    position_bias,
    preference_test,
    relative_median_difference,
)
from abp_tui.store import judging as sql
from abp_tui.store import packs as psql
from abp_tui.store.queries import RunFacts, run_facts, study_protocol, unblinded

AUTOMATED_STATES: dict[str, ResultState] = {
    "passed": ResultState.MODEL_PASS,
    "resolved": ResultState.MODEL_PASS,
    "failed": ResultState.MODEL_FAIL,
    "unresolved": ResultState.MODEL_FAIL,
    "timeout": ResultState.MODEL_FAIL,
    "agent-error": ResultState.INFRA_ERROR,
}
"""How automated verification outcomes (ABP, Arena, Inspect scorers) map to result states."""

OutcomeSource = Literal[
    "adjudicated",
    "unanimous",
    "single review",
    "unresolved",
    "automated verification",
    "record",
    "unjudged",
]
EFFICIENCY_METRICS = ("total_tokens", "wall_clock_ms", "cost_usd", "diff_bytes")


class StudyIsBlind(AbpError):
    """Results by condition were asked for before the study was unblinded."""


def unblind(db: sqlite_utils.Database, study_id: str, actor: str) -> tuple[str, str]:
    """Unblind a study (recorded in the audit log with who and when); idempotent."""
    protocol = study_protocol(db, study_id)
    if protocol is None:
        raise AbpError(f"no study {study_id!r} in the database")
    if protocol == "pack":
        raise AbpError("this is a reviewer station: results are never unblinded here")
    done = unblinded(db, study_id)
    if done is not None:
        return done
    psql.audit(db, actor, "unblind", {"study": study_id})
    found = unblinded(db, study_id)
    assert found is not None
    return found


class RunOutcome(Model):
    run_pk: int
    run_id: str
    task_id: str
    condition_id: str
    trial: int
    state: ResultState | None
    source: OutcomeSource
    human_state: ResultState | None
    automated_state: ResultState | None
    fatal: bool | None
    """A fatal criterion was hit (human judgment only)."""
    scores: dict[str, float]


class Tally(Model):
    x: int
    n: int


class GroupResult(Model):
    condition: str
    task: str | None
    """None for the condition over all tasks."""
    runs: int
    unjudged: int
    states: dict[str, int]
    """All six result states, zeros included."""
    pass_rate: Proportion
    fatal_failures: Tally
    """Runs with a fatal hit, over runs judged by a person and not excluded."""
    dimensions: dict[str, dict[str, int]]
    """Dimension -> score -> count, over runs judged by a person."""
    dimension_n: dict[str, int]
    acceptance: Tally
    """Runs meeting the rubric's acceptance rule, over runs judged by a person."""


class Efficiency(Model):
    metric: str
    difference: RelativeMedianDifference


class Comparison(Model):
    a: str
    b: str
    paired: PairedPassFail
    preferences: PreferenceTest
    efficiency: list[Efficiency]


class ResultsReport(Model):
    study: str
    design: str
    design_version: int
    design_sha256: str
    rubric: str
    unblinded_by: str
    unblinded_at: str
    conditions: list[GroupResult]
    by_task: list[GroupResult]
    comparisons: list[Comparison]
    position_bias: PositionBias
    outcomes: list[RunOutcome]
    notes: list[str]


def _outcomes(db: sqlite_utils.Database, design_pk: int, facts: list[RunFacts]) -> list[RunOutcome]:
    verdicts = {v.run_pk: v for v in final_verdicts(db, design_pk)}
    out = []
    for f in facts:
        automated = AUTOMATED_STATES.get((f.automated_outcome or "").lower())
        record = ResultState(f.origin_status) if f.origin_status else None
        verdict = verdicts.get(f.pk)
        human = verdict.result_state if verdict else None
        source: OutcomeSource
        if verdict is not None:
            state, source = human, verdict.source
        elif automated is not None:
            state, source = automated, "automated verification"
        elif record is not None:
            state, source = record, "record"
        else:
            state, source = None, "unjudged"
        out.append(
            RunOutcome(
                run_pk=f.pk,
                run_id=f.id,
                task_id=f.task_id,
                condition_id=f.condition_id,
                trial=f.trial,
                state=state,
                source=source,
                human_state=human,
                automated_state=automated,
                fatal=bool(verdict.fatal_hits) if verdict else None,
                scores=dict(verdict.scores) if verdict else {},
            )
        )
    return out


def _accepts(rubric: Rubric, scores: dict[str, float]) -> bool | None:
    """Whether component scores meet the acceptance rule (a median between two scores is
    rounded down: acceptance is not granted on a split)."""
    if not scores:
        return None
    whole = {k: math.floor(v) for k, v in scores.items()}
    return result_state(rubric, ResponseJudgment(scores=whole)) == ResultState.MODEL_PASS


def group_result(
    condition: str, task: str | None, outcomes: Iterable[RunOutcome], rubric: Rubric
) -> GroupResult:
    rows = list(outcomes)
    states = Counter(o.state.value for o in rows if o.state is not None)
    human = [o for o in rows if o.human_state is not None]
    in_denominator = [o for o in human if o.human_state and o.human_state.in_quality_denominator]
    dims: dict[str, dict[str, int]] = {}
    dim_n: dict[str, int] = {}
    for d in rubric.dimensions:
        if not d.scored:
            continue
        scored = [o.scores[d.id] for o in human if d.id in o.scores]
        dims[d.id] = {f"{s:g}": c for s, c in sorted(Counter(scored).items())}
        dim_n[d.id] = len(scored)
    accepted = [a for o in in_denominator if (a := _accepts(rubric, o.scores)) is not None]
    return GroupResult(
        condition=condition,
        task=task,
        runs=len(rows),
        unjudged=sum(1 for o in rows if o.state is None),
        states={s.value: states.get(s.value, 0) for s in ResultState},
        pass_rate=pass_rate(o.state for o in rows if o.state is not None),
        fatal_failures=Tally(x=sum(1 for o in in_denominator if o.fatal), n=len(in_denominator)),
        dimensions=dims,
        dimension_n=dim_n,
        acceptance=Tally(x=sum(accepted), n=len(accepted)),
    )


def compute_results(db: sqlite_utils.Database, design_pk: int) -> ResultsReport:
    """The results of a design. Raises StudyIsBlind before the study is unblinded."""
    row = sql.design(db, design_pk)
    who = unblinded(db, row.study_id)
    if who is None:
        raise StudyIsBlind(
            f"study {row.study_id!r} is still blind: results by condition appear only after "
            f"`abp-tui unblind --study {row.study_id} --yes` (recorded in the audit log)"
        )
    design = StudyDesign.model_validate(
        {
            k: v
            for k, v in row.document.items()
            if k not in ("masked_terms", "masked_short_ids", "pack")
        }
    )
    rubric = Rubric.model_validate(row.rubric)
    facts = run_facts(db, row.study_id)
    if design.tasks != "all":
        facts = [f for f in facts if f.task_id in design.tasks]
    if design.conditions != "all":
        facts = [f for f in facts if f.condition_id in design.conditions]
    outcomes = _outcomes(db, design_pk, facts)
    by_condition: dict[str, list[RunOutcome]] = defaultdict(list)
    by_cell: dict[tuple[str, str], list[RunOutcome]] = defaultdict(list)
    for o in outcomes:
        by_condition[o.condition_id].append(o)
        by_cell[(o.condition_id, o.task_id)].append(o)
    conditions = sorted(by_condition)
    notes = [
        "Pass rate is MODEL_PASS / (MODEL_PASS + MODEL_FAIL); other states are reported "
        "separately and never enter the denominator.",
        "Preferences count each reviewer's judgment of a pair; judgments of one pair by "
        "several reviewers are not independent.",
    ]
    comparisons = [
        _compare(a, b, by_condition, db, design_pk, row.seed)
        for a, b in contrasts_of(design, conditions)
        if a in by_condition and b in by_condition
    ]
    return ResultsReport(
        study=row.study_id,
        design=row.name,
        design_version=row.version_no,
        design_sha256=row.sha256,
        rubric=rubric.id,
        unblinded_by=who[0],
        unblinded_at=who[1],
        conditions=[group_result(c, None, by_condition[c], rubric) for c in conditions],
        by_task=[group_result(c, t, by_cell[(c, t)], rubric) for c, t in sorted(by_cell)],
        comparisons=comparisons,
        position_bias=_position_bias(db, design_pk),
        outcomes=outcomes,
        notes=notes,
    )


def _preferences(
    db: sqlite_utils.Database, design_pk: int, a: str, b: str
) -> tuple[int, int, int, int]:
    items = {i.pk: i for i in sql.items(db, design_pk)}
    conditions = dict(
        db.execute(
            "SELECT r.pk, c.id FROM runs r JOIN conditions c ON c.pk = r.condition_pk "
            "WHERE r.pk IN (SELECT run_a_pk FROM items WHERE design_pk = ? UNION "
            "SELECT run_b_pk FROM items WHERE design_pk = ?)",
            [design_pk, design_pk],
        ).fetchall()
    )
    wins_a = wins_b = ties = insufficient = 0
    for item_pk, judgments in item_judgments(db, design_pk).items():
        item = items[item_pk]
        if item.run_b_pk is None:
            continue
        pair = {conditions[item.run_a_pk], conditions[item.run_b_pk]}
        if pair != {a, b}:
            continue
        for j in judgments:
            preferred = j.preferred()
            if preferred is None:
                continue
            if preferred == PreferenceChoice.TIE.value:
                ties += 1
            elif preferred == PreferenceChoice.INSUFFICIENT.value:
                insufficient += 1
            elif conditions[int(preferred)] == a:
                wins_a += 1
            else:
                wins_b += 1
    return wins_a, wins_b, ties, insufficient


def _compare(
    a: str,
    b: str,
    by_condition: dict[str, list[RunOutcome]],
    db: sqlite_utils.Database,
    design_pk: int,
    seed: int,
) -> Comparison:
    def keyed(rows: list[RunOutcome]) -> dict[tuple[str, int], ResultState | None]:
        out: dict[tuple[str, int], ResultState | None] = {}
        for o in sorted(rows, key=lambda o: o.run_id):
            out.setdefault((o.task_id, o.trial), o.state)
        return out

    facts = {f.pk: f for f in run_facts(db, sql.design(db, design_pk).study_id)}
    efficiency = []
    for metric in EFFICIENCY_METRICS:
        values_a = [
            _metric(facts[o.run_pk], metric) for o in by_condition[a] if counts_for_efficiency(o)
        ]
        values_b = [
            _metric(facts[o.run_pk], metric) for o in by_condition[b] if counts_for_efficiency(o)
        ]
        if any(v is not None for v in values_a + values_b):
            efficiency.append(
                Efficiency(
                    metric=metric,
                    difference=relative_median_difference(values_a, values_b, seed=seed),
                )
            )
    return Comparison(
        a=a,
        b=b,
        paired=paired_pass_fail(keyed(by_condition[a]), keyed(by_condition[b])),
        preferences=preference_test(*_preferences(db, design_pk, a, b)),
        efficiency=efficiency,
    )


def counts_for_efficiency(outcome: RunOutcome) -> bool:
    """Engine errors and other exclusions are not efficiency measurements."""
    return outcome.state is None or outcome.state.in_quality_denominator


def _metric(facts: RunFacts, metric: str) -> float | None:
    value = getattr(facts, metric)
    return None if value is None else float(value)


def _position_bias(db: sqlite_utils.Database, design_pk: int) -> PositionBias:
    left = right = 0
    for judgments in item_judgments(db, design_pk).values():
        for j in judgments:
            if j.judgment.preference == PreferenceChoice.RESPONSE_1:
                left += 1
            elif j.judgment.preference == PreferenceChoice.RESPONSE_2:
                right += 1
    return position_bias(left, right)


__all__ = [
    "AUTOMATED_STATES",
    "ResultsReport",
    "StudyIsBlind",
    "compute_results",
    "unblind",
]
