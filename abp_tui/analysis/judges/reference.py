"""The final human verdicts of a design as the judge report's reference: pure, the same from the
database's records and from a publication bundle's.

A pair's reference is its adjudication's preference, else the reviewers' common preference
(a pair whose reviewers disagree and nobody adjudicated is left out as unresolved); a run's is
its final verdict's state when MODEL_PASS or MODEL_FAIL, and its total score. Each reviewer's
first submitted preference is kept apart for the alt-test (made before they could see anyone
else's). A design that sets ``calibration_sample`` has its sample drawn again from the items in
plan order and the design's seed, as the review queue draws it
(:func:`abp_tui.analysis.judges.queue.calibration_sample`), so the database's reference and a
bundle's name the same units.
"""

from __future__ import annotations

from collections import defaultdict

from abp_tui.analysis.allocation import allocation_units
from abp_tui.analysis.judges.queue import calibration_sample
from abp_tui.analysis.judges.units import CalibrationSample, Reference, pair_key
from abp_tui.analysis.records import first_submitted, preferred
from abp_tui.analysis.verdicts import Decisions
from abp_tui.models import DesignRecords, PreferenceChoice, ResultState
from abp_tui.models.judges import TIE

UNRESOLVED = "the reviewers disagree and nobody adjudicated (unresolved)"


def design_calibration(records: DesignRecords) -> CalibrationSample | None:
    """The design's calibration sample as units (None: the design draws none)."""
    share = records.design.calibration_sample
    if share is None:
        return None
    drawn = calibration_sample([item.code for item in records.items], share, records.seed)
    chosen = [item for item in records.items if item.code in drawn]
    return CalibrationSample(
        share=share,
        items=len(chosen),
        pairs=frozenset(pair_key(item.runs) for item in chosen if item.is_pair),
        runs=frozenset(run for item in chosen for run in item.runs),
    )


def design_reference(records: DesignRecords, decisions: Decisions, name: str) -> Reference:
    """The reference of a design's records, named ``final human verdicts of design {name}``."""
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
            chosen = preferred(adjudication)
            if chosen is not None and chosen != PreferenceChoice.INSUFFICIENT.value:
                pairs[key] = TIE if chosen == PreferenceChoice.TIE.value else chosen
            else:
                reasons[key] = "adjudicated without a preference"
            continue
        latest = decisions.latest.get(item.code, [])
        if not latest:
            continue
        if item.code in open_items:
            reasons[key] = UNRESOLVED
            continue
        found = {preferred(j) for j in latest} - {None, PreferenceChoice.INSUFFICIENT.value}
        if len(found) == 1:
            pairs[key] = str(found.pop())
        else:
            reasons[key] = "the reviewers gave no single preference"
    runs: dict[str, bool] = {}
    run_reasons: dict[str, str] = {}
    scores: dict[str, float] = {}
    for verdict in decisions.verdicts:
        if verdict.run in records.superseded or verdict.preference_only:
            continue  # a preference alone gives a run no state: its pair's, above
        if verdict.scores:
            scores[verdict.run] = sum(verdict.scores.values())
        if verdict.result_state in (ResultState.MODEL_PASS, ResultState.MODEL_FAIL):
            runs[verdict.run] = verdict.result_state == ResultState.MODEL_PASS
        elif verdict.source == "unresolved":
            run_reasons[verdict.run] = UNRESOLVED
        else:
            state = verdict.result_state.value if verdict.result_state else "none"
            run_reasons[verdict.run] = f"people's state is {state}, neither pass nor fail"
    return Reference(
        name=f"final human verdicts of design {name}",
        kind="final",
        pairs=pairs,
        pair_reasons=reasons,
        raters={k: dict(v) for k, v in raters.items()},
        runs=runs,
        run_reasons=run_reasons,
        scores=scores,
        conditions={f.id: f.condition for f in records.runs},
        calibration=design_calibration(records),
        allocation=allocation_units(records.design, records.items, records.allocation),
    )


__all__ = ["UNRESOLVED", "design_calibration", "design_reference"]
