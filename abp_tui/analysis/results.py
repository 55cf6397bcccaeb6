"""Results of a design: tallies by condition and by task, comparisons, position bias.

Counts of all six result states are always reported; pass rates use MODEL_PASS / (MODEL_PASS +
MODEL_FAIL) with a Wilson interval; there is no blended score. A comparison of two conditions
pairs their runs by task and trial (exact McNemar), counts the reviewers' preferences of their
pairs and compares efficiency figures (relative median difference, seeded bootstrap) over the runs
that are measurements (not excluded).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from abp_tui.analysis.blinding import contrasts_of
from abp_tui.analysis.records import preferred
from abp_tui.analysis.scoring import result_state
from abp_tui.analysis.verdicts import Decisions, decide, outcomes
from abp_tui.models import (
    DesignRecords,
    Item,
    JudgmentRevision,
    Model,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    Rubric,
    RunFacts,
    RunOutcome,
)
from abp_tui.stats.inference import (
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

EFFICIENCY_METRICS: Final = ("total_tokens", "wall_clock_ms", "cost_usd", "diff_bytes")

RESULTS_NOTES: Final = (
    "Pass rate is MODEL_PASS / (MODEL_PASS + MODEL_FAIL); other states are reported "
    "separately and never enter the denominator.",
    "Preferences count each reviewer's judgment of a pair; judgments of one pair by "
    "several reviewers are not independent.",
    "Unresolved runs (reviewers disagree, not adjudicated yet) are counted apart with their "
    "items and enter no denominator until adjudicated.",
)


def counts_for_efficiency(outcome: RunOutcome) -> bool:
    """Engine errors and other exclusions are not efficiency measurements."""
    return outcome.state is None or outcome.state.in_quality_denominator


class Tally(Model):
    x: int
    n: int


class GroupResult(Model):
    condition: str
    task: str | None
    """None for the condition over all tasks."""
    runs: int
    unjudged: int
    """Runs nobody judged yet (no human verdict, automated outcome or record state)."""
    unresolved: int
    """Runs judged by people whose disagreement is not adjudicated yet: counted here alone, out
    of every denominator below until an adjudication settles them."""
    unresolved_items: list[str]
    """Blind codes of the items holding those runs' open disagreements, sorted."""
    states: dict[str, int]
    """All six result states, zeros included."""
    pass_rate: Proportion
    fatal_failures: Tally
    """Runs with a fatal hit, over runs judged by a person and not excluded."""
    dimensions: dict[str, dict[str, int]]
    """Dimension -> score -> count, over runs judged by a person."""
    dimension_n: dict[str, int]
    acceptance: Tally
    """Runs meeting the rubric's acceptance rule, over runs judged by a person and not excluded:
    a fatal hit fails the run whatever its scores."""


class Efficiency(Model):
    metric: str
    difference: RelativeMedianDifference


class Comparison(Model):
    a: str
    b: str
    paired: PairedPassFail
    preferences: PreferenceTest
    efficiency: list[Efficiency]


def _accepts(rubric: Rubric, outcome: RunOutcome) -> bool | None:
    """Whether a judged run meets the acceptance rule: never with a fatal hit (seed 000: a fatal
    failure fails the response whatever the scores; the business protocol accepts only with no
    critical failure), else on its component scores (a median between two scores is rounded
    down: acceptance is not granted on a split). None: nothing to decide on."""
    if outcome.fatal:
        return False
    if not outcome.scores:
        return None
    whole = {k: math.floor(v) for k, v in outcome.scores.items()}
    return result_state(rubric, ResponseJudgment(scores=whole)) == ResultState.MODEL_PASS


def group_result(
    condition: str,
    task: str | None,
    outcomes: Iterable[RunOutcome],
    rubric: Rubric,
    open_items: Mapping[str, Sequence[str]] | None = None,
) -> GroupResult:
    """One group's tallies. Runs whose verdict is ``unresolved`` are counted apart, with the
    items of their open disagreements (``open_items``: run id -> blind codes), and enter no
    denominator until adjudicated."""
    everything = list(outcomes)
    pending = [o for o in everything if o.source == "unresolved"]
    rows = [o for o in everything if o.source != "unresolved"]
    codes = sorted({c for o in pending for c in (open_items or {}).get(o.run_id, ())})
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
    accepted = [a for o in in_denominator if (a := _accepts(rubric, o)) is not None]
    return GroupResult(
        condition=condition,
        task=task,
        runs=len(everything),
        unjudged=sum(1 for o in rows if o.state is None),
        unresolved=len(pending),
        unresolved_items=codes,
        states={s.value: states.get(s.value, 0) for s in ResultState},
        pass_rate=pass_rate(o.state for o in rows if o.state is not None),
        fatal_failures=Tally(x=sum(1 for o in in_denominator if o.fatal), n=len(in_denominator)),
        dimensions=dims,
        dimension_n=dim_n,
        acceptance=Tally(x=sum(accepted), n=len(accepted)),
    )


def preferences(
    items: Iterable[Item], latest: Mapping[str, list[JudgmentRevision]], a: str, b: str
) -> tuple[int, int, int, int]:
    """(wins of a, wins of b, ties, insufficient) over the judgments of pairs of a and b."""
    wins_a = wins_b = ties = insufficient = 0
    for item in items:
        if not item.is_pair or set(item.conditions) != {a, b}:
            continue
        condition_of = dict(zip(item.runs, item.conditions, strict=True))
        for j in latest.get(item.code, ()):
            choice = preferred(j)
            if choice is None:
                continue
            if choice == PreferenceChoice.TIE.value:
                ties += 1
            elif choice == PreferenceChoice.INSUFFICIENT.value:
                insufficient += 1
            elif condition_of[choice] == a:
                wins_a += 1
            else:
                wins_b += 1
    return wins_a, wins_b, ties, insufficient


def _paired(rows: Sequence[RunOutcome]) -> dict[tuple[str, int], ResultState | None]:
    """Each task and trial's state; an unresolved run has none until adjudicated."""
    out: dict[tuple[str, int], ResultState | None] = {}
    for o in sorted(rows, key=lambda o: o.run_id):
        out.setdefault((o.task_id, o.trial), None if o.source == "unresolved" else o.state)
    return out


def compare(
    a: str,
    b: str,
    rows: Mapping[str, Sequence[tuple[RunFacts, RunOutcome]]],
    preferred: tuple[int, int, int, int],
    seed: int,
) -> Comparison:
    """Conditions a and b: paired pass/fail, preferences and the efficiency differences."""
    measured_a = [r for r, o in rows[a] if counts_for_efficiency(o)]
    measured_b = [r for r, o in rows[b] if counts_for_efficiency(o)]
    efficiency = []
    for metric in EFFICIENCY_METRICS:
        values_a = [r.metric(metric) for r in measured_a]
        values_b = [r.metric(metric) for r in measured_b]
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
        paired=paired_pass_fail(
            _paired([o for _r, o in rows[a]]), _paired([o for _r, o in rows[b]])
        ),
        preferences=preference_test(*preferred),
        efficiency=efficiency,
    )


def shown_position_bias(latest: Mapping[str, list[JudgmentRevision]]) -> PositionBias:
    """How often the response shown first was preferred, over decisive judgments."""
    left = right = 0
    for judgments in latest.values():
        for j in judgments:
            if j.judgment.preference == PreferenceChoice.RESPONSE_1:
                left += 1
            elif j.judgment.preference == PreferenceChoice.RESPONSE_2:
                right += 1
    return position_bias(left, right)


def unresolved_items(decisions: Decisions) -> dict[str, list[str]]:
    """Run id -> blind codes of the items that leave its verdict unresolved: those where its
    reviewers disagree and nobody adjudicated (every item it was judged in when the states
    differ without a disagreement rule saying so)."""
    open_codes = {d.code for d in decisions.disagreements if not d.adjudicated}
    return {
        v.run: [c for c in v.items if c in open_codes] or list(v.items)
        for v in decisions.verdicts
        if v.source == "unresolved"
    }


@dataclass(frozen=True)
class Results:
    conditions: list[GroupResult]
    by_task: list[GroupResult]
    comparisons: list[Comparison]
    position_bias: PositionBias
    outcomes: list[RunOutcome]


class ResultsReport(Model):
    """The results of a design as ``abp-tui results`` reports them, with who unblinded it."""

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


def results(
    records: DesignRecords,
    decisions: Decisions | None = None,
    run_outcomes: list[RunOutcome] | None = None,
) -> Results:
    """The results of a design by condition and by task, its comparisons and position bias.

    ``decisions`` and ``run_outcomes`` may be passed when the caller already computed them from
    these same records.
    """
    if decisions is None:
        decisions = decide(records)
    if run_outcomes is None:
        run_outcomes = outcomes(records.runs, decisions.verdicts, records.superseded)
    by_condition: dict[str, list[tuple[RunFacts, RunOutcome]]] = defaultdict(list)
    by_cell: dict[tuple[str, str], list[RunOutcome]] = defaultdict(list)
    for run, o in zip(records.runs, run_outcomes, strict=True):
        by_condition[o.condition_id].append((run, o))
        by_cell[(o.condition_id, o.task_id)].append(o)
    conditions = sorted(by_condition)
    rubric = records.rubric
    open_items = unresolved_items(decisions)
    return Results(
        conditions=[
            group_result(c, None, (o for _r, o in by_condition[c]), rubric, open_items)
            for c in conditions
        ],
        by_task=[
            group_result(c, t, by_cell[(c, t)], rubric, open_items) for c, t in sorted(by_cell)
        ],
        comparisons=[
            compare(
                a,
                b,
                by_condition,
                preferences(records.items, decisions.latest, a, b),
                records.seed,
            )
            for a, b in contrasts_of(records.design, conditions)
            if a in by_condition and b in by_condition
        ],
        position_bias=shown_position_bias(decisions.latest),
        outcomes=run_outcomes,
    )
