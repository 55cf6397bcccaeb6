"""Commands that bring data in or describe the inputs: ``import``, ``formats``, ``schema``,
``demo``."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from abp_tui.cli.options import db_path, exists, open_db, opened_or_removed
from abp_tui.cli.output import EXIT_OK, emit
from abp_tui.cli.progress import import_progress
from abp_tui.errors import AbpError
from abp_tui.text.counts import counts_text


def cmd_import(args: argparse.Namespace) -> int:
    from abp_tui.services.importing import import_paths
    from abp_tui.text.safe import safe_line

    options = dict(opt.split("=", 1) for opt in args.option)
    progress_cb, finish = import_progress(args)
    with opened_or_removed(args) as db:
        try:
            report = import_paths(
                db,
                [Path(p) for p in args.paths],
                study=args.study,
                fmt=args.format,
                skip_invalid=args.skip_invalid,
                options=options,
                progress=progress_cb,
            )
        except BaseException:
            finish()
            raise
    finish()
    files = [f.__dict__ for f in report.files]
    lines = []
    for folder in report.folders:
        study = f"study {safe_line(folder.study)}" if folder.study else "its files' studies"
        lines.append(f"{safe_line(folder.folder)}: {folder.layout} -> {study} ({folder.naming})")
        lines.extend(f"    {safe_line(note)}" for note in folder.notes)
    for f in report.files:
        counts = counts_text(dict(sorted(f.counts.items())))
        label = f"{f.status:9} {safe_line(f.file)}"
        if f.format:
            label += f" [{f.format}]"
        if f.study:
            label += f" -> study {safe_line(f.study)}"
        detail = counts or f.note or "nothing new"
        if f.note and counts:
            detail += f"; {f.note}"
        lines.append(f"{label}: {safe_line(detail)}")
        lines.extend(f"    skipped: {safe_line(s)}" for s in f.skipped)
    totals = report.totals
    lines.append(report.summary)
    emit(
        args,
        {"folders": [asdict(f) for f in report.folders], "files": files, "totals": totals},
        "\n".join(lines),
    )
    return EXIT_OK


def cmd_formats(args: argparse.Namespace) -> int:
    from abp_tui.formats import FORMATS

    emit(
        args,
        [{"name": f.name, "summary": f.summary} for f in FORMATS],
        "\n".join(f"{f.name:15} {f.summary}" for f in FORMATS),
    )
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    from abp_tui.services.schemas import write_schemas

    # An existing database is brought up to date for browsing (views, final verdicts) and its
    # metadata.json describes it; without one, metadata.json describes a new database.
    path = db_path(args)
    db = open_db(args) if exists(path) else None
    written = write_schemas(Path(args.out), db, database=path.stem)
    emit(args, {"written": [str(p) for p in written]}, "\n".join(f"wrote {p}" for p in written))
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from abp_tui.services.demo import fixtures_dir, load_demo

    folder = fixtures_dir()
    if folder is None:
        raise AbpError("no fixtures/demo folder found (run from the project's folder)")
    reports = load_demo(open_db(args, create=True), folder)
    totals: dict[str, int] = {}
    for r in reports:
        for k, v in r.totals.items():
            totals[k] = totals.get(k, 0) + v
    emit(
        args,
        {"fixtures": str(folder), "totals": totals},
        f"Loaded demo data from {folder}: " + counts_text(totals, "nothing new"),
    )
    return EXIT_OK
