"""Exports: verdicts, judgments CSV, abp-verdict/v1, publication bundles and their verification."""

from __future__ import annotations

import json
import os
import re
import stat
import zipfile
from pathlib import Path

import jsonschema
import pytest
import sqlite_utils

from abp_tui.analysis.agreement.input import agreement_input
from abp_tui.bench.export import bench_export
from abp_tui.bench.export_scale import bench_export_scale
from abp_tui.errors import WriteError
from abp_tui.export import BundleMismatch, UnsafeBundle, bundle_writing, verify
from abp_tui.export.bundle_analysis import agreement, analyse, parse, summarise
from abp_tui.export.verdict import schema, schema_errors
from abp_tui.models import PreferenceChoice
from abp_tui.services.adjudicating import final_verdicts
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import find_design
from abp_tui.services.publishing import (
    collect,
    export_abp_verdict,
    export_bundle,
    export_judgments,
    export_verdicts,
)
from abp_tui.services.results_report import StudyIsBlind, compute_results, unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store.judging import records_of_design
from abp_tui.text.canonical import sha256_bytes
from tests.factories import (
    AFP_DIMS,
    FIXTURES,
    HOSTILE,
    Cli,
    abp_judged,
    afp_judged,
    afp_judgment,
    business_judgment,
    flipped,
    judge_all,
    native_study,
)


# -- set-ups ---------------------------------------------------------------------------------------
def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _rehash(folder: Path, changed: str) -> None:
    """Update manifest.json for a changed file, as someone covering their tracks would."""
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    data = (folder / changed).read_bytes()
    for entry in manifest["files"]:
        if entry["path"] == changed:
            entry["sha256"] = sha256_bytes(data)
            entry["bytes"] = len(data)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True), "utf-8")


# -- unblinding ------------------------------------------------------------------------------------
def test_exports_refuse_a_blind_study(tmp_path: Path, db: sqlite_utils.Database) -> None:
    load_demo(db, FIXTURES / "demo")
    design = find_design(db, "abp-demo")
    with pytest.raises(StudyIsBlind, match="still blind"):
        export_bundle(db, design.pk, tmp_path / "out" / "bundle")
    with pytest.raises(StudyIsBlind):
        export_verdicts(db, design.pk, tmp_path / "v.jsonl")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    assert not (tmp_path / "v.jsonl").exists()


# -- what a bundle contains ------------------------------------------------------------------------
def test_bundle_contains_protocol_records_results_and_manifest(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = afp_judged(db)
    result = export_bundle(db, pk, tmp_path / "out" / "afp")
    files = _files(result.folder)
    assert result.zip_path == tmp_path / "out" / "afp.zip"
    umask = os.umask(0)
    os.umask(umask)
    # Not private like a temporary folder: the permissions any new file gets.
    assert stat.S_IMODE(result.folder.stat().st_mode) == 0o777 & ~umask
    assert stat.S_IMODE(result.zip_path.stat().st_mode) == 0o666 & ~umask
    with zipfile.ZipFile(result.zip_path) as zf:
        assert {n: zf.read(n) for n in zf.namelist()} == files
        assert zf.namelist()[0] == "manifest.json"
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.external_attr >> 16 for i in zf.infolist()} == {0o100644}

    tasks = json.loads(files["protocol/tasks.json"])
    assert [t["id"] for t in tasks] == [f"P0{i}" for i in range(1, 9)]
    assert all(t["prompt"] and t["evidence"] for t in tasks)
    conditions = {c["id"]: c for c in json.loads(files["protocol/conditions.json"])}
    assert "Evidence Gate" in conditions["D"]["instructions"]
    rubric = json.loads(files["protocol/rubric.json"])
    assert len(rubric["fatal_criteria"]) == 6
    runs = [json.loads(x) for x in files["runs/runs.jsonl"].splitlines()]
    assert len(runs) == 56
    for run in runs:
        if run["output"]:
            data = files[run["output"]["path"]]
            assert sha256_bytes(data) == run["output"]["sha256"]
    # Every judgment revision and adjudication, keyed by run id (never a database key).
    judgments = [json.loads(x) for x in files["judging/judgments.jsonl"].splitlines()]
    assert len(judgments) == 6
    run_ids = {r["id"] for r in runs}
    assert all(set(j["placement"].values()) <= run_ids for j in judgments)
    assert all(set(j["judgment"]["responses"]) <= run_ids for j in judgments)
    (adj,) = [json.loads(x) for x in files["judging/adjudications.jsonl"].splitlines()]
    assert adj["note"] == "The fatal hit is not supported by the output."
    (finding,) = [json.loads(x) for x in files["judging/findings.jsonl"].splitlines()]
    assert finding["finding"]["occurrences"] == 2
    assert len(finding["runs"]) == 2
    audit = [json.loads(x) for x in files["audit/audit_log.jsonl"].splitlines()]
    assert [a["action"] for a in audit] == ["unblind"]

    # Verdicts: component scores with every reviewer's rationale, and the source of each.
    verdicts = [json.loads(x) for x in files["results/verdicts.jsonl"].splitlines()]
    assert len(verdicts) == 56
    sources = {v["source"] for v in verdicts}
    assert sources == {"unanimous", "adjudicated", "unresolved", "record", "unjudged"}
    adjudicated = [v for v in verdicts if v["source"] == "adjudicated"]
    assert any(v["adjudication"]["note"].startswith("The fatal hit") for v in adjudicated)
    assert any(r["rationales"] for v in verdicts for r in v["reviews"])

    # Excluded runs keep their states and reasons.
    summary = json.loads(files["results/summary.json"])
    excluded = {e["run"]: e for e in summary["excluded_runs"]}
    assert excluded["afp-demo-run-20260112-P06-C-r3"]["state"] == "INFRA_ERROR"
    assert "INFRA_ERROR: timeout" in excluded["afp-demo-run-20260112-P06-C-r3"]["reasons"][0]
    assert set(summary["conditions"][0]["states"]) == {
        "MODEL_PASS",
        "MODEL_FAIL",
        "PROVIDER_BLOCK",
        "INFRA_ERROR",
        "INVALID_TEST",
        "GRADER_DISPUTE",
    }
    # Agreement with its denominators.
    agreement = json.loads(files["results/agreement.json"])
    tc = next(v for v in agreement["variables"] if v["variable"] == "dimension:task_correctness")
    assert tc["n_reviewers"] == 2 and tc["n_items"] == 6
    assert "n_judgments" in tc["krippendorff_alpha"]
    header = files["results/agreement.csv"].decode().splitlines()[0]
    assert "n_items" in header and "n_judgments" in header
    limitations = json.loads(files["results/limitations.json"])
    assert any("not independent" in x["text"] for x in limitations)
    assert any("text-layer" in x["text"] for x in limitations)
    assert files["plots/pass_rate_by_condition.svg"].startswith(b"<svg")

    manifest = json.loads(files["manifest.json"])
    listed = {e["path"]: e["sha256"] for e in manifest["files"]}
    assert set(listed) == set(files) - {"manifest.json"}
    assert all(sha256_bytes(files[p]) == sha for p, sha in listed.items())
    assert manifest["tool"]["name"] == "abp-tui" and manifest["tool"]["version"]
    assert manifest["design"]["sha256"] == find_design(db, "afp-pilot-demo").sha256
    assert manifest["seed"] == 20261129
    assert manifest["schemas"]["abp_verdict"] == "abp-verdict/v1"
    assert manifest["reproduce"] == "abp-tui verify ."
    # The export is audited, but not part of what it exported.
    last = db.execute("SELECT action, detail FROM audit_log ORDER BY pk DESC").fetchone()
    assert last[0] == "export bundle"
    assert json.loads(last[1])["manifest_sha256"] == result.manifest_sha256


def test_results_pending_lists_what_is_missing(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = afp_judged(db)
    result = export_bundle(db, pk, tmp_path / "afp")
    assert result.status == "protocol published / results pending"
    missing = "\n".join(result.missing)
    # 26 items: the pairs of P06/C r3 (INFRA_ERROR) and P07/A r2 (PROVIDER_BLOCK) wait for reruns.
    assert "23 of 26 items lack a submitted judgment" in missing
    assert "P06 under C: 2 of 3 usable runs (1 INFRA_ERROR/PROVIDER_BLOCK to rerun)" in missing
    assert "P07 under A: 2 of 3 usable runs" in missing
    assert "1 disagreement not adjudicated" in missing
    assert "the study declares no limitations" in missing
    status = json.loads((result.folder / "status.json").read_text("utf-8"))
    assert status["status"] == result.status and status["missing"] == result.missing
    html = (result.folder / "report.html").read_text("utf-8")
    assert "Protocol published / results pending" in html
    assert "P06 under C: 2 of 3 usable runs" in html
    verdict = json.loads((result.folder / "results/abp-verdict.json").read_text("utf-8"))
    assert verdict["status"] == result.status


def test_results_are_published_when_the_gate_is_met(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = native_study(tmp_path, db)
    pending = export_bundle(db, pk, tmp_path / "first")
    assert pending.status == "protocol published / results pending"
    assert any("2 of 2 items lack a submitted judgment" in m for m in pending.missing)
    judge_all(db, pk)
    result = export_bundle(db, pk, tmp_path / "second")
    assert result.status == "results published", result.missing
    assert result.missing == []
    html = (result.folder / "report.html").read_text("utf-8")
    assert "Results published" in html and "results pending" not in html
    summary = json.loads((result.folder / "results/summary.json").read_text("utf-8"))
    rates = {
        g["condition"]: (g["pass_rate"]["x"], g["pass_rate"]["n"]) for g in summary["conditions"]
    }
    assert rates == {"A": (2, 2), "C": (2, 2)}


def test_derived_results_equal_the_core_results(tmp_path: Path, db: sqlite_utils.Database) -> None:
    for pk in (afp_judged(db), None):
        if pk is None:
            unblind(db, "abp-demo", "coordinator")
            design = find_design(db, "abp-demo")
            session = ReviewSession(db, design.pk, "demo")
            code = next(r.code for r in session.queue() if r.kind == "pair")
            session.save(code, business_judgment(0, 2, PreferenceChoice.RESPONSE_2), 1, submit=True)
            pk = design.pk
        collected = collect(db, pk)
        analysis = analyse(parse(collected.files))
        summary = summarise(analysis)
        core = compute_results(db, pk)
        assert summary.conditions == core.conditions
        assert list(summary.by_task) == core.by_task  # the bundle's rows are made when read
        assert summary.comparisons == core.comparisons
        assert summary.position_bias == core.position_bias
        ours = {
            o.run_id: (o.state, o.source, o.human_state, o.automated_state, o.fatal, o.scores)
            for o in analysis.outcomes
        }
        theirs = {
            o.run_id: (o.state, o.source, o.human_state, o.automated_state, o.fatal, o.scores)
            for o in core.outcomes
        }
        assert ours == theirs
        human = {v.run: v.source for v in final_verdicts(db, pk)}
        assert {k: v.source for k, v in analysis.human.items()} == human


def test_bundle_and_database_measure_agreement_alike(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = afp_judged(db)
    collected = collect(db, pk)
    analysis = analyse(parse(collected.files))
    # The same records reach the same rules from the database and from the bundle.
    assert agreement_input(analysis.records) == agreement_input(records_of_design(db, pk))
    seed = analysis.inputs.design.seed
    bundle = {v.variable: v for v in agreement(analysis).variables}
    core = {v.variable: v for v in study_agreement(db, "afp-pilot-demo", pk, seed=seed).variables}
    assert set(core) == set(bundle)
    assert {f"dimension:{d}" for d in AFP_DIMS} <= set(core)
    for name, theirs in core.items():
        # Same records, same names, same seed: the very same figures, intervals included.
        assert bundle[name] == theirs

    # A revision after seeing the others' judgments changes the verdict, not the agreement.
    code = sorted(r.code for r in ReviewSession(db, pk, "demo").queue())[2]
    assert code in {d.code for d in analysis.disagreements}
    first, second = ReviewSession(db, pk, "demo"), ReviewSession(db, pk, "second-reviewer")
    # The first reviewer preferred the run shown to them as Response 1; a tie against it would
    # still disagree (tie_conflicts_with_preference), so the revision takes the same run.
    same_run = (
        PreferenceChoice.RESPONSE_2
        if flipped(first, code) != flipped(second, code)
        else PreferenceChoice.RESPONSE_1
    )
    revised = afp_judgment(2, 2, same_run)
    second.save(code, revised, 5, submit=True, reason="Agrees after reading the first review.")
    later = analyse(parse(collect(db, pk).files))
    assert [d.code for d in later.disagreements] == [
        d.code for d in analysis.disagreements if d.code != code
    ]
    assert agreement(later) == agreement(analysis)


# -- byte-identical, verify --------------------------------------------------------------------
def test_double_export_is_byte_identical(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = abp_judged(db)
    first = export_bundle(db, pk, tmp_path / "one" / "bundle")
    second = export_bundle(db, pk, tmp_path / "two" / "other-name")
    assert _files(first.folder) == _files(second.folder)
    assert first.zip_path.read_bytes() == second.zip_path.read_bytes()
    assert first.manifest_sha256 == second.manifest_sha256
    # Exporting again into the same place replaces the bundle with the same bytes.
    again = export_bundle(db, pk, tmp_path / "one" / "bundle")
    assert again.zip_path.read_bytes() == first.zip_path.read_bytes()
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == ["bundle", "bundle.zip"]
    # A new judgment changes the bundle.
    session = ReviewSession(db, pk, "demo")
    code = next(r.code for r in session.queue() if r.status == "todo" and r.kind == "pair")
    session.save(code, business_judgment(1, 2, PreferenceChoice.RESPONSE_2), 3, submit=True)
    third = export_bundle(db, pk, tmp_path / "three" / "bundle")
    assert third.zip_path.read_bytes() != first.zip_path.read_bytes()


def test_verify_accepts_the_folder_and_the_zip(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = abp_judged(db)
    result = export_bundle(db, pk, tmp_path / "bundle")
    for path in (result.folder, result.zip_path):
        report = verify(path)
        assert report.files == result.files
        assert report.derived >= 15
        assert report.status == result.status


def test_verify_names_a_changed_output(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = abp_judged(db)
    result = export_bundle(db, pk, tmp_path / "bundle")
    output = sorted((result.folder / "runs/outputs").iterdir())[3]
    output.write_text(output.read_text("utf-8") + " (edited)", "utf-8")
    name = f"runs/outputs/{output.name}"
    with pytest.raises(BundleMismatch, match=re.escape(name)) as caught:
        verify(result.folder)
    assert caught.value.path == name and "SHA-256" in caught.value.detail
    # Also when the manifest is updated to match: the run record still names the old hash.
    _rehash(result.folder, name)
    with pytest.raises(
        BundleMismatch, match=re.escape("does not match the SHA-256 in runs/runs.jsonl")
    ):
        verify(result.folder)


def test_verify_names_a_changed_summary_number(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = abp_judged(db)
    result = export_bundle(db, pk, tmp_path / "bundle")
    table = result.folder / "results/conditions.csv"
    lines = table.read_text("utf-8").splitlines()
    cells = lines[1].split(",")
    cells[2] = str(int(cells[2]) + 1)  # runs
    lines[1] = ",".join(cells)
    table.write_text("\n".join(lines) + "\n", "utf-8")
    with pytest.raises(BundleMismatch) as caught:
        verify(result.folder)
    assert caught.value.path == "results/conditions.csv"
    assert "SHA-256" in caught.value.detail
    _rehash(result.folder, "results/conditions.csv")
    with pytest.raises(BundleMismatch) as caught:
        verify(result.folder)
    assert caught.value.path == "results/conditions.csv"
    assert "line 2" in caught.value.detail and "the records give" in caught.value.detail


def test_verify_rederives_from_the_judgments(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = abp_judged(db)
    result = export_bundle(db, pk, tmp_path / "bundle")
    path = result.folder / "judging/judgments.jsonl"
    text = path.read_text("utf-8")
    assert '"source_fidelity":0' in text
    path.write_text(text.replace('"source_fidelity":0', '"source_fidelity":2', 1), "utf-8")
    _rehash(result.folder, "judging/judgments.jsonl")
    with pytest.raises(BundleMismatch) as caught:
        verify(result.folder)
    assert caught.value.path.startswith(("plots/", "report.html", "results/", "status.json"))
    assert "the records give" in caught.value.detail


def test_verify_names_a_judgment_of_an_unknown_run(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = abp_judged(db)
    result = export_bundle(db, pk, tmp_path / "bundle")
    path = result.folder / "judging/judgments.jsonl"
    first = json.loads(path.read_text("utf-8").splitlines()[0])
    run = first["placement"]["1"]
    path.write_text(path.read_text("utf-8").replace(run, "no-such-run"), "utf-8")
    _rehash(result.folder, "judging/judgments.jsonl")
    with pytest.raises(BundleMismatch, match="'no-such-run' is not a run of item") as caught:
        verify(result.folder)
    assert caught.value.path == "judging/judgments.jsonl"


def test_verify_names_a_removed_file(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = abp_judged(db)
    result = export_bundle(db, pk, tmp_path / "bundle")
    trace = sorted((result.folder / "runs/traces").iterdir())[0]
    trace.unlink()
    with pytest.raises(
        BundleMismatch, match=re.escape("listed in manifest.json but missing")
    ) as caught:
        verify(result.folder)
    assert caught.value.path == f"runs/traces/{trace.name}"
    (result.folder / "extra.txt").write_text("x", "utf-8")
    (result.folder / "manifest.json").unlink()
    with pytest.raises(BundleMismatch, match=re.escape("manifest.json: missing")):
        verify(result.folder)


def _zip(path: Path, members: list[tuple[str, bytes, int]]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            zf.writestr(info, data)
    return path


@pytest.mark.parametrize(
    ("name", "mode", "why"),
    [
        ("../evil.txt", 0o100644, "'..'"),
        ("runs/../../evil.txt", 0o100644, "'..'"),
        ("/etc/evil.txt", 0o100644, "absolute"),
        ("C:/evil.txt", 0o100644, "absolute"),
        ("runs\\..\\evil.txt", 0o100644, "backslash"),
        ("runs/link", stat.S_IFLNK | 0o777, "symbolic link"),
    ],
)
def test_unsafe_zip_members_are_refused(
    tmp_path: Path, cli: Cli, name: str, mode: int, why: str
) -> None:
    bad = _zip(tmp_path / "bad.zip", [("manifest.json", b"{}", 0o100644), (name, b"x", mode)])
    with pytest.raises(UnsafeBundle, match=re.escape(why)):
        verify(bad)
    result = cli("verify", bad)
    assert result.code == 1
    assert why in result.err


def test_duplicate_zip_members_are_refused(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="Duplicate name"):
        bad = _zip(
            tmp_path / "dup.zip",
            [("manifest.json", b"{}", 0o100644), ("manifest.json", b"{}", 0o100644)],
        )
    with pytest.raises(UnsafeBundle, match="more than once"):
        verify(bad)
    bad = _zip(
        tmp_path / "case.zip", [("Report.html", b"a", 0o100644), ("report.html", b"b", 0o100644)]
    )
    with pytest.raises(UnsafeBundle, match="more than once"):
        verify(bad)


def test_a_symlink_in_a_bundle_folder_is_refused(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = abp_judged(db)
    result = export_bundle(db, pk, tmp_path / "bundle")
    (result.folder / "link").symlink_to(tmp_path / "test.db")
    with pytest.raises(UnsafeBundle, match="symbolic link"):
        verify(result.folder)


# -- atomicity -------------------------------------------------------------------------------------
def test_a_failure_mid_export_leaves_nothing(
    tmp_path: Path, db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    pk = abp_judged(db)
    out = tmp_path / "exports"
    good = export_bundle(db, pk, out / "kept")
    kept = _files(good.folder), good.zip_path.read_bytes()
    audit_rows = db.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0]

    real = bundle_writing.zip_folder

    def broken(files: bundle_writing.FolderFiles, target: Path) -> None:
        target.write_bytes(b"PK half a zip")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bundle_writing, "zip_folder", broken)
    with pytest.raises(WriteError, match="No space left"):
        export_bundle(db, pk, out / "new")
    with pytest.raises(WriteError, match="No space left"):
        export_bundle(db, pk, out / "kept")
    # No partial folder or zip, no temporary leftovers, the earlier bundle untouched.
    assert sorted(p.name for p in out.iterdir()) == ["kept", "kept.zip"]
    assert (_files(good.folder), good.zip_path.read_bytes()) == kept
    assert db.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0] == audit_rows

    written = bundle_writing.FolderFiles.put

    def broken_folder(files: bundle_writing.FolderFiles, path: str, data: bytes) -> str:
        if len(files) == 20:  # the folder half written (raw outputs and tables alike)
            raise RuntimeError("disk unplugged")
        return written(files, path, data)

    monkeypatch.setattr(bundle_writing, "zip_folder", real)
    monkeypatch.setattr(bundle_writing.FolderFiles, "put", broken_folder)
    with pytest.raises(RuntimeError):
        export_bundle(db, pk, out / "other")
    assert sorted(p.name for p in out.iterdir()) == ["kept", "kept.zip"]


def test_an_existing_folder_that_is_not_a_bundle_is_not_replaced(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = abp_judged(db)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me", "utf-8")
    with pytest.raises(Exception, match="not a bundle"):
        export_bundle(db, pk, tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text("utf-8") == "keep me"


# -- escaping --------------------------------------------------------------------------------------
def test_report_escapes_hostile_text(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = native_study(
        tmp_path,
        db,
        prompt=HOSTILE,
        label=HOSTILE,
        output=f"</pre>{HOSTILE}\x1b[31m\u202e",
        condition_id="<b>C</b>",
        limitations=(HOSTILE,),
    )
    judge_all(db, pk, justification=HOSTILE)
    result = export_bundle(db, pk, tmp_path / "bundle")
    html = (result.folder / "report.html").read_text("utf-8")
    assert "<script" not in html and "<img" not in html and "<b>C</b>" not in html
    assert "&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;" in html
    assert "&lt;b&gt;C&lt;/b&gt;" in html
    assert "\x1b" not in html and "\u202e" not in html
    for svg in ("plots/pass_rate_by_condition.svg", "plots/pass_rate_by_task.svg"):
        text = (result.folder / svg).read_text("utf-8")
        assert "<b>" not in text and "&lt;b&gt;C&lt;/b&gt;" in text
    # Self-contained: nothing is fetched from anywhere.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    assert "@import" not in html and "url(" not in html
    verify(result.zip_path)


# -- single exports --------------------------------------------------------------------------------
def test_abp_verdict_is_valid_against_the_shipped_schema(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    load_demo(db, FIXTURES / "demo")
    unblind(db, "abp-demo", "coordinator")
    design = find_design(db, "abp-demo")
    out = tmp_path / "verdict.json"
    document = export_abp_verdict(db, design.pk, out)
    assert json.loads(out.read_text("utf-8")) == document
    assert schema_errors(document) == []
    engines = {e["engine"]: e for e in document["perEngine"]}
    alpha = engines["demo-engine-alpha"]
    assert (alpha["scoredTrials"], alpha["excludedEngineErrors"]) == (12, 0)
    assert alpha["resolveRate"]["point"] == pytest.approx(11 / 12, abs=1e-6)
    assert alpha["resolveRate"]["wilson95"] == pytest.approx([0.6461, 0.9851], abs=1e-4)
    assert alpha["medianDiffBytesNormalized"] is not None
    # The median of the traces' run.end computedUsd; the demo's own verdict.json rounds it.
    assert alpha["medianComputedUsd"] == pytest.approx(0.0546, abs=0.5e-4 + 1e-12)
    (pair,) = document["pairwise"]
    assert pair["mcnemar"] == {"discordant": [4, 1], "pExact": 0.375}
    assert pair["diffDelta"]["seed"] == 20260718
    low, high = pair["diffDelta"]["bootstrap95"]
    assert low <= pair["diffDelta"]["relMedian"] <= high
    # The validator can fail.
    broken = json.loads(json.dumps(document))
    broken["perEngine"][0]["scoredTrials"] = -1
    del broken["pairwise"][0]["mcnemar"]["pExact"]
    broken["extra"] = 1
    errors = schema_errors(broken)
    assert any("scoredTrials" in e for e in errors)
    assert any("'pExact' is missing" in e for e in errors)
    assert any("unexpected field 'extra'" in e for e in errors)
    assert schema_errors(document) == []
    jsonschema.validate(document, schema())  # the package's own verdict agrees


def test_verdicts_jsonl_and_judgments_csv(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = abp_judged(db)
    # 24 runs; the two pairs 'demo' preferred one response of, each a single review.
    assert export_verdicts(db, pk, tmp_path / "verdicts.jsonl") == (24, 2)
    verdicts = [json.loads(x) for x in (tmp_path / "verdicts.jsonl").read_text().splitlines()]
    preferred = {p["item"]: p for v in verdicts for p in v.get("preferences", [])}
    assert [p["source"] for p in preferred.values()] == ["single review"] * 2
    assert sum(1 for v in verdicts if "preferences" in v) == 4  # both runs of each pair
    assert {v["source"] for v in verdicts} == {"single review", "automated"}
    judged = [v for v in verdicts if v["source"] == "single review"]
    assert all(v["automated_state"] is not None and v["human_state"] for v in judged)
    assert all(v["scores"] for v in judged)

    rows = export_judgments(db, pk, tmp_path / "judgments.csv")
    lines = (tmp_path / "judgments.csv").read_text("utf-8").splitlines()
    assert len(lines) == rows + 1
    header = lines[0].split(",")
    for column in (
        "reviewer",
        "item",
        "revision",
        "status",
        "created_at",
        "reason",
        "seconds_spent",
        "position",
        "run",
        "score:source_fidelity",
        "fatal_hits",
        "state",
        "preference",
        "justification",
    ):
        assert column in header
    # 2 submitted revisions of the pair (submission, revision) and 1 of the other: 2 rows
    # each; the single item: 1 row. The pair's draft is not published: a reviewer's work in
    # progress is not a judgment.
    assert rows == 2 * 3 + 1
    assert any("Second look" in line for line in lines)
    assert not any(",draft," in line for line in lines)
    # Byte-identical to the bundle's copies.
    result = export_bundle(db, pk, tmp_path / "bundle")
    assert (result.folder / "results/verdicts.jsonl").read_bytes() == (
        tmp_path / "verdicts.jsonl"
    ).read_bytes()
    assert (result.folder / "results/judgments.csv").read_bytes() == (
        tmp_path / "judgments.csv"
    ).read_bytes()
    published = (result.folder / "judging/judgments.jsonl").read_text("utf-8").splitlines()
    assert {json.loads(line)["status"] for line in published} == {"submitted"}
    stored = db.execute("SELECT COUNT(*) FROM judgments WHERE status = 'draft'").fetchone()[0]
    assert stored >= 1  # the draft is kept in the database, where its reviewer works on it


def test_judgments_csv_has_adjudications(tmp_path: Path, db: sqlite_utils.Database) -> None:
    pk = afp_judged(db)
    export_judgments(db, pk, tmp_path / "j.csv")
    text = (tmp_path / "j.csv").read_text("utf-8")
    adjudication_rows = [x for x in text.splitlines() if x.startswith("adjudication,")]
    assert len(adjudication_rows) == 2
    assert all(",carol," in x and "not supported by the output" in x for x in adjudication_rows)


# -- the command line ------------------------------------------------------------------------------
def test_cli_unblind_results_export_verify(tmp_path: Path, cli: Cli) -> None:
    assert cli("demo").code == 0
    refused = cli("unblind", "--study", "abp-demo")
    assert refused.code == 1 and "--yes" in refused.err
    blind = cli("results", "--study", "abp-demo")
    assert blind.code == 1 and "still blind" in blind.err
    none = cli("unblind", "--yes")
    assert none.code == 1 and "--study" in none.err
    done = cli("unblind", "--study", "abp-demo", "--yes", "--by", "coordinator", "--json")
    assert done.code == 0 and json.loads(done.out)["unblinded_by"] == "coordinator"
    audit = (
        sqlite_utils.Database(cli.db_path)
        .execute("SELECT actor, action FROM audit_log WHERE detail LIKE '%abp-demo%'")
        .fetchall()
    )
    assert audit == [("coordinator", "unblind")]

    text = cli("results", "--study", "abp-demo")
    assert text.code == 0, text.err
    assert "By condition" in text.out and "11/12 = 0.917 [0.646, 0.985]" in text.out
    doc = json.loads(cli("results", "--study", "abp-demo", "--json").out)
    assert {g["condition"] for g in doc["conditions"]} == {"demo-engine-alpha", "demo-engine-beta"}
    ambiguous = cli("results")
    assert ambiguous.code == 1 and "--study" in ambiguous.err

    out = tmp_path / "exports" / "abp"
    made = cli("export", "bundle", "--study", "abp-demo", "--out", out, "--json")
    assert made.code == 0, made.err
    assert json.loads(made.out)["status"] == "protocol published / results pending"
    for what, name in (("verdicts", "v.jsonl"), ("judgments", "j.csv"), ("abp-verdict", "a.json")):
        r = cli("export", what, "--study", "abp-demo", "--out", tmp_path / name)
        assert r.code == 0, r.err
        assert (tmp_path / name).exists()
    ok = cli("verify", out.parent / "abp.zip")
    assert ok.code == 0 and ok.out.startswith("OK:")
    (out / "results/summary.json").write_text("{}", "utf-8")
    bad = cli("verify", out)
    assert bad.code == 1
    assert "results/summary.json" in bad.err and "SHA-256" in bad.err


def test_an_export_names_the_design_it_exported(tmp_path: Path, cli: Cli) -> None:
    """A study with a second design exports its latest unless --design says otherwise: what
    was written says which design it holds (it named only the folder and the status). The
    latest is the one created last: "again", made after "source-brief", comes first by name
    (the export took "source-brief", the last by name)."""
    assert cli("demo").code == 0
    assert cli("unblind", "--study", "business-memo-demo", "--yes").code == 0
    second = cli("study", "create", "--study", "business-memo-demo", "--name", "again")
    assert second.code == 0, second.err
    latest = cli("export", "bundle", "--study", "business-memo-demo", "--out", tmp_path / "b")
    assert latest.code == 0, latest.err
    assert "of study business-memo-demo, design again v1:" in " ".join(latest.out.split())
    for what, name in (("verdicts", "v.jsonl"), ("judgments", "j.csv"), ("abp-verdict", "a.json")):
        done = cli(
            "export", what, "--study", "business-memo-demo", "--design", "source-brief",
            "--out", tmp_path / name,
        )  # fmt: skip
        assert done.code == 0, done.err
        said = " ".join(done.out.split())
        assert "study business-memo-demo, design source-brief v1" in said, (what, said)
    made = cli(
        "export", "verdicts", "--study", "business-memo-demo", "--out", tmp_path / "w.jsonl",
        "--json",
    )  # fmt: skip
    assert made.code == 0, made.err
    found = json.loads(made.out)
    assert (found["study"], found["design"], found["design_version"]) == (
        "business-memo-demo",
        "again",
        1,
    )
    # A design name mistyped is refused, naming the study's designs.
    typo = cli(
        "export", "bundle", "--study", "business-memo-demo", "--design", "agian",
        "--out", tmp_path / "typo",
    )  # fmt: skip
    assert typo.code == 1
    said = " ".join(typo.err.split())
    assert "no design 'agian' for study 'business-memo-demo' (its designs: again," in said
    assert "source-brief)" in said
    assert "study create --study business-memo-demo" in said


def test_bench_export_reports_figures_and_baseline() -> None:
    doc = bench_export(runs=40, repeat=1, seed=3)
    assert doc["benchmark"] == "export"
    assert doc["input"]["runs"] == 40
    assert doc["baseline"]["files"] == 40
    assert doc["ours"]["files"] > 40
    assert set(doc["ours"]["stages_median_seconds"]) == {"collect", "derive", "write"}
    assert doc["ratio"] == pytest.approx(
        doc["ours"]["median_seconds"] / doc["baseline"]["median_seconds"], rel=0.01
    )
    assert isinstance(doc["goal_met"], bool) and doc["goal_ratio"] == 3.0


def test_bench_export_sizes_reports_export_and_verify_beside_zip_and_hash() -> None:
    """``bench export --sizes``: each size's export and verify, each measured in a process of
    its own, beside zipping and hashing the same folder, with peak memory and its slope."""
    doc = bench_export_scale([3], repeat=1)
    assert [s["pairs"] for s in doc["sizes"]] == [3]
    for size in doc["sizes"]:
        assert size["items"] == size["pairs"]
        assert size["files"] > 2 * size["pairs"]  # two raw outputs a pair, and the rest
        for step in ("export", "zip", "verify", "hash"):
            assert size[step]["median_seconds"] > 0 and size[step]["peak_mib"] > 0, step
        # The seconds are printed rounded (to 0.01 s): the ratio lies within what they allow.
        e, z = size["export"]["median_seconds"], size["zip"]["median_seconds"]
        assert (
            (e - 0.005) / (z + 0.005)
            <= size["export_over_zip"]
            <= (e + 0.005) / max(z - 0.005, 1e-9)
        )
        assert isinstance(size["goal_met"]["verify"], bool)
    # One size: no slope to give (never a made-up one).
    assert doc["peak_bytes_per_pair"] == dict.fromkeys(("export", "verify", "zip", "hash"))
