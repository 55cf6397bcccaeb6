"""Protocol-only bundles: a design frozen and published before results, with nothing that
identifies an output or a reviewer's plan, checked by ``verify``; the full bundle later carries
the same protocol and the plan secret that opens the design's commitment."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.errors import AbpError
from abp_tui.export import BundleMismatch, verify
from abp_tui.export import records as rec
from abp_tui.export.bundle import read_bundle, write_bundle
from abp_tui.export.protocol import PROTOCOL_FILES, PROTOCOL_SCHEMA
from abp_tui.models import StudyDesign
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import create_design, find_design
from abp_tui.services.publishing import export_bundle, export_protocol_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.stations import open_pack, write_study_pack
from abp_tui.store import connect
from abp_tui.store.packs import audit_log
from abp_tui.store.secrets import plan_secret
from tests.factories import DEMO, Cli, afp_study

SEED = 3
"""The seed of the design below: shown, since the plan follows from the plan secret."""


def _design(tmp_path: Path, db: sqlite_utils.Database) -> int:
    afp_study(tmp_path, db)
    design = StudyDesign(study="s", name="m", seed=SEED, contrasts=[("C", "A")], reviewers=["a"])
    return create_design(db, design).pk


def _rehash(files: dict[str, bytes]) -> dict[str, bytes]:
    """The files with manifest.json listing their current hashes (a forger's bundle)."""
    manifest = json.loads(files[rec.MANIFEST])
    manifest["files"] = [
        {"path": p, "sha256": hashlib.sha256(files[p]).hexdigest(), "bytes": len(files[p])}
        for p in sorted(files)
        if p != rec.MANIFEST
    ]
    return {**files, rec.MANIFEST: json.dumps(manifest).encode("utf-8")}


def test_a_blind_design_publishes_its_protocol_and_nothing_measured(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _design(tmp_path, db)
    result = export_protocol_bundle(db, pk, tmp_path / "proto", actor="lead")
    files = read_bundle(result.zip_path)
    assert set(files) == {*PROTOCOL_FILES, rec.MANIFEST}
    manifest = json.loads(files[rec.MANIFEST])
    assert (manifest["schema"], manifest["kind"]) == (PROTOCOL_SCHEMA, "protocol-only")
    assert manifest["design"]["sha256"] == find_design(db, "s").sha256
    everything = b"".join(files.values()).decode("utf-8")
    # No run, no output, no plan (blind codes): nothing ties an output to its condition.
    for identity in ("P01-A", "P01-C", "Answer for P01", '"P-', '"S-'):
        assert identity not in everything
    design = json.loads(files[rec.DESIGN])
    # The plan secret is committed to, never shown; the seed alone unlocks nothing.
    secret = plan_secret(db, pk)
    assert secret is not None and secret not in everything and "plan_secret" not in design
    commitment = hashlib.sha256(secret.encode("utf-8")).hexdigest()
    assert design["document"]["plan_secret_sha256"] == commitment
    assert manifest["design"]["plan_secret_sha256"] == commitment
    assert (design["seed"], manifest["design"]["seed"]) == (SEED, SEED)
    # The protocol itself is there: tasks with their text, conditions with their labels.
    assert [t["id"] for t in json.loads(files[rec.TASKS])] == ["P01", "P02"]
    assert {c["label"] for c in json.loads(files[rec.CONDITIONS])} == {
        "Model Only",
        "Governed Workflow",
    }
    report = verify(result.zip_path)
    assert (report.study, report.design, report.derived) == ("s", "m", 0)
    assert verify(tmp_path / "proto").status == report.status


def test_the_protocol_freezes_the_design_and_reexports_the_same_bytes(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _design(tmp_path, db)
    assert find_design(db, "s").frozen_at is None
    first = export_protocol_bundle(db, pk, tmp_path / "one")
    assert find_design(db, "s").frozen_at is not None
    second = export_protocol_bundle(db, pk, tmp_path / "two")
    assert first.zip_path.read_bytes() == second.zip_path.read_bytes()
    # Frozen: a changed design file is a new version, the published one stays as it was.
    changed = StudyDesign(study="s", name="m", seed=SEED + 1, contrasts=[("C", "A")])
    assert create_design(db, changed).status == "new version"
    # The new version has a plan of its own: another secret, another commitment.
    versions = [json.loads(d[0]) for d in db.execute("SELECT document FROM designs").fetchall()]
    assert len({v["plan_secret_sha256"] for v in versions}) == 2
    exports = [a for _at, _who, a, _d in audit_log(db) if a == "export protocol bundle"]
    assert len(exports) == 2


def test_the_full_bundle_carries_the_same_protocol_and_opens_the_commitment(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _design(tmp_path, db)
    protocol = read_bundle(export_protocol_bundle(db, pk, tmp_path / "proto").zip_path)
    unblind(db, "s", "lead")
    full = read_bundle(export_bundle(db, pk, tmp_path / "full").zip_path)
    for path in (rec.STUDY, rec.RUBRIC, rec.TASKS, rec.CONDITIONS):
        assert protocol[path] == full[path], path
    published, announced = json.loads(full[rec.DESIGN]), json.loads(protocol[rec.DESIGN])
    assert published["seed"] == SEED
    # The results bundle reveals the secret whose SHA-256 the protocol announced.
    secret = published["plan_secret"]
    assert secret == plan_secret(db, pk)
    expected = hashlib.sha256(secret.encode("utf-8")).hexdigest()
    assert announced["document"]["plan_secret_sha256"] == expected
    assert announced == {k: v for k, v in published.items() if k != "plan_secret"}
    verify(tmp_path / "full.zip")

    # A full bundle revealing another secret than the one committed to does not verify.
    forged_design = json.dumps({**published, "plan_secret": "0" * 64}).encode("utf-8")
    forged = _rehash({**full, rec.DESIGN: forged_design})
    write_bundle(tmp_path / "forged", forged)
    with pytest.raises(BundleMismatch, match=r"design\.json: plan_secret: its SHA-256"):
        verify(tmp_path / "forged")


def test_verify_refuses_a_protocol_bundle_that_holds_more_or_disagrees(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _design(tmp_path, db)
    files = read_bundle(export_protocol_bundle(db, pk, tmp_path / "proto").zip_path)

    smuggled = _rehash({**files, rec.RUNS: b'{"id": "P01-A"}\n'})
    write_bundle(tmp_path / "smuggled", smuggled)
    with pytest.raises(BundleMismatch, match=r"runs/runs\.jsonl: a protocol-only bundle holds"):
        verify(tmp_path / "smuggled")

    design = json.loads(files[rec.DESIGN])
    design["plan_secret"] = plan_secret(db, pk)
    shown = _rehash({**files, rec.DESIGN: json.dumps(design).encode("utf-8")})
    write_bundle(tmp_path / "shown", shown)
    with pytest.raises(BundleMismatch, match=r"design\.json: plan_secret: revealed before"):
        verify(tmp_path / "shown")

    manifest = json.loads(files[rec.MANIFEST])
    manifest["design"]["sha256"] = "0" * 64
    other = {**files, rec.MANIFEST: json.dumps(manifest).encode("utf-8")}
    write_bundle(tmp_path / "other", other)
    with pytest.raises(BundleMismatch, match=r"manifest\.json: design is .* the protocol records"):
        verify(tmp_path / "other")

    tasks = json.loads(files[rec.TASKS])
    tasks[0]["prompt"] = "Something else"
    changed = {**files, rec.TASKS: json.dumps(tasks).encode("utf-8")}
    write_bundle(tmp_path / "changed", changed)
    with pytest.raises(BundleMismatch, match=r"protocol/tasks\.json: SHA-256"):
        verify(tmp_path / "changed")


def test_a_station_has_no_protocol_to_publish(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = _design(tmp_path, db)
    write_study_pack(db, pk, "a", tmp_path / "a.pack.json")
    station = connect(tmp_path / "station.db")
    station_pk = open_pack(station, tmp_path / "a.pack.json")
    with pytest.raises(AbpError, match="reviewer station"):
        export_protocol_bundle(station, station_pk, tmp_path / "proto")
    assert not (tmp_path / "proto").exists()
    assert [a for _at, _who, a, _d in audit_log(station)] == ["pack opened"]


def test_cli_exports_a_protocol_bundle_before_unblinding(tmp_path: Path, cli: Cli) -> None:
    db = connect(cli.db_path)
    load_demo(db, DEMO)
    db.close()
    out = tmp_path / "afp-protocol"
    made = cli("export", "bundle", "--study", "afp-pilot-demo", "--protocol-only", "--out", out)
    assert made.code == 0, made.err
    assert "protocol only: frozen before results" in made.out and "frozen, sha256" in made.out
    ok = cli("verify", tmp_path / "afp-protocol.zip")
    assert ok.code == 0 and "protocol only" in ok.out
    # Still blind: the full bundle is refused, the protocol was not.
    assert cli("export", "bundle", "--study", "afp-pilot-demo", "--out", tmp_path / "x").code == 1
    wrong = cli("export", "verdicts", "--study", "afp-pilot-demo", "--protocol-only", "--out", out)
    assert wrong.code == 1 and "--protocol-only is for `export bundle`" in wrong.err


def test_a_preference_only_design_publishes_its_protocol(tmp_path: Path, cli: Cli) -> None:
    """``--rubric none`` names the built-in preference-only rubric: its protocol bundle exports
    and verifies (it was refused as naming another rubric than the one it carries)."""
    db = connect(cli.db_path)
    afp_study(tmp_path, db)
    db.close()
    made = cli("study", "create", "--study", "s", "--rubric", "none", "--reviewers", "a,b")
    assert made.code == 0, made.err
    out = tmp_path / "pref-protocol"
    exported = cli("export", "bundle", "--study", "s", "--protocol-only", "--out", out)
    assert exported.code == 0, exported.err
    checked = cli("verify", tmp_path / "pref-protocol.zip")
    assert checked.code == 0 and "protocol only" in checked.out, checked.err
