"""Commands that write what a study publishes and check it: ``export`` and ``verify``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from abp_tui.cli.options import actor, open_db
from abp_tui.cli.output import EXIT_ERROR, EXIT_OK, emit


def cmd_export(args: argparse.Namespace) -> int:
    from abp_tui.services import publishing as export
    from abp_tui.services.designing import find_design
    from abp_tui.text.safe import safe_line

    db = open_db(args)
    design = find_design(db, args.study, args.design)
    out = Path(args.out)
    by = actor(args)
    if args.what == "bundle":
        result = export.export_bundle(db, design.pk, out, actor=by)
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
        n = export.export_verdicts(db, design.pk, out, actor=by)
        lines, document = [f"wrote {out}: {n} run verdicts"], {"file": str(out), "verdicts": n}
    elif args.what == "judgments":
        n = export.export_judgments(db, design.pk, out, actor=by)
        lines, document = [f"wrote {out}: {n} rows"], {"file": str(out), "rows": n}
    else:
        verdict = export.export_abp_verdict(db, design.pk, out, actor=by)
        engines = len(verdict["perEngine"])
        lines = [f"wrote {out}: abp-verdict/v1, {engines} engines ({verdict['status']})"]
        document = {"file": str(out), "status": verdict["status"]}
    emit(args, document, "\n".join(lines))
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    from abp_tui.export import BundleMismatch, verify
    from abp_tui.text.safe import safe_line

    try:
        report = verify(Path(args.bundle))
    except BundleMismatch as exc:
        if getattr(args, "json", False):
            emit(args, {"ok": False, "file": exc.path, "detail": exc.detail}, "")
        sys.stderr.write(f"abp-tui: verify failed: {safe_line(str(exc))}\n")
        return EXIT_ERROR
    emit(
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
