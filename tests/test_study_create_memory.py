"""The memory of ``study create`` on a large pairwise study (issue #31).

What was found: creating a PandaLM-shaped preference design peaked at 363 / 1,627 MiB for
20,000 / 100,000 pairs, about 16 MiB for each 1,000 pairs: the design's commitment (what its
hash binds: every planned task, condition and run as a bundle publishes them) read every run's
record and output at once and held them until the hash was made. Each record is now hashed as
it is read, a batch of runs at a time, and only the hashes are held (121 / 404 MiB). Measured
with tracemalloc on two sizes of one generated study: the growth per pair.
"""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from pathlib import Path

from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.cli import main
from tests.factories import traced_peak

PER_PAIR_LIMIT = 8_000
"""Bytes a generated pair (two runs, two reviewers of three) may add to the traced peak of
``study create`` between 150 and 1,500 pairs: 14 kB before the commitment hashed each record
as it was read, 3.5 kB since."""


def _imported(tmp_path: Path, pairs: int) -> tuple[Path, str]:
    source = tmp_path / f"pairs{pairs}.json"
    write_pairs(source, pairs, 5)
    db = tmp_path / f"s{pairs}.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(db), "import", str(source)]) == 0
    (study,) = (r[0] for r in sqlite3.connect(db).execute("SELECT id FROM studies"))
    return db, study


_CHOICES = (
    "--rubric",
    "none",
    "--reviewers",
    "ann,bo,cy",
    "--reviewers-per-item",
    "2",
    "--seed",
    "7",
)


def _create(db: Path, study: str, name: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(
            ["--db", str(db), "study", "create", "--study", study, "--name", name, *_CHOICES]
        )
    assert code == 0


def test_creating_a_large_pairwise_design_grows_by_a_few_kilobytes_a_pair(
    tmp_path: Path,
) -> None:
    small_db, small_study = _imported(tmp_path, 150)
    large_db, large_study = _imported(tmp_path, 1500)
    _create(small_db, small_study, "warm")  # what a first call builds once (imports, validators)
    small = traced_peak(lambda: _create(small_db, small_study, "small"))
    large = traced_peak(lambda: _create(large_db, large_study, "large"))
    per_pair = (large - small) / 1350
    assert per_pair < PER_PAIR_LIMIT, f"{per_pair / 1024:.1f} kB a pair"
    document = (
        sqlite3.connect(large_db)
        .execute("SELECT document FROM designs WHERE name = 'large'")
        .fetchone()[0]
    )
    commitment = json.loads(document)["commitment"]
    assert len(commitment["tasks"]) == 1500  # every planned task is still bound by the hash
