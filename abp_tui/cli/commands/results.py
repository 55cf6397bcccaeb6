"""Commands that compute figures from judgments: ``agreement`` and ``results``."""

from __future__ import annotations

import argparse
from pathlib import Path

from abp_tui.cli.options import open_db
from abp_tui.cli.output import EXIT_OK, emit


def cmd_agreement(args: argparse.Namespace) -> int:
    from abp_tui.cli.text import agreement_text

    if args.table:
        from abp_tui.formats.agreement_table import agreement_table

        scale = None
        if args.scale:
            scale = [int(v) if v.lstrip("-").isdigit() else v for v in args.scale.split(",") if v]
        report = agreement_table(
            Path(args.table),
            level=args.level,
            scale=scale,
            header=Path(args.header) if args.header else None,
            seed=args.seed,
            resamples=args.resamples,
        )
        where = args.table
    else:
        from abp_tui.services.agreement_report import study_agreement
        from abp_tui.services.designing import find_design_if_any, find_study

        db = open_db(args)
        # A study without a design still has agreement when it carries imported judgments.
        design = find_design_if_any(db, args.study, args.design)
        study = design.study_id if design is not None else find_study(db, args.study)
        report = study_agreement(
            db,
            study,
            design.pk if design is not None else None,
            seed=args.seed,
            resamples=args.resamples,
        )
        where = f"study {study}" + (f", design {design.name}" if design is not None else "")
    emit(args, report.model_dump(mode="json"), agreement_text(report, where))
    return EXIT_OK


def cmd_results(args: argparse.Namespace) -> int:
    from abp_tui.cli.text import results_text
    from abp_tui.services.designing import find_design
    from abp_tui.services.results_report import compute_results

    db = open_db(args)
    report = compute_results(db, find_design(db, args.study, args.design).pk)
    emit(args, report.model_dump(mode="json"), results_text(report))
    return EXIT_OK
