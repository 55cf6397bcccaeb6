"""A bundle's ``manifest.json`` read by ``verify``: parsed, checked against its schema, and its
list of files gathered into arrays as it is parsed (:class:`Entries`: paths, SHA-256s as
bytes, sizes), so that a large study's manifest, which lists a few hundred thousand files,
never has a dict of each held all at once."""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Final

from abp_tui.analysis.results.tallies import DEFAULT_CONFIDENCE, ConfidenceError, confidence_level
from abp_tui.export import records as rec
from abp_tui.export.errors import BundleMismatch
from abp_tui.export.protocol import PROTOCOL_SCHEMA, PROTOCOL_SCHEMA_FILE
from abp_tui.export.validation import MANIFEST_SCHEMA_FILE, schema_errors
from abp_tui.text import json_input

_ENTRY_KEYS: Final = frozenset(("path", "sha256", "bytes"))
_SHA256: Final = re.compile("[0-9a-f]{64}")


def _plain_entry(entry: object) -> bool:
    """Whether a manifest's file entry is one the schema accepts: exactly a non-empty path, a
    SHA-256 in lowercase hex and a size that is a whole number >= 0."""
    if not isinstance(entry, dict) or entry.keys() != _ENTRY_KEYS:
        return False
    path, sha, size = entry["path"], entry["sha256"], entry["bytes"]
    return (
        type(path) is str
        and path != ""
        and type(sha) is str
        and _SHA256.fullmatch(sha) is not None
        and type(size) is int
        and size >= 0
    )


@dataclass
class Entries:
    """A manifest's list of files, in its order: paths, SHA-256s as bytes, sizes."""

    paths: list[str]
    shas: bytearray
    sizes: array[int]

    def add(self, path: str, sha: str, size: int) -> None:
        self.paths.append(path)
        self.shas += bytes.fromhex(sha)
        self.sizes.append(size)

    def first(self) -> dict[str, Any]:
        """The first entry as the manifest gives it."""
        return {"bytes": self.sizes[0], "path": self.paths[0], "sha256": self.shas[:32].hex()}


def _entries(listing: list[dict[str, Any]]) -> Entries:
    out = Entries([], bytearray(), array("q"))
    for entry in listing:
        out.add(str(entry["path"]), str(entry["sha256"]), int(entry["bytes"]))
    return out


_ENTRY: Final = object()
"""What a plain file entry of a manifest is parsed as: its path, hash and size are in the
:class:`Entries` the parse fills, not in an object of its own."""


class _Listing:
    """The parse's hook: each plain file entry (:func:`_plain_entry`) put in :attr:`entries`
    as it is parsed, and replaced by :data:`_ENTRY` (a large study's manifest lists a few
    hundred thousand files: no dict of each is ever held all at once)."""

    def __init__(self) -> None:
        self.entries = Entries([], bytearray(), array("q"))

    def __call__(self, found: dict[str, Any]) -> object:
        if not _plain_entry(found):
            return found
        path = found["path"]
        if not path.isascii():
            try:
                path.encode("utf-8")  # a lone surrogate: left for the parse to refuse
            except UnicodeEncodeError:
                return found
        self.entries.add(path, found["sha256"], found["bytes"])
        return _ENTRY


def _parsed(text: str) -> tuple[Any, Entries | None]:
    """The manifest parsed, its plain file entries gathered (:class:`_Listing`) when they are
    its whole list of files, and more than one; else as it is, every entry a dict."""
    listing = _Listing()
    manifest = json_input.loads(text, listing)
    entries = listing.entries
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if (
        isinstance(files, list)
        and len(files) > 1
        and len(files) == len(entries.paths)
        and files.count(_ENTRY) == len(files)
    ):
        return manifest, entries
    del manifest, files, entries, listing
    return json_input.loads(text), None


def read_manifest(
    data: bytes,
) -> tuple[dict[str, Any], Entries, bool, float]:
    """The manifest, its file entries, whether it is a protocol-only bundle's, and the results'
    confidence level; a malformed one is refused in one line naming the field."""
    try:
        manifest, gathered = _parsed(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BundleMismatch(rec.MANIFEST, f"invalid UTF-8 at byte {exc.start}") from None
    except json_input.JsonRefused as exc:
        raise BundleMismatch(rec.MANIFEST, f"not a readable JSON document: {exc}") from None
    # A protocol-only bundle's manifest has a schema of its own (no seed, nothing derived).
    protocol_only = isinstance(manifest, dict) and manifest.get("schema") == PROTOCOL_SCHEMA
    schema = PROTOCOL_SCHEMA if protocol_only else rec.BUNDLE_SCHEMA
    schema_file = PROTOCOL_SCHEMA_FILE if protocol_only else MANIFEST_SCHEMA_FILE
    listing = manifest.get("files") if isinstance(manifest, dict) else None
    if gathered is not None:
        # A listing of a hundred thousand plain entries is checked as it is parsed, each as
        # the schema would, and the rest of the manifest by the schema.
        problems = schema_errors({**manifest, "files": [gathered.first()]}, schema_file)
    elif isinstance(listing, list) and len(listing) > 1 and all(map(_plain_entry, listing)):
        problems = schema_errors({**manifest, "files": listing[:1]}, schema_file)
    else:
        problems = schema_errors(manifest, schema_file)
    if problems:
        raise BundleMismatch(rec.MANIFEST, f"not a valid {schema} manifest: {problems[0]}")
    assert isinstance(manifest, dict)  # the schema requires an object
    del listing
    # Its listing is the entries from here on (a large study's manifest lists a few hundred
    # thousand files: their objects are not held past here).
    files = manifest.pop("files")
    entries = gathered if gathered is not None else _entries(files)
    del files
    try:
        # A bundle made before the level was recorded used the default.
        confidence = confidence_level(
            manifest.get("confidence", DEFAULT_CONFIDENCE), "manifest.json confidence"
        )
    except ConfidenceError as exc:
        raise BundleMismatch(rec.MANIFEST, str(exc)) from None
    return manifest, entries, protocol_only, confidence


def listed_twice(paths: list[str]) -> str | None:
    """The first path a manifest lists again (or lists the manifest itself), or None."""
    if all(a < b for a, b in pairwise(paths)):
        return rec.MANIFEST if rec.MANIFEST in paths else None  # sorted: none listed twice
    seen: set[str] = set()
    for path in paths:
        if path in seen or path == rec.MANIFEST:
            return path
        seen.add(path)
    return None


__all__ = ["Entries", "listed_twice", "read_manifest"]
