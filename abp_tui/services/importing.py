"""Import files into the store: detect each file's format, parse it, store it, all or nothing.

The whole command is all or nothing: if any file cannot be read, or has an invalid record (and
``skip_invalid`` is off), nothing is written and every error found is reported. Trace events are
staged in short committed batches that nothing can see until the command's one final transaction
writes the rest (:mod:`abp_tui.store.staging`). With ``skip_invalid`` the invalid records of
readable files are skipped, listed, and the rest is stored; a file that cannot be read as a whole
(a JSON document that does not parse) still refuses the import: skipping records cannot help it.

What is read is planned first (:mod:`abp_tui.services.import_plan`): a run folder is one study,
named as its layout states. Every invalid record of every file is found before the import is
refused; the first :data:`MAX_ERRORS_LISTED` are listed and the rest counted.
"""

from __future__ import annotations

import contextlib
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ParamSpec, TypeVar

import sqlite_utils

from abp_tui.errors import ImportFailed, InputError
from abp_tui.formats import format_by_name
from abp_tui.formats.base import Invalid, ParseContext, build_records
from abp_tui.runtime import collector_paused
from abp_tui.services.import_plan import (
    FolderPlan,
    ImportProgress,
    content_sha256,
    plan_import,
)
from abp_tui.services.roles import require
from abp_tui.store import ImportWriter, import_sessions, task_order
from abp_tui.store.db import translated
from abp_tui.store.queries import import_seen
from abp_tui.store.staging import SpoolBudget, StagedFile
from abp_tui.store.views import refresh_views
from abp_tui.text.counts import counted, counts_text
from abp_tui.text.safe import safe_line

MAX_ERRORS_LISTED = 20
"""Problems listed (of a refused import, or skipped per file); the rest are counted."""

Progress = Callable[[ImportProgress], None]
"""Called now and then with how far the import got."""


@dataclass
class FileReport:
    """What happened to one file."""

    file: str
    format: str | None
    status: str
    """imported | unchanged (already imported) | skipped (no known format)."""
    study: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    """Invalid records skipped under --skip-invalid, as messages."""
    note: str = ""


@dataclass
class ImportReport:
    files: list[FileReport] = field(default_factory=list)
    folders: list[FolderPlan] = field(default_factory=list)
    """The run folders found, each with its study and how it was named."""

    @property
    def totals(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for f in self.files:
            total.update(f.counts)
        return dict(sorted(total.items()))

    @property
    def summary(self) -> str:
        """The one line that ends an import, as the command line and the workstation say it:
        how many files were imported (unchanged, skipped) and what they added."""
        files = Counter(f.status for f in self.files)
        read = ", ".join(
            f"{counted(files[s], 'file')} {s}"
            for s in ("imported", "unchanged", "skipped")
            if files[s]
        )
        added = counts_text({k: v for k, v in self.totals.items() if "unchanged" not in k})
        if not added:
            return "Nothing new was added." + (f" {_sentence(read)}." if read else "")
        return f"{_sentence(read)}: {added}." if read else f"{_sentence(added)}."


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _bind_progress(
    progress: Progress, display: str, number: int, files: int, before: int, total: int
) -> Callable[[int], None]:
    """The parser's callback (bytes read of this file) as progress over the whole import."""

    def report(pos: int) -> None:
        progress(ImportProgress(display, number, files, min(before + pos, total), total))

    report(0)
    return report


def _note_skipped(report: FileReport, error: InputError) -> None:
    if len(report.skipped) < MAX_ERRORS_LISTED:
        report.skipped.append(str(error))
    report.counts["records skipped"] = report.counts.get("records skipped", 0) + 1


def _unchanged(display: str, fmt: str | None, seen: str) -> FileReport:
    return FileReport(display, fmt, "unchanged", note=f"already imported at {seen}; nothing added")


P = ParamSpec("P")
R = TypeVar("R")


@contextlib.contextmanager
def _rolled_back_on_error(
    staged: list[tuple[FileReport, StagedFile, InputError | None, str, str | None]],
) -> Iterator[None]:
    """A transaction that failed after some files were committed into it rolled them back:
    their staged traces are to be discarded again."""
    try:
        yield
    except BaseException:
        for _, stage, *_ in staged:
            stage.rolled_back()
        raise


def _without_cycle_collection(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func`` with the cycle collector paused. An import holds hundreds of thousands of
    records until its end, which the collector kept walking (a twentieth of a large pairwise
    import) to find nothing: records hold no cycles. Reference counting frees the rest."""

    @functools.wraps(func)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        with collector_paused():
            return func(*args, **kwargs)

    return paused


@_without_cycle_collection
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
    record and ``skip_invalid`` is off. The import is recorded as in progress while it stages
    (:mod:`abp_tui.store.import_sessions`), and first deletes what imports that never finished
    left staged. Refused to a team session's reviewer or adjudicator: only a coordinator
    adds records to the team's database (:mod:`abp_tui.services.roles`).
    """
    require("import")
    run = functools.partial(
        _import_paths,
        db,
        paths,
        study=study,
        fmt=fmt,
        skip_invalid=skip_invalid,
        options=options,
        progress=progress,
    )
    if db.conn.in_transaction:  # nothing is committed before the caller's own commit
        return run()
    with translated(getattr(db, "path", "the database")):
        session = import_sessions.begin(db)
    try:
        with translated(getattr(db, "path", "the database")):
            import_sessions.clean_stale(db, own=session, sweep=True)
        return run()
    finally:
        import_sessions.end(db, session)


def _import_paths(
    db: sqlite_utils.Database,
    paths: Iterable[Path],
    *,
    study: str | None,
    fmt: str | None,
    skip_invalid: bool,
    options: dict[str, str] | None,
    progress: Progress | None,
) -> ImportReport:
    build_records()  # before any file's loop makes its first record
    chosen = format_by_name(fmt) if fmt else None
    plan = plan_import(paths, chosen)
    report = ImportReport(folders=plan.folders)
    errors: list[InputError] = []
    found_errors = 0
    total_bytes = plan.total_bytes
    done_bytes = 0
    to_read = sum(1 for f in plan.files if f.fmt is not None)
    number = 0
    # Each file is parsed and staged first (its trace events committed in short batches, out of
    # sight); the rest of every file is written at the end in one short transaction, so a long
    # import never keeps reviewers' saves waiting and still writes nothing when refused.
    stages: list[StagedFile] = []
    budget = SpoolBudget()  # the memory every file's staged records share
    staged: list[tuple[FileReport, StagedFile, InputError | None, str, str | None]] = []
    staged_shas: dict[str, str] = {}
    try:
        for planned in plan.files:
            path, found = planned.path, planned.fmt
            display = str(path)
            if planned.error is not None:  # a file that cannot be read: never skipped
                found_errors += 1
                if len(errors) < MAX_ERRORS_LISTED:
                    errors.append(planned.error)
                continue
            if found is None:
                report.files.append(FileReport(display, None, "skipped", note=planned.note))
                continue
            number += 1
            file_study = study or planned.study
            try:
                sha, size = content_sha256(path, found.companions(path))
            except OSError as exc:
                found_errors += 1
                if len(errors) < MAX_ERRORS_LISTED:
                    errors.append(InputError(display, f"cannot read file: {exc.strerror}"))
                continue
            before, done_bytes = done_bytes, done_bytes + size
            seen = import_seen(db, sha, file_study)
            if seen is None and sha in staged_shas:
                seen = f"the same content as {staged_shas[sha]}, in this import"
            if seen is not None:
                report.files.append(_unchanged(display, found.name, seen))
                if progress is not None:
                    progress(ImportProgress(display, number, to_read, done_bytes, total_bytes))
                continue
            ctx = ParseContext(
                display=display, study_id=file_study, options=dict(options or {}), size=size
            )
            if progress is not None:
                ctx.progress = _bind_progress(
                    progress, display, number, to_read, before, total_bytes
                )
            # Once the import is refused, the files after are read only to list their problems
            # (with skip_invalid, only a file that cannot be read refuses it).
            listing_only = bool(found_errors)
            file_report = FileReport(display, found.name, "imported")
            file_errors: list[InputError] = []
            stage = StagedFile(db, ImportWriter(db, path.name, sha, size, found.name), budget)
            stages.append(stage)
            stopped: InputError | None = None
            try:
                try:
                    for record in found.parse(path, ctx):
                        if isinstance(record, Invalid):
                            if not skip_invalid:
                                # Keep reading (writing nothing more) to list every problem.
                                found_errors += 1
                                if len(errors) + len(file_errors) < MAX_ERRORS_LISTED:
                                    file_errors.append(record.error)
                                listing_only = True
                                continue
                            _note_skipped(file_report, record.error)
                            continue
                        if not listing_only:
                            stage.write(record)
                except InputError as exc:
                    # A document that stops parsing half-way (a JSON list is read item by
                    # item) is unusable as a whole: nothing of it is kept.
                    if not skip_invalid or stage.study_id is None or exc.whole_file:
                        raise
                    # The file stops being readable here (a truncated last line, say):
                    # keep the records read before it and list the rest as skipped.
                    stopped = exc
                    _note_skipped(file_report, exc)
            except InputError as exc:
                # The file cannot be read as a whole: skip_invalid skips invalid records of a
                # readable file, never a file like this one, so the import is refused over it.
                found_errors += 1
                if len(errors) + len(file_errors) < MAX_ERRORS_LISTED:
                    file_errors.append(exc)
            ctx.progress(size)  # read to its end (single documents say so only here)
            if file_errors or listing_only:
                stage.discard()
                errors.extend(file_errors)
            else:
                staged.append((file_report, stage, stopped, sha, file_study))
                staged_shas[sha] = display
            report.files.append(file_report)
        if found_errors:  # with skip_invalid, only files that cannot be read are counted
            raise ImportFailed(errors, omitted=found_errors - len(errors), skipping=skip_invalid)
        late: list[StagedFile] = []
        with _rolled_back_on_error(staged), db.atomic():
            for file_report, stage, stopped, sha, file_study in staged:
                # Another process may have imported the same file while this one parsed it.
                seen = import_seen(db, sha, file_study)
                if seen is not None:
                    late.append(stage)
                    index = report.files.index(file_report)
                    report.files[index] = _unchanged(file_report.file, file_report.format, seen)
                    continue
                file_report.counts.update(stage.commit(partial=stopped is not None))
                file_report.study = stage.study_id
                if stopped is not None:
                    file_report.note = f"stopped at: {stopped}"
        for stage in late:
            stage.discard()
    except BaseException:
        for stage in stages:
            stage.discard()
        raise
    refresh_views(db)  # a newly imported rubric may add score columns to latest_judgments
    # The home screen lists a study's tasks a page at a time, in natural order, from here.
    for study_id in sorted({f.study for f in report.files if f.study}):
        task_order.refresh(db, study_id)
    return report


def import_into(
    db_path: Path, paths: Iterable[Path], *, progress: Progress | None = None
) -> ImportReport:
    """:func:`import_paths` on the database at ``db_path`` (opened and closed here): what the
    workstation's import calls, as ``abp-tui import`` does, with the formats detected."""
    from abp_tui.store import connect

    db = connect(db_path)
    try:
        return import_paths(db, paths, progress=progress)
    finally:
        db.close()


def refusal_lines(exc: ImportFailed, listed: int = 50) -> list[str]:
    """A refused import as the user reads it, the command line and the workstation alike: what
    happened, each problem on its own line (the first ``listed``), and what to do about it.
    Record text is made safe (:func:`abp_tui.text.safe.safe_line`)."""
    total = len(exc.errors) + exc.omitted
    lines = [f"import refused; nothing was written ({counted(total, 'error')}):"]
    shown = exc.errors[:listed]
    lines += [f"  {safe_line(str(err))}" for err in shown]
    if total > len(shown):
        lines.append(f"  ... and {total - len(shown)} more (the first {len(shown)} listed)")
    # --skip-invalid skips invalid records of a readable file, never a file that does not
    # parse: suggested only where it helps.
    if not exc.skipping and any(
        (err.line is not None or err.path) and not err.whole_file for err in exc.errors
    ):
        lines.append("Fix the input, or use --skip-invalid to import the valid records.")
    return lines
