"""The AI judges in a publication bundle: their verdicts as source files and the judge report as
a derived file that ``verify`` re-derives from them.

Source: ``judging/ai_judges.jsonl`` (each judge) and ``judging/ai_judge_verdicts.jsonl`` (each
verdict on a run in the bundle, runs by id, explanations included). Derived:
``results/ai_judges.json``, the judge report against the design's final human verdicts
(:func:`abp_tui.analysis.judges.reference.design_reference` on the bundle's own records),
seeded by the design's seed, which names the judge-assisted figures and the labelled set of
each (the design's calibration sample, drawn again from the bundle's items and seed, or every
unit people judged, assumed to be a random sample): none of the bundle's other results uses a
judge verdict. A bundle of a study without AI judges has none of these files.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Final

from abp_tui.analysis.judges.reference import design_reference
from abp_tui.analysis.judges.report import JudgesReport, judges_report
from abp_tui.analysis.judges.units import VerdictRow
from abp_tui.export.bundle_analysis import Analysis
from abp_tui.export.canonical import json_bytes, jsonl_bytes, jsonl_lines
from abp_tui.models.judges import Judge, JudgeVerdict

JUDGES: Final = "judging/ai_judges.jsonl"
VERDICTS: Final = "judging/ai_judge_verdicts.jsonl"
REPORT: Final = "results/ai_judges.json"
SCHEMA: Final = "abp-tui-ai-judges/v1"


def judge_sources(
    judges: Iterable[Judge], verdicts: Iterable[JudgeVerdict], runs: set[str]
) -> dict[str, bytes]:
    """The source files of the judges' verdicts on the bundle's runs (none: no files)."""
    kept = sorted(
        (v for v in verdicts if all(r in runs for r in v.runs)),
        key=lambda v: (v.judge, v.runs, v.shown_first or "", v.turn or 0, v.kind),
    )
    if not kept:
        return {}
    used = {v.judge for v in kept}
    return {
        JUDGES: jsonl_bytes(
            j.model_dump(mode="json") for j in sorted(judges, key=lambda j: j.id) if j.id in used
        ),
        VERDICTS: jsonl_bytes(v.model_dump(mode="json") for v in kept),
    }


def _rows(data: bytes) -> list[VerdictRow]:
    rows = []
    for line in jsonl_lines(data):
        v = JudgeVerdict.model_validate(json.loads(line))
        rows.append(
            VerdictRow(
                v.judge,
                v.runs,
                v.shown_first,
                v.turn,
                v.kind,
                v.verdict,
                v.score,
                v.error,
                True,
                v.explanation,
            )
        )
    return rows


def bundle_judge_report(files: Mapping[str, bytes], analysis: Analysis) -> JudgesReport | None:
    """The judge report of a bundle with AI judge verdicts (else None), against the design's
    final human verdicts on the bundle's own records."""
    if VERDICTS not in files:
        return None
    judges = [
        Judge.model_validate(json.loads(line)) for line in jsonl_lines(files.get(JUDGES, b""))
    ]
    design = analysis.inputs.design
    reference = design_reference(
        analysis.records, analysis.decisions, f"{design.name} v{design.version}"
    )
    return judges_report(
        analysis.inputs.study.id,
        judges,
        _rows(files[VERDICTS]),
        reference,
        seed=analysis.records.seed,
    )


def judge_results(report: JudgesReport | None) -> dict[str, bytes]:
    """``results/ai_judges.json`` of a bundle with AI judge verdicts (else nothing)."""
    if report is None:
        return {}
    document = {
        "schema": SCHEMA,
        "judge_assisted": assisted(report),
        "labelled_sets": labelled_sets(report),
        "note": "AI judges' figures; the bundle's other results come from people's verdicts "
        "and automated verification alone",
        "report": report.model_dump(mode="json"),
    }
    return {REPORT: json_bytes(document, derived=True)}


def assisted(report: JudgesReport) -> list[str]:
    """The judge-assisted figures the report holds, named ``judge: figure``."""
    return [
        f"{j.judge.id}: {e.figure}"
        for j in report.judges
        for e in getattr(j, "estimates", ())
        if e.estimate.point is not None
    ]


def labelled_sets(report: JudgesReport) -> dict[str, str]:
    """Each judge-assisted figure (``judge: figure``, defined or not) -> the statement of its
    labelled set."""
    return {
        f"{j.judge.id}: {e.figure}": e.assumption
        for j in report.judges
        for e in getattr(j, "estimates", ())
    }


__all__ = [
    "JUDGES",
    "REPORT",
    "VERDICTS",
    "assisted",
    "bundle_judge_report",
    "judge_results",
    "judge_sources",
    "labelled_sets",
]
