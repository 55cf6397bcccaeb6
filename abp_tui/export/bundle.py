"""Publication bundles (a folder and a zip with the same bytes) and their verification.

:func:`bundle_files` derives every table, plot and the report from a bundle's source files and
lists every file's SHA-256 in ``manifest.json``; :func:`write_bundle` writes the folder and the
zip atomically: everything goes into temporary names beside the targets, which are renamed into
place at the end; on any failure nothing half-written remains. Two exports of the same judgments
are byte-identical: fixed file order, fixed zip timestamps and permissions, sorted JSON keys, and
no clock reading in any file (the only times are those stored in the records). Collecting the
source files from the database, and recording an export, is
:mod:`abp_tui.services.publishing`'s: nothing here reads or writes the database.

``verify`` reads a bundle (folder or zip, refusing unsafe paths and links), recomputes every hash
in the manifest and re-derives every derived file from the bundle's own source files with the
same function the export used, at the confidence level the manifest records; before that, what
the records claim beyond their hashes is checked (:mod:`abp_tui.export.claims`: the design hash
recomputed from the bundle's document and rubric, the planned tasks, conditions, runs and time
it commits to, the design's framing of the study and
conditions, each engine run's model, the design's times, no file an export does not write). The
first difference is raised, naming the file: the first member whose bytes are not the ones
listed, as if every member were hashed before any is parsed. Each member is read once, a chunk
at a time: the records it parses are hashed as they are parsed, a line at a time (a file whose
bytes differ is refused before its last line is handed on), and counted against a budget as
they are read (:class:`abp_tui.export.bundle_reading.HeldBudget`): what stays in memory is
what the analysis keeps of them; every other member is only hashed; the derived files are
re-derived one at a time (the largest a piece at a time) and compared by the SHA-256 of the
bytes re-derived, never held. An export writes each file as it is made
(:mod:`abp_tui.export.bundle_writing`). A protocol-only bundle (:mod:`abp_tui.export.protocol`)
is checked by that module's rules once its hashes are.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import secrets
import shutil
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Any, Final

from abp_tui import __version__
from abp_tui.analysis.commitment import COMMITMENT_KEY
from abp_tui.analysis.results.tallies import DEFAULT_CONFIDENCE, confidence_level
from abp_tui.errors import writing
from abp_tui.export import records as rec
from abp_tui.export.bundle_analysis import Analysis, Inputs, analyse, parse
from abp_tui.export.bundle_reading import (
    MAX_BUNDLE_BYTES,
    Bundle,
    HeldBudget,
    Listing,
    Records,
    default_limits,
    open_bundle,
    read_bundle,
)
from abp_tui.export.canonical import json_chunks
from abp_tui.export.claims import (
    check_commitment,
    check_design_hash,
    check_framing,
    check_models,
    check_produced,
    check_times,
    committed_checked,
)
from abp_tui.export.derive import ABP_VERDICT, STATUS, Derived, derive, derive_each
from abp_tui.export.errors import BundleMismatch, ExportError
from abp_tui.export.manifest_reading import Entries, listed_twice, read_manifest
from abp_tui.export.protocol import (
    PROTOCOL_STATUS,
    check_plan,
    check_protocol,
)
from abp_tui.export.targets import check_target
from abp_tui.export.verdict import SCHEMA_NAME as VERDICT_SCHEMA
from abp_tui.runtime import collector_paused, phase
from abp_tui.text.canonical import sha256_bytes
from abp_tui.text.safe import safe_line

ZIP_DATE: Final = (1980, 1, 1, 0, 0, 0)
"""Every zip member's timestamp: the earliest a zip can hold, so no clock enters the archive."""
ZIP_MODE: Final = 0o100644
ZIP_LEVEL: Final = 6
REPRODUCE: Final = "abp-tui verify ."
ENVIRONMENT_PACKAGES: Final = ("numpy", "scipy", "pydantic", "krippendorff")


@dataclass(frozen=True)
class VerifyReport:
    path: Path
    study: str
    design: str
    status: str
    files: int
    """Files whose hash was checked (the manifest included)."""
    derived: int
    """Derived files re-derived from the bundle's records and found identical."""
    design_sha256: str = ""
    """The design hash the bundle records (and its results state)."""
    design_hash_recomputed: bool = False
    """Whether ``verify`` recomputed it from the bundle's document and rubric (False: a design
    stored before plan secrets, whose hash no bundle can recompute)."""
    manifest_sha256: str = ""
    """SHA-256 of ``manifest.json``, which binds every file of the bundle: the export prints
    it and the audit log records it, so a reader compares it with the one published."""
    records_bound: bool = False
    """Whether the design hash commits to the tasks, conditions and runs it planned and to its
    ``created_at``, and ``verify`` found them unchanged (False: an older design format, whose
    hash does not bind task texts, condition labels, run records nor times)."""


# -- writing ---------------------------------------------------------------------------------------
def _environment() -> dict[str, str]:
    env = {"python": platform.python_version()}
    for name in ENVIRONMENT_PACKAGES:
        try:
            env[name] = dist_version(name)
        except PackageNotFoundError:  # pragma: no cover - all are dependencies
            env[name] = "not installed"
    return env


def environment() -> dict[str, str]:
    """The versions a manifest records (Python and the packages that compute derived files)."""
    return _environment()


def _manifest(
    files: dict[str, bytes], derived: list[str], analysis: Analysis, confidence: float
) -> bytes:
    listing = [(p, sha256_bytes(files[p]), len(files[p])) for p in sorted(files)]
    return manifest_bytes(listing, json.loads(files[STATUS]), derived, analysis, confidence)


def manifest_bytes(
    listing: list[tuple[str, str, int]],
    status: dict[str, Any],
    derived: list[str],
    analysis: Analysis,
    confidence: float,
) -> bytes:
    """``manifest.json`` of a bundle whose files are ``listing`` (path, SHA-256, bytes, in the
    order of their paths), its gate ``status`` (``status.json``'s document) and ``derived``
    files."""
    return b"".join(manifest_chunks(listing, status, derived, analysis, confidence))


def manifest_chunks(
    listing: Iterable[tuple[str, str, int]],
    status: dict[str, Any],
    derived: list[str],
    analysis: Analysis,
    confidence: float,
) -> Iterator[bytes]:
    """The bytes of :func:`manifest_bytes`, its list of files an entry at a time as ``listing``
    gives them, in the order of their paths (a large study's bundle lists a few hundred
    thousand: they are never all held at once, nor sorted here)."""
    inputs = analysis.inputs
    document = {
        "schema": rec.BUNDLE_SCHEMA,
        "tool": {"name": "abp-tui", "version": __version__},
        "environment": _environment(),
        "study": inputs.study.id,
        "synthetic": inputs.study.synthetic,
        "design": {
            "name": inputs.design.name,
            "version": inputs.design.version,
            "sha256": inputs.design.sha256,
            "seed": inputs.design.seed,
        },
        "seed": inputs.design.seed,
        "confidence": confidence,
        "status": status["status"],
        "missing": status["missing"],
        "schemas": {
            "bundle": rec.BUNDLE_SCHEMA,
            "records": rec.RECORDS_SCHEMA,
            "summary": rec.SUMMARY_SCHEMA,
            "verdicts": rec.VERDICTS_SCHEMA,
            "judgments_csv": rec.JUDGMENTS_CSV_SCHEMA,
            "abp_verdict": VERDICT_SCHEMA,
        },
        "reproduce": REPRODUCE,
        "reproduce_note": "Run in the bundle's folder, or name the .zip instead of '.': "
        "every hash is recomputed and every derived file re-derived from the bundle's "
        "own records.",
        "derived": sorted(derived),
    }
    entries = ({"path": p, "sha256": sha, "bytes": size} for p, sha, size in listing)
    return json_chunks(document, {"files": entries})


def bundle_files(
    source: Mapping[str, bytes], analysis: Analysis, confidence: float = DEFAULT_CONFIDENCE
) -> dict[str, bytes]:
    """Every file of a bundle (path -> bytes), the manifest included, from its source files and
    their analysis (``analyse(parse(source))``), its results' intervals at ``confidence``."""
    confidence = confidence_level(confidence)
    derived = derive(source, analysis, confidence)
    files = {**source, **derived}
    files[rec.MANIFEST] = _manifest(files, list(derived), analysis, confidence)
    return files


def _order(path: str) -> tuple[bool, str]:
    return (path != rec.MANIFEST, path)


def write_zip(target: Path, files: dict[str, bytes]) -> None:
    """A deterministic zip: fixed order (manifest first), timestamps, permissions and level."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL) as zf:
        for path in sorted(files, key=_order):
            info = zipfile.ZipInfo(path, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = ZIP_MODE << 16
            zf.writestr(info, files[path], compresslevel=ZIP_LEVEL)


def write_folder(target: Path, files: dict[str, bytes]) -> None:
    for path in sorted(files, key=_order):
        out = target / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(files[path])


@contextmanager
def swap_in(folder: Path, zip_path: Path) -> Iterator[tuple[Path, Path]]:
    """Temporary folder and zip beside the targets, renamed into place when the block ends
    without an error; on an error both are removed and the targets are left as they were."""
    parent = folder.parent
    parent.mkdir(parents=True, exist_ok=True)
    if folder.exists() and not (folder.is_dir() and (folder / rec.MANIFEST).is_file()):
        raise ExportError(f"{folder} exists and is not a bundle: refusing to replace it")
    if zip_path.exists() and not zip_path.is_file():
        raise ExportError(f"{zip_path} exists and is not a file: refusing to replace it")
    # Named by hand rather than by tempfile, whose files and folders are private (0600/0700):
    # the bundle keeps the permissions the user's umask gives any new file.
    token = secrets.token_hex(8)
    tmp = parent / f".{folder.name}.{token}.partial"
    tmp_zip = parent / f".{folder.name}.{token}.zip.partial"
    tmp.mkdir()
    backup: Path | None = None
    placed = False
    try:
        yield tmp, tmp_zip
        if folder.exists():
            backup = parent / f"{tmp.name}.previous"
            folder.rename(backup)
        tmp.rename(folder)
        placed = True
        os.replace(tmp_zip, zip_path)
    except BaseException:
        if placed:
            shutil.rmtree(folder, ignore_errors=True)
        if backup is not None and backup.exists():
            backup.rename(folder)
        shutil.rmtree(tmp, ignore_errors=True)
        tmp_zip.unlink(missing_ok=True)
        raise
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)


def write_bundle(out_dir: Path, files: dict[str, bytes]) -> Path:
    """Write a bundle's files to the folder ``out_dir`` and to ``out_dir.zip``, atomically (an
    existing bundle there is replaced; anything else there is refused); return the zip's path.
    What the disk refuses (full, read-only) is one WriteError, with nothing left behind."""
    out_dir = Path(out_dir)
    zip_path = out_dir.parent / f"{out_dir.name}.zip"
    with writing(out_dir), swap_in(out_dir, zip_path) as (tmp, tmp_zip):
        write_folder(tmp, files)
        write_zip(tmp_zip, files)
    return zip_path


@contextmanager
def placed_when_done(path: Path, data: bytes, what: str = "the export") -> Iterator[None]:
    """Write ``data`` under a temporary name beside ``path``, renamed into place when the block
    ends without an error and removed when it does not (so a caller records what it wrote
    inside the block, and a failed record leaves no file). What the disk refuses (full,
    read-only) is one WriteError naming ``path``, with no temporary file left."""
    path = Path(path)
    check_target(path, "file", what)  # a folder, a pipe or a path under a file: one line
    tmp = path.parent / f".{path.name}.{secrets.token_hex(8)}.partial"
    try:
        with writing(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            with tmp.open("xb") as out:
                out.write(data)
        yield
        with writing(path):
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_file(path: Path, data: bytes) -> None:
    """Write one exported file atomically (a temporary name beside it, renamed into place)."""
    with placed_when_done(path, data):
        pass


# -- reading and verifying -------------------------------------------------------------------------
MAX_MANIFEST_BYTES: Final = 64 << 20
"""A manifest larger than this is refused unread (one lists a file in about 150 bytes) ..."""
MANIFEST_BYTES_PER_MEMBER: Final = 512
"""... unless the bundle has so many members that their listing takes more: then up to this
much a member (a 400,000-pair study's bundle lists 800,000 raw outputs in 124 MB)."""


def manifest_limit(members: int) -> int:
    """The largest manifest ``verify`` reads, of a bundle of ``members`` files."""
    return max(MAX_MANIFEST_BYTES, MANIFEST_BYTES_PER_MEMBER * members)


def _streamed(path: str) -> bool:
    """Whether ``verify`` only hashes this file (a raw output, a trace or a diff), never parses
    it."""
    return path.startswith((rec.OUTPUTS_DIR, rec.TRACES_DIR, rec.DIFFS_DIR))


def _first_difference(expected: bytes, found: bytes) -> str:
    want = expected.decode("utf-8", "replace").splitlines()
    got = found.decode("utf-8", "replace").splitlines()
    for number, (a, b) in enumerate(zip(want, got, strict=False), start=1):
        if a != b:
            col = next(
                (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)),
            )
            start = max(0, col - 40)
            return (
                f"line {number}, column {col + 1}: the records give "
                f"{safe_line(a[start : start + 100])!r}, the file has "
                f"{safe_line(b[start : start + 100])!r}"
            )
    return f"the records give {len(want)} lines, the file has {len(got)}"


def verify(bundle_path: Path) -> VerifyReport:
    """Check a bundle; raises BundleMismatch naming the first file that does not verify.

    Nothing is read before it is expected: the members are listed and checked first
    (:mod:`abp_tui.export.bundle_reading`), then the manifest is read and every size it lists is
    compared with the member's before any is hashed; each member is read once, streaming: the
    records hashed as they are parsed a line at a time, the rest hashed, and the derived files
    compared by hash.
    """
    bundle_path = Path(bundle_path)
    phase("listing the bundle's files")
    with collector_paused(), open_bundle(bundle_path) as bundle:
        return _verify(bundle)


def _check_listing(
    bundle: Bundle, entries: Entries, protocol_only: bool, derived: set[str]
) -> Listing:
    """The manifest's files (path -> SHA-256, size), each found in the bundle at the size the
    manifest gives, and no other file there: all known before a byte is hashed."""
    twice = listed_twice(entries.paths)
    if twice is not None:
        raise BundleMismatch(twice, "listed more than once in manifest.json")
    listed = Listing(bundle)
    for at, path in enumerate(entries.paths):
        member = bundle.find(path)
        if member is None:
            raise BundleMismatch(path, "listed in manifest.json but missing from the bundle")
        found, size = bundle.sizes[member], entries.sizes[at]
        if found != size:
            raise BundleMismatch(
                path,
                f"SHA-256 not computed: the file has {found} bytes, manifest.json lists {size} "
                "(the file changed)",
            )
        listed.add(member, entries.shas[32 * at : 32 * at + 32])
    extra = sorted(
        name
        for member, name in enumerate(bundle.names)
        if not listed.listed(member) and name != rec.MANIFEST
    )
    if extra:
        raise BundleMismatch(extra[0], "not listed in manifest.json")
    # Derived files are only hashed (their re-derived bytes are compared by SHA-256); the
    # source records are parsed, and the analysis holds them parsed.
    parsed = 0
    for path in entries.paths:
        if protocol_only or not _streamed(path):
            bomb = bundle.bomb(path)
            if bomb is not None:  # it would be read whole to be parsed or compared
                raise BundleMismatch(path, bomb)
            if path not in derived:
                parsed += bundle.sizes[bundle.find(path) or 0]
    held, _lines = default_limits()
    if parsed > held:
        raise BundleMismatch(
            rec.MANIFEST,
            f"lists {parsed} bytes of records to re-derive from, more than verify holds in "
            f"memory ({held >> 20} MiB)",
        )
    return listed


def _verify(bundle: Bundle) -> VerifyReport:
    size = bundle.size(rec.MANIFEST)
    if size is None:
        raise BundleMismatch(rec.MANIFEST, "missing: this is not a publication bundle")
    limit = manifest_limit(len(bundle))
    if size > limit:
        raise BundleMismatch(
            rec.MANIFEST,
            f"{size} bytes, more than the manifest of {len(bundle)} files holds ({limit})",
        )
    manifest_data = bundle.read(rec.MANIFEST, size)
    manifest_sha256 = sha256_bytes(manifest_data)
    manifest, entries, protocol_only, confidence = read_manifest(manifest_data)
    del manifest_data  # a large study's manifest lists a few hundred thousand files
    declared_derived = set(manifest.get("derived", []))
    listed = _check_listing(bundle, entries, protocol_only, declared_derived)
    checked = len(listed) + 1  # the manifest's own hash is checked by the reader
    del entries  # what is left of the listing is ``listed``
    # Each member is read once. The records to parse are hashed as they are parsed (each
    # refused, before its last line is handed on, when its bytes are not the ones listed);
    # every other member is hashed here, a chunk at a time.
    records = Records(
        bundle,
        {p: v for p, v in listed.entries() if protocol_only or not _streamed(p)},
        HeldBudget(),
        () if protocol_only else (p for p in sorted(declared_derived) if p in listed),
    )
    parsed: list[str] = []
    phase(f"hashing {len(listed):,} files")
    for at, (path, (sha, size)) in enumerate(listed.entries()):
        if protocol_only or not (_streamed(path) or path in declared_derived):
            parsed.append(path)
            continue
        try:
            bundle.check(path, size, sha, at=listed.member(at))
        except BundleMismatch:
            records.check_unread(parsed)  # a record listed before it and changed is named
            raise
    del parsed
    with _hashes_first(records):
        report = _verified(records, manifest, listed, protocol_only, confidence)
        records.check_unread()  # a record no check read
    return replace(report, files=checked, manifest_sha256=manifest_sha256)


@contextmanager
def _hashes_first(records: Records) -> Iterator[None]:
    """A difference found while the records are parsed and checked is named as it would be had
    every member been hashed before any was parsed: the first member whose bytes are not the
    ones listed, if there is one (its parse error, or what a check made of its records, is
    not the mismatch), else the difference itself."""
    try:
        yield
    except BundleMismatch:
        records.check_unread()
        raise


def _verified(
    records: Records,
    manifest: dict[str, Any],
    listed: Listing,
    protocol_only: bool,
    confidence: float,
) -> VerifyReport:
    """The checks past the hashes, on the records as they are read (the report's count of
    files and the manifest's hash are the caller's)."""
    bundle = records.bundle
    bundle_path = bundle.path
    declared_derived = manifest.get("derived", [])
    if protocol_only:
        protocol = {path: records[path] for path in records}
        study, design = check_protocol(protocol, manifest)
        return VerifyReport(
            bundle_path,
            study,
            design.name,
            PROTOCOL_STATUS,
            0,
            0,
            design.sha256,
            design.plan_hmac is not None,
            "",
            COMMITMENT_KEY in design.document,  # checked by check_protocol
        )

    # The records are parsed as they are read and hashed, one file at a time.
    files: Mapping[str, bytes] = records
    phase("reading the records")
    inputs = parse(files, hashed=True)
    phase("checking the plan and the design's commitments")
    # The revealed plan secret opens its commitment and gives the plan, a human budget's draws
    # (each probability and draw re-derived) and the placements.
    check_plan(inputs)
    tool = manifest.get("tool", {}).get("version")
    # What the records claim beyond their hashes (abp_tui.export.claims), before anything is
    # re-derived from them, so that the first difference named is the edited record's.
    recomputed = check_design_hash(files, inputs.design, tool, inputs)
    check_framing(inputs.study, inputs.study_design, inputs.conditions)
    check_models(inputs)
    check_times(inputs.design, inputs)
    # What is left to a forger past those checks, bound by the hash recomputed above.
    bound = recomputed and check_commitment(files, inputs.design, inputs)
    inputs = committed_checked(inputs)  # each task's hash, twice held, is read no more
    for run in inputs.runs:
        located = run.located()  # read once: each read inflates the run's references
        output, diff = located.get("output"), located.get("diff")
        if output is not None:
            digest = listed.get(output["path"], (None, 0))[0]
            if digest is None:
                raise BundleMismatch(output["path"], f"raw output of run {run.id!r} is missing")
            if digest != output["sha256"]:
                raise BundleMismatch(
                    output["path"],
                    f"raw output of run {run.id!r} does not match the SHA-256 in {rec.RUNS}",
                )
        if diff is not None:
            digest = listed.get(diff["path"], (None, 0))[0]
            if digest is None:
                raise BundleMismatch(diff["path"], f"diff of run {run.id!r} is missing")
            if digest != diff["sha256"]:
                raise BundleMismatch(
                    diff["path"],
                    f"diff of run {run.id!r} does not match the SHA-256 in {rec.RUNS}",
                )
    phase("deciding the final verdicts")
    analysis = analyse_or_refuse(inputs)
    # Each derived file is hashed as it is made, a piece at a time, and dropped.
    derived: dict[str, str] = {}
    status_bytes = b""
    phase("re-deriving the results")
    for path, data in derive_or_refuse(files, analysis, confidence):
        phase(f"re-deriving {path}")
        made = hashlib.sha256()
        for chunk in (data,) if isinstance(data, bytes) else data:
            made.update(chunk)
            if path == STATUS:
                status_bytes += chunk
        derived[path] = made.hexdigest()
    check_produced(listed, inputs, derived)
    note = ""
    if tool != __version__ or manifest.get("environment") != _environment():
        note = (
            f" (note: the bundle was made with abp-tui {tool} and {manifest.get('environment')}; "
            f"this is abp-tui {__version__} with {_environment()})"
        )
    for path in sorted(set(derived) | set(declared_derived)):
        if path not in derived:
            raise BundleMismatch(path, "listed as derived, but no record derives it" + note)
        if path not in listed:
            raise BundleMismatch(path, "missing from the bundle")
        # The file's hash was checked against the manifest's: the bytes re-derived are
        # compared by theirs, and made again and the file read again only to show where
        # they differ.
        sha, size = listed[path]
        if derived[path] != sha:
            again = dict(derive_or_refuse(files, analysis, confidence))[path]
            expected = again if isinstance(again, bytes) else b"".join(again)
            found = bundle.read(path, size)
            raise BundleMismatch(path, _first_difference(expected, found) + note)
    status = json.loads(status_bytes)["status"]
    if manifest.get("status") != status:
        raise BundleMismatch(
            rec.MANIFEST, f"status {manifest.get('status')!r}, the records give {status!r}"
        )
    design = inputs.design
    if manifest.get("design", {}).get("sha256") != design.sha256:
        raise BundleMismatch(rec.MANIFEST, f"design hash differs from {rec.DESIGN}'s")
    _check_manifest_names(manifest, inputs.study.id, inputs.study.synthetic, design)
    return VerifyReport(
        bundle_path,
        inputs.study.id,
        design.name,
        status,
        0,
        len(derived),
        design.sha256,
        recomputed,
        "",
        bound,
    )


def analyse_or_refuse(inputs: Inputs) -> Analysis:
    """The analysis of a bundle's records; records the rules cannot take are a mismatch."""
    try:
        return analyse(inputs)
    except _INCONSISTENT as exc:
        raise _inconsistent(exc) from None


def derive_or_refuse(
    files: Mapping[str, bytes], analysis: Analysis, confidence: float
) -> Iterator[tuple[str, Derived]]:
    """:func:`abp_tui.export.derive.derive_each`, records it cannot derive from a mismatch."""
    made = derive_each(files, analysis, confidence)
    while True:
        try:
            path, data = next(made)
        except StopIteration:
            return
        except _INCONSISTENT as exc:
            raise _inconsistent(exc) from None
        if isinstance(data, bytes):
            yield path, data
        else:
            yield path, _refusing(data)


_INCONSISTENT: Final = (KeyError, ValueError, TypeError, IndexError, ArithmeticError)


def _inconsistent(exc: BaseException) -> BundleMismatch:
    return BundleMismatch(
        "records",
        f"the bundle's records are inconsistent and cannot be re-derived "
        f"({type(exc).__name__}: {exc})",
    )


def _refusing(chunks: Iterator[bytes]) -> Iterator[bytes]:
    try:
        yield from chunks
    except _INCONSISTENT as exc:
        raise _inconsistent(exc) from None


def _check_manifest_names(
    manifest: dict[str, Any], study: str, synthetic: bool, design: rec.PublishedDesign
) -> None:
    """The manifest names the study and design its records are (a manifest is read by people
    and tools before anything else: it must not describe another study)."""
    expected: dict[str, object] = {
        "study": study,
        "synthetic": synthetic,
        "seed": design.seed,
        "design.name": design.name,
        "design.version": design.version,
        "design.seed": design.seed,
    }
    for key, value in expected.items():
        found: Any = manifest
        for part in key.split("."):
            found = found.get(part) if isinstance(found, dict) else None
        if found != value or type(found) is not type(value):
            shown = safe_line(json.dumps(found, ensure_ascii=False))[:80]
            raise BundleMismatch(
                rec.MANIFEST,
                f"{key} is {shown}, the records give {safe_line(json.dumps(value))[:80]}",
            )


__all__ = [
    "ABP_VERDICT",
    "MAX_BUNDLE_BYTES",
    "VerifyReport",
    "bundle_files",
    "environment",
    "manifest_bytes",
    "placed_when_done",
    "read_bundle",
    "verify",
    "write_bundle",
    "write_file",
    "write_folder",
    "write_zip",
]
