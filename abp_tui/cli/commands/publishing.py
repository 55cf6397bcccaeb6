"""Commands that write what a study publishes and check it: ``export`` and ``verify``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Final

from abp_tui.cli.options import actor, open_db, viewer
from abp_tui.cli.output import EXIT_ERROR, EXIT_OK, emit
from abp_tui.errors import AbpError

_WRITES: dict[str, tuple[str, frozenset[str]]] = {
    "verdicts": ("JSON lines", frozenset({".csv", ".json", ".tsv", ".xlsx", ".html", ".zip"})),
    "judgments": ("CSV", frozenset({".jsonl", ".json", ".tsv", ".xlsx", ".html", ".zip"})),
    "abp-verdict": ("JSON", frozenset({".csv", ".jsonl", ".tsv", ".xlsx", ".html", ".zip"})),
}
"""What each single-file export writes, and the names that would say it is something else."""


def _refuse_another_format(what: str, out: Path) -> None:
    """A file named for another format than the export writes is refused before anything is
    written (``export verdicts --out verdicts.csv`` wrote JSON lines under a CSV name)."""
    if what not in _WRITES:
        return
    writes, others = _WRITES[what]
    if out.suffix.lower() in others:
        raise AbpError(
            f"--out {out}: export {what} writes {writes}, not what a {out.suffix} name says; "
            f"name the file {out.with_suffix(_SUFFIX[what]).name}"
        )


_SUFFIX: Final = {"verdicts": ".jsonl", "judgments": ".csv", "abp-verdict": ".json"}


def cmd_export(args: argparse.Namespace) -> int:
    from abp_tui.analysis.results.tallies import (
        DEFAULT_CONFIDENCE,
        ConfidenceError,
        confidence_label,
        confidence_level,
    )
    from abp_tui.cli.progress import step_status
    from abp_tui.errors import AbpError
    from abp_tui.services import publishing as export
    from abp_tui.services.coordinator_identity import look_mark, recorded_notice
    from abp_tui.services.designing import find_design
    from abp_tui.services.results_report import find_scope
    from abp_tui.text.safe import safe_line
    from abp_tui.text.wrapping import prose, terminal_width

    document: dict[str, Any]
    confidence = DEFAULT_CONFIDENCE
    if args.confidence is not None:
        if args.what != "bundle":
            raise ConfidenceError(
                f"export {args.what}: --confidence is for `export bundle` only (abp-verdict/v1 "
                "names its intervals 95%; verdicts and judgments carry no interval)"
            )
        confidence = confidence_level(args.confidence, "--confidence")
    if args.protocol_only and (args.what != "bundle" or args.confidence is not None):
        raise AbpError(
            "--protocol-only is for `export bundle` alone, without --confidence (the protocol "
            "holds no results)"
        )
    out = Path(args.out)
    _refuse_another_format(args.what, out)
    db = open_db(args)
    by = actor(args)
    # Who receives the file looks at what it holds: refused while they have items to judge.
    looking = viewer(args)
    mark = look_mark(db)
    # Judgments and the protocol need a design; the results of automated outcomes do not.
    needs_design = args.protocol_only or args.what == "judgments"
    design = find_design(db, args.study, args.design) if needs_design else None
    scope = None if needs_design else find_scope(db, args.study, args.design)
    pk, study = (scope.design_pk, scope.study_id) if scope is not None else (None, None)
    # Which study and design the file holds, named in what is printed and in --json (a study
    # with several designs exports the one created last unless --design says otherwise).
    if design is not None:
        named = {
            "study": design.study_id,
            "design": design.name,
            "design_version": design.version_no,
        }
    else:
        assert scope is not None  # not needs_design
        designed = scope.design_pk is not None
        named = {
            "study": scope.study_id,
            "design": scope.design_name if designed else None,
            "design_version": scope.version_no if designed else None,
        }
    what = f"study {safe_line(str(named['study']))}, " + (
        "its automated outcomes alone (no study design)"
        if named["design"] is None
        else f"design {safe_line(str(named['design']))} v{named['design_version']}"
    )
    if args.protocol_only:
        assert design is not None  # needs_design
        result = export.export_protocol_bundle(db, design.pk, out, actor=by)
        lines = [
            f"wrote {result.folder} and {result.zip_path} ({result.files} files, manifest "
            f"sha256 {result.manifest_sha256[:12]}) of {what}: {result.status}; frozen, "
            f"sha256 {design.sha256}",
            f"check it with: abp-tui verify {result.zip_path}",
        ]
        document = {
            "folder": str(result.folder),
            "zip": str(result.zip_path),
            "files": result.files,
            "manifest_sha256": result.manifest_sha256,
            "status": result.status,
            "kind": "protocol-only",
            "design_sha256": design.sha256,
        }
    elif args.what == "bundle":
        with step_status(args, "export bundle"):
            result = export.export_bundle(
                db, pk, out, actor=by, confidence=confidence, study=study, viewer=looking
            )
        lines = [
            f"wrote {result.folder} and {result.zip_path} ({result.files} files, manifest "
            f"sha256 {result.manifest_sha256[:12]}) of {what}: {result.status}; results at "
            f"{confidence_label(confidence)} confidence",
            *(f"  missing: {safe_line(m)}" for m in result.missing),
            f"check it with: abp-tui verify {result.zip_path}",
        ]
        document = {
            "folder": str(result.folder),
            "zip": str(result.zip_path),
            "files": result.files,
            "manifest_sha256": result.manifest_sha256,
            "status": result.status,
            "missing": result.missing,
            "confidence": confidence,
        }
    elif args.what == "verdicts":
        n, pairs = export.export_verdicts(db, pk, out, actor=by, study=study, viewer=looking)
        said = f"wrote {out}: {n} run verdicts of {what}" + (
            f", with the final preferences of {pairs} judged pairs" if pairs else ""
        )
        lines, document = [said], {"file": str(out), "verdicts": n, "preferences": pairs}
    elif args.what == "judgments":
        assert design is not None  # needs_design
        study = design.study_id
        n = export.export_judgments(db, design.pk, out, actor=by, viewer=looking)
        lines, document = [f"wrote {out}: {n} rows of {what}"], {"file": str(out), "rows": n}
    else:
        verdict = export.export_abp_verdict(db, pk, out, actor=by, study=study, viewer=looking)
        engines = len(verdict["perEngine"])
        lines = [f"wrote {out}: abp-verdict/v1 of {what}, {engines} engines ({verdict['status']})"]
        document = {"file": str(out), "status": verdict["status"]}
    document |= named
    notice = None if study is None else recorded_notice(db, study, looking, "exports", mark)
    if notice is not None:
        sys.stderr.write(notice + "\n")  # scripted, never a question: but never silent
    emit(args, document, lambda: "\n".join(prose(lines, terminal_width(sys.stdout))))
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    from abp_tui.cli.progress import step_status
    from abp_tui.export import BundleMismatch, verify
    from abp_tui.text.safe import safe_line
    from abp_tui.text.wrapping import prose, terminal_width

    try:
        with step_status(args, "verify"):
            report = verify(Path(args.bundle))
    except BundleMismatch as exc:
        if getattr(args, "json", False):
            emit(args, {"ok": False, "file": exc.path, "detail": exc.detail}, "")
        sys.stderr.write(f"abp-tui: verify failed: {safe_line(str(exc))}\n")
        return EXIT_ERROR
    said = (
        f"OK: {report.files} files match manifest.json; {report.derived} derived files "
        f"re-derived from the bundle's records and identical. Study {safe_line(report.study)}, "
        f"design {safe_line(report.design)}: {report.status}. Design hash "
        f"{report.design_sha256}, "
        + (
            "recomputed from the bundle's own records (compare it with the one published "
            "before the results)."
            if report.design_hash_recomputed
            else "not recomputed: the design was stored before plan secrets, and its hash "
            "covers database keys no bundle carries."
        )
        + (
            " It commits to the tasks, conditions and runs the design planned and to the time "
            "it was stored, and the bundle's are those."
            if report.records_bound
            else " Older format: task texts, condition labels, run records and the design's "
            "times are not bound by the hash (the design was stored before designs committed "
            "to them, or this is a study's automated scope)."
        )
        + f" manifest.json SHA-256 {report.manifest_sha256} (the export printed it and the "
        "audit log recorded it: compare it with the one published)."
    )
    emit(
        args,
        {
            "ok": True,
            "study": report.study,
            "design": report.design,
            "status": report.status,
            "files": report.files,
            "derived": report.derived,
            "design_sha256": report.design_sha256,
            "design_hash_recomputed": report.design_hash_recomputed,
            "manifest_sha256": report.manifest_sha256,
            "records_bound": report.records_bound,
        },
        "\n".join(prose([said], terminal_width(sys.stdout))),
    )
    return EXIT_OK
