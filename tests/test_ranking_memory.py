"""A ranking holds a few bytes a vote: its votes as narrow typed columns, the fit's per-vote
arrays made in place.

What was found (issue #31): ``ranking --source labels`` grew by about 620 bytes a pair (three
labels) past the records it no longer held: each vote's codes and outcome were 64-bit integers
(56 bytes a vote with its two lengths), the labels' columns were held twice while joined and
beside copies of themselves as votes, and the length-controlled fit held a dozen float arrays
of the votes' length at once. Now a vote is 29 bytes (32-bit codes, an 8-bit outcome, two
lengths), votes that keep every label share the label columns, and the fit's arrays are made
in place and let go once used.

Measured as the growth of the traced peak (NumPy reports its arrays to tracemalloc) between two
studies of different sizes, per vote, against bounds the old code exceeds. No timing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import sqlite_utils

from abp_tui.analysis.ranking.fit import Votes, rank
from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.services.importing import import_paths
from abp_tui.services.ranking import read_source
from abp_tui.store import connect
from abp_tui.store import ranking as store_ranking
from tests.factories import traced_peak

SMALL, LARGE = 400, 2000
"""Pairs of the two studies (three labels each)."""


@pytest.fixture(scope="module")
def studies(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, sqlite_utils.Database]]:
    root = tmp_path_factory.mktemp("ranking-memory")
    built = {}
    for pairs in (SMALL, LARGE):
        source = root / f"pairs-{pairs}" / "testset-v1.json"
        write_pairs(source, pairs)
        db = connect(root / f"abp-{pairs}.db")
        import_paths(db, [source], study="panda")
        built[pairs] = db
    yield built
    for db in built.values():
        db.close()


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Labels read 256 at a time: what a chunk holds is then the same at both sizes, as it is
    past the first chunk at any size."""
    monkeypatch.setattr(store_ranking, "_CHUNK", 256)


def _votes(db: sqlite_utils.Database) -> Votes:
    return read_source(db, "panda", "labels").votes


def _per_vote(
    figure: Callable[[sqlite_utils.Database], object], studies: dict[int, sqlite_utils.Database]
) -> float:
    small, large = studies[SMALL], studies[LARGE]
    figure(small)  # imports and caches: every run holds them alike
    grown = traced_peak(lambda: figure(large)) - traced_peak(lambda: figure(small))
    return grown / (len(_votes(large)) - len(_votes(small)))


def test_the_labels_votes_are_a_few_bytes_each(studies: dict[int, sqlite_utils.Database]) -> None:
    """Reading the labels into votes (with their tasks' names): about 77 bytes a vote at its
    peak, 136 before."""
    assert _per_vote(_votes, studies) < 100


def test_the_ranking_of_held_votes_adds_a_few_bytes_a_vote(
    studies: dict[int, sqlite_utils.Database],
) -> None:
    """Ranking votes already held (point fit, task bootstrap, length-controlled fit): about
    66 bytes a vote at its peak, 119 before."""
    held = {n: _votes(db) for n, db in studies.items()}

    def ranked(db: sqlite_utils.Database) -> object:
        votes = held[SMALL if db is studies[SMALL] else LARGE]
        report = rank(votes, study="panda", source="labels", resamples=100)
        assert report.length_bias.length_controlled
        return report

    assert _per_vote(ranked, studies) < 90
