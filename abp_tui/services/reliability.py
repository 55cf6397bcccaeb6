"""Reliability of a study's annotators beyond agreement: from the stored labels to the model.

Reads every annotator of a study (a design's reviewers, each label set imported with the study,
each AI judge in each presentation order) and fits Dawid-Skene or the one-coin model over them
(:mod:`abp_tui.analysis.reliability.model`). The CLI's ``abp-tui reliability`` and the coordinator's
agreement screen both call :func:`study_reliability`.

Who looks matters, as for the agreement (:mod:`abp_tui.services.agreement_report`): an item
that shares a run with one the viewer has not submitted a judgment of is left out of the model
(counted, never named), and a look that could precede an enrolment is recorded. While the study
is blind the priors and each item's posterior and label are withheld
(:func:`abp_tui.analysis.reliability.model.withhold`).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import sqlite_utils

from abp_tui.analysis.placement import placement_of, run_picked
from abp_tui.analysis.records import preferred
from abp_tui.analysis.reliability.model import (
    TIE,
    PairLabel,
    ReliabilityReport,
    Unit,
    pair_of,
    reliability,
    withhold,
)
from abp_tui.analysis.verdicts import decide
from abp_tui.errors import AbpError
from abp_tui.models import PreferenceChoice
from abp_tui.services.coordinator_identity import note_view
from abp_tui.services.designing import find_design_if_any, find_study
from abp_tui.stats.limits import MAX_SEED, resamples_problem
from abp_tui.stats.reliability import MODELS, ModelName
from abp_tui.store import connect, judging
from abp_tui.store.judges import imported_labels
from abp_tui.store.queries import unblinded
from abp_tui.store.reliability import judge_preferences, pending_run_ids
from abp_tui.text.hints import command, quoted

DEFAULT_RESAMPLES = 1000
INSUFFICIENT = PreferenceChoice.INSUFFICIENT.value


def _check(
    model: str, resamples: int, seed: int | None, confidence: float, viewer: str | None
) -> None:
    if viewer is not None and not viewer.strip():
        raise AbpError("reviewer: expected a name (who is looking), got an empty one")
    if model not in MODELS:
        raise AbpError(f"--model: expected one of {', '.join(MODELS)}, got {model!r}")
    if (problem := resamples_problem(resamples)) is not None:
        raise AbpError(f"--resamples: {problem}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise AbpError(f"--seed: expected a whole number from 0 to {MAX_SEED}, got {seed}")
    if not 0 < confidence < 1:
        raise AbpError(f"--confidence: expected a level strictly between 0 and 1, got {confidence}")


def _imported(db: sqlite_utils.Database, study: str) -> tuple[list[Unit], list[PairLabel]]:
    """The pairs the imported labels name (source item id, source orientation), and the labels."""
    units: dict[frozenset[str], Unit] = {}
    labels = []
    for item, reviewer, choice, run_1, run_2 in imported_labels(db, study):
        units.setdefault(pair_of((run_1, run_2)), Unit(item, (run_1, run_2)))
        if choice == PreferenceChoice.TIE.value:
            pick = TIE
        elif (run := run_picked(choice, placement_of((run_1, run_2)))) is not None:
            pick = run
        else:
            continue  # insufficient evidence: no label
        labels.append(PairLabel(reviewer, "imported labels", (run_1, run_2), pick))
    return list(units.values()), labels


def judge_name(judge: str, runs: tuple[str, str], shown_first: str | None, turn: int | None) -> str:
    """An AI judge as an annotator: one per presentation order (and turn) it judged in."""
    parts = [] if turn is None else [f"turn {turn}"]
    if shown_first is not None:
        parts.append("original order" if shown_first == runs[0] else "swapped order")
    return f"{judge} ({', '.join(parts)})" if parts else judge


def _judges(db: sqlite_utils.Database, study: str) -> tuple[list[Unit], list[PairLabel]]:
    units: dict[frozenset[str], Unit] = {}
    labels = []
    for judge, run_a, run_b, shown, turn, pick in judge_preferences(db, study):
        runs = (run_a, run_b)
        units.setdefault(pair_of(runs), Unit(f"{run_a} vs {run_b}", runs))
        chosen = TIE if pick == TIE else runs[0 if pick == "a" else 1]
        labels.append(PairLabel(judge_name(judge, runs, shown, turn), "AI judge", runs, chosen))
    return list(units.values()), labels


def _majority(labels: list[PairLabel]) -> dict[frozenset[str], str]:
    """Each pair's pick by more than half of the label sets that label it (each set's latest
    label of the pair)."""
    latest = {(label.annotator, pair_of(label.runs)): label.pick for label in labels}
    picks: dict[frozenset[str], list[str]] = defaultdict(list)
    for (_annotator, pair), pick in latest.items():
        picks[pair].append(pick)
    out = {}
    for pair, found in picks.items():
        for pick in set(found):
            if 2 * found.count(pick) > len(found):
                out[pair] = pick
    return out


def study_reliability(
    db: sqlite_utils.Database,
    study: str | None,
    design: str | None = None,
    *,
    model: ModelName = "dawid-skene",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    confidence: float = 0.95,
    viewer: str | None = None,
) -> ReliabilityReport:
    """Every annotator of the study in ``model``, compared with the final verdicts, as
    ``viewer`` may see it (module notes): the design named (else the study's latest; none:
    the imported labels, else the AI judges' pairs)."""
    _check(model, resamples, seed, confidence, viewer)
    study_id = find_study(db, study)
    row = find_design_if_any(db, study_id, design)
    return reliability_of(
        db,
        study_id,
        row.pk if row is not None else None,
        model=model,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        viewer=viewer,
    )


def reliability_of(
    db: sqlite_utils.Database,
    study_id: str,
    design_pk: int | None,
    *,
    model: ModelName = "dawid-skene",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    confidence: float = 0.95,
    viewer: str | None = None,
    figure: str = "reliability",
) -> ReliabilityReport:
    """:func:`study_reliability` of a stored study and design (None: without a design); the
    look is recorded as ``figure`` (the agreement screen's section: the agreement's look).
    The bootstrap is seeded by ``seed``, by default the design's seed (as the agreement and
    the publication bundle draw theirs), else 0."""
    _check(model, resamples, seed, confidence, viewer)
    row = judging.design(db, design_pk) if design_pk is not None else None
    if seed is None:
        seed = row.seed if row is not None else 0
    # Recorded before anything is computed: whoever sees these figures may not enrol later.
    note_view(db, study_id, row.pk if row is not None else None, viewer, figure)
    pending = pending_run_ids(db, study_id, viewer) if viewer is not None else frozenset()
    label_units, labels = _imported(db, study_id)
    judge_units, verdicts = _judges(db, study_id)
    everything = labels + verdicts
    if row is not None:
        records = judging.records_of_design(db, row.pk)
        decisions = decide(records)
        units = [Unit(i.code, (i.runs[0], i.runs[1])) for i in records.items if i.is_pair]
        runs_of = {i.code: i.runs for i in records.items}
        for code, judgments in decisions.latest.items():
            runs = runs_of.get(code, ())
            if len(runs) != 2:
                continue
            for j in judgments:
                pick = preferred(j)
                if pick is not None and pick != INSUFFICIENT:
                    everything.append(PairLabel(j.reviewer, "reviewer", (runs[0], runs[1]), pick))
        final = {
            pair_of(p.runs): p.preferred
            for p in decisions.preferences
            if p.preferred is not None and p.preferred != INSUFFICIENT
        }
        sides = ("a", "b")
        reference = f"the final verdicts of design {row.name} v{row.version_no}"
    elif label_units:
        units, final, sides = label_units, _majority(labels), ("1", "2")
        sets = sorted({label.annotator for label in labels})
        if not sets:  # every label says insufficient evidence: no pick to compare with
            reference = "none: no imported label picks a response"
        elif len(sets) == 1:
            reference = f"the labels imported with the study ({sets[0]})"
        else:
            reference = f"the majority of the labels imported with the study ({', '.join(sets)})"
    else:
        units, final, sides = judge_units, {}, ("a", "b")
        reference = "none: the study has no design and no imported labels"
    kept = [u for u in units if not pending.intersection(u.runs)]
    figures = reliability(
        kept,
        everything,
        final,
        sides=sides,
        reference=reference,
        model=model,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
    )
    if unblinded(db, study_id) is None:
        hint = f"`{command(f'unblind --study {quoted(study_id)} --yes', db)}`"
        figures = withhold(figures, hint)
    return ReliabilityReport(
        **dict(figures),
        study=study_id,
        design=row.name if row is not None else None,
        design_version=row.version_no if row is not None else None,
        viewer=viewer,
        items_held_back=len(units) - len(kept),
    )


def read_reliability(
    db_path: Path,
    study_id: str,
    design_pk: int | None,
    viewer: str,
    *,
    seed: int | None = None,
    resamples: int = DEFAULT_RESAMPLES,
) -> ReliabilityReport | str:
    """The workstation's reliability section (the agreement screen's): the report as ``viewer``
    may see it, or the one-line reason there is none (too few annotators or categories). The
    look is the agreement screen's, recorded as the agreement."""
    db = connect(db_path)
    try:
        return reliability_of(
            db,
            study_id,
            design_pk,
            seed=seed,
            resamples=resamples,
            viewer=viewer,
            figure="agreement",
        )
    except AbpError as exc:
        return str(exc)
    finally:
        db.close()
