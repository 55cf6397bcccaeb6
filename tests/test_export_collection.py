"""An export's collection writes the database's records as it reads them, holding none.

What was found (issue #31): ``export bundle`` of a PandaLM-shaped study grew by about 8 kB a
pair. Its collection read every item, judgment and adjudication of the design into a list of
records, every run's facts (kept for the cross-check), a map of every run's key to its id, every
run's row to sort them, and every vote of the rankings as a dict, sorted by its JSON; the
cross-check then decided every verdict from those records, a second time. Now each record is
written as its row is read, the runs and votes are sorted by SQLite, and the cross-check
compares a count and a digest of the records the verdicts are decided from (decided once, from
the bundle's files), with the same bytes.
"""

from __future__ import annotations

import gc
import random
import sys
import tracemalloc
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.export import bundle_writing
from abp_tui.export.bundle_writing import FolderFiles
from abp_tui.export.ranking import SourceFound, ranking_sources
from abp_tui.services.publishing import collect
from abp_tui.services.ranking import kept_votes, read_source, study_sources
from abp_tui.services.ranking_bundle import ranking_source_files
from abp_tui.services.results_report import unblind
from abp_tui.store import bulk
from abp_tui.store.queries import results_order
from abp_tui.store.run_order import natural_bytes, results_order_bytes
from abp_tui.text.natural import natural_key
from tests.factories import copy_db, judged_pairs

# -- the order of the runs -----------------------------------------------------------------------
_PIECES = ["", "0", "00", "1", "01", "2", "9", "10", "010", "123456789012345678901234567890"]
_TEXTS = ["", "a", "A", "T", "T-", "_", "-", "é", "\x00", "a\x00", "\x01", "z\u2028", "\U0001f600"]


def _id(rng: random.Random) -> str:
    return "".join(rng.choice(_PIECES + _TEXTS) for _ in range(rng.randint(0, 5)))


def test_the_runs_sort_in_sqlite_as_results_list_them() -> None:
    # Every kind of id: numbers with leading zeros and beyond 64 bits, texts that are a
    # prefix of others, NUL, characters beyond the BMP, empty ones.
    rng = random.Random(31)
    rows = [
        (_id(rng), _id(rng), rng.choice(["c1", "c10", "c2", "", "\x00"]), rng.randint(-3, 12))
        for _ in range(4000)
    ]
    rows += [("P1", "T2", "c", 0), ("P01", "T2", "c", 0), ("P1", "T10", "c", 0)]
    expected = sorted(rows, key=lambda r: results_order((r[0], r[1], r[2], r[3])))
    found = sorted(rows, key=lambda r: results_order_bytes(r[2], r[1], r[3], r[0]))
    assert found == expected


def test_the_tasks_sort_in_sqlite_in_natural_order() -> None:
    rng = random.Random(32)
    ids = sorted({_id(rng) for _ in range(4000)} | {"T2", "T10", "T02", "t1", "T1a", "T1 a"})
    assert sorted(ids, key=natural_bytes) == sorted(ids, key=natural_key)


def test_the_runs_and_tasks_are_read_in_order(
    tmp_path: Path, empty_db_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = copy_db(empty_db_template, tmp_path / "a.db")
    try:
        judged_pairs(db, tmp_path, 30)
        monkeypatch.setattr(bulk, "_BATCH", 7)  # several batches, the last one short
        each = [(r.facts, r.record, r.output) for r in bulk.each_current_run(db, "panda")]
        whole = [(r.facts, r.record, r.output) for r in bulk.current_runs(db, "panda")]
        assert len(each) == 60 and each == whole
        tasks = bulk.tasks(db, "panda")
        assert len(tasks) == 30
        assert [t.id for t, _p in tasks] == sorted((t.id for t, _p in tasks), key=natural_key)
        assert not db.conn.in_transaction  # its own read transaction, ended
    finally:
        db.close()


# -- the votes -----------------------------------------------------------------------------------
def test_the_bundles_votes_are_those_the_rankings_read_sorted_as_before(
    tmp_path: Path, empty_db_template: Path
) -> None:
    db = copy_db(empty_db_template, tmp_path / "a.db")
    try:
        judged_pairs(db, tmp_path, 40)
        unblind(db, "panda", "lead")
        conditions = sorted({c for (c,) in db.execute("SELECT id FROM conditions").fetchall()})
        for keep, apart in (
            (lambda _t, _c: True, lambda _t: False),
            (lambda _t, c: c != conditions[0], lambda t: t.endswith(("1", "7"))),
        ):
            found = []
            for source in study_sources(db, "panda"):
                read = read_source(db, "panda", source, "pairs")
                votes, _dropped, _development = kept_votes(read.votes, keep, apart)
                found.append((read, votes))
            assert sum(len(v) for _r, v in found) > 40
            ours = ranking_source_files(db, "panda", "pairs", keep, apart)
            # What the bundle wrote before, from every vote held and sorted in memory (the
            # excluded counts aside, which sources.json holds and both count alike).
            before = ranking_sources([SourceFound(r.name, r.design, v, []) for r, v in found])
            assert ours["ranking/votes.jsonl"] == before["ranking/votes.jsonl"]
    finally:
        db.close()


# -- what the collection holds -------------------------------------------------------------------
def _collected_peak(root: Path, template: Path, pairs: int) -> int:
    """Bytes a collection of a judged study of ``pairs`` pairs holds at most, its files
    written to a folder (none of them kept in memory)."""
    db = copy_db(template, root / f"c{pairs}.db")
    try:
        pk = judged_pairs(db, root, pairs)
        unblind(db, "panda", "lead")
        collect(db, pk)  # whatever is read once per process, read
        gc.collect()
        files = FolderFiles(root / f"bundle{pairs}")
        tracemalloc.start()
        try:
            collected = collect(db, pk, files=files)
            _now, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
            files.close()
        assert collected.held[0] > 3 * pairs  # two judgments and an item a pair, at least
        return peak
    finally:
        db.close()


@pytest.mark.skipif(sys.version_info < (3, 11), reason="sizes measured on CPython 3.11+")
def test_a_collection_holds_no_record_of_every_pair(
    tmp_path: Path, empty_db_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: about 7,300 bytes a pair at its peak (the design's items, judgments and runs'
    # facts as records, every run's row and key, every vote as a dict); now under 1,000 (what
    # grows is the design's document, which lists its plan, and the tasks' rows).
    monkeypatch.setattr(bundle_writing, "KEEP", 0)  # no file kept in memory, however small
    monkeypatch.setattr(bulk, "_BATCH", 20)  # the runs' batches full at both sizes
    peaks = {pairs: _collected_peak(tmp_path, empty_db_template, pairs) for pairs in (60, 360)}
    assert (peaks[360] - peaks[60]) / 300 < 2_000, peaks


def test_the_collection_is_read_in_one_snapshot_and_leaves_no_table(
    tmp_path: Path, empty_db_template: Path
) -> None:
    db: sqlite_utils.Database = copy_db(empty_db_template, tmp_path / "a.db")
    try:
        pk = judged_pairs(db, tmp_path, 12)
        unblind(db, "panda", "lead")
        first = collect(db, pk)
        again = collect(db, pk)
        assert dict(first.files) == dict(again.files) and first.held == again.held
        temp = db.execute("SELECT name FROM sqlite_temp_master WHERE type = 'table'").fetchall()
        assert temp == [] and not db.conn.in_transaction
    finally:
        db.close()
