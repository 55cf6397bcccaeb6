"""Seed 003 section 7: "matchedModels: false runs are legal ... but a conforming report must lead
with the warning and must not present engine-vs-engine conclusions from them" (and principle 1:
"Runs that vary the model are stamped as such and cannot back engine-vs-engine claims").

Every output is driven as a user would: ``abp-tui results`` (text and JSON), ``abp-tui export
abp-verdict``, the bundle's report.html, ``abp-tui gate`` and the workstation's results screen.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from abp_tui.analysis.matched_models import MATCHED_MODELS_WARNING
from abp_tui.export.verdict import schema_errors
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.results import ResultsScreen
from tests.conformance.seed_003.abp_runs import CONFORMANCE, DEMO, copy_run, imported
from tests.factories import Cli
from tests.tui_helpers import drive, press, screen_text, settle, until

UNMATCHED = CONFORMANCE / "unmatched-models"


def _unmatched(tmp_path: Path, cli: Cli) -> str:
    return imported(cli, copy_run(UNMATCHED, tmp_path / "unmatched-models"))


def test_unmatched_models_flag_is_kept_on_every_engine(tmp_path: Path, cli: Cli) -> None:
    """The stamp is kept as data, not only as text: every engine carries matchedModels false."""
    study = _unmatched(tmp_path, cli)
    report = json.loads(cli("results", "--study", study, "--json").out)
    match = report["model_match"]
    assert match["matched"] is False and match["stated"] is False
    assert match["models"] == {
        "cf-alpha": "synthetic-conformance/fixture-model-1",
        "cf-beta": "synthetic-conformance/fixture-model-2",
    }


def test_unmatched_models_results_lead_with_the_warning_and_compare_no_engines(
    tmp_path: Path, cli: Cli
) -> None:
    study = _unmatched(tmp_path, cli)
    text = cli("results", "--study", study)
    assert text.code == 0, text.err
    assert text.out.splitlines()[0] == MATCHED_MODELS_WARNING
    assert "Paired comparisons" not in text.out and "Head-to-head" not in text.out
    assert "Efficiency (relative median difference" not in text.out
    assert "only each engine's own figures are shown" in text.out
    # Per-engine figures stay: cf-beta resolved 2 of its 3 trials, and its own medians (its
    # normalised diffs are 900, 901, 902 bytes).
    assert re.search(r"cf-beta\s.*2/3 = 0\.667", text.out)
    assert "Efficiency by engine" in text.out
    assert re.search(r"cf-beta\s+901 \(3, 0\)", text.out)
    document = json.loads(cli("results", "--study", study, "--json").out)
    assert next(iter(document)) == "warnings"
    assert document["warnings"] == [MATCHED_MODELS_WARNING]
    assert document["comparisons"] == []


def test_unmatched_models_abp_verdict_has_an_empty_pairwise(tmp_path: Path, cli: Cli) -> None:
    study = _unmatched(tmp_path, cli)
    out = tmp_path / "verdict.json"
    done = cli("export", "abp-verdict", "--study", study, "--out", out)
    assert done.code == 0, done.err
    verdict: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert verdict["pairwise"] == []
    assert verdict["warning"] == MATCHED_MODELS_WARNING
    assert verdict["matchedModels"] is False
    assert verdict["notes"].startswith(MATCHED_MODELS_WARNING)
    assert [e["engine"] for e in verdict["perEngine"]] == ["cf-alpha", "cf-beta"]
    assert schema_errors(verdict) == []


def test_matched_models_abp_verdict_keeps_its_pairwise(tmp_path: Path, cli: Cli) -> None:
    """The control: the demo's engines share one model, so the pair is reported."""
    study = imported(cli, copy_run(DEMO, tmp_path / "abp-demo"))
    out = tmp_path / "verdict.json"
    assert cli("export", "abp-verdict", "--study", study, "--out", out).code == 0
    verdict = json.loads(out.read_text(encoding="utf-8"))
    assert "warning" not in verdict and verdict["matchedModels"] is True
    assert [(p["a"], p["b"]) for p in verdict["pairwise"]] == [
        ("demo-engine-alpha", "demo-engine-beta")
    ]


def test_unmatched_models_report_leads_with_the_warning(tmp_path: Path, cli: Cli) -> None:
    study = _unmatched(tmp_path, cli)
    bundle = tmp_path / "bundle"
    done = cli("export", "bundle", "--study", study, "--out", bundle)
    assert done.code == 0, done.err
    page = (bundle / "report.html").read_text(encoding="utf-8")
    body = page[page.index("<body>") :]
    assert body.index(MATCHED_MODELS_WARNING) < body.index("<h1>")
    assert 'id="comparisons-withheld"' in body
    assert 'id="comparisons-table"' not in body and 'id="head-to-head"' not in body
    summary = json.loads((bundle / "results" / "summary.json").read_text(encoding="utf-8"))
    assert summary["warnings"] == [MATCHED_MODELS_WARNING] and summary["comparisons"] == []
    status = json.loads((bundle / "status.json").read_text(encoding="utf-8"))
    (check,) = [c for c in status["checks"] if c["requirement"].startswith("engines on the same")]
    assert check["detail"].startswith(MATCHED_MODELS_WARNING)
    assert "per-engine figures only" in check["detail"]
    assert cli("verify", bundle).code == 0


def test_unmatched_models_gate_leads_with_the_warning(tmp_path: Path, cli: Cli) -> None:
    """Each engine is still gated against its own baseline (no two engines are compared)."""
    folder = copy_run(UNMATCHED, tmp_path / "unmatched-models")
    baseline = tmp_path / "abp-baseline.json"
    assert cli("baseline", "save", "--db", cli.db_path, folder, "--out", baseline).code == 0
    gated = cli("gate", folder, "--baseline", baseline)
    assert gated.code == 0, gated.out
    assert gated.out.splitlines()[0] == MATCHED_MODELS_WARNING
    report = json.loads(cli("gate", folder, "--baseline", baseline, "--json").out)
    assert next(iter(report)) == "warnings" and report["warnings"] == [MATCHED_MODELS_WARNING]


def test_stated_match_with_different_models_is_unmatched(tmp_path: Path, cli: Cli) -> None:
    """A configuration saying matchedModels true while its engines name different models still
    cannot back an engine-vs-engine claim."""
    folder = copy_run(UNMATCHED, tmp_path / "says-matched", matchedModels=True)
    study = imported(cli, folder)
    report = json.loads(cli("results", "--study", study, "--json").out)
    assert report["comparisons"] == []
    assert report["model_match"]["stated"] is True and report["model_match"]["matched"] is False
    assert "did not all run on the same model" in report["warnings"][0]
    assert "cf-beta: synthetic-conformance/fixture-model-2" in report["warnings"][0]


async def test_unmatched_models_results_screen_leads_with_the_warning(
    tmp_path: Path, cli: Cli
) -> None:
    _unmatched(tmp_path, cli)
    app = make_app(cli.db_path, reviewer="carol")
    async with drive(app, (160, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results screen")
        screen: Any = app.screen
        await until(pilot, lambda: screen.shown is not None, "the results")
        await settle(pilot)
        heading = screen.shown.heading.plain
        assert heading.startswith(MATCHED_MODELS_WARNING)
        text = screen_text(pilot)
        assert "Paired comparisons" not in text and "Head-to-head" not in text
        assert "only each engine's own figures are shown" in text
