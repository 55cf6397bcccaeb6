"""Seed 000 (AFP v0.1), section 3: "Every fixture uses the same user task, the same model version,
and the same visible evidence."

On runner rows generated from the bundled AFP demo (every row on synthetic-demo/demo-model-1,
returned as demo-model-1-2026-01-01, reasoning medium), one row changed at a time; driven
through the commands a coordinator uses: import, study create, unblind, results, export bundle
and verify.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.conformance.rules_helpers import gate_checks, read_json, read_jsonl
from tests.factories import DEMO, Cli, write_jsonl

REQUIREMENT = "every condition on the same model version (seed 000 section 3)"
WARNING = "Warning: the conditions did not all run on the same model version (seed 000 section 3)"
PENDING = "protocol published / results pending"
P03_C = "afp-demo-run-20260112-P03-C-r1"
INFRA = "afp-demo-run-20260112-P06-C-r3"
"""The demo's INFRA_ERROR row (a timeout): it produced nothing to compare."""
DEMO_VERSION = "synthetic-demo/demo-model-1 -> demo-model-1-2026-01-01, reasoning medium"
CHANGES = {
    # runner field: (what the gate calls it, the demo's value, the changed value)
    "returned_model": ("returned model version", "demo-model-1-2026-01-01", "demo-model-1-2026-03"),
    "requested_model": ("requested model", "demo-model-1", "demo-model-2"),
    "reasoning_effort": ("reasoning effort", "medium", "high"),
}  # fmt: skip


def _runner_folder(tmp_path: Path, name: str, changes: dict[str, dict[str, str]]) -> Path:
    """The demo's pack and runner rows, with ``changes`` (execution id -> fields) applied."""
    folder = tmp_path / name
    shutil.copytree(DEMO / "afp-pilot-demo", folder)
    rows = read_jsonl(folder / "runs.jsonl")
    for row in rows:
        row.update(changes.get(row["execution_id"], {}))
    write_jsonl(folder / "runs.jsonl", rows)
    return folder


def _publish(cli: Cli, folder: Path, study: str) -> tuple[dict[str, Any], str, Path]:
    """Import, design, unblind and export ``folder`` as ``study``: its results (JSON and
    text) and its bundle."""
    for args in (
        ("import", folder, "--study", study),
        ("study", "create", "--study", study, "--db", cli.db_path),
        ("unblind", "--study", study, "--yes"),
    ):
        done = cli(*args)
        assert done.code == 0, done.err
    results = cli("results", "--study", study, "--json")
    text = cli("results", "--study", study)
    bundle = folder.parent / f"{study}-bundle"
    exported = cli("export", "bundle", "--study", study, "--out", bundle)
    assert results.code == text.code == exported.code == 0, exported.err
    assert cli("verify", bundle).code == 0  # verify re-derives the gate and the results
    data = json.loads(results.out)
    assert isinstance(data, dict)
    return data, text.out, bundle


def test_every_condition_runs_on_the_same_model_version(cli: Cli, tmp_path: Path) -> None:
    # As the demo ran: one model version under every condition. An INFRA_ERROR run's model is
    # not compared (it produced no output to compare), whatever it names.
    same = _runner_folder(tmp_path, "same", {INFRA: {"returned_model": "demo-model-1-2026-09-09"}})
    results, text, bundle = _publish(cli, same, "same")
    assert results["warnings"] == [] and WARNING not in text
    check = gate_checks(bundle)[REQUIREMENT]
    assert check == {
        "requirement": REQUIREMENT,
        "met": True,
        "detail": f"every fixture ran on one model version under every condition ({DEMO_VERSION})",
    }

    # One run of condition C on another model (its version, the model asked for, or its
    # reasoning mode): the gate fails naming the fixture, the conditions and what each ran on,
    # and the results lead with the same sentence.
    for field, (words, before, after) in CHANGES.items():
        study = f"mixed-{field}"
        folder = _runner_folder(tmp_path, study, {P03_C: {field: after}})
        results, text, bundle = _publish(cli, folder, study)
        check = gate_checks(bundle)[REQUIREMENT]
        seen = (
            f"(A: {before} (1 run); B: {before} (1 run); C: {after} (1 run); D: {before} (1 run))"
        )
        assert check["met"] is False, field
        assert check["detail"] == f"{words} differs between conditions on P03 {seen}"
        status = read_json(bundle / "status.json")
        assert status["status"] == PENDING
        assert f"{REQUIREMENT}: {check['detail']}" in status["missing"]
        (warning,) = results["warnings"]
        assert warning.startswith(WARNING) and check["detail"] in warning
        assert text.splitlines()[0] == warning  # the text leads with it too
        assert read_json(bundle / "results" / "summary.json")["warnings"] == [warning]
        html = (bundle / "report.html").read_text("utf-8")
        assert "did not all run on the same model version" in html
        assert "comparisons-withheld" not in html  # an AFP study's conditions are still compared
