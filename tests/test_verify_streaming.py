"""``verify`` streams a bundle: every member is hashed a chunk at a time, the derived files are
compared by the hash of the bytes re-derived (never read whole unless they differ, to show
where), the records are hashed as they are parsed (``tests/test_verify_reads_once.py``), and
a long manifest's listing is checked without the schema validator walking every entry.

What was found: ``verify`` held every file it did not only hash (the records and the derived
files alike) in memory through the whole re-derivation, and refused a bundle whose records and
derived files together passed a budget; a large study's derived files (per-task tables, the
report) were half of what it held.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from abp_tui.export import BundleMismatch, bundle_reading, verify
from abp_tui.export import bundle as bundle_module
from abp_tui.export.bundle_reading import CHUNK, HeldBudget, LineLimit, open_bundle
from abp_tui.services.publishing import export_bundle
from abp_tui.store import connect
from tests.factories import Cli, abp_judged, exported_abp_bundle

MIB = 1 << 20


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return exported_abp_bundle(tmp_path_factory.mktemp("exported"))


@pytest.fixture
def bundle(exported: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(exported, tmp_path / "bundle"))


def _manifest(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / "manifest.json").read_text("utf-8"))
    return loaded


def _relist(folder: Path, path: str) -> None:
    """List ``path`` in the manifest with its present hash and size, as a forger would."""
    manifest = _manifest(folder)
    data = (folder / path).read_bytes()
    for entry in manifest["files"]:
        if entry["path"] == path:
            entry["sha256"] = hashlib.sha256(data).hexdigest()
            entry["bytes"] = len(data)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1), "utf-8")


def _sizes(folder: Path) -> tuple[int, int]:
    """Bytes of the files verify parses (neither raw outputs, traces, diffs nor derived), and of
    the derived files."""
    manifest = _manifest(folder)
    derived = set(manifest["derived"])
    streamed = ("runs/outputs/", "runs/traces/", "runs/diffs/")
    source = sum(
        e["bytes"]
        for e in manifest["files"]
        if not e["path"].startswith(streamed) and e["path"] not in derived
    )
    return source, sum(e["bytes"] for e in manifest["files"] if e["path"] in derived)


def test_the_derived_files_are_compared_by_hash_never_held(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bundle verifies without any derived file being held in memory: they are hashed a
    chunk at a time like a raw output, and the bytes re-derived are compared by SHA-256; what
    is held (counted against the budget) is the records parsed."""
    held: set[str] = set()
    take = HeldBudget.take

    def spy(self: HeldBudget, name: str, chunk: bytes) -> None:
        held.add(name)
        take(self, name, chunk)

    monkeypatch.setattr(HeldBudget, "take", spy)
    report = verify(bundle)
    derived = set(_manifest(bundle)["derived"])
    assert report.derived == len(derived) > 10
    assert {"runs/runs.jsonl", "judging/judgments.jsonl"} <= held
    assert not derived & held, sorted(derived & held)


def test_a_bundle_whose_records_and_derived_files_pass_the_budget_verifies(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget of what verify holds is the records it parses; the derived files, only
    hashed, do not count (a budget between the two used to refuse this bundle)."""
    source, derived = _sizes(bundle)
    assert derived > 0
    limit = source + derived // 2
    for module in (bundle_reading, bundle_module):
        monkeypatch.setattr(module, "default_limits", lambda: (limit, 10**6))
    assert verify(bundle).derived > 10
    # The records themselves are still held to it.
    for module in (bundle_reading, bundle_module):
        monkeypatch.setattr(module, "default_limits", lambda: (source // 2, 10**6))
    with pytest.raises(BundleMismatch, match="re-derive from"):
        verify(bundle)


def test_a_derived_file_listed_with_its_new_hash_names_the_first_difference(
    bundle: Path, cli: Cli
) -> None:
    """Compared by hash, a rewritten derived file is still read to say where it differs."""
    path = bundle / "results" / "limitations.json"
    lines = path.read_text("utf-8").split("\n")
    number = next(i for i, line in enumerate(lines) if '"text"' in line)
    lines[number] = lines[number].replace('"text": "', '"text": "Not ', 1)
    path.write_text("\n".join(lines), "utf-8")
    _relist(bundle, "results/limitations.json")
    result = cli("verify", bundle)
    assert result.code == 1
    assert result.err.count("\n") == 1, result.err
    assert "results/limitations.json" in result.err
    assert f"line {number + 1}, column" in result.err and "Not " in result.err


def test_hashing_a_member_holds_one_chunk_whatever_its_size(tmp_path: Path) -> None:
    """A 64 MiB member is hashed with at most a couple of chunks in memory."""
    folder = tmp_path / "b"
    folder.mkdir()
    block = bytes(range(256)) * 4096
    sha = hashlib.sha256()
    with (folder / "big.jsonl").open("wb") as out:
        for _ in range(64 * MIB // len(block)):
            out.write(block[:-1] + b"\n")
            sha.update(block[:-1] + b"\n")
    with open_bundle(folder) as opened:
        tracemalloc.start()
        try:
            opened.check("big.jsonl", 64 * MIB, sha.hexdigest(), LineLimit())
            _current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 4 * CHUNK, peak


def test_a_bad_entry_deep_in_a_long_listing_is_named(bundle: Path, cli: Cli) -> None:
    """The listing is checked entry by entry without the schema validator, but an entry the
    schema refuses is named as the schema names it, wherever it is."""
    manifest = _manifest(bundle)
    assert len(manifest["files"]) > 5
    manifest["files"][5]["sha256"] = manifest["files"][5]["sha256"].upper()
    (bundle / "manifest.json").write_text(json.dumps(manifest, indent=1), "utf-8")
    result = cli("verify", bundle)
    assert result.code == 1
    assert result.err.count("\n") == 1, result.err
    assert "$.files[5].sha256" in result.err, result.err


def test_a_zip_with_many_records_round_trips(tmp_path: Path, cli: Cli) -> None:
    """A bundle whose records outnumber a few chunks verifies from its zip and from its folder:
    members read as streams from the zip, hashed while read, re-derived identically."""
    from tests.ranking_data import write_pairwise

    db = connect(tmp_path / "p.db")
    try:
        from abp_tui.models import StudyDesign
        from abp_tui.services.designing import create_design
        from abp_tui.services.importing import import_paths
        from abp_tui.services.results_report import unblind

        import_paths(db, [write_pairwise(tmp_path / "pairs.json")], study="pairs")
        pk = create_design(
            db, StudyDesign(study="pairs", name="d", seed=3, rubric="none", contrasts="all-pairs")
        ).pk
        unblind(db, "pairs", "coordinator")
        export_bundle(db, pk, tmp_path / "out" / "bundle")
    finally:
        db.close()
    folder = tmp_path / "out" / "bundle"
    runs = (folder / "runs" / "runs.jsonl").read_bytes().count(b"\n")
    assert runs >= 10
    for target in (folder, tmp_path / "out" / "bundle.zip"):
        report = verify(target)
        assert report.files == len(_manifest(folder)["files"]) + 1
        assert report.derived > 10


def test_a_json_documents_lines_are_not_counted_as_records() -> None:
    """The lines budget counts records, a line each in a JSON Lines file: a large study's
    ``protocol/tasks.json`` (one document, a field a line) is not refused for its lines."""
    budget = HeldBudget(max_bytes=1 << 30, max_lines=5)
    budget.take("protocol/tasks.json", b'[\n {\n  "id": "1"\n },\n' * 10)
    assert budget.lines == 0
    with pytest.raises(BundleMismatch, match="more than 5 lines"):
        budget.take("runs/runs.jsonl", b"{}\n" * 6)


def test_the_export_written_as_made_is_the_bundle_made_in_memory(tmp_path: Path) -> None:
    """The export writes each file to the folder as it is made and zips the folder a chunk at a
    time; its folder and zip are byte for byte those of the bundle's files made in memory and
    written at once."""
    from abp_tui.export.bundle import write_bundle
    from abp_tui.services.publishing import build_bundle

    db = connect(tmp_path / "b.db")
    try:
        pk = abp_judged(db)
        streamed = export_bundle(db, pk, tmp_path / "streamed" / "bundle")
        at_once = write_bundle(tmp_path / "at-once" / "bundle", build_bundle(db, pk))
    finally:
        db.close()
    assert streamed.zip_path.read_bytes() == at_once.read_bytes()
    folder = tmp_path / "at-once" / "bundle"
    names = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert names == sorted(
        p.relative_to(streamed.folder).as_posix() for p in streamed.folder.rglob("*") if p.is_file()
    )
    for name in names:
        assert (streamed.folder / name).read_bytes() == (folder / name).read_bytes(), name
    assert streamed.files == len(names)


def test_the_runs_are_read_a_batch_at_a_time_as_they_were_read_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export reads a study's runs a batch at a time (only a batch of records and outputs
    in memory): the same runs, facts, records, outputs and traces, in the same order, as
    reading them all at once, across batch boundaries."""
    from abp_tui.store import bulk

    db = connect(tmp_path / "b.db")
    try:
        abp_judged(db)
        study = db.execute("SELECT id FROM studies").fetchone()[0]
        monkeypatch.setattr(bulk, "_BATCH", 3)
        at_once = bulk.current_runs(db, study)
        batched = list(bulk.each_current_run(db, study))
    finally:
        db.close()
    assert len(at_once) > 6
    assert batched == at_once


def test_the_export_keeps_no_raw_output_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each raw output goes to the bundle's folder as it is read and is not kept: none of the
    bundle's files is held but the few small protocol files read several times."""
    from abp_tui.export import bundle_writing

    seen: list[bundle_writing.FolderFiles] = []
    written: list[str] = []
    finish = bundle_writing.finish

    def spy(files: bundle_writing.FolderFiles, *args: Any) -> None:
        seen.append(files)
        finish(files, *args)
        written.extend(files)  # the listing is let go of once the bundle is zipped

    monkeypatch.setattr(bundle_writing, "finish", spy)
    db = connect(tmp_path / "b.db")
    try:
        export_bundle(db, abp_judged(db), tmp_path / "bundle")
    finally:
        db.close()
    (files,) = seen
    outputs = [p for p in written if p.startswith("runs/outputs/")]
    assert len(outputs) > 5
    kept = set(files._kept)
    assert not kept & set(outputs)
    assert sum(len(files._kept[p]) for p in kept) <= 16 * bundle_writing.KEEP
