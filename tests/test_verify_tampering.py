"""``verify`` re-derives or hash-binds every fact a bundle claims (issue 27, item 7).

What was found: a forger who edited a bundle and listed the new hashes in ``manifest.json``
passed ``verify`` as long as the derived files were derived again (the export's own function
does it): a protocol-only bundle with other contrasts or another rubric; a full bundle with an
edited ``protocol/design.json``, another ``min_total``, a limitation removed, other masked terms,
a design backdated before its runs, a run said to have used another model, or a file the export
never writes. Now ``verify`` recomputes the design hash from the bundle's document and rubric
(and the plan's HMAC, which bundles now publish), and checks what the design adds to the study
and conditions, each engine run's model, the design's times and that every listed file is one
an export writes (:mod:`abp_tui.export.claims`). Each attack below is the strongest a forger
has without the design hash itself: edit the records, derive every derived file again, and list
every new hash in the manifest.

What was left after that: task prompts, condition labels and run records outside the design
hash (a protocol-only bundle with another prompt verified), and the design's times bound only by
the runs' start times (``created_at`` moved to any time after them verified). Now a design's hash
commits to the content hash of every task, condition and run it planned and to its
``created_at`` (:mod:`abp_tui.analysis.commitment`), ``verify`` recomputes them from the bundle,
and ``frozen_at`` may not follow the first judgment. A design stored before that commitment is
reported as an older format, never as changed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from abp_tui.analysis.blinding import design_hash, plan_hmac
from abp_tui.errors import AbpError
from abp_tui.export import BundleMismatch, verify
from abp_tui.export import records as rec
from abp_tui.export.bundle import bundle_files, read_bundle, write_bundle
from abp_tui.export.bundle_analysis import analyse, parse
from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle, export_protocol_bundle
from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from abp_tui.store import judging as sql
from abp_tui.store import secrets as secret_sql
from abp_tui.text.canonical import canonical_json
from tests.factories import (
    FIXTURES,
    Cli,
    abp_judged,
    afp_study,
    afp_study_lines,
    write_jsonl,
)

Files = dict[str, bytes]
LIMITATION = "Reviewers saw outputs cut at 4,000 characters."


@pytest.fixture(scope="module")
def afp(tmp_path_factory: pytest.TempPathFactory) -> tuple[Files, Files, str]:
    """A design with a description, a limitation and a masked term: its protocol-only bundle
    (made blind), its full bundle (after unblinding) and its stored hash."""
    root = tmp_path_factory.mktemp("afp")
    db = connect(root / "a.db")
    try:
        afp_study(root, db)
        design = StudyDesign(
            study="s",
            name="m",
            seed=3,
            contrasts=[("C", "A")],
            reviewers=["a"],
            description="A pilot of the AFP protocol.",
            limitations=[LIMITATION],
            mask_terms=["Acme"],
        )
        pk = create_design(db, design).pk
        protocol = read_bundle(export_protocol_bundle(db, pk, root / "proto").zip_path)
        unblind(db, "s", "lead")
        full = read_bundle(export_bundle(db, pk, root / "full").zip_path)
        return protocol, full, sql.design(db, pk).sha256
    finally:
        db.close()


@pytest.fixture(scope="module")
def abp(tmp_path_factory: pytest.TempPathFactory) -> Files:
    """The judged ABP demo's full bundle (engines on one model, runs with start times)."""
    root = tmp_path_factory.mktemp("abp")
    db = connect(root / "b.db")
    try:
        return read_bundle(export_bundle(db, abp_judged(db), root / "bundle").zip_path)
    finally:
        db.close()


# -- a forger's tools ------------------------------------------------------------------------------
def _rehash(files: Files) -> Files:
    """The files with manifest.json listing their current hashes."""
    manifest = json.loads(files[rec.MANIFEST])
    manifest["files"] = [
        {"path": p, "sha256": hashlib.sha256(files[p]).hexdigest(), "bytes": len(files[p])}
        for p in sorted(files)
        if p != rec.MANIFEST
    ]
    return {**files, rec.MANIFEST: json.dumps(manifest).encode("utf-8")}


def _rederive(files: Files) -> Files:
    """Every derived file and the manifest made again from the (edited) source files, with the
    export's own function."""
    manifest = json.loads(files[rec.MANIFEST])
    derived = set(manifest["derived"])
    sources = {p: b for p, b in files.items() if p not in derived and p != rec.MANIFEST}
    return bundle_files(sources, analyse(parse(sources)), manifest["confidence"])


def _json(files: Files, path: str, change: Callable[[Any], object]) -> Files:
    data = json.loads(files[path])
    change(data)
    return {**files, path: (json.dumps(data, sort_keys=True, indent=1) + "\n").encode("utf-8")}


def _design(change: Callable[[dict[str, Any]], object]) -> Callable[[Files], Files]:
    return lambda files: _json(files, rec.DESIGN, change)


def _document(change: Callable[[dict[str, Any]], object]) -> Callable[[Files], Files]:
    return _design(lambda d: change(d["document"]))


def _drop_limitation(files: Files) -> Files:
    files = _document(lambda d: d["limitations"].remove(LIMITATION))(files)
    return _json(files, rec.STUDY, lambda s: s["limitations"].remove(LIMITATION))


def _rename_model(files: Files) -> Files:
    lines = files[rec.RUNS].decode("utf-8").splitlines()
    first = json.loads(lines[0])
    first["record"]["model"] = "demo-model-3"
    lines[0] = json.dumps(first, sort_keys=True)
    return {**files, rec.RUNS: ("\n".join(lines) + "\n").encode("utf-8")}


def _min_total(files: Files) -> Files:
    def change(rubric: dict[str, Any]) -> None:
        assert rubric["acceptance"]["min_total"] == 8
        rubric["acceptance"]["min_total"] = 1

    return _json(files, rec.RUBRIC, change)


def _backdate(files: Files) -> Files:
    def change(design: dict[str, Any]) -> None:
        design["created_at"] = "2026-01-01T00:00:00.000000Z"
        design["frozen_at"] = "2026-01-01T00:05:00.000000Z"

    return _design(change)(files)


def _checked(tmp_path: Path, files: Files) -> BundleMismatch:
    write_bundle(tmp_path / "forged", files)
    with pytest.raises(BundleMismatch) as refused:
        verify(tmp_path / "forged.zip")
    return refused.value


HASH = r"^protocol/design\.json: sha256: the design hash recomputed from its document, "


# -- protocol-only bundles -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        pytest.param(_document(lambda d: d.update(contrasts=[["A", "C"]])), HASH, id="contrasts"),
        pytest.param(
            lambda f: _json(f, rec.RUBRIC, lambda r: r.update(name="Another rubric")),
            HASH + r"protocol/rubric\.json",
            id="rubric",
        ),
        pytest.param(
            lambda f: _json(f, rec.STUDY, lambda s: s.update(limitations=[])),
            r"^protocol/study\.json: limitations: the design's limitation 1",
            id="limitations",
        ),
        pytest.param(
            lambda f: _json(f, rec.STUDY, lambda s: s.update(description="Something else")),
            r"^protocol/study\.json: description: it does not end with the design's",
            id="description",
        ),
    ],
)
def test_an_edited_protocol_bundle_is_refused_naming_the_change(
    afp: tuple[Files, Files, str],
    tmp_path: Path,
    tamper: Callable[[Files], Files],
    expected: str,
) -> None:
    protocol, _full, _sha = afp
    refused = _checked(tmp_path, _rehash(tamper(protocol)))
    assert refused.path in (rec.DESIGN, rec.STUDY)
    assert re.search(expected, str(refused)), str(refused)


# -- full bundles ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        pytest.param(
            _document(lambda d: d.update(contrasts=[["A", "C"]])), HASH, id="design-document"
        ),
        pytest.param(_drop_limitation, HASH, id="limitation-removed-everywhere"),
        pytest.param(
            lambda f: _json(f, rec.STUDY, lambda s: s["limitations"].remove(LIMITATION)),
            r"^protocol/study\.json: limitations: the design's limitation 1",
            id="limitation-removed-from-the-study",
        ),
        pytest.param(
            _document(lambda d: d["masked_terms"].remove("Acme")), HASH, id="masked-terms"
        ),
        pytest.param(
            _document(lambda d: d["disagreement"].update(dimension_differs_by=3)),
            HASH,
            id="disagreement-rule",
        ),
    ],
)
def test_an_edited_full_bundle_is_refused_naming_the_change(
    afp: tuple[Files, Files, str],
    tmp_path: Path,
    tamper: Callable[[Files], Files],
    expected: str,
) -> None:
    _protocol, full, _sha = afp
    refused = _checked(tmp_path, _rederive(tamper(full)))
    assert re.search(expected, str(refused)), str(refused)


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        pytest.param(_min_total, HASH + r"protocol/rubric\.json", id="min-total"),
        pytest.param(
            _backdate,
            r"^protocol/design\.json: created_at 2026-01-01T00:00:00\.000000Z is before run .* "
            r"it plans started",
            id="backdated",
        ),
        pytest.param(
            _design(lambda d: d.update(frozen_at="2000-01-01T00:00:00.000000Z")),
            r"^protocol/design\.json: frozen_at 2000-01-01.* is before created_at",
            id="frozen-before-stored",
        ),
        pytest.param(
            _rename_model,
            r"^runs/runs\.jsonl: line 1: run .* ran on model \"demo-model-3\", but "
            r"protocol/conditions\.json and the results state that condition .* ran on "
            r"\"synthetic-demo/demo-model-2\"",
            id="renamed-model",
        ),
        pytest.param(
            lambda f: {**f, "notes.txt": b"An extra file.\n"},
            r"^notes\.txt: listed in manifest\.json, but no export writes it",
            id="extra-file",
        ),
    ],
)
def test_an_edited_engine_bundle_is_refused_naming_the_change(
    abp: Files, tmp_path: Path, tamper: Callable[[Files], Files], expected: str
) -> None:
    refused = _checked(tmp_path, _rederive(tamper(abp)))
    assert re.search(expected, str(refused)), str(refused)


def test_an_extra_file_listed_beside_the_derived_ones_is_refused(
    abp: Files, tmp_path: Path
) -> None:
    refused = _checked(tmp_path, _rehash({**abp, "results/extra.csv": b"a,b\n1,2\n"}))
    assert refused.path == "results/extra.csv"
    assert "no export writes it" in refused.detail


# -- what verify says of untouched bundles ---------------------------------------------------------
def test_untouched_bundles_verify_with_the_recomputed_design_hash(
    afp: tuple[Files, Files, str], abp: Files, tmp_path: Path, cli: Cli
) -> None:
    protocol, full, sha = afp
    for name, files in (("proto", protocol), ("full", full), ("abp", abp)):
        write_bundle(tmp_path / name, files)
        report = verify(tmp_path / f"{name}.zip")
        assert report.design_hash_recomputed, name
    assert verify(tmp_path / "full.zip").design_sha256 == sha
    assert verify(tmp_path / "proto.zip").design_sha256 == sha
    result = cli("verify", tmp_path / "full.zip")
    assert result.code == 0, result.err
    assert f"Design hash {sha}, recomputed from the bundle's own records" in result.out


def test_a_bundle_made_before_the_plan_hmac_is_an_older_format_not_a_changed_one(
    afp: tuple[Files, Files, str], tmp_path: Path, cli: Cli
) -> None:
    _protocol, full, _sha = afp
    older = _rederive(_design(lambda d: d.pop("plan_hmac"))(full))
    write_bundle(tmp_path / "older", older)
    result = cli("verify", tmp_path / "older.zip")
    assert result.code == 1
    assert result.err.count("\n") == 1
    assert "protocol/design.json: plan_hmac: missing: an older bundle format" in result.err
    assert "no sign that anything changed" in result.err
    assert "export the bundle again to verify it" in result.err


def test_an_automated_scope_with_an_edited_run_is_refused(tmp_path: Path, cli: Cli) -> None:
    """A study's automated outcomes (no design): the scope's hash covers its runs' facts."""
    assert cli("import", FIXTURES / "ci-gate" / "baseline.results.json").code == 0
    assert cli("unblind", "--study", "run-baseline", "--yes").code == 0
    assert cli("export", "bundle", "--out", tmp_path / "bundle").code == 0
    files = read_bundle(tmp_path / "bundle.zip")
    assert verify(tmp_path / "bundle.zip").design_hash_recomputed

    def flip(files: Files) -> Files:
        lines = files[rec.RUNS].decode("utf-8").splitlines()
        first = json.loads(lines[0])
        first["automated_outcome"] = (
            "failed" if first["automated_outcome"] == "passed" else "passed"
        )
        lines[0] = json.dumps(first, sort_keys=True)
        return {**files, rec.RUNS: ("\n".join(lines) + "\n").encode("utf-8")}

    refused = _checked(tmp_path, _rederive(flip(files)))
    assert str(refused).startswith(
        "protocol/design.json: sha256: the hash of the automated scope recomputed from its "
        "document, protocol/rubric.json and runs/runs.jsonl"
    ), str(refused)


def test_a_design_stored_before_plan_secrets_verifies_with_its_hash_not_recomputed(
    tmp_path: Path, cli: Cli
) -> None:
    """Its hash covered the plan with database keys: no bundle can recompute it, and verify
    says so rather than calling the bundle changed."""
    db = connect(cli.db_path)
    try:
        afp_study(tmp_path, db)
        pk = create_design(db, StudyDesign(study="s", name="m", seed=3, contrasts=[("C", "A")])).pk
        # As such a design is stored: no plan secret and no commitment in its document.
        document = json.loads(
            db.execute("SELECT document FROM designs WHERE pk = ?", [pk]).fetchone()[0]
        )
        document.pop("plan_secret_sha256")
        db.execute("UPDATE designs SET document = ? WHERE pk = ?", [json.dumps(document), pk])
        db.execute("DELETE FROM plan_secrets WHERE design_pk = ?", [pk])
        db.conn.commit()
        unblind(db, "s", "lead")
        export_bundle(db, pk, tmp_path / "full")
    finally:
        db.close()
    report = verify(tmp_path / "full.zip")
    assert not report.design_hash_recomputed
    result = cli("verify", tmp_path / "full.zip")
    assert result.code == 0, result.err
    assert "not recomputed: the design was stored before plan secrets" in result.out


# -- what the design hash commits to: planned records and times ----------------------------------
def _task_prompt(files: Files) -> Files:
    return _json(files, rec.TASKS, lambda t: t[0].update(prompt="Another task"))


def _task_metadata(files: Files) -> Files:
    return _json(files, rec.TASKS, lambda t: t[0].update(metadata={"difficulty": "easy"}))


def _condition_label(files: Files) -> Files:
    return _json(files, rec.CONDITIONS, lambda c: c[0].update(label="Another label"))


def _shift(value: str, **delta: float) -> str:
    moved = datetime.fromisoformat(value) + timedelta(**delta)
    return moved.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _created_later(files: Files) -> Files:
    """``created_at`` moved later, still before the design was frozen (and after every run)."""

    def change(d: dict[str, Any]) -> None:
        created, frozen = (datetime.fromisoformat(d[k]) for k in ("created_at", "frozen_at"))
        assert frozen > created
        d["created_at"] = _shift(d["created_at"], seconds=(frozen - created).total_seconds() / 2)

    return _design(change)(files)


def _created_earlier(files: Files) -> Files:
    """``created_at`` backdated by a second: still after every run it plans started."""
    return _design(lambda d: d.update(created_at=_shift(d["created_at"], seconds=-1)))(files)


def _frozen_later(files: Files) -> Files:
    """``frozen_at`` moved a day later: after the judgments were made."""
    return _design(lambda d: d.update(frozen_at=_shift(d["frozen_at"], days=1)))(files)


def _run_line(change: Callable[[dict[str, Any]], object]) -> Callable[[Files], Files]:
    def tamper(files: Files) -> Files:
        lines = files[rec.RUNS].decode("utf-8").splitlines()
        first = json.loads(lines[0])
        change(first)
        lines[0] = json.dumps(first, sort_keys=True)
        return {**files, rec.RUNS: ("\n".join(lines) + "\n").encode("utf-8")}

    return tamper


def _output(files: Files) -> Files:
    """A planned run's output rewritten, with the SHA-256 runs.jsonl gives it."""
    first = json.loads(files[rec.RUNS].decode("utf-8").splitlines()[0])
    path = first["output"]["path"]
    data = b"A better answer.\n"
    files = {**files, path: data}

    def change(line: dict[str, Any]) -> None:
        line["output"].update(sha256=hashlib.sha256(data).hexdigest(), chars=len(data))

    return _run_line(change)(files)


TASK = r"^protocol/tasks\.json: task 'P01': its content hash is [0-9a-f]{64}, not the "
CONDITION = r"^protocol/conditions\.json: condition 'A': its content hash is [0-9a-f]{64}, not "
CREATED = r"^protocol/design\.json: created_at \S+ is not the \S+ the design hash commits to"
RUNS = r"^runs/runs\.jsonl: the runs the design plans hash to [0-9a-f]{64}, not the "


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        pytest.param(_task_prompt, TASK, id="task-prompt"),
        pytest.param(_task_metadata, TASK, id="task-metadata"),
        pytest.param(_condition_label, CONDITION, id="condition-label"),
        pytest.param(_created_later, CREATED, id="created-later"),
        pytest.param(_created_earlier, CREATED, id="created-earlier"),
    ],
)
def test_a_protocol_bundle_edit_outside_the_document_is_refused_naming_it(
    afp: tuple[Files, Files, str],
    tmp_path: Path,
    tamper: Callable[[Files], Files],
    expected: str,
) -> None:
    """A protocol-only bundle has nothing derived: the forger re-hashes the manifest."""
    protocol, _full, _sha = afp
    refused = _checked(tmp_path, _rehash(tamper(protocol)))
    assert re.search(expected, str(refused)), str(refused)


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        pytest.param(_task_prompt, TASK, id="task-prompt"),
        pytest.param(_condition_label, CONDITION, id="condition-label"),
        pytest.param(_created_later, CREATED, id="created-later"),
        pytest.param(_run_line(lambda r: r.update(trial=7)), RUNS, id="run-trial"),
    ],
)
def test_an_edited_full_bundle_outside_the_document_is_refused_naming_it(
    afp: tuple[Files, Files, str],
    tmp_path: Path,
    tamper: Callable[[Files], Files],
    expected: str,
) -> None:
    _protocol, full, _sha = afp
    refused = _checked(tmp_path, _rederive(tamper(full)))
    assert re.search(expected, str(refused)), str(refused)


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        pytest.param(_created_earlier, CREATED, id="created-backdated-after-the-runs"),
        pytest.param(
            _frozen_later,
            r"^protocol/design\.json: frozen_at \S+ is after the first judgment in "
            r"judging/judgments\.jsonl",
            id="frozen-later",
        ),
        pytest.param(
            _run_line(lambda r: r["record"].update(output_tokens=1)), RUNS, id="run-tokens"
        ),
        pytest.param(_output, RUNS, id="run-output"),
    ],
)
def test_an_edited_engine_bundle_outside_the_document_is_refused_naming_it(
    abp: Files, tmp_path: Path, tamper: Callable[[Files], Files], expected: str
) -> None:
    refused = _checked(tmp_path, _rederive(tamper(abp)))
    assert re.search(expected, str(refused)), str(refused)


def test_untouched_bundles_say_their_records_are_bound(
    afp: tuple[Files, Files, str], abp: Files, tmp_path: Path, cli: Cli
) -> None:
    protocol, full, _sha = afp
    for name, files in (("proto", protocol), ("full", full), ("abp", abp)):
        write_bundle(tmp_path / name, files)
        assert verify(tmp_path / f"{name}.zip").records_bound, name
    result = cli("verify", tmp_path / "proto.zip")
    assert result.code == 0, result.err
    assert "It commits to the tasks, conditions and runs the design planned" in result.out


def _legacy_design(cli: Cli, tmp_path: Path) -> tuple[int, str]:
    """A design stored as before commitments (its document without one, hashed as it was),
    exported as protocol and full bundles; (its key, its hash)."""
    db = connect(cli.db_path)
    try:
        afp_study(tmp_path, db)
        design = StudyDesign(study="s", name="m", seed=3, contrasts=[("C", "A")])
        pk = create_design(db, design).pk
        document = json.loads(
            db.execute("SELECT document FROM designs WHERE pk = ?", [pk]).fetchone()[0]
        )
        rubric = json.loads(
            db.execute("SELECT rubric FROM designs WHERE pk = ?", [pk]).fetchone()[0]
        )
        document.pop("commitment")
        secret = secret_sql.plan_secret(db, pk)
        assert secret is not None
        legacy = design_hash(document, rubric, plan_hmac(secret, secret_sql.plan_rows(db, pk)))
        db.execute(
            "UPDATE designs SET document = ?, sha256 = ? WHERE pk = ?",
            [canonical_json(document), legacy, pk],
        )
        db.conn.commit()
        # Planning the unchanged design again keeps the stored one: its hash is kept as it was.
        again = create_design(db, design)
        assert (again.status, again.pk, again.sha256) == ("unchanged", pk, legacy)
        export_protocol_bundle(db, pk, tmp_path / "proto")
        unblind(db, "s", "lead")
        export_bundle(db, pk, tmp_path / "full")
        return pk, legacy
    finally:
        db.close()


def test_a_design_stored_before_commitments_is_an_older_format_never_a_changed_one(
    tmp_path: Path, cli: Cli
) -> None:
    _pk, legacy = _legacy_design(cli, tmp_path)
    for name in ("proto", "full"):
        report = verify(tmp_path / f"{name}.zip")
        assert report.design_hash_recomputed and not report.records_bound, name
        assert report.design_sha256 == legacy
        result = cli("verify", tmp_path / f"{name}.zip")
        assert result.code == 0, result.err
        assert (
            "Older format: task texts, condition labels, run records and the design's times "
            "are not bound by the hash"
        ) in result.out
    # Its task texts are not bound: what tells an edited one is the manifest's SHA-256.
    files = read_bundle(tmp_path / "proto.zip")
    published = hashlib.sha256(files[rec.MANIFEST]).hexdigest()
    write_bundle(tmp_path / "forged", _rehash(_task_prompt(files)))
    forged = verify(tmp_path / "forged.zip")
    assert forged.design_sha256 == legacy and forged.manifest_sha256 != published


def test_a_changed_design_stored_before_commitments_gets_a_version_that_commits(
    tmp_path: Path, cli: Cli
) -> None:
    pk, _legacy = _legacy_design(cli, tmp_path)
    db = connect(cli.db_path)
    try:
        changed = create_design(
            db, StudyDesign(study="s", name="m", seed=4, contrasts=[("C", "A")])
        )
        assert changed.status == "new version" and changed.pk != pk
        stored = sql.design(db, changed.pk)
        assert stored.document["commitment"]["created_at"] == stored.created_at
        assert set(stored.document["commitment"]["tasks"]) == {"P01", "P02"}
    finally:
        db.close()


def test_an_export_after_a_planned_task_was_imported_again_is_refused(tmp_path: Path) -> None:
    """The bundle publishes a study's current tasks: one imported again since the design was
    stored is not the one it planned, and the export says so rather than write a bundle that
    ``verify`` would refuse."""
    db = connect(tmp_path / "a.db")
    try:
        afp_study(tmp_path, db)
        pk = create_design(db, StudyDesign(study="s", name="m", seed=3, contrasts=[("C", "A")])).pk
        lines = [
            {**line, "prompt": "Task P01, reworded"} if line.get("id") == "P01" else line
            for line in afp_study_lines()
        ]
        import_paths(db, [write_jsonl(tmp_path / "s2.jsonl", lines)])
        with pytest.raises(AbpError) as refused:
            export_protocol_bundle(db, pk, tmp_path / "proto")
        assert str(refused.value).startswith(
            "design m v1: protocol/tasks.json: task 'P01': its content hash is "
        ), str(refused.value)
        assert "was imported again after the design was stored" in str(refused.value)
        assert not (tmp_path / "proto.zip").exists()
    finally:
        db.close()


def test_a_commitment_of_another_version_is_named_not_misread(
    afp: tuple[Files, Files, str], tmp_path: Path
) -> None:
    """A later format's commitment (its design hash consistent with it) is not checked by rules
    that are not its own: verify names the version."""
    _protocol, full, _sha = afp
    rubric = json.loads(full[rec.RUBRIC])

    def later(design: dict[str, Any]) -> None:
        design["document"]["commitment"]["version"] = 3
        design["sha256"] = design_hash(design["document"], rubric, design["plan_hmac"])

    refused = _checked(tmp_path, _rederive(_design(later)(full)))
    assert str(refused) == (
        "protocol/design.json: document.commitment.version: 3, this abp-tui checks version 2: "
        "verify the bundle with the abp-tui that made it"
    )
