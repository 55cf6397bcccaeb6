"""Results of a design: tallies by condition and by task, comparisons, position bias.

Counts of all six result states are always reported; pass rates use MODEL_PASS / (MODEL_PASS +
MODEL_FAIL) with a Wilson interval; there is no blended score. A comparison of two conditions
pairs their runs by task and trial (exact McNemar), counts the reviewers' preferences of their
pairs and compares efficiency figures (relative median difference, seeded bootstrap) over the runs
that are measurements (not excluded).

Every interval (Wilson and bootstrap) is at one confidence level, chosen once per computation
(:func:`confidence_level` checks it) and carried by the results, so that each face names it.

What an open disagreement leaves undecided stays out of every figure until it is adjudicated,
counted apart and listed by item: its runs (out of the pass-rate denominators and the pairing),
and its reviewers' preferences (out of the preference tally and the position-bias test), since
a preference reviewers dispute is no more settled than the verdict they dispute.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from pydantic import Field, NonNegativeInt

from abp_tui.analysis.abp_efficiency import (
    EngineEfficiency,
    HeadToHead,
    engine_efficiency,
    head_to_head,
)
from abp_tui.analysis.automated import JudgeTally, is_automated, judge_tallies
from abp_tui.analysis.blinding import contrasts_of
from abp_tui.analysis.item_preferences import counting_line, source_counts
from abp_tui.analysis.made_when_read import MadeWhenRead
from abp_tui.analysis.matched_models import (
    COMPARISONS_WITHHELD,
    ModelMatch,
    engines_comparable,
    leading_warnings,
)
from abp_tui.analysis.reruns import (
    Reclassification,
    reclassifications,
    taken_outcomes,
    verdicts_by_run,
)
from abp_tui.analysis.results.headline import headline
from abp_tui.analysis.scoring import result_state
from abp_tui.analysis.verdicts import Decisions, decide
from abp_tui.errors import AbpError
from abp_tui.models import (
    DesignRecords,
    ItemPreference,
    JudgmentRevision,
    Model,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    Rubric,
    RunFacts,
    RunOutcome,
)
from abp_tui.models.base import trusted
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
from abp_tui.text.natural import natural_key

EFFICIENCY_METRICS: Final = ("total_tokens", "wall_clock_ms", "cost_usd", "diff_bytes")

VerdictSource = Literal["design", "automated"]
"""Where a results report's verdicts come from: ``design``, a study design's final verdicts
(automated outcomes standing in for the runs nobody judged); ``automated``, no study design:
every verdict is an automated outcome."""

DEFAULT_CONFIDENCE: Final = 0.95
"""The level of every results interval unless one is chosen (``--confidence``)."""


class ConfidenceError(AbpError):
    """A confidence level that is not a number strictly between 0 and 1."""


def confidence_level(value: str | float, name: str = "confidence level") -> float:
    """``value`` as a two-sided confidence level, or ConfidenceError naming it (``name``: the
    option or field it came from) and saying what was expected.

    A percentage such as 95 is refused rather than guessed at: 0.95 is the level.
    """
    try:
        level = float(value)
    except (TypeError, ValueError):
        level = math.nan
    if not (isinstance(value, str | int | float) and 0 < level < 1):
        hint = f" (for {level:g}% write {level / 100:g})" if 1 < level < 100 else ""
        raise ConfidenceError(
            f"{name} {value!r}: expected a number strictly between 0 and 1, e.g. 0.95{hint}"
        )
    return level


def confidence_label(confidence: float) -> str:
    """The level as people read it: "95%", "90%", "97.5%" (no rounding of a level to a
    neighbour: 0.975 is not "98%")."""
    return f"{confidence * 100:.10g}%"


PASS_RATE_NOTE: Final = (
    "Pass rate is MODEL_PASS / (MODEL_PASS + MODEL_FAIL); other states are reported "
    "separately and never enter the denominator."
)
UNRESOLVED_RUNS_NOTE: Final = (
    "Unresolved runs (reviewers disagree, not adjudicated yet) are counted apart with their "
    "items and enter no denominator until adjudicated."
)
RUN_NOTES: Final = frozenset({PASS_RATE_NOTE, UNRESOLVED_RUNS_NOTE})
"""Notes on the runs' verdicts: not printed beside a preference tally alone."""
RESULTS_NOTES: Final = (
    PASS_RATE_NOTE,
    "Preferences count each pair once, by its final verdict (adjudicated, unanimous or single "
    "review); the reviewers' own judgments enter agreement and position bias only.",
    UNRESOLVED_RUNS_NOTE,
    "Preferences of an item whose reviewers disagree (not adjudicated yet) are counted apart "
    "with the item and enter neither the preference tally nor the position-bias test until "
    "adjudicated.",
)


AUTOMATED_NOTE: Final = (
    "No study design: every verdict is the run's automated verification outcome (source "
    "automated); nobody judged these runs, so there are no preferences, rubric scores or fatal "
    "failures. Judged in a study design, a person's verdict supersedes the automated one."
)


def results_notes(verdict_source: VerdictSource) -> list[str]:
    """The notes of a results report whose verdicts come from ``verdict_source``."""
    return ([AUTOMATED_NOTE] if verdict_source == "automated" else []) + list(RESULTS_NOTES)


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


def any_state(groups: Iterable[GroupResult]) -> bool:
    """Whether any run of ``groups`` has a state to count (a person's, automated, a record's):
    a preference alone gives none."""
    return any(sum(g.states.values()) for g in groups)


class Efficiency(Model):
    metric: str
    difference: RelativeMedianDifference


class PreferenceResult(PreferenceTest):
    """A contrast's preference tally and test over its items' final preferences (one count per
    item), and the items held back from both."""

    unresolved_judgments: NonNegativeInt = 0
    """Reviewers' preferences of items with an open disagreement: in no count above."""
    unresolved_items: list[str] = Field(default_factory=list)
    """Blind codes of the contrast's judged items with an open disagreement, sorted."""
    sources: dict[str, NonNegativeInt] = Field(default_factory=dict)
    """Source of the items' final preferences (unanimous, adjudicated, single review,
    unresolved) -> how many items."""
    judgments: NonNegativeInt = 0
    """The reviewers' own preferences of these items (agreement counts them; the tally does
    not)."""

    @property
    def counting(self) -> str:
        """The one line saying which judgments the tally counts."""
        return counting_line(self.sources)


class PositionBiasResult(PositionBias):
    """Position bias over decisive judgments, and the judgments held back from it."""

    unresolved_judgments: NonNegativeInt = 0
    """Decisive judgments of items with an open disagreement: not in the test."""
    unresolved_items: list[str] = Field(default_factory=list)
    """Blind codes of those items, sorted."""


class Comparison(Model):
    a: str
    b: str
    paired: PairedPassFail
    preferences: PreferenceResult
    efficiency: list[Efficiency]
    head_to_head: HeadToHead | None = None
    """Engines (ABP, Arena): wins, losses and ties in seed 003's strict efficiency order."""
    items: NonNegativeInt | None = Field(default=None, exclude=True)
    """The design's pair items comparing a and b, judged or not; 0: no task of the design ran
    both, so nothing compares them (people read such contrasts in one line, not as rows of
    zeros). None: not known (automated outcomes, no design). Not in the machine-readable
    files, which keep every contrast of the design as it was."""

    @property
    def uncompared(self) -> bool:
        """No item of the design compares a and b."""
        return self.items == 0


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
    confidence: float = DEFAULT_CONFIDENCE,
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
        unjudged=sum(1 for o in rows if o.source == "unjudged"),
        unresolved=len(pending),
        unresolved_items=codes,
        states={s.value: states.get(s.value, 0) for s in ResultState},
        pass_rate=pass_rate((o.state for o in rows if o.state is not None), confidence),
        fatal_failures=Tally(x=sum(1 for o in in_denominator if o.fatal), n=len(in_denominator)),
        dimensions=dims,
        dimension_n=dim_n,
        acceptance=Tally(x=sum(accepted), n=len(accepted)),
    )


def _cell_key(o: RunOutcome) -> tuple[Any, ...]:
    """Everything of a run's outcome a group's tallies read, but the items of its open
    disagreement (which only list them: :func:`_open_codes`)."""
    return (o.source, o.state, o.human_state, o.fatal, tuple(sorted(o.scores.items())))


def _open_codes(cell: Sequence[RunOutcome], open_items: Mapping[str, Sequence[str]]) -> list[str]:
    """A group's ``unresolved_items``, as :func:`group_result` lists them."""
    return sorted(
        {c for o in cell if o.source == "unresolved" for c in open_items.get(o.run_id, ())}
    )


def task_groups(
    outcomes: Sequence[RunOutcome],
    rubric: Rubric,
    open_items: Mapping[str, Sequence[str]],
    confidence: float,
) -> Sequence[GroupResult]:
    """Each condition and task's tallies, by condition then task (natural order), each cell's
    runs in the order of ``outcomes`` (:class:`CellRows`: each row made when read)."""
    return CellRows(outcomes, rubric, open_items, confidence)


class CellRows(MadeWhenRead[GroupResult]):
    """Each condition and task's tallies (:func:`task_groups`), made when read.

    A large study has a row for each of hundreds of thousands of cells, most with the same
    tallies (one run, unjudged; one run, passed; one run, unresolved): a row's tallies are
    computed once for each distinct set of outcomes and shared (the models are frozen), so that
    only its condition, task and the items of its open disagreements are its own, and those are
    made as the row is read. What is held is the order of the runs (four bytes a run) and
    where each cell's stretch of it starts (four bytes a cell), not a row a cell."""

    def __init__(
        self,
        outcomes: Sequence[RunOutcome],
        rubric: Rubric,
        open_items: Mapping[str, Sequence[str]],
        confidence: float,
    ) -> None:
        self._outcomes, self._rubric = outcomes, rubric
        self._open_items, self._confidence = open_items, confidence
        keys = [(o.condition_id, natural_key(o.task_id), o.task_id) for o in outcomes]
        order = sorted(range(len(keys)), key=lambda i: keys[i][:2])
        starts, kinds = array("I"), array("I")
        last: tuple[str, str] | None = None
        for at, i in enumerate(order):
            named = (keys[i][0], keys[i][2])
            if named != last:
                starts.append(at)
                last = named
        starts.append(len(order))
        self._order = array("I", order)
        self._starts = starts
        # Each cell's set of outcomes, named by its index among the distinct sets (four bytes
        # a cell): a row's shared tallies are found without reading its outcomes' fields again.
        distinct: dict[tuple[Any, ...], int] = {}
        for cell in range(len(starts) - 1):
            found = (outcomes[order[i]] for i in range(starts[cell], starts[cell + 1]))
            key = tuple(_cell_key(o) for o in found)
            kinds.append(distinct.setdefault(key, len(distinct)))
        self._kinds = kinds
        self._tallied: dict[int, GroupResult] = {}

    def __len__(self) -> int:
        return len(self._starts) - 1

    def _at(self, cell: int) -> GroupResult:
        outcomes, order = self._outcomes, self._order
        found = [outcomes[order[i]] for i in range(self._starts[cell], self._starts[cell + 1])]
        c, t = found[0].condition_id, found[0].task_id
        kind = self._kinds[cell]
        tallied = self._tallied.get(kind)
        if tallied is None:
            tallied = self._tallied[kind] = group_result(
                c, t, found, self._rubric, self._open_items, self._confidence
            )
            return tallied
        if tallied.condition == c and tallied.task == t and not tallied.unresolved:
            return tallied  # the cell that made it, read again
        codes = _open_codes(found, self._open_items) if tallied.unresolved else []
        own = {"condition": c, "task": t, "unresolved_items": codes}
        return trusted(GroupResult, **{**tallied.__dict__, **own})


@dataclass(frozen=True)
class Preferences:
    """A contrast's pairs, each counted once by its final preference; those held back apart."""

    wins_a: int = 0
    wins_b: int = 0
    ties: int = 0
    insufficient: int = 0
    unresolved_judgments: int = 0
    """Reviewers' preferences of the items with no final preference yet (in no count above)."""
    unresolved_items: tuple[str, ...] = ()
    """The contrast's judged items with no final preference yet (open disagreements), sorted."""
    sources: tuple[tuple[str, int], ...] = ()
    """Source of the items' final preferences -> how many items (every source, zeros too)."""
    judgments: int = 0
    """The reviewers' preferences behind the items counted (for agreement, not in a count)."""

    @property
    def counted(self) -> tuple[int, int, int, int]:
        return self.wins_a, self.wins_b, self.ties, self.insufficient


def preferences(final: Iterable[ItemPreference], a: str, b: str) -> Preferences:
    """Wins of a, wins of b, ties and insufficient evidence over the final preferences of the
    pairs of a and b (:mod:`abp_tui.analysis.item_preferences`): one count per item, whoever
    judged it; an item with no final preference yet (an open disagreement) is counted apart,
    with its reviewers' preferences, until adjudicated."""
    wins_a = wins_b = ties = insufficient = unresolved = judgments = 0
    codes: set[str] = set()
    mine = [p for p in final if len(p.runs) == 2 and set(p.conditions) == {a, b}]
    for p in mine:
        judgments += len(p.reviews)
        if p.preferred is None:
            unresolved += len(p.reviews)
            codes.add(p.item)
        elif p.preferred == PreferenceChoice.TIE.value:
            ties += 1
        elif p.preferred == PreferenceChoice.INSUFFICIENT.value:
            insufficient += 1
        elif p.preferred_condition == a:
            wins_a += 1
        else:
            wins_b += 1
    return Preferences(
        wins_a,
        wins_b,
        ties,
        insufficient,
        unresolved,
        tuple(sorted(codes)),
        tuple(source_counts(mine).items()),
        judgments,
    )


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
    preferred: Preferences,
    seed: int,
    confidence: float = DEFAULT_CONFIDENCE,
    engines: bool = False,
    items: int | None = None,
) -> Comparison:
    """Conditions a and b: paired pass/fail, preferences and the efficiency differences, every
    interval at ``confidence``; for ``engines`` (ABP, Arena), the head-to-head too; ``items``:
    the design's pair items comparing them (:attr:`Comparison.items`)."""
    measured_a = [r for r, o in rows[a] if counts_for_efficiency(o)]
    measured_b = [r for r, o in rows[b] if counts_for_efficiency(o)]
    return comparison(
        a,
        b,
        lambda metric: (
            [r.metric(metric) for r in measured_a],
            [r.metric(metric) for r in measured_b],
        ),
        (_paired([o for _r, o in rows[a]]), _paired([o for _r, o in rows[b]])),
        preferred,
        seed,
        confidence,
        head_to_head(rows[a], rows[b]) if engines else None,
        items=items,
    )


Paired = dict[tuple[str, int], ResultState | None]
"""Each task and trial's state of one condition (:func:`_paired`)."""


def comparison(
    a: str,
    b: str,
    measured: Callable[[str], tuple[list[float | None], list[float | None]]],
    paired: tuple[Paired, Paired],
    preferred: Preferences,
    seed: int,
    confidence: float,
    versus: HeadToHead | None,
    items: int | None = None,
) -> Comparison:
    """:func:`compare` of what it reads of the runs: each metric's values over a's and b's runs
    that are measurements (``measured``), each condition's state by task and trial."""
    efficiency = []
    for metric in EFFICIENCY_METRICS:
        values_a, values_b = measured(metric)
        if any(v is not None for v in values_a + values_b):
            efficiency.append(
                Efficiency(
                    metric=metric,
                    difference=relative_median_difference(
                        values_a, values_b, seed=seed, confidence=confidence
                    ),
                )
            )
    return Comparison(
        a=a,
        b=b,
        paired=paired_pass_fail(*paired),
        preferences=PreferenceResult(
            **preference_test(*preferred.counted, confidence=confidence).model_dump(),
            unresolved_judgments=preferred.unresolved_judgments,
            unresolved_items=list(preferred.unresolved_items),
            sources=dict(preferred.sources),
            judgments=preferred.judgments,
        ),
        efficiency=efficiency,
        head_to_head=versus,
        items=items,
    )


def shown_position_bias(
    latest: Mapping[str, list[JudgmentRevision]],
    held_back: Collection[str] = frozenset(),
    confidence: float = DEFAULT_CONFIDENCE,
) -> PositionBiasResult:
    """How often the response shown first was preferred, over decisive judgments; those of the
    items in ``held_back`` (open disagreements) are counted apart."""
    left = right = unresolved = 0
    codes: set[str] = set()
    for code, judgments in latest.items():
        for j in judgments:
            if j.judgment.preference not in (
                PreferenceChoice.RESPONSE_1,
                PreferenceChoice.RESPONSE_2,
            ):
                continue
            if code in held_back:
                unresolved += 1
                codes.add(code)
            elif j.judgment.preference == PreferenceChoice.RESPONSE_1:
                left += 1
            else:
                right += 1
    return PositionBiasResult(
        **position_bias(left, right, confidence).model_dump(),
        unresolved_judgments=unresolved,
        unresolved_items=sorted(codes),
    )


def shown_first(judgments: Iterable[JudgmentRevision]) -> tuple[int, int]:
    """Of ``judgments``' decisive preferences, how many preferred the response shown first
    (left), and how many the one shown second (position bias, one item at a time)."""
    shown = [j.judgment.preference for j in judgments]
    return shown.count(PreferenceChoice.RESPONSE_1), shown.count(PreferenceChoice.RESPONSE_2)


def open_disagreements(decisions: Decisions) -> frozenset[str]:
    """Blind codes of the items whose reviewers disagree and nobody adjudicated yet."""
    return frozenset(d.code for d in decisions.disagreements if not d.adjudicated)


def unresolved_items(decisions: Decisions) -> dict[str, list[str]]:
    """Run id -> blind codes of the items that leave its verdict unresolved: those where its
    reviewers disagree and nobody adjudicated (every item it was judged in when the states
    differ without a disagreement rule saying so)."""
    open_codes = open_disagreements(decisions)
    return {
        v.run: [c for c in v.items if c in open_codes] or list(v.items)
        for v in decisions.verdicts
        if v.source == "unresolved"
    }


@dataclass(frozen=True)
class Results:
    conditions: list[GroupResult]
    by_task: Sequence[GroupResult]
    comparisons: list[Comparison]
    position_bias: PositionBiasResult
    outcomes: Sequence[RunOutcome]
    confidence: float
    """The level of every interval above."""
    verdict_source: VerdictSource = "design"
    automated_judge: list[JudgeTally] = field(default_factory=list)
    """The automated judge's pass / fail / unscored per condition and dimension, over the runs
    it scored (whatever a person decided since: this is the judge's own account)."""
    model_match: ModelMatch | None = None
    """Engines (ABP, Arena): whether they ran on the same model (seed 003 section 7)."""
    engine_efficiency: list[EngineEfficiency] = field(default_factory=list)
    """Engines (ABP, Arena): each engine's own efficiency medians, shown whatever the models."""
    reclassifications: list[Reclassification] = field(default_factory=list)
    """Runs whose record's INFRA_ERROR / PROVIDER_BLOCK a reviewer set aside, with why."""
    headline: list[str] = field(default_factory=list)
    """The answer to the design's question in a few sentences (:mod:`abp_tui.analysis.
    headline`); empty for automated outcomes alone."""

    @property
    def warnings(self) -> list[str]:
        """What every output of these results leads with (unmatched models)."""
        return leading_warnings(self.model_match)

    @property
    def notes(self) -> list[str]:
        """What a reader of these results must know (the tables print them)."""
        return study_notes(self.model_match) + results_notes(self.verdict_source)


def study_notes(match: ModelMatch | None) -> list[str]:
    """Notes owed to the study's engines: comparisons withheld, token totals unverified."""
    notes = [] if engines_comparable(match) else [COMPARISONS_WITHHELD]
    if match is not None and match.tokens_note:
        notes.append(match.tokens_note)
    return notes


def results(
    records: DesignRecords,
    decisions: Decisions | None = None,
    run_outcomes: Sequence[RunOutcome] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    judge_dimensions: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    model_match: ModelMatch | None = None,
) -> Results:
    """The results of a design by condition and by task, its comparisons and position bias,
    every interval at ``confidence`` (checked: ConfidenceError for a level out of (0, 1)).

    ``decisions`` and ``run_outcomes`` may be passed when the caller already computed them from
    these same records. ``judge_dimensions`` (run id -> the automated judge's dimensions) adds
    the judge's per-dimension tallies. ``model_match`` (engines: ABP, Arena) adds the
    head-to-head to each comparison, and withholds every comparison when the engines did not
    run on the same model (seed 003 section 7).
    """
    confidence = confidence_level(confidence)
    if decisions is None:
        decisions = decide(records)
    rubric = records.rubric
    open_items = unresolved_items(decisions)
    held_back = open_disagreements(decisions)
    reclassified = reclassifications(records.runs, decisions, records.superseded, records.design)
    by_run = verdicts_by_run(records, decisions) if run_outcomes is None else {}
    # Every verdict is in an open item, a reclassification or ``by_run`` now: a large study's
    # verdicts are let go as their outcomes are made, before the tallies (the caller's own
    # decisions stay whole).
    decisions = replace(decisions, verdicts=[], adjudicated_by={})
    if run_outcomes is None:  # a record's INFRA_ERROR / PROVIDER_BLOCK stands (seed 000)
        run_outcomes = taken_outcomes(records, by_run, {r.run for r in reclassified})
    del by_run
    by_condition: dict[str, list[tuple[RunFacts, RunOutcome]]] = defaultdict(list)
    for run, o in zip(records.runs, run_outcomes, strict=True):
        by_condition[o.condition_id].append((run, o))
    conditions = sorted(by_condition)
    automated = is_automated(records.design.name, rubric.id)
    # The pair items of each pair of conditions: a contrast none compares reads as such.
    planned = Counter(frozenset(i.conditions) for i in records.items if i.is_pair)
    groups = [
        group_result(c, None, (o for _r, o in by_condition[c]), rubric, open_items, confidence)
        for c in conditions
    ]
    compared = [
        compare(
            a,
            b,
            by_condition,
            preferences(decisions.preferences, a, b),
            records.seed,
            confidence,
            engines=model_match is not None,
            items=None if automated else planned[frozenset((a, b))],
        )
        for a, b in contrasts_of(records.design, conditions)
        if a in by_condition and b in by_condition and engines_comparable(model_match)
    ]
    bias = shown_position_bias(decisions.latest, held_back, confidence)
    said = [] if automated else headline(records, decisions, groups, compared, confidence)
    # A large study's rows by task are made once its decisions are no longer held (unless the
    # caller holds them).
    del decisions
    return Results(
        conditions=groups,
        by_task=task_groups(run_outcomes, rubric, open_items, confidence),
        comparisons=compared,
        position_bias=bias,
        outcomes=run_outcomes,
        confidence=confidence,
        verdict_source="automated" if automated else "design",
        automated_judge=judge_tallies(run_outcomes, judge_dimensions or {}),
        model_match=model_match,
        engine_efficiency=[]
        if model_match is None
        else [
            engine_efficiency(c, [r for r, o in by_condition[c] if counts_for_efficiency(o)])
            for c in conditions
        ],
        reclassifications=reclassified,
        headline=said,
    )
