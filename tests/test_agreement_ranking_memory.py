"""Agreement and ranking hold what each item adds to a figure, not the study's records.

What was found (issue #31): on a PandaLM-shaped study judged by three reviewers (two per pair)
with three imported annotators, ``agreement`` and ``ranking`` held every submitted judgment,
item and imported label as records, and ranking every pair's final preference, to fold them
into figures at the end: about 6 kB a pair for agreement and 8 kB for ranking, 734 and 920 MB
at 100,000 pairs. They now read the design one item at a time (each reviewer's first, or latest,
judgment folded into observations or a vote and dropped) and the imported labels with the
replaced ones left out by SQL: what is held per pair is its observations and votes.

Measured here as the growth of the traced peak between two studies of different sizes (the
same code at both sizes, so what every run holds alike cancels out), in bytes per pair, against
a bound the old code exceeds several times over. No timing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sqlite_utils

from abp_tui.analysis.agreement.input import agreement_input
from abp_tui.analysis.ranking.fit import Votes
from abp_tui.analysis.ranking.sources import Side, design_votes
from abp_tui.analysis.verdicts import decide
from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.models import PreferenceChoice
from abp_tui.services.adjudicating import adjudicate
from abp_tui.services.agreement_report import design_records, study_agreement
from abp_tui.services.importing import import_paths
from abp_tui.services.ranking import ranking_report, read_source
from abp_tui.services.results_report import unblind
from abp_tui.store import connect, judging
from abp_tui.store.ranking import run_sides
from tests.factories import afp_judgment, judged_pairs, traced_peak, two_reviewer_design_judged

SMALL, LARGE = 150, 750
"""Pairs of the two studies."""
BOUND = 2500
"""Bytes a pair may add to a figure's peak: the old code added about 5,700 (agreement), 6,800
(ranking from the verdicts) and 8,000 (from the labels); now 700 to 1,000."""


def _study(root: Path, pairs: int) -> tuple[sqlite_utils.Database, int]:
    """A judged, unblinded PandaLM-shaped study of ``pairs`` pairs with three annotators."""
    root.mkdir()
    db = connect(root / "abp.db")
    pk = judged_pairs(db, root, pairs)
    unblind(db, "panda", "lead")
    return db, pk


@pytest.fixture(scope="module")
def studies(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[int, tuple[sqlite_utils.Database, int]]]:
    root = tmp_path_factory.mktemp("memory")
    built = {n: _study(root / f"pairs-{n}", n) for n in (SMALL, LARGE)}
    yield built
    for db, _pk in built.values():
        db.close()


def _per_pair(figure: Callable[[sqlite_utils.Database, int], object], studies: Any) -> float:
    small, large = studies[SMALL], studies[LARGE]
    figure(*small)  # imports and caches: every run holds them alike
    grown = traced_peak(lambda: figure(*large)) - traced_peak(lambda: figure(*small))
    return grown / (LARGE - SMALL)


def _agreement(db: sqlite_utils.Database, pk: int) -> object:
    report = study_agreement(db, "panda", pk, resamples=200)
    assert report.references and report.label_agreement is not None
    return report


def _ranking(source: str) -> Callable[[sqlite_utils.Database, int], object]:
    def rank(db: sqlite_utils.Database, _pk: int) -> object:
        report = ranking_report(db, "panda", source=source, resamples=200)
        assert report.sources  # the other source is read and fitted too
        return report

    return rank


AGREEMENT_BOUND = 150
"""Bytes a pair may add to agreement's peak now that each observation is three integers in a
typed array and the imported labels are folded into confusion matrices as they are read (about
60); holding them as (item, reviewer, value) tuples of strings and a map of the design's pairs
added about 450."""


def test_agreement_holds_a_bounded_amount_per_pair(studies: Any) -> None:
    assert _per_pair(_agreement, studies) < AGREEMENT_BOUND


@pytest.mark.parametrize("source", ["labels", "verdicts"])
def test_ranking_holds_a_bounded_amount_per_pair(studies: Any, source: str) -> None:
    assert _per_pair(_ranking(source), studies) < BOUND


def test_read_one_item_at_a_time_the_figures_are_the_records(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """Agreement and the verdicts' votes read item by item are what the design's records give
    (:func:`agreement_input`, :func:`design_votes`, which the publication bundle computes
    from): on a scored design with a revision after submission and an adjudicated dispute."""
    pk, codes = two_reviewer_design_judged(tmp_path, db)
    first = codes[0]
    runs = db.execute(
        "SELECT run_a_pk, run_b_pk FROM items WHERE code = ? AND design_pk = ?", [first, pk]
    ).fetchone()
    final = afp_judgment(2, 2, PreferenceChoice.RESPONSE_2)
    adjudicate(db, pk, first, "carol", final, {"1": runs[0], "2": runs[1]}, "b is right.")

    records = judging.records_of_design(db, pk, with_runs=False)
    expected = agreement_input(records)
    assert design_records(db, pk) == (expected.records, expected.levels, expected.scales)
    assert len(expected.records["preference"]) == 4  # both reviewers' first picks of both

    sides = {k: Side(v.task, v.condition, v.length) for k, v in run_sides(db, "s").items()}
    votes, excluded = design_votes(records, decide(records), sides)
    read = read_source(db, "s", "verdicts")
    assert len(read.votes) == 2 and read.excluded == excluded
    assert (read.votes.systems, read.votes.tasks) == (votes.systems, votes.tasks)
    for column in ("task", "a", "b", "outcome", "length_a", "length_b"):
        assert np.array_equal(getattr(read.votes, column), getattr(votes, column), equal_nan=True)


def test_a_later_label_replaces_an_earlier_one_in_both_figures(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """The labels a later import replaced are left out by the read itself: agreement and the
    ranking count the latest label of each source item by each label set, once."""
    source = tmp_path / "pairs" / "testset-v1.json"
    write_pairs(source, 12)
    import_paths(db, [source], study="panda")
    before = study_agreement(db, "panda", None, resamples=0).variables[0]
    votes = read_source(db, "panda", "labels").votes
    first = db.execute(
        "SELECT pk, item_id, reviewer, choice FROM preferences WHERE study_id = 'panda' "
        "AND choice IN ('response_1', 'response_2') ORDER BY pk LIMIT 1"
    ).fetchone()
    flipped = "response_2" if first[3] == "response_1" else "response_1"
    db.execute(
        "INSERT INTO preferences (study_id, reviewer, item_id, task_pk, run_1_pk, run_2_pk, "
        "choice, justification, source, created_at) SELECT study_id, reviewer, item_id, "
        "task_pk, run_1_pk, run_2_pk, ?, justification, source, created_at FROM preferences "
        "WHERE pk = ?",
        [flipped, first[0]],
    )
    after = study_agreement(db, "panda", None, resamples=0).variables[0]
    assert (after.n_items, after.n_judgments) == (before.n_items, before.n_judgments)
    assert after.pairs != before.pairs  # the later label counts: a confusion matrix moved
    again = read_source(db, "panda", "labels").votes
    assert len(again) == len(votes)
    # The latest label takes its place in stored order: one vote changed, none added.
    changed = Counter(_rows(again)) - Counter(_rows(votes))
    assert sum(changed.values()) == 1


def _rows(votes: Votes) -> list[tuple[str, str, str, int]]:
    return [
        (votes.tasks[t], votes.systems[a], votes.systems[b], o)
        for t, a, b, o in zip(
            votes.task.tolist(),
            votes.a.tolist(),
            votes.b.tolist(),
            votes.outcome.tolist(),
            strict=True,
        )
    ]
