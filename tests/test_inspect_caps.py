"""Hostile ``.eval`` logs: a zip member past the size cap is refused before it fills memory.

A sample padded to a gigabyte once took more than 2 GiB of memory to import. The cap
(``MAX_MEMBER_BYTES``, 256 MiB) is lowered here so the files stay small; each test builds its
zip, and one rewrites the sizes the zip declares, as a hostile file would.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path
from typing import Any, Literal

import pytest

from abp_tui.formats import inspect_log
from tests.factories import Cli
from tests.import_helpers import nothing_stored

CAP = 4096


def _sample(sid: int, padding: int = 0) -> dict[str, Any]:
    return {
        "id": sid,
        "epoch": 1,
        "input": f"question {sid}",
        "target": "answer",
        "messages": [
            {"role": "user", "content": f"question {sid}"},
            {"role": "assistant", "content": f"reply {sid}" + " " * padding},
        ],
        "output": {"model": "claude-x-2025", "choices": []},
    }


def _header() -> dict[str, Any]:
    return {
        "version": 2,
        "status": "success",
        "eval": {"run_id": "RUN1", "task_id": "TASKID1", "task": "toy", "model": "m/x"},
    }


def _write_eval(path: Path, samples: list[dict[str, Any]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(_header()))
        for sample in samples:
            archive.writestr(f"samples/{sample['id']}_epoch_1.json", json.dumps(sample))
    return path


def _declare_size(path: Path, member: str, size: int) -> None:
    """Rewrite the uncompressed size the zip declares for ``member`` (local header and central
    directory; the compressed data and its CRC stay those of the real content)."""
    with zipfile.ZipFile(path) as archive:
        local = archive.getinfo(member).header_offset
    data = bytearray(path.read_bytes())
    struct.pack_into("<I", data, local + 22, size)
    name = member.encode()
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46 : at + 46 + length]) == name:
            struct.pack_into("<I", data, at + 24, size)
        at = data.find(b"PK\x01\x02", at + 46)
    path.write_bytes(bytes(data))


@pytest.fixture
def low_cap(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The cap lowered to 4 KiB; returns the members opened for reading, in order."""
    monkeypatch.setattr(inspect_log, "MAX_MEMBER_BYTES", CAP)
    monkeypatch.setattr(inspect_log, "READ_CHUNK", 512)
    opened: list[str] = []
    real_open = zipfile.ZipFile.open

    def open_member(
        self: zipfile.ZipFile, name: Any, mode: Literal["r", "w"] = "r", **kwargs: Any
    ) -> Any:
        if mode == "r":
            opened.append(name.filename if isinstance(name, zipfile.ZipInfo) else name)
        return real_open(self, name, mode, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", open_member)
    return opened


def test_the_documented_cap_is_256_mib() -> None:
    assert inspect_log.MAX_MEMBER_BYTES == 256 * 1024 * 1024
    assert "256 MiB" in (inspect_log.__doc__ or "")


def test_a_member_declared_past_the_cap_is_refused_before_it_is_read(
    tmp_path: Path, cli: Cli, low_cap: list[str]
) -> None:
    src = _write_eval(tmp_path / "padded.eval", [_sample(1), _sample(2, padding=CAP * 4)])
    declared = zipfile.ZipFile(src).getinfo("samples/2_epoch_1.json").file_size
    assert declared > CAP
    result = cli("import", src)
    assert result.code == 1
    assert (
        f"padded.eval (samples/2_epoch_1.json): member is {declared} bytes uncompressed: "
        f"expected at most {CAP} bytes"
    ) in result.err
    assert "Traceback" not in result.err
    nothing_stored(cli)
    # Refused by its declared size alone: the sample before it was read, this one never.
    assert "samples/1_epoch_1.json" in low_cap and "samples/2_epoch_1.json" not in low_cap
    # The other samples are fine: --skip-invalid imports them.
    skipped = cli("import", src, "--skip-invalid", "--json")
    assert skipped.code == 0
    assert json.loads(skipped.out)["totals"]["runs added"] == 1


def test_a_member_exactly_at_the_cap_is_read(tmp_path: Path, cli: Cli, low_cap: list[str]) -> None:
    plain = len(json.dumps(_sample(1)))
    src = _write_eval(tmp_path / "full.eval", [_sample(1, padding=CAP - plain)])
    assert zipfile.ZipFile(src).getinfo("samples/1_epoch_1.json").file_size == CAP
    result = cli("import", src, "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["totals"]["runs added"] == 1


def test_a_zip_that_declares_a_small_size_for_a_large_member_is_refused(
    tmp_path: Path, cli: Cli, low_cap: list[str]
) -> None:
    src = _write_eval(tmp_path / "liar.eval", [_sample(1, padding=CAP * 16)])
    _declare_size(src, "samples/1_epoch_1.json", 100)
    assert zipfile.ZipFile(src).getinfo("samples/1_epoch_1.json").file_size == 100
    result = cli("import", src)
    assert result.code == 1
    assert result.err.startswith("abp-tui: ")
    assert "liar.eval (samples/1_epoch_1.json): cannot read zip member" in result.err
    assert "Traceback" not in result.err
    nothing_stored(cli)


def test_the_bounded_reader_stops_a_chunk_past_the_limit_whatever_is_declared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A member that yields more than its header said (another zip reader might not stop at
    the declared size): reading ends one byte past the limit, never at the member's end."""
    monkeypatch.setattr(inspect_log, "READ_CHUNK", 1000)
    stream = io.BytesIO(b"x" * 1_000_000)
    assert inspect_log._read_at_most(stream, CAP) is None
    assert stream.tell() == CAP + 1
    exact = io.BytesIO(b"y" * CAP)
    assert inspect_log._read_at_most(exact, CAP) == b"y" * CAP
    assert inspect_log._read_at_most(io.BytesIO(b""), CAP) == b""
