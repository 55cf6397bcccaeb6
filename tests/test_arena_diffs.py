"""Arena diffs as receipts: read beside results.json, stored, published and verified (issue 13).

Seed 003 principle 5: "A conforming result ships its manifest, transcripts, diffs, and a one-line
reproduce command"; section 8 names the ``diffs`` receipt. The results file below is generated
here: two engines on two tasks, one trial each; one diff file is there (UTF-8), one is there but
is not UTF-8 (a receipt is kept byte for byte), one is named and missing, one trial names none.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.export import BundleMismatch, verify
from abp_tui.export.derive import ABP_VERDICT
from abp_tui.export.verdict import schema_errors
from abp_tui.store.queries import load_run
from tests.factories import Cli
from tests.import_helpers import nothing_stored

RUN_ID = "run-diffs"
PRESENT = "t1__oxagen__t1"
LATIN1 = "t2__oxagen__t1"
MISSING = "t1__claude-code__t1"
NONE = "t2__claude-code__t1"
PRESENT_DIFF = (
    "--- a/fizz.py\n+++ b/fizz.py\n@@ -1 +1 @@\n-print('fizz')\n+print('fizz \u2014 buzz')\n"
)
LATIN1_DIFF = b"--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-caf\xe9\n+caf\xe9s\n"


def _trial(task: str, adapter: str, outcome: str, diff: str | None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": f"{task}__{adapter}__t1",
        "taskId": task,
        "trial": 1,
        "agent": {"adapter": adapter, "model": "m"},
        "outcome": outcome,
        "activity": {"diffBytes": 120},
    }
    if diff is not None:
        doc["diffPath"] = diff
    return doc


def _results(diffs: dict[str, str | None] | None = None) -> dict[str, Any]:
    paths: dict[str, str | None] = {
        PRESENT: f"diffs/{PRESENT}.diff",
        LATIN1: f"diffs/{LATIN1}.diff",
        MISSING: f"diffs/{MISSING}.diff",
        NONE: None,
        **(diffs or {}),
    }
    trials = [
        _trial(run.split("__")[0], run.split("__")[1], outcome, paths[run])
        for run, outcome in (
            (PRESENT, "passed"),
            (LATIN1, "failed"),
            (MISSING, "passed"),
            (NONE, "passed"),
        )
    ]
    return {
        "manifest": {
            "runId": RUN_ID,
            "agents": [
                {"adapter": "oxagen", "model": "m"},
                {"adapter": "claude-code", "model": "m"},
            ],
            "taskIds": ["t1", "t2"],
            "matchedModels": True,
        },
        "results": trials,
    }


def _write_run(folder: Path, doc: dict[str, Any] | None = None) -> Path:
    (folder / "diffs").mkdir(parents=True, exist_ok=True)
    (folder / "diffs" / f"{PRESENT}.diff").write_bytes(PRESENT_DIFF.encode("utf-8"))
    (folder / "diffs" / f"{LATIN1}.diff").write_bytes(LATIN1_DIFF)
    path = folder / "results.json"
    path.write_text(json.dumps(doc or _results()), encoding="utf-8")
    return path


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_diffs_are_imported_published_verified_and_named_as_receipts(
    tmp_path: Path, cli: Cli
) -> None:
    results = _write_run(tmp_path / "arena")
    made = cli("import", results)
    assert made.code == 0, made.err
    db = sqlite_utils.Database(cli.db_path)
    present = load_run(db, RUN_ID, PRESENT)
    latin1 = load_run(db, RUN_ID, LATIN1)
    missing = load_run(db, RUN_ID, MISSING)
    none = load_run(db, RUN_ID, NONE)
    assert present and latin1 and missing and none
    raw = PRESENT_DIFF.encode("utf-8")
    # The path is kept as given; the stored diff is named by the SHA-256 of the file's bytes.
    assert present.metadata["diffPath"] == f"diffs/{PRESENT}.diff"
    assert present.metadata["diffFile"] == {"sha256": _sha(raw), "bytes": len(raw)}
    assert latin1.metadata["diffFile"] == {"sha256": _sha(LATIN1_DIFF), "bytes": len(LATIN1_DIFF)}
    assert missing.metadata["diffFile"] == {"missing": True}
    assert "diffFile" not in none.metadata and "diffPath" not in none.metadata
    stored = dict(db.execute("SELECT sha256, text FROM blobs").fetchall())
    assert stored[_sha(raw)] == PRESENT_DIFF
    assert stored[_sha(LATIN1_DIFF)] == LATIN1_DIFF  # not UTF-8: kept as bytes
    db.close()

    assert cli("unblind", "--study", RUN_ID, "--yes").code == 0
    exported = cli("export", "bundle", "--out", tmp_path / "bundle", "--json")
    assert exported.code == 0, exported.err
    zip_path = Path(json.loads(exported.out)["zip"])
    folder = tmp_path / "bundle"
    diff_files = sorted(p.relative_to(folder).as_posix() for p in (folder / "runs/diffs").iterdir())
    assert len(diff_files) == 2  # the missing one and the one never named have no file
    lines = {
        r["id"]: r for r in map(json.loads, (folder / "runs/runs.jsonl").read_text().splitlines())
    }
    assert lines[MISSING].get("diff") is None and lines[NONE].get("diff") is None
    for run, data in ((PRESENT, raw), (LATIN1, LATIN1_DIFF)):
        ref = lines[run]["diff"]
        assert ref["path"] in diff_files and ref["path"].endswith(".diff")
        assert (folder / ref["path"]).read_bytes() == data
        assert (ref["sha256"], ref["bytes"]) == (_sha(data), len(data))
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    listed = {f["path"]: f["sha256"] for f in manifest["files"]}
    assert {p: listed[p] for p in diff_files} == {
        lines[r]["diff"]["path"]: _sha(d) for r, d in ((PRESENT, raw), (LATIN1, LATIN1_DIFF))
    }

    verdict = json.loads((folder / ABP_VERDICT).read_text("utf-8"))
    assert schema_errors(verdict) == []
    assert verdict["receipts"]["diffs"] == "runs/diffs/"
    assert cli("verify", zip_path).code == 0
    assert verify(folder).files == len(manifest["files"]) + 1
    again = cli("export", "bundle", "--out", tmp_path / "again")
    assert again.code == 0, again.err
    assert (tmp_path / "again.zip").read_bytes() == zip_path.read_bytes()

    # A diff changed in the bundle is caught by its hash in the manifest...
    target = folder / lines[PRESENT]["diff"]["path"]
    target.write_bytes(raw.replace(b"buzz", b"fuzz"))
    with pytest.raises(BundleMismatch, match=r"runs/diffs/.*differs from manifest\.json"):
        verify(folder)
    # ... and, with the manifest rehashed as a forger would, by the hash runs.jsonl records.
    entry = next(f for f in manifest["files"] if f["path"] == lines[PRESENT]["diff"]["path"])
    entry["sha256"] = _sha(target.read_bytes())
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    with pytest.raises(BundleMismatch, match=f"diff of run '{PRESENT}' does not match"):
        verify(folder)


def test_a_changed_diff_is_a_new_version_of_its_run(tmp_path: Path, cli: Cli) -> None:
    results = _write_run(tmp_path / "arena")
    assert cli("import", results).code == 0
    (tmp_path / "arena/diffs" / f"{PRESENT}.diff").write_text("--- a/y\n+++ b/y\n", "utf-8")
    # The same trials laid out anew: a results file already imported byte for byte is skipped
    # whole (its diffs unread), so the file itself must differ for its diffs to be read again.
    results.write_text(json.dumps(_results(), indent=2), encoding="utf-8")
    again = cli("import", results, "--json")
    assert again.code == 0, again.err
    totals = json.loads(again.out)["totals"]
    assert totals["runs new version"] == 1 and totals["runs unchanged"] == 3


def test_a_bundle_without_diffs_names_no_diffs_receipt(tmp_path: Path, cli: Cli) -> None:
    doc = _results({PRESENT: None, LATIN1: None})
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli("import", path).code == 0
    assert cli("unblind", "--study", RUN_ID, "--yes").code == 0
    assert cli("export", "bundle", "--out", tmp_path / "bundle").code == 0
    verdict = json.loads((tmp_path / "bundle" / ABP_VERDICT).read_text("utf-8"))
    assert "diffs" not in verdict["receipts"] and schema_errors(verdict) == []
    assert not (tmp_path / "bundle/runs/diffs").exists()
    # The schema allows the seed's key only as the folder a bundle keeps diffs in.
    verdict["receipts"]["diffs"] = "diffs/"
    assert schema_errors(verdict) != []


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("../outside.diff", "leaves the folder"),
        ("diffs/../../outside.diff", "leaves the folder"),
        ("/etc/hostname", "is absolute"),
        ("C:\\diffs\\x.diff", "is absolute"),
        ("diffs/link.diff", "leads out of the folder through a link"),
    ],
)
def test_a_diff_path_out_of_the_results_folder_refuses_the_file(
    tmp_path: Path, cli: Cli, given: str, why: str
) -> None:
    (tmp_path / "outside.diff").write_text("secret\n", "utf-8")
    folder = tmp_path / "arena"
    results = _write_run(folder, _results({MISSING: given}))
    (folder / "diffs" / "link.diff").symlink_to(tmp_path / "outside.diff")
    refused = cli("import", results)
    assert refused.code == 1
    assert "Traceback" not in refused.err
    # The file, the trial's place and id, the path and what was expected, on one line.
    assert "results.json: $.results[2].diffPath: trial 't1__claude-code__t1'" in refused.err
    assert why in refused.err and "expected a relative path inside" in refused.err
    nothing_stored(cli)


def test_a_link_inside_the_folder_is_followed(tmp_path: Path, cli: Cli) -> None:
    folder = tmp_path / "arena"
    results = _write_run(folder, _results({MISSING: "diffs/alias.diff"}))
    (folder / "diffs" / "alias.diff").symlink_to(folder / "diffs" / f"{PRESENT}.diff")
    assert cli("import", results).code == 0
    run = load_run(sqlite_utils.Database(cli.db_path), RUN_ID, MISSING)
    assert run is not None and run.metadata["diffFile"]["bytes"] == len(PRESENT_DIFF.encode())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_diff_that_is_not_a_regular_file_is_refused_without_waiting(
    tmp_path: Path, cli: Cli
) -> None:
    folder = tmp_path / "arena"
    results = _write_run(folder, _results({MISSING: "diffs/pipe.diff"}))
    os.mkfifo(folder / "diffs" / "pipe.diff")  # opened blocking, this would hang the import
    refused = cli("import", results)
    assert refused.code == 1
    assert "$.results[2].diffPath" in refused.err and "is not a regular file" in refused.err
    nothing_stored(cli)
