"""The ABP verdict (``abp-verdict/v1``, seed 003 section 8) of a design, and its JSON Schema.

Each condition is an engine. ``scoredTrials`` are the runs judged MODEL_PASS or MODEL_FAIL;
``excludedEngineErrors`` the INFRA_ERROR runs, excluded and not counted as losses; the resolve
rate is MODEL_PASS over the scored trials with its Wilson 95% interval. Medians are over the runs
in the quality denominator or not yet judged (an excluded run is not an efficiency measurement);
a metric no run carries is null, never zero. ``diffDelta`` is the relative median difference of
normalized diff bytes, (median_b - median_a) / median_a, with its seeded bootstrap interval.
The format names both intervals 95% (``wilson95``, ``bootstrap95``): they are 95% whatever level
a bundle's own tables use. ``unresolvedItems`` (abp-tui's) lists a pair's items whose reviewers
disagree and nobody adjudicated: their runs are in no McNemar pair and their preferences in no
tally until adjudicated.

``verdictSource`` (abp-tui's) says where the verdicts come from: ``automated`` when the study
has no design (every trial's verdict is its automated verification outcome: the document then
has no ``design``, since none exists), ``design`` for a design's final verdicts. A median that
is a whole number is written as one (1650, as the seed writes it, not 1650.0).

``receipts.diffs`` (the seed's) is ``runs/diffs/`` when the bundle holds at least one run's diff
file; when no run has one the key is absent (the schema allows exactly that folder or nothing),
so a reader never follows a receipt to an empty folder.

``matchedModels`` (the run configuration's, seed 003 section 7) is written for an engine study;
when the engines did not run on the same model the document leads with ``warning`` and its
``pairwise`` stays empty: no engine-vs-engine conclusion is drawn from such a run. The seed's
verdict has no field for the head-to-head efficiency counts, so they are in the results and the
report, not here.

Every figure is over benchmark material: a design's development tasks (seed 002,
:mod:`abp_tui.analysis.material`) enter no count and no median, and ``notes`` says so.
"""

from __future__ import annotations

import statistics
from typing import Any, Final

from abp_tui.analysis.automated import is_automated
from abp_tui.analysis.matched_models import ModelMatch, engines_comparable, leading_warnings
from abp_tui.analysis.material import development_note, task_material
from abp_tui.analysis.results.tallies import counts_for_efficiency
from abp_tui.export.bundle_analysis import Analysis, Summary
from abp_tui.export.gate import GateStatus
from abp_tui.export.validation import VERDICT_SCHEMA_FILE, load_schema
from abp_tui.export.validation import schema_errors as _schema_errors
from abp_tui.stats.inference import Proportion

SCHEMA_NAME: Final = "abp-verdict/v1"
VERDICT_CONFIDENCE: Final = 0.95
"""The level of abp-verdict/v1's intervals, which the format names ``wilson95``/``bootstrap95``."""
RECEIPTS: Final = {
    "trials": "runs/runs.jsonl",
    "transcripts": "runs/outputs/",
    "traces": "runs/traces/",
    "judgments": "judging/judgments.jsonl",
    "verdicts": "results/verdicts.jsonl",
}
"""Where a publication bundle keeps the receipts (paths inside the bundle)."""
DIFFS_RECEIPT: Final = ("diffs", "runs/diffs/")
"""The seed's ``diffs`` receipt: present only when the bundle holds a diff file (a run whose
source named one that was there); absent, not an empty folder, when no run has one."""
_MEDIANS: Final = (
    ("medianDiffBytesNormalized", "diff_bytes"),
    ("medianTokensTotal", "total_tokens"),
    ("medianWallClockMs", "wall_clock_ms"),
    ("medianComputedUsd", "cost_usd"),
)


def schema() -> dict[str, Any]:
    """The JSON Schema of abp-verdict/v1 this project ships."""
    return load_schema(VERDICT_SCHEMA_FILE)


def schema_errors(document: Any) -> list[str]:
    """Every violation of abp-verdict/v1 in ``document`` (none for a valid verdict)."""
    return _schema_errors(document, VERDICT_SCHEMA_FILE)


NOTES: Final = (
    "Each condition is an engine. resolveRate is MODEL_PASS / (MODEL_PASS + MODEL_FAIL), where a "
    "person's final verdict supersedes automated verification; engine errors (INFRA_ERROR) are "
    "excluded, not counted as losses. Medians are over runs not excluded; null means no run "
    "carried the measurement. diffDelta.relMedian is (median_b - median_a) / median_a of "
    "normalized diff bytes (negative: b's diffs are smaller), with a percentile bootstrap over "
    "each engine's runs resampled independently. Both intervals are 95%. unresolvedItems lists "
    "a pair's items whose reviewers disagree and nobody adjudicated yet: their runs are in no "
    "McNemar pair until adjudicated. Receipts are paths inside the publication bundle."
)
AUTOMATED_NOTES: Final = (
    "verdictSource automated: the study has no design, so every trial's verdict is its "
    "automated verification outcome (passed, failed, timeout; an engine error is excluded, not "
    "a loss) and nobody judged the runs. "
)


def _study_notes(match: ModelMatch | None) -> list[str]:
    """Why pairwise is empty (unmatched models), and unverified token totals."""
    notes = [] if engines_comparable(match) else [UNMATCHED_NOTE]
    if match is not None and match.tokens_note:
        notes.append(match.tokens_note)
    return notes


UNMATCHED_NOTE: Final = (
    "pairwise is empty: the engines did not run on the same model (matchedModels false), so "
    "no engine-vs-engine conclusion is drawn; perEngine holds each engine's own figures."
)


def _median(values: list[float]) -> float | int | None:
    if not values:
        return None
    found = statistics.median(values)
    return int(found) if float(found).is_integer() else found


def _rate(p: Proportion) -> dict[str, Any]:
    out: dict[str, Any] = {
        "point": p.point,
        "wilson95": [p.low, p.high] if p.low is not None and p.high is not None else None,
    }
    if p.undefined_reason:
        out["undefinedReason"] = p.undefined_reason
    return out


def _receipts(analysis: Analysis) -> dict[str, str]:
    receipts = dict(RECEIPTS)
    if any(run.diff is not None for run in analysis.inputs.runs):
        key, folder = DIFFS_RECEIPT
        receipts[key] = folder
    return receipts


def abp_verdict(analysis: Analysis, summary: Summary, gate: GateStatus) -> dict[str, Any]:
    """The document, from a ``summary`` at :data:`VERDICT_CONFIDENCE` (the format's 95%)."""
    if summary.confidence != VERDICT_CONFIDENCE:  # a bug: the caller summarises at 95%
        raise ValueError(f"abp-verdict/v1 intervals are 95%, not {summary.confidence:g}")
    inputs = analysis.inputs
    per_engine = []
    # Over benchmark material, as the summary's figures are (seed 002: never development).
    benchmark = [
        task_material(inputs.study_design, run.task) != "development" for run in inputs.runs
    ]
    for g in summary.conditions:
        indices = [
            i
            for i, (o, counted) in enumerate(zip(analysis.outcomes, benchmark, strict=True))
            if counted and o.condition_id == g.condition
        ]
        engine: dict[str, Any] = {
            "engine": g.condition,
            "scoredTrials": g.pass_rate.n,
            "excludedEngineErrors": g.states["INFRA_ERROR"],
            "excludedOther": g.states["PROVIDER_BLOCK"]
            + g.states["INVALID_TEST"]
            + g.states["GRADER_DISPUTE"],
            "unjudgedTrials": g.unjudged,
            "unresolvedTrials": g.unresolved,
            "resolveRate": _rate(g.pass_rate),
        }
        measured = [
            analysis.records.runs[i] for i in indices if counts_for_efficiency(analysis.outcomes[i])
        ]
        for key, metric in _MEDIANS:
            engine[key] = _median([v for r in measured if (v := r.metric(metric)) is not None])
        per_engine.append(engine)
    pairwise = []
    match = summary.model_match
    for c in summary.comparisons if engines_comparable(match) else ():
        test = c.paired.mcnemar
        mcnemar: dict[str, Any] = {"discordant": [test.b, test.c], "pExact": test.p_value}
        if test.undefined_reason:
            mcnemar["undefinedReason"] = test.undefined_reason
        delta: dict[str, Any] | None = None
        for e in c.efficiency:
            if e.metric == "diff_bytes":
                d = e.difference
                delta = {
                    "relMedian": d.point,
                    "bootstrap95": [d.low, d.high]
                    if d.low is not None and d.high is not None
                    else None,
                    "seed": d.seed,
                }
                if d.undefined_reason:
                    delta["undefinedReason"] = d.undefined_reason
        pair: dict[str, Any] = {"a": c.a, "b": c.b, "mcnemar": mcnemar, "diffDelta": delta}
        if c.preferences.unresolved_items:
            pair["unresolvedItems"] = list(c.preferences.unresolved_items)
        pairwise.append(pair)
    automated = is_automated(inputs.design.name, inputs.rubric.id)
    document: dict[str, Any] = {"schema": SCHEMA_NAME}
    if match is not None and match.warning:
        # Seed 003 section 7: the warning leads (canonical JSON sorts keys, so notes start with
        # it too).
        document["warning"] = match.warning
    if match is not None and match.stated is not None:
        document["matchedModels"] = match.stated
    document |= {
        "run": inputs.study.id,
        "verdictSource": "automated" if automated else "design",
        "status": gate.status,
        "missing": gate.missing,
        "synthetic": inputs.study.synthetic,
        "perEngine": per_engine,
        "pairwise": pairwise,
        "receipts": _receipts(analysis),
        "notes": "".join(f"{w} " for w in leading_warnings(match))
        + (AUTOMATED_NOTES if automated else "")
        + NOTES
        + "".join(f" {n}" for n in _study_notes(match))
        + "".join(f" {n}" for n in development_note(inputs.study_design)),
    }
    if not automated:
        document["design"] = {
            "name": inputs.design.name,
            "version": inputs.design.version,
            "sha256": inputs.design.sha256,
            "seed": inputs.design.seed,
        }
    return document
