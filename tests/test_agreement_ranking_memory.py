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

import random
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.ranking import ranking_report
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect

CHOICES = (PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2, PreferenceChoice.TIE)
SMALL, LARGE = 150, 750
"""Pairs of the two studies."""
BOUND = 2500
"""Bytes a pair may add to a figure's peak: the old code added about 5,700 (agreement), 6,800
(ranking from the verdicts) and 8,000 (from the labels); now 700 to 1,000."""


def _study(root: Path, pairs: int) -> tuple[sqlite_utils.Database, int]:
    """A judged, unblinded PandaLM-shaped study of ``pairs`` pairs with three annotators."""
    root.mkdir()
    source = root / "pairs" / "testset-v1.json"
    write_pairs(source, pairs)
    db = connect(root / "abp.db")
    import_paths(db, [source], study="panda")
    pk = create_from_choices(
        db, DesignChoices(study="panda", reviewers="ann,bo,cy", reviewers_per_item=2)
    ).pk
    rng = random.Random(5)
    for reviewer in ("ann", "bo", "cy"):
        session = ReviewSession(db, pk, reviewer)
        for row in session.queue():
            judgment = Judgment(preference=rng.choice(CHOICES), justification="Reads better.")
            session.save(row.code, judgment, 3.0, submit=True)
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


def _peak(figure: Callable[[], object]) -> int:
    """The traced peak of computing ``figure`` (what it held at its largest), in bytes."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        figure()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _per_pair(figure: Callable[[sqlite_utils.Database, int], object], studies: Any) -> float:
    small, large = studies[SMALL], studies[LARGE]
    figure(*small)  # imports and caches: every run holds them alike
    grown = _peak(lambda: figure(*large)) - _peak(lambda: figure(*small))
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


def test_agreement_holds_a_bounded_amount_per_pair(studies: Any) -> None:
    assert _per_pair(_agreement, studies) < BOUND


@pytest.mark.parametrize("source", ["labels", "verdicts"])
def test_ranking_holds_a_bounded_amount_per_pair(studies: Any, source: str) -> None:
    assert _per_pair(_ranking(source), studies) < BOUND
