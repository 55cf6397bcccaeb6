"""Seed 000's rerun rules: a run whose record says INFRA_ERROR or PROVIDER_BLOCK is fixed and run
again, never counted in the model-quality denominator.

Three rules follow, each applied the same way to the database's records and to a bundle's:

- **Planning.** Such a run is not put in front of a reviewer unless the design asks for it
  (``show_record_failures``); its rerun, a run of the same task, condition and trial, takes its
  place in the plan.
- **The record's state stands.** Scores alone never turn such a run into MODEL_PASS or
  MODEL_FAIL: its outcome stays the record's state unless every judgment behind its verdict (the
  adjudication's, else each reviewer's latest) reclassifies it explicitly, with a reason
  (``reclassified``, or an override to another state).
- **Every reclassification is listed**, with who made it and why, in results and in the bundle,
  on development material too (each says which material its task is).

Nothing here reads the database or files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Final

from abp_tui.analysis.blinding import PlanError, PlanRun, plan_items
from abp_tui.analysis.material import Material, task_material
from abp_tui.analysis.records import in_scope
from abp_tui.analysis.verdicts import Decisions, decide, outcome
from abp_tui.models import (
    DesignRecords,
    ResponseJudgment,
    ResultState,
    RunFacts,
    RunOutcome,
    StudyDesign,
    Verdict,
)
from abp_tui.models.base import Model
from abp_tui.text.natural import natural_key

RECORD_FAILURES: Final = frozenset({ResultState.INFRA_ERROR, ResultState.PROVIDER_BLOCK})
"""The states a run's record may carry that seed 000 says to fix and rerun."""


def is_record_failure(state: ResultState | str | None) -> bool:
    return state is not None and ResultState(state) in RECORD_FAILURES


def held_from_plan(design: StudyDesign, record_states: Mapping[str, str | None]) -> set[str]:
    """Ids of the runs a design does not put in front of reviewers: those whose record carries
    INFRA_ERROR or PROVIDER_BLOCK, unless the design shows them (``show_record_failures``)."""
    if design.show_record_failures:
        return set()
    return {run for run, state in record_states.items() if is_record_failure(state)}


class HeldRun(Model):
    """A run a design's plan holds back from reviewers: its record says INFRA_ERROR or
    PROVIDER_BLOCK (what ``abp-tui study create`` reports)."""

    run: str
    task: str
    condition: str
    trial: int
    state: ResultState
    """What its record says."""
    rerun: str | None = None
    """Its rerun (a run of the same task, condition and trial) that the plan holds in its
    place; None while no such rerun is planned (none imported yet)."""


def held_back(
    design: StudyDesign, runs: Sequence[RunFacts], planned: Iterable[PlanRun] = ()
) -> list[HeldRun]:
    """The runs of the design's tasks and conditions it holds back from reviewers (none when it
    shows record failures), each with its rerun when ``planned`` (the runs of the plan's items)
    holds one (of several, the first in natural order of their ids), in the runs' order.
    ``runs`` need only hold the study's runs whose record says a state (those it may hold)."""
    held = held_from_plan(design, {r.id: r.origin_status for r in runs})
    reruns: dict[tuple[str, str, int], str] = {}
    for p in planned:
        if p.id not in held:
            key = (p.task_id, p.condition_id, p.trial)
            found = reruns.get(key)
            if found is None or natural_key(p.id) < natural_key(found):
                reruns[key] = p.id
    return [
        HeldRun(
            run=r.id,
            task=r.task,
            condition=r.condition,
            trial=r.trial,
            state=ResultState(r.origin_status),
            rerun=reruns.get((r.task, r.condition, r.trial)),
        )
        for r in runs
        if r.id in held and r.origin_status is not None and in_scope(design, r.task, r.condition)
    ]


def held_back_note(held: Sequence[HeldRun]) -> str | None:
    """What creating a design says of the runs it holds back (None: none), naming each briefly."""
    if not held:
        return None
    named = [
        f"{h.task} under {h.condition} trial {h.trial} {h.state.value}, "
        + (f"rerun {h.rerun} planned" if h.rerun else "no rerun imported yet")
        for h in held[:12]
    ]
    more = f"; and {len(held) - 12} more" if len(held) > 12 else ""
    runs = "run" if len(held) == 1 else "runs"
    return (
        f"held back {len(held)} {runs} whose record says INFRA_ERROR or PROVIDER_BLOCK "
        f"({'; '.join(named)}{more}): reruns are planned in their place once imported; set "
        "show_record_failures = true to show them to reviewers"
    )


def explicit(response: ResponseJudgment) -> bool:
    """Whether a judgment decides a record failure's state itself: it reclassifies the run
    (the scores decide) or overrides its state, either with a reason."""
    return bool(
        (response.reclassified or response.state_override is not None)
        and response.override_reason.strip()
    )


class Reclassification(Model):
    """A run whose record's INFRA_ERROR / PROVIDER_BLOCK was set aside by its reviewers."""

    run: str
    task: str
    condition: str
    trial: int
    record_state: ResultState
    """What the run's record says."""
    state: ResultState | None
    """The state its verdict gives instead (None while its reviewers disagree)."""
    source: str
    """``adjudicated`` or ``reviewed``: whose judgments reclassify it."""
    by: tuple[str, ...]
    """The adjudicator, or the reviewers."""
    items: tuple[str, ...]
    """Blind codes of the items it was judged in."""
    reasons: tuple[str, ...]
    """Each judgment's reason, in the order of ``by``."""
    material: Material = "benchmark"
    """Which material its task is (seed 002): a development task's is listed too, so marked."""


def _deciding(
    decisions: Decisions, run: str
) -> tuple[str, list[tuple[str, str, ResponseJudgment]]]:
    """The judgments behind a run's verdict: (source, [(who, item, response)])."""
    adjudication = decisions.adjudicated_by.get(run)
    if adjudication is not None:
        response = adjudication.judgment.responses[run]
        return "adjudicated", [(adjudication.adjudicator, adjudication.item, response)]
    found = [
        (j.reviewer, code, j.judgment.responses[run])
        for code, js in decisions.latest.items()
        for j in js
        if run in j.judgment.responses
    ]
    return "reviewed", found


def reclassifications(
    runs: Iterable[RunFacts],
    decisions: Decisions,
    superseded: Iterable[str] = (),
    design: StudyDesign | None = None,
) -> list[Reclassification]:
    """Every run whose record failure its verdict sets aside, in the runs' order, each with
    its task's material under ``design`` (benchmark without one)."""
    old = set(superseded)
    # Only the runs whose record failed can be reclassified: no table of every run's verdict.
    failed = [run for run in runs if is_record_failure(run.origin_status)]
    named = {run.id for run in failed}
    by_run = {v.run: v for v in decisions.verdicts if v.run in named and v.run not in old}
    out = []
    for run in failed:
        verdict = by_run.get(run.id)
        if verdict is None:
            continue
        source, judged = _deciding(decisions, run.id)
        if not judged or not all(explicit(r) for _who, _item, r in judged):
            continue
        assert run.origin_status is not None
        if verdict.result_state == run.origin_status:
            continue  # confirmed, not reclassified
        out.append(
            Reclassification(
                run=run.id,
                task=run.task,
                condition=run.condition,
                trial=run.trial,
                record_state=run.origin_status,
                state=verdict.result_state,
                source=source,
                by=tuple(who for who, _item, _r in judged),
                items=tuple(sorted({item for _who, item, _r in judged})),
                reasons=tuple(r.override_reason.strip() for _who, _item, r in judged),
                material="benchmark" if design is None else task_material(design, run.task),
            )
        )
    return out


def listed_reclassifications(
    records: DesignRecords, decisions: Decisions | None = None
) -> list[Reclassification]:
    """Every reclassification of a design's records, development material's included: seed 000
    lists all of them, though a benchmark figure leaves development tasks out. ``decisions``:
    those of these same (whole) records, when the caller has them."""
    found = decide(records) if decisions is None else decisions
    return reclassifications(records.runs, found, records.superseded, records.design)


def held_outcomes(records: DesignRecords, decisions: Decisions) -> list[RunOutcome]:
    """The outcome of each run (:func:`abp_tui.analysis.verdicts.outcomes`), with the record's
    INFRA_ERROR / PROVIDER_BLOCK standing for every run not explicitly reclassified: the
    reviewers' own verdict is kept beside it (``human_state``)."""
    reclassified = {r.run for r in reclassifications(records.runs, decisions, records.superseded)}
    return taken_outcomes(records, verdicts_by_run(records, decisions), reclassified)


def verdicts_by_run(records: DesignRecords, decisions: Decisions) -> dict[str, Verdict]:
    """Run id -> its verdict, for the runs whose verdict counts (given on their current
    version: :func:`abp_tui.analysis.verdicts.outcomes`)."""
    old = records.superseded
    return {v.run: v for v in decisions.verdicts if v.run not in old}


def taken_outcomes(
    records: DesignRecords, by_run: dict[str, Verdict], reclassified: Collection[str]
) -> list[RunOutcome]:
    """:func:`held_outcomes` of ``by_run`` (:func:`verdicts_by_run`) and the ids of the runs
    reclassified, each run's verdict taken out of ``by_run`` as its outcome is made: a large
    study's verdicts are let go one at a time when nothing else holds them (but those of the
    ids more than one of the records' runs has, which each of them reads)."""
    counted = Counter(run.id for run in records.runs)
    repeated = {run for run, n in counted.items() if n > 1}
    del counted
    out = []
    for run in records.runs:
        verdict = by_run.get(run.id) if run.id in repeated else by_run.pop(run.id, None)
        found = outcome(run, verdict)
        held = is_record_failure(run.origin_status) and run.id not in reclassified
        out.append(_held(run, found) if held else found)
    return out


def _held(run: RunFacts, found: RunOutcome) -> RunOutcome:
    if found.state == run.origin_status:
        return found
    return found.model_copy(update={"state": run.origin_status, "source": "record"})


def planned_runs(
    design: StudyDesign, runs: Sequence[PlanRun], held: Iterable[str]
) -> list[PlanRun]:
    """The runs a design's plan is made of: every run but those held from reviewers."""
    out = set(held)
    return [r for r in runs if r.id not in out]


def missing_from_plan(
    design: StudyDesign, runs: Sequence[RunFacts], planned: Iterable[str]
) -> list[str]:
    """Ids of the runs the design's plan would put in front of reviewers today that no item
    holds: a rerun (or any run) imported after the design was planned. Giving the design file
    to ``abp-tui study create`` again plans them (step 1 of the plan needs no secret)."""
    held = held_from_plan(design, {r.id: r.origin_status for r in runs})
    in_items = set(planned)
    if all(r.id in in_items or r.id in held for r in runs):
        return []  # the plan is made of these runs: every one of them is in an item already
    candidates = [PlanRun(0, r.id, r.task, r.condition, r.trial) for r in runs if r.id not in held]
    try:
        items = plan_items(design, candidates, None)
    except PlanError:
        return []
    wanted = {i.run_a.id for i in items} | {i.run_b.id for i in items if i.run_b is not None}
    return [r.id for r in runs if r.id in wanted and r.id not in in_items]
