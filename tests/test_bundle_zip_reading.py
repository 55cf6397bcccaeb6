"""How ``verify`` reads a bundle's zip: each small member in one read, and a member it cannot
read refused in one line naming it (issue #31).

What was found: every member came out of the zip through :mod:`zipfile`'s reader, three reads
a member (its local header, its name, its bytes) and a reader object each; a 20,000-pair
bundle's 40,000 members took 1.3 s to read so, and 0.75 s read in one read each. And a member
whose deflated bytes do not inflate stopped ``verify`` with an internal error (``zlib.error``,
exit 3) rather than refusing the bundle. Now a member of a chunk or less, stored or deflated and
not encrypted, is read with its local header in one read, inflated and checked against the
zip's directory (its size and CRC-32); anything else, or anything that does not check, is read
through :mod:`zipfile` as before, which names what is wrong; and a member that does not inflate
is refused naming it.
"""

from __future__ import annotations

import shutil
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from abp_tui.export import BundleMismatch, verify
from abp_tui.export.bundle_reading import open_bundle
from tests.factories import Cli, exported_abp_bundle

OUTPUT_PREFIX = "runs/outputs/"


@pytest.fixture(scope="module")
def zipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = exported_abp_bundle(tmp_path_factory.mktemp("exported"))
    zip_path = folder.with_name(folder.name + ".zip")
    assert zip_path.is_file()
    return zip_path


def _output(zip_path: Path) -> zipfile.ZipInfo:
    """A deflated raw output of the bundle."""
    with zipfile.ZipFile(zip_path) as zf:
        found = [
            i
            for i in zf.infolist()
            if i.filename.startswith(OUTPUT_PREFIX) and i.compress_type == zipfile.ZIP_DEFLATED
        ]
    assert found
    return found[0]


def _changed(zip_path: Path, out: Path, at: int, value: bytes) -> zipfile.ZipInfo:
    """A copy of the zip at ``out`` with ``value`` written over one raw output's bytes from
    ``at`` (negative: into its local header's name, counted from the name's end)."""
    shutil.copy(zip_path, out)
    info = _output(zip_path)
    data = bytearray(out.read_bytes())
    named, extra = struct.unpack_from("<HH", data, info.header_offset + 26)
    start = info.header_offset + 30 + (named if at < 0 else named + extra) + at
    data[start : start + len(value)] = value
    out.write_bytes(bytes(data))
    return info


def _zipfile_says(path: Path, name: str) -> str:
    """What :mod:`zipfile` raises reading member ``name``."""
    with zipfile.ZipFile(path) as zf, pytest.raises(Exception) as caught:
        zf.read(name)
    return str(caught.value)


def test_small_members_are_read_in_one_read_with_zipfiles_bytes(
    zipped: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    zip_open = zipfile.ZipFile.open

    def counted(self: zipfile.ZipFile, name: object, *args: object, **kwargs: object) -> object:
        opened.append(getattr(name, "filename", str(name)))
        return zip_open(self, name, *args, **kwargs)  # type: ignore[arg-type]

    with zipfile.ZipFile(zipped) as zf:
        expected = {i.filename: zf.read(i) for i in zf.infolist() if not i.is_dir()}
    monkeypatch.setattr(zipfile.ZipFile, "open", counted)
    with open_bundle(zipped) as bundle:
        found = {
            name: b"".join(bundle._chunks(name, size))
            for name, size in zip(bundle.names, bundle.sizes, strict=True)
        }
    assert found == expected
    assert opened == []  # every member of this bundle is small
    assert verify(zipped).files == len(expected)


def _chunks_of(path: Path, name: str) -> Iterator[bytes]:
    with open_bundle(path) as bundle:
        yield from bundle._chunks(name, bundle.size(name) or 0)


def test_a_member_whose_crc_differs_is_refused_as_zipfile_refuses_it(
    zipped: Path, tmp_path: Path
) -> None:
    out = tmp_path / "crc.zip"
    info = _output(zipped)
    data = bytearray(zipped.read_bytes())
    # The zip's directory gives another CRC-32: the member's bytes no longer give it.
    entry = data.rfind(info.filename.encode("utf-8")) - 46  # its name ends the entry's header
    assert data[entry : entry + 4] == b"PK\x01\x02"
    struct.pack_into("<I", data, entry + 16, info.CRC ^ 1)
    out.write_bytes(bytes(data))
    says = _zipfile_says(out, info.filename)
    assert "Bad CRC-32" in says
    with pytest.raises(BundleMismatch, match="cannot be read from the zip") as caught:
        list(_chunks_of(out, info.filename))
    assert str(caught.value).endswith(f"({says})")
    with pytest.raises(BundleMismatch, match="Bad CRC-32"):
        verify(out)


def test_a_member_whose_header_names_another_file_is_refused_as_zipfile_refuses_it(
    zipped: Path, tmp_path: Path
) -> None:
    out = tmp_path / "named.zip"
    info = _changed(zipped, out, -1, b"X")  # the last letter of its name in its local header
    says = _zipfile_says(out, info.filename)
    assert "differ" in says
    with pytest.raises(BundleMismatch) as caught:
        list(_chunks_of(out, info.filename))
    assert str(caught.value).endswith(f"cannot be read from the zip ({says})")


def test_a_member_that_does_not_inflate_is_refused_naming_it(
    zipped: Path, tmp_path: Path, cli: Cli
) -> None:
    out = tmp_path / "broken.zip"
    info = _changed(zipped, out, 0, b"\xff")  # its first deflated byte: an invalid block
    assert "while decompressing" in _zipfile_says(out, info.filename)
    found = cli("verify", out)
    assert found.code == 1, found.err
    assert info.filename in found.err
    assert "cannot be read from the zip (Error -3 while decompressing data" in found.err
    assert "internal error" not in found.err
