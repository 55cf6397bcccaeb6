"""The AI judges of a study: the judge report against a human reference, and what a reviewer
may see of a judge.

The coordinator's report (:func:`judge_report`) measures every AI judge against the human
reference the user picks and the report names: ``final``, the final human verdicts of a design
(adjudicated, unanimous or single-review; unresolved items are left out with that reason), or
``labels``, the human labels imported with the study (the majority of the annotators when there
are several; each annotator on their own for the alt-test). The CLI's ``abp-tui judges`` and the
workstation's Judges screen both call it. A reviewer reaches a judge's verdicts only through
:func:`verdicts_for_reviewer`, which the store refuses before they submit (and always, unless
the design sets ``show_ai_after_submit``).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Literal

import sqlite_utils

from abp_tui.analysis.judge_units import Reference, majority, pair_key
from abp_tui.analysis.judges import RESAMPLES, JudgesReport, judges_report
from abp_tui.analysis.records import first_submitted, preferred
from abp_tui.analysis.verdicts import decide
from abp_tui.errors import AbpError
from abp_tui.models import PreferenceChoice, ResultState
from abp_tui.models.judges import TIE, JudgeVerdict
from abp_tui.services.designing import find_design_if_any, find_study
from abp_tui.stats.alt_test import DEFAULT_EPSILON
from abp_tui.store import connect, judging
from abp_tui.store import judges as sql
from abp_tui.store.queries import run_facts

ReferenceChoice = Literal["final", "labels"]
REFERENCES: tuple[ReferenceChoice, ...] = ("final", "labels")
_LABELS = {
    PreferenceChoice.RESPONSE_1.value: 0,
    PreferenceChoice.RESPONSE_2.value: 1,
}


def judged_study(db: sqlite_utils.Database, study: str | None) -> str:
    """The study a judges command means: the one named, else the only one with judge verdicts,
    else the only study."""
    if study is not None:
        return study
    found = sql.judged_studies(db)
    return found[0] if len(found) == 1 else find_study(db, None)


def labels_reference(db: sqlite_utils.Database, study: str) -> Reference:
    """The human labels imported with the study, as the reference."""
    raters: dict[str, dict[tuple[str, str], str]] = defaultdict(dict)
    for _item, reviewer, choice, run_1, run_2 in sql.imported_labels(db, study):
        if choice == PreferenceChoice.TIE.value:
            pick = TIE
        elif choice in _LABELS:
            pick = (run_1, run_2)[_LABELS[choice]]
        else:
            continue  # insufficient evidence: no pick
        raters[reviewer][pair_key((run_1, run_2))] = pick
    pairs: dict[tuple[str, str], str] = {}
    reasons: dict[tuple[str, str], str] = {}
    every = {p for picks in raters.values() for p in picks}
    for pair in every:
        picks = [r[pair] for r in raters.values() if pair in r]
        chosen = majority(picks)
        if chosen is None:
            reasons[pair] = f"the {len(picks)} annotators split: no majority"
        else:
            pairs[pair] = chosen
    names = ", ".join(sorted(raters)) or "none"
    how = "the majority of their labels" if len(raters) > 1 else "its label"
    return Reference(
        name=f"labels imported with study {study} ({names}; {how})",
        kind="labels",
        pairs=pairs,
        pair_reasons=reasons,
        raters={k: dict(v) for k, v in raters.items()},
        conditions={f.id: f.condition for f in run_facts(db, study)},
    )


def final_reference(db: sqlite_utils.Database, design_pk: int) -> Reference:
    """The final human verdicts of a design, as the reference."""
    row = judging.design(db, design_pk)
    records = judging.records_of_design(db, design_pk)
    decisions = decide(records)
    open_items = {d.code for d in decisions.disagreements if not d.adjudicated}
    pairs: dict[tuple[str, str], str] = {}
    reasons: dict[tuple[str, str], str] = {}
    raters: dict[str, dict[tuple[str, str], str]] = defaultdict(dict)
    first = first_submitted(records.judgments)
    for item in records.items:
        if not item.is_pair:
            continue
        key = pair_key(item.runs)
        for j in first.get(item.code, ()):
            choice = preferred(j)
            if choice is not None and choice != PreferenceChoice.INSUFFICIENT.value:
                raters[j.reviewer][key] = choice
        adjudication = decisions.adjudications.get(item.code)
        if adjudication is not None:
            choice = adjudication.judgment.preference
            if choice in (PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2):
                pairs[key] = adjudication.placement[
                    "1" if choice == PreferenceChoice.RESPONSE_1 else "2"
                ]
            elif choice == PreferenceChoice.TIE:
                pairs[key] = TIE
            else:
                reasons[key] = "adjudicated without a preference"
            continue
        latest = decisions.latest.get(item.code, [])
        if not latest:
            continue
        if item.code in open_items:
            reasons[key] = "the reviewers disagree and nobody adjudicated (unresolved)"
            continue
        found = {preferred(j) for j in latest}
        found.discard(None)
        found.discard(PreferenceChoice.INSUFFICIENT.value)
        if len(found) == 1:
            pairs[key] = str(found.pop())
        else:
            reasons[key] = "the reviewers gave no single preference"
    runs: dict[str, bool] = {}
    run_reasons: dict[str, str] = {}
    scores: dict[str, float] = {}
    for verdict in decisions.verdicts:
        if verdict.run in records.superseded:
            continue
        if verdict.scores:
            scores[verdict.run] = sum(verdict.scores.values())
        if verdict.result_state in (ResultState.MODEL_PASS, ResultState.MODEL_FAIL):
            runs[verdict.run] = verdict.result_state == ResultState.MODEL_PASS
        elif verdict.source == "unresolved":
            run_reasons[verdict.run] = "the reviewers disagree and nobody adjudicated (unresolved)"
        else:
            state = verdict.result_state.value if verdict.result_state else "none"
            run_reasons[verdict.run] = f"people's state is {state}, neither pass nor fail"
    return Reference(
        name=f"final human verdicts of design {row.name} v{row.version_no}",
        kind="final",
        pairs=pairs,
        pair_reasons=reasons,
        raters={k: dict(v) for k, v in raters.items()},
        runs=runs,
        run_reasons=run_reasons,
        scores=scores,
        conditions={f.id: f.condition for f in records.runs},
    )


def reference_for(
    db: sqlite_utils.Database,
    study: str,
    reference: ReferenceChoice | None,
    design: str | None = None,
) -> Reference:
    """The reference named (default: a design's final verdicts when the study has a design,
    else its imported labels)."""
    if reference is not None and reference not in REFERENCES:
        raise AbpError(f"--reference {reference}: expected one of {', '.join(REFERENCES)}")
    found = find_design_if_any(db, study, design)
    if reference == "final" or (reference is None and found is not None):
        if found is None:
            raise AbpError(
                f"study {study!r} has no study design, so no final human verdicts: "
                "use --reference labels, or create a design and judge it"
            )
        return final_reference(db, found.pk)
    return labels_reference(db, study)


def judge_report(
    db: sqlite_utils.Database,
    study: str | None = None,
    *,
    reference: ReferenceChoice | None = None,
    design: str | None = None,
    confidence: float = 0.95,
    seed: int = 0,
    resamples: int = RESAMPLES,
    epsilon: float = DEFAULT_EPSILON,
) -> JudgesReport:
    """Every AI judge of a study against the chosen human reference."""
    if not 0 < confidence < 1:
        raise AbpError(f"--confidence: expected a level strictly between 0 and 1, got {confidence}")
    if not 0 <= epsilon < 1:
        raise AbpError(f"--epsilon: expected a margin from 0 up to 1 (e.g. 0.2), got {epsilon}")
    if resamples < 0:
        raise AbpError(f"--resamples: expected a count of 0 or more, got {resamples}")
    study_id = judged_study(db, study)
    rows = sql.verdict_rows(db, study_id)
    if not rows:
        raise AbpError(
            f"study {study_id!r} has no AI judge verdicts: import a judge's verdicts (FastChat "
            "model_judgment, LLMBar evaluators, Inspect model-graded scores, native judge_verdict "
            "lines)"
        )
    return judges_report(
        study_id,
        sql.study_judges(db, study_id),
        rows,
        reference_for(db, study_id, reference, design),
        confidence=confidence,
        seed=seed,
        resamples=resamples,
        epsilon=epsilon,
    )


def read_judge_report(db_path: Path, study: str | None) -> JudgesReport:
    """The judge report of a study for the workstation (its own connection: a worker's)."""
    db = connect(db_path)
    try:
        return judge_report(db, study)
    finally:
        db.close()


def verdicts_for_reviewer(
    db: sqlite_utils.Database, item_pk: int, reviewer: str
) -> list[JudgeVerdict]:
    """The AI judges' verdicts on an item, for a reviewer who has submitted their own judgment
    of it, when the design shows them (BlindingError otherwise)."""
    return [verdict for verdict, _current in sql.item_verdicts(db, item_pk, reviewer)]


def verdicts_for_code(
    db: sqlite_utils.Database, design_pk: int, code: str, reviewer: str
) -> list[JudgeVerdict]:
    """:func:`verdicts_for_reviewer` for an item named by its blind code."""
    return verdicts_for_reviewer(db, judging.item_by_code(db, design_pk, code).pk, reviewer)


__all__ = [
    "REFERENCES",
    "ReferenceChoice",
    "final_reference",
    "judge_report",
    "judged_study",
    "labels_reference",
    "read_judge_report",
    "reference_for",
    "verdicts_for_code",
    "verdicts_for_reviewer",
]
