"""``verify`` reads each member of a bundle once (issue 31, item 1).

What was found: every member was hashed a chunk at a time before anything was parsed, and the
records were then read and hashed again as they were parsed: each record file came out of the
zip twice (a 100,000-pair study's 375 MiB of records). Now the records are hashed as they are
parsed, and every other member hashed beside them; what ``verify`` names when a member changed
is still what hashing every member first named: the first member, in the manifest's order,
whose bytes are not the ones listed (never the parse error or the check its edit set off).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from abp_tui.export import BundleMismatch, verify
from abp_tui.export.bundle_reading import Bundle, HeldBudget, Records, open_bundle
from tests.factories import Cli, exported_abp_bundle

AUDIT = "audit/audit_log.jsonl"
JUDGMENTS = "judging/judgments.jsonl"
CHANGED = re.escape("differs from manifest.json's")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return exported_abp_bundle(tmp_path_factory.mktemp("exported"))


@pytest.fixture
def bundle(exported: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(exported, tmp_path / "bundle"))


def _listed(folder: Path) -> list[dict[str, Any]]:
    files: list[dict[str, Any]] = json.loads((folder / "manifest.json").read_text("utf-8"))["files"]
    return files


def _reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each member is read out of the bundle (every read goes through
    ``Bundle._chunks``)."""
    reads: Counter[str] = Counter()
    chunks = Bundle._chunks

    def counted(self: Bundle, name: str, limit: int, at: int | None = None) -> Iterator[bytes]:
        reads[name] += 1
        return chunks(self, name, limit, at)

    monkeypatch.setattr(Bundle, "_chunks", counted)
    return reads


@pytest.mark.parametrize("form", ["folder", "zip"])
def test_each_member_is_read_out_of_the_bundle_once(
    exported: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    reads = _reads(monkeypatch)
    report = verify(exported if form == "folder" else exported.with_suffix(".zip"))
    listed = {e["path"] for e in _listed(exported)}
    assert report.files == len(listed) + 1
    assert set(reads) == listed | {"manifest.json"}
    assert {name for name, count in reads.items() if count > 1} == set(), reads.most_common(5)
    assert {JUDGMENTS, "runs/runs.jsonl", "protocol/tasks.json"} <= listed


def test_a_record_changed_with_its_json_broken_is_named_by_its_hash(bundle: Path) -> None:
    """The records are parsed as they are hashed: a line that no longer parses is not what is
    named, the file whose bytes are not the ones listed is."""
    data = (bundle / JUDGMENTS).read_bytes()
    (bundle / JUDGMENTS).write_bytes(data.replace(b"{", b"[", 1))
    with pytest.raises(BundleMismatch) as refused:
        verify(bundle)
    assert refused.value.path == JUDGMENTS
    assert "differs from manifest.json's" in refused.value.detail, refused.value.detail


def test_a_record_changed_within_its_schema_is_named_by_its_hash_not_a_check(
    bundle: Path,
) -> None:
    """An edit that parses (a justification changed, same size) is named as the changed file,
    not as the derived file it no longer gives."""
    data = (bundle / JUDGMENTS).read_bytes()
    edited = data.replace(b'"justification":"because"', b'"justification":"becausX"', 1)
    assert edited != data
    (bundle / JUDGMENTS).write_bytes(edited)
    with pytest.raises(BundleMismatch) as refused:
        verify(bundle)
    assert refused.value.path == JUDGMENTS
    assert "differs from manifest.json's" in refused.value.detail, refused.value.detail


def test_the_first_changed_member_in_the_listing_is_named(bundle: Path, cli: Cli) -> None:
    """Two members changed: the audit log (a record, parsed, listed first) and a raw output
    (only hashed, listed later): the audit log is named, as when every member was hashed
    before any was parsed, though the raw output's hash is now known first."""
    listed = [e["path"] for e in _listed(bundle)]
    output = next(p for p in listed if p.startswith("runs/outputs/"))
    assert listed.index(AUDIT) < listed.index(output)
    audit = (bundle / AUDIT).read_bytes()
    (bundle / AUDIT).write_bytes(b"x" + audit[1:])  # no longer JSON, same size
    out = (bundle / output).read_bytes()
    (bundle / output).write_bytes(bytes([out[0] ^ 1]) + out[1:])
    result = cli("verify", bundle)
    assert result.code == 1
    assert result.err.count("\n") == 1, result.err
    assert AUDIT in result.err and "differs from manifest.json's" in result.err, result.err
    # With the audit log as it was, the raw output is named.
    (bundle / AUDIT).write_bytes(audit)
    result = cli("verify", bundle)
    assert result.code == 1
    assert output in result.err and "differs from manifest.json's" in result.err, result.err


def test_a_record_whose_bytes_are_not_the_listed_ones_never_gives_its_last_line(
    bundle: Path,
) -> None:
    """Read through :class:`Records`, the one read of a record file: its lines come as its
    chunks are hashed, and a file whose bytes differ is refused before its last line comes."""
    entry = next(e for e in _listed(bundle) if e["path"] == JUDGMENTS)
    data = (bundle / JUDGMENTS).read_bytes()
    changed = data.replace(b"demo", b"dEmo")[:-1] + b" "  # its last line a record, not b""
    (bundle / JUDGMENTS).write_bytes(changed)
    lines: list[bytes] = []
    with open_bundle(bundle) as opened:
        records = Records(opened, {JUDGMENTS: (entry["sha256"], entry["bytes"])}, HeldBudget())
        with pytest.raises(BundleMismatch, match=CHANGED):
            lines.extend(records.lines(JUDGMENTS))
        assert JUDGMENTS not in records.hashed
        with pytest.raises(BundleMismatch, match=CHANGED):
            records[JUDGMENTS]
    whole = changed.split(b"\n")
    assert len(whole) > 2 and whole[-1].endswith(b"} ")
    assert lines == whole[:-1]  # every line but the last
    # Unchanged, it is read, hashed and known to be.
    (bundle / JUDGMENTS).write_bytes(data)
    with open_bundle(bundle) as opened:
        records = Records(opened, {JUDGMENTS: (entry["sha256"], entry["bytes"])}, HeldBudget())
        assert hashlib.sha256(records[JUDGMENTS]).hexdigest() == entry["sha256"]
        assert JUDGMENTS in records.hashed
