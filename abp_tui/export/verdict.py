"""The ABP verdict (``abp-verdict/v1``, seed 003 section 8) of a design, and its JSON Schema.

Each condition is an engine. ``scoredTrials`` are the runs judged MODEL_PASS or MODEL_FAIL;
``excludedEngineErrors`` the INFRA_ERROR runs, excluded and not counted as losses; the resolve
rate is MODEL_PASS over the scored trials with its Wilson 95% interval. Medians are over the runs
in the quality denominator or not yet judged (an excluded run is not an efficiency measurement);
a metric no run carries is null, never zero. ``diffDelta`` is the relative median difference of
normalized diff bytes, (median_b - median_a) / median_a, with its seeded bootstrap interval.
"""

from __future__ import annotations

import statistics
from typing import Any, Final

from abp_tui.analysis.results import counts_for_efficiency
from abp_tui.export.bundle_analysis import Analysis, Summary
from abp_tui.export.gate import GateStatus
from abp_tui.export.validation import VERDICT_SCHEMA_FILE, load_schema
from abp_tui.export.validation import schema_errors as _schema_errors
from abp_tui.stats.inference import Proportion

SCHEMA_NAME: Final = "abp-verdict/v1"
RECEIPTS: Final = {
    "trials": "runs/runs.jsonl",
    "transcripts": "runs/outputs/",
    "traces": "runs/traces/",
    "judgments": "judging/judgments.jsonl",
    "verdicts": "results/verdicts.jsonl",
}
"""Where a publication bundle keeps the receipts (paths inside the bundle)."""
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


def _rate(p: Proportion) -> dict[str, Any]:
    out: dict[str, Any] = {
        "point": p.point,
        "wilson95": [p.low, p.high] if p.low is not None and p.high is not None else None,
    }
    if p.undefined_reason:
        out["undefinedReason"] = p.undefined_reason
    return out


def abp_verdict(analysis: Analysis, summary: Summary, gate: GateStatus) -> dict[str, Any]:
    inputs = analysis.inputs
    per_engine = []
    for g in summary.conditions:
        indices = [i for i, o in enumerate(analysis.outcomes) if o.condition_id == g.condition]
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
            values = [v for r in measured if (v := r.metric(metric)) is not None]
            engine[key] = statistics.median(values) if values else None
        per_engine.append(engine)
    pairwise = []
    for c in summary.comparisons:
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
        pairwise.append({"a": c.a, "b": c.b, "mcnemar": mcnemar, "diffDelta": delta})
    return {
        "schema": SCHEMA_NAME,
        "run": inputs.study.id,
        "design": {
            "name": inputs.design.name,
            "version": inputs.design.version,
            "sha256": inputs.design.sha256,
            "seed": inputs.design.seed,
        },
        "status": gate.status,
        "missing": gate.missing,
        "synthetic": inputs.study.synthetic,
        "perEngine": per_engine,
        "pairwise": pairwise,
        "receipts": dict(RECEIPTS),
        "notes": "Each condition is an engine. resolveRate is MODEL_PASS / (MODEL_PASS + "
        "MODEL_FAIL), where a person's final verdict supersedes automated verification; engine "
        "errors (INFRA_ERROR) are excluded, not counted as losses. Medians are over runs not "
        "excluded; null means no run carried the measurement. diffDelta.relMedian is "
        "(median_b - median_a) / median_a of normalized diff bytes (negative: b's diffs are "
        "smaller), with a percentile bootstrap over each engine's runs resampled independently. "
        "Receipts are paths inside the publication bundle.",
    }
