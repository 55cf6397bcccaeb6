"""``abp-tui ranking``: a study's systems ranked from one source of pairwise preferences."""

from __future__ import annotations

import argparse

from abp_tui.cli.options import open_db
from abp_tui.cli.output import EXIT_OK, emit


def cmd_ranking(args: argparse.Namespace) -> int:
    from abp_tui.analysis.ranking_text import ranking_lines
    from abp_tui.services.ranking import parse_anchor, ranking_report

    parse_anchor(args.anchor)  # a malformed anchor is refused before the database is opened
    db = open_db(args)
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
    )
    document = report.model_dump(mode="json", by_alias=True)
    emit(args, document, "" if args.json else "\n".join(ranking_lines(report)))
    return EXIT_OK
