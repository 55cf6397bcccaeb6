"""The bundle's gate holds what its runs hold, not a cell of every task under every condition.

What was found (issue #31): at the peak of ``verify`` of a 20,000-pair PandaLM-shaped bundle,
the gate (:func:`abp_tui.export.gate.evaluate`) held 10 MB of counts of usable and dropped runs
of every task under every condition: checking the rerun rules read each cell from two counting
dicts that add the cells they are asked for, so a task run under two of the conditions added a
cell for each of the others to both. Now the cells are read without being added: what the gate
holds grows with the runs, not with the tasks times the conditions, and its checks say what
they said.
"""

from __future__ import annotations

from pathlib import Path

from abp_tui.export.bundle_analysis import Analysis, analyse, excluded_runs, parse
from abp_tui.export.bundle_reading import read_bundle
from abp_tui.export.gate import evaluate
from tests.factories import exported_judged, traced_peak

PER_PAIR_LIMIT = 300
"""Bytes a judged pair (its task, two runs under two of the conditions) may add to what the
gate holds at its peak: before, about 450; now about 190 (each run's state by id, the counts
of its task and conditions)."""


def _analysis(root: Path, template: Path, pairs: int) -> Analysis:
    """The analysis of a judged PandaLM-shaped study's bundle, its excluded runs listed (the
    gate reads the analysis's list; it is made once for the analysis)."""
    analysis = analyse(parse(read_bundle(exported_judged(root, template, pairs))))
    excluded_runs(analysis)
    return analysis


def test_the_gate_grows_by_little_a_pair_and_says_what_it_said(
    tmp_path: Path, empty_db_template: Path
) -> None:
    small = _analysis(tmp_path, empty_db_template, 60)
    large = _analysis(tmp_path, empty_db_template, 360)
    assert len(large.inputs.conditions) > 2  # a task runs under two of them
    evaluate(small)  # what a first call builds once
    grown = (traced_peak(lambda: evaluate(large)) - traced_peak(lambda: evaluate(small))) / 300
    assert grown < PER_PAIR_LIMIT, f"bytes a judged pair: {grown:.0f}"
    status = evaluate(large)
    rerun = next(c for c in status.checks if c.requirement == "rerun rules")
    assert rerun.met, rerun.detail
