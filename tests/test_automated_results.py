"""Results, exports and bundles of a study with automated outcomes and no study design (issue 13).

The runs are the generated Arena files of ``fixtures/ci-gate`` (synthetic: their docstring in
``make_runs.py`` lists which trials fail), so every expected figure below is worked out by hand
from that list and from the formulas' published definitions, never read back from our output:
exact McNemar p = min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2) (McNemar 1947; Arena's
definition); the Wilson score interval as SciPy documents it
(``scipy.stats.binomtest(...).proportion_ci(method="wilson")``, Wilson 1927), an implementation
independent of ours.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from scipy.stats import binomtest

from abp_tui.errors import AbpError
from abp_tui.export import BundleMismatch, verify
from abp_tui.export.verdict import schema_errors
from abp_tui.formats.abp import AbpVerdict
from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import (
    NoDesign,
    Scope,
    StudyIsBlind,
    automated_scope,
    find_scope,
    report_results,
    unblind,
)
from abp_tui.services.reviewing import ReviewSession
from tests.factories import FIXTURES, Cli, business_judgment, write_jsonl

GATE = FIXTURES / "ci-gate"
BASELINE = "run-baseline"
REGRESSION = "run-regression"

# Seed 003 section 8, the abp-verdict/v1 example, as the seed prints it.
SEED_VERDICT: dict[str, Any] = {
    "schema": "abp-verdict/v1",
    "run": "run-20260718-a41c",
    "perEngine": [
        {
            "engine": "oxagen",
            "scoredTrials": 72,
            "excludedEngineErrors": 1,
            "resolveRate": {"point": 0.84, "wilson95": [0.71, 0.92]},
            "medianDiffBytesNormalized": 1650,
            "medianTokensTotal": 361000,
            "medianWallClockMs": 190334,
            "medianComputedUsd": 1.42,
        }
    ],
    "pairwise": [
        {
            "a": "oxagen",
            "b": "claude-code",
            "mcnemar": {"discordant": [14, 5], "pExact": 0.041},
            "diffDelta": {"relMedian": -0.22, "bootstrap95": [-0.31, -0.09], "seed": 20260718},
        }
    ],
    "receipts": {
        "trials": "trials/",
        "transcripts": "transcripts/",
        "diffs": "diffs/",
        "traces": "traces/",
    },
}
ABP_TUI_FIELDS = {
    "": {"status", "missing", "synthetic", "notes", "verdictSource", "matchedModels", "warning"},
    "perEngine": {"excludedOther", "unjudgedTrials", "unresolvedTrials"},
    "receipts": {"judgments", "verdicts"},
}
"""The fields abp-tui adds beside the seed's (its schema declares each)."""


def exact_mcnemar(b: int, c: int) -> float:
    """2 P(X <= min(b, c)), X ~ Bin(b + c, 1/2), from the binomial coefficients."""
    n = b + c
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail / float(2**n))


def wilson(x: int, n: int) -> tuple[float, float]:
    found = binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(found.low), float(found.high)


def arena_study(db: sqlite_utils.Database, name: str, *, unblinded: bool = True) -> str:
    import_paths(db, [GATE / name])
    study = json.loads((GATE / name).read_text("utf-8"))["manifest"]["runId"]
    if unblinded:
        unblind(db, study, "coordinator")
    return str(study)


# -- results ----------------------------------------------------------------------------------
def test_results_of_arena_outcomes_need_no_design(cli: Cli) -> None:
    assert cli("import", GATE / "baseline.results.json").code == 0
    blind = cli("results")
    assert blind.code == 1 and "still blind" in blind.err and "Traceback" not in blind.err
    assert cli("unblind", "--study", BASELINE, "--yes").code == 0

    found = cli("results", "--json")
    assert found.code == 0, found.err
    report = json.loads(found.out)
    assert report["verdict_source"] == "automated"
    assert report["study"] == BASELINE
    groups = {g["condition"]: g for g in report["conditions"]}
    # make_runs.py: oxagen fails 2 of 20 trials; claude-code 6 of 20 plus one agent-error trial
    # (an engine error: INFRA_ERROR, excluded, never a loss).
    claude, oxagen = groups["claude-code"], groups["oxagen"]
    assert (claude["runs"], claude["states"]["INFRA_ERROR"]) == (21, 1)
    assert (claude["pass_rate"]["x"], claude["pass_rate"]["n"]) == (14, 20)
    assert (oxagen["pass_rate"]["x"], oxagen["pass_rate"]["n"]) == (18, 20)
    for group, (x, n) in ((claude, (14, 20)), (oxagen, (18, 20))):
        low, high = wilson(x, n)
        assert group["pass_rate"]["low"] == pytest.approx(low, abs=1e-9)
        assert group["pass_rate"]["high"] == pytest.approx(high, abs=1e-9)
    # Paired by (task, trial), a = claude-code, b = oxagen: claude-code passes both trials
    # oxagen fails (t09/2, t10/2) and fails six oxagen passes.
    (pair,) = report["comparisons"]
    paired = pair["paired"]
    assert (pair["a"], pair["b"]) == ("claude-code", "oxagen")
    assert (paired["pairs"], paired["a_pass_b_fail"], paired["a_fail_b_pass"]) == (20, 2, 6)
    assert paired["mcnemar"]["p_value"] == pytest.approx(exact_mcnemar(2, 6), abs=1e-12)
    assert exact_mcnemar(2, 6) == 74 / 256
    # Efficiency over the 20 measured trials each (the agent-error trial is not one), seeded by
    # the manifest's seed 42: both engines have the same tokens, so the difference is 0.
    tokens = next(e["difference"] for e in pair["efficiency"] if e["metric"] == "total_tokens")
    assert (tokens["n_a"], tokens["n_b"], tokens["seed"]) == (20, 20, 42)
    assert (tokens["median_a"], tokens["point"]) == (44650, 0)
    assert {o["source"] for o in report["outcomes"]} == {"automated"}
    assert report["automated_judge"] == []

    text = cli("results").out
    assert "from its automated outcomes alone (no study design)" in text
    assert "No study design: every verdict is the run's automated verification outcome" in text
    # Nobody judged: no preference, rubric-dimension or position-bias figures are shown.
    assert "Prefer a / b" not in text and "Position bias" not in text
    assert "Rubric dimensions" not in text


def test_results_of_an_abp_run_folder_need_no_design(db: sqlite_utils.Database) -> None:
    # The demo's run folder alone (its study design is a separate file, not imported here).
    import_paths(db, [FIXTURES / "demo" / "abp-demo"])
    unblind(db, "abp-demo", "coordinator")
    report = report_results(db, "abp-demo")
    assert report.verdict_source == "automated"
    rates = {g.condition: (g.pass_rate.x, g.pass_rate.n) for g in report.conditions}
    # The demo traces' run.end outcomes: alpha resolves 11 of 12 trials, beta 8 of 12.
    assert rates == {"demo-engine-alpha": (11, 12), "demo-engine-beta": (8, 12)}
    (pair,) = report.comparisons
    assert (pair.paired.a_pass_b_fail, pair.paired.a_fail_b_pass) == (4, 1)
    assert pair.paired.mcnemar.p_value == pytest.approx(exact_mcnemar(4, 1))  # 2 * 6/32
    # Seeded by the run configuration's seed (run.json), there being no design's.
    assert {e.difference.seed for e in pair.efficiency} == {20260118}


def test_a_study_with_neither_a_design_nor_automated_outcomes_is_refused(
    tmp_path: Path, cli: Cli
) -> None:
    lines = [
        {"type": "study", "id": "plain"},
        {"type": "condition", "id": "A"},
        {"type": "task", "id": "T1", "prompt": "Say hi."},
        {"type": "run", "id": "r1", "task_id": "T1", "condition_id": "A", "output": "hi"},
    ]
    assert cli("import", write_jsonl(tmp_path / "plain.jsonl", lines)).code == 0
    for command in (
        ["results"],
        ["export", "bundle", "--out", str(tmp_path / "b")],
        ["export", "abp-verdict", "--out", str(tmp_path / "v.json")],
    ):
        found = cli(*command)
        assert found.code == 1, command
        assert "no study design for study 'plain'" in found.err
        assert "create a design with: abp-tui study create" in found.err
        assert "Traceback" not in found.err
    assert not (tmp_path / "b").exists() and not (tmp_path / "v.json").exists()
    unknown = cli("results", "--study", "nope")
    assert unknown.code == 1 and f"no study 'nope' in {cli.db_path}" in unknown.err


def test_results_stay_blind_until_unblinded(db: sqlite_utils.Database) -> None:
    study = arena_study(db, "baseline.results.json", unblinded=False)
    with pytest.raises(StudyIsBlind, match="still blind"):
        report_results(db, study)
    with pytest.raises(StudyIsBlind):
        export_bundle(db, None, Path("never-written"), study=study)


# -- abp-verdict/v1, field by field against seed 003 section 8 ----------------------------------
def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return type(value).__name__


def _compare(seed: Any, ours: Any, where: str, differences: list[str]) -> None:
    """Every field of the seed's example is in ours, with the same JSON type (a whole number
    where the seed writes one), recursively; list items against the seed's first item."""
    if isinstance(seed, dict):
        assert isinstance(ours, dict), where
        for key, value in seed.items():
            if key not in ours:
                differences.append(f"{where}.{key}")
                continue
            _compare(value, ours[key], f"{where}.{key}", differences)
        extra = set(ours) - set(seed)
        allowed = ABP_TUI_FIELDS.get(re.sub(r"\[\d+\]", "", where).strip("."), set())
        assert extra <= allowed, (where, extra - allowed)
    elif isinstance(seed, list):
        assert isinstance(ours, list) and ours, where
        if isinstance(seed[0], dict):
            for i, item in enumerate(ours):
                _compare(seed[0], item, f"{where}[{i}]", differences)
        else:
            assert len(ours) == len(seed), where
            for i, item in enumerate(ours):
                _compare(seed[i], item, f"{where}[{i}]", differences)
    elif _kind(seed) == "number":
        assert _kind(ours) in ("number", "integer"), (where, ours)
    else:
        assert _kind(ours) == _kind(seed), (where, ours)


def _with_diff_files(tmp_path: Path, name: str) -> Path:
    """A copy of a generated results file with a diff file at every trial's ``diffPath``."""
    folder = tmp_path / "arena"
    doc = json.loads((GATE / name).read_text("utf-8"))
    for trial in doc["results"]:
        diff = folder / trial["diffPath"]
        diff.parent.mkdir(parents=True, exist_ok=True)
        diff.write_text(f"--- a/{trial['taskId']}\n+++ b/{trial['taskId']}\n", "utf-8")
    (folder / name).write_bytes((GATE / name).read_bytes())
    return folder / name


def test_abp_verdict_of_automated_outcomes_is_seed_003_section_8(tmp_path: Path, cli: Cli) -> None:
    assert cli("import", _with_diff_files(tmp_path, "regression.results.json")).code == 0
    assert cli("unblind", "--study", REGRESSION, "--yes").code == 0
    out = tmp_path / "verdict.json"
    made = cli("export", "abp-verdict", "--out", out)
    assert made.code == 0, made.err
    document = json.loads(out.read_text("utf-8"))
    assert schema_errors(document) == []
    AbpVerdict.model_validate(document)  # our own reader of the seed's format takes it
    differences: list[str] = []
    _compare(SEED_VERDICT, document, "", differences)
    # Every field of the seed is there, the diffs receipt too: each trial's diffPath names a file
    # beside results.json, which the bundle publishes under runs/diffs/.
    assert differences == []
    assert document["receipts"]["diffs"] == "runs/diffs/"
    assert document["verdictSource"] == "automated"
    assert "design" not in document  # there is none
    assert document["run"] == REGRESSION

    engines = {e["engine"]: e for e in document["perEngine"]}
    claude, oxagen = engines["claude-code"], engines["oxagen"]
    # The regressed run: oxagen fails t01-t08 trial 1 besides t09/2 and t10/2 (10 of 20).
    assert (oxagen["scoredTrials"], oxagen["excludedEngineErrors"]) == (20, 0)
    assert (claude["scoredTrials"], claude["excludedEngineErrors"]) == (20, 1)
    assert oxagen["resolveRate"]["point"] == 0.5
    assert oxagen["resolveRate"]["wilson95"] == pytest.approx(wilson(10, 20), abs=1e-6)
    assert claude["resolveRate"]["wilson95"] == pytest.approx(wilson(14, 20), abs=1e-6)
    # Tokens 40000 + 1000 n + 100 trial (n = task index 0-9, trial 1-2): median 44650; oxagen's
    # are 1.3 times that, rounded. Wall clock 90 + 5 n seconds; diff bytes 400 + 10 (n + 1).
    assert (claude["medianTokensTotal"], oxagen["medianTokensTotal"]) == (44650, 58045)
    assert claude["medianWallClockMs"] == 112500 and claude["medianDiffBytesNormalized"] == 455
    assert all(isinstance(e[k], int) for e in engines.values() for k in ("medianTokensTotal",))
    (pair,) = document["pairwise"]
    # a = claude-code passes 8 trials oxagen fails (t01, t03, t04, t05, t07, t08 trial 1;
    # t09/2, t10/2) and fails 4 oxagen passes (t04/2, t07/2, t09/1, t10/1).
    assert pair["mcnemar"]["discordant"] == [8, 4]
    assert pair["mcnemar"]["pExact"] == pytest.approx(exact_mcnemar(8, 4), abs=1e-6)
    # The seed's own example is not exact McNemar: [14, 5] gives 2 P(X <= 5) = 0.0636 (0.041 is
    # its mid-p); pExact is the exact conditional p, as Arena and seed 003 define it.
    assert exact_mcnemar(14, 5) == pytest.approx(0.0636, abs=1e-4)
    delta = pair["diffDelta"]
    assert (delta["relMedian"], delta["seed"]) == (0, 42)
    low, high = delta["bootstrap95"]
    assert low <= 0 <= high


# -- the bundle -------------------------------------------------------------------------------
def test_bundle_of_automated_outcomes_verifies(tmp_path: Path, cli: Cli) -> None:
    assert cli("import", GATE / "baseline.results.json").code == 0
    assert cli("unblind", "--study", BASELINE, "--yes").code == 0
    made = cli("export", "bundle", "--out", tmp_path / "bundle", "--json")
    assert made.code == 0, made.err
    zip_path = Path(json.loads(made.out)["zip"])
    checked = cli("verify", zip_path)
    assert checked.code == 0, checked.err
    assert "design automated" in checked.out
    folder = tmp_path / "bundle"
    # No diff file is beside these results.json files: the bundle names no diffs receipt.
    verdict = json.loads((folder / "results" / "abp-verdict.json").read_text("utf-8"))
    assert "diffs" not in verdict["receipts"] and not (folder / "runs" / "diffs").exists()
    summary = json.loads((folder / "results" / "summary.json").read_text("utf-8"))
    assert summary["verdict_source"] == "automated"
    assert {g["condition"]: g["pass_rate"]["x"] for g in summary["conditions"]} == {
        "claude-code": 14,
        "oxagen": 18,
    }
    verdicts = [
        json.loads(x) for x in (folder / "results" / "verdicts.jsonl").read_text().splitlines()
    ]
    assert len(verdicts) == 41 and {v["source"] for v in verdicts} == {"automated"}
    status = json.loads((folder / "status.json").read_text("utf-8"))
    checks = {c["requirement"]: c for c in status["checks"]}
    assert checks["component scores"]["met"]
    assert "no study design" in checks["component scores"]["detail"]
    # What an Arena results.json lacks is listed, not hidden: the tasks' texts, the transcripts.
    assert not checks["raw outputs"]["met"] and not checks["full text of every fixture"]["met"]
    study = json.loads((folder / "protocol" / "study.json").read_text("utf-8"))
    assert (
        "No study design: every run's verdict is its automated verification"
        in (study["description"])
    )
    # The same records give the same bytes.
    again = cli("export", "bundle", "--out", tmp_path / "again")
    assert again.code == 0
    assert (tmp_path / "again.zip").read_bytes() == zip_path.read_bytes()
    # A verdict is changed in runs.jsonl and its hash in the manifest: the scope's hash, which
    # covers every run's facts, no longer recomputes (before the summary is re-derived).
    runs = folder / "runs" / "runs.jsonl"
    failed, passed = '"automated_outcome":"failed"', '"automated_outcome":"passed"'
    runs.write_text(runs.read_text("utf-8").replace(failed, passed, 1), "utf-8")
    _rehash(folder, "runs/runs.jsonl")
    with pytest.raises(BundleMismatch, match=r"sha256: the hash of the automated scope recomputed"):
        verify(folder)
    # Judgments need a design: there are none to export.
    refused = cli("export", "judgments", "--out", tmp_path / "j.csv")
    assert refused.code == 1 and "no study design" in refused.err


def _rehash(folder: Path, path: str) -> None:
    """Record ``path``'s new hash and size in the manifest, as a forger would."""
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text("utf-8"))
    data = (folder / path).read_bytes()
    for entry in manifest["files"]:
        if entry["path"] == path:
            entry["sha256"] = hashlib.sha256(data).hexdigest()
            entry["bytes"] = len(data)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", "utf-8")


# -- people judging later ---------------------------------------------------------------------
def test_people_judging_later_supersede_the_automated_verdicts(db: sqlite_utils.Database) -> None:
    study = arena_study(db, "baseline.results.json")
    assert find_scope(db, study).design_pk is None
    created = create_design(
        db,
        StudyDesign(
            study=study, name="review", seed=7, rubric="business-eval-v1", reviewers=["ana"]
        ),
    )
    scope = find_scope(db, study)
    assert scope.design_pk == created.pk  # the design, from now on
    session = ReviewSession(db, created.pk, "ana")
    code = session.queue()[0].code
    item = session.read(code)
    assert len(item.responses) == 2
    # Both responses scored 0: MODEL_FAIL for both, whatever their automated outcomes.
    judgment = business_judgment(0, 0, PreferenceChoice.TIE)
    # The business rubric asks no validity gate.
    session.save(code, judgment.model_copy(update={"validity": {}}), 5, submit=True)
    report = report_results(db, study)
    assert report.verdict_source == "design" and report.design == "review"
    judged = [o for o in report.outcomes if o.source == "single review"]
    assert len(judged) == 2
    assert all(o.state is not None and o.state.value == "MODEL_FAIL" for o in judged)
    assert all(o.automated_state is not None for o in judged)  # kept beside
    rest = [o for o in report.outcomes if o.source != "single review"]
    assert {o.source for o in rest} == {"automated"} and len(rest) == 39


def test_the_scope_is_the_only_study_or_refused(tmp_path: Path, db: sqlite_utils.Database) -> None:
    with pytest.raises(AbpError, match="the database has none"):
        find_scope(db)
    import_paths(db, [GATE / "baseline.results.json"])
    assert find_scope(db) == Scope(BASELINE, None, "automated", 1)
    lines = [
        {"type": "study", "id": "plain"},
        {"type": "condition", "id": "A"},
        {"type": "run", "id": "r1", "task_id": "T1", "condition_id": "A", "output": "x"},
    ]
    import_paths(db, [write_jsonl(tmp_path / "plain.jsonl", lines)])
    with pytest.raises(AbpError, match="choose a study with --study"):
        find_scope(db)
    with pytest.raises(NoDesign, match="no study design for study 'plain'"):
        automated_scope(db, "plain")
