"""``abp-tui stats ppi``, ``abp-tui stats cs`` and ``abp-tui plan``: the statistics a
coordinator needs about the human budget. ``stats ppi`` and ``stats cs`` read a small CSV table
so a figure can be checked by hand; ``plan`` reads the AI-judge report of a study. Each figure
is printed with its convention, and ``--json`` prints the same as one document. The numbers
come from :mod:`abp_tui.stats`; bad input is one message naming the file, line and column
(exit 1).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from abp_tui.cli.output import EXIT_OK, emit
from abp_tui.errors import AbpError


def _confidence(command: str, confidence: float) -> float:
    if not 0 < confidence < 1:
        raise AbpError(
            f"{command}: --confidence {confidence} is not a confidence level "
            "(expected a number strictly between 0 and 1, e.g. 0.95)"
        )
    return confidence


def _f(value: float | None, digits: int = 6) -> str:
    return "undefined" if value is None else f"{value:.{digits}f}"


def cmd_stats_ppi(args: argparse.Namespace) -> int:
    from abp_tui.formats.stat_tables import read_units_table
    from abp_tui.stats.ppi_units import estimate_from_units

    confidence = _confidence("stats ppi", args.confidence)
    table = read_units_table(Path(args.table))
    est = estimate_from_units(
        table.prediction,
        table.label,
        table.probability,
        method=args.method,
        confidence=confidence,
    )
    document: dict[str, Any] = {
        "statistic": "ppi",
        "table": str(args.table),
        **est.model_dump(mode="json"),
    }
    level = f"{confidence * 100:.10g}%"
    lines = [
        f"{est.n_labelled} of {est.n_units} units judged by people ({est.design}); "
        f"method {est.method}"
    ]
    if est.point is None:
        lines.append(f"  undefined: {est.undefined_reason}")
    else:
        lines += [
            f"  estimate {est.point:.6f}, {level} interval [{_f(est.low)}, {_f(est.high)}], "
            f"SE {_f(est.standard_error)}",
            f"  lambda (the judge's weight) = {_f(est.lam)}",
            "  effective number of labels = "
            + (
                "undefined (SE 0)"
                if est.effective_labels is None
                else f"{est.effective_labels:.1f} (people's judgments of a uniform sample alone "
                "giving the same SE)"
            ),
        ]
    lines += [f"  convention: {est.convention}", f"  source: {est.source}"]
    emit(args, document, "\n".join(lines))
    return EXIT_OK


def _sequence_lines(name: str, seq: Any, stop: int | None, null: float) -> list[str]:
    level = f"{seq.confidence * 100:.10g}%"
    n = len(seq.low)
    lines = [
        f"  {name}: at t = {n}, {level} interval [{seq.low[-1]:.6f}, {seq.high[-1]:.6f}] "
        "(the running intersection)"
    ]
    if stop is None:
        lines.append(f"    never excluded {null:g}")
    else:
        lines.append(
            f"    first excluded {null:g} at t = {stop}: [{seq.low[stop - 1]:.6f}, "
            f"{seq.high[stop - 1]:.6f}]"
        )
    lines += [f"    method: {seq.method}", f"    source: {seq.source}"]
    return lines


def _sequence_document(seq: Any, stop: int | None) -> dict[str, Any]:
    then = None if stop is None else [float(seq.low[stop - 1]), float(seq.high[stop - 1])]
    return {
        "method": seq.method,
        "source": seq.source,
        "low": float(seq.low[-1]),
        "high": float(seq.high[-1]),
        "first_excluded_at": stop,
        "interval_then": then,
    }


def cmd_stats_cs(args: argparse.Namespace) -> int:
    from abp_tui.formats.stat_tables import read_stream
    from abp_tui.stats.sequences import betting_sequence, first_exclusion, mixture_sequence

    confidence = _confidence("stats cs", args.confidence)
    if not (math.isfinite(args.null) and 0 < args.null < 1):
        raise AbpError(
            f"stats cs: --null {args.null} is not a mean to test (expected a number strictly "
            "between 0 and 1, e.g. 0.5)"
        )
    if not (math.isfinite(args.t_opt) and args.t_opt >= 1):
        raise AbpError(f"stats cs: --t-opt {args.t_opt} is not a time (expected a number >= 1)")
    values = read_stream(Path(args.table), args.column)
    sequences = {
        "betting": betting_sequence(values, confidence),
        "normal_mixture": mixture_sequence(values, confidence, t_opt=args.t_opt),
    }
    stops = {key: first_exclusion(seq, args.null) for key, seq in sequences.items()}
    document: dict[str, Any] = {
        "statistic": "confidence_sequence",
        "table": str(args.table),
        "n": len(values),
        "mean": float(values.mean()),
        "confidence": confidence,
        "null": args.null,
        "sequences": {key: _sequence_document(seq, stops[key]) for key, seq in sequences.items()},
        "note": STOPPING_NOTE.format(null=args.null),
    }
    lines = [f"{len(values)} values in order, mean {values.mean():.6f}"]
    lines += _sequence_lines("betting", sequences["betting"], stops["betting"], args.null)
    lines += _sequence_lines(
        "normal mixture", sequences["normal_mixture"], stops["normal_mixture"], args.null
    )
    lines.append(f"  note: {STOPPING_NOTE.format(null=args.null)}")
    emit(args, document, "\n".join(lines))
    return EXIT_OK


STOPPING_NOTE = (
    "anytime-valid: the sequence covers the true mean at every time at once with the stated "
    "confidence, so it may be watched after each judgment and stopped on once it excludes "
    "{null:g}"
)


def cmd_plan(args: argparse.Namespace) -> int:
    from abp_tui.analysis.human_budget import human_budget, plan_lines
    from abp_tui.cli.options import open_db, viewer
    from abp_tui.services.coordinator_identity import look_mark, recorded_notice
    from abp_tui.services.judges import judge_report

    confidence = _confidence("plan", args.confidence)
    if not (math.isfinite(args.width) and 0 < args.width < 1):
        raise AbpError(
            f"plan: --width {args.width} is not a half-width (expected a number strictly "
            "between 0 and 1, e.g. 0.05)"
        )
    db = open_db(args)
    looking = viewer(args)
    mark = look_mark(db)
    report = judge_report(
        db,
        args.study,
        reference=args.reference,
        design=args.design,
        confidence=confidence,
        resamples=0,
        viewer=looking,
    )
    notice = recorded_notice(db, report.study, looking, "judges", mark)
    if notice is not None:
        sys.stderr.write(notice + "\n")
    plan = human_budget(report, args.width, report.estimates_withheld)
    lines = plan_lines(plan)
    emit(args, plan.model_dump(mode="json"), "\n".join(lines))
    return EXIT_OK
