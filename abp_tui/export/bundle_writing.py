"""Writing a bundle as its files are made: each file goes to the folder the moment it exists,
hashed while it is written, and is read back from the disk when the derivation asks for it, so
an export holds no file's bytes longer than it takes to write it (a study's raw outputs, its
records) but those the analysis itself keeps; the zip is then made from the folder's files, a
chunk at a time, in the bundle's order, with the bytes :func:`abp_tui.export.bundle.write_zip`
gives the same files.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Iterable, Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from abp_tui.analysis.results.tallies import DEFAULT_CONFIDENCE, confidence_level
from abp_tui.errors import writing
from abp_tui.export import records as rec
from abp_tui.export.bundle import ZIP_DATE, ZIP_LEVEL, ZIP_MODE, manifest_chunks, swap_in
from abp_tui.export.bundle_analysis import Analysis
from abp_tui.export.canonical import jsonl_bytes, split_lines
from abp_tui.export.derive import STATUS, derive_each
from abp_tui.text.canonical import canonical_json

CHUNK = 1 << 20
"""Bytes copied at a time from a file into the zip."""
KEEP = 64 << 10
"""Files of at most this many bytes (the protocol, the rubric, the status) are kept in memory
as well, being read several times; larger ones are read back from the disk when asked for."""


_RAW = (rec.OUTPUTS_DIR, rec.TRACES_DIR, rec.DIFFS_DIR)
"""Where a bundle keeps its raw outputs, traces and diffs: written, never kept."""


class FolderFiles(MutableMapping[str, bytes]):
    """A bundle's files (path -> bytes) kept in ``folder``: setting one writes it and records
    its SHA-256 and size (what the manifest lists), getting one reads it back. A file is
    written once: setting a path again is a bug (an export never rewrites what it wrote)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.listing: dict[str, tuple[str, int]] = {}
        """Path -> (SHA-256, bytes) of every file written, in the order written."""
        self._kept: dict[str, bytes] = {}
        self._folders: set[Path] = set()
        """The folders made so far (a study's tens of thousands of raw outputs share one)."""

    def _made(self, path: str) -> Path:
        """``path`` in the folder, its parent folder made."""
        out = self.folder / path
        if out.parent not in self._folders:
            out.parent.mkdir(parents=True, exist_ok=True)
            self._folders.add(out.parent)
        return out

    def __setitem__(self, path: str, data: bytes) -> None:
        if path in self.listing:
            raise ValueError(f"bundle file {path} written twice")
        out = self._made(path)
        with out.open("xb") as handle:
            handle.write(data)
        self.listing[path] = (hashlib.sha256(data).hexdigest(), len(data))
        if len(data) <= KEEP and not path.startswith(_RAW):  # never the raw outputs
            self._kept[path] = data

    def write_lines(self, path: str, lines: Iterable[bytes]) -> None:
        """Write a file line by line (each line hashed as it is written): the file is never
        whole in memory."""
        if path in self.listing:
            raise ValueError(f"bundle file {path} written twice")
        out = self._made(path)
        sha = hashlib.sha256()
        size = 0
        with out.open("xb") as handle:
            for line in lines:
                handle.write(line)
                sha.update(line)
                size += len(line)
        self.listing[path] = (sha.hexdigest(), size)

    def lines(self, path: str) -> Iterator[bytes]:
        """A file's lines (split on ``\\n``), read back a chunk at a time."""
        if path in self._kept:
            return split_lines((self._kept[path],))
        if path not in self.listing:
            raise KeyError(path)
        return split_lines(self._chunks(path))

    def _chunks(self, path: str) -> Iterator[bytes]:
        with (self.folder / path).open("rb") as handle:
            while chunk := handle.read(CHUNK):
                yield chunk

    def __getitem__(self, path: str) -> bytes:
        if path in self._kept:
            return self._kept[path]
        if path not in self.listing:
            raise KeyError(path)
        return (self.folder / path).read_bytes()

    def __delitem__(self, path: str) -> None:
        raise TypeError("a bundle's files are never deleted while it is written")

    def __contains__(self, path: object) -> bool:
        return path in self.listing

    def __iter__(self) -> Iterator[str]:
        return iter(self.listing)

    def __len__(self) -> int:
        return len(self.listing)

    def sha256(self, path: str) -> str:
        return self.listing[path][0]


def put_jsonl(files: MutableMapping[str, bytes], path: str, rows: Iterable[Any]) -> None:
    """Set ``path`` in ``files`` to the JSON Lines of ``rows`` (as
    :func:`abp_tui.export.canonical.jsonl_bytes` makes them), row by row into a bundle folder
    being written."""
    if isinstance(files, FolderFiles):
        files.write_lines(path, ((canonical_json(row) + "\n").encode("utf-8") for row in rows))
    else:
        files[path] = jsonl_bytes(rows)


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
    level), each copied from its file a chunk at a time."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL) as zf:
        for path in sorted(files.listing, key=_order):
            info = zipfile.ZipInfo(path, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = ZIP_MODE << 16
            info.file_size = files.listing[path][1]  # as writestr sets it: the same bytes
            info._compresslevel = ZIP_LEVEL  # type: ignore[attr-defined]  # as writestr does
            with (files.folder / path).open("rb") as source, zf.open(info, "w") as dest:
                while chunk := source.read(CHUNK):
                    dest.write(chunk)


def finish(files: FolderFiles, analysis: Analysis, confidence: float = DEFAULT_CONFIDENCE) -> None:
    """Write the derived files of a bundle whose source files are ``files`` (and their
    ``analysis``), each as it is made (:func:`abp_tui.export.derive.derive_each`), then its
    manifest, as :func:`abp_tui.export.bundle.bundle_files` makes them."""
    confidence = confidence_level(confidence)
    names = []
    for path, data in derive_each(files, analysis, confidence):
        if isinstance(data, bytes):
            files[path] = data
        else:
            files.write_lines(path, data)
        names.append(path)
    status = json.loads(files[STATUS])
    listing = [(p, sha, size) for p, (sha, size) in files.listing.items()]
    files.write_lines(rec.MANIFEST, manifest_chunks(listing, status, names, analysis, confidence))


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
        yield files
        zip_folder(files, tmp_zip)


__all__ = ["FolderFiles", "bundle_folder", "finish", "put_chunks", "put_jsonl", "zip_folder"]
