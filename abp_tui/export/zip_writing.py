"""A deflated zip written from members compressed beforehand, with the bytes :mod:`zipfile`
writes for the same files.

A bundle's files are deflated as they are written (:class:`Deflating`, into one spool file)
and the zip is made afterwards in the bundle's order from the compressed bytes, each copied
as it is; its central directory is written from a small record per member as the member is,
so nothing per member stays in memory (:class:`zipfile.ZipFile` keeps a ``ZipInfo`` per
member until it closes). The bytes are those of ``zipfile.ZipFile(target, "w",
ZIP_DEFLATED, compresslevel=level)`` given each member as a ``ZipInfo(path, date_time)`` with
``create_system`` 3, ``external_attr`` ``mode << 16`` and its ``file_size`` set before it is
written, zip64 extensions included (a member, an offset or a count past :mod:`zipfile`'s
limits, which are read from it).
"""

from __future__ import annotations

import struct
import tempfile
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

CHUNK = 64 << 10
"""Bytes copied at a time from the spool into the zip."""

_LOCAL = struct.Struct("<4s2B4HL2L2H")
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_END = struct.Struct("<4s4H2LH")
_END64 = struct.Struct("<4sQ2H2L4Q")
_LOCATOR64 = struct.Struct("<4sLQL")
_UTF8_NAME = 0x800
_VERSION = 20
_VERSION64 = 45


@dataclass(frozen=True, slots=True)
class Deflated:
    """Where a member's deflated bytes are in the spool and what a zip records of it."""

    crc: int
    size: int
    compressed: int
    spool: int
    """Which spool (of those given to :func:`write_zip`) holds them."""
    offset: int


class Deflating:
    """One member's bytes deflated at ``level`` into ``spool`` (numbered ``number``) as they
    are written (the compressor :mod:`zipfile` uses: raw deflate), its CRC-32 and sizes
    counted. Nothing else is written to ``spool`` until it is closed."""

    def __init__(self, spool: IO[bytes], level: int, number: int = 0) -> None:
        self._spool = spool
        self._number = number
        self._offset = spool.tell()
        self._compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
        self._crc = 0
        self._size = 0

    def write(self, data: bytes) -> None:
        self._crc = zlib.crc32(data, self._crc)
        self._size += len(data)
        self._spool.write(self._compressor.compress(data))

    def close(self) -> Deflated:
        self._spool.write(self._compressor.flush())
        end = self._spool.tell()
        return Deflated(self._crc, self._size, end - self._offset, self._number, self._offset)


def deflated(spool: IO[bytes], data: bytes, level: int, number: int = 0) -> Deflated:
    """A member whose bytes are all at hand, deflated at ``level`` into ``spool`` (numbered
    ``number``) in one call: the bytes :class:`Deflating` writes of them (zlib's output does not
    depend on how its input is cut), without a compressor of its own (a study's tens of
    thousands of raw outputs)."""
    offset = spool.tell()
    packed = zlib.compress(data, level, -15)
    spool.write(packed)
    return Deflated(zlib.crc32(data), len(data), len(packed), number, offset)


def _dos(date_time: tuple[int, int, int, int, int, int]) -> tuple[int, int]:
    year, month, day, hour, minute, second = date_time
    return (hour << 11 | minute << 5 | second // 2), ((year - 1980) << 9 | month << 5 | day)


def _name(path: str) -> tuple[bytes, int]:
    try:
        return path.encode("ascii"), 0
    except UnicodeEncodeError:
        return path.encode("utf-8"), _UTF8_NAME


class ZipWriter:
    """Members appended to ``target`` one at a time (:meth:`add`), each from its deflated
    bytes in a spool; :meth:`close` writes the central directory (spooled to a temporary file
    in ``where`` meanwhile) and the end records."""

    def __init__(
        self,
        target: IO[bytes],
        date_time: tuple[int, int, int, int, int, int],
        mode: int,
        where: Path,
    ) -> None:
        self._out = target
        # Closed by close() or discard().
        self._central = tempfile.TemporaryFile(dir=where)  # noqa: SIM115
        self._dostime, self._dosdate = _dos(date_time)
        self._external = mode << 16
        self._count = 0

    def add(self, path: str, member: Deflated, spool: IO[bytes]) -> None:
        """Append ``path``, its deflated bytes copied from ``spool``."""
        limit = zipfile.ZIP64_LIMIT
        name, flags = _name(path)
        offset = self._out.tell()
        # zipfile decides zip64 from the size it is told before writing (with a margin).
        zip64 = member.size * 1.05 > limit
        if not zip64 and (member.size > limit or member.compressed > limit):
            raise zipfile.LargeZipFile(f"{path}: too large for a zip without zip64")
        version = _VERSION64 if zip64 else _VERSION
        if zip64:
            extra = struct.pack("<HHQQ", 1, 16, member.size, member.compressed)
            sizes = (0xFFFFFFFF, 0xFFFFFFFF)
        else:
            extra = b""
            sizes = (member.compressed, member.size)
        self._out.write(
            _LOCAL.pack(
                b"PK\003\004",
                version,
                0,
                flags,
                zipfile.ZIP_DEFLATED,
                self._dostime,
                self._dosdate,
                member.crc,
                *sizes,
                len(name),
                len(extra),
            )
        )
        self._out.write(name)
        self._out.write(extra)
        spool.seek(member.offset)
        left = member.compressed
        while left:
            chunk = spool.read(min(left, CHUNK))
            if not chunk:  # a bug: the spool lost what was written to it
                raise ValueError(f"{path}: its deflated bytes are missing from the spool")
            self._out.write(chunk)
            left -= len(chunk)
        # The central directory's entry, as zipfile writes it when it closes.
        wide: list[int] = []
        if member.size > limit or member.compressed > limit:
            wide += (member.size, member.compressed)
            sizes = (0xFFFFFFFF, 0xFFFFFFFF)
        else:
            sizes = (member.compressed, member.size)
        if offset > limit:
            wide.append(offset)
            offset = 0xFFFFFFFF
        central_extra = struct.pack(f"<HH{len(wide)}Q", 1, 8 * len(wide), *wide) if wide else b""
        if wide:
            version = _VERSION64
        self._central.write(
            _CENTRAL.pack(
                b"PK\001\002",
                version,
                3,
                version,
                0,
                flags,
                zipfile.ZIP_DEFLATED,
                self._dostime,
                self._dosdate,
                member.crc,
                *sizes,
                len(name),
                len(central_extra),
                0,
                0,
                0,
                self._external,
                offset,
            )
        )
        self._central.write(name)
        self._central.write(central_extra)
        self._count += 1

    def close(self) -> None:
        start = self._out.tell()
        central = self._central
        central.seek(0)
        while chunk := central.read(CHUNK):
            self._out.write(chunk)
        central.close()
        end = self._out.tell()
        count, size, offset = self._count, end - start, start
        if (
            count > zipfile.ZIP_FILECOUNT_LIMIT
            or offset > zipfile.ZIP64_LIMIT
            or (size > zipfile.ZIP64_LIMIT)
        ):
            self._out.write(
                _END64.pack(b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, offset)
            )
            self._out.write(_LOCATOR64.pack(b"PK\x06\x07", 0, end, 1))
            count, size, offset = min(count, 0xFFFF), min(size, 0xFFFFFFFF), min(offset, 0xFFFFFFFF)
        self._out.write(_END.pack(b"PK\005\006", 0, 0, count, count, size, offset, 0))

    def discard(self) -> None:
        """Let go of the central directory's spool (once it is copied, or when the zip is not
        finished)."""
        self._central.close()


def write_zip(
    target: Path,
    members: Iterable[tuple[str, Deflated]],
    spools: Sequence[IO[bytes]],
    date_time: tuple[int, int, int, int, int, int],
    mode: int,
) -> None:
    """The zip of ``members`` (path and deflated bytes in one of ``spools``, in the zip's
    order) at ``target``."""
    for spool in spools:
        spool.flush()
    with Path(target).open("wb") as out:
        writer = ZipWriter(out, date_time, mode, Path(target).parent)
        try:
            for path, member in members:
                writer.add(path, member, spools[member.spool])
            writer.close()
        finally:
            writer.discard()


__all__ = ["Deflated", "Deflating", "ZipWriter", "deflated", "write_zip"]
