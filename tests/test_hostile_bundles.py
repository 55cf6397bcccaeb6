"""``verify`` on bundles made to hurt it (issue 15): each attack runs first, then its refusal.

What was found: a 3.2 MB zip took 4.2 GiB of memory (every member was read whole before the
manifest was looked at), a bundle folder had no size cap, a named pipe in a folder made
``verify`` wait forever, and a malformed manifest (nested too deeply, NaN, a huge integer) ended
in an internal error. Now members are listed and checked before anything is read, sizes are
compared with the manifest before any hashing, members are hashed in chunks, and anything that
is not a regular file is refused; a bad manifest is one line naming the field, exit status 1.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from abp_tui.export import BundleMismatch, UnsafeBundle, bundle_reading, verify
from abp_tui.text.canonical import sha256_bytes
from tests.factories import Cli, exported_abp_bundle

PADDING = "runs/outputs/zz-padding.txt"
MIB = 1 << 20


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real bundle folder (the judged ABP demo), made once; tests copy it."""
    return exported_abp_bundle(tmp_path_factory.mktemp("exported"))


@pytest.fixture
def bundle(exported: Path, tmp_path: Path) -> Path:
    """This test's own copy of the bundle folder."""
    return Path(shutil.copytree(exported, tmp_path / "bundle"))


def _manifest(folder: Path) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((folder / "manifest.json").read_text("utf-8"))
    return loaded


def _write_manifest(folder: Path, manifest: dict[str, object]) -> None:
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1), "utf-8")


def _digest(size: int, chunk: bytes) -> str:
    import hashlib

    sha = hashlib.sha256()
    for _ in range(size // len(chunk)):
        sha.update(chunk)
    return sha.hexdigest()


def _bomb(
    folder: Path,
    target: Path,
    size: int,
    *,
    listed: bool,
    member: str = PADDING,
    chunk: bytes = bytes(MIB),
) -> Path:
    """The bundle as a zip with ``member`` (a new one, or one replaced) holding ``size`` bytes
    of ``chunk`` repeated, which deflate to about a thousandth of that; with ``listed`` the
    manifest lists it with its true hash and size."""
    size -= size % len(chunk)
    manifest = _manifest(folder)
    files = manifest["files"]
    assert isinstance(files, list)
    files[:] = [e for e in files if e["path"] != member]
    if listed:
        files.append({"path": member, "sha256": _digest(size, chunk), "bytes": size})
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        for path in sorted(folder.rglob("*")):
            name = path.relative_to(folder).as_posix()
            if path.is_file() and name not in ("manifest.json", member):
                zf.write(path, name)
        with zf.open(member, "w", force_zip64=True) as out:
            for _ in range(size // len(chunk)):
                out.write(chunk)
    return target


def _peak_mib(run: Callable[[], object]) -> float:
    """The most memory Python held while ``run`` ran (tracemalloc), in MiB."""
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1] / MIB
    finally:
        tracemalloc.stop()


def _verify_quietly(path: Path) -> Callable[[], object]:
    def run() -> object:
        try:
            return verify(path)
        except (BundleMismatch, UnsafeBundle) as exc:
            return exc

    return run


# -- zip bombs -------------------------------------------------------------------------------------
def test_a_zip_bomb_listed_in_the_manifest_is_hashed_in_bounded_memory(
    bundle: Path, tmp_path: Path
) -> None:
    size = 128 * MIB
    bomb = _bomb(bundle, tmp_path / "bomb.zip", size, listed=True)
    assert bomb.stat().st_size < size // 100  # a small file that inflates 100 times or more
    outcome: list[object] = []
    peak = _peak_mib(lambda: outcome.append(_verify_quietly(bomb)()))
    # Reading the member whole would hold 128 MiB at once; streaming holds a chunk or two.
    assert peak < 32, f"verify held {peak:.0f} MiB for a {size // MIB} MiB member"
    # Hashed whole, it matches its listing; then no run names it: no export writes it.
    assert isinstance(outcome[0], BundleMismatch), outcome
    assert outcome[0].path == PADDING and "no export writes it" in outcome[0].detail


def test_a_zip_bomb_the_manifest_does_not_list_is_refused_unread(
    bundle: Path, tmp_path: Path
) -> None:
    bomb = _bomb(bundle, tmp_path / "bomb.zip", 128 * MIB, listed=False)
    outcome: list[object] = []
    peak = _peak_mib(lambda: outcome.append(_verify_quietly(bomb)()))
    assert isinstance(outcome[0], BundleMismatch)
    assert outcome[0].path == PADDING and "not listed in manifest.json" in outcome[0].detail
    assert peak < 32


def test_a_zip_bomb_in_place_of_a_record_is_refused_unread(bundle: Path, tmp_path: Path) -> None:
    # Records are parsed, so held in memory: a bomb there is refused from the zip's directory.
    member = "judging/judgments.jsonl"
    bomb = _bomb(
        bundle, tmp_path / "bomb.zip", 128 * MIB, listed=True, member=member, chunk=b"{}\n" * 4096
    )
    outcome: list[object] = []
    peak = _peak_mib(lambda: outcome.append(_verify_quietly(bomb)()))
    assert isinstance(outcome[0], BundleMismatch), outcome
    assert outcome[0].path == member and "a zip bomb, not records" in outcome[0].detail
    assert peak < 32


def test_a_size_the_manifest_does_not_give_is_refused_before_hashing(bundle: Path) -> None:
    manifest = _manifest(bundle)
    files = manifest["files"]
    assert isinstance(files, list)
    entry = next(e for e in files if e["path"].startswith("runs/outputs/"))
    entry["bytes"] -= 1
    _write_manifest(bundle, manifest)
    with pytest.raises(BundleMismatch) as caught:
        verify(bundle)
    assert caught.value.path == entry["path"]
    assert caught.value.detail.startswith("SHA-256 not computed: the file has")


# -- folders ---------------------------------------------------------------------------------------
def test_a_named_pipe_in_a_bundle_folder_is_refused_not_waited_on(
    bundle: Path, tmp_path: Path
) -> None:
    os.mkfifo(bundle / "runs" / "outputs" / "pipe.txt")
    os.mkfifo(tmp_path / "pipe.zip")
    for target, what in (
        (bundle, "runs/outputs/pipe.txt is a named pipe"),
        (
            tmp_path / "pipe.zip",
            "pipe.zip is a named pipe",
        ),
    ):
        # A process of its own: if verify waited on the pipe, the timeout ends it, not the suite.
        done = subprocess.run(
            [sys.executable, "-m", "abp_tui", "verify", str(target)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1, done.stderr
        assert what in done.stderr and done.stderr.count("\n") == 1


def test_a_link_to_a_regular_file_is_refused(bundle: Path, tmp_path: Path) -> None:
    output = sorted((bundle / "runs" / "outputs").iterdir())[0]
    (tmp_path / "elsewhere.txt").write_bytes(output.read_bytes())
    output.unlink()
    output.symlink_to(tmp_path / "elsewhere.txt")
    with pytest.raises(UnsafeBundle, match="is a symbolic link"):
        verify(bundle)


def test_a_folder_past_the_size_cap_is_refused_before_reading(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    total = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
    monkeypatch.setattr(bundle_reading, "MAX_BUNDLE_BYTES", total - 1)
    read: list[str] = []
    real_open = os.open

    def counting_open(path: str | os.PathLike[str], flags: int, mode: int = 0o777) -> int:
        read.append(str(path))
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", counting_open)
    with pytest.raises(UnsafeBundle, match="more than a bundle holds"):
        verify(bundle)
    assert read == []  # refused from the listing alone
    monkeypatch.setattr(bundle_reading, "MAX_BUNDLE_BYTES", total)
    assert verify(bundle).files > 0


# -- malformed manifests ---------------------------------------------------------------------------
def _edit(change: Callable[[dict[str, object]], object]) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        manifest = _manifest(folder)
        change(manifest)
        _write_manifest(folder, manifest)

    return apply


def _text(change: Callable[[str], str]) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        path = folder / "manifest.json"
        path.write_text(change(path.read_text("utf-8")), "utf-8")

    return apply


def _first_file(key: str, value: object) -> Callable[[dict[str, object]], object]:
    def change(manifest: dict[str, object]) -> None:
        files = manifest["files"]
        assert isinstance(files, list)
        files[0][key] = value

    return change


def _duplicate(manifest: dict[str, object]) -> None:
    files = manifest["files"]
    assert isinstance(files, list)
    files.append(dict(files[0]))


DEEP = "[" * 100_000 + "]" * 100_000
MANIFESTS: list[tuple[str, Callable[[Path], None], str]] = [
    ("nested", _text(lambda t: t[:-2] + f', "x": {DEEP}}}\n'), "nested more than 200 levels"),
    ("nested whole", _text(lambda _t: DEEP), "nested more than 200 levels"),
    ("NaN", _text(lambda t: t.replace('"confidence": 0.95', '"confidence": NaN')), "NaN is not"),
    (
        "Infinity",
        _text(lambda t: t.replace('"confidence": 0.95', '"confidence": Infinity')),
        "Infinity is not",
    ),
    ("huge bytes", _edit(_first_file("bytes", 10**400)), "$.files[0].bytes: integer"),
    (
        "thousands of digits",
        _text(lambda t: t.replace('"seed": ', '"seed": ' + "9" * 5000 + ', "s": ', 1)),
        "thousands of digits",
    ),
    ("surrogate", _edit(_first_file("path", "\udcff")), "$.files[0].path: text holding a lone"),
    ("float bytes", _edit(_first_file("bytes", 1.5)), "$.files[0].bytes: expected integer"),
    ("files not a list", _edit(lambda m: m.__setitem__("files", "all")), "$.files: expected"),
    ("no files", _edit(lambda m: m.pop("files")), "required field 'files' is missing"),
    ("not an object", _text(lambda _t: "[]"), "$: expected object"),
    ("empty", _text(lambda _t: ""), "not a readable JSON document"),
    ("confidence", _edit(lambda m: m.__setitem__("confidence", 1.5)), "$.confidence"),
    ("listed twice", _edit(_duplicate), "listed more than once in manifest.json"),
    ("another study", _edit(lambda m: m.__setitem__("study", "other")), 'study is "other"'),
    ("another seed", _edit(lambda m: m.__setitem__("seed", 5)), "seed is 5"),
]


@pytest.mark.parametrize(("case", "damage", "expected"), MANIFESTS, ids=[m[0] for m in MANIFESTS])
def test_a_malformed_manifest_is_one_line_naming_the_field(
    bundle: Path, cli: Cli, case: str, damage: Callable[[Path], None], expected: str
) -> None:
    damage(bundle)
    result = cli("verify", bundle)
    assert result.code == 1, (case, result.err)
    assert result.err.count("\n") == 1, result.err
    assert result.err.startswith("abp-tui: verify failed: "), result.err
    assert expected in result.err, result.err
    assert "internal error" not in result.err


def test_invalid_utf8_in_the_manifest_names_the_byte(bundle: Path, cli: Cli) -> None:
    (bundle / "manifest.json").write_bytes(b'{"schema": "\xff"}')
    result = cli("verify", bundle)
    assert result.code == 1
    assert "manifest.json: invalid UTF-8 at byte 12" in result.err


# -- records made to crash the re-derivation -------------------------------------------------------
def _replace_record(folder: Path, path: str, data: bytes) -> None:
    """Replace one record and list its new hash and size, as a forger would."""
    (folder / path).write_bytes(data)
    manifest = _manifest(folder)
    files = manifest["files"]
    assert isinstance(files, list)
    for entry in files:
        if entry["path"] == path:
            entry["sha256"], entry["bytes"] = sha256_bytes(data), len(data)
    _write_manifest(folder, manifest)


@pytest.mark.parametrize(
    ("path", "data", "expected"),
    [
        ("protocol/tasks.json", DEEP.encode(), "protocol/tasks.json: not a readable JSON"),
        ("judging/judgments.jsonl", DEEP.encode() + b"\n", "judging/judgments.jsonl: line 1"),
        ("protocol/study.json", b'{"id": NaN}', "protocol/study.json: not a readable JSON"),
    ],
)
def test_a_record_made_to_crash_the_rederivation_is_named(
    bundle: Path, cli: Cli, path: str, data: bytes, expected: str
) -> None:
    _replace_record(bundle, path, data)
    result = cli("verify", bundle)
    assert result.code == 1, result.err
    assert result.err.count("\n") == 1 and expected in result.err, result.err
