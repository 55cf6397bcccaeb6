"""The results of a large judged design, folded one item at a time (issue #31).

What was found: ``results`` peaked at 200 / 532 / 1,707 MiB at 20,000 / 100,000 / 400,000 judged
PandaLM-shaped pairs, about 3.9 MiB for each 1,000 pairs: every submitted judgment, every pair's
final preference, every run's verdict, facts and outcome, and a row for every task and condition
were held at once, twice (the watched figures read the records again). A design's items are now
read one at a time and folded into the tallies its figures print
(:mod:`abp_tui.analysis.results.folding`); its runs and their outcomes are held as columns
(:mod:`abp_tui.analysis.results.run_table`), each printed outcome and row by task made when it
is written. Measured with tracemalloc on two sizes of one study shape: the growth per pair.
"""

from __future__ import annotations

import json
from pathlib import Path

import sqlite_utils

from abp_tui.analysis.business.figures import benchmark_records
from abp_tui.analysis.results.document import DesignIdentity, results_document
from abp_tui.analysis.results.watching import finals
from abp_tui.services.results_report import design_results, study_facts
from abp_tui.store import judging
from tests.factories import judged_study, results_peak

PER_JUDGED_PAIR_LIMIT = 600
"""Bytes a judged pair (two reviewers, two runs) may add to the peak of ``results --json``
between 60 and 960 pairs, its output written to a file: 3.7 kB before the design's items were
folded one at a time, 880 bytes before the runs were held in a temporary database while
written (:mod:`abp_tui.store.result_spill`), about 430 now (what stays grows with the items the
output lists as unresolved, the ranking's votes and the watched figures' final
preferences)."""


def test_a_judged_designs_results_grow_by_about_a_kilobyte_a_pair(
    tmp_path: Path, empty_db_template: Path
) -> None:
    small_path = judged_study(tmp_path, empty_db_template, 60)
    large_path = judged_study(tmp_path, empty_db_template, 960)
    results_peak(small_path)  # what a first call builds once (validators, imports)
    small, _text = results_peak(small_path)
    large, text = results_peak(large_path)
    per_pair = (large - small) / 900
    assert per_pair < PER_JUDGED_PAIR_LIMIT, f"{per_pair / 1024:.2f} kB a judged pair"
    assert len(json.loads(text)["outcomes"]) == 1920


def test_the_folded_results_are_those_of_the_whole_records(
    tmp_path: Path, empty_db_template: Path
) -> None:
    """Folded one item at a time, the document and the watched figures' verdicts are exactly
    what the rules compute from the design's records held whole."""
    # Four runs failed by their source: states to count, so rows by task (none without).
    path = judged_study(tmp_path, empty_db_template, 90, failed=4)
    db = sqlite_utils.Database(path)
    folded, watched = design_results(db, 1, 0.9, watched=True)
    lazy, _ = design_results(db, 1, 0.9, lazy=True)
    records = judging.records_of_design(db, 1, figures=True)
    row = judging.design(db, 1)
    whole = results_document(
        records,
        study_facts(db, "panda"),
        DesignIdentity(row.name, row.version_no, row.sha256),
        0.9,
    )
    expected = whole.model_dump(mode="json")
    assert folded.model_dump(mode="json", exclude={"unblinded_by", "unblinded_at"}) == expected
    # Made as they are read, the outcomes and rows by task are the same ones.
    assert [o.model_dump(mode="json") for o in lazy.outcomes] == expected["outcomes"]
    assert [g.model_dump(mode="json") for g in lazy.by_task] == expected["by_task"]
    assert lazy.by_task[3] == whole.by_task[3] and lazy.outcomes[-1] == whole.outcomes[-1]
    assert watched == finals(benchmark_records(records))
    # The study's disagreements are open: the rows name their items, which the fold kept.
    assert any(g.unresolved_items for g in lazy.by_task)
    db.close()
