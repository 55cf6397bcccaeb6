"""``abp-tui ranking``: a study's systems ranked from one source of pairwise preferences."""

from __future__ import annotations

import argparse
import sys

from abp_tui.cli.options import open_db, viewer
from abp_tui.cli.output import EXIT_OK, emit


def cmd_ranking(args: argparse.Namespace) -> int:
    from abp_tui.analysis.ranking.text import ranking_lines
    from abp_tui.services.coordinator_identity import look_mark, recorded_notice
    from abp_tui.services.ranking import parse_anchor, ranking_report
    from abp_tui.text.wrapping import terminal_width

    parse_anchor(args.anchor)  # a malformed anchor is refused before the database is opened
    db = open_db(args)
    # Whoever runs it sees the people's verdicts ranked: they may not enrol in the study after.
    looking = viewer(args)
    mark = look_mark(db)
    report = ranking_report(
        db,
        args.study,
        design=args.design,
        source=args.source,
        resamples=args.resamples,
        seed=args.seed,
        confidence=args.confidence,
        anchor=args.anchor,
        prior=args.prior,
        viewer=looking,
        whole_study=args.whole_study,
    )
    # Scripted: never a question, but never silent either when the look was just recorded.
    notice = recorded_notice(db, report.study, looking, "results", mark)
    if notice is not None:
        sys.stderr.write(notice + "\n")
    document = report.model_dump(mode="json", by_alias=True)
    # On a terminal every line keeps to its width (a pipe or a file gets them whole).
    text = "" if args.json else "\n".join(ranking_lines(report, terminal_width(sys.stdout)))
    emit(args, document, text)
    return EXIT_OK
