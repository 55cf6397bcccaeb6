"""``abp-tui score sci-bench PATH...``: the scientific benchmark's automated judge (seed 004).

Prints each submission's dimension-by-dimension outcome, each run record's, and whether the
conformance fixtures the specification lists observe what it expects (exit 1 when one does
not: the scorer would not be the benchmark's). With ``--study`` the outcomes are also stored
against the study's runs. Every text from a file passes through
:func:`abp_tui.text.safe.safe_line`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from abp_tui.cli.options import db_path, exists, open_db
from abp_tui.cli.output import EXIT_ERROR, EXIT_OK, emit
from abp_tui.errors import AbpError
from abp_tui.text.safe import safe_line

if TYPE_CHECKING:
    from abp_tui.analysis.scibench_scoring import CaseScore, FixtureResult
    from abp_tui.services.scibench_scoring import SciBenchReport


def _table(cases: tuple[CaseScore, ...], indent: str = "    ") -> list[str]:
    if not cases:
        return []
    dims = [d.dimension for d in cases[0].dimensions]
    width = max(len("dimension"), *(len(d) for d in dims))
    columns = [safe_line(c.case_id) for c in cases]
    widths = [max(len(c), 8) for c in columns]
    head = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    lines = [f"{indent}{'dimension'.ljust(width)}  {head}".rstrip()]
    for i, dim in enumerate(dims):
        cells = "  ".join(
            c.dimensions[i].outcome.ljust(w) for c, w in zip(cases, widths, strict=True)
        )
        lines.append(f"{indent}{dim.ljust(width)}  {cells}".rstrip())
    for case in cases:
        for d in case.dimensions:
            if d.outcome == "fail":
                lines.append(
                    f"{indent}- {safe_line(case.case_id)} {d.dimension}: {safe_line(d.reason)}"
                )
    return lines


def _verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def _fixture(result: FixtureResult) -> list[str]:
    score = result.score
    expected = ""
    if result.expected_pass is not None:
        expected = f" (expected {_verdict(result.expected_pass).lower()})"
        if result.conforms is False:
            expected += " MISMATCH"
    failing = score.failed_dimensions
    fails = f": fails {', '.join(failing)}" if failing else ""
    lines = [
        f"{safe_line(result.fixture)}: run {safe_line(score.run_id or '(none)')} "
        f"({safe_line(score.condition_id or '(none)')}): {_verdict(score.passed)}{expected}{fails}"
    ]
    lines += [f"    schema: {safe_line(e)}" for e in score.validation_errors]
    return lines + _table(score.cases)


def score_text(report: SciBenchReport) -> str:
    spec = report.spec
    rule = (
        "pinned (compared with the provenance given)"
        if report.provenance_rule == "pinned"
        else "present (every field given; --provenance FILE compares with pinned values)"
    )
    lines = [
        f"sci-bench automated judge {report.scorer}: {safe_line(report.benchmark_id)} "
        f"(specification {safe_line(spec.path)})",
        f"Reproducibility: provenance {rule}",
        "",
    ]
    for result in report.fixtures:
        lines += [*_fixture(result), ""]
    if report.run_records:
        lines.append("Run records:")
        for r in report.run_records:
            shown = f"{_verdict(r.passed)}, " if r.passed is not None else ""
            lines.append(
                f"  {safe_line(r.run_id)} ({safe_line(r.condition_id)}, repetition "
                f"{r.repetition_index}): {r.status}: {shown}{safe_line(r.detail)}"
            )
        lines.append("")
    s = report.summary
    verdict = (
        "every listed fixture observes what the specification expects"
        if report.conforms
        else f"MISMATCH in {', '.join(safe_line(m) for m in s.mismatches)}"
    )
    lines.append(
        f"Conformance: {s.fixtures} submissions, {s.observed_passing} passing observed "
        f"({s.expected_passing} expected): {verdict}"
    )
    lines.append("Dimensions over every case (scored / passed / failed / unscored):")
    width = max((len(d.dimension) for d in s.dimension_counts), default=0)
    for d in s.dimension_counts:
        lines.append(
            f"  {d.dimension.ljust(width)}  {d.scored} / {d.passed} / {d.failed} / {d.unscored}"
        )
    if report.study is not None:
        stored = sum(1 for o in report.stored if o.status == "stored")
        lines.append("")
        lines.append(f"Stored in study {safe_line(report.study)}: {stored} new outcomes")
        for o in report.stored:
            if o.status not in ("stored", "already stored"):
                lines.append(f"  {safe_line(o.run_id)}: {o.status}, not stored")
    lines.append("")
    lines.append("Receipts:")
    lines += [f"  {r.sha256}  {safe_line(r.path)}" for r in report.receipts]
    return "\n".join(lines)


def cmd_score_scibench(args: argparse.Namespace) -> int:
    from abp_tui.services.scibench_scoring import score_files, store_report

    paths = [Path(p) for p in args.paths]
    provenance = Path(args.provenance) if args.provenance else None
    report = score_files(paths, provenance)
    if args.study:
        if not exists(db_path(args)):
            raise AbpError(
                f"score sci-bench: no database at {db_path(args)} (import the study first)"
            )
        report = store_report(open_db(args), args.study, report, paths)
    document = report.model_dump(mode="json")
    document["conforms"] = report.conforms
    emit(args, document, score_text(report))
    return EXIT_OK if report.conforms else EXIT_ERROR
