"""What ``verify`` holds of each member of a bundle is a name and a few numbers (issue 31).

What was found: at 100,000 pairs (200,036 members) ``verify`` held, from the listing to the
end, every member four times: :mod:`zipfile`'s entry object of the zip's directory, the
bundle's dicts of sizes and compressed sizes, and the manifest's listing as a dict of path ->
(SHA-256 in hex, size), about 1.3 kB a member, 250 MB in all. Now a member is its name and a
few numbers in arrays (its size, its place in the zip, its SHA-256 as 32 bytes).
"""

from __future__ import annotations

import hashlib
import json
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from abp_tui.export import BundleMismatch, bundle_reading, verify
from abp_tui.export import bundle as bundle_module
from abp_tui.export.bundle_reading import Bundle, Listing, open_bundle
from abp_tui.export.errors import UnsafeBundle
from abp_tui.services.publishing import export_bundle
from abp_tui.store import connect
from tests.factories import abp_judged

MANY = 20_000
"""Raw outputs added to the bundle: enough that what each costs dwarfs the rest."""


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The judged ABP study's bundle as a zip, with :data:`MANY` more raw outputs listed in its
    manifest (at their true hashes and sizes, in its order), as a large study's bundle has."""
    root = tmp_path_factory.mktemp("many")
    db = connect(root / "b.db")
    try:
        export_bundle(db, abp_judged(db), root / "bundle")
    finally:
        db.close()
    folder = root / "bundle"
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    added = {f"runs/outputs/added-{i:06d}.txt": f"output {i}\n".encode() for i in range(MANY)}
    manifest["files"] = sorted(
        [
            *manifest["files"],
            *(
                {"bytes": len(data), "path": path, "sha256": hashlib.sha256(data).hexdigest()}
                for path, data in added.items()
            ),
        ],
        key=lambda entry: entry["path"],
    )
    target = root / "many.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("manifest.json", json.dumps(manifest, sort_keys=True, indent=1))
        files = {
            path.relative_to(folder).as_posix(): path.read_bytes()
            for path in folder.rglob("*")
            if path.is_file() and path.name != "manifest.json"
        }
        for name, data in sorted({**files, **added}.items()):
            zf.writestr(name, data)
    return target


def test_verify_holds_a_member_in_a_few_hundred_bytes(
    many: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measured once every member is listed and hashed, as the records are about to be parsed:
    what the listing holds, over the members added (it was about 1.3 kB a member)."""
    held: list[int] = []

    def measured(*args: object, **kwargs: object) -> None:
        held.append(tracemalloc.get_traced_memory()[0])
        raise BundleMismatch("records", "measured")

    monkeypatch.setattr(bundle_module, "_verified", measured)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        with pytest.raises(BundleMismatch, match="measured"):
            verify(many)
    finally:
        tracemalloc.stop()
    per_member = (held[0] - before) / MANY
    assert per_member < 400, f"{per_member:.0f} bytes a member"


def test_the_added_outputs_are_hashed_and_a_changed_one_is_named(
    many: Path, tmp_path: Path
) -> None:
    """The bundle above is refused only because no run names the outputs added (so each was
    listed, found and hashed); one of them changed is named as a hash mismatch first."""
    with pytest.raises(BundleMismatch, match=r"added-000000\.txt: listed in manifest\.json, but"):
        verify(many)
    changed = tmp_path / "changed.zip"
    with zipfile.ZipFile(many) as zf, zipfile.ZipFile(changed, "w") as out:
        for info in zf.infolist():
            data = zf.read(info)
            if info.filename == "runs/outputs/added-012345.txt":
                data = data.replace(b"output", b"OUTPUT")
            out.writestr(info.filename, data)
    with pytest.raises(BundleMismatch, match=r"added-012345\.txt: SHA-256 .* differs"):
        verify(changed)


def test_a_bundle_finds_its_members_by_name_and_the_listing_by_path(many: Path) -> None:
    with open_bundle(many) as bundle:
        assert isinstance(bundle, Bundle)
        assert bundle.names[0] == "manifest.json"
        assert bundle.size("runs/outputs/added-000007.txt") == len(b"output 7\n")
        assert bundle.size("runs/outputs/added-7.txt") is None
        assert bundle.read("runs/outputs/added-019999.txt", 100) == b"output 19999\n"
        listing = Listing(bundle)
        member = bundle.find("runs/outputs/added-000042.txt")
        assert member is not None
        sha = hashlib.sha256(b"output 42\n").digest()
        listing.add(member, sha)
        assert list(listing) == ["runs/outputs/added-000042.txt"]
        assert listing["runs/outputs/added-000042.txt"] == (sha.hex(), 10)
        assert "runs/outputs/added-000043.txt" not in listing
        assert listing.get("runs/outputs/added-000043.txt") is None


def test_a_name_cut_at_a_nul_character_is_refused(tmp_path: Path) -> None:
    """:mod:`zipfile` cuts a member's name at a NUL character: the name the zip gives is
    checked, not the one cut."""
    path = tmp_path / "nul.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", b"{}")
        zf.writestr("report.html\x01.exe", b"x")
    # zipfile writes no NUL in a name: put one in the zip's bytes, as a forger would.
    path.write_bytes(path.read_bytes().replace(b"report.html\x01", b"report.html\x00"))
    with zipfile.ZipFile(path) as zf:
        assert "report.html" in zf.namelist()
    with pytest.raises(UnsafeBundle, match="an empty name or a NUL character"):
        verify(path)
    assert bundle_reading.MAX_MEMBERS > MANY
