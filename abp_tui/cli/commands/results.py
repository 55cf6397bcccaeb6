"""Commands that compute figures from judgments: ``agreement`` and ``results``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from abp_tui.cli.options import open_db
from abp_tui.cli.output import EXIT_OK, emit, streamed

if TYPE_CHECKING:
    import sqlite_utils

    from abp_tui.formats.agreement_table import TableAgreementReport


def cmd_agreement(args: argparse.Namespace) -> int:
    if args.table:
        from abp_tui.errors import AbpError
        from abp_tui.services.table_agreement import table_agreement

        if args.reviewer is not None:
            # A table's judgments were made elsewhere: nobody here is still judging them.
            raise AbpError("--reviewer names who looks at a study's judgments: not with --table")
        table = table_agreement(
            Path(args.table),
            level=args.level,
            scale=args.scale,
            header=Path(args.header) if args.header else None,
            seed=0 if args.seed is None else args.seed,  # a table has no design
            resamples=args.resamples,
            pair_resamples=args.pair_resamples,
            confidence=args.confidence,
            weight_basis=args.weight_basis,
        )
        emit(args, table.model_dump(mode="json"), "" if args.json else _table_text(table, args))
        return EXIT_OK

    from abp_tui.cli.options import viewer as looking
    from abp_tui.cli.text import study_agreement_text
    from abp_tui.errors import AbpError
    from abp_tui.services.agreement_report import study_agreement
    from abp_tui.services.coordinator_identity import look_mark
    from abp_tui.services.designing import find_design_if_any, find_study

    if args.level or args.scale or args.header:
        raise AbpError("--level, --scale and --header describe a table: give --table FILE.csv")
    db = open_db(args)
    # A study without a design still has agreement when it carries imported judgments.
    design = find_design_if_any(db, args.study, args.design)
    study = design.study_id if design is not None else find_study(db, args.study)
    # The stored row lists every task of the design: only its key and name are kept while the
    # figures are computed.
    design_pk, where = None, f"study {study}"
    if design is not None:
        design_pk, where = design.pk, f"{where}, design {design.name}"
    del design
    # Whoever runs the command looks: a reviewer still judging sees no figure of those
    # items, whether they name themselves or are the user logged in.
    viewer = looking(args)
    mark = look_mark(db)
    report = study_agreement(
        db,
        study,
        design_pk,
        seed=args.seed,
        resamples=args.resamples,
        pair_resamples=args.pair_resamples,
        confidence=args.confidence,
        weight_basis=args.weight_basis,
        viewer=viewer,
    )
    _say_recorded(db, study, viewer, "agreement", mark)
    emit(args, report.model_dump(mode="json"), study_agreement_text(report, where))
    return EXIT_OK


def _say_recorded(
    db: sqlite_utils.Database, study: str, viewer: str, figure: str, mark: int
) -> None:
    """Scripted, so never a question; but a first recorded look is never silent either."""
    import sys

    from abp_tui.services.coordinator_identity import recorded_notice

    notice = recorded_notice(db, study, viewer, figure, mark)
    if notice is not None:
        sys.stderr.write(notice + "\n")


def _table_text(table: TableAgreementReport, args: argparse.Namespace) -> str:
    # Imported only for text: the table writer brings in the results tables and SciPy, a longer
    # start-up than a --json run needs.
    from abp_tui.cli.text import agreement_text
    from abp_tui.text.safe import safe_line
    from abp_tui.text.wrapping import GAP

    text = agreement_text(table, args.table)
    if table.reviewers_without_judgments:
        text += "\n\nListed with no judgments (every value blank; in no figure above):"
        for variable, reviewers in table.reviewers_without_judgments.items():
            names = ", ".join(safe_line(r) for r in reviewers)
            text += f"\n{GAP}{safe_line(variable)}: {names}"
    return text


def cmd_results(args: argparse.Namespace) -> int:
    from abp_tui.analysis.results.tallies import confidence_level
    from abp_tui.cli.text import results_text
    from abp_tui.services.results_report import NoDesign, watched_results
    from abp_tui.text.wrapping import prose, terminal_width

    # A bad level is refused before the database is opened.
    confidence = confidence_level(args.confidence, "--confidence")
    db = open_db(args)
    width = terminal_width(sys.stdout)  # a terminal's: tables too wide for it come as blocks
    # A study without a design still has results when its runs carry automated outcomes; a
    # design's watched figures are read with its results, from the same one read of its items.
    try:
        # Its outcomes and rows by task are written one at a time, each made as it is read.
        report, found = watched_results(db, args.study, args.design, confidence, lazy=True)
    except NoDesign:
        from abp_tui.services.ranking_view import ranking_hint

        # Imported preferences and no design (PandaLM as imported): the ranking is its figure.
        hint = ranking_hint(db, args.study) if args.design is None else None
        if hint is None:
            raise
        raise NoDesign(hint) from None
    if report.verdict_source == "design":
        from abp_tui.cli.options import viewer as looking
        from abp_tui.services.coordinator_identity import (
            look_mark,
            note_design_view,
            refuse_held_back,
        )

        # Whoever runs the command (--reviewer, before or after it, else --by, else the user)
        # sees the figures: they may not enrol in the study after, and a reviewer still judging
        # sees none of them.
        viewer, mark = looking(args), look_mark(db)
        refuse_held_back(db, report.study, viewer)
        note_design_view(db, report.study, report.design, report.design_version, viewer, "results")
        _say_recorded(db, report.study, viewer, "results", mark)
        from abp_tui.analysis.results.watching import watch_finals, watch_lines
        from abp_tui.services.results_report import find_scope
        from abp_tui.services.watching import design_finals

        if found is None:
            scope = find_scope(db, args.study, args.design)
            assert scope.design_pk is not None  # a design's report
            found = design_finals(db, scope.design_pk)
        contrasts = [(c.a, c.b) for c in report.comparisons]
        watched = watch_finals(found, contrasts, report.confidence)
        # The per-task rows and each run's outcome are written one at a time; the text only
        # made when it is what is printed.
        document = {
            **streamed(report, "by_task", "outcomes"),
            "watching": watched.model_dump(mode="json"),
        }
        emit(
            args,
            document,
            lambda: (
                results_text(report, width=width)
                + "\n\n"
                + "\n".join(prose(["Watching", *watch_lines(watched)], width))
            ),
        )
        return EXIT_OK
    emit(args, streamed(report, "by_task", "outcomes"), lambda: results_text(report, width=width))
    return EXIT_OK
