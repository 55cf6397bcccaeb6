"""The ``abp-tui`` command line: thin commands over the core functions.

Exit status: 0 success; 1 bad input or a refused operation (the message says what and where);
2 a usage error (unknown command or option); 3 an internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from abp_tui import __version__
from abp_tui.errors import AbpError, ImportFailed

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def _db_path(args: argparse.Namespace) -> Path:
    from abp_tui.demo import DEFAULT_DB

    return Path(getattr(args, "db", None) or DEFAULT_DB)


def _open(args: argparse.Namespace) -> Any:
    from abp_tui.store import connect

    return connect(_db_path(args))


def _emit(args: argparse.Namespace, document: Any, text: str) -> None:
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        sys.stdout.write(text + ("\n" if text and not text.endswith("\n") else ""))


# -- commands ------------------------------------------------------------------------------------
def cmd_import(args: argparse.Namespace) -> int:
    from abp_tui.importing import ImportReport, import_paths
    from abp_tui.textsafe import safe_line

    db = _open(args)
    options = dict(opt.split("=", 1) for opt in args.option)
    progress_cb, finish = _progress_bar(args)
    try:
        report: ImportReport = import_paths(
            db,
            [Path(p) for p in args.paths],
            study=args.study,
            fmt=args.format,
            skip_invalid=args.skip_invalid,
            options=options,
            progress=progress_cb,
        )
    finally:
        finish()
    files = [f.__dict__ for f in report.files]
    lines = []
    for f in report.files:
        counts = ", ".join(f"{v} {k}" for k, v in sorted(f.counts.items()) if v)
        label = f"{f.status:9} {safe_line(f.file)}"
        if f.format:
            label += f" [{f.format}]"
        if f.study:
            label += f" -> study {safe_line(f.study)}"
        detail = counts or f.note or "nothing new"
        if f.note and counts:
            detail += f"; {f.note}"
        lines.append(f"{label}: {detail}")
        lines.extend(f"    skipped: {safe_line(s)}" for s in f.skipped)
    totals = report.totals
    if not any(v for k, v in totals.items() if "unchanged" not in k):
        lines.append("Nothing new was added.")
    _emit(args, {"files": files, "totals": totals}, "\n".join(lines))
    return EXIT_OK


def _progress_bar(args: argparse.Namespace) -> tuple[Any, Any]:
    """A rich progress bar on stderr for large files (not with --json or when not a tty)."""
    if getattr(args, "json", False) or not sys.stderr.isatty():
        return None, lambda: None
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    tasks: dict[str, Any] = {}
    started = False

    def update(display: str, pos: int, size: int) -> None:
        nonlocal started
        if size < 8 << 20:
            return
        if not started:
            progress.start()
            started = True
        if display not in tasks:
            from rich.text import Text

            tasks[display] = progress.add_task(Text(display).plain[-40:], total=size)
        progress.update(tasks[display], completed=pos)

    def finish() -> None:
        if started:
            progress.stop()

    return update, finish


def cmd_status(args: argparse.Namespace) -> int:
    from abp_tui.store import judging
    from abp_tui.store.queries import list_studies, study_conditions, study_tasks
    from abp_tui.textsafe import safe_line

    db = _open(args)
    studies = list_studies(db)
    if args.study:
        studies = [s for s in studies if s.id == args.study]
        if not studies:
            raise AbpError(f"--study {args.study}: no such study in {_db_path(args)}")
    doc: list[dict[str, Any]] = []
    lines = [f"Database: {_db_path(args)}", ""]
    if not studies:
        lines.append("No studies yet. Import run records with: abp-tui import PATH")
    for s in studies:
        conds = study_conditions(db, s.id)
        tasks = study_tasks(db, s.id)
        doc.append(
            {
                **s.model_dump(),
                "condition_runs": {c.condition.id: c.runs for c in conds},
                "task_runs": {t.task.id: t.runs for t in tasks},
            }
        )
        mark = " [SYNTHETIC]" if s.synthetic else ""
        lines.append(f"{safe_line(s.id)}{mark}  ({s.protocol}) {safe_line(s.name)}")
        lines.append(
            f"  tasks {s.tasks}, conditions {s.conditions}, runs {s.runs} "
            f"(excluded {s.excluded_runs}), trace events {s.trace_events}, "
            f"imported preferences {s.preferences}"
        )
        for c in conds:
            lines.append(
                f"    condition {safe_line(c.condition.id)}: {c.runs} runs"
                + (f"  {safe_line(c.condition.label)}" if c.condition.label else "")
            )
        doc[-1]["designs"] = []
        for d in judging.designs(db, s.id):
            progress = judging.progress(db, d.pk)
            doc[-1]["designs"].append(
                {
                    "name": d.name,
                    "version": d.version_no,
                    "sha256": d.sha256,
                    "frozen_at": d.frozen_at,
                    "progress": [p.__dict__ for p in progress],
                }
            )
            lines.append(f"    design {safe_line(d.name)} v{d.version_no}:")
            lines.extend(
                f"      {safe_line(p.reviewer)}: {p.submitted}/{p.assigned} submitted, "
                f"{p.drafts} in draft"
                for p in progress
            )
            if not progress:
                lines.append("      no reviewer has opened it yet (open design)")
    _emit(args, {"database": str(_db_path(args)), "studies": doc}, "\n".join(lines))
    return EXIT_OK


def cmd_formats(args: argparse.Namespace) -> int:
    from abp_tui.formats import FORMATS

    _emit(
        args,
        [{"name": f.name, "summary": f.summary} for f in FORMATS],
        "\n".join(f"{f.name:15} {f.summary}" for f in FORMATS),
    )
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    from abp_tui.schemas import write_schemas

    written = write_schemas(Path(args.out))
    _emit(args, {"written": [str(p) for p in written]}, "\n".join(f"wrote {p}" for p in written))
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from abp_tui.demo import fixtures_dir, load_demo

    folder = fixtures_dir()
    if folder is None:
        raise AbpError("no fixtures/demo folder found (run from the project's folder)")
    reports = load_demo(_open(args), folder)
    totals: dict[str, int] = {}
    for r in reports:
        for k, v in r.totals.items():
            totals[k] = totals.get(k, 0) + v
    _emit(
        args,
        {"fixtures": str(folder), "totals": totals},
        f"Loaded demo data from {folder}: "
        + (", ".join(f"{v} {k}" for k, v in totals.items() if v) or "nothing new"),
    )
    return EXIT_OK


def cmd_study_create(args: argparse.Namespace) -> int:
    from abp_tui.studies import create_design, load_design_file
    from abp_tui.textsafe import safe_line

    db = _open(args)
    created = [create_design(db, load_design_file(Path(p))) for p in args.files]
    lines = [
        f"{c.status:11} design {safe_line(c.name)} v{c.version_no} of study {safe_line(c.study)}: "
        f"{c.items} items ({c.pair_items} pairs, {c.single_items} single), "
        f"{c.assignments} assignments, sha256 {c.sha256[:12]}"
        for c in created
    ]
    _emit(args, {"designs": [c.__dict__ for c in created]}, "\n".join(lines))
    return EXIT_OK


def cmd_study_list(args: argparse.Namespace) -> int:
    from abp_tui.store import judging
    from abp_tui.textsafe import safe_line

    db = _open(args)
    doc = []
    lines = []
    for d in judging.designs(db, args.study):
        n_items = len(judging.items(db, d.pk))
        prog = judging.progress(db, d.pk)
        doc.append(
            {
                "study": d.study_id,
                "name": d.name,
                "version": d.version_no,
                "sha256": d.sha256,
                "seed": d.seed,
                "frozen_at": d.frozen_at,
                "items": n_items,
                "progress": [p.__dict__ for p in prog],
            }
        )
        frozen = f"frozen {d.frozen_at}" if d.frozen_at else "not yet judged"
        lines.append(
            f"{safe_line(d.study_id)} / {safe_line(d.name)} v{d.version_no}: "
            f"{n_items} items, seed {d.seed}, {frozen}, sha256 {d.sha256[:12]}"
        )
        lines.extend(
            f"    {safe_line(p.reviewer)}: {p.submitted}/{p.assigned} submitted, "
            f"{p.drafts} in draft"
            for p in prog
        )
    if not lines:
        lines.append("No study designs yet. Create one with: abp-tui study create FILE")
    _emit(args, {"designs": doc}, "\n".join(lines))
    return EXIT_OK


def cmd_pack_study(args: argparse.Namespace) -> int:
    from abp_tui.packs import write_study_pack
    from abp_tui.studies import find_design

    db = _open(args)
    design = find_design(db, args.study, args.design)
    out = Path(args.out or f"exports/{design.study_id}.{design.name}.{args.reviewer}.pack.json")
    pack = write_study_pack(db, design.pk, args.reviewer, out)
    _emit(
        args,
        {"pack": str(out), "sha256": pack.sha256, "items": len(pack.items)},
        f"wrote {out}: {len(pack.items)} items for {args.reviewer} "
        f"(design {design.name} v{design.version_no}), sha256 {pack.sha256[:12]}",
    )
    return EXIT_OK


def cmd_pack_open(args: argparse.Namespace) -> int:
    from abp_tui.packs import open_pack

    design_pk = open_pack(_open(args), Path(args.file))
    _emit(
        args,
        {"database": str(_db_path(args)), "design": design_pk},
        f"opened {args.file} in {_db_path(args)}; judge with: abp-tui --db {_db_path(args)}",
    )
    return EXIT_OK


def cmd_pack_ratings(args: argparse.Namespace) -> int:
    from abp_tui.packs import write_ratings

    out = Path(args.out)
    ratings = write_ratings(_open(args), out)
    submitted = sum(1 for j in ratings.judgments if j.status == "submitted")
    _emit(
        args,
        {"ratings": str(out), "sha256": ratings.sha256, "judgments": len(ratings.judgments)},
        f"wrote {out}: {len(ratings.judgments)} judgment revisions ({submitted} submitted) "
        f"by {ratings.reviewer}",
    )
    return EXIT_OK


def cmd_merge(args: argparse.Namespace) -> int:
    from abp_tui.packs import merge_ratings

    results = merge_ratings(_open(args), [Path(p) for p in args.files])
    _emit(
        args,
        {"merged": results},
        "\n".join(
            f"{r['file']}: {r['added']} judgments added from {r['reviewer']}"
            + (f" ({r['note']})" if r["note"] else "")
            for r in results
        ),
    )
    return EXIT_OK


def cmd_tui(args: argparse.Namespace) -> int:
    from abp_tui.demo import DEFAULT_DB, is_empty, load_demo

    db = _open(args)
    if _db_path(args) == DEFAULT_DB and is_empty(db):
        load_demo(db)
    db.close()
    from abp_tui.tui.app import make_app

    make_app(db_path=_db_path(args), reviewer=args.reviewer).run()
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from abp_tui import bench

    document = bench.run(args.what, args)
    sys.stdout.write(json.dumps(document, indent=2) + "\n")
    return EXIT_OK


# -- parser --------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="SQLite database (default: data/abp.db)",
    )
    figures = argparse.ArgumentParser(add_help=False)
    figures.add_argument("--json", action="store_true", help="print one JSON document")

    parser = argparse.ArgumentParser(
        prog="abp-tui",
        parents=[common],
        description="Offline adjudication workstation for AI-agent and LLM benchmark results. "
        "With no command, opens the workstation.",
    )
    parser.add_argument("--version", action="version", version=f"abp-tui {__version__}")
    parser.add_argument("--reviewer", default=None, help="reviewer name for the workstation")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("tui", parents=[common], help="open the workstation (the default)")
    p.add_argument("--reviewer", default=None, help="reviewer name (default: demo)")
    p.set_defaults(func=cmd_tui)

    p = sub.add_parser("import", parents=[common, figures], help="import run records")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    p.add_argument("--study", default=None, help="study id to import into")
    p.add_argument("--format", default=None, help="input format (see: abp-tui formats)")
    p.add_argument(
        "--skip-invalid",
        action="store_true",
        help="import valid records and list the invalid ones instead of refusing",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="format option, e.g. condition=task for Inspect logs",
    )
    p.set_defaults(func=cmd_import)

    study = sub.add_parser("study", help="study designs: create, list")
    study_sub = study.add_subparsers(dest="study_command", metavar="ACTION", required=True)
    p = study_sub.add_parser(
        "create",
        parents=[common, figures],
        help="create (or version) study designs from TOML or JSON files",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=cmd_study_create)
    p = study_sub.add_parser(
        "list", parents=[common, figures], help="study designs with their progress per reviewer"
    )
    p.add_argument("--study", default=None)
    p.set_defaults(func=cmd_study_list)

    pack = sub.add_parser("pack", help="offline reviewer stations: study packs and ratings")
    pack_sub = pack.add_subparsers(dest="pack_command", metavar="ACTION", required=True)
    p = pack_sub.add_parser(
        "study", parents=[common, figures], help="write the study pack of one reviewer"
    )
    p.add_argument("--reviewer", required=True)
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None, help="design name (default: the latest)")
    p.add_argument("--out", default=None, metavar="FILE")
    p.set_defaults(func=cmd_pack_study)
    p = pack_sub.add_parser(
        "open", parents=[common, figures], help="load a study pack into this (station) database"
    )
    p.add_argument("file", metavar="PACK")
    p.set_defaults(func=cmd_pack_open)
    p = pack_sub.add_parser(
        "ratings",
        parents=[common, figures],
        help="write this station's judgments for the coordinator",
    )
    p.add_argument("--out", required=True, metavar="FILE")
    p.set_defaults(func=cmd_pack_ratings)
    p = sub.add_parser(
        "merge", parents=[common, figures], help="merge reviewers' ratings files into this database"
    )
    p.add_argument("files", nargs="+", metavar="RATINGS")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser(
        "status",
        parents=[common, figures],
        help="studies, their tasks, conditions and runs, with counts",
    )
    p.add_argument("--study", default=None)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("formats", parents=[common, figures], help="list the input formats")
    p.set_defaults(func=cmd_formats)

    p = sub.add_parser(
        "schema", parents=[common, figures], help="write the JSON Schema of the native formats"
    )
    p.add_argument("--out", default="schemas", metavar="DIR")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser("demo", parents=[common, figures], help="load the bundled demo data")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("bench", parents=[common], help="benchmarks (print JSON)")
    p.add_argument("what", choices=["import"])
    p.add_argument("--events", type=int, default=200_000, help="trace events to generate")
    p.add_argument("--repeat", type=int, default=3, help="repetitions (median is reported)")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        args.func = cmd_tui
    if getattr(args, "reviewer", None) is None:
        args.reviewer = None
    if getattr(args, "option", None):
        bad = [o for o in args.option if "=" not in o]
        if bad:
            parser.error(f"--option {bad[0]}: expected KEY=VALUE")
    try:
        return int(args.func(args))
    except ImportFailed as exc:
        from abp_tui.textsafe import safe_line

        sys.stderr.write(
            f"abp-tui: import refused; nothing was written ({len(exc.errors)} "
            f"error{'s' if len(exc.errors) != 1 else ''}):\n"
        )
        for err in exc.errors[:50]:
            sys.stderr.write(f"  {safe_line(str(err))}\n")
        if any(True for _ in exc.errors):
            sys.stderr.write("Fix the input, or use --skip-invalid to import the valid records.\n")
        return EXIT_ERROR
    except AbpError as exc:
        from abp_tui.textsafe import safe_line

        sys.stderr.write(f"abp-tui: {safe_line(str(exc))}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("abp-tui: interrupted\n")
        return 130
    except Exception as exc:
        if os.environ.get("ABP_TUI_DEBUG"):
            raise
        sys.stderr.write(
            f"abp-tui: internal error: {type(exc).__name__}: {exc}\n"
            "Set ABP_TUI_DEBUG=1 to see the traceback, and please report it.\n"
        )
        return EXIT_INTERNAL
