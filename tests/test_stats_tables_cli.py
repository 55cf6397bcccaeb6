"""``abp-tui stats ppi``, ``abp-tui stats cs`` and ``abp-tui plan``: the figures of the core
functions (themselves checked against ppi-python, confseq and closed forms), and one-line
errors naming the file, the line and the column."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ppi_py import ppi_mean_ci

from abp_tui.cli import main
from abp_tui.stats.planning import kappa_n
from abp_tui.stats.sequences import betting_sequence


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def _units_csv(path: Path) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    truth = (rng.random(400) < 0.55).astype(float)
    judge = np.where(rng.random(400) < 0.9, truth, 1 - truth)
    labelled = np.zeros(400, dtype=bool)
    labelled[rng.choice(400, 70, replace=False)] = True
    lines = ["unit,prediction,label,notes"]
    for i in range(400):
        label = f"{truth[i]:g}" if labelled[i] else ""
        lines.append(f"run-{i},{judge[i]:g},{label},x")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    y = np.where(labelled, truth, np.nan)
    return judge, y


@pytest.mark.parametrize(("method", "lam"), [("ppi", 1), ("ppi++", None)])
def test_stats_ppi_prints_ppi_pythons_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], method: str, lam: float | None
) -> None:
    f, y = _units_csv(tmp_path / "units.csv")
    doc = run_json(
        capsys, "stats", "ppi", "--table", str(tmp_path / "units.csv"), "--method", method
    )
    known = ~np.isnan(y)
    low, high = ppi_mean_ci(y[known], f[known], f[~known], alpha=0.05, lam=lam)
    assert doc["low"] == pytest.approx(float(low[0]), abs=1e-12)
    assert doc["high"] == pytest.approx(float(high[0]), abs=1e-12)
    assert doc["n_labelled"] == 70 and doc["n_units"] == 400 and doc["method"] == method
    code, out, _ = run(capsys, "stats", "ppi", "--table", str(tmp_path / "units.csv"))
    assert code == 0
    assert "effective number of labels" in out and "lambda" in out and "convention:" in out


def test_stats_ppi_with_probabilities_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "active.csv"
    table.write_text(
        "unit,prediction,label,probability\nu1,0.8,1,0.5\nu2,0.2,,\nu3,0.6,0,0.25\nu4,1,,0.1\n",
        encoding="utf-8",
    )
    doc = run_json(capsys, "stats", "ppi", "--table", str(table), "--method", "ppi")
    # mean(f) + mean((y - f) xi / pi) = 0.65 + ((0.2 / 0.5) + (-0.6 / 0.25)) / 4 = 0.15.
    assert doc["point"] == pytest.approx(0.15, abs=1e-12)
    assert doc["design"] == "known probabilities" and doc["lam"] == 1.0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("unit,prediction\nu1,0.5\n", ":1: missing column 'label'"),
        ("unit,prediction,label\nu1,abc,1\n", ":2: column prediction: 'abc' is not a number"),
        ("unit,prediction,label\nu1,0.5,1.2\n", ":2: column label: '1.2' is out of range"),
        ("unit,prediction,label\nu1,0.5,\nu2,0.4,\n", ": column label: blank on every unit"),
        ("unit,prediction,label\nu1,0.5,1\nu1,0.4,0\n", ":3: column unit: 'u1' is listed twice"),
        (
            "unit,prediction,label,probability\nu1,0.5,1,0\nu2,0.4,,\n",
            ":2: column probability: 0 on a unit people judged",
        ),
        (
            "unit,prediction,label,probability\nu1,0.5,1,1.5\n",
            ":2: column probability: '1.5' is out of range",
        ),
        (
            "unit,prediction,label,probability\nu1,0.5,1,0.5\nu2,0.4,0,\n",
            ":3: column probability: blank on a unit people judged",
        ),
        ("unit,prediction,label\nu1,nan,1\n", ":2: column prediction: 'nan' is not a finite"),
        ("unit,prediction,label\nu1,0.5\n", ":2: expected 3 fields"),
        ("", ":1: empty file"),
    ],
)
def test_a_bad_units_table_is_one_line_naming_file_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, message: str
) -> None:
    table = tmp_path / "bad.csv"
    table.write_text(body, encoding="utf-8")
    code, out, err = run(capsys, "stats", "ppi", "--table", str(table))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and f"{table}{message}" in err, err


def test_stats_cs_prints_the_end_of_the_sequence_and_the_first_exclusion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = np.array([1.0, 1.0, 0.5, 1.0, 0.0, 1.0, 1.0, 1.0, 0.5, 1.0] * 6)
    table = tmp_path / "stream.csv"
    table.write_text("pair,value\n" + "".join(f"p{i},{v:g}\n" for i, v in enumerate(values)))
    doc = run_json(capsys, "stats", "cs", "--table", str(table))
    seq = betting_sequence(values, 0.95)
    betting = doc["sequences"]["betting"]
    assert betting["low"] == seq.low[-1] and betting["high"] == seq.high[-1]
    stop = betting["first_excluded_at"]
    assert stop is not None and seq.low[stop - 1] > 0.5 >= seq.low[stop - 2]
    assert doc["n"] == 60 and "normal_mixture" in doc["sequences"]
    code, out, _ = run(capsys, "stats", "cs", "--table", str(table))
    assert code == 0 and f"first excluded 0.5 at t = {stop}" in out


@pytest.mark.parametrize(
    ("body", "args", "message"),
    [
        ("value\n0.5\n2\n", (), "stream.csv:3: column value: '2' is out of range"),
        ("a,b\n1,0\n", (), "stream.csv:1: missing column 'value'"),
        ("value\n0.5\n", ("--null", "1"), "--null 1.0 is not a mean to test"),
        ("value\n0.5\n", ("--confidence", "95"), "--confidence 95.0 is not a confidence"),
    ],
)
def test_a_bad_stream_is_refused_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    body: str,
    args: tuple[str, ...],
    message: str,
) -> None:
    table = tmp_path / "stream.csv"
    table.write_text(body, encoding="utf-8")
    code, _, err = run(capsys, "stats", "cs", "--table", str(table), *args)
    assert code == 1 and err.count("\n") == 1 and message in err, err


def test_plan_reads_the_judge_report_and_withholds_rates_while_blind(
    reference: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "plan.db")
    folder = str(reference / "llmbar-manual")
    assert run(capsys, "--db", db, "import", folder, "--study", "llmbar")[0] == 0
    blind_judges = run_json(capsys, "--db", db, "judges", "--resamples", "0")
    blind = run_json(capsys, "--db", db, "plan", "--width", "0.1")
    assert blind["withheld"] and {f["kind"] for f in blind["figures"]} == {"kappa"}
    # The plan reads the counts the blind report withholds (they count people's picks by side).
    orders = [o for j in blind_judges["judges"] for o in j.get("orders", ())]
    assert orders and all(o["kappa"]["confusion"] is None for o in orders)
    assert run(capsys, "--db", db, "unblind", "--study", "llmbar", "--yes")[0] == 0
    judges = run_json(capsys, "--db", db, "judges", "--resamples", "0")
    # Each kappa's count is the planning formula on the judge report's confusion matrix.
    matrices = {
        (j["judge"]["id"], o["order"]): o["kappa"]["confusion"]["counts"]
        for j in judges["judges"]
        for o in j.get("orders", ())
    }
    for figure in blind["figures"]:
        order = figure["figure"].rsplit("(", 1)[1].rstrip(")")
        counts = np.asarray(matrices[(figure["judge"], order)], dtype=float)
        assert figure["without_judge"] == kappa_n(counts, 0.1)
        assert figure["more_without_judge"] == max(0, figure["without_judge"] - figure["n_now"])
    seen = run_json(capsys, "--db", db, "plan", "--width", "0.1")
    rates = [f for f in seen["figures"] if f["kind"] == "win rate"]
    assert rates and not seen["withheld"]
    for rate in rates:
        # People alone: z^2 s^2 / w^2, s^2 = p (1 - p) for LLMBar's 0/1 preferences (no ties).
        p = rate["point"]
        assert rate["without_judge"] == math.ceil(1.959963984540054**2 * p * (1 - p) / 0.01)
        # Every unit the judge judged has a label here: PPI has no unlabelled unit to add.
        assert rate["with_judge"] is None and "nothing for the judge to add" in rate["note"]


def test_plan_refuses_a_width_out_of_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "--db", str(tmp_path / "x.db"), "plan", "--width", "0")
    assert code == 1 and "--width 0.0 is not a half-width" in err
