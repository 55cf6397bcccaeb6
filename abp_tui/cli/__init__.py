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
    from abp_tui.services.demo import DEFAULT_DB

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
    from abp_tui.services.importing import ImportReport, import_paths
    from abp_tui.text.safe import safe_line

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
    from abp_tui.text.safe import safe_line

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
    from abp_tui.services.schemas import write_schemas

    written = write_schemas(Path(args.out))
    _emit(args, {"written": [str(p) for p in written]}, "\n".join(f"wrote {p}" for p in written))
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from abp_tui.services.demo import fixtures_dir, load_demo

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
    from abp_tui.services.designing import create_design, load_design_file
    from abp_tui.text.safe import safe_line

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
    from abp_tui.text.safe import safe_line

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
    from abp_tui.services.designing import find_design
    from abp_tui.services.stations import write_study_pack

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
    from abp_tui.services.stations import open_pack

    design_pk = open_pack(_open(args), Path(args.file))
    _emit(
        args,
        {"database": str(_db_path(args)), "design": design_pk},
        f"opened {args.file} in {_db_path(args)}; judge with: abp-tui --db {_db_path(args)}",
    )
    return EXIT_OK


def cmd_pack_ratings(args: argparse.Namespace) -> int:
    from abp_tui.services.stations import write_ratings

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
    from abp_tui.services.stations import merge_ratings

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


def _figure_text(fig: Any) -> str:
    if fig.value is None:
        return f"undefined: {fig.undefined_reason}"
    text = f"{fig.value:.3f}"
    if fig.interval is not None:
        text += f" [{fig.interval.low:.3f}, {fig.interval.high:.3f}]"
    return text


def cmd_agreement(args: argparse.Namespace) -> int:
    from abp_tui.formats.agreement_table import agreement_table
    from abp_tui.text.safe import safe_line

    if args.table:
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
        from abp_tui.store import judging

        db = _open(args)
        design_pk = None
        study = args.study
        designs = judging.designs(db, study)
        if args.design:
            designs = [d for d in designs if d.name == args.design]
            if not designs:
                raise AbpError(f"--design {args.design}: no such design")
        if designs:
            design_pk, study = designs[-1].pk, designs[-1].study_id
        elif study is None:
            raise AbpError("no study design in the database; name a study with --study")
        report = study_agreement(
            db, study or "", design_pk, seed=args.seed, resamples=args.resamples
        )
        where = f"study {study}" + (f", design {designs[-1].name}" if designs else "")
    lines = [
        f"Agreement: {safe_line(where)} (seed {report.seed}, "
        f"{report.resamples} bootstrap resamples, 95% percentile intervals)"
    ]
    for v in report.variables:
        lines.append("")
        lines.append(
            f"{safe_line(v.variable)} ({v.level}): {v.n_items} items with 2+ "
            f"judgments, {v.n_reviewers} reviewers, {v.n_judgments} judgments"
        )
        for fig in (
            v.percent_agreement,
            v.fleiss_kappa,
            v.fleiss_kappa_generalized,
            v.krippendorff_alpha,
            v.gwet_ac1,
            v.gwet_ac2,
        ):
            lines.append(f"  {fig.name:32} {_figure_text(fig)}")
        for pair in v.pairs:
            lines.append(
                f"  {safe_line(pair.reviewer_a)} x {safe_line(pair.reviewer_b)} "
                f"({pair.n_items} items): kappa {_figure_text(pair.cohen_kappa)}; "
                f"linear {_figure_text(pair.cohen_kappa_linear)}; "
                f"quadratic {_figure_text(pair.cohen_kappa_quadratic)}"
            )
    lines.append("")
    lines.append(
        "Percent agreement: mean pairwise agreement over items with at least two judgments."
    )
    _emit(args, report.model_dump(mode="json"), "\n".join(lines))
    return EXIT_OK


def cmd_tui(args: argparse.Namespace) -> int:
    from abp_tui.services.demo import DEFAULT_DB, is_empty, load_demo

    db = _open(args)
    if _db_path(args) == DEFAULT_DB and is_empty(db):
        load_demo(db)
    db.close()
    from abp_tui.tui.app import make_app

    make_app(db_path=_db_path(args), reviewer=args.reviewer).run()
    return EXIT_OK


def _actor(args: argparse.Namespace) -> str:
    if getattr(args, "by", None):
        return str(args.by)
    import getpass

    try:
        return getpass.getuser() or "coordinator"
    except (OSError, KeyError):
        return "coordinator"


def _study_id(db: Any, study: str | None) -> str:
    from abp_tui.store.queries import list_studies

    if study is not None:
        return study
    ids = [s.id for s in list_studies(db) if s.protocol != "pack"]
    if len(ids) != 1:
        raise AbpError(
            "choose a study with --study"
            + (f" (one of: {', '.join(ids)})" if ids else ": the database has none")
        )
    return ids[0]


def _design(db: Any, args: argparse.Namespace) -> Any:
    from abp_tui.services.designing import find_design
    from abp_tui.store import judging

    if args.study is None:
        studies = sorted({d.study_id for d in judging.designs(db) if args.design in (None, d.name)})
        if len(studies) > 1:
            raise AbpError(f"choose a study with --study (one of: {', '.join(studies)})")
    return find_design(db, args.study, args.design)


def cmd_unblind(args: argparse.Namespace) -> int:
    from abp_tui.services.results_report import unblind

    db = _open(args)
    study = _study_id(db, args.study)
    if not args.yes:
        raise AbpError(
            f"unblinding shows the results of study {study!r} by condition and cannot be undone; "
            f"it is recorded in the audit log. Confirm with: abp-tui unblind --study {study} --yes"
        )
    who, when = unblind(db, study, _actor(args))
    _emit(
        args,
        {"study": study, "unblinded_by": who, "unblinded_at": when},
        f"study {study} unblinded by {who} at {when}",
    )
    return EXIT_OK


def cmd_results(args: argparse.Namespace) -> int:
    from abp_tui.export.tables import results_text
    from abp_tui.services.results_report import compute_results

    db = _open(args)
    report = compute_results(db, _design(db, args).pk)
    _emit(args, report.model_dump(mode="json"), results_text(report))
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from abp_tui import export
    from abp_tui.text.safe import safe_line

    db = _open(args)
    design = _design(db, args)
    out = Path(args.out)
    actor = _actor(args)
    if args.what == "bundle":
        result = export.export_bundle(db, design.pk, out, actor=actor)
        lines = [
            f"wrote {result.folder} and {result.zip_path} ({result.files} files, manifest "
            f"sha256 {result.manifest_sha256[:12]}): {result.status}",
            *(f"  missing: {safe_line(m)}" for m in result.missing),
            f"check it with: abp-tui verify {result.zip_path}",
        ]
        document: dict[str, Any] = {
            "folder": str(result.folder),
            "zip": str(result.zip_path),
            "files": result.files,
            "manifest_sha256": result.manifest_sha256,
            "status": result.status,
            "missing": result.missing,
        }
    elif args.what == "verdicts":
        n = export.export_verdicts(db, design.pk, out, actor=actor)
        lines, document = [f"wrote {out}: {n} run verdicts"], {"file": str(out), "verdicts": n}
    elif args.what == "judgments":
        n = export.export_judgments(db, design.pk, out, actor=actor)
        lines, document = [f"wrote {out}: {n} rows"], {"file": str(out), "rows": n}
    else:
        verdict = export.export_abp_verdict(db, design.pk, out, actor=actor)
        engines = len(verdict["perEngine"])
        lines = [f"wrote {out}: abp-verdict/v1, {engines} engines ({verdict['status']})"]
        document = {"file": str(out), "status": verdict["status"]}
    _emit(args, document, "\n".join(lines))
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    from abp_tui.export import BundleMismatch, verify
    from abp_tui.text.safe import safe_line

    try:
        report = verify(Path(args.bundle))
    except BundleMismatch as exc:
        if getattr(args, "json", False):
            _emit(args, {"ok": False, "file": exc.path, "detail": exc.detail}, "")
        sys.stderr.write(f"abp-tui: verify failed: {safe_line(str(exc))}\n")
        return EXIT_ERROR
    _emit(
        args,
        {
            "ok": True,
            "study": report.study,
            "design": report.design,
            "status": report.status,
            "files": report.files,
            "derived": report.derived,
        },
        f"OK: {report.files} files match manifest.json; {report.derived} derived files "
        f"re-derived from the bundle's records and identical. Study {safe_line(report.study)}, "
        f"design {safe_line(report.design)}: {report.status}.",
    )
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
        "agreement",
        parents=[common, figures],
        help="inter-rater agreement of a study, or of a CSV table of judgments",
    )
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None)
    p.add_argument(
        "--table",
        default=None,
        metavar="CSV",
        help="judgments made elsewhere: columns item, reviewer, variable, value",
    )
    p.add_argument(
        "--level",
        choices=["nominal", "ordinal", "interval", "ratio"],
        default=None,
        help="with --table, for a single variable",
    )
    p.add_argument("--scale", default=None, help="with --table: the declared scale, e.g. 0,1,2")
    p.add_argument(
        "--header",
        default=None,
        metavar="TOML",
        help="with --table: each variable's level and scale",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--resamples", type=int, default=1000)
    p.set_defaults(func=cmd_agreement)

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

    p = sub.add_parser(
        "unblind",
        parents=[common, figures],
        help="show a study's results by condition from now on (audited; needs --yes)",
    )
    p.add_argument("--study", default=None)
    p.add_argument("--yes", action="store_true", help="confirm the unblinding")
    p.add_argument("--by", default=None, metavar="NAME", help="who unblinds (default: you)")
    p.set_defaults(func=cmd_unblind)

    p = sub.add_parser(
        "results", parents=[common, figures], help="results of a design (after unblinding)"
    )
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None, help="design name (default: the latest)")
    p.set_defaults(func=cmd_results)

    p = sub.add_parser(
        "export",
        parents=[common, figures],
        help="export verdicts, judgments, abp-verdict/v1 or a publication bundle",
    )
    p.add_argument("what", choices=["verdicts", "judgments", "abp-verdict", "bundle"])
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None, help="design name (default: the latest)")
    p.add_argument(
        "--out", required=True, metavar="PATH", help="file, or folder for a bundle (+ .zip)"
    )
    p.add_argument("--by", default=None, metavar="NAME", help="who exports (default: you)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser(
        "verify",
        parents=[common, figures],
        help="check a publication bundle: hashes and every table re-derived",
    )
    p.add_argument("bundle", metavar="BUNDLE", help="bundle folder or .zip")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("bench", parents=[common], help="benchmarks (print JSON)")
    p.add_argument("what", choices=["import", "agreement", "export", "ui"])
    p.add_argument("--items", type=int, default=10_000, help="items (agreement)")
    p.add_argument("--events", type=int, default=200_000, help="trace events to generate")
    p.add_argument("--runs", type=int, default=10_000, help="runs of the generated study (export)")
    p.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="repetitions, the median is reported (default 3; ui: 15 key presses)",
    )
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
        from abp_tui.text.safe import safe_line

        sys.stderr.write(
            f"abp-tui: import refused; nothing was written ({len(exc.errors)} "
            f"error{'s' if len(exc.errors) != 1 else ''}):\n"
        )
        for err in exc.errors[:50]:
            sys.stderr.write(f"  {safe_line(str(err))}\n")
        if any(err.line is not None or err.path for err in exc.errors):
            sys.stderr.write("Fix the input, or use --skip-invalid to import the valid records.\n")
        return EXIT_ERROR
    except AbpError as exc:
        from abp_tui.text.safe import safe_line

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
