"""What an import will read: the paths named, expanded into files, each with its format and
study, before anything is parsed.

A folder recognised as a run folder (:mod:`abp_tui.formats.layouts`) is one study: its files go
into the study the layout names, its manifest first, and the subfolders it skips are listed once
each with the reason. Any other folder imports each file of a known format in it (and each run
folder below it as one study each) and lists the files it skipped. A file named on its own must
be importable: a broken JSON file says where the JSON breaks, an unknown one how to convert it.
Nothing here reads a record or touches the database.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from abp_tui.errors import ImportFailed, InputError
from abp_tui.formats import detect, not_imported, unknown_format
from abp_tui.formats.base import Format, head_bytes, malformed_json
from abp_tui.formats.layouts import Layout, recognise
from abp_tui.text.input_files import not_regular


@dataclass(frozen=True)
class PlannedFile:
    """One file to import, or to list as skipped (``fmt`` None, with ``note``)."""

    path: Path
    fmt: Format | None
    study: str | None = None
    """The study a run folder names (``--study`` still wins); None: the file names its own."""
    note: str = ""
    """Why the file is skipped (no known format, an AI judge's verdicts...)."""
    error: InputError | None = None
    """A file found in a folder cannot be read at all (broken JSON): the import is refused
    over it, also with ``--skip-invalid`` (which skips invalid records, never such a file)."""


@dataclass(frozen=True)
class FolderPlan:
    """A run folder found among the paths, as the import summary states it."""

    folder: str
    layout: str
    study: str | None
    naming: str
    notes: list[str] = field(default_factory=list)
    """One line per subfolder not imported as files of its own, with why:
    ``reference_answer/: read with question.jsonl``."""


@dataclass
class ImportPlan:
    files: list[PlannedFile] = field(default_factory=list)
    folders: list[FolderPlan] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        """The size of every file to import, for progress over the whole import."""
        total = 0
        for planned in self.files:
            if planned.fmt is not None:
                with contextlib.suppress(OSError):  # unreadable: the import will say so
                    total += planned.path.stat().st_size
        return total


def _visible(path: Path, root: Path) -> bool:
    return not any(part.startswith(".") for part in path.relative_to(root).parts)


def _one(path: Path, fmt: Format | None, study: str | None) -> PlannedFile:
    """A file found in a folder: its format, or why it is skipped."""
    if fmt is not None:
        return PlannedFile(path, fmt, study)
    note = not_imported(path)
    if note is not None:
        return PlannedFile(path, None, note=note)
    found = detect(path)
    if found is not None:
        return PlannedFile(path, found, study)
    broken = malformed_json(path, str(path), head_bytes(path))
    if broken is not None:
        return PlannedFile(path, None, error=broken)
    return PlannedFile(path, None, note="no known format")


def _run_folder(folder: Path, layout: Layout, fmt: Format | None, plan: ImportPlan) -> None:
    files = [p for p in folder.rglob("*") if p.is_file() and _visible(p, folder)]
    ranked = sorted(files, key=lambda p: layout.rank(p.relative_to(folder).as_posix()))
    skipped: dict[str, None] = {}
    for path in ranked:
        held = layout.skipped(path.relative_to(folder).as_posix())
        if held is not None:
            skipped[held] = None
            continue
        plan.files.append(_one(path, fmt, layout.study))
    plan.folders.append(
        FolderPlan(
            str(folder),
            layout.name,
            layout.study,
            layout.naming,
            [f"{name}: {layout.skip[name]}" for name in skipped],
        )
    )


def _folder(folder: Path, fmt: Format | None, plan: ImportPlan) -> None:
    layout = recognise(folder)
    if layout is not None:
        _run_folder(folder, layout, fmt, plan)
        return
    children = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    for child in children:
        if child.is_file():
            plan.files.append(_one(child, fmt, None))
    for child in children:
        if child.is_dir():
            _folder(child, fmt, plan)


def plan_import(paths: Iterable[Path], fmt: Format | None) -> ImportPlan:
    """Expand the paths named into the files to import. Raises ImportFailed naming every path
    that is missing, and every file named on its own that no format can read."""
    plan = ImportPlan()
    problems: list[InputError] = []
    for path in paths:
        if path.is_dir():
            _folder(path, fmt, plan)
        elif path.is_file():
            if fmt is not None:
                plan.files.append(PlannedFile(path, fmt))
                continue
            note = not_imported(path)
            found = detect(path) if note is None else None
            if note is not None:
                problems.append(InputError(str(path), note))
            elif found is None:
                problems.append(unknown_format(path, str(path)))
            else:
                plan.files.append(PlannedFile(path, found))
        else:
            kind = not_regular(path)
            problems.append(
                InputError(str(path), f"{kind}: expected a file or folder of run records")
                if kind is not None
                else InputError(str(path), "no such file or folder")
            )
    if problems:
        raise ImportFailed(problems)
    return plan


def content_sha256(path: Path, companions: list[Path]) -> tuple[str, int]:
    """SHA-256 of the file's bytes and its size; the files a parser reads with it (MT-Bench's
    reference answers) are hashed after it, so a change to one of them is a new import."""
    hasher = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            hasher.update(chunk)
            size += len(chunk)
    for other in companions:
        hasher.update(b"\0" + other.name.encode("utf-8") + b"\0")
        with other.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                hasher.update(chunk)
    return hasher.hexdigest(), size


@dataclass(frozen=True)
class ImportProgress:
    """How far an import got: reported now and then while it reads, for a progress bar."""

    file: str
    """The file being read, as displayed."""
    number: int
    """Its position among the files to import (1-based)."""
    files: int
    """How many files the import reads."""
    done: int
    """Bytes read so far, over every file."""
    total: int
    """Bytes of every file to import."""
