"""``abp-tui baseline save`` and ``abp-tui gate``: the CI regression gate of seed 003.

``gate`` exits 0 when no engine regressed beyond the thresholds and 1 when one did, or when the
run cannot be compared with the baseline (another task set, no engine in common); its report
is printed either way, as text or with ``--json`` as one document. Every name from a record
(engine, task, run id) passes through :func:`abp_tui.text.safe.safe_line`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abp_tui.cli.options import db_path, exists, open_db
from abp_tui.cli.output import EXIT_ERROR, EXIT_OK, emit
from abp_tui.errors import AbpError
from abp_tui.text.safe import safe_line

if TYPE_CHECKING:
    import sqlite_utils

    from abp_tui.analysis.regression_gate import (
        Baseline,
        GateConfig,
        GateReport,
        Receipt,
        RunSource,
    )

DEFAULT_BASELINE = "abp-baseline.json"


def limit_pct(value: str) -> float | None:
    """A percentage limit for a command-line flag; ``off`` reports without enforcing."""
    if value.strip().lower() in {"off", "none", "null"}:
        return None
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage or off, got {value!r}") from None
    if not number >= 0:
        raise argparse.ArgumentTypeError(f"expected a percentage >= 0, got {value!r}")
    return number


def drop_points(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction 0-1, got {value!r}") from None
    if not 0 <= number <= 1:
        raise argparse.ArgumentTypeError(f"expected a fraction 0-1 (0.05 = 5 points), got {value}")
    return number


def _db(args: argparse.Namespace) -> sqlite_utils.Database:
    # RESULTS that is not a file names a study: never create an empty database to look for it.
    path = db_path(args)
    if not exists(path):
        raise AbpError(
            f"{args.results}: no such file or folder, and no database at {path} to find a study in"
        )
    return open_db(args)


def _source(source: RunSource) -> str:
    harness = f", harness {safe_line(source.harness)}" if source.harness else ""
    return f"{source.kind} {safe_line(source.id)}{harness}"


def _receipt_lines(receipts: list[Receipt]) -> list[str]:
    width = max((len(r.role) for r in receipts), default=0)
    return [f"  {r.role.ljust(width)}  {r.sha256}  {safe_line(r.path)}" for r in receipts]


def cmd_baseline_save(args: argparse.Namespace) -> int:
    from abp_tui.export.baseline import baseline_document
    from abp_tui.services.ci_gate import save_baseline

    out = Path(args.out)
    baseline = save_baseline(args.results, out, lambda: _db(args), args.engine)
    emit(
        args, {"written": str(out), "baseline": baseline_document(baseline)}, _saved(baseline, out)
    )
    return EXIT_OK


def _saved(baseline: Baseline, out: Path) -> str:
    lines = [
        f"Baseline written to {safe_line(str(out))}",
        f"  source: {_source(baseline.source)}; {len(baseline.task_ids)} tasks, "
        f"trials: {baseline.trials if baseline.trials is not None else 'not stated'}",
    ]
    for e in baseline.engines:
        rate = e.pass_rate
        shown = "no scored trials"
        if rate.point is not None and rate.wilson95 is not None:
            shown = (
                f"{e.passed}/{e.scored_trials} passed ({rate.point:.1%}, Wilson 95% "
                f"[{rate.wilson95[0]:.4f}, {rate.wilson95[1]:.4f}])"
            )
        extra = []
        if e.excluded_trials:
            extra.append(f"{e.excluded_trials} excluded")
        if e.median_tokens_total is not None:
            extra.append(f"median {e.median_tokens_total:,.0f} tokens")
        if e.median_cost_usd is not None:
            extra.append(f"median ${e.median_cost_usd:.4f}")
        tail = f"; {', '.join(extra)}" if extra else ""
        lines.append(f"  {safe_line(e.engine)}: {shown}{tail}")
    lines.append("Receipts:")
    lines += _receipt_lines(list(baseline.receipts))
    return "\n".join(lines)


def _config(args: argparse.Namespace) -> GateConfig:
    from abp_tui.services.ci_gate import load_gate_config

    config = load_gate_config(Path(args.config) if args.config else None)
    update: dict[str, Any] = {}
    if args.require_significant:
        update["accuracy_require_significant"] = True
    if args.allow_task_mismatch:
        update["allow_task_mismatch"] = True
    for flag, field in (
        ("accuracy_drop", "accuracy_max_drop_points"),
        ("tokens_increase", "tokens_max_increase_pct"),
        ("cost_increase", "cost_max_increase_pct"),
        ("wall_clock_increase", "speed_max_increase_pct"),
    ):
        if hasattr(args, flag):  # the flags default to absent: a config file value stands
            update[field] = getattr(args, flag)
    return config.model_copy(update=update)


def _limits(config: GateConfig) -> str:
    def pct(value: float | None) -> str:
        return "not enforced" if value is None else f"+{value:g}%"

    significance = (
        f"a drop must be significant (exact McNemar at {config.significance_level:g} on paired "
        "trials when the baseline kept them, else disjoint Wilson 95% intervals)"
        if config.accuracy_require_significant
        else "any drop beyond the allowance fails"
    )
    return (
        f"Thresholds: pass-rate drop <= {config.accuracy_max_drop_points * 100:g} points "
        f"({significance}); median tokens {pct(config.tokens_max_increase_pct)}, cost "
        f"{pct(config.cost_max_increase_pct)}, wall clock {pct(config.speed_max_increase_pct)}, "
        f"diff {pct(config.diff_bytes_max_increase_pct)}"
    )


def gate_text(report: GateReport) -> str:
    lines = [
        *(safe_line(w) for w in report.warnings),  # unmatched models lead (seed 003 section 7)
        f"Regression gate: {_source(report.run_source)} against the baseline of "
        f"{_source(report.baseline_source)} (created {safe_line(report.baseline_created_at)})",
        _limits(report.config),
        "",
    ]
    for blocker in report.blockers:
        lines.append(f"BLOCKED: {safe_line(blocker)}")
    if report.task_mismatch is not None:
        m = report.task_mismatch
        lines.append("Task set differs from the baseline's:")
        if m.baseline_only:
            lines.append(f"  only in the baseline: {safe_line(', '.join(m.baseline_only))}")
        if m.run_only:
            lines.append(f"  only in this run: {safe_line(', '.join(m.run_only))}")
    if report.blockers or report.task_mismatch is not None:
        lines.append("")
    for engine in report.engines:
        lines.append(f"{'FAIL' if engine.regressed else 'PASS'} {safe_line(engine.engine)}")
        for c in engine.checks:
            decided = f" [decided by: {c.decided_by}]" if c.decided_by else ""
            lines.append(f"  {c.status:<4}  {c.metric:<17}  {safe_line(c.detail)}{decided}")
        lines.append("")
    for name in report.unmatched_baseline:
        lines.append(f"Not checked: {safe_line(name)} is in the baseline but not in this run")
    for name in report.new_engines:
        lines.append(f"Not gated: {safe_line(name)} is in this run but not in the baseline")
    if report.unmatched_baseline or report.new_engines:
        lines.append("")
    lines.append("Receipts:")
    lines += _receipt_lines(report.receipts)
    lines.append("")
    lines.append(
        "PASS: no regression beyond the thresholds."
        if report.passed
        else "FAIL: " + ("the run cannot be gated." if report.blockers else "regression detected.")
    )
    return "\n".join(lines)


def cmd_gate(args: argparse.Namespace) -> int:
    from abp_tui.services.ci_gate import run_gate

    report = run_gate(
        args.results, Path(args.baseline), _config(args), lambda: _db(args), args.engine
    )
    emit(args, report.model_dump(mode="json"), gate_text(report))
    return EXIT_OK if report.passed else EXIT_ERROR
