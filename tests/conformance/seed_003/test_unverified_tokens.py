"""Seed 003 section 9, "an envelope that lies about tokens": an ABP trace's run.end totals are
checked against its model.call events (a trace that disagrees is refused). A trace with run.end
totals and no model.call event cannot be checked: it is imported with the totals as stated, and
every output marks those totals unverified, naming the run, as an Arena envelope's are (the
fixture ``fixtures/abp-conformance/unverified-tokens/``).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import sqlite_utils

from tests.conformance.seed_003.abp_runs import CONFORMANCE, copy_run, imported, traces
from tests.factories import Cli

BARE_RUN = "cf-round-half-even/cf-beta/trial1"
"""The fixture's one run whose trace has run.end totals and no model.call event."""
NOTE = (
    "Token totals of 1 ABP run(s) are their trace's own run.end totals and unverified: the "
    f"trace has no model.call events to check them against ({BARE_RUN})."
)


def test_the_fixture_has_one_trace_with_totals_and_no_model_call() -> None:
    bare = [
        events
        for events in traces(CONFORMANCE / "unverified-tokens")
        if "tokens" in events[-1] and not any(e["kind"] == "model.call" for e in events)
    ]
    assert [(e[0]["task"], e[0]["engine"]) for e in bare] == [
        ("cf-round-half-even", "cf-beta/1.0.0")
    ]


def test_unchecked_abp_totals_are_marked_unverified_in_every_output(
    tmp_path: Path, cli: Cli
) -> None:
    study = imported(cli, copy_run(CONFORMANCE / "unverified-tokens", tmp_path / "unverified"))
    db = sqlite_utils.Database(cli.db_path)
    try:
        marked = {
            row[0]: json.loads(row[1])["metadata"].get("tokens_unverified")
            for row in db.execute("SELECT id, document FROM runs WHERE current = 1")
        }
    finally:
        db.close()
    assert [run for run, mark in marked.items() if mark] == [BARE_RUN]

    assert f"Note: {NOTE}" in cli("results", "--study", study).out
    report = json.loads(cli("results", "--study", study, "--json").out)
    assert report["model_match"]["tokens_note"] == NOTE
    beta = next(c for c in report["conditions"] if c["condition"] == "cf-beta")
    assert (beta["pass_rate"]["x"], beta["pass_rate"]["n"]) == (3, 3)  # kept, as stated

    out = tmp_path / "verdict.json"
    assert cli("export", "abp-verdict", "--study", study, "--out", out).code == 0
    verdict = json.loads(out.read_text(encoding="utf-8"))
    assert NOTE in verdict["notes"]
    # The stated totals are what the median is over: 1300 + 400 + 6500 + 500 on every run.
    beta_figures = next(e for e in verdict["perEngine"] if e["engine"] == "cf-beta")
    assert beta_figures["medianTokensTotal"] == 8700

    bundle = tmp_path / "bundle"
    assert cli("export", "bundle", "--study", study, "--out", bundle).code == 0
    summary = json.loads((bundle / "results" / "summary.json").read_text(encoding="utf-8"))
    assert summary["model_match"]["tokens_note"] == NOTE and NOTE in summary["notes"]
    page = (bundle / "report.html").read_text(encoding="utf-8")
    assert NOTE.replace("'", "&#x27;") in page
    assert cli("verify", bundle).code == 0


def test_checked_abp_totals_are_not_marked(tmp_path: Path, cli: Cli) -> None:
    """The control: where every trace's totals were checked against its calls, no note."""
    study = imported(cli, copy_run(CONFORMANCE / "engine-error", tmp_path / "engine-error"))
    report = json.loads(cli("results", "--study", study, "--json").out)
    assert report["model_match"]["tokens_note"] is None


def test_make_fixtures_writes_the_shipped_fixture_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location("make_fixtures", CONFORMANCE / "make_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    module.unverified_tokens()
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    shipped = CONFORMANCE / "unverified-tokens"
    assert written == sorted(p.relative_to(CONFORMANCE) for p in shipped.rglob("*") if p.is_file())
    for path in written:
        assert (tmp_path / path).read_bytes() == (CONFORMANCE / path).read_bytes(), path
