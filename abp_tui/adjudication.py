"""Disagreements between reviewers, their adjudication, and the final verdict of every run.

Original judgments are never changed: an adjudication is a separate, append-only record with a
mandatory note. Every final verdict names its source: ``adjudicated``, ``unanimous`` (two or more
reviewers, no disagreement), ``single review`` or ``unresolved`` (a disagreement not yet
adjudicated).
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal

import sqlite_utils

from abp_tui.errors import AbpError
from abp_tui.models import (
    DisagreementRules,
    Judgment,
    Model,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    Rubric,
)
from abp_tui.scoring import problems, result_state
from abp_tui.store import judging as sql

VerdictSource = Literal["adjudicated", "unanimous", "single review", "unresolved"]


@dataclass(frozen=True)
class ItemJudgment:
    """One reviewer's submitted judgment of an item, keyed by run pk."""

    reviewer: str
    item_pk: int
    judgment: Judgment
    placement: dict[str, int]
    """Position shown ("1", "2") -> run pk."""

    def preferred(self) -> str | None:
        """The preferred run pk (as text), "tie", "insufficient_evidence", or None."""
        choice = self.judgment.preference
        if choice is None:
            return None
        if choice in (PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2):
            position = "1" if choice == PreferenceChoice.RESPONSE_1 else "2"
            return str(self.placement[position])
        return choice.value


@dataclass
class Disagreement:
    item_pk: int
    code: str
    reviewers: list[str]
    reasons: list[str] = field(default_factory=list)
    adjudicated: bool = False


def find_disagreements(
    rules: DisagreementRules, rubric: Rubric, judgments: list[ItemJudgment]
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
    if rules.preference_conflicts:
        preferred = {p for j in judgments if (p := j.preferred()) and p.isdigit()}
        if len(preferred) > 1:
            reasons.append("preferences conflict")
    return list(dict.fromkeys(reasons))


def item_judgments(db: sqlite_utils.Database, design_pk: int) -> dict[int, list[ItemJudgment]]:
    out: dict[int, list[ItemJudgment]] = defaultdict(list)
    for row in sql.submitted_judgments(db, design_pk):
        out[row.item_pk].append(
            ItemJudgment(
                row.reviewer,
                row.item_pk,
                Judgment.model_validate(row.payload),
                {k: int(v) for k, v in row.placement.items()},
            )
        )
    return out


def _rules_and_rubric(
    db: sqlite_utils.Database, design_pk: int
) -> tuple[DisagreementRules, Rubric]:
    design = sql.design(db, design_pk)
    rules = DisagreementRules.model_validate(design.document.get("disagreement", {}))
    return rules, Rubric.model_validate(design.rubric)


def disagreements(db: sqlite_utils.Database, design_pk: int) -> list[Disagreement]:
    """Every item whose submitted judgments disagree, with whether it has been adjudicated."""
    rules, rubric = _rules_and_rubric(db, design_pk)
    codes = {i.pk: i.code for i in sql.items(db, design_pk)}
    adjudicated = {a.item_pk for a in sql.latest_adjudications(db, design_pk)}
    out = []
    for item_pk, js in sorted(item_judgments(db, design_pk).items()):
        reasons = find_disagreements(rules, rubric, js)
        if reasons:
            out.append(
                Disagreement(
                    item_pk,
                    codes[item_pk],
                    sorted(j.reviewer for j in js),
                    reasons,
                    item_pk in adjudicated,
                )
            )
    return out


class Verdict(Model):
    """The final verdict of one run in a design."""

    run_pk: int
    source: VerdictSource
    result_state: ResultState | None
    scores: dict[str, float]
    """Component scores: the adjudicated or single judgment's; the median when several."""
    fatal_hits: tuple[str, ...]
    judgments: int
    """How many reviewer judgments of the run stand behind it."""
    items: tuple[str, ...]
    """Blind codes of the items the run was judged in."""


def final_verdicts(db: sqlite_utils.Database, design_pk: int) -> list[Verdict]:
    """One verdict per judged run of the design, with its source."""
    rules, rubric = _rules_and_rubric(db, design_pk)
    items = {i.pk: i for i in sql.items(db, design_pk)}
    adjudications = {a.item_pk: a for a in sql.latest_adjudications(db, design_pk)}
    per_run: dict[int, list[ResponseJudgment]] = defaultdict(list)
    adjudicated_run: dict[int, ResponseJudgment] = {}
    unresolved_runs: set[int] = set()
    codes: dict[int, set[str]] = defaultdict(set)
    for item_pk, js in item_judgments(db, design_pk).items():
        for j in js:
            for run, response in j.judgment.responses.items():
                per_run[int(run)].append(response)
                codes[int(run)].add(items[item_pk].code)
        adjudication = adjudications.get(item_pk)
        if adjudication is not None:
            final = Judgment.model_validate(adjudication.payload)
            for run, response in final.responses.items():
                adjudicated_run[int(run)] = response
        elif find_disagreements(rules, rubric, js):
            unresolved_runs.update(int(r) for j in js for r in j.judgment.responses)
    verdicts = []
    for run_pk in sorted(per_run):
        responses = per_run[run_pk]
        source: VerdictSource
        if run_pk in adjudicated_run:
            chosen = adjudicated_run[run_pk]
            source, state = "adjudicated", result_state(rubric, chosen)
            scores = {k: float(v) for k, v in chosen.scores.items()}
            fatal = chosen.fatal_hits
        else:
            states = {result_state(rubric, r) for r in responses}
            if len(responses) == 1:
                source = "single review"
            elif run_pk in unresolved_runs or len(states) > 1:
                source = "unresolved"
            else:
                source = "unanimous"
            state = states.pop() if len(states) == 1 else None
            dims = sorted({d for r in responses for d in r.scores})
            scores = {
                d: float(statistics.median(r.scores[d] for r in responses if d in r.scores))
                for d in dims
            }
            fatal = tuple(sorted({h for r in responses for h in r.fatal_hits}))
        verdicts.append(
            Verdict(
                run_pk=run_pk,
                source=source,
                result_state=state,
                scores=scores,
                fatal_hits=tuple(fatal),
                judgments=len(responses),
                items=tuple(sorted(codes[run_pk])),
            )
        )
    return verdicts


def adjudicate(
    db: sqlite_utils.Database,
    design_pk: int,
    code: str,
    adjudicator: str,
    final: Judgment,
    placement: dict[str, int],
    note: str,
    show_names: bool = False,
) -> int:
    """Record the final judgment of a disputed item (keyed by position in ``placement``)."""
    if not note.strip():
        raise AbpError("an adjudication needs a note saying why")
    item = sql.item_by_code(db, design_pk, code)
    found = sql.assignment(db, item.pk, adjudicator)
    if found is not None and not sql.has_submitted(db, item.pk, adjudicator):
        raise sql.BlindingError(
            f"{adjudicator} is a reviewer of {code} and has not submitted: they cannot "
            "adjudicate it (they would see the other judgments first)"
        )
    expected = {item.run_a_pk, item.run_b_pk} - {None}
    if set(placement.values()) != expected:
        raise AbpError(f"the placement does not match the runs of {code}")
    responses = {}
    for key, response in final.responses.items():
        if key not in placement:
            raise AbpError(f"unknown response {key!r}")
        responses[str(placement[key])] = response
    by_run = final.model_copy(update={"responses": responses})
    _rules, rubric = _rules_and_rubric(db, design_pk)
    missing = problems(
        rubric, by_run, [str(placement[k]) for k in sorted(placement)], item.run_b_pk is not None
    )
    if missing:
        raise AbpError("the final judgment is incomplete: " + "; ".join(missing))
    return sql.append_adjudication(
        db, item.pk, adjudicator, by_run.model_dump_json(), json.dumps(placement), note, show_names
    )
