"""A design's decisions folded one item at a time: what its results and watched figures need,
and no more.

:func:`abp_tui.analysis.verdicts.decide` holds every item's judgments and every pair's final
preference (:class:`~abp_tui.analysis.verdicts.Decisions`). A large design's results need far
less: each pair of conditions' preference tally, the position-bias counts, the headline's counts,
the ranking's votes, the watched figures' final verdicts, and for each judged run its final
verdict. :class:`ItemFold` applies ``decide``'s rules to one item at a time (its reviewers'
latest submitted judgments, its latest adjudication, whether they disagree under the design's
rules, its final preference), in plan order as ``decide`` walks them, folds the item into those
tallies and lets it go. What stays for each run some judgment scored (until its verdict is
made) is what its verdict is made of: the responses that scored it, the items it was judged in.
A run judged by preference alone (most of a large preference design's), the items held back
from a tally and the watched figures' final preferences are written to the caller's spill
(:class:`~abp_tui.analysis.results.run_table.RunSpill`, a temporary database) instead, read back
when the results are written. Pure: the caller reads the items
(:mod:`abp_tui.store.result_items`) and gives the spill.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Container, Iterator, Mapping, Sequence
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
from abp_tui.analysis.results.run_table import OutcomeRows, RunSpill, RunTable, TaskRows
from abp_tui.analysis.results.tallies import (
    DEFAULT_CONFIDENCE,
    EFFICIENCY_METRICS,
    Paired,
    PositionBiasResult,
    Preferences,
    Results,
    comparison,
    confidence_level,
    counts_for_efficiency,
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
_HELD: Final = 0
"""The spill's list of the items held back from the position bias (each pair's are 1, 2...)."""


@dataclass(slots=True)
class _PairTally:
    """One pair of conditions' final preferences (:func:`abp_tui.analysis.results.tallies.
    preferences`' counts), folded an item at a time."""

    wins: Counter[str] = field(default_factory=Counter)
    ties: int = 0
    insufficient: int = 0
    unresolved: int = 0
    listed: int = 0
    """The number of the spill's list of its items with no final preference yet."""
    codes: tuple[str, ...] = ()
    """Those items, sorted (read back from the spill once every item is folded)."""
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


def _preferred_verdict(
    run: str, bits: int, judgments: int = 0, items: tuple[str, ...] = ()
) -> FoldedVerdict:
    """``decide``'s verdict of a run judged by preference alone, from its pairs' sources (bits),
    their reviewers' judgments and their codes (:func:`abp_tui.analysis.verdicts.decide`; its
    outcome reads only the sources)."""
    return FoldedVerdict(run, _preferred_source(bits), None, _NO_SCORES, (), judgments, items, True)


@dataclass(frozen=True)
class Folded:
    """What a design's results need of its decisions (see the module docstring)."""

    verdicts: dict[str, FoldedVerdict]
    """Run id -> its final human verdict, for the runs some judgment scored (runs by id); a
    run judged by preference alone has its pairs in the spill (:class:`RunSpill`)."""
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
    owed: int
    """Judgments the plan asks of its reviewers (``per_item`` for each item for people) not
    submitted."""
    open_items: int
    votes: VoteFold
    wins: Mapping[frozenset[str], list[tuple[str, int, str | None]]]
    """The watched figures' final preferences (:class:`abp_tui.analysis.results.watching.
    Finals`)."""
    finished: dict[str, tuple[str, int]]
    """Run id -> when its verdict became final and its first place in the plan, for the runs
    some judgment scored (the watched pass rates)."""
    listed: list[str]
    """Every code listed in ``position`` or a pair's tally, sorted: the rows by condition list
    the same codes (mostly) and share them."""
    deciding: Decisions
    """``decide``'s decisions of the runs in ``failed`` alone: the judgments behind their
    verdicts, for the reclassifications."""
    compared: Counter[frozenset[str]] = field(default_factory=Counter)
    """Each pair of conditions -> the pair items of the plan comparing them (judged or not)."""

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
            t.codes,
            tuple((s, t.sources.get(s, 0)) for s in SOURCES),
            t.judgments,
        )


class ItemFold:
    """Items folded one at a time, in plan order (see the module docstring), each pair's
    final preference for a run and each open disagreement's item written to ``spill``.
    ``failed``: ids of the runs whose record says INFRA_ERROR or PROVIDER_BLOCK (their
    deciding judgments are kept, for the reclassifications); ``drawn``: the items drawn for
    people under a human budget (None: every item is for people); ``superseded``: runs whose
    content changed since judged (their votes are stale)."""

    def __init__(
        self,
        rubric: Rubric,
        rules: DisagreementRules,
        spill: RunSpill,
        failed: Collection[str] = frozenset(),
        drawn: Container[str] | None = None,
        superseded: Container[str] = frozenset(),
        per_item: int = 1,
    ) -> None:
        self.rubric, self.rules, self.failed, self.drawn = rubric, rules, failed, drawn
        self.per_item, self.owed = max(1, per_item), 0
        self.spill = spill
        self.judged: dict[str, _Judged] = {}
        self.adjudicated_by: dict[str, AdjudicationRevision] = {}
        self.unresolved: set[str] = set()
        self.pairs: dict[frozenset[str], _PairTally] = {}
        self.left = self.right = self.held = 0
        self.reviewers: set[str] = set()
        self.judged_items = self.awaiting = self.open_items = 0
        self.planned = self.for_people = 0
        self.votes = VoteFold(superseded)
        self.wins = _Wins(spill, self.pairs)
        self.deciding: dict[str, list[JudgmentRevision]] = {}
        self.finished: dict[str, tuple[str, int]] = {}
        self.known: list[str] = []
        self.compared: Counter[frozenset[str]] = Counter()

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
            self.owed += max(0, self.per_item - len(latest))
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
            self.spill.open_item(code)
            self.open_items += 1
        self._responses(code, latest, adjudication, disputed, finished, place)
        self._position(code, latest, disputed)
        if item.is_pair:
            self.compared[frozenset(item.conditions)] += 1
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
            self.spill.list_item(code, _HELD)
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
        spill = self.spill
        final = item_preference(item, latest, adjudication, disputed)
        if final is None:
            return
        self.votes.add(final, (None, None))
        reviews = len(final.reviews)
        bit = _SOURCE_BIT[final.source]
        for run in final.runs:
            self.spill.prefer(run, bit, reviews, final.item)
        if len(final.runs) != 2:
            return
        conditions = frozenset(final.conditions)
        if len(conditions) == 2:
            tally = self.pairs.get(conditions)
            if tally is None:
                tally = self.pairs[conditions] = _PairTally(listed=len(self.pairs) + 1)
            tally.judgments += reviews
            tally.sources[final.source] += 1
            if final.preferred is None:
                tally.unresolved += reviews
                self.spill.list_item(final.item, tally.listed)
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
                spill.win(tally.listed, finished, place, won)

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
        return Folded(
            verdicts=verdicts,
            pairs=self.pairs,
            position=(self.left, self.right, self.held, self._listed()),
            reviewers=frozenset(self.reviewers),
            judged_items=self.judged_items,
            planned=self.planned,
            for_people=self.for_people,
            awaiting=self.awaiting,
            owed=self.owed,
            open_items=self.open_items,
            votes=self.votes,
            wins=self.wins,
            finished=self.finished,
            listed=self.known,
            deciding=self._deciding(verdicts),
            compared=self.compared,
        )

    def _listed(self) -> tuple[str, ...]:
        """The items held back from the position bias, sorted; each pair's items with no final
        preference yet set on its tally, sorted (one code held once for all its lists)."""
        lists: dict[int, list[str]] = {}
        previous = ""
        for code, listed in self.spill.listed():  # by code: one code's lists together
            if code != previous:
                previous = code
                self.known.append(code)
            lists.setdefault(listed, []).append(previous)
        for tally in self.pairs.values():
            tally.codes = tuple(lists.pop(tally.listed, ()))
        return tuple(lists.pop(_HELD, ()))

    def _deciding(self, verdicts: dict[str, FoldedVerdict]) -> Decisions:
        """``decide``'s decisions of the runs whose record failed, for the reclassifications
        (a run some judgment scored has its scored verdict)."""
        failed = []
        for run in sorted(self.failed):
            found = verdicts.get(run)
            if found is None:
                bits, judgments, items = self.spill.preferred(run)
                found = _preferred_verdict(run, bits, judgments, items) if bits else None
            if found is not None:
                failed.append(found)
        return Decisions(
            latest=self.deciding,
            adjudications={},
            disagreements=[],
            verdicts=[trusted(Verdict, **v._asdict()) for v in failed],
            adjudicated_by={run: a for run, a in self.adjudicated_by.items() if run in self.failed},
        )


class _Wins(Mapping[frozenset[str], list[tuple[str, int, str | None]]]):
    """Each pair of conditions' final preferences (:attr:`abp_tui.analysis.results.watching.
    Finals.wins`) as the spill holds them, a pair's list read when asked."""

    def __init__(self, spill: RunSpill, pairs: Mapping[frozenset[str], _PairTally]) -> None:
        self._spill, self._pairs = spill, pairs

    def __getitem__(self, pair: frozenset[str]) -> list[tuple[str, int, str | None]]:
        tally = self._pairs.get(pair)
        found = list(self._spill.wins(tally.listed)) if tally is not None else []
        if not found:
            raise KeyError(pair)
        return found

    def __iter__(self) -> Iterator[frozenset[str]]:
        return (pair for pair in self._pairs if pair in self)

    def __contains__(self, pair: object) -> bool:
        tally = self._pairs.get(pair) if isinstance(pair, frozenset) else None
        return tally is not None and self._spill.has_wins(tally.listed)

    def __len__(self) -> int:
        return sum(1 for _pair in self)


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
    """In scope, in the order results list them (read from the spill the items were folded
    into)."""
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
    (same figures, same order), its runs read from the spill (:class:`RunTable`, in the order
    results list them: condition by condition) and its outcomes and rows by task made when
    read (the items of their open disagreements from the spill, or from ``folded``'s verdicts
    for the runs some judgment scored)."""
    confidence = confidence_level(confidence)
    rubric, superseded = records.rubric, records.superseded
    verdicts = folded.verdicts
    table = records.runs
    spill = table.spill

    def scored_items(run: str) -> Sequence[str] | None:
        found = verdicts.get(run)
        if found is None:
            return None
        return [c for c in found.items if spill.is_open(c)] or list(found.items)

    table.scored_items, table.scored = scored_items, bool(verdicts)
    failed = [run for run in table.recorded() if is_record_failure(run.origin_status)]
    reclassified = reclassifications(failed, folded.deciding, superseded, records.design)
    taken = {r.run for r in reclassified}

    def verdict(run: str, bits: int) -> FoldedVerdict | None:
        found = verdicts.get(run)
        if found is None and bits:
            return _preferred_verdict(run, bits)
        return found

    def outcomes() -> Iterator[RunOutcome]:
        for run, bits in table.entries():
            found = outcome(run, None if run.id in superseded else verdict(run.id, bits))
            # Seed 000: the record's state stands unless the run was reclassified.
            held = is_record_failure(run.origin_status) and run.id not in taken
            if held and found.state != run.origin_status:
                found = found.model_copy(update={"state": run.origin_status, "source": "record"})
            yield found

    table.set_outcomes(outcomes())
    spans = table.spans()
    conditions = sorted(spans)
    groups = [table.group(c, spans[c], rubric, confidence, folded.listed) for c in conditions]
    measured, pairing = _Measured(table), _Pairing(table)
    engines = model_match is not None
    automated = is_automated(records.design.name, rubric.id)
    compared = [
        comparison(
            a,
            b,
            measured.of(spans[a], spans[b]),
            (pairing.of(spans[a]), pairing.of(spans[b])),
            folded.preferences(a, b),
            records.seed,
            confidence,
            head_to_head(_rows(table, spans[a]), _rows(table, spans[b])) if engines else None,
            items=None if automated else folded.compared[frozenset((a, b))],
        )
        for a, b in contrasts_of(records.design, conditions)
        if a in spans and b in spans and engines_comparable(model_match)
    ]
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
            pending_text(folded.awaiting, folded.open_items, records.budget, folded.owed),
            groups,
            compared,
            confidence,
        )
    )
    outcome_rows = OutcomeRows(table)
    return Results(
        conditions=groups,
        by_task=TaskRows(table, rubric, confidence),
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


def _measures(state: ResultState | None) -> bool:
    """Whether a run's outcome makes it an efficiency measurement (not excluded)."""
    return state is None or state.in_quality_denominator


_Values = list[float | None] | int
"""One metric's values over a condition's runs that are measurements, or (none has a value)
only how many they are."""


class _Measured:
    """Each condition's metric values over its runs that are measurements (not excluded),
    read in one pass over the condition's runs when first asked; a metric no run has a value
    of is held as a count."""

    def __init__(self, table: RunTable) -> None:
        self._table = table
        self._held: dict[int, dict[str, _Values]] = {}

    def _condition(self, rows: range) -> dict[str, _Values]:
        found = self._held.get(rows.start)
        if found is not None:
            return found
        t = self._table
        if not any(t.spill.measured(rows.start, rows.stop)):  # no run has a value: counted
            kept = sum(1 for i in rows if _measures(t.state(i)))
            found = self._held[rows.start] = dict.fromkeys(EFFICIENCY_METRICS, kept)
            return found
        values: dict[str, list[float | None]] = {m: [] for m in EFFICIENCY_METRICS}
        for i, run in enumerate(t.runs(rows.start, rows.stop), rows.start):
            if not _measures(t.state(i)):
                continue
            for metric in EFFICIENCY_METRICS:
                values[metric].append(run.metric(metric))
        found = self._held[rows.start] = {
            m: v if any(x is not None for x in v) else len(v) for m, v in values.items()
        }
        return found

    def of(
        self, a: range, b: range
    ) -> Callable[[str], tuple[list[float | None], list[float | None]]]:
        """Each metric's values over a's and b's runs that are measurements."""

        def values(metric: str) -> tuple[list[float | None], list[float | None]]:
            found_a, found_b = self._condition(a)[metric], self._condition(b)[metric]
            return (
                [None] * found_a if isinstance(found_a, int) else found_a,
                [None] * found_b if isinstance(found_b, int) else found_b,
            )

        return values


class _Pairing:
    """Each condition's state by task and trial (:meth:`RunTable.paired`), read when asked;
    a condition none of whose runs has a state (a preference design's) is kept, a count."""

    def __init__(self, table: RunTable) -> None:
        self._table = table
        self._held: dict[int, Paired] = {}

    def of(self, rows: range) -> Paired:
        found = self._held.get(rows.start)
        if found is None:
            found = self._table.paired(rows)
            if not any(v is not None for v in found.values()):
                self._held[rows.start] = found
        return found


def _rows(table: RunTable, rows: range) -> list[tuple[RunFacts, RunOutcome]]:
    """Engines' runs with their outcomes (an engine study's head-to-head reads them whole)."""
    return list(
        zip(
            table.runs(rows.start, rows.stop), table.outcomes_in(rows.start, rows.stop), strict=True
        )
    )


def folded_finals(records: FoldedDesign, folded: Folded) -> Finals:
    """:func:`abp_tui.analysis.results.watching.finals` of a design whose items were folded."""
    counted = [
        v
        for v in folded.verdicts.values()
        if v.run not in records.superseded
        and v.source != "unresolved"
        and v.result_state in (ResultState.MODEL_PASS, ResultState.MODEL_FAIL)
    ]
    # Only a design whose runs are scored has pass rates to watch: their conditions read then.
    wanted = {v.run for v in counted}
    condition_of = (
        {r.id: r.condition for r in records.runs.runs() if r.id in wanted} if wanted else {}
    )
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
    return Finals(records.design.stop_when, folded.wins, passes, frozenset(folded.compared))


__all__ = ["Folded", "FoldedDesign", "ItemFold", "folded_finals", "folded_results"]
