"""Reading a bundle someone else made (a folder or a zip) without trusting it.

A bundle is input: its zip may be a bomb (a few megabytes that inflate to gigabytes), its
folder may hold a named pipe (reading it waits forever), a device, a symbolic link or a sparse
file of terabytes, and its manifest may say anything. So nothing is read before it is known to be
safe and expected: :func:`open_bundle` lists the members and refuses unsafe names, links,
anything that is not a regular file, duplicates and totals past :data:`MAX_BUNDLE_BYTES`, all from
the zip's directory or ``os.lstat`` alone; :meth:`Bundle.read` reads one member whole, up to a
stated limit; :meth:`Bundle.check` hashes one member in chunks of :data:`CHUNK` bytes, so a
member of any size costs a chunk of memory, and stops the moment it yields more bytes than
expected; a member read to be parsed (:class:`Records`) is hashed as it is read, its one
read, and counted against a :class:`HeldBudget`.
Files are opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked again with ``fstat``, so a pipe
or a link swapped in after the listing is still refused, never waited on.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import zipfile
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Final

from abp_tui.export.canonical import split_lines
from abp_tui.export.errors import BundleMismatch, ExportError, UnsafeBundle
from abp_tui.text.safe import safe_line

MAX_BUNDLE_BYTES: Final = 16 << 30
"""A bundle whose members claim more than this in total is refused before anything is read."""
MAX_MEMBERS: Final = 1_000_000
"""A bundle of more members than this is refused before any is read, or of more than fit in
:data:`MEMORY_SHARE` of the memory at :data:`_MEMBER_BYTES` each where that is more
(:func:`max_members`)."""
CHUNK: Final = 1 << 20
"""Bytes hashed at a time: the memory a member of any size costs."""
MAX_INFLATION: Final = 200
"""A zip member to be read into memory may inflate at most this many times (JSON records
deflate 3 to 30 times; a bomb, a run of one byte or of ``{}``, about 1000 times) ..."""
INFLATION_FLOOR: Final = 64 << 20
"""... once it is larger than this (a small file may be as repetitive as it likes)."""
MAX_HELD_BYTES: Final = 48 << 20
"""The bytes of the files ``verify`` parses and re-derives from (every file but raw outputs,
traces and diffs, which it only hashes), in all: parsed, they cost several times their size."""
MAX_LINE_BYTES: Final = 4 << 20
"""The longest line of a JSON or JSON Lines file ``verify`` parses (a record of runs, a task)."""
MAX_HELD_LINES: Final = 100_000
"""Their lines, in all: a parsed record costs about a kilobyte however short its line, so a file
of a million tiny records is refused while it is read, not after it filled the memory."""


MEMORY_SHARE: Final = 0.4
"""Of the memory ``verify`` may use (its address-space limit, else the machine's memory), the
share its parsed records may take: above the floors above on a machine with room, so that a
large study's bundle verifies where it fits, and a file that inflates past it is still refused
while it is read."""
_PARSED_PER_BYTE: Final = 5.5
"""Measured: ``verify``'s peak memory, the records parsed and everything derived from them,
grows by about 5 times the bytes of the records it parses, once each member is read once (a
judged 100,000-pair study's bundle: 375 MiB of records, 1.9 GiB at the peak; 20,000 pairs:
75 MiB, 0.5 GiB); 5.5 leaves room for records that cost more than these. The budget allowed
10 before, and refused a 400,000-pair study's bundle (1.58 GB of records) on a 24 GiB machine
it fits in."""
_PARSED_PER_LINE: Final = 2 << 10
"""A JSON Lines record costs about 1 kB parsed however short its line (about 2.4 kB at the
peak in that bundle, its bytes counted above included)."""


_MEMBER_BYTES: Final = 2 << 10
"""Measured: a member cost ``verify`` about 1.4 kB while its listing was read (0.9 kB once
read), whatever its size, when the zip's directory and the manifest's listing were held as
objects and dicts; in arrays, about 0.3 kB while it is read and 0.2 kB once read. The bound
is kept at 2 kB: a large study's raw output also costs its run's parsed record."""


def _memory_available() -> int | None:
    """The memory this process may use: its address-space limit, else the machine's memory."""
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY and soft > 0:
            return int(soft)
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ImportError, OSError, ValueError):
        return None


def default_limits() -> tuple[int, int]:
    """(bytes, lines) ``verify`` may hold: the floors, or more where the memory allows."""
    memory = _memory_available()
    if memory is None:
        return MAX_HELD_BYTES, MAX_HELD_LINES
    room = memory * MEMORY_SHARE
    return max(MAX_HELD_BYTES, int(room / _PARSED_PER_BYTE)), max(
        MAX_HELD_LINES, int(room / _PARSED_PER_LINE)
    )


def max_members() -> int:
    """The most members ``verify`` lists: :data:`MAX_MEMBERS`, or more where the memory
    allows (a 500,000-pair study's bundle holds a million raw outputs)."""
    memory = _memory_available()
    if memory is None:
        return MAX_MEMBERS
    return max(MAX_MEMBERS, int(memory * MEMORY_SHARE) // _MEMBER_BYTES)


class HeldBudget:
    """What ``verify`` holds in memory to parse, counted chunk by chunk as it is read and
    hashed: past :data:`MAX_HELD_BYTES` or :data:`MAX_HELD_LINES` in all, or a line of a JSON
    file longer than :data:`MAX_LINE_BYTES`, the file being read is refused there, so a bundle
    of any size costs at most this budget (and its parse)."""

    def __init__(self, max_bytes: int | None = None, max_lines: int | None = None) -> None:
        default_bytes, default_lines = default_limits()
        self.max_bytes = default_bytes if max_bytes is None else max_bytes
        self.max_lines = default_lines if max_lines is None else max_lines
        self.bytes = self.lines = 0
        self._line_limit = LineLimit()

    def take(self, name: str, chunk: bytes) -> None:
        """Count a chunk of member ``name`` (its members' chunks come in order)."""
        self.bytes += len(chunk)
        if self.bytes > self.max_bytes:
            raise BundleMismatch(
                name,
                f"the records verify re-derives from hold more than {self.max_bytes >> 20} MiB "
                "in all, more than it holds in memory (refused)",
            )
        ends = self._line_limit.take(name, chunk)
        if name.endswith(".jsonl"):  # a record a line; a JSON document's lines are not records
            self.lines += ends
        if self.lines > self.max_lines:
            raise BundleMismatch(
                name,
                f"the records verify re-derives from hold more than {self.max_lines} lines in "
                "all, more than it holds in memory (refused)",
            )


def _unsafe_name(name: str) -> str | None:
    """Why a member name is unsafe, or None."""
    if not name or "\x00" in name:
        return "an empty name or a NUL character"
    if "\\" in name:
        return "a backslash in its path"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "an absolute path"
    parts = name.rstrip("/").split("/")
    if any(p in ("..", ".", "") for p in parts):
        return "a '..', '.' or empty path component"
    return None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


class Bundle:
    """A bundle's members, as the zip's directory or the file system lists them, and a way to
    read them; made by :func:`open_bundle`. A member costs a name and a few numbers in arrays
    (its size; in a zip, its compressed size, offset, CRC and method), never an object of its
    own: a large study's bundle holds a few hundred thousand raw outputs."""

    def __init__(self, path: Path, zf: zipfile.ZipFile | None = None) -> None:
        self.path = path
        self.names: list[str] = []
        """The members, in the directory's (or the folder walk's) order."""
        self.sizes = array("q")
        self._zip = zf
        self._packed = array("q")
        """A zip member's compressed size (a folder has none)."""
        self._offset = array("q")
        self._crc = array("I")
        self._method = array("I")
        """A zip member's compression method, and its flag bits shifted past 16."""
        self._order = array("l")
        """The members' positions sorted by name (:meth:`find`)."""

    def _add(self, name: str, size: int) -> None:
        self.names.append(name)
        self.sizes.append(size)

    def _sort(self) -> None:
        self._order = array("l", sorted(range(len(self.names)), key=self.names.__getitem__))

    def __len__(self) -> int:
        return len(self.names)

    def find(self, name: str) -> int | None:
        """The member's position in :attr:`names`, or None when there is no such member."""
        at = bisect_left(self._order, name, key=self.names.__getitem__)
        if at < len(self._order) and self.names[self._order[at]] == name:
            return self._order[at]
        return None

    def size(self, name: str) -> int | None:
        """A member's size in bytes, or None when there is no such member."""
        at = self.find(name)
        return None if at is None else self.sizes[at]

    def _at(self, name: str) -> int:
        at = self.find(name)
        if at is None:
            raise BundleMismatch(name, "missing from the bundle")
        return at

    def inflation(self, name: str) -> float:
        """How many times a member grows when read (1 in a folder)."""
        if self._zip is None:
            return 1.0
        at = self._at(name)
        return self.sizes[at] / max(self._packed[at], 1)

    def bomb(self, name: str) -> str | None:
        """Why a member must not be read into memory (a zip bomb), or None."""
        ratio = self.inflation(name)
        size = self.sizes[self._at(name)]
        if size > INFLATION_FLOOR and ratio > MAX_INFLATION:
            return (
                f"inflates {ratio:.0f} times to {size} bytes: a zip bomb, not "
                "records (refused unread)"
            )
        return None

    def _info(self, name: str, at: int | None = None) -> zipfile.ZipInfo:
        """The zip's entry of a member (at position ``at``, when known), made again from its
        numbers to open it."""
        if at is None or self.names[at] != name:
            at = self._at(name)
        info = zipfile.ZipInfo(name)
        info.header_offset = self._offset[at]
        info.CRC = self._crc[at]
        info.compress_size = self._packed[at]
        info.file_size = self.sizes[at]
        info.compress_type = self._method[at] & 0xFFFF
        info.flag_bits = self._method[at] >> 16
        return info

    @contextmanager
    def _stream(self, name: str, at: int | None = None) -> Iterator[IO[bytes]]:
        if self._zip is not None:
            try:
                with self._zip.open(self._info(name, at)) as handle:
                    yield handle
            except _UNREADABLE as exc:
                raise BundleMismatch(name, f"cannot be read from the zip ({exc})") from None
            return
        full = self.path / name
        try:
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as exc:
            raise UnsafeBundle(
                f"{self.path}: {safe_line(name)} cannot be opened as a regular file "
                f"({exc.strerror})"
            ) from None
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise UnsafeBundle(f"{self.path}: {safe_line(name)} is {_kind(mode)}")
            handle = os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise
        with handle:
            yield handle

    def _chunks(self, name: str, limit: int, at: int | None = None) -> Iterator[bytes]:
        """The member's bytes, chunk by chunk; more than ``limit`` of them is a mismatch."""
        if self._zip is not None:
            if at is None or self.names[at] != name:
                at = self._at(name)
            whole = self._whole(at)
            if whole is not None:
                if len(whole) > limit:
                    raise BundleMismatch(
                        name, f"holds more than the {limit} bytes it was expected to (refused)"
                    )
                if whole:
                    yield whole
                return
        read = 0
        with self._stream(name, at) as handle:
            while chunk := handle.read(min(CHUNK, limit - read + 1)):
                read += len(chunk)
                if read > limit:
                    raise BundleMismatch(
                        name, f"holds more than the {limit} bytes it was expected to (refused)"
                    )
                yield chunk

    def _whole(self, at: int) -> bytes | None:
        """The zip's member at ``at``, when it is one chunk or less, stored or deflated, and not
        encrypted: its local header and its compressed bytes read at once, inflated, and found
        to be the bytes the zip's directory gives (its size and CRC-32). None for any other
        member, or one whose bytes are not those: it is read through :mod:`zipfile`, which
        says what is wrong with it. A large study's bundle holds a few hundred thousand small
        raw outputs, each read so in one read rather than :mod:`zipfile`'s three."""
        size, packed, method = self.sizes[at], self._packed[at], self._method[at]
        handle = self._zip.fp if self._zip is not None else None
        if (
            handle is None
            or _pread is None
            or size > CHUNK
            or packed > CHUNK
            or method & 0xFFFF not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
            or (method >> 16) & ~_PLAIN_FLAGS
        ):
            return None
        offset = self._offset[at]
        try:
            found = _pread(handle.fileno(), _HEADER + _NAMES + packed, offset)
            if len(found) < _HEADER or found[:4] != _LOCAL:
                return None
            named, extra = struct.unpack_from("<HH", found, 26)
            start = _HEADER + named + extra
            if len(found) < start + packed:
                found = _pread(handle.fileno(), start + packed, offset)
        except (OSError, ValueError):
            return None
        if len(found) < start + packed:
            return None
        utf8 = struct.unpack_from("<H", found, 6)[0] & _UTF8_NAME
        try:
            if (
                found[_HEADER : _HEADER + named].decode("utf-8" if utf8 else "cp437")
                != (self.names[at])
            ):
                return None
        except UnicodeDecodeError:
            return None
        packed_bytes = found[start : start + packed]
        if method & 0xFFFF == zipfile.ZIP_DEFLATED:
            inflate = zlib.decompressobj(-zlib.MAX_WBITS)
            try:
                data = inflate.decompress(packed_bytes, size + 1)
            except zlib.error:
                return None
            if not inflate.eof:
                return None
        else:
            data = packed_bytes
        if len(data) != size or zlib.crc32(data) != self._crc[at]:
            return None
        return data

    def read(self, name: str, limit: int) -> bytes:
        """A member's bytes, refused when it holds more than ``limit``."""
        return b"".join(self._chunks(name, limit))

    def check(
        self, name: str, size: int, sha: str, lines: LineLimit | None = None, at: int | None = None
    ) -> None:
        """Hash a member expected to hold ``size`` bytes of SHA-256 ``sha``, streaming (a chunk
        at a time, whatever its size), its lines held to ``lines``; a difference is a mismatch
        naming it. ``at``: its position in :attr:`names`, when known."""
        digest = hashlib.sha256()
        count = 0
        for chunk in self._chunks(name, size, at):
            digest.update(chunk)
            count += len(chunk)
            if lines is not None:
                lines.take(name, chunk)
        if count != size:
            raise BundleMismatch(name, f"{count} bytes, manifest.json says {size}")
        actual = digest.hexdigest()
        if actual != sha:
            raise BundleMismatch(name, _changed(actual, sha))

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


_UNREADABLE: Final = (
    zipfile.BadZipFile,
    OSError,
    NotImplementedError,
    RuntimeError,
    zlib.error,
    EOFError,
)
"""What :mod:`zipfile` raises reading a member it cannot give: a bad header or CRC-32, a
compression or encryption it does not read, deflated bytes that do not inflate (``zlib.error``)
or end too soon (``EOFError``)."""
_pread: Final = getattr(os, "pread", None)
"""A read at an offset of a file, without moving its position (not on every system)."""
_HEADER: Final = 30
"""The bytes of a zip's local file header before its member's name."""
_NAMES: Final = 512
"""Bytes read past it at first, for the name and extra field (the rest read when longer)."""
_LOCAL: Final = b"PK\x03\x04"
_UTF8_NAME: Final = 0x800
_PLAIN_FLAGS: Final = 0x800 | 0x8 | 0x6
"""Flag bits :meth:`Bundle._whole` reads past: a UTF-8 name, sizes after the data, the deflate
level; any other (encryption, patched data) leaves the member to :mod:`zipfile`."""


def _changed(actual: str, sha: str) -> str:
    return f"SHA-256 {actual} differs from manifest.json's {sha} (the file changed)"


class LineLimit:
    """The longest line of a JSON or JSON Lines member, counted chunk by chunk as it is read:
    past :data:`MAX_LINE_BYTES` the member is refused naming the line, so no line longer than
    any record is ever handed on to be parsed."""

    def __init__(self) -> None:
        self._member = ""
        self._open = 0
        """Bytes of the member's line read so far without its end."""
        self.lines = 0
        """Line ends of the member read so far."""

    def take(self, name: str, chunk: bytes) -> int:
        """Count a chunk of member ``name`` (its chunks come in order); return its line ends."""
        if name != self._member:
            self._member, self._open, self.lines = name, 0, 0
        parts = chunk.split(b"\n")
        ends = len(parts) - 1
        if name.endswith((".json", ".jsonl")):
            sizes = [self._open + len(parts[0]), *(len(p) for p in parts[1:])]
            longest = max(sizes)
            if longest > MAX_LINE_BYTES:
                line = self.lines + 1 + sizes.index(longest)
                raise BundleMismatch(
                    name,
                    f"line {line}: more than {MAX_LINE_BYTES >> 20} MiB, longer than any "
                    "record (refused)",
                )
        self._open = len(parts[-1]) if ends else self._open + len(parts[0])
        self.lines += ends
        return ends


class Records(Mapping[str, bytes]):
    """The members ``verify`` parses (path -> bytes), read from the bundle when asked for and
    never kept: each is hashed as it streams, the one read of it (:attr:`hashed`), and a member
    whose bytes do not give the SHA-256 the manifest lists is a mismatch naming it, raised once
    its last chunk is read, before its last line is handed on; counted against ``budget``.
    A file of records is read a line at a time (:meth:`lines`), a JSON document whole; members
    of at most :data:`CHUNK` bytes (the protocol, the rubric) are kept once read, being read
    several times. ``hashed``: members whose hash was already checked (the derived files)."""

    def __init__(
        self,
        bundle: Bundle,
        listed: dict[str, tuple[str, int]],
        budget: HeldBudget,
        hashed: Iterable[str] = (),
    ):
        self.bundle = bundle
        self._listed = listed
        self._budget = budget
        self._small: dict[str, bytes] = {}
        self._counted: set[str] = set()
        self.hashed: set[str] = set(hashed)
        """Members whose every byte was read and found to give the SHA-256 listed."""

    def _checked_chunks(self, name: str) -> Iterator[bytes]:
        """The member's chunks, hashed and counted as they are read; a member whose bytes are
        not the ones listed is refused once its last chunk is read."""
        sha, size = self._listed[name]  # KeyError: not one of them
        digest = hashlib.sha256()
        read = 0
        count = name not in self._counted  # a file read again is not held twice
        self._counted.add(name)
        for chunk in self.bundle._chunks(name, size):
            digest.update(chunk)
            if count:
                self._budget.take(name, chunk)
            read += len(chunk)
            yield chunk
        if read != size:
            raise BundleMismatch(name, f"{read} bytes, manifest.json says {size}")
        actual = digest.hexdigest()
        if actual != sha:
            raise BundleMismatch(name, _changed(actual, sha))
        self.hashed.add(name)

    def check_unread(self, names: Iterable[str] | None = None) -> None:
        """Hash every member (of ``names``, when given) not yet found to give its listed
        SHA-256, in the listing's order, raising the first mismatch: after a difference found
        elsewhere, the one ``verify`` names is the one hashing every member before parsing any
        would have named first."""
        for name in self._listed if names is None else names:
            if name not in self.hashed:
                sha, size = self._listed[name]
                self.bundle.check(name, size, sha, LineLimit())
                self.hashed.add(name)

    def __getitem__(self, name: str) -> bytes:
        if name in self._small:
            return self._small[name]
        out = b"".join(self._checked_chunks(name))
        if len(out) <= CHUNK:
            self._small[name] = out
        return out

    def lines(self, name: str) -> Iterator[bytes]:
        """The member's lines (split on ``\\n``), read a chunk at a time, checked as
        :meth:`__getitem__` checks the whole (the last line comes once it is)."""
        if name in self._small:
            return split_lines((self._small[name],))
        return split_lines(self._checked_chunks(name))

    def __contains__(self, name: object) -> bool:
        return name in self._listed

    def __iter__(self) -> Iterator[str]:
        return iter(self._listed)

    def __len__(self) -> int:
        return len(self._listed)


class _Lean(zipfile.ZipFile):
    """:mod:`zipfile`'s reader, each entry of the zip's directory handed to ``take`` as it is
    read and none kept: :mod:`zipfile` keeps an object of about 600 bytes an entry, and a
    large study's bundle has a few hundred thousand."""

    def __init__(self, path: Path, take: Callable[[zipfile.ZipInfo], None]) -> None:
        self._take = take
        super().__init__(path)

    def _RealGetContents(self) -> None:  # zipfile's name
        self.filelist = _Taken(self._take)
        self.NameToInfo = _Dropped()
        super()._RealGetContents()  # type: ignore[misc]


class _Taken(list[zipfile.ZipInfo]):
    def __init__(self, take: Callable[[zipfile.ZipInfo], None]) -> None:
        super().__init__()
        self._take = take

    def append(self, info: zipfile.ZipInfo) -> None:
        self._take(info)


class _Dropped(dict[str, Any]):
    def __setitem__(self, key: str, value: Any) -> None:
        pass


class _ZipListing:
    """Each entry of a zip's directory checked as it is read, and its member added to the
    bundle: names refused as unsafe, links, special files, duplicates (as a case-insensitive
    file system would see them), more members than :func:`max_members` and totals past
    :data:`MAX_BUNDLE_BYTES`."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.limit = max_members()
        self.entries = 0
        self.total = 0
        self.seen: dict[str, str] = {}

    def __call__(self, info: zipfile.ZipInfo) -> None:
        path = self.bundle.path
        self.entries += 1
        if self.entries > self.limit:
            raise UnsafeBundle(f"{path}: more than {self.limit} members, more than a bundle holds")
        name = info.filename
        why = _unsafe_name(info.orig_filename)  # zipfile cuts a name at a NUL character
        if why:
            shown = safe_line(info.orig_filename)
            raise UnsafeBundle(f"{path}: member {shown!r} is refused: {why}")
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise UnsafeBundle(f"{path}: member {safe_line(name)!r} is a symbolic link")
        if info.is_dir():
            return
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # 0: a zip that records no type
            raise UnsafeBundle(f"{path}: member {safe_line(name)!r} is {_kind(mode)}")
        folded = name.casefold()
        if folded in self.seen:
            raise UnsafeBundle(
                f"{path}: member {safe_line(name)!r} appears more than once"
                + ("" if self.seen[folded] == name else f" (as {safe_line(self.seen[folded])!r})")
            )
        self.seen[folded] = name
        bundle = self.bundle
        bundle._add(name, info.file_size)
        bundle._packed.append(info.compress_size)
        bundle._offset.append(info.header_offset)
        bundle._crc.append(info.CRC)
        bundle._method.append(info.compress_type | info.flag_bits << 16)
        self.total += info.file_size
        if self.total > MAX_BUNDLE_BYTES:
            raise UnsafeBundle(
                f"{path}: members claim {self.total} bytes, more than a bundle holds"
            )


_END = b"PK\x05\x06"
_END64 = b"PK\x06\x06"
_END64_LOCATOR = b"PK\x06\x07"


def _zip_entries(path: Path) -> int | None:
    """How many members a zip's end record says its directory lists, read before the directory
    is (as :mod:`zipfile` reads it, every entry costs memory); None when it has no end record
    this reads (:mod:`zipfile` then says what is wrong with it)."""
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        start = max(0, size - (22 + 0xFFFF + 20))  # the end record, its comment, a locator
        handle.seek(start)
        tail = handle.read()
        at = tail.rfind(_END)
        if at < 0 or len(tail) - at < 22:
            return None
        (entries,) = struct.unpack_from("<H", tail, at + 10)
        if entries != 0xFFFF:
            return int(entries)
        locator = at - 20  # a zip64 archive: the count is in its own end record
        if locator < 0 or tail[locator : locator + 4] != _END64_LOCATOR:
            return None
        (offset,) = struct.unpack_from("<Q", tail, locator + 8)
        handle.seek(offset)
        record = handle.read(56)
    if len(record) < 56 or record[:4] != _END64:
        return None
    (entries64,) = struct.unpack_from("<Q", record, 32)
    return int(entries64)


def _folder_members(bundle: Bundle) -> None:
    path = bundle.path
    total = 0
    limit = max_members()
    for root, dirs, names in os.walk(path, followlinks=False):
        dirs.sort()
        for name in sorted(dirs + names):
            full = Path(root) / name
            rel = full.relative_to(path).as_posix()
            try:
                info = os.lstat(full)
            except OSError as exc:
                raise UnsafeBundle(
                    f"{path}: {safe_line(rel)} cannot be read ({exc.strerror})"
                ) from None
            if stat.S_ISLNK(info.st_mode):
                raise UnsafeBundle(f"{path}: {safe_line(rel)} is a symbolic link")
            if stat.S_ISDIR(info.st_mode):
                continue
            if not stat.S_ISREG(info.st_mode):
                raise UnsafeBundle(f"{path}: {safe_line(rel)} is {_kind(info.st_mode)}")
            bundle._add(rel, info.st_size)
            total += info.st_size
            if len(bundle) > limit:
                raise UnsafeBundle(f"{path}: more than {limit} files, more than a bundle holds")
            if total > MAX_BUNDLE_BYTES:
                raise UnsafeBundle(
                    f"{path}: its files hold more than {MAX_BUNDLE_BYTES} bytes, more than a "
                    "bundle holds"
                )


@contextmanager
def open_bundle(path: Path) -> Iterator[Bundle]:
    """A bundle folder or zip, its members listed and checked (nothing read yet)."""
    path = Path(path)
    try:
        info = os.lstat(path)
    except OSError:
        raise ExportError(
            f"{path}: no such bundle (expected a bundle folder or its .zip)"
        ) from None
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeBundle(f"{path} is a symbolic link")
    if stat.S_ISDIR(info.st_mode):
        bundle = Bundle(path)
        _folder_members(bundle)
        bundle._sort()
        yield bundle
        return
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeBundle(f"{path} is {_kind(info.st_mode)}, not a bundle folder or zip")
    try:
        listed = _zip_entries(path)
    except OSError as exc:
        raise UnsafeBundle(f"{path}: not a readable zip archive ({exc.strerror})") from None
    if listed is not None and listed > max_members():
        # Refused before the zip's directory is read: reading it costs memory for each entry.
        raise UnsafeBundle(f"{path}: {listed} members, more than a bundle holds")
    bundle = Bundle(path)
    listing = _ZipListing(bundle)
    try:
        bundle._zip = _Lean(path, listing)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as exc:
        raise UnsafeBundle(f"{path}: not a readable zip archive ({exc})") from None
    listing.seen = {}  # the names it saw, folded, are not kept
    try:
        bundle._sort()
        yield bundle
    finally:
        bundle.close()


class Listing(Mapping[str, tuple[str, int]]):
    """The files a manifest lists (path -> SHA-256, size), each a member of ``bundle`` at that
    size, in the manifest's order: its positions among the bundle's members and its SHA-256s
    as bytes, in arrays (a large study's manifest lists a few hundred thousand files)."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self._member = array("l")
        self._sha = bytearray()
        self._entry = array("l", [-1]) * len(bundle)
        """Each member's position in the listing (-1: not listed)."""

    def add(self, member: int, sha: bytes | bytearray) -> None:
        """List member ``member`` of the bundle (once), of SHA-256 ``sha``."""
        self._entry[member] = len(self._member)
        self._member.append(member)
        self._sha += sha

    def listed(self, member: int) -> bool:
        return self._entry[member] >= 0

    def entry(self, at: int) -> tuple[str, tuple[str, int]]:
        """The ``at``-th file listed: its path, SHA-256 and size."""
        member = self._member[at]
        sha = self._sha[32 * at : 32 * at + 32].hex()
        return self.bundle.names[member], (sha, self.bundle.sizes[member])

    def __getitem__(self, path: str) -> tuple[str, int]:
        member = self.bundle.find(path)
        if member is None or self._entry[member] < 0:
            raise KeyError(path)
        return self.entry(self._entry[member])[1]

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        member = self.bundle.find(path)
        return member is not None and self._entry[member] >= 0

    def __iter__(self) -> Iterator[str]:
        names = self.bundle.names
        return (names[member] for member in self._member)

    def __len__(self) -> int:
        return len(self._member)

    def entries(self) -> Iterator[tuple[str, tuple[str, int]]]:
        """Every file listed, in the manifest's order (as ``items()``, faster)."""
        return (self.entry(at) for at in range(len(self._member)))

    def member(self, at: int) -> int:
        """The ``at``-th file's position among the bundle's members."""
        return self._member[at]


def read_bundle(path: Path) -> dict[str, bytes]:
    """Every file of a bundle (path -> bytes), for a bundle this program just wrote; unsafe
    bundles are refused as by :func:`open_bundle`. ``verify`` reads members one at a time."""
    with open_bundle(path) as bundle:
        return {
            name: bundle.read(name, size)
            for name, size in zip(bundle.names, bundle.sizes, strict=True)
        }


__all__ = [
    "CHUNK",
    "INFLATION_FLOOR",
    "MAX_BUNDLE_BYTES",
    "MAX_HELD_BYTES",
    "MAX_HELD_LINES",
    "MAX_INFLATION",
    "MAX_LINE_BYTES",
    "MAX_MEMBERS",
    "Bundle",
    "HeldBudget",
    "LineLimit",
    "Listing",
    "Records",
    "max_members",
    "open_bundle",
    "read_bundle",
]
