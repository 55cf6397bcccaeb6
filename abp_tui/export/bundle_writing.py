"""Writing a bundle as its files are made: each file goes to the folder the moment it exists,
hashed while it is written, and is read back from the disk when the derivation asks for it, so
an export holds no file's bytes longer than it takes to write it (a study's raw outputs, its
records) but those the analysis itself keeps. Each file is deflated as it is written, into one
spool, and what the manifest and the zip need of it (its hashes, sizes and where its deflated
bytes are) goes to a listing on the disk; the zip is then made from the spool in the bundle's
order (:mod:`abp_tui.export.zip_writing`), with the bytes :func:`abp_tui.export.bundle.write_zip`
gives the same files, and no file is read back for it.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import os
import struct
import tempfile
from collections.abc import Iterable, Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from abp_tui.analysis.results.tallies import DEFAULT_CONFIDENCE, confidence_level
from abp_tui.errors import writing
from abp_tui.export import records as rec
from abp_tui.export import zip_writing
from abp_tui.export.bundle import ZIP_DATE, ZIP_LEVEL, ZIP_MODE, manifest_chunks, swap_in
from abp_tui.export.bundle_analysis import Analysis
from abp_tui.export.canonical import jsonl_bytes, split_lines
from abp_tui.export.derive import STATUS, derive_each
from abp_tui.export.zip_writing import Deflated, Deflating
from abp_tui.runtime import phase
from abp_tui.text.canonical import canonical_json

CHUNK = 1 << 20
"""Bytes read back at a time from a file."""
KEEP = 64 << 10
"""Files of at most this many bytes (the protocol, the rubric, the status) are kept in memory
as well, being read several times; larger ones are read back from the disk when asked for."""
BATCH = 64 << 10
"""Lines gathered before they are written, hashed and deflated (a few calls per 64 KiB, not a
few per line)."""
RUN = 1 << 15
"""Entries of the listing sorted in memory at a time; more are merged from sorted runs on
the disk, so that listing a bundle in its order holds no more than this many."""
BLOCK = 64 << 10
"""Bytes of the listing (or of one of its sorted runs) read at a time."""


_RAW = (rec.OUTPUTS_DIR, rec.TRACES_DIR, rec.DIFFS_DIR)
"""Where a bundle keeps its raw outputs, traces and diffs: written, never kept."""
_CREATE = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)
"""How a bundle's file is opened: made new, never one already there (written twice)."""
_ENTRY = struct.Struct("<32sLQQBQH")
"""A file's entry in the listing: SHA-256, CRC-32, bytes, deflated bytes, which spool holds
them and where, and the length of its path (UTF-8), which follows."""

Entry = tuple[str, bytes]
"""A path and its packed entry (:data:`_ENTRY`)."""


class FolderFiles(MutableMapping[str, bytes]):
    """A bundle's files (path -> bytes) kept in ``folder``: setting one writes it, records its
    SHA-256 and size (what the manifest lists) and deflates it into a spool (what the zip is
    made of: :meth:`members`); getting one reads it back. A file is written once: setting a
    path again is a bug (an export never rewrites what it wrote).

    What is recorded of each file goes to a listing on the disk (``spool_dir``, by default the
    folder's parent), not to memory: a large study's bundle has a few hundred thousand raw
    outputs. Only the files that are not raw outputs (a few dozen) are also named in memory."""

    def __init__(self, folder: Path, spool_dir: Path | None = None) -> None:
        self.folder = Path(folder)
        self._root = str(self.folder)
        where = self.folder.parent if spool_dir is None else Path(spool_dir)
        self._where = where
        self._spools: list[IO[bytes]] = []
        """Every file's deflated bytes, one after another in the order written: one spool per
        depth of files written while another is (a run's output while ``runs.jsonl`` is), so
        that each file's bytes are together in one."""
        self._depth = 0
        self._index = tempfile.TemporaryFile(dir=where)  # noqa: SIM115  # see close()
        """Every file's entry (:data:`_ENTRY` and its path), in the order written."""
        self._index_end = 0
        self._pending = bytearray()
        """Entries not yet appended to the listing on the disk (:meth:`_flush_listing`)."""
        self._count = 0
        self._named: dict[str, tuple[str, int]] = {}
        """Path -> (SHA-256, bytes) of every file but the raw outputs, traces and diffs."""
        self._kept: dict[str, bytes] = {}
        self._folders: set[str] = set()
        """The folders made so far, inside the bundle (a study's tens of thousands of raw
        outputs share one)."""

    def _made(self, path: str) -> str:
        """``path`` in the folder, its parent folder made. Joined as text: a path object
        interns every part of every path (a study's hundreds of thousands of file names)."""
        folder = path.rpartition("/")[0]
        if folder not in self._folders:
            os.makedirs(os.path.join(self._root, folder), exist_ok=True)
            self._folders.add(folder)
        return f"{self._root}/{path}"

    def _open(self, path: str) -> int:
        """A new file at ``path`` (its folder made), open to write: a file descriptor, not a
        file object (a study's raw outputs are written each in one call, and a buffered file's
        own steps, a stat and a buffer, cost more than that)."""
        if path in self._named:
            raise ValueError(f"bundle file {path} written twice")
        try:
            return os.open(self._made(path), _CREATE, 0o666)
        except FileExistsError:
            raise ValueError(f"bundle file {path} written twice") from None

    def _spool(self) -> IO[bytes]:
        """The spool of the files written at the present depth."""
        if self._depth == len(self._spools):
            self._spools.append(tempfile.TemporaryFile(dir=self._where))  # noqa: SIM115
        return self._spools[self._depth]

    def _write(self, path: str, chunks: Iterable[bytes]) -> bytes:
        """Write ``path`` from ``chunks``, each hashed and deflated as it is written; its
        SHA-256 (the digest)."""
        handle = self._open(path)
        sha = hashlib.sha256()
        try:
            deflating = Deflating(self._spool(), ZIP_LEVEL, self._depth)
            self._depth += 1
            try:
                for chunk in chunks:
                    _write_all(handle, chunk)
                    sha.update(chunk)
                    deflating.write(chunk)
            finally:
                self._depth -= 1
        finally:
            os.close(handle)
        member = deflating.close()
        digest = sha.digest()
        self._listed(path, digest, member)
        return digest

    def _write_whole(self, path: str, data: bytes) -> bytes:
        """Write ``path`` from ``data`` at once (the bytes :meth:`_write` writes of it); its
        SHA-256 (the digest)."""
        handle = self._open(path)
        try:
            _write_all(handle, data)
        finally:
            os.close(handle)
        member = zip_writing.deflated(self._spool(), data, ZIP_LEVEL, self._depth)
        digest = hashlib.sha256(data).digest()
        self._listed(path, digest, member)
        return digest

    def _listed(self, path: str, digest: bytes, member: Deflated) -> None:
        """Add ``path``'s entry to the listing (gathered in memory a block at a time)."""
        name = path.encode("utf-8")
        pending = self._pending
        pending += _ENTRY.pack(
            digest,
            member.crc,
            member.size,
            member.compressed,
            member.spool,
            member.offset,
            len(name),
        )
        pending += name
        if len(pending) >= BLOCK:
            self._flush_listing()
        self._count += 1
        if not path.startswith(_RAW):
            self._named[path] = (digest.hex(), member.size)

    def _flush_listing(self) -> None:
        """Append the entries gathered in memory to the listing on the disk."""
        if self._pending:
            self._index.seek(self._index_end)
            self._index.write(self._pending)
            self._index_end += len(self._pending)
            self._pending.clear()
        self._index.flush()

    def __setitem__(self, path: str, data: bytes) -> None:
        self.put(path, data)

    def put(self, path: str, data: bytes) -> str:
        """Set ``path`` to ``data``; the SHA-256 (hex) of the bytes written, taken as they were
        (a run's output is hashed once, for its line and for the manifest)."""
        digest = self._write_whole(path, data)
        if len(data) <= KEEP and not path.startswith(_RAW):  # never the raw outputs
            self._kept[path] = data
        return digest.hex()

    def write_lines(self, path: str, lines: Iterable[bytes]) -> None:
        """Write a file line by line (each line hashed as it is written): the file is never
        whole in memory."""
        self._write(path, _batched(lines))

    def lines(self, path: str) -> Iterator[bytes]:
        """A file's lines (split on ``\\n``), read back a chunk at a time."""
        if path in self._kept:
            return split_lines((self._kept[path],))
        if path not in self:
            raise KeyError(path)
        return split_lines(self._chunks(path))

    def _chunks(self, path: str) -> Iterator[bytes]:
        with (self.folder / path).open("rb") as handle:
            while chunk := handle.read(CHUNK):
                yield chunk

    def __getitem__(self, path: str) -> bytes:
        if path in self._kept:
            return self._kept[path]
        if path not in self:
            raise KeyError(path)
        return (self.folder / path).read_bytes()

    def __delitem__(self, path: str) -> None:
        raise TypeError("a bundle's files are never deleted while it is written")

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        if path in self._named:
            return True
        # A raw output is written only here, and is named in the listing on the disk alone.
        return path.startswith(_RAW) and os.path.isfile(os.path.join(self._root, path))

    def __iter__(self) -> Iterator[str]:
        """The paths written, in the order written."""
        self._flush_listing()
        return (path for path, _entry in _entries(self._index, self._index_end))

    def __len__(self) -> int:
        return self._count

    def sha256(self, path: str) -> str:
        return self._named[path][0]

    def _sorted(self) -> Iterator[Entry]:
        """Every file's entry in the zip's order (the manifest first, then by path), sorted
        :data:`RUN` entries at a time and merged from the disk."""
        self._flush_listing()
        runs: list[IO[bytes]] = []
        batch: list[Entry] = []
        try:
            for entry in _entries(self._index, self._index_end):
                batch.append(entry)
                if len(batch) == RUN:
                    runs.append(_run(batch, self._where))
                    batch = []
            batch.sort(key=_entry_order)
            if not runs:
                yield from batch
                return
            runs.append(_run(batch, self._where))
            del batch
            sizes = [run.seek(0, os.SEEK_END) for run in runs]
            readers = [_entries(run, size) for run, size in zip(runs, sizes, strict=True)]
            yield from heapq.merge(*readers, key=_entry_order)
        finally:
            for run in runs:
                run.close()

    def listing(self) -> Iterator[tuple[str, str, int]]:
        """(path, SHA-256, bytes) of every file written, in the bundle's order."""
        for path, entry in self._sorted():
            sha, _crc, size, _deflated, _spool, _offset, _n = _ENTRY.unpack(entry)
            yield path, sha.hex(), size

    def members(self) -> Iterator[tuple[str, Deflated]]:
        """Every file's path and deflated bytes in the spool, in the bundle's order."""
        for path, entry in self._sorted():
            _sha, crc, size, deflated, spool, offset, _n = _ENTRY.unpack(entry)
            yield path, Deflated(crc, size, deflated, spool, offset)

    def close(self) -> None:
        """Let go of the spools and the listing (the bundle is zipped, or abandoned)."""
        for spool in self._spools:
            spool.close()
        self._index.close()


def _write_all(handle: int, data: bytes) -> None:
    """Write every byte of ``data`` to the file descriptor ``handle``."""
    written = os.write(handle, data)
    if written < len(data):  # a write cut short (a signal): the rest, as a file object does
        view = memoryview(data)[written:]
        while view:
            view = view[os.write(handle, view) :]


def _batched(lines: Iterable[bytes]) -> Iterator[bytes]:
    """``lines`` joined into pieces of about :data:`BATCH` bytes (the same bytes)."""
    batch: list[bytes] = []
    size = 0
    for line in lines:
        batch.append(line)
        size += len(line)
        if size >= BATCH:
            yield b"".join(batch)
            batch.clear()
            size = 0
    if batch:
        yield b"".join(batch)


def _entries(handle: IO[bytes], end: int) -> Iterator[Entry]:
    """The entries of a listing (or of a sorted run of it) of ``end`` bytes, read a block at a
    time from wherever the file is left between them."""
    position = 0
    rest = b""
    head = _ENTRY.size
    while position < end:
        handle.seek(position)
        block = handle.read(min(BLOCK, end - position))
        if not block:  # a bug: the listing lost what was written to it
            raise ValueError("the bundle's listing ends early")
        position += len(block)
        data = rest + block if rest else block
        at = 0
        while len(data) - at >= head:
            (n,) = struct.unpack_from("<H", data, at + head - 2)
            if len(data) - at < head + n:
                break
            yield data[at + head : at + head + n].decode("utf-8"), data[at : at + head]
            at += head + n
        rest = data[at:]
    if rest:
        raise ValueError("the bundle's listing ends mid-entry")


def _run(batch: list[Entry], where: Path) -> IO[bytes]:
    """``batch`` sorted and written to a temporary file in ``where``."""
    batch.sort(key=_entry_order)
    run = tempfile.TemporaryFile(dir=where)  # noqa: SIM115  # the caller closes it
    for path, entry in batch:
        run.write(entry)
        run.write(path.encode("utf-8"))
    run.flush()
    return run


def _entry_order(entry: Entry) -> tuple[bool, str]:
    return _order(entry[0])


def put_jsonl(files: MutableMapping[str, bytes], path: str, rows: Iterable[Any]) -> None:
    """Set ``path`` in ``files`` to the JSON Lines of ``rows`` (as
    :func:`abp_tui.export.canonical.jsonl_bytes` makes them), row by row into a bundle folder
    being written."""
    if isinstance(files, FolderFiles):
        files.write_lines(path, ((canonical_json(row) + "\n").encode("utf-8") for row in rows))
    else:
        files[path] = jsonl_bytes(rows)


def put_file(files: MutableMapping[str, bytes], path: str, data: bytes) -> str:
    """Set ``path`` in ``files`` to ``data``; the SHA-256 (hex) of the bytes, taken as they are
    written into a bundle folder (once: not again for the line that names the file)."""
    if isinstance(files, FolderFiles):
        return files.put(path, data)
    files[path] = data
    return hashlib.sha256(data).hexdigest()


def put_chunks(files: MutableMapping[str, bytes], path: str, chunks: Iterable[bytes]) -> None:
    """Set ``path`` in ``files`` to the bytes of ``chunks``, a chunk at a time into a bundle
    folder being written."""
    if isinstance(files, FolderFiles):
        files.write_lines(path, chunks)
    else:
        files[path] = b"".join(chunks)


def _order(path: str) -> tuple[bool, str]:
    return (path != rec.MANIFEST, path)


def zip_folder(files: FolderFiles, target: Path) -> None:
    """The deterministic zip of ``files`` (manifest first, fixed timestamps, permissions and
    level), from the bytes deflated as each file was written: the bytes ``zipfile`` writes
    for the same files (:mod:`abp_tui.export.zip_writing`)."""
    zip_writing.write_zip(target, files.members(), files._spools, ZIP_DATE, ZIP_MODE)


def finish(files: FolderFiles, analysis: Analysis, confidence: float = DEFAULT_CONFIDENCE) -> None:
    """Write the derived files of a bundle whose source files are ``files`` (and their
    ``analysis``), each as it is made (:func:`abp_tui.export.derive.derive_each`), then its
    manifest, as :func:`abp_tui.export.bundle.bundle_files` makes them."""
    confidence = confidence_level(confidence)
    names = []
    phase("deriving the results")
    for path, data in derive_each(files, analysis, confidence):
        phase(f"writing {path}")
        if isinstance(data, bytes):
            files[path] = data
        else:
            files.write_lines(path, data)
        names.append(path)
    status = json.loads(files[STATUS])
    manifest = manifest_chunks(files.listing(), status, names, analysis, confidence)
    files.write_lines(rec.MANIFEST, manifest)


@contextmanager
def bundle_folder(out_dir: Path) -> Iterator[FolderFiles]:
    """The files of the bundle to be placed at ``out_dir`` and ``out_dir.zip``, written as they
    are set; when the block ends without an error the zip is made from them and both are
    renamed into place (an existing bundle there replaced, anything else refused before a file
    is written); on an error nothing is left behind. What the disk refuses (full, read-only) is
    one WriteError."""
    out_dir = Path(out_dir)
    zip_path = out_dir.parent / f"{out_dir.name}.zip"
    with writing(out_dir), swap_in(out_dir, zip_path) as (tmp, tmp_zip):
        files = FolderFiles(tmp)
        try:
            yield files
            phase(f"zipping {len(files):,} files")
            zip_folder(files, tmp_zip)
        finally:
            files.close()


__all__ = [
    "FolderFiles",
    "bundle_folder",
    "finish",
    "put_chunks",
    "put_file",
    "put_jsonl",
    "zip_folder",
]
