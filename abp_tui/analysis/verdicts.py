"""Disagreements, final verdicts and the outcome that counts for each run.

Original judgments are never changed: an adjudication is a separate record. Every final verdict
names its source: ``adjudicated``, ``unanimous`` (two or more reviewers, no disagreement),
``single review`` or ``unresolved`` (a disagreement not yet adjudicated). Every run in scope gets
one outcome: a human final verdict when there is one; otherwise an automated verification outcome
(ABP or Arena: passed, failed, timeout; an engine error is INFRA_ERROR, excluded, not a loss);
otherwise the state its record carries (PROVIDER_BLOCK, INFRA_ERROR); otherwise it is unjudged.
A human verdict supersedes an automated one and both are kept.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from abp_tui.analysis.item_preferences import item_preferences
from abp_tui.analysis.records import (
    in_plan_order,
    latest_adjudications,
    latest_submitted,
    preferred,
    preferred_run,
)
from abp_tui.analysis.scoring import result_state
from abp_tui.models import (
    AdjudicationRevision,
    DesignRecords,
    DisagreementRules,
    ItemPreference,
    JudgmentRevision,
    OutcomeSource,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    Rubric,
    RunFacts,
    RunOutcome,
    Verdict,
    VerdictSource,
)
from abp_tui.models.base import trusted

__all__ = [
    "AUTOMATED_STATES",
    "Decisions",
    "Disagreement",
    "FoldedVerdict",
    "OutcomeSource",
    "RunOutcome",
    "Verdict",
    "VerdictSource",
    "adjudicated_verdict",
    "automated_state",
    "decide",
    "find_disagreements",
    "outcome",
    "outcomes",
    "reviewed_verdict",
]

AUTOMATED_STATES: Final[dict[str, ResultState]] = {
    "passed": ResultState.MODEL_PASS,
    "resolved": ResultState.MODEL_PASS,
    "failed": ResultState.MODEL_FAIL,
    "unresolved": ResultState.MODEL_FAIL,
    "timeout": ResultState.MODEL_FAIL,
    "agent-error": ResultState.INFRA_ERROR,
}
"""How automated verification outcomes (ABP, Arena, Inspect scorers) map to result states."""


def find_disagreements(
    rules: DisagreementRules, rubric: Rubric, judgments: list[JudgmentRevision]
) -> list[str]:
    """Why the judgments of one item disagree under the design's rules (empty: they agree)."""
    reasons: list[str] = []
    if rules.grader_dispute and any(
        r.state_override == ResultState.GRADER_DISPUTE
        for j in judgments
        for r in j.judgment.responses.values()
    ):
        reasons.append("a reviewer marked GRADER_DISPUTE")
    if len(judgments) < 2:
        return reasons
    runs = sorted({k for j in judgments for k in j.judgment.responses})
    for run in runs:
        responses = [j.judgment.responses.get(run, ResponseJudgment()) for j in judgments]
        if rules.result_state_differs:
            states = {result_state(rubric, r) for r in responses}
            if len(states) > 1:
                shown = " vs ".join(sorted(str(s) for s in states))
                reasons.append(f"result states differ ({shown})")
        if rules.fatal_flag_differs:
            hits = {tuple(sorted(r.fatal_hits)) for r in responses}
            if len(hits) > 1:
                reasons.append("fatal flags differ")
        if rules.dimension_differs_by is not None:
            for dim in rubric.dimensions:
                scores = [r.scores[dim.id] for r in responses if dim.id in r.scores]
                if len(scores) >= 2 and max(scores) - min(scores) >= rules.dimension_differs_by:
                    reasons.append(f"{dim.name} differs by {max(scores) - min(scores)}")
    decisive = {r for j in judgments if (r := preferred_run(j)) is not None}
    if rules.preference_conflicts and len(decisive) > 1:
        reasons.append("preferences conflict")
    if (
        rules.tie_conflicts_with_preference
        and decisive
        and any(preferred(j) == PreferenceChoice.TIE.value for j in judgments)
    ):
        reasons.append("a tie against a preference")
    return list(dict.fromkeys(reasons))


@dataclass(slots=True)
class Disagreement:
    """An item whose reviewers' latest submitted judgments disagree under the design's rules."""

    code: str
    """The item's blind code."""
    reviewers: list[str]
    reasons: list[str] = field(default_factory=list)
    adjudicated: bool = False


@dataclass(frozen=True)
class Decisions:
    """The human side of a design: what counts, where reviewers disagree, the final verdicts."""

    latest: dict[str, list[JudgmentRevision]]
    """Item code -> each reviewer's latest submitted judgment, items in plan order."""
    adjudications: dict[str, AdjudicationRevision]
    """Item code -> its latest adjudication."""
    disagreements: list[Disagreement]
    """In plan order."""
    verdicts: list[Verdict]
    """One per judged run, by run id."""
    adjudicated_by: dict[str, AdjudicationRevision]
    """Run id -> the adjudication its verdict comes from."""
    preferences: list[ItemPreference] = field(default_factory=list)
    """The final preference of every pair somebody stated one of, in plan order: a preference
    belongs to its pair (:mod:`abp_tui.analysis.item_preferences`)."""


def decide(records: DesignRecords) -> Decisions:
    """Disagreements and the final verdict of every judged run, with its source."""
    rubric, rules = records.rubric, records.rules
    # In plan order: a run judged in several items takes the adjudication of the last one.
    latest = in_plan_order(records.items, latest_submitted(records.judgments))
    adjudications = latest_adjudications(records.adjudications)
    per_run: dict[str, list[ResponseJudgment]] = defaultdict(list)
    judged_in: dict[str, set[str]] = defaultdict(set)
    adjudicated_by: dict[str, AdjudicationRevision] = {}
    unresolved: set[str] = set()
    found: list[Disagreement] = []
    # A large design's disagreements name a few sets of reviewers for a few reasons: each list
    # held once (nobody changes them).
    lists: dict[tuple[str, ...], list[str]] = {}
    for code, js in latest.items():
        for j in js:
            for run, response in j.judgment.responses.items():
                per_run[run].append(response)
                judged_in[run].add(code)
        reasons = find_disagreements(rules, rubric, js)
        adjudication = adjudications.get(code)
        if reasons:
            reviewers = sorted(j.reviewer for j in js)
            reviewers = lists.setdefault(tuple(reviewers), reviewers)
            reasons = lists.setdefault(tuple(reasons), reasons)
            found.append(Disagreement(code, reviewers, reasons, adjudication is not None))
        if adjudication is not None:
            for run in adjudication.judgment.responses:
                adjudicated_by[run] = adjudication
        elif reasons:
            unresolved.update(run for j in js for run in j.judgment.responses)
    open_codes = {d.code for d in found if not d.adjudicated}
    preferences = item_preferences(records.items, latest, adjudications, open_codes)
    verdicts = []
    for run in sorted(per_run):
        adjudicated = adjudicated_by.get(run)
        items = tuple(sorted(judged_in[run]))
        if adjudicated is not None:
            chosen = adjudicated.judgment.responses[run]
            verdicts.append(_adjudicated(rubric, run, chosen, len(per_run[run]), items))
        else:
            verdicts.append(_reviewed(rubric, run, per_run[run], run in unresolved, items))
    verdicts.extend(_preferred_only(preferences, set(per_run)))
    verdicts.sort(key=lambda v: v.run)
    judged = {run: a for run, a in adjudicated_by.items() if run in per_run}
    return Decisions(latest, adjudications, found, verdicts, judged, preferences)


def _preferred_only(preferences: list[ItemPreference], scored: set[str]) -> list[Verdict]:
    """A verdict for each run judged by preference alone (none of its judgments scored it):
    no state, no scores; its source is its pairs' final preferences' (unresolved when one of
    them is, else adjudicated when one is, else single review when all are, else unanimous)."""
    of_run: dict[str, list[ItemPreference]] = defaultdict(list)
    for p in preferences:
        for run in p.runs:
            if run not in scored:
                of_run[run].append(p)
    out = []
    alike: dict[tuple[str, ...], tuple[str, ...]] = {}  # the runs of a pair: one tuple of it
    for run, found in of_run.items():
        items = tuple(sorted(p.item for p in found))
        sources = {p.source for p in found}
        source: VerdictSource
        if "unresolved" in sources:
            source = "unresolved"
        elif "adjudicated" in sources:
            source = "adjudicated"
        elif sources == {"single review"}:
            source = "single review"
        else:
            source = "unanimous"
        out.append(
            trusted(
                Verdict,
                run=run,
                source=source,
                result_state=None,
                scores=_NO_SCORES,
                fatal_hits=(),
                judgments=sum(len(p.reviews) for p in found),
                items=alike.setdefault(items, items),
                preference_only=True,
            )
        )
    return out


class FoldedVerdict(NamedTuple):
    """A run's final human verdict as :class:`~abp_tui.models.Verdict` holds it (the same
    fields, by the same names), as a tuple: what a large design's results hold for each judged
    run (:mod:`abp_tui.analysis.results.folding`)."""

    run: str
    source: VerdictSource
    result_state: ResultState | None
    scores: dict[str, float]
    fatal_hits: tuple[str, ...]
    judgments: int
    items: tuple[str, ...]
    preference_only: bool = False


def adjudicated_verdict(
    rubric: Rubric, run: str, chosen: ResponseJudgment, judgments: int, items: tuple[str, ...]
) -> FoldedVerdict:
    """The verdict of a run its item's adjudication decides."""
    return FoldedVerdict(
        run,
        "adjudicated",
        result_state(rubric, chosen),
        {k: float(v) for k, v in chosen.scores.items()},
        tuple(chosen.fatal_hits),
        judgments,
        items,
    )


def _adjudicated(
    rubric: Rubric, run: str, chosen: ResponseJudgment, judgments: int, items: tuple[str, ...]
) -> Verdict:
    return Verdict(**adjudicated_verdict(rubric, run, chosen, judgments, items)._asdict())


def reviewed_verdict(
    rubric: Rubric,
    run: str,
    responses: list[ResponseJudgment],
    disputed: bool,
    items: tuple[str, ...],
) -> FoldedVerdict:
    """The verdict of the reviewers' own judgments: median scores, every fatal hit."""
    states = {result_state(rubric, r) for r in responses}
    source: VerdictSource
    if len(responses) == 1:
        source = "single review"
    elif disputed or len(states) > 1:
        source = "unresolved"
    else:
        source = "unanimous"
    dims = sorted({d for r in responses for d in r.scores})
    return FoldedVerdict(
        run,
        source,
        states.pop() if len(states) == 1 else None,
        {
            d: float(statistics.median(r.scores[d] for r in responses if d in r.scores))
            for d in dims
        },
        tuple(sorted({h for r in responses for h in r.fatal_hits})),
        len(responses),
        items,
    )


def _reviewed(
    rubric: Rubric,
    run: str,
    responses: list[ResponseJudgment],
    disputed: bool,
    items: tuple[str, ...],
) -> Verdict:
    return Verdict(**reviewed_verdict(rubric, run, responses, disputed, items)._asdict())


def automated_state(outcome: str | None) -> ResultState | None:
    """The result state an automated verification outcome stands for (None: no such outcome)."""
    return AUTOMATED_STATES.get((outcome or "").lower())


_NO_SCORES: Final[dict[str, float]] = {}
"""The scores of every run no person judged: one empty mapping, never changed (the outcomes
are frozen), rather than one for each of a large study's unjudged runs."""


def outcome(run: RunFacts, verdict: Verdict | FoldedVerdict | None) -> RunOutcome:
    """The outcome that counts for a run: a person's final verdict, else automated verification,
    else the state its record carries, else unjudged. A run judged by preference alone has no
    state of its own: automated verification or its record's state stands, else its source is
    its preference verdict's, with no state (judged, never "unjudged"). A human verdict
    supersedes an automated one; both are kept."""
    automated = automated_state(run.automated_outcome)
    source: OutcomeSource
    state: ResultState | None
    if verdict is not None and not verdict.preference_only:
        state, source = verdict.result_state, verdict.source
    elif automated is not None:
        state, source = automated, "automated"
    elif run.origin_status is not None:
        state, source = run.origin_status, "record"
    elif verdict is not None:  # judged by preference alone: judged, with no state
        state, source = None, verdict.source
    else:
        state, source = None, "unjudged"
    return trusted(
        RunOutcome,
        run_id=run.id,
        task_id=run.task,
        condition_id=run.condition,
        trial=run.trial,
        state=state,
        source=source,
        human_state=verdict.result_state if verdict else None,
        automated_state=automated,
        fatal=bool(verdict.fatal_hits) if verdict else None,
        scores=(dict(verdict.scores) if verdict.scores else _NO_SCORES) if verdict else _NO_SCORES,
    )


def outcomes(
    runs: Iterable[RunFacts], verdicts: Iterable[Verdict], superseded: Collection[str] = ()
) -> list[RunOutcome]:
    """The outcome of each run, in the runs' order. A verdict on a run in ``superseded`` was
    given on an older version of its content and does not count for the current one."""
    by_run = {v.run: v for v in verdicts if v.run not in superseded}
    return [outcome(r, by_run.get(r.id)) for r in runs]
