"""``abp-tui stats ...``: statistics from counts, checked against published values.

Sources:
- Newcombe R. G. (1998), Statistics in Medicine 17:857-872, the table of the paper's examples:
  81/263 by the score method (method 3) [0.2553, 0.3662]; with continuity correction (method 4)
  1/29 -> [0.0018, 0.1963].
- Fagerland, Lydersen & Laake (2013), BMC Medical Research Methodology 13:91: b = 1, c = 7 gives
  exact P = 0.070, mid-p P = 0.039, asymptotic P = 0.034, with continuity correction P = 0.077.
- Exact binomial test of 7 in 20 at p = 0.5: 2 P(X <= 7) = 2 * 137980 / 2^20 = 0.2632.
- Cohen's kappa: Fleiss, Levin & Paik (2003), Statistical Methods for Rates and Proportions, 3rd
  ed., section 18.1, two diagnosticians classifying 100 patients into three categories:
  p_o = 0.89, p_e = 0.66, kappa = 0.68; the worked example of the "Cohen's kappa" entry of
  Wikipedia (50 applications, 20 yes-yes, 5 yes-no, 10 no-yes, 15 no-no): p_o = 0.7, p_e = 0.5,
  kappa = 0.4.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abp_tui.cli import main
from abp_tui.stats.agreement import AgreementError, compute_variable, pair_from_confusion

FLEISS_TABLE = [[75, 1, 4], [5, 4, 1], [0, 0, 10]]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    document = json.loads(out)
    assert isinstance(document, dict)
    return document


# -- wilson ----------------------------------------------------------------------------------------


def test_wilson_prints_newcombes_interval_and_names_the_quantile(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "stats", "wilson", "81", "263")
    assert code == 0
    assert "81/263" in out
    low, high = (float(v) for v in out.split("[", 1)[1].split("]", 1)[0].split(", "))
    assert round(low, 4) == 0.2553 and round(high, 4) == 0.3662
    assert "Wilson score, 0.95 confidence, z = 1.959964" in out
    assert "method 3" in out


def test_wilson_json_with_continuity_correction(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "stats", "wilson", "1", "29", "--continuity")
    assert doc["x"] == 1 and doc["n"] == 29 and doc["continuity"] is True
    assert round(float(doc["low"]), 4) == 0.0018  # type: ignore[arg-type]
    assert round(float(doc["high"]), 4) == 0.1963  # type: ignore[arg-type]
    assert str(doc["convention"]).startswith("continuity-corrected Wilson score, 0.95")


def test_wilson_other_confidence_uses_its_exact_quantile(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json(capsys, "stats", "wilson", "5", "10", "--confidence", "0.99")
    assert round(float(doc["z"]), 4) == 2.5758  # type: ignore[arg-type]
    assert doc["confidence"] == 0.99
    assert "0.99 confidence, z = 2.575829" in str(doc["convention"])


def test_wilson_with_no_trials_is_undefined_not_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "stats", "wilson", "0", "0")
    assert code == 0
    assert "undefined (no observations in the denominator (n = 0))" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["5", "3"], "successes (5) cannot exceed n (3)"),
        (["-1", "3"], "successes must be >= 0, got -1"),
        (["2", "-4"], "n must be >= 0, got -4"),
        (["1", "2", "--confidence", "1.5"], "--confidence 1.5 is not a confidence level"),
        (["1", "2", "--confidence", "0"], "strictly between 0 and 1"),
    ],
)
def test_wilson_bad_counts_are_one_clear_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "stats", "wilson", *argv)
    assert code == 1
    assert out == ""
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1


# -- mcnemar ---------------------------------------------------------------------------------------


def test_mcnemar_reports_all_four_methods_with_their_conventions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json(capsys, "stats", "mcnemar", "1", "7")
    assert (doc["b"], doc["c"], doc["n"]) == (1, 7, 8)
    tests = {t["method"]: t for t in doc["tests"]}  # type: ignore[attr-defined]
    published = {"exact": 0.070, "mid-p": 0.039, "asymptotic": 0.034, "asymptotic-cc": 0.077}
    assert list(tests) == list(published)
    for method, p_value in published.items():
        assert tests[method]["p_value"] == pytest.approx(p_value, abs=5e-4)
        assert tests[method]["convention"]
    assert tests["asymptotic"]["statistic"] == pytest.approx(4.5)
    assert tests["asymptotic-cc"]["statistic"] == pytest.approx(3.125)
    assert tests["exact"]["statistic"] is None

    code, out, _ = run(capsys, "stats", "mcnemar", "1", "7")
    assert code == 0
    assert "mid-p" in out and "continuity correction" in out and "8 discordant pairs" in out


def test_mcnemar_without_discordant_pairs_says_undefined_and_the_p_1_convention(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "stats", "mcnemar", "0", "0")
    assert code == 0
    assert "undefined: no discordant pairs" in out
    assert "p = 1 by convention" in out
    doc = run_json(capsys, "stats", "mcnemar", "0", "0")
    assert all(t["p_value"] is None for t in doc["tests"])  # type: ignore[attr-defined]
    assert "p = 1" in str(doc["note"])


def test_mcnemar_negative_count_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "stats", "mcnemar", "3", "-2")
    assert code == 1
    assert "c must be >= 0, got -2" in err


# -- binomial --------------------------------------------------------------------------------------


def test_binomial_matches_the_textbook_value(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "stats", "binomial", "7", "20")
    assert doc["p_value"] == pytest.approx(2 * 137980 / 2**20, rel=1e-9)
    assert doc["p0"] == 0.5
    assert "exact two-sided" in str(doc["convention"])
    code, out, _ = run(capsys, "stats", "binomial", "7", "20")
    assert code == 0 and "p = 0.263176" in out


def test_binomial_against_another_probability(capsys: pytest.CaptureFixture[str]) -> None:
    # One success in 10 at p0 = 0.9 is far in the lower tail: P(X <= 1) = 9.1e-9 + 1e-10, and no
    # upper outcome is as unlikely, so the two-sided p equals that tail.
    doc = run_json(capsys, "stats", "binomial", "1", "10", "--p", "0.9")
    assert doc["p_value"] == pytest.approx(10 * 0.1**9 * 0.9 + 0.1**10, rel=1e-9)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["12", "10"], "successes (12) cannot exceed n (10)"),
        (["3", "10", "--p", "1"], "--p 1.0 is not a probability"),
    ],
)
def test_binomial_bad_input_is_refused(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, "stats", "binomial", *argv)
    assert code == 1
    assert message in err


# -- kappa -----------------------------------------------------------------------------------------


def test_kappa_from_fleiss_table_with_a_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "diagnoses.csv"
    rows = ["psychological,neurological,organic", *(",".join(map(str, r)) for r in FLEISS_TABLE)]
    table.write_text("\n".join(rows) + "\n", encoding="utf-8")
    doc = run_json(capsys, "stats", "kappa", str(table))
    assert doc["categories"] == ["psychological", "neurological", "organic"]
    assert doc["n_items"] == 100
    kappa = doc["cohen_kappa"]
    assert isinstance(kappa, dict)
    assert kappa["observed_agreement"] == pytest.approx(0.89)
    assert kappa["chance_agreement"] == pytest.approx(0.66)
    assert round(kappa["value"], 2) == 0.68
    assert kappa["source"].startswith("Cohen (1960)")
    assert "Fleiss, Cohen and Everitt 1969" in str(doc["note"])

    code, out, _ = run(capsys, "stats", "kappa", str(table))
    assert code == 0
    assert "kappa = 0.676471" in out and "p_o = 0.890000" in out and "p_e = 0.660000" in out
    # The standard error is computed now (tests/test_agreement_se.py checks its values).
    assert "SE = " in out and "95% interval [" in out and "test of kappa = 0" in out


@pytest.mark.parametrize(
    "text",
    [
        "20,5\n10,15\n",
        "yes,no\n20,5\n10,15\n",
        ",yes,no\nyes,20,5\nno,10,15\n",
        "\ufeffyes,no\r\n20,5\r\n\r\n10,15\r\n",
    ],
    ids=["bare", "header", "row-labels", "bom-crlf-blank-line"],
)
def test_kappa_reads_the_wikipedia_example_in_every_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    table = tmp_path / "t.csv"
    table.write_bytes(text.encode("utf-8"))
    doc = run_json(capsys, "stats", "kappa", str(table))
    kappa = doc["cohen_kappa"]
    assert isinstance(kappa, dict)
    assert kappa["value"] == pytest.approx(0.4)
    assert kappa["observed_agreement"] == pytest.approx(0.7)
    assert kappa["chance_agreement"] == pytest.approx(0.5)
    assert doc["n_items"] == 50


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("20,5,1\n10,15,2\n", "t.csv:1: 3 counts in a table of 2 rows: the table must be square"),
        ("a,b\n20,x\n10,15\n", "t.csv:2: column 2: 'x' is not a count"),
        ("20,-5\n10,15\n", "t.csv:1: column 2: '-5' is not a count (expected a whole number >= 0)"),
        ("20,2.5\n10,15\n", "'2.5' is not a count"),
        ("a,b,c\n20,5\n10,15\n", "t.csv:1: the header names 3 categories for a 2 x 2 table"),
        ("a,a\n20,5\n10,15\n", "the header names 'a' twice"),
        (",a,b\nb,20,5\na,10,15\n", "row label 'b' does not match column 'a'"),
        ("a,b\n", "the file has a header row but no counts"),
        ("", "the file is empty"),
        ("0,0\n0,0\n", "counts no items"),
    ],
)
def test_kappa_bad_tables_are_one_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    table = tmp_path / "t.csv"
    table.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "stats", "kappa", str(table))
    assert code == 1, err
    assert out == ""
    assert message in err and "Traceback" not in err


def test_kappa_of_a_missing_file_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "stats", "kappa", str(tmp_path / "absent.csv"))
    assert code == 1
    assert "absent.csv: cannot read the file" in err


def test_kappa_from_a_confusion_matrix_is_the_agreement_commands_figure() -> None:
    # The same judgments given as a long table give the same Cohen's kappa: one computation.
    categories = ["psychological", "neurological", "organic"]
    records = []
    item = 0
    for k, row in enumerate(FLEISS_TABLE):
        for col, count in enumerate(row):
            for _ in range(count):
                records += [
                    (f"i{item}", "ann", categories[k]),
                    (f"i{item}", "bob", categories[col]),
                ]
                item += 1
    long = compute_variable(records, "nominal", categories, resamples=0).pairs[0]
    pair = pair_from_confusion(FLEISS_TABLE, categories)
    assert pair.cohen_kappa.value == long.cohen_kappa.value
    assert pair.matrix().counts == tuple(map(tuple, FLEISS_TABLE))


def test_kappa_of_a_single_item_is_undefined_with_its_reason() -> None:
    pair = pair_from_confusion([[1, 0], [0, 0]], ["a", "b"])
    assert not pair.cohen_kappa.defined
    assert "fewer than 2 items" in str(pair.cohen_kappa.undefined_reason)


@pytest.mark.parametrize(
    ("counts", "categories", "message"),
    [
        ([[1, 2]], ["a", "b"], "must be 2 x 2"),
        ([[1, -2], [3, 4]], ["a", "b"], "row 1, column 2 must be a non-negative integer"),
        ([[1]], [], "empty"),
    ],
)
def test_pair_from_confusion_refuses_bad_matrices(
    counts: list[list[int]], categories: list[str], message: str
) -> None:
    with pytest.raises(AgreementError, match=message):
        pair_from_confusion(counts, categories)


def test_numeric_category_labels_are_named_with_row_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "scores.csv"
    table.write_text(",0,1,2\n0,5,1,0\n1,1,6,1\n2,0,1,5\n", encoding="utf-8")
    doc = run_json(capsys, "stats", "kappa", str(table))
    assert doc["categories"] == ["0", "1", "2"]
    assert doc["n_items"] == 20
