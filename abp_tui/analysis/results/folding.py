"""A design's decisions folded one item at a time: what its results and watched figures need,
and no more.

:func:`abp_tui.analysis.verdicts.decide` holds every item's judgments and every pair's final
preference (:class:`~abp_tui.analysis.verdicts.Decisions`). A large design's results need far
less: each pair of conditions' preference tally, the position-bias counts, the headline's counts,
the ranking's votes, the watched figures' final verdicts, and for each judged run its final
verdict. :class:`ItemFold` applies ``decide``'s rules to one item at a time (its reviewers'
latest submitted judgments, its latest adjudication, whether they disagree under the design's
rules, its final preference), in plan order as ``decide`` walks them, folds the item into those
tallies and lets it go. What stays for each run judged (until its verdict is made) is what its
verdict is made of: the responses that scored it, the items it was judged in, its pairs'
preference sources. Pure: the caller reads the items (:mod:`abp_tui.store.result_items`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from abp_tui.analysis.abp_efficiency import engine_efficiency, head_to_head
from abp_tui.analysis.automated import is_automated, judge_tallies
from abp_tui.analysis.blinding import contrasts_of
from abp_tui.analysis.item_preferences import SOURCES, item_preference
from abp_tui.analysis.matched_models import ModelMatch, engines_comparable
from abp_tui.analysis.ranking.sources import VoteFold
from abp_tui.analysis.records import latest_submitted
from abp_tui.analysis.reruns import is_record_failure, reclassifications
from abp_tui.analysis.results.headline import headline_of, pending_text, ranking_text, scope_text
from abp_tui.analysis.results.run_table import OutcomeRows, RunTable, TaskRows
from abp_tui.analysis.results.tallies import (
    DEFAULT_CONFIDENCE,
    Paired,
    PositionBiasResult,
    Preferences,
    Results,
    comparison,
    confidence_level,
    counts_for_efficiency,
    group_result,
    shown_first,
)
from abp_tui.analysis.results.watching import Finals
from abp_tui.analysis.verdicts import (
    Decisions,
    FoldedVerdict,
    adjudicated_verdict,
    find_disagreements,
    outcome,
    reviewed_verdict,
)
from abp_tui.models import (
    AdjudicationRevision,
    DisagreementRules,
    Item,
    JudgmentRevision,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    Rubric,
    RunFacts,
    RunOutcome,
    StudyDesign,
    Verdict,
    VerdictSource,
)
from abp_tui.models.base import trusted
from abp_tui.stats.inference import position_bias

_SOURCE_BIT: Final = {s: 1 << i for i, s in enumerate(SOURCES)}
"""A pair's final-preference source as a bit: a run's pairs' sources held as one small int."""
_NO_SCORES: Final[dict[str, float]] = {}


@dataclass(slots=True)
class _PairTally:
    """One pair of conditions' final preferences (:func:`abp_tui.analysis.results.tallies.
    preferences`' counts), folded an item at a time."""

    wins: Counter[str] = field(default_factory=Counter)
    ties: int = 0
    insufficient: int = 0
    unresolved: int = 0
    codes: set[str] = field(default_factory=set)
    sources: Counter[str] = field(default_factory=Counter)
    judgments: int = 0


@dataclass(slots=True)
class _Judged:
    """A run some judgment scored (its responses are its verdict), while the items are read."""

    responses: list[ResponseJudgment] = field(default_factory=list)
    items: set[str] = field(default_factory=set)
    finished: str = ""
    """The latest time one of its items' verdicts became final (watching's order)."""
    first_place: int = -1
    """The earliest place in the plan of an item it was judged in."""


@dataclass(slots=True)
class _Preferred:
    """A run judged by preference alone: its pairs' sources (bits), their reviewers' judgments
    and the pairs' codes (one code as itself: a run is mostly in one pair)."""

    bits: int
    judgments: int
    items: str | tuple[str, ...]

    def verdict(self, run: str) -> FoldedVerdict:
        """``decide``'s verdict of the run (:func:`abp_tui.analysis.verdicts.decide`)."""
        items = (self.items,) if isinstance(self.items, str) else tuple(sorted(self.items))
        return FoldedVerdict(
            run, _preferred_source(self.bits), None, _NO_SCORES, (), self.judgments, items, True
        )


class FoldedVerdicts(Mapping[str, FoldedVerdict]):
    """Run id -> its final verdict, for every judged run: a run some judgment scored has its
    verdict held; a run judged by preference alone (most of a large preference design's) only
    what its verdict is made of, the verdict made when read."""

    def __init__(self, scored: dict[str, FoldedVerdict], preferred: dict[str, _Preferred]) -> None:
        self.scored, self._preferred = scored, preferred

    def __getitem__(self, run: str) -> FoldedVerdict:
        found = self.scored.get(run)
        return found if found is not None else self._preferred[run].verdict(run)

    def __contains__(self, run: object) -> bool:
        return run in self.scored or run in self._preferred

    def __iter__(self) -> Iterator[str]:
        yield from self.scored
        yield from self._preferred

    def __len__(self) -> int:
        return len(self.scored) + len(self._preferred)


class OpenItems(Mapping[str, list[str]]):
    """Run id -> the blind codes of the items that leave its verdict unresolved
    (:func:`abp_tui.analysis.results.tallies.unresolved_items`), for the unresolved runs,
    each list made when read."""

    def __init__(self, verdicts: FoldedVerdicts, open_codes: frozenset[str]) -> None:
        self._verdicts, self._open = verdicts, open_codes

    def __getitem__(self, run: str) -> list[str]:
        v = self._verdicts[run]
        if v.source != "unresolved":
            raise KeyError(run)
        return [c for c in v.items if c in self._open] or list(v.items)

    def __iter__(self) -> Iterator[str]:
        return (run for run in self._verdicts if self._verdicts[run].source == "unresolved")

    def __len__(self) -> int:
        return sum(1 for _run in self)

    def __bool__(self) -> bool:
        # Asked for each row's tallies: never a walk of every verdict (a lookup of a run
        # whose verdict is not unresolved finds nothing either way).
        return bool(self._verdicts)


@dataclass(frozen=True)
class Folded:
    """What a design's results need of its decisions (see the module docstring)."""

    verdicts: FoldedVerdicts
    """Run id -> its final human verdict, every judged run (runs by id)."""
    open_codes: frozenset[str]
    """Blind codes of the items whose reviewers disagree and nobody adjudicated yet."""
    pairs: dict[frozenset[str], _PairTally]
    """Each pair of conditions -> its final preferences' tally."""
    position: tuple[int, int, int, tuple[str, ...]]
    """Decisive judgments: shown first preferred, shown second preferred, held back (open
    disagreements), and the items held back, sorted."""
    reviewers: frozenset[str]
    judged_items: int
    """Items with a submitted judgment."""
    planned: int
    """Items in the plan."""
    for_people: int
    """Items for people: every planned item, or those drawn for them under a human budget."""
    awaiting: int
    """Items for people with no submitted judgment."""
    open_items: int
    votes: VoteFold
    wins: dict[frozenset[str], list[tuple[str, int, str | None]]]
    """The watched figures' final preferences (:class:`abp_tui.analysis.results.watching.
    Finals`)."""
    finished: dict[str, tuple[str, int]]
    """Run id -> when its verdict became final and its first place in the plan, for the runs
    some judgment scored (the watched pass rates)."""
    deciding: Decisions
    """``decide``'s decisions of the runs in ``failed`` alone: the judgments behind their
    verdicts, for the reclassifications."""

    def preferences(self, a: str, b: str) -> Preferences:
        """The tally of the pairs of ``a`` and ``b``
        (:func:`abp_tui.analysis.results.tallies.preferences`)."""
        t = self.pairs.get(frozenset((a, b))) if a != b else None
        if t is None:
            return Preferences(sources=tuple((s, 0) for s in SOURCES))
        return Preferences(
            t.wins[a],
            t.wins[b],
            t.ties,
            t.insufficient,
            t.unresolved,
            tuple(sorted(t.codes)),
            tuple((s, t.sources.get(s, 0)) for s in SOURCES),
            t.judgments,
        )


class ItemFold:
    """Items folded one at a time, in plan order (see the module docstring). ``failed``: ids
    of the runs whose record says INFRA_ERROR or PROVIDER_BLOCK (their deciding judgments are
    kept, for the reclassifications); ``drawn``: the items drawn for people under a human
    budget (None: every item is for people); ``superseded``: runs whose content changed since
    judged (their votes are stale)."""

    def __init__(
        self,
        rubric: Rubric,
        rules: DisagreementRules,
        failed: Container[str] = frozenset(),
        drawn: Container[str] | None = None,
        superseded: Container[str] = frozenset(),
    ) -> None:
        self.rubric, self.rules, self.failed, self.drawn = rubric, rules, failed, drawn
        self.judged: dict[str, _Judged] = {}
        self.adjudicated_by: dict[str, AdjudicationRevision] = {}
        self.unresolved: set[str] = set()
        self.open_codes: set[str] = set()
        self.preferred: dict[str, _Preferred] = {}
        self.pairs: dict[frozenset[str], _PairTally] = {}
        self.left = self.right = self.held = 0
        self.held_codes: set[str] = set()
        self.reviewers: set[str] = set()
        self.judged_items = self.awaiting = self.open_items = 0
        self.planned = self.for_people = 0
        self.votes = VoteFold(superseded)
        self.wins: dict[frozenset[str], list[tuple[str, int, str | None]]] = {}
        self.deciding: dict[str, list[JudgmentRevision]] = {}
        self.finished: dict[str, tuple[str, int]] = {}

    def add(
        self,
        item: Item,
        judgments: Sequence[JudgmentRevision],
        adjudication: AdjudicationRevision | None,
        place: int,
    ) -> None:
        """One item: its submitted judgment revisions, its latest adjudication, its place in
        the plan."""
        code = item.code
        latest = latest_submitted(judgments).get(code, [])
        self.planned += 1
        if self.drawn is None or code in self.drawn:
            self.for_people += 1
            self.awaiting += not latest
        reasons: list[str] = []
        finished = ""
        if latest:
            self.judged_items += 1
            self.reviewers.update(j.reviewer for j in latest)
            finished = max(j.created_at for j in latest)
            reasons = find_disagreements(self.rules, self.rubric, latest)
        if adjudication is not None:
            finished = adjudication.created_at
        disputed = bool(reasons) and adjudication is None
        if disputed:
            self.open_codes.add(code)
            self.open_items += 1
        self._responses(code, latest, adjudication, disputed, finished, place)
        self._position(code, latest, disputed)
        if item.is_pair:
            self._preference(item, latest, adjudication, disputed, finished, place)

    def _responses(
        self,
        code: str,
        latest: list[JudgmentRevision],
        adjudication: AdjudicationRevision | None,
        disputed: bool,
        finished: str,
        place: int,
    ) -> None:
        """``decide``'s per-run part: the responses scoring each run, where it was judged."""
        if not latest:
            return
        if any(run in self.failed for j in latest for run in j.judgment.responses):
            self.deciding[code] = latest
        for j in latest:
            for run, response in j.judgment.responses.items():
                found = self.judged.get(run)
                if found is None:
                    found = self.judged[run] = _Judged(first_place=place)
                found.responses.append(response)
                found.items.add(code)
                found.finished = max(found.finished, finished)
        if adjudication is not None:
            for run in adjudication.judgment.responses:
                self.adjudicated_by[run] = adjudication
        elif disputed:
            self.unresolved.update(run for j in latest for run in j.judgment.responses)

    def _position(self, code: str, latest: list[JudgmentRevision], held: bool) -> None:
        left, right = shown_first(latest)
        if held and left + right:
            self.held += left + right
            self.held_codes.add(code)
        elif not held:
            self.left += left
            self.right += right

    def _preference(
        self,
        item: Item,
        latest: list[JudgmentRevision],
        adjudication: AdjudicationRevision | None,
        disputed: bool,
        finished: str,
        place: int,
    ) -> None:
        final = item_preference(item, latest, adjudication, disputed)
        if final is None:
            return
        self.votes.add(final, (None, None))
        reviews = len(final.reviews)
        bit = _SOURCE_BIT[final.source]
        for run in final.runs:
            held = self.preferred.get(run)
            if held is None:
                self.preferred[run] = _Preferred(bit, reviews, final.item)
            else:
                held.bits |= bit
                held.judgments += reviews
                before = (held.items,) if isinstance(held.items, str) else held.items
                held.items = (*before, final.item)
        if len(final.runs) != 2:
            return
        conditions = frozenset(final.conditions)
        if len(conditions) == 2:
            tally = self.pairs.get(conditions)
            if tally is None:
                tally = self.pairs[conditions] = _PairTally()
            tally.judgments += reviews
            tally.sources[final.source] += 1
            if final.preferred is None:
                tally.unresolved += reviews
                tally.codes.add(final.item)
            elif final.preferred == PreferenceChoice.TIE.value:
                tally.ties += 1
            elif final.preferred == PreferenceChoice.INSUFFICIENT.value:
                tally.insufficient += 1
            else:
                tally.wins[final.preferred_condition or ""] += 1
            if final.preferred is not None and final.preferred != (
                PreferenceChoice.INSUFFICIENT.value
            ):
                won = (
                    None
                    if final.preferred == PreferenceChoice.TIE.value
                    else final.preferred_condition
                )
                self.wins.setdefault(conditions, []).append((finished, place, won))

    def folded(self) -> Folded:
        """The tallies, and each judged run's final verdict (``decide``'s)."""
        rubric = self.rubric
        verdicts: dict[str, FoldedVerdict] = {}
        for run in sorted(self.judged):
            found = self.judged.pop(run)
            adjudicated = self.adjudicated_by.get(run)
            items = tuple(sorted(found.items))
            if adjudicated is not None:
                chosen = adjudicated.judgment.responses[run]
                verdicts[run] = adjudicated_verdict(
                    rubric, run, chosen, len(found.responses), items
                )
            else:
                verdicts[run] = reviewed_verdict(
                    rubric, run, found.responses, run in self.unresolved, items
                )
            when = adjudicated.created_at if adjudicated is not None else found.finished
            self.finished[run] = (when, found.first_place)
        for run in verdicts:  # a run some judgment scored has its scored verdict
            self.preferred.pop(run, None)
        preferred, self.preferred = self.preferred, {}
        held = FoldedVerdicts(verdicts, preferred)
        return Folded(
            verdicts=held,
            open_codes=frozenset(self.open_codes),
            pairs=self.pairs,
            position=(self.left, self.right, self.held, tuple(sorted(self.held_codes))),
            reviewers=frozenset(self.reviewers),
            judged_items=self.judged_items,
            planned=self.planned,
            for_people=self.for_people,
            awaiting=self.awaiting,
            open_items=self.open_items,
            votes=self.votes,
            wins=self.wins,
            finished=self.finished,
            deciding=self._deciding(held),
        )

    def _deciding(self, verdicts: FoldedVerdicts) -> Decisions:
        """``decide``'s decisions of the runs whose record failed, for the reclassifications."""
        failed = [verdicts[run] for run in verdicts if run in self.failed]
        return Decisions(
            latest=self.deciding,
            adjudications={},
            disagreements=[],
            verdicts=[trusted(Verdict, **v._asdict()) for v in failed],
            adjudicated_by={run: a for run, a in self.adjudicated_by.items() if run in self.failed},
        )


def _preferred_source(bits: int) -> VerdictSource:
    """A run's verdict source from its pairs' sources (``decide``'s rule for a run judged by
    preference alone)."""
    if bits & _SOURCE_BIT["unresolved"]:
        return "unresolved"
    if bits & _SOURCE_BIT["adjudicated"]:
        return "adjudicated"
    if bits == _SOURCE_BIT["single review"]:
        return "single review"
    return "unanimous"


@dataclass(frozen=True)
class FoldedDesign:
    """A design's records but its items' judgments (folded into :class:`Folded` instead)."""

    design: StudyDesign
    rubric: Rubric
    seed: int
    runs: RunTable
    """In scope, in the order results list them (:meth:`RunTable.in_order`)."""
    superseded: frozenset[str]
    budget: bool = False
    """The design sets a human budget (some items drawn for people)."""


def folded_results(
    records: FoldedDesign,
    folded: Folded,
    confidence: float = DEFAULT_CONFIDENCE,
    judge_dimensions: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    model_match: ModelMatch | None = None,
) -> Results:
    """:func:`abp_tui.analysis.results.tallies.results` of a design whose items were folded
    (same figures, same order), its runs held as columns (:class:`RunTable`, in the order
    results list them: condition by condition) and its outcomes and rows by task made when
    read (the items of their open disagreements from ``folded``'s verdicts, which they
    keep)."""
    confidence = confidence_level(confidence)
    rubric, superseded = records.rubric, records.superseded
    verdicts = folded.verdicts
    open_items = OpenItems(verdicts, folded.open_codes)
    table = records.runs
    failed = [table.run(i) for i in range(len(table)) if is_record_failure(table.facts[i][0])]
    reclassified = reclassifications(failed, folded.deciding, superseded, records.design)
    taken = {r.run for r in reclassified}

    def outcomes() -> Iterator[RunOutcome]:
        for run in table.runs():
            found = outcome(run, None if run.id in superseded else verdicts.get(run.id))
            # Seed 000: the record's state stands unless the run was reclassified.
            held = is_record_failure(run.origin_status) and run.id not in taken
            if held and found.state != run.origin_status:
                found = found.model_copy(update={"state": run.origin_status, "source": "record"})
            yield found

    table.set_outcomes(outcomes())
    spans = table.spans()
    conditions = sorted(spans)
    groups = [
        group_result(c, None, map(table.outcome, spans[c]), rubric, open_items, confidence)
        for c in conditions
    ]
    engines = model_match is not None
    compared = [
        comparison(
            a,
            b,
            _measured(table, spans[a], spans[b]),
            (_paired(table, spans[a]), _paired(table, spans[b])),
            folded.preferences(a, b),
            records.seed,
            confidence,
            head_to_head(_rows(table, spans[a]), _rows(table, spans[b])) if engines else None,
        )
        for a, b in contrasts_of(records.design, conditions)
        if a in spans and b in spans and engines_comparable(model_match)
    ]
    automated = is_automated(records.design.name, rubric.id)
    left, right, apart, codes = folded.position
    bias = PositionBiasResult(
        **position_bias(left, right, confidence).model_dump(),
        unresolved_judgments=apart,
        unresolved_items=list(codes),
    )
    said = (
        []
        if automated
        else headline_of(
            scope_text(
                [g.condition for g in groups],
                folded.judged_items,
                len(folded.reviewers),
                folded.planned,
                folded.for_people if records.budget else None,
                rubric.preference_only,
            ),
            rubric.preference_only,
            lambda: ranking_text(folded.votes.votes()[0]),
            pending_text(folded.awaiting, folded.open_items, records.budget),
            groups,
            compared,
            confidence,
        )
    )
    outcome_rows = OutcomeRows(table)
    return Results(
        conditions=groups,
        by_task=TaskRows(table, rubric, open_items, confidence),
        comparisons=compared,
        position_bias=bias,
        outcomes=outcome_rows,
        confidence=confidence,
        verdict_source="automated" if automated else "design",
        automated_judge=judge_tallies(outcome_rows, judge_dimensions) if judge_dimensions else [],
        model_match=model_match,
        engine_efficiency=[]
        if model_match is None
        else [
            engine_efficiency(c, [r for r, o in _rows(table, spans[c]) if counts_for_efficiency(o)])
            for c in conditions
        ],
        reclassifications=reclassified,
        headline=said,
    )


def _measures(table: RunTable, i: int) -> bool:
    """Whether the run's outcome makes it an efficiency measurement (not excluded)."""
    state = table.state(i)
    return state is None or state.in_quality_denominator


_METRIC_AT: Final = {"total_tokens": 3, "wall_clock_ms": 4, "cost_usd": 5, "diff_bytes": 6}
"""Where each efficiency metric is among a :class:`RunTable` run's facts."""


def _measured(
    table: RunTable, a: range, b: range
) -> Callable[[str], tuple[list[float | None], list[float | None]]]:
    """Each metric's values over a's and b's runs that are measurements."""
    kept_a = [i for i in a if _measures(table, i)]
    kept_b = [i for i in b if _measures(table, i)]

    def values(metric: str) -> tuple[list[float | None], list[float | None]]:
        at = _METRIC_AT[metric]
        return (
            [None if (v := table.facts[i][at]) is None else float(v) for i in kept_a],
            [None if (v := table.facts[i][at]) is None else float(v) for i in kept_b],
        )

    return values


def _paired(table: RunTable, rows: range) -> Paired:
    """:func:`abp_tui.analysis.results.tallies.compare`'s pairing of one condition's runs."""
    out: Paired = {}
    for i in sorted(rows, key=table.ids.__getitem__):
        key = (table.tasks[i], table.trials[i])
        if key not in out:
            out[key] = None if table.source(i) == "unresolved" else table.state(i)
    return out


def _rows(table: RunTable, rows: range) -> list[tuple[RunFacts, RunOutcome]]:
    """Engines' runs with their outcomes (an engine study's head-to-head reads them whole)."""
    return [(table.run(i), table.outcome(i)) for i in rows]


def folded_finals(records: FoldedDesign, folded: Folded) -> Finals:
    """:func:`abp_tui.analysis.results.watching.finals` of a design whose items were folded."""
    counted = [
        v
        for v in folded.verdicts.scored.values()
        if v.run not in records.superseded
        and v.source != "unresolved"
        and v.result_state in (ResultState.MODEL_PASS, ResultState.MODEL_FAIL)
    ]
    # Only a design whose runs are scored has pass rates to watch: their conditions read then.
    table = records.runs
    condition_of = dict(zip(table.ids, table.conditions, strict=True)) if counted else {}
    by_condition: dict[str, list[tuple[str, int, float]]] = {}
    for verdict in counted:
        condition = condition_of.get(verdict.run)
        if condition is None:
            continue
        when, first_place = folded.finished[verdict.run]
        passed = 1.0 if verdict.result_state == ResultState.MODEL_PASS else 0.0
        by_condition.setdefault(condition, []).append((when, first_place, passed))
    passes = [
        (f"pass rate of {condition}", "pass rate", [v for *_, v in sorted(by_condition[condition])])
        for condition in sorted(by_condition)
    ]
    return Finals(records.design.stop_when, folded.wins, passes)


__all__ = ["Folded", "FoldedDesign", "ItemFold", "folded_finals", "folded_results"]
