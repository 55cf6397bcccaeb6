"""What the figures hold beside their data does not grow with the study (issue #31).

What was found: a ranking's task bootstrap drew and counted 32 resamples' tasks at once, two
tables of ``32 x tasks`` and a count of each (about 500 bytes a task held for a moment: 100 MB
at 400,000 tasks), and every figure command parsed its design's stored document, whose plan
commitment names every task (about 370 bytes a task parsed), just to choose the design or read its
rules. Each resample is now drawn and counted on its own (the same draws, the same totals), and
a design's rules are read without the commitment (:func:`abp_tui.store.design_rules.stated_design`),
its stored document parsed only by whoever reads it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import sqlite_utils

from abp_tui.analysis.records import design_document
from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.models import StudyDesign
from abp_tui.services.designing import DesignChoices, create_from_choices, find_design_if_any
from abp_tui.services.importing import import_paths
from abp_tui.stats.ranking import Segments, resampled_totals
from abp_tui.store.design_rules import stated_design
from tests.factories import traced_peak


def _segments(tasks: int) -> Segments:
    """One vote a task between two of three systems."""
    rng = np.random.default_rng(3)
    pair = rng.integers(0, 3, size=tasks)
    won = rng.integers(0, 2, size=tasks).astype(np.float64)
    return Segments(
        n_systems=3,
        n_tasks=tasks,
        pairs=np.array([[0, 1], [0, 2], [1, 2]], dtype=np.int64),
        task=np.arange(tasks, dtype=np.int64),
        pair=pair.astype(np.int64),
        w=np.stack([won, 1.0 - won], axis=1),
    )


def _drawn(segments: Segments, resamples: int) -> None:
    for _totals in resampled_totals(segments, resamples, np.random.default_rng(7)):
        pass


BOOTSTRAP_BYTES_PER_TASK = 120
"""What a task may add to the peak of drawing a chunk of 32 resamples, beside the votes: its
row of the by-task table (float32 values, column indices) and its count in one resample's
draws. Drawing the chunk's 32 resamples at once held about 520."""


def test_a_task_bootstrap_holds_one_resamples_draws_at_a_time() -> None:
    small, large = _segments(20_000), _segments(100_000)
    _drawn(small, 32)  # what a first call builds once
    per_task = (
        traced_peak(lambda: _drawn(large, 32)) - traced_peak(lambda: _drawn(small, 32))
    ) / 80_000
    assert per_task < BOOTSTRAP_BYTES_PER_TASK, f"{per_task:.0f} bytes a task"


def test_a_task_bootstraps_totals_are_those_of_the_chunks_draws() -> None:
    segments = _segments(1_001)
    by_task = segments.by_task().astype(np.float32)
    rng = np.random.default_rng(11)
    expected = []
    for b in (32, 32, 6):  # 70 resamples: the chunks' draws made at once, as they were
        draws = rng.integers(0, segments.n_tasks, size=(b, segments.n_tasks), dtype=np.uint32)
        counts = np.stack([np.bincount(d, minlength=segments.n_tasks) for d in draws])
        totals = np.asarray(counts.astype(np.float32) @ by_task, dtype=np.float64)
        expected.append(totals.reshape(b, len(segments.pairs), 2))
    found = list(resampled_totals(segments, 70, np.random.default_rng(11)))
    assert [f.shape for f in found] == [e.shape for e in expected]
    for f, e in zip(found, expected, strict=True):
        assert np.array_equal(f, e)


DESIGN_BYTES_PER_TASK = 160
"""What a task of a design may add to choosing it and reading its rules: its line of the stored
text, never the parsed commitment."""


def _design(db: sqlite_utils.Database, tmp_path: Path, pairs: int) -> int:
    source = tmp_path / f"pairs{pairs}" / "testset-v1.json"
    write_pairs(source, pairs)
    import_paths(db, [source], study="panda")
    choices = DesignChoices(study="panda", reviewers="ann,bo", reviewers_per_item=1)
    return create_from_choices(db, choices).pk


def test_a_design_is_chosen_and_its_rules_read_without_its_plans_commitment(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    pk = _design(db, tmp_path, 400)
    stored = json.loads(db.execute("SELECT document FROM designs WHERE pk = ?", [pk]).fetchone()[0])
    assert len(stored["commitment"]["tasks"]) == 400
    # The rules as the design file states them, as the stored document gives them.
    assert stated_design(db, pk) == StudyDesign.model_validate(design_document(stored))
    # Choosing the design reads its name; its document is parsed when read, and is the stored one.
    row = find_design_if_any(db, "panda")
    assert row is not None and row.pk == pk
    assert "document" not in vars(row)
    assert row.document == stored and row.document is row.document

    def choose() -> None:
        found = find_design_if_any(db, "panda")
        assert found is not None
        stated_design(db, found.pk)

    choose()
    # The stored text is read (about 100 bytes a task); parsed, it held 370 more a task.
    per_task = traced_peak(choose) / 400
    assert per_task < DESIGN_BYTES_PER_TASK, f"{per_task:.0f} bytes a task"
