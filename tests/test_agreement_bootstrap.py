"""Bootstrap intervals that say how many resamples were usable and refuse a falsely precise one.

A percentile interval read from the resamples in which a figure is defined is conditional on it
being defined; the module notes of abp_tui.stats.agreement_kernels give the rule (at least 95%
usable) and why. A zero-width interval (every resample gave the same value) is refused too. The
expected counts below follow from the data: drawing n items with replacement misses every one
of k kinds of item with probability ((n - k) / n)^n.
"""

from __future__ import annotations

import numpy as np

from abp_tui.analysis.tables import cell_text, figures_table, pairs_table, variables_table
from abp_tui.stats.agreement import MIN_USABLE_SHARE, compute_variable
from abp_tui.stats.agreement_figures import _interval
from tests.agreement_data import records_from_columns, records_from_table


def test_the_threshold_is_95_percent_usable() -> None:
    assert MIN_USABLE_SHARE == 0.95
    rng = np.random.default_rng(0)
    samples = rng.normal(size=1000)
    samples[:50] = np.nan  # 950 of 1000 usable: the interval stands and says so
    interval, note = _interval(samples, 1000, 0, "items", 0.95)
    assert interval is not None and note is None
    assert (interval.resamples, interval.resamples_used) == (1000, 950)
    samples[50] = np.nan  # 949: refused
    interval, note = _interval(samples, 1000, 0, "items", 0.95)
    assert interval is None
    assert note == ("undefined: usable in 949 of 1000 resamples (95% needed)")


def test_perfect_agreement_gives_no_zero_width_interval() -> None:
    records = records_from_columns({"A": ["a", "b"] * 10, "B": ["a", "b"] * 10})
    result = compute_variable(records, "nominal", resamples=500, pair_resamples=500)
    for figure in (result.percent_agreement, result.gwet_ac1, result.pairs[0].percent_agreement):
        assert figure.value == 1.0
        assert figure.interval is None
        assert (figure.interval_note or "").startswith(
            "undefined: the bootstrap bounds coincide at 1 "
        ), figure.name
    # The faces show the refusal with its reason, never [1.000, 1.000].
    shown = " ".join(str(row[-1]) for row in figures_table(result).rows)
    assert "no interval: the bootstrap bounds coincide at 1" in shown
    assert "[1.000, 1.000]" not in shown
    pairs = pairs_table(result)
    column = pairs.index("percent_agreement")
    text = cell_text(pairs.columns[column], pairs.rows[0][column])
    assert text.startswith("1.000 (boot undefined: the bootstrap bounds coincide at 1")


def test_a_figure_undefined_in_too_many_resamples_has_no_interval() -> None:
    # Three items, (a, a), (b, b), (a, b): a resample of only (a, a) or only (b, b) items has
    # one category and no kappa, 2 (1/3)^3 = 7.4% of them. The old rule (half usable) kept an
    # interval read from the other 92.6%.
    records = records_from_columns({"A": ["a", "b", "a"], "B": ["a", "b", "b"]})
    result = compute_variable(records, "nominal", resamples=1000, seed=4)
    kappa = result.fleiss_kappa_generalized
    assert kappa.value is not None and kappa.interval is None
    note = kappa.interval_note or ""
    assert note.startswith("undefined: usable in ") and note.endswith("(95% needed)")
    used = int(note.split("usable in ")[1].split(" of")[0])
    assert 880 < used < 950  # about 926 expected
    # Percent agreement is defined in every resample: its interval stands.
    assert result.percent_agreement.interval is not None
    assert result.percent_agreement.interval.resamples_used == 1000


def test_some_resamples_dropped_the_interval_stands_and_the_faces_count_them() -> None:
    # 22 items (a, a), 3 (b, b), 1 (a, b): a resample with no b at all has no kappa, which
    # happens with probability (22/26)^26 = 1.3%. The interval stands (at least 95% usable),
    # and every face says how many resamples it rests on.
    records = records_from_table([[22, 1], [0, 3]], ("a", "b"))
    result = compute_variable(records, "nominal", resamples=1000, pair_resamples=1000, seed=7)
    kappa = result.pairs[0].cohen_kappa
    interval = kappa.interval
    assert interval is not None
    assert 950 <= interval.resamples_used < 1000
    pairs = pairs_table(result)
    column = pairs.index("cohen_kappa")
    text = cell_text(pairs.columns[column], pairs.rows[0][column])
    assert f"({interval.resamples_used} of 1000 usable)" in text
    assert text.startswith(f"{kappa.value:.3f} [")  # the large-sample interval first
    multi = result.fleiss_kappa_generalized.interval
    assert multi is not None and multi.resamples_used < 1000
    notes = {row[0]: row[-1] for row in figures_table(result).rows}
    assert notes["Fleiss' kappa generalized (Gwet)"] == (
        f"{multi.resamples_used} of 1000 resamples usable"
    )
    assert notes["percent agreement"] == "1000 resamples"


def test_an_undefined_figure_says_why_in_the_note_and_undefined_in_its_value() -> None:
    """The reason is a sentence: in the value column it wrapped over six lines at 160 columns
    while the note column had the room. The value says "undefined", the note says why."""
    records = records_from_columns({"A": ["a", "b", "a", "b"], "B": ["a", "b", None, None]})
    result = compute_variable(records, "nominal", resamples=200, pair_resamples=200)
    assert result.fleiss_kappa.value is None
    reason = result.fleiss_kappa.undefined_reason
    assert reason is not None and reason.startswith("reviewers per item differ")
    table = figures_table(result)
    (row,) = [r for r in table.rows if r[0] == result.fleiss_kappa.name]
    assert cell_text(table.columns[1], row[1]) == "undefined"
    assert cell_text(table.columns[-1], row[-1]).startswith(f"undefined: {reason}")


def test_a_weighted_figure_of_a_nominal_scale_is_not_applicable_in_the_list() -> None:
    """The list showed Gwet's AC2 "undefined" for a nominal variable while the detail below
    listed it as not applicable; both now say the same."""
    records = records_from_columns({"A": ["a", "b", "a", "b"], "B": ["a", "b", "b", "b"]})
    result = compute_variable(records, "nominal", resamples=200, pair_resamples=200)
    table = variables_table([result])
    (row,) = table.rows
    ac2 = table.index("gwet_ac2")
    assert cell_text(table.columns[ac2], row[ac2]) == "n/a"
    ordinal = compute_variable(records, "ordinal", ["a", "b"], resamples=200, pair_resamples=200)
    (row,) = variables_table([ordinal]).rows
    assert cell_text(table.columns[ac2], row[ac2]) != "n/a"
