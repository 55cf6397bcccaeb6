"""``abp-tui judges``: every AI judge of a study measured against people."""

from __future__ import annotations

import argparse
import sys

from abp_tui.cli.options import open_db, viewer
from abp_tui.cli.output import EXIT_OK, emit


def cmd_judges(args: argparse.Namespace) -> int:
    from abp_tui.analysis.judges.view import shown, view_lines
    from abp_tui.services.coordinator_identity import look_mark, recorded_notice
    from abp_tui.services.judges import judge_report

    db = open_db(args)
    # Whoever runs it sees the people's judgments summarized: --reviewer, else the user.
    looking = viewer(args)
    mark = look_mark(db)
    report = judge_report(
        db,
        args.study,
        reference=args.reference,
        design=args.design,
        confidence=args.confidence,
        seed=args.seed,
        resamples=args.resamples,
        epsilon=args.epsilon,
        viewer=looking,
    )
    # Scripted: never a question, but never silent either when the look was just recorded.
    notice = recorded_notice(db, report.study, looking, "judges", mark)
    if notice is not None:
        sys.stderr.write(notice + "\n")
    emit(args, shown(report).model_dump(mode="json"), "\n".join(view_lines(report)))
    return EXIT_OK
