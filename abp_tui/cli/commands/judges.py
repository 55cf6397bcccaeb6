"""``abp-tui judges``: every AI judge of a study measured against people."""

from __future__ import annotations

import argparse

from abp_tui.cli.options import actor, open_db
from abp_tui.cli.output import EXIT_OK, emit


def cmd_judges(args: argparse.Namespace) -> int:
    from abp_tui.analysis.judge_summary import report_lines
    from abp_tui.services.judges import judge_report

    db = open_db(args)
    report = judge_report(
        db,
        args.study,
        reference=args.reference,
        design=args.design,
        confidence=args.confidence,
        seed=args.seed,
        resamples=args.resamples,
        epsilon=args.epsilon,
        viewer=actor(args),  # whoever runs it sees the people's judgments summarized
    )
    emit(args, report.model_dump(mode="json"), "\n".join(report_lines(report)))
    return EXIT_OK
