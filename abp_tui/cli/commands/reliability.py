"""``abp-tui reliability``: every annotator of a study in Dawid-Skene or the one-coin model."""

from __future__ import annotations

import argparse
import sys

from abp_tui.cli.options import open_db, viewer
from abp_tui.cli.output import EXIT_OK, emit


def cmd_reliability(args: argparse.Namespace) -> int:
    from abp_tui.analysis.reliability.text import reliability_lines
    from abp_tui.services.coordinator_identity import look_mark, recorded_notice
    from abp_tui.services.reliability import study_reliability

    db = open_db(args)
    # Whoever runs it looks: a reviewer still judging sees no figure of those items.
    looking = viewer(args)
    mark = look_mark(db)
    report = study_reliability(
        db,
        args.study,
        args.design,
        model=args.model,
        resamples=args.resamples,
        seed=args.seed,
        confidence=args.confidence,
        viewer=looking,
    )
    # Scripted: never a question, but never silent either when the look was just recorded.
    notice = recorded_notice(db, report.study, looking, "reliability", mark)
    if notice is not None:
        sys.stderr.write(notice + "\n")
    emit(args, report.model_dump(mode="json"), "\n".join(reliability_lines(report)))
    return EXIT_OK
