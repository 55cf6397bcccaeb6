"""Results at a chosen confidence level: every Wilson and bootstrap interval of ``abp-tui results``,
its CSV files, the report and a bundle (whose manifest records the level, so that ``verify``
re-derives at it), each naming the level; a level out of (0, 1) is refused with exit 1.

Expected Wilson bounds come from the score-interval formula of Newcombe (1998), "Two-sided
confidence intervals for the single proportion: comparison of seven methods", Statistics in
Medicine 17:857-872 (method 3, the formula also given by Brown, Cai & DasGupta 2001, Statistical
Science 16:101-133, eq. 4), written out below and evaluated for the paper's tabulated examples
81/263 and 15/148 with the normal quantiles as standard tables print them: z = 1.644854 for 90%,
2.575829 for 99% (1.959964 for 95%, where the paper's own table gives 0.2553-0.3662 for 81/263).
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
import sqlite_utils

from abp_tui.analysis.results.tallies import ConfidenceError, confidence_level, results
from abp_tui.analysis.tables import csv_rows, results_tables
from abp_tui.models import DesignRecords, RunFacts, StudyDesign
from abp_tui.models.builtin_rubrics import BUSINESS_V1
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import compute_results
from abp_tui.store import connect
from tests.factories import Cli, abp_judged

TABLE_Z = {0.90: 1.644854, 0.95: 1.959964, 0.99: 2.575829}
"""Two-sided points of the standard normal, as printed in statistical tables (six decimals)."""


def newcombe_wilson(x: int, n: int, z: float) -> tuple[float, float]:
    """Newcombe (1998) method 3: (2np + z^2 -/+ z sqrt(z^2 + 4np(1 - p))) / (2(n + z^2))."""
    p = x / n
    root = z * math.sqrt(z * z + 4 * n * p * (1 - p))
    return (
        (2 * n * p + z * z - root) / (2 * (n + z * z)),
        (2 * n * p + z * z + root) / (2 * (n + z * z)),
    )


def _runs(condition: str, passed: int, n: int) -> list[RunFacts]:
    return [
        RunFacts(
            id=f"{condition}/{i}",
            task=f"t{i}",
            condition=condition,
            trial=1,
            origin_status=None,
            automated_outcome="passed" if i < passed else "failed",
            excluded_reason=None,
            total_tokens=1000 + 37 * i if condition == "A" else 900 + 41 * i,
            wall_clock_ms=None,
            cost_usd=None,
            diff_bytes=None,
        )
        for i in range(n)
    ]


def _records(runs: list[RunFacts]) -> DesignRecords:
    return DesignRecords(
        design=StudyDesign(study="s", name="m", seed=7, contrasts=[("A", "B")]),
        rubric=BUSINESS_V1,
        seed=7,
        items=(),
        judgments=(),
        adjudications=(),
        runs=tuple(runs),
    )


# -- the level of every interval -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("confidence", "low", "high"),
    [
        # Newcombe's own table (95%), then the formula at 90% and 99%, to four decimals.
        pytest.param(0.95, 0.2553, 0.3662, id="95%"),
        pytest.param(0.90, 0.2633, 0.3566, id="90%"),
        pytest.param(0.99, 0.2401, 0.3853, id="99%"),
    ],
)
def test_pass_rates_at_a_chosen_level_match_the_published_interval(
    confidence: float, low: float, high: float
) -> None:
    # Condition A passes 81 of 263 runs (Newcombe's example 1); B 15 of 148 (example 2).
    found = results(_records(_runs("A", 81, 263) + _runs("B", 15, 148)), confidence=confidence)
    a, b = found.conditions
    assert found.confidence == confidence
    assert (a.pass_rate.x, a.pass_rate.n) == (81, 263)
    assert a.pass_rate.confidence == confidence
    assert a.pass_rate.low == pytest.approx(low, abs=5e-5)
    assert a.pass_rate.high == pytest.approx(high, abs=5e-5)
    for group, (x, n) in ((a, (81, 263)), (b, (15, 148))):
        expected = newcombe_wilson(x, n, TABLE_Z[confidence])
        # Six-decimal table quantiles move the bounds by less than 1e-6.
        assert (group.pass_rate.low, group.pass_rate.high) == pytest.approx(expected, abs=2e-6)


def test_every_interval_of_the_results_takes_the_level() -> None:
    records = _records(_runs("A", 81, 263) + _runs("B", 15, 148))
    at_95, at_90 = results(records), results(records, confidence=0.90)
    (e95,), (e90,) = at_95.comparisons[0].efficiency, at_90.comparisons[0].efficiency
    assert (e95.difference.confidence, e90.difference.confidence) == (0.95, 0.90)
    # The same seeded resamples, cut at the 5th and 95th instead of the 2.5th and 97.5th
    # percentiles: the 90% interval lies inside the 95% one around the same point.
    assert e90.difference.point == e95.difference.point
    assert e90.difference.low is not None and e95.difference.low is not None
    assert e90.difference.high is not None and e95.difference.high is not None
    assert e90.difference.point is not None
    assert e95.difference.low < e90.difference.low < e90.difference.point < e90.difference.high
    assert e90.difference.high < e95.difference.high
    # Preference and position-bias shares (no judgments here) carry the level too.
    assert at_90.comparisons[0].preferences.a_share.confidence == 0.90
    assert at_90.position_bias.left_share.confidence == 0.90


def test_the_tables_name_the_level_in_headers_and_csv_fields() -> None:
    found = results(_records(_runs("A", 81, 263) + _runs("B", 15, 148)), confidence=0.9)
    tables = results_tables(found)
    headers = {t.id: [c.header for c in t.shown] for t in tables.in_order}
    assert "Pass rate x/n [Wilson 90%]" in headers["conditions"]
    assert "a's share of decisive [Wilson 90%]" in headers["comparisons"]
    assert "Relative difference [90% bootstrap]" in headers["efficiency"]
    assert "Left share [Wilson 90%]" in headers["position-bias"]
    assert not any("95%" in h for hs in headers.values() for h in hs)
    header, rows = csv_rows(tables.conditions)
    a = dict(zip(header, rows[0], strict=True))
    assert "wilson95_low" not in header
    assert (a["wilson90_low"], a["wilson90_high"]) == pytest.approx(
        newcombe_wilson(81, 263, TABLE_Z[0.90]), abs=2e-6
    )
    header, rows = csv_rows(tables.efficiency)
    assert dict(zip(header, rows[0], strict=True))["confidence"] == 0.9
    header, rows = csv_rows(tables.comparisons)
    assert dict(zip(header, rows[0], strict=True))["pref_a_share_confidence"] == 0.9
    assert "wilson90_low" in csv_rows(tables.position_bias)[0]


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        ("1.5", ""),
        ("0", ""),
        ("1", ""),
        ("-0.9", ""),
        ("nan", ""),
        ("inf", ""),
        ("ninety", ""),
        ("95", "0.95"),
    ],
)
def test_a_level_out_of_range_is_refused_with_what_was_expected(value: str, hint: str) -> None:
    with pytest.raises(ConfidenceError) as caught:
        confidence_level(value, "--confidence")
    message = str(caught.value)
    assert message.startswith(f"--confidence {value!r}: expected a number strictly between 0 and 1")
    assert hint in message
    with pytest.raises(ConfidenceError):
        results(_records(_runs("A", 1, 2)), confidence=float("nan"))


def test_a_level_is_read_as_given() -> None:
    assert confidence_level("0.9") == 0.9
    assert confidence_level(0.975) == 0.975


# -- the command line and the bundle ---------------------------------------------------------------
@pytest.fixture
def judged_cli(cli: Cli) -> Cli:
    """The ABP demo, unblinded and partly judged, in the CLI's database."""
    db = connect(cli.db_path)
    abp_judged(db)
    db.close()
    return cli


def test_results_confidence_sets_every_interval_and_names_it(judged_cli: Cli) -> None:
    done = judged_cli("results", "--study", "abp-demo", "--confidence", "0.9", "--json")
    assert done.code == 0, done.err
    doc = json.loads(done.out)
    assert doc["confidence"] == 0.9
    for group in doc["conditions"] + doc["by_task"]:
        rate = group["pass_rate"]
        assert rate["confidence"] == 0.9
        if rate["n"]:
            expected = newcombe_wilson(rate["x"], rate["n"], TABLE_Z[0.90])
            assert (rate["low"], rate["high"]) == pytest.approx(expected, abs=2e-6)
    assert all(
        e["difference"]["confidence"] == 0.9 for c in doc["comparisons"] for e in c["efficiency"]
    )
    text = judged_cli("results", "--study", "abp-demo", "--confidence", "0.9")
    assert text.code == 0, text.err
    assert "Wilson 90%" in text.out and "90% bootstrap" in text.out
    assert "95%" not in text.out
    default = json.loads(judged_cli("results", "--study", "abp-demo", "--json").out)
    assert default["confidence"] == 0.95


@pytest.mark.parametrize("value", ["1.5", "0", "95", "abc"])
def test_results_refuse_a_bad_level_with_exit_1(judged_cli: Cli, value: str) -> None:
    refused = judged_cli("results", "--study", "abp-demo", "--confidence", value)
    assert refused.code == 1
    assert refused.out == ""
    (line,) = refused.err.splitlines()
    assert "--confidence" in line and "strictly between 0 and 1" in line
    assert "Traceback" not in refused.err


def test_export_refuses_a_bad_level_and_writes_nothing(tmp_path: Path, judged_cli: Cli) -> None:
    out = tmp_path / "exports" / "bundle"
    refused = judged_cli(
        "export", "bundle", "--study", "abp-demo", "--confidence", "2", "--out", out
    )
    assert refused.code == 1 and "--confidence" in refused.err
    assert not out.parent.exists()
    # Only a bundle has a level of its own: abp-verdict/v1 names its intervals 95%.
    other = judged_cli(
        "export", "abp-verdict", "--study", "abp-demo", "--confidence", "0.9", "--out", out
    )
    assert other.code == 1 and "export bundle" in other.err and "95%" in other.err
    assert not out.parent.exists()
    audit = sqlite_utils.Database(judged_cli.db_path).execute(
        "SELECT count(*) FROM audit_log WHERE action LIKE 'export%'"
    )
    assert audit.fetchone() == (0,)


def test_a_bundle_made_at_90_records_its_level_and_verifies(
    tmp_path: Path, judged_cli: Cli
) -> None:
    out = tmp_path / "b90"
    made = judged_cli(
        "export", "bundle", "--study", "abp-demo", "--confidence", "0.9", "--out", out, "--json"
    )
    assert made.code == 0, made.err
    assert json.loads(made.out)["confidence"] == 0.9
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    summary = json.loads((out / "results/summary.json").read_text("utf-8"))
    assert manifest["confidence"] == summary["confidence"] == 0.9

    (first, *_rest) = list(
        csv.DictReader(io.StringIO((out / "results/conditions.csv").read_text()))
    )
    assert "wilson95_low" not in first
    x, n = int(first["pass_x"]), int(first["pass_n"])
    assert (float(first["wilson90_low"]), float(first["wilson90_high"])) == pytest.approx(
        newcombe_wilson(x, n, TABLE_Z[0.90]), abs=2e-6
    )
    page = (out / "report.html").read_text("utf-8")
    assert "90% Wilson interval" in page and "Pass rate x/n [Wilson 90%]" in page
    assert "Relative difference [90% bootstrap]" in page
    chart = (out / "plots/pass_rate_by_condition.svg").read_text("utf-8")
    assert "Wilson 90% interval" in chart and "95%" not in chart

    # abp-verdict/v1 names its interval wilson95: it stays a 95% interval.
    verdict = json.loads((out / "results/abp-verdict.json").read_text("utf-8"))
    rate = next(e for e in verdict["perEngine"] if e["engine"] == first["condition"])
    assert rate["resolveRate"]["wilson95"] == pytest.approx(
        list(newcombe_wilson(x, n, TABLE_Z[0.95])), abs=2e-6
    )

    ok = judged_cli("verify", out)
    assert ok.code == 0, ok.err
    assert judged_cli("verify", tmp_path / "b90.zip").code == 0


def test_verify_rederives_at_the_manifests_level(tmp_path: Path, judged_cli: Cli) -> None:
    db = sqlite_utils.Database(judged_cli.db_path)
    pk = db.execute("SELECT pk FROM designs WHERE study_id = 'abp-demo'").fetchone()[0]
    at_90 = export_bundle(db, pk, tmp_path / "b90", confidence=0.9).folder
    manifest_path = at_90 / "manifest.json"
    manifest = json.loads(manifest_path.read_text("utf-8"))
    # Claiming another level than the one the tables were made at: the tables no longer follow.
    manifest["confidence"] = 0.95
    manifest_path.write_text(json.dumps(manifest), "utf-8")
    refused = judged_cli("verify", at_90)
    assert refused.code == 1
    # The first derived file that differs is named, with the level the file was made at.
    assert "verify failed: " in refused.err and "the records give" in refused.err
    assert "90%" in refused.err
    manifest["confidence"] = 1.5
    manifest_path.write_text(json.dumps(manifest), "utf-8")
    refused = judged_cli("verify", at_90)
    assert refused.code == 1 and "manifest.json" in refused.err and "Traceback" not in refused.err

    # A bundle whose manifest predates the recorded level was made at the default, 0.95.
    at_95 = export_bundle(db, pk, tmp_path / "b95").folder
    manifest = json.loads((at_95 / "manifest.json").read_text("utf-8"))
    assert manifest.pop("confidence") == 0.95
    (at_95 / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    assert judged_cli("verify", at_95).code == 0


def test_compute_results_refuses_a_bad_level_before_reading(db: sqlite_utils.Database) -> None:
    with pytest.raises(ConfidenceError):
        compute_results(db, 12345, confidence=1.0)


def test_the_bootstrap_interval_is_the_percentile_interval_at_the_level() -> None:
    # Arena's percentile bootstrap: the interval is the (1 - c)/2 and (1 + c)/2 quantiles of the
    # resampled relative differences. Redrawn here from the documented stream (all of A's
    # resamples first, then B's, floor(u * n) indices from numpy.random.default_rng(seed)).
    runs = _runs("A", 3, 9) + _runs("B", 4, 11)
    found = results(_records(runs), confidence=0.8)
    (tokens,) = found.comparisons[0].efficiency
    a = np.array([r.total_tokens for r in runs if r.condition == "A"], dtype=float)
    b = np.array([r.total_tokens for r in runs if r.condition == "B"], dtype=float)
    rng = np.random.default_rng(7)
    ma = np.median(a[(rng.random((2000, a.size)) * a.size).astype(int)], axis=1)
    mb = np.median(b[(rng.random((2000, b.size)) * b.size).astype(int)], axis=1)
    low, high = np.quantile((mb - ma) / ma, [0.1, 0.9])
    assert (tokens.difference.low, tokens.difference.high) == pytest.approx((low, high), rel=1e-12)
