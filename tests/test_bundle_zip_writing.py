"""An export's zip is made from the bytes deflated as each file was written, with the bytes
``zipfile`` writes for the same files, and what the export records of each file is kept on
the disk, not in memory.

What was found: on a PandaLM-shaped study of 100,000 pairs (200,000 raw outputs) the export
kept a path -> (SHA-256, size) entry per file until its manifest was written (about 340 bytes a
file), and ``zipfile.ZipFile`` kept a ``ZipInfo`` per member until the zip was closed, growing
with the study; and every file was read back from the disk and deflated a second time to be
zipped. Now each file is deflated as it is written, its entry goes to a listing on the disk
(sorted a bounded batch at a time and merged), and the zip's central directory is written from
each member's entry as the member is.
"""

from __future__ import annotations

import gc
import tracemalloc
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from abp_tui.export import bundle_writing, zip_writing
from abp_tui.export import records as rec
from abp_tui.export.bundle import write_zip
from abp_tui.export.bundle_writing import FolderFiles, zip_folder

ODD = {
    "protocol/study.json": b'{"id": "s"}\n',
    "results/empty.csv": b"",
    "runs/outputs/r\u00e9sum\u00e9 \u00fc\u00df.txt": "d\u00e9j\u00e0 vu \u2603\n".encode(),
    "runs/outputs/" + "long-name-" * 20 + ".txt": b"x" * 10,
    "runs/outputs/has space & (brackets) [1].txt": b"spaces\n" * 3,
    "runs/outputs/\u65e5\u672c\u8a9e.txt": "\u65e5\u672c\u8a9e\n".encode(),
    "runs/outputs/zero.txt": b"",
    "a/b/c/d/e/deep.bin": bytes(range(256)) * 50,
    "runs/outputs/random.bin": bytes((i * 7919 + 13) % 251 for i in range(300_000)),
    rec.MANIFEST: b'{"files": []}\n',
}


def _written(folder: Path, files: dict[str, bytes]) -> FolderFiles:
    written = FolderFiles(folder)
    for path, data in files.items():
        if len(data) > 1000:
            # Line by line, as the export writes its record files.
            written.write_lines(path, iter(data.splitlines(keepends=True)))
        else:
            written[path] = data
    return written


def _same_zip(tmp_path: Path, files: dict[str, bytes]) -> None:
    """Our zip of ``files`` written into a folder has the bytes zipfile writes for them."""
    written = _written(tmp_path / "folder", files)
    try:
        zip_folder(written, tmp_path / "ours.zip")
    finally:
        written.close()
    write_zip(tmp_path / "zipfile.zip", dict(files))
    assert (tmp_path / "ours.zip").read_bytes() == (tmp_path / "zipfile.zip").read_bytes()
    with zipfile.ZipFile(tmp_path / "ours.zip") as zf:
        assert zf.testzip() is None
        assert {i.filename: zf.read(i) for i in zf.infolist()} == files
    for path, data in files.items():
        assert (tmp_path / "folder" / path).read_bytes() == data


def test_the_zip_has_zipfiles_bytes_for_odd_names_and_empty_files(tmp_path: Path) -> None:
    _same_zip(tmp_path, ODD)


def test_a_file_written_while_another_is_keeps_its_bytes_together(tmp_path: Path) -> None:
    """``runs.jsonl`` is written a line at a time while each run's output is written: the two
    files' deflated bytes must not interleave."""
    written = FolderFiles(tmp_path / "folder")
    expected: dict[str, bytes] = {}

    def lines() -> Iterator[bytes]:
        for n in range(2000):
            data = f"output {n} ".encode() * (n % 40)
            written[f"runs/outputs/{n}.txt"] = data
            expected[f"runs/outputs/{n}.txt"] = data
            yield f'{{"run": {n}, "text": "{"y" * (n % 300)}"}}\n'.encode()

    try:
        written.write_lines(rec.RUNS, lines())
        expected[rec.RUNS] = (tmp_path / "folder" / rec.RUNS).read_bytes()
        zip_folder(written, tmp_path / "ours.zip")
    finally:
        written.close()
    write_zip(tmp_path / "zipfile.zip", expected)
    assert (tmp_path / "ours.zip").read_bytes() == (tmp_path / "zipfile.zip").read_bytes()


def test_zip64_members_offsets_and_counts_have_zipfiles_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past zipfile's limits (lowered here: a real one is 2 GiB and 65,535 members) a member,
    an offset and the count take zip64 records, as zipfile writes them."""
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 5000)
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 20)
    files = {f"runs/outputs/{n:03}.txt": f"{n}\n".encode() * n for n in range(40)}
    files["results/large.bin"] = bytes((i * 31) % 256 for i in range(20_000))  # past the limit
    files["results/near.bin"] = b"n" * 4900  # zip64 in its local header only (x 1.05)
    files["results/incompressible.bin"] = bytes((i * 7919 + 13) % 251 for i in range(6000))
    _same_zip(tmp_path, files)
    with zipfile.ZipFile(tmp_path / "ours.zip") as zf:
        assert zf.getinfo("results/large.bin").file_size == 20_000


def test_the_listing_merged_from_sorted_runs_gives_the_same_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bundle_writing, "RUN", 7)
    files = {f"runs/outputs/{(n * 37) % 101}-{n}.txt": b"o" * n for n in range(101)}
    files.update(ODD)
    _same_zip(tmp_path, files)
    written = _written(tmp_path / "again", files)
    try:
        listed = list(written.listing())
        assert [p for p, _sha, _size in listed] == [
            rec.MANIFEST,
            *sorted(p for p in files if p != rec.MANIFEST),
        ]
        assert {p: size for p, _sha, size in listed} == {p: len(d) for p, d in files.items()}
        assert list(written) == list(files)  # in the order written
        assert len(written) == len(files)
    finally:
        written.close()


def test_a_file_is_written_once(tmp_path: Path) -> None:
    written = FolderFiles(tmp_path / "folder")
    try:
        written["runs/outputs/a.txt"] = b"a"
        written[rec.RUNS] = b"r"
        with pytest.raises(ValueError, match="written twice"):
            written["runs/outputs/a.txt"] = b"b"
        with pytest.raises(ValueError, match="written twice"):
            written.write_lines(rec.RUNS, iter([b"x"]))
        assert written["runs/outputs/a.txt"] == b"a"
        assert "runs/outputs/a.txt" in written and "runs/outputs/b.txt" not in written
        with pytest.raises(KeyError):
            written["runs/outputs/b.txt"]
    finally:
        written.close()


def _outputs(written: FolderFiles, first: int, count: int) -> None:
    for n in range(first, first + count):
        written[f"runs/outputs/{n:06}_1-0123abcd.txt"] = b"an output of a few words\n"


def _ours(snapshot: tracemalloc.Snapshot) -> int:
    """Bytes held by what the bundle's writing allocated (whatever else the process does)."""
    mine = [
        tracemalloc.Filter(True, bundle_writing.__file__, all_frames=True),
        tracemalloc.Filter(True, zip_writing.__file__, all_frames=True),
    ]
    return sum(stat.size for stat in snapshot.filter_traces(mine).statistics("filename"))


def test_what_is_recorded_of_each_file_stays_out_of_memory(tmp_path: Path) -> None:
    """A study's raw outputs cost the export no memory each once written (their entries are on
    the disk): 4,000 more files hold less than 16 bytes a file more than the first 500 (an
    entry a file in memory held about 260)."""
    written = FolderFiles(tmp_path / "folder")
    try:
        _outputs(written, 0, 500)
        gc.collect()
        tracemalloc.start(30)
        try:
            before = _ours(tracemalloc.take_snapshot())
            _outputs(written, 500, 4000)
            gc.collect()
            held = _ours(tracemalloc.take_snapshot()) - before
        finally:
            tracemalloc.stop()
        assert held < 16 * 4000, f"{held / 4000:.0f} bytes held a file"
    finally:
        written.close()


def test_the_manifest_and_the_zip_hold_a_bounded_batch_of_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing the files in the bundle's order and zipping them hold at most a batch of
    :data:`RUN` entries (zipfile kept a ``ZipInfo`` a member, about 400 bytes, until it
    closed): with batches of 256 read 2 kB at a time, 6,000 files take less than 80 bytes a
    file at the peak."""
    monkeypatch.setattr(bundle_writing, "RUN", 256)
    monkeypatch.setattr(bundle_writing, "BLOCK", 2048)
    written = FolderFiles(tmp_path / "folder")
    try:
        _outputs(written, 0, 6000)
        written[rec.MANIFEST] = b"{}\n"
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            assert sum(1 for _entry in written.listing()) == 6001
            zip_folder(written, tmp_path / "bundle.zip")
            peak = tracemalloc.get_traced_memory()[1] - before
        finally:
            tracemalloc.stop()
    finally:
        written.close()
    assert peak < 80 * 6000, f"{peak / 6000:.0f} bytes a file"
    with zipfile.ZipFile(tmp_path / "bundle.zip") as zf:
        assert len(zf.infolist()) == 6001
        assert zf.infolist()[0].filename == rec.MANIFEST
