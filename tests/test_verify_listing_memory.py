"""What ``verify`` holds of each member of a bundle is a name and a few numbers (issue 31).

What was found: at 100,000 pairs (200,036 members) ``verify`` held, from the listing to the
end, every member four times: :mod:`zipfile`'s entry object of the zip's directory, the
bundle's dicts of sizes and compressed sizes, and the manifest's listing as a dict of path ->
(SHA-256 in hex, size); and its parse of the manifest held a dict of each file listed. Now a
member is its name and a few numbers in arrays (its size, its place in the zip, its SHA-256 as
32 bytes), and the manifest's entries are put in those arrays as they are parsed.
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


def _traced_when_reached(
    bundle: Path, monkeypatch: pytest.MonkeyPatch, step: str, *, peak: bool
) -> int:
    """Bytes traced (held then, or the peak so far with ``peak``) past what was held before,
    when ``verify`` of ``bundle`` reaches ``step`` of :mod:`abp_tui.export.bundle`, which is
    made to stop it there. A first run, untraced, imports and builds what any run builds once
    (the schema's validator)."""
    found: list[int] = []

    def measured(*args: object, **kwargs: object) -> None:
        found.append(tracemalloc.get_traced_memory()[1 if peak else 0])
        raise BundleMismatch(step, "measured")

    monkeypatch.setattr(bundle_module, step, measured)
    with pytest.raises(BundleMismatch, match="measured"):
        verify(bundle)
    found.clear()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        with pytest.raises(BundleMismatch, match="measured"):
            verify(bundle)
    finally:
        tracemalloc.stop()
    return found[0] - before


def test_verify_holds_a_member_in_a_few_hundred_bytes(
    many: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measured once every member is listed and hashed, as the records are about to be parsed:
    what the listing holds, over the members added (about 860 bytes a member, 180 now)."""
    held = _traced_when_reached(many, monkeypatch, "_verified", peak=False)
    per_member = held / MANY
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


def test_the_manifest_s_listing_is_read_without_a_dict_of_each_file(
    many: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The peak up to the listing's check, past the manifest's bytes and text, over the files
    it lists (about 1 kB a file: every entry's dict was held at once by the parse, and the
    zip's entry objects beside; now about 270 bytes, the bundle's members and the listing's
    arrays)."""
    with zipfile.ZipFile(many) as zf:
        text = zf.read("manifest.json")
    peak = _traced_when_reached(many, monkeypatch, "_check_listing", peak=True)
    per_file = (peak - 2 * len(text)) / MANY
    assert per_file < 450, f"{per_file:.0f} bytes a file"


def _with_manifest(many: Path, target: Path, edit: str) -> Path:
    """The bundle with its manifest's text edited by ``edit`` (old, new: the first match)."""
    old, new = edit.split("=>")
    with zipfile.ZipFile(many) as zf, zipfile.ZipFile(target, "w") as out:
        for info in zf.infolist():
            data = zf.read(info)
            if info.filename == "manifest.json":
                text = data.decode("utf-8")
                assert old in text
                data = text.replace(old, new, 1).encode("utf-8")
            out.writestr(info.filename, data)
    return target


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # An entry the schema refuses: the whole manifest is checked by the schema, naming it.
        (
            '"bytes": 9,=>"bytes": -9,',
            r"manifest\.json: not a valid .* manifest: \$\.files\[39\]\.bytes: expected a value",
        ),
        # An entry's shape elsewhere in the manifest is not taken for a file listed.
        (
            '"environment": {=>"environment": {"x": {"bytes": 1, "path": "a", "sha256": "'
            + "0" * 64
            + '"},',
            r"manifest\.json: not a valid .* manifest: \$\.environment\.x: expected string",
        ),
        # A lone surrogate in a path listed is refused as the parse refuses it anywhere.
        (
            '"path": "runs/outputs/added-000001.txt"=>"path": "runs/outputs/\\ud800.txt"',
            r"manifest\.json: not a readable JSON document",
        ),
    ],
)
def test_a_listing_the_arrays_cannot_take_is_refused_as_the_whole_manifest(
    many: Path, tmp_path: Path, edit: str, expected: str
) -> None:
    with pytest.raises(BundleMismatch, match=expected):
        verify(_with_manifest(many, tmp_path / "edited.zip", edit))
