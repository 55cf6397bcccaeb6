"""Seed 003 section 4.3 and principle 3 in the bundle's machine-readable files: the head-to-head
in the strict efficiency order and each engine's own efficiency medians are CSV files of the
bundle (beside summary.json), listed in its manifest, neutralised like every CSV, and
``verify`` re-derives them from the bundle's own records.

The expected figures are read from the fixture's traces here, not from abp-tui's output.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import statistics
from pathlib import Path
from typing import Any

from tests.conformance.seed_003.abp_runs import CONFORMANCE, copy_run, imported, traces
from tests.factories import Cli

HEAD_TO_HEAD = "results/head_to_head.csv"
ENGINE_EFFICIENCY = "results/engine_efficiency.csv"


def _bundle(tmp_path: Path, cli: Cli, folder: Path) -> Path:
    study = imported(cli, folder)
    bundle = tmp_path / "bundle"
    done = cli("export", "bundle", "--study", study, "--out", bundle)
    assert done.code == 0, done.err
    return bundle


def _csv(bundle: Path, path: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((bundle / path).read_text(encoding="utf-8"))))


def _measured(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Engine -> the run.end events of its runs that are measurements (no engine error)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for events in traces(folder):
        start, end = events[0], events[-1]
        if end["outcome"] != "engine-error":
            out.setdefault(start["engine"].split("/")[0], []).append(end)
    return out


def test_efficiency_tables_are_bundle_csvs_that_verify_re_derives(tmp_path: Path, cli: Cli) -> None:
    folder = copy_run(CONFORMANCE / "engine-error", tmp_path / "engine-error")
    bundle = _bundle(tmp_path, cli, folder)
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    listed = {f["path"] for f in manifest["files"]}
    for path in (HEAD_TO_HEAD, ENGINE_EFFICIENCY):
        assert path in listed and path in manifest["derived"], path

    # Medians over each engine's runs that are measurements (cf-beta's engine error is none),
    # from the traces' run.end events; the traces name no cost, so it is missing, never 0.
    engines = {r["engine"]: r for r in _csv(bundle, ENGINE_EFFICIENCY)}
    for engine, ends in _measured(folder).items():
        row = engines[engine]
        diffs = [e["diffBytesNormalized"] for e in ends]
        walls = [e["wallClockMs"] for e in ends]
        tokens = [sum(e["tokens"].values()) for e in ends]
        assert float(row["median_diff_bytes"]) == statistics.median(diffs)
        assert float(row["median_wall_clock_ms"]) == statistics.median(walls)
        assert float(row["median_total_tokens"]) == statistics.median(tokens)
        assert (int(row["n_diff_bytes"]), int(row["missing_diff_bytes"])) == (len(ends), 0)
        assert row["median_cost_usd"] == "" and int(row["missing_cost_usd"]) == len(ends)

    # Only cf-parse-dates is resolved by both: alpha's diff (400) is smaller than beta's (900).
    (pair,) = _csv(bundle, HEAD_TO_HEAD)
    assert (pair["a"], pair["b"]) == ("cf-alpha", "cf-beta")
    counts = [int(pair[k]) for k in ("wins_a", "wins_b", "ties", "undecided", "resolved_pairs")]
    assert counts == [1, 0, 0, 0, 1]
    assert int(pair["decided_by_diff_bytes"]) == 1 and int(pair["decided_by_total_tokens"]) == 0
    # Beside it, the resolution McNemar test on the same pairing: 2 pairs, 1 discordant.
    assert (int(pair["pairs"]), int(pair["a_pass_b_fail"]), int(pair["a_fail_b_pass"])) == (2, 1, 0)
    assert float(pair["mcnemar_p_exact"]) == 1.0  # exact two-sided binomial, 1 of 1: p = 1

    # The CSVs say what summary.json says.
    summary = json.loads((bundle / "results" / "summary.json").read_text(encoding="utf-8"))
    (comparison,) = summary["comparisons"]
    assert comparison["head_to_head"]["wins_a"] == int(pair["wins_a"])
    medians = {e["engine"]: e for e in summary["engine_efficiency"]}
    assert set(medians) == set(engines)
    assert cli("verify", bundle).code == 0


def _rehash(bundle: Path, path: str) -> None:
    """Record ``path``'s new hash in the manifest (or drop it), as a forger would."""
    manifest_path = bundle / "manifest.json"
    manifest = json.loads(manifest_path.read_text("utf-8"))
    if (bundle / path).exists():
        data = (bundle / path).read_bytes()
        for entry in manifest["files"]:
            if entry["path"] == path:
                entry["sha256"] = hashlib.sha256(data).hexdigest()
                entry["bytes"] = len(data)
    else:
        manifest["files"] = [f for f in manifest["files"] if f["path"] != path]
        manifest["derived"] = [p for p in manifest["derived"] if p != path]
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", "utf-8")


def test_verify_refuses_an_edited_or_missing_efficiency_csv(tmp_path: Path, cli: Cli) -> None:
    folder = copy_run(CONFORMANCE / "engine-error", tmp_path / "engine-error")
    bundle = _bundle(tmp_path, cli, folder)
    target = bundle / HEAD_TO_HEAD
    original = target.read_text(encoding="utf-8")
    target.write_text(original.replace("cf-alpha,cf-beta,1,0,", "cf-alpha,cf-beta,0,1,"), "utf-8")
    assert target.read_text(encoding="utf-8") != original
    _rehash(bundle, HEAD_TO_HEAD)
    edited = cli("verify", bundle)
    assert edited.code == 1 and HEAD_TO_HEAD in edited.err and "Traceback" not in edited.err

    target.write_text(original, "utf-8")
    _rehash(bundle, HEAD_TO_HEAD)
    assert cli("verify", bundle).code == 0
    (bundle / ENGINE_EFFICIENCY).unlink()
    _rehash(bundle, ENGINE_EFFICIENCY)
    missing = cli("verify", bundle)
    assert missing.code == 1 and ENGINE_EFFICIENCY in missing.err


def test_efficiency_csvs_neutralise_an_engine_name_that_is_a_formula(
    tmp_path: Path, cli: Cli
) -> None:
    folder = copy_run(CONFORMANCE / "engine-error", tmp_path / "engine-error")
    for file in [folder / "run.json", *(folder / "traces").glob("*.jsonl")]:
        text = file.read_text(encoding="utf-8")
        file.write_text(text.replace('"cf-beta', '"=cf-beta'), encoding="utf-8")
    bundle = _bundle(tmp_path, cli, folder)
    for path in (HEAD_TO_HEAD, ENGINE_EFFICIENCY):
        cells = [
            c for row in csv.reader(io.StringIO((bundle / path).read_text("utf-8"))) for c in row
        ]
        assert "'=cf-beta" in cells, path
        assert not any(c.startswith("=") for c in cells), path
    assert cli("verify", bundle).code == 0


def test_unmatched_models_bundle_has_engine_medians_and_no_head_to_head(
    tmp_path: Path, cli: Cli
) -> None:
    """matchedModels false: each engine's own figures only (seed 003 section 7)."""
    folder = copy_run(CONFORMANCE / "unmatched-models", tmp_path / "unmatched-models")
    bundle = _bundle(tmp_path, cli, folder)
    assert not (bundle / HEAD_TO_HEAD).exists()
    assert {r["engine"] for r in _csv(bundle, ENGINE_EFFICIENCY)} == {"cf-alpha", "cf-beta"}
    assert cli("verify", bundle).code == 0
