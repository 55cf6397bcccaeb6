"""Import files into the store: detect each file's format, parse it, store it, all or nothing.

The whole command is one transaction: if any file has an invalid record (and ``skip_invalid`` is
off) nothing is written and every error found is reported. With ``skip_invalid`` the invalid
records (or unreadable files) are skipped, listed, and the rest is stored.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import sqlite_utils

from abp_tui.errors import ImportFailed, InputError
from abp_tui.formats import FORMATS, detect, format_by_name
from abp_tui.formats.base import Format, Invalid, ParseContext
from abp_tui.store import ImportWriter
from abp_tui.store.queries import import_seen
from abp_tui.store.views import refresh_views

MAX_ERRORS_LISTED = 50

Progress = Callable[[str, int, int], None]
"""Called with (file as displayed, bytes read, file size)."""


@dataclass
class FileReport:
    """What happened to one file."""

    file: str
    format: str | None
    status: str
    """imported | unchanged (already imported) | skipped (no known format) | failed."""
    study: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    """Invalid records skipped under --skip-invalid, as messages."""
    note: str = ""


@dataclass
class ImportReport:
    files: list[FileReport] = field(default_factory=list)

    @property
    def totals(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for f in self.files:
            total.update(f.counts)
        return dict(sorted(total.items()))


def _expand(paths: Iterable[Path], fmt: Format | None) -> list[tuple[Path, Format | None]]:
    out: list[tuple[Path, Format | None]] = []
    for path in paths:
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if p.is_file()):
                if any(part.startswith(".") for part in child.relative_to(path).parts):
                    continue
                out.append((child, fmt or detect(child)))
        elif path.is_file():
            found = fmt or detect(path)
            if found is None:
                names = ", ".join(f.name for f in FORMATS)
                raise ImportFailed(
                    [
                        InputError(
                            str(path),
                            f"no known format: expected one of {names} (name one with --format)",
                        )
                    ]
                )
            out.append((path, found))
        else:
            raise ImportFailed([InputError(str(path), "no such file or folder")])
    return out


def _bind_progress(progress: Progress, display: str, size: int) -> Callable[[int], None]:
    def report(pos: int) -> None:
        progress(display, pos, size)

    return report


def _note_skipped(report: FileReport, error: InputError) -> None:
    if len(report.skipped) < MAX_ERRORS_LISTED:
        report.skipped.append(str(error))
    report.counts["records skipped"] = report.counts.get("records skipped", 0) + 1


def file_sha256(path: Path) -> tuple[str, int]:
    hasher = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            hasher.update(chunk)
            size += len(chunk)
    return hasher.hexdigest(), size


def import_paths(
    db: sqlite_utils.Database,
    paths: Iterable[Path],
    *,
    study: str | None = None,
    fmt: str | None = None,
    skip_invalid: bool = False,
    options: dict[str, str] | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Import every file named (folders: every file of a known format in them).

    Raises ImportFailed, having written nothing, when any file is unusable or has an invalid
    record and ``skip_invalid`` is off.
    """
    chosen = format_by_name(fmt) if fmt else None
    files = _expand(paths, chosen)
    report = ImportReport()
    errors: list[InputError] = []
    with db.atomic():
        for path, found in files:
            display = str(path)
            if found is None:
                report.files.append(FileReport(display, None, "skipped", note="no known format"))
                continue
            try:
                sha, size = file_sha256(path)
            except OSError as exc:
                errors.append(InputError(display, f"cannot read file: {exc.strerror}"))
                continue
            seen = import_seen(db, sha, study)
            if seen is not None:
                report.files.append(
                    FileReport(
                        display,
                        found.name,
                        "unchanged",
                        note=f"already imported at {seen}; nothing added",
                    )
                )
                continue
            ctx = ParseContext(display=display, study_id=study, options=dict(options or {}))
            if progress is not None:
                ctx.progress = _bind_progress(progress, display, size)
            file_report = FileReport(display, found.name, "imported")
            file_errors: list[InputError] = []
            try:
                with db.atomic():
                    writer = ImportWriter(db, path.name, sha, size, found.name)
                    stopped: InputError | None = None
                    try:
                        for record in found.parse(path, ctx):
                            if isinstance(record, Invalid):
                                if not skip_invalid:
                                    file_errors.append(record.error)
                                    break
                                _note_skipped(file_report, record.error)
                                continue
                            writer.write(record)
                    except InputError as exc:
                        if not skip_invalid or writer.study_id is None:
                            raise
                        # The file stops being readable here (a truncated last line, say):
                        # keep the records read before it and list the rest as skipped.
                        stopped = exc
                        _note_skipped(file_report, exc)
                    if file_errors:
                        raise ImportFailed(file_errors)
                    file_report.counts.update(writer.finish(partial=stopped is not None))
                    file_report.study = writer.study_id
                    if stopped is not None:
                        file_report.note = f"stopped at: {stopped}"
            except InputError as exc:
                file_errors = [exc]
            except ImportFailed:
                pass
            if file_errors:
                if skip_invalid:
                    file_report.status = "failed"
                    file_report.counts = {}
                    file_report.skipped = [str(e) for e in file_errors]
                    file_report.note = "file skipped: nothing from it was stored"
                else:
                    errors.extend(file_errors)
            report.files.append(file_report)
        if errors:
            raise ImportFailed(errors)
    refresh_views(db)  # a newly imported rubric may add score columns to latest_judgments
    return report
