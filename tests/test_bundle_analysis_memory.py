"""A bundle's analysis holds what its records hold, not a second copy of every run and row.

What was found (issue #31): ``export bundle`` and ``verify`` of a PandaLM-shaped study peaked at
1.9 GB for 100,000 judged pairs, growing by about 18 kB a pair. Besides the parsed records, the
analysis they both make kept a final verdict of every run as a record of its own (with its
reviews and preferences), and the table of every judgment kept a row of twenty-odd cells for
each response of each judgment, all of it held until the report, the last file, was written.
Now each run's verdict and each row of the judgments table is made when it is read (written to
``verdicts.jsonl``, to ``judgments.csv``, to the report) from the records the analysis holds
anyway, with the same bytes.
"""

from __future__ import annotations

import hashlib
import random
import tracemalloc
from pathlib import Path

from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.export.bundle_analysis import RunVerdicts, agreement, analyse, parse, summarise
from abp_tui.export.bundle_reading import read_bundle
from abp_tui.export.derive import JUDGMENTS_CSV, VERDICTS, derive, derive_each
from abp_tui.export.tables import JudgmentRows, bundle_tables, table_csv
from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from tests.factories import copy_db

CHOICES = (PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2, PreferenceChoice.TIE)


def _exported(root: Path, template: Path, pairs: int) -> Path:
    """A PandaLM-shaped study of ``pairs`` pairs judged by two of three reviewers each (a
    preference apiece), unblinded and exported: the bundle's folder."""
    source = root / f"pairs{pairs}" / "testset-v1.json"
    write_pairs(source, pairs)
    db = copy_db(template, root / f"judged{pairs}.db")
    try:
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
        export_bundle(db, pk, root / f"bundle{pairs}")
    finally:
        db.close()
    return root / f"bundle{pairs}"


def _peak(bundle: Path) -> int:
    """Peak bytes of analysing a bundle's records and making every derived file from them, each
    hashed a piece at a time as ``verify`` and an export take them (its files read
    beforehand)."""
    files = read_bundle(bundle)
    tracemalloc.start()
    try:
        made = 0
        for _path, data in derive_each(files, analyse(parse(files))):
            for piece in [data] if isinstance(data, bytes) else data:
                made += len(hashlib.sha256(piece).digest())
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert made > 20 * 32  # every derived file was made
    return peak


PER_PAIR_LIMIT = 14 * 1024
"""Bytes a judged pair (two runs, two reviewers' judgments) may add to the peak: about 19 kB
before each verdict and row of the judgments table was made when read and the page's long
tables were written a piece at a time, about 10 kB now."""


def test_a_bundles_analysis_grows_by_what_its_records_hold(
    tmp_path: Path, empty_db_template: Path
) -> None:
    small_bundle = _exported(tmp_path, empty_db_template, 60)
    large_bundle = _exported(tmp_path, empty_db_template, 360)
    _peak(small_bundle)  # what a first analysis builds once (validators, imports)
    small = _peak(small_bundle)
    large = _peak(large_bundle)
    per_pair = (large - small) / 300
    assert per_pair < PER_PAIR_LIMIT, f"{per_pair / 1024:.1f} kB a judged pair"


def test_verdicts_and_judgment_rows_made_when_read_are_the_bundles(
    tmp_path: Path, empty_db_template: Path
) -> None:
    bundle = _exported(tmp_path, empty_db_template, 40)
    files = read_bundle(bundle)
    analysis = analyse(parse(files))
    verdicts = analysis.verdicts
    assert isinstance(verdicts, RunVerdicts) and len(verdicts) == 80
    # Read in order, by index, from the end or a slice: the same verdict each time.
    listed = list(verdicts)
    assert [verdicts[i] for i in range(len(verdicts))] == listed
    assert verdicts[-1] == listed[-1] and list(verdicts[10:20]) == listed[10:20]
    assert sum(1 for v in listed if v.preferences) == 80  # every pair was judged
    tables = bundle_tables(analysis, summarise(analysis), agreement(analysis))
    rows = tables.judgments.rows
    assert isinstance(rows, JudgmentRows)
    assert len(rows) == 160  # two judgments a pair, a row for each run shown
    every = list(rows)
    assert len(every) == 160
    picked = random.Random(3).sample(range(160), 40)
    assert [rows[i] for i in picked] == [every[i] for i in picked]
    assert rows[-1] == every[-1] and list(rows[5:9]) == every[5:9]
    # The files made from them are the ones the export wrote.
    assert table_csv(tables.judgments) == files[JUDGMENTS_CSV]
    assert derive(files, analysis) == {p: files[p] for p in derive(files, analysis)}
    assert derive(files, analysis)[VERDICTS] == files[VERDICTS]
