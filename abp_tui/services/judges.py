"""The AI judges of a study: the judge report against a human reference, and what a reviewer may
see of a judge.

The coordinator's report (:func:`judge_report`) measures every AI judge against the human
reference the user picks and the report names: ``final``, the final human verdicts of a design
(adjudicated, unanimous or single-review; unresolved items are left out with that reason), or
``labels``, the human labels imported with the study (the majority of the annotators when there
are several; each annotator on their own for the alt-test). The CLI's ``abp-tui judges`` and the
workstation's Judges screen both call it, as ``viewer`` sees it: a reviewer with items still to
judge is refused the report outright (:func:`refuse_pending`), as the ranking refuses them: the
report names the runs and conditions the judges saw, and what the judges and the people decided
about them, which would unblind and anchor whoever has not judged yet. A reviewer reaches a
judge's verdicts on an item only through :func:`verdicts_for_reviewer`, which the store refuses
before they submit (and always, unless the design sets ``show_ai_after_submit``). While the
study is blind the report has no judge-assisted estimates: a win rate of one condition against
another, or a condition's pass rate, is a result by condition (the bundle, made after
unblinding, has them).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Literal

import sqlite_utils

from abp_tui.analysis.judges.reference import design_reference
from abp_tui.analysis.judges.report import RESAMPLES, judges_report
from abp_tui.analysis.judges.units import Reference, majority, pair_key
from abp_tui.analysis.judges.view import JudgesView, sides_shown, withhold_estimates
from abp_tui.analysis.placement import placement_of, run_picked
from abp_tui.analysis.verdicts import decide
from abp_tui.errors import AbpError
from abp_tui.models import PreferenceChoice
from abp_tui.models.judges import TIE, JudgeVerdict
from abp_tui.services.coordinator_identity import note_view, refuse_pending
from abp_tui.services.design_choices import design_seed
from abp_tui.services.designing import find_design_if_any, find_study
from abp_tui.services.judge_order import review_queue
from abp_tui.stats.alt_test import DEFAULT_EPSILON
from abp_tui.stats.limits import MAX_SEED, resamples_problem
from abp_tui.store import connect, judging
from abp_tui.store import judges as sql
from abp_tui.store.queries import run_facts, unblinded
from abp_tui.text.hints import command, quoted

ReferenceChoice = Literal["final", "labels"]
REFERENCES: tuple[ReferenceChoice, ...] = ("final", "labels")


def judged_study(db: sqlite_utils.Database, study: str | None) -> str:
    """The study a judges command means: the one named, else the only one with judge verdicts,
    else the only study."""
    if study is not None:
        return find_study(db, study)  # the one wording of an absent study, as every command
    found = sql.judged_studies(db)
    return found[0] if len(found) == 1 else find_study(db, None)


def labels_reference(db: sqlite_utils.Database, study: str) -> Reference:
    """The human labels imported with the study, as the reference."""
    raters: dict[str, dict[tuple[str, str], str]] = defaultdict(dict)
    for _item, reviewer, choice, run_1, run_2 in sql.imported_labels(db, study):
        # The label's own placement: the source showed run 1, then run 2.
        run = run_picked(choice, placement_of((run_1, run_2)))
        if choice == PreferenceChoice.TIE.value:
            pick = TIE
        elif run is not None:
            pick = run
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
    if raters:
        how = "the majority of their labels" if len(raters) > 1 else "its label"
        name = f"labels imported with study {study} ({', '.join(sorted(raters))}; {how})"
    else:
        name = (
            f"labels imported with study {study}: none (no human label came with the study; "
            "judge a design of it to compare the judges with people)"
        )
    return Reference(
        name=name,
        kind="labels",
        pairs=pairs,
        pair_reasons=reasons,
        raters={k: dict(v) for k, v in raters.items()},
        conditions={f.id: f.condition for f in run_facts(db, study)},
    )


def final_reference(db: sqlite_utils.Database, design_pk: int) -> Reference:
    """The final human verdicts of a design, as the reference, with the design's calibration
    sample when it draws one (:func:`abp_tui.analysis.judges.reference.design_calibration`): the
    only units whose verdicts correct the judge in the judge-assisted estimates."""
    row = judging.design(db, design_pk)
    records = judging.records_of_design(db, design_pk)
    return design_reference(records, decide(records), f"{row.name} v{row.version_no}")


def reference_for(
    db: sqlite_utils.Database,
    study: str,
    reference: ReferenceChoice | None,
    design: str | None = None,
) -> Reference:
    """The reference named. The default: a design's final verdicts once people have judged
    some of it, else the labels imported with the study when it has some, else the design's."""
    if reference is not None and reference not in REFERENCES:
        raise AbpError(f"--reference {reference}: expected one of {', '.join(REFERENCES)}")
    found = find_design_if_any(db, study, design)
    if reference == "labels":
        return labels_reference(db, study)
    if found is None:
        if reference == "final":
            raise AbpError(
                f"study {study!r} has no study design, so no final human verdicts: "
                "use --reference labels, or create a design and judge it"
            )
        return labels_reference(db, study)
    final = final_reference(db, found.pk)
    if reference is None and not (final.pairs or final.runs or final.scores):
        labels = labels_reference(db, study)
        if labels.pairs:
            return labels
    return final


def judge_report(
    db: sqlite_utils.Database,
    study: str | None = None,
    *,
    reference: ReferenceChoice | None = None,
    design: str | None = None,
    confidence: float = 0.95,
    seed: int | None = None,
    resamples: int = RESAMPLES,
    epsilon: float = DEFAULT_EPSILON,
    viewer: str | None = None,
) -> JudgesView:
    """Every AI judge of a study against the chosen human reference, as ``viewer`` sees it:
    refused while they have items to judge (:func:`refuse_pending`); their look is recorded
    (:mod:`abp_tui.services.coordinator_identity`). The bootstrap is seeded by ``seed``, by
    default the design's seed (the design named, else the study's latest; as the publication
    bundle draws it), else 0."""
    if viewer is not None and not viewer.strip():
        raise AbpError("reviewer: expected a name (who is looking), got an empty one")
    if not 0 < confidence < 1:
        raise AbpError(f"--confidence: expected a level strictly between 0 and 1, got {confidence}")
    if not 0 <= epsilon < 1:
        raise AbpError(f"--epsilon: expected a margin from 0 up to 1 (e.g. 0.2), got {epsilon}")
    if (problem := resamples_problem(resamples)) is not None:
        raise AbpError(f"--resamples: {problem}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise AbpError(f"--seed: expected a whole number from 0 to {MAX_SEED}, got {seed}")
    study_id = judged_study(db, study)
    if seed is None:
        seed = design_seed(db, study_id, design)
    if viewer is not None:
        shows = "the judge report shows the AI judges' verdicts and the people's decisions on them"
        refuse_pending(db, study_id, viewer, shows)
    table = sql.verdict_table(db, study_id)
    if not len(table):
        raise AbpError(
            f"study {study_id!r} has no AI judge verdicts: import a judge's verdicts (FastChat "
            "model_judgment, LLMBar evaluators, Inspect model-graded scores, native judge_verdict "
            "lines)"
        )
    found = reference_for(db, study_id, reference, design)
    # The reference is the people's judgments: whoever sees it may not enrol in the study later.
    note_view(db, study_id, None, viewer, "judges")
    report = judges_report(
        study_id,
        sql.study_judges(db, study_id),
        table,
        found,
        confidence=confidence,
        seed=seed,
        resamples=resamples,
        epsilon=epsilon,
    )
    withheld = None
    if unblinded(db, study_id) is None:
        report, taken = withhold_estimates(report)
        sides = sides_shown(report)  # taken out by whatever shows the report: plans read them
        parts = []
        if taken:
            parts.append(f"judge-assisted estimates by condition ({taken})")
        if sides:
            parts.append(f"confusion matrices against people ({sides}: they count picks by side)")
        if parts:
            unblind = command(f"unblind --study {quoted(study_id)} --yes", db)
            said = " and ".join(parts)
            said = said[0].upper() + said[1:]
            withheld = f"{said} withheld until `{unblind}`: the study is blind."
    return JudgesView(
        **dict(report),
        viewer=viewer,
        estimates_withheld=withheld,
        sides_withheld=unblinded(db, study_id) is None,
    )


def read_judge_report(
    db_path: Path,
    study: str | None,
    viewer: str | None = None,
    *,
    reference: ReferenceChoice | None = None,
    design: str | None = None,
) -> JudgesView:
    """The judge report of a study for the workstation (its own connection: a worker's),
    against the reference and design the user picked (None: :func:`reference_for`'s default)."""
    db = connect(db_path)
    try:
        return judge_report(db, study, reference=reference, design=design, viewer=viewer)
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
    item = judging.item_by_code(db, design_pk, code, placed=False)
    return verdicts_for_reviewer(db, item.pk, reviewer)


__all__ = [
    "REFERENCES",
    "ReferenceChoice",
    "final_reference",
    "judge_report",
    "judged_study",
    "labels_reference",
    "read_judge_report",
    "reference_for",
    "review_queue",
    "verdicts_for_code",
    "verdicts_for_reviewer",
]
