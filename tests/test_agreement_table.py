"""Judgments made elsewhere (``abp-tui agreement --table``): the scale as a person types it, values
however they are written, reviewers the table lists without a judgment, and errors that name the
file, the line and the column."""

from __future__ import annotations

import csv
import io
import json
import string
from pathlib import Path

import pytest
import sqlite_utils
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abp_tui.errors import AbpError, InputError
from abp_tui.formats.agreement_scale import parse_number, parse_scale
from abp_tui.formats.agreement_table import agreement_table, read_table
from abp_tui.models import PreferenceChoice
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.table_agreement import table_agreement
from abp_tui.stats.agreement import Category
from tests.factories import Cli, afp_judgment, two_reviewer_design

HEAD = "item,reviewer,variable,value\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the worked example with
# missing values: 4 observers, 12 units, values 1-5. Published: alpha 0.743 (nominal), 0.815
# (ordinal), 0.849 (interval).
K2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def k2011_csv(cell: dict[int, str]) -> str:
    """The example as a long table, each value written as ``cell`` says."""
    lines = [HEAD.rstrip("\n")]
    for reviewer, values in K2011.items():
        for unit, value in enumerate(values, 1):
            lines.append(f"u{unit:02d},{reviewer},rating,{'' if value is None else cell[value]}")
    return "\n".join(lines) + "\n"


# -- the scale as typed ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "level", "expected"),
    [
        ("1,2,tie", "nominal", (1, 2, "tie")),
        ("0,0.5,1", "interval", (0, 0.5, 1)),
        ("0, 1, 2", "ordinal", (0, 1, 2)),
        (" 2 ,1,  0 ", "ordinal", (0, 1, 2)),  # numbers have their own order
        ("1.0,2,3.50", "ratio", (1, 2, 3.5)),
        ("-1, 0, +1", "interval", (-1, 0, 1)),
        ("low,mid,high", "ordinal", ("low", "mid", "high")),
        ("high, mid, low", "ordinal", ("high", "mid", "low")),  # labels: the order given
        ("1,2,tie", "ordinal", ("1", "2", "tie")),  # with a label, all labels, as given
        ("yes, no", "nominal", ("yes", "no")),
        ("very low, low", "ordinal", ("very low", "low")),
    ],
)
def test_scale_as_typed(text: str, level: str, expected: tuple[Category, ...]) -> None:
    scale = parse_scale(text, level)
    assert scale == expected
    assert [type(c) for c in scale] == [type(c) for c in expected]


@pytest.mark.parametrize(
    ("text", "level", "message"),
    [
        ("0,,2", "ordinal", "scale '0,,2': entry 2 is empty; expected categories separated by"),
        ("", "nominal", "scale '': entry 1 is empty"),
        ("0,1,", "ordinal", "scale '0,1,': entry 3 is empty"),
        ("low,high", "interval", "an interval scale needs numbers; 'low' is not a number"),
        ("1,2,tie", "ratio", "a ratio scale needs numbers; 'tie' is not a number"),
        ("1, 1.0", "ordinal", "scale '1, 1.0': the scale repeats the category 1"),
        ("a,b,a", "nominal", "the scale repeats the category 'a'"),
        ("1,2,1.0", "ordinal", "repeats the category 1"),
        ("1,2,tie,2.0", "ordinal", "repeats the category '2.0' (the same value as '2')"),
        ("0,1", "fuzzy", "unknown level 'fuzzy'"),
    ],
)
def test_scale_refused(text: str, level: str, message: str) -> None:
    with pytest.raises(AbpError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_scale(text, level)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 1),
        ("1.0", 1),
        ("1e0", 1),
        ("+2", 2),
        ("-0.5", -0.5),
        ("0.25", 0.25),
        ("12345678901234567890123", 12345678901234567890123),  # exact, not via a float
        ("1_0", None),  # float() reads this as 10
        ("nan", None),
        ("inf", None),
        ("-Infinity", None),
        ("\u0661", None),  # ARABIC-INDIC DIGIT ONE: float() reads it as 1
        ("", None),
        ("tie", None),
    ],
)
def test_parse_number(text: str, expected: int | float | None) -> None:
    value = parse_number(text)
    assert value == expected
    assert type(value) is type(expected)


_spaces = st.text(alphabet=" \t", max_size=2)


@settings(deadline=None)  # the machine's load, not the parser, sets the time of an example
@given(
    st.lists(
        st.one_of(
            st.integers(-(10**6), 10**6),
            st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9),
        ),
        min_size=1,
        max_size=8,
        unique_by=float,
    ),
    st.data(),
)
def test_numeric_scales_read_back_whatever_the_notation(
    numbers: list[int | float], data: st.DataObject
) -> None:
    written = []
    for number in numbers:
        forms = [repr(number), repr(float(number))]
        if float(number).is_integer():
            forms.append(str(int(number)))
        text = data.draw(st.sampled_from(forms))
        written.append(data.draw(_spaces) + text + data.draw(_spaces))
    scale = parse_scale(",".join(written), "interval")
    assert [float(c) for c in scale] == sorted(float(n) for n in numbers)
    # A whole number is the int however it was written, so "1" and "1.0" are one category.
    assert all(isinstance(c, int) for c in scale if float(c).is_integer())


_label = st.text(alphabet=string.ascii_letters + string.digits + " -_'", min_size=1, max_size=8)


@settings(deadline=None)
@given(
    st.lists(
        _label.filter(lambda s: s == s.strip() and parse_number(s) is None),
        min_size=1,
        max_size=6,
        unique=True,
    ),
    _spaces,
)
def test_label_scales_keep_the_order_given(labels: list[str], pad: str) -> None:
    text = ",".join(pad + label + pad for label in labels)
    assert parse_scale(text, "ordinal") == tuple(labels)
    assert parse_scale(text, "nominal") == tuple(labels)


# -- values in the cells ---------------------------------------------------------------------------


def test_one_and_one_point_zero_are_one_value_at_a_numeric_level(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.csv",
        HEAD + "x,a,v,1\nx,b,v,1.0\ny,a,v, 2 \ny,b,v,2e0\nz,a,v,+1\nz,b,v,1.00\n",
    )
    (variable,) = agreement_table(path, level="interval", resamples=0).variables
    assert variable.categories == (1, 2)
    assert variable.percent_agreement.value == 1.0
    (with_scale,) = agreement_table(path, level="ordinal", scale="0, 1, 2", resamples=0).variables
    assert with_scale.categories == (0, 1, 2)
    assert with_scale.percent_agreement.value == 1.0


def test_nominal_labels_without_a_scale_stay_as_written(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", HEAD + "x,a,v,1\nx,b,v,1.0\n")
    (variable,) = agreement_table(path, level="nominal", resamples=0).variables
    assert variable.categories == ("1", "1.0")
    assert variable.pairs[0].matrix().counts == ((0, 1), (0, 0))


def test_mixed_nominal_scale_matches_numbers_in_any_notation(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", HEAD + "x,a,v,1.0\nx,b,v,1\ny,a,v,tie\ny,b,v, tie\n")
    (variable,) = agreement_table(path, level="nominal", scale="1,2,tie", resamples=0).variables
    assert variable.categories == (1, 2, "tie")
    assert variable.pairs[0].matrix().counts == ((1, 0, 0), (0, 0, 0), (0, 0, 1))


def test_ordinal_labels_reproduce_krippendorff_2011(tmp_path: Path) -> None:
    # Labels in the order of the values they stand for: the ordinal alpha depends only on that
    # order, so it is the published 0.815; the nominal alpha the published 0.743.
    names = {1: "very low", 2: "low", 3: "mid", 4: "high", 5: "very high"}
    path = write(tmp_path / "k.csv", k2011_csv(names))
    scale = "very low, low, mid, high, very high"
    (ordinal,) = agreement_table(path, level="ordinal", scale=scale, resamples=0).variables
    assert ordinal.categories == tuple(names.values())
    assert ordinal.krippendorff_alpha.value is not None
    assert round(ordinal.krippendorff_alpha.value, 3) == 0.815
    (nominal,) = agreement_table(path, level="nominal", scale=scale, resamples=0).variables
    assert nominal.krippendorff_alpha.value is not None
    assert round(nominal.krippendorff_alpha.value, 3) == 0.743


def test_decimal_notation_reproduces_krippendorff_2011(tmp_path: Path) -> None:
    path = write(tmp_path / "k.csv", k2011_csv({v: f"{v}.0" for v in range(1, 6)}))
    (interval,) = agreement_table(path, level="interval", scale="1,2,3,4,5", resamples=0).variables
    assert interval.krippendorff_alpha.value is not None
    assert round(interval.krippendorff_alpha.value, 3) == 0.849
    assert interval.n_judgments == 41


@pytest.mark.parametrize(
    ("rows", "kwargs", "expected"),
    [
        (
            "x,a,v,1\nx,b,v,high\n",
            {"level": "ordinal", "scale": "0,1,2"},
            r"t\.csv:3: value: 'high' is not on the declared scale \(0, 1, 2\) of variable 'v'",
        ),
        (
            "x,a,v,low\nx,b,v,1\n",
            {"level": "ordinal", "scale": "low,mid,high"},
            r"t\.csv:3: value: '1' is not on the declared scale \('low', 'mid', 'high'\)",
        ),
        (
            "x,a,v,0.5\nx,b,v,0.25\n",
            {"level": "interval", "scale": "0, 0.5, 1"},
            r"t\.csv:3: value: '0\.25' is not on the declared scale \(0, 0\.5, 1\)",
        ),
        (
            "x,a,v,1\nx,b,v,1_0\n",
            {"level": "interval"},
            r"t\.csv:3: value: expected a number for the interval variable 'v', got '1_0'",
        ),
        (
            "x,a,v,1\nx,b,v,NaN\n",
            {"level": "ratio"},
            r"t\.csv:3: value: expected a finite number, got 'NaN'",
        ),
    ],
)
def test_values_off_the_scale_name_file_line_and_column(
    tmp_path: Path, rows: str, kwargs: dict[str, str], expected: str
) -> None:
    path = write(tmp_path / "t.csv", HEAD + rows)
    with pytest.raises(InputError, match=expected):
        read_table(path, **kwargs)


def test_line_numbers_count_blank_lines_and_quoted_line_breaks(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.csv",
        HEAD + 'x,a,v,1\n\n"two\nlines",a,v,2\n   \ny,a,v,7\n',
    )
    with pytest.raises(InputError, match=r"t\.csv:7: value: '7' is not on the declared scale"):
        read_table(path, level="ordinal", scale="0,1,2")
    short = write(tmp_path / "short.csv", HEAD + 'x,a,v,1\n\n"two\nlines",a,v\n')
    with pytest.raises(InputError, match=r"short\.csv:5: expected 4 fields .* found 3"):
        read_table(short, level="nominal")
    twice = write(tmp_path / "twice.csv", HEAD + "x,a,v,1\n\ny,a,v,1\nx , a,v,\n")
    with pytest.raises(
        InputError,
        match=r"twice\.csv:5: reviewer 'a' already judged item 'x' for variable 'v' on line 2",
    ):
        read_table(twice, level="nominal")


@pytest.mark.parametrize("blank_first", [False, True])
def test_line_numbers_past_the_first_chunk(tmp_path: Path, blank_first: bool) -> None:
    # Rows are parsed a few thousand at a time; the line of a late row is still exact.
    lines = [f"i{n},a,v,1" for n in range(9000)]
    if blank_first:
        lines.insert(10, "")  # a blank line 12, in the first chunk
    lines.insert(6000, "i6000b,,v,1")  # the header is line 1, so this row is line 6002
    path = write(tmp_path / "t.csv", HEAD + "\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"t\.csv:6002: reviewer: empty reviewer"):
        read_table(path, level="nominal")


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes((HEAD + "x,a,v,1\nx,b,v,caf").encode() + b"\xe9\n")
    with pytest.raises(InputError, match=r"t\.csv:3: invalid UTF-8"):
        read_table(path, level="nominal")


# -- the table as a whole --------------------------------------------------------------------------

_name = st.text(alphabet="abcxyz019 ", min_size=1, max_size=4).filter(lambda s: s.strip() != "")


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[tuple[str, str, str, str]], list[str]]:
    """Rows (item, reviewer, variable, value as written) with unique keys, and the CSV lines."""
    keys = draw(
        st.lists(
            st.tuples(_name, _name, st.sampled_from(["v", "w"])),
            min_size=1,
            max_size=30,
            unique_by=lambda k: (k[0].strip(), k[1].strip(), k[2]),
        )
    )
    written = {0: ["0", "0.0", " 0"], 1: ["1", "1.0", "1e0 "], 2: ["2", "+2", "2.00"]}
    rows = []
    for item, reviewer, variable in keys:
        value = draw(st.sampled_from([None, 0, 1, 2]))
        text = "" if value is None else draw(st.sampled_from(written[value]))
        rows.append((item, reviewer, variable, text))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=draw(st.sampled_from([0, 1])))
    lines = []
    for row in rows:
        writer.writerow(row)
        lines.append(out.getvalue())
        out.seek(0)
        out.truncate()
        if draw(st.booleans()) and draw(st.booleans()):
            lines.append("\n")  # a blank line is skipped
    return rows, lines


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tables())
def test_read_table_matches_a_plain_reading(
    tmp_path: Path, table: tuple[list[tuple[str, str, str, str]], list[str]]
) -> None:
    rows, lines = table
    path = tmp_path / "t.csv"
    path.write_text(HEAD + "".join(lines), encoding="utf-8")
    header = write(
        tmp_path / "h.toml",
        '[variables.v]\nlevel = "ordinal"\nscale = [0, 1, 2]\n[variables.w]\nlevel = "interval"\n',
    )
    read = read_table(path, header=header)
    # The plain reading: one row at a time, every field stripped, numbers by float().
    expected: dict[str, list[tuple[str, str, Category | None]]] = {}
    listed: dict[str, set[str]] = {}
    judged: dict[str, set[str]] = {}
    for item, reviewer, variable, text in rows:
        value = None if not text.strip() else int(float(text))
        expected.setdefault(variable, []).append((item.strip(), reviewer.strip(), value))
        listed.setdefault(variable, set()).add(reviewer.strip())
        if value is not None:
            judged.setdefault(variable, set()).add(reviewer.strip())
    assert read.records == expected
    assert list(read.records) == list(expected)  # variables in the order they first appear
    blank = {v: tuple(sorted(r - judged.get(v, set()))) for v, r in listed.items()}
    assert read.reviewers_without_judgments == {v: r for v, r in blank.items() if r}


def test_reviewers_listed_without_judgments_are_reported(tmp_path: Path, cli: Cli) -> None:
    path = write(
        tmp_path / "t.csv",
        HEAD
        + "x,ann,score,2\nx,bob,score,2\nx,carol,score,\ny,ann,score,1\ny,bob,score,0\n"
        + "y,carol,score,\ny,\x1b[31mdan,score,\n",
    )
    report = table_agreement(path, level="ordinal", scale="0,1,2", resamples=0)
    (variable,) = report.variables
    assert variable.n_reviewers == 2
    assert [(p.reviewer_a, p.reviewer_b) for p in variable.pairs] == [("ann", "bob")]
    assert report.reviewers_without_judgments == {"score": ("\x1b[31mdan", "carol")}

    shown = cli("agreement", "--table", path, "--level", "ordinal", "--scale", "0,1,2")
    assert shown.code == 0, shown.err
    assert "Listed with no judgments" in shown.out
    listed = shown.out.split("Listed with no judgments")[1]
    assert "score:" in listed and "carol" in listed and "dan" in listed
    assert "\x1b" not in shown.out  # a name from the file never reaches the terminal raw
    document = cli("agreement", "--table", path, "--level", "ordinal", "--scale", "0,1,2", "--json")
    assert document.code == 0, document.err
    assert json.loads(document.out)["reviewers_without_judgments"] == {
        "score": ["\x1b[31mdan", "carol"]
    }


def test_every_reviewer_judged_lists_no_one(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", HEAD + "x,a,v,1\nx,b,v,\ny,a,v,1\ny,b,v,1\n")
    assert read_table(path, level="nominal").reviewers_without_judgments == {}


# -- the command -----------------------------------------------------------------------------------


def wikipedia_kappa_csv() -> str:
    # Wikipedia, "Cohen's kappa", worked example: 50 proposals, A and B both yes 20, A yes and B
    # no 5, A no and B yes 10, both no 15: p_o = 0.7, p_e = 0.5, kappa = 0.4.
    lines = [HEAD.rstrip("\n")]
    cells = [("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10 + [("no", "no")] * 15
    for n, (a, b) in enumerate(cells):
        lines += [f"p{n},A,accepted,{a}", f"p{n},B,accepted,{b}"]
    return "\n".join(lines) + "\n"


def test_pair_resamples_give_each_pair_an_interval(tmp_path: Path, cli: Cli) -> None:
    path = write(tmp_path / "k.csv", wikipedia_kappa_csv())
    args = ("agreement", "--table", path, "--level", "nominal", "--scale", "yes, no", "--json")
    result = cli(*args, "--resamples", "0", "--pair-resamples", "300", "--seed", "7")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert doc["pair_resamples"] == 300 and doc["seed"] == 7
    (pair,) = doc["variables"][0]["pairs"]
    kappa = pair["cohen_kappa"]
    assert kappa["value"] == pytest.approx(0.4)
    assert kappa["observed_agreement"] == pytest.approx(0.7)
    assert kappa["chance_agreement"] == pytest.approx(0.5)
    interval = kappa["interval"]
    assert interval["resamples"] == 300
    assert interval["low"] < 0.4 < interval["high"]
    # Without pair resamples there is no pair interval; the same seed draws the same interval.
    plain = json.loads(cli(*args, "--resamples", "0").out)
    assert plain["variables"][0]["pairs"][0]["cohen_kappa"]["interval"] is None
    again = json.loads(cli(*args, "--resamples", "0", "--pair-resamples", "300", "--seed", "7").out)
    assert again["variables"][0]["pairs"][0]["cohen_kappa"]["interval"] == interval
    narrow = cli(*args, "--resamples", "0", "--pair-resamples", "300", "--confidence", "0.5")
    assert narrow.code == 0, narrow.err
    half = json.loads(narrow.out)["variables"][0]["pairs"][0]["cohen_kappa"]["interval"]
    assert half["confidence"] == 0.5
    assert interval["low"] <= half["low"] <= half["high"] <= interval["high"]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--resamples", "-1", "resamples: expected a count of 0 (no interval) or at least 100"),
        (
            "--pair-resamples",
            "-5",
            "--pair-resamples: expected a count of 0 (no interval) or at least 100",
        ),
        ("--confidence", "1.5", "confidence: expected a level strictly between 0 and 1"),
        ("--confidence", "0", "confidence: expected a level strictly between 0 and 1"),
    ],
)
def test_bad_bootstrap_settings_are_refused(
    tmp_path: Path, cli: Cli, option: str, value: str, message: str
) -> None:
    path = write(tmp_path / "t.csv", HEAD + "x,a,v,1\nx,b,v,1\n")
    result = cli("agreement", "--table", path, "--level", "nominal", option, value)
    assert result.code == 1
    assert message in result.err
    assert "Traceback" not in result.err


def test_bad_bootstrap_settings_are_refused_for_a_study_too(db: sqlite_utils.Database) -> None:
    with pytest.raises(AbpError, match=r"resamples: expected a count of 0 \(no interval\) or at"):
        study_agreement(db, "any", None, resamples=-1)
    with pytest.raises(AbpError, match=r"pair resamples: expected 0 \(no interval\) or at least"):
        study_agreement(db, "any", None, pair_resamples=2)


def test_a_study_takes_the_same_bootstrap_settings(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    for code in codes:
        a.save(code, afp_judgment(2, 1, PreferenceChoice.TIE), 1, submit=True)
        b.save(code, afp_judgment(2, 0, PreferenceChoice.TIE), 1, submit=True)
    report = study_agreement(db, "s", pk, resamples=100, pair_resamples=130, confidence=0.8)
    assert (report.resamples, report.pair_resamples, report.confidence) == (100, 130, 0.8)
    drawn = [
        f.interval
        for v in report.variables
        for p in v.pairs
        for _c, f in p.figures()
        if f.interval is not None
    ]
    # Some pair figure has a bootstrap interval, drawn as asked.
    assert drawn and all(i.resamples == 130 and i.confidence == 0.8 for i in drawn)


def test_a_header_and_a_level_together_are_refused(tmp_path: Path, cli: Cli) -> None:
    path = write(tmp_path / "t.csv", HEAD + "x,a,v,1\nx,b,v,1\n")
    header = write(tmp_path / "h.toml", '[variables.v]\nlevel = "nominal"\n')
    result = cli("agreement", "--table", path, "--header", header, "--level", "ordinal")
    assert result.code == 1
    assert "give either a level (and scale) or a header file, not both" in result.err


def test_bad_scale_on_the_command_line(tmp_path: Path, cli: Cli) -> None:
    path = write(tmp_path / "t.csv", HEAD + "x,a,v,1\nx,b,v,1\n")
    result = cli("agreement", "--table", path, "--level", "interval", "--scale", "low,high")
    assert result.code == 1
    assert "scale 'low,high': an interval scale needs numbers; 'low' is not a number" in result.err


def test_header_scales_follow_the_same_rules(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", HEAD + "x,a,v,mid\nx,b,v,mid\ny,a,v,low\ny,b,v,high\n")
    header = write(
        tmp_path / "h.toml", '[variables.v]\nlevel = "ordinal"\nscale = ["low", "mid", "high"]\n'
    )
    (variable,) = agreement_table(path, header=header, resamples=0).variables
    assert variable.categories == ("low", "mid", "high")
    repeated = write(tmp_path / "r.toml", '[variables.v]\nlevel = "ordinal"\nscale = [1, 1.0]\n')
    with pytest.raises(InputError, match=r"r\.toml: \$\.variables\.v\.scale: .*repeats"):
        agreement_table(path, header=repeated)


def test_table_options_without_a_table_are_refused(cli: Cli) -> None:
    result = cli("agreement", "--level", "ordinal", "--scale", "0,1,2")
    assert result.code == 1
    assert "--level, --scale and --header describe a table: give --table FILE.csv" in result.err
