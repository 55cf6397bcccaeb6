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

import dataclasses
import gc
import hashlib
import pickle
import random
import tracemalloc
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.results.tallies import GroupResult, group_result, results, unresolved_items
from abp_tui.export import bundle
from abp_tui.export import derive as derive_module
from abp_tui.export.bundle_analysis import (
    Analysis,
    Inputs,
    RunVerdicts,
    agreement,
    analyse,
    parse,
    summarise,
)
from abp_tui.export.bundle_reading import read_bundle
from abp_tui.export.claims import check_commitment, committed_checked
from abp_tui.export.derive import JUDGMENTS_CSV, REPORT, VERDICTS, derive, derive_each
from abp_tui.export.errors import ExportError
from abp_tui.export.svg import pass_rate_chart_pieces
from abp_tui.export.tables import JudgmentRows, bundle_tables, judgments_table, table_csv
from abp_tui.models import AdjudicationRevision, PreferenceChoice, RunOutcome
from abp_tui.services import publishing
from abp_tui.services.publishing import collect, export_bundle
from abp_tui.text.natural import natural_key
from tests.factories import exported_judged, judged_unblinded, parsed_size, traced_held


def _parsed(bundle: Path) -> int:
    """Bytes a bundle's records hold once parsed (its files read beforehand)."""
    now, inputs = parsed_size(bundle)
    assert len(inputs.judgments) == 2 * len(inputs.items)
    return now


def _analysed(bundle: Path) -> int:
    """Bytes the analysis of a bundle's parsed records holds (its decisions, outcomes and
    verdicts), its files read and parsed beforehand."""
    inputs = parse(read_bundle(bundle))
    now, analysis = traced_held(lambda: analyse(inputs))
    assert len(analysis.verdicts) == len(inputs.runs)
    return now


def _judgments(bundle: Path) -> int:
    """Bytes the table of every judgment holds once made."""
    analysis = analyse(parse(read_bundle(bundle)))
    tracemalloc.start()
    try:
        table = judgments_table(analysis)
        now, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(table.rows) == 2 * len(analysis.verdicts)  # two judgments a pair, two runs each
    return now


def _tables(bundle: Path) -> int:
    """Bytes every table a bundle publishes holds once made (the results' with the table of
    tasks, one row a task and condition), its results summarised beforehand."""
    analysis = analyse(parse(read_bundle(bundle)))
    summary, agreed = summarise(analysis), agreement(analysis)
    tracemalloc.start()
    try:
        tables = bundle_tables(analysis, summary, agreed)
        now, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Preferences alone: no state to count, so no row by task (each would read 0/0).
    assert summary.preference_only and len(tables.results.tasks.rows) == len(summary.by_task) == 0
    return now


def _charts(bundle: Path) -> int:
    """Peak bytes of making the chart of tasks (a bar for each task and condition) a piece at a
    time and hashing it, as an export or ``verify`` takes it from a design that has pass rates,
    over what is held when it starts. This preference-only bundle has none: it writes neither
    chart (a chart of 0/0 for every row), so the chart is made here from its summary."""
    files = read_bundle(bundle)
    analysis = analyse(parse(files))
    written = dict(derive_each(files, analysis))
    assert derive_module.PLOT_CONDITIONS not in written
    assert derive_module.PLOT_TASKS not in written
    assert "results/conditions.csv" not in written and "results/tasks.csv" not in written
    del written
    # Nor does its results document hold a row by task: the rows come from the tallies.
    groups = results(analysis.records, analysis.decisions, analysis.outcomes).by_task
    assert not summarise(analysis).by_task and len(groups) == len(analysis.verdicts)
    rows = ((f"{g.task} / {g.condition}", g.pass_rate) for g in groups)
    tracemalloc.start()
    try:
        pieces = pass_rate_chart_pieces("t", "Pass rate by task", rows, len(groups))
        made = sum(len(hashlib.sha256(piece.encode()).digest()) for piece in pieces)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert made > 32 * len(groups)  # a line a bar
    return peak


def _report(bundle: Path) -> int:
    """Peak bytes of writing the report (hashed a piece at a time, as an export or ``verify``
    takes it) over what is held when it starts."""
    files = read_bundle(bundle)
    for path, data in derive_each(files, analyse(parse(files))):
        if path != REPORT:
            for _piece in [data] if isinstance(data, bytes) else data:
                pass
            continue
        assert not isinstance(data, bytes)
        tracemalloc.start()
        try:
            written = sum(len(hashlib.sha256(piece).digest()) for piece in data)
            _now, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert written > 32
        return peak
    raise AssertionError("no report")


PER_PAIR_LIMITS = {
    "parsed": 3700,
    "analysed": 2500,
    "judgments": 300,
    "tables": 800,
    "charts": 300,
    "report": 1300,
}
"""Bytes a judged pair (two runs, two reviewers' judgments, its task) may add to each: before,
about 4,800 to the parsed records (each judgment holding its own copies of its runs' ids and its
empty dicts of responses and validity checks), then 4,550 (each task a record of a kilobyte of
objects, each run's file references four hundred bytes of their own, each item its own strings
of its task, runs and conditions), 3,500 to the analysis (every run's verdict held), 900 to the
judgments table (every row held), 1,250 to the tables (the table of tasks' row of each task
and condition held), 2,000 to making the charts (the chart of tasks made whole, its lines
listed first, then held until the report took it) and 4,200 to writing the report (each long
table's markup made whole first), then 700; now about 3,350, 2,100, 50, 550 (the
disagreements' rows), 0 and 1,100 (the report now writes the chart of tasks a line at a time
itself, rather than taking it made and held beforehand)."""


def test_a_bundles_analysis_tables_and_report_grow_by_little_a_pair(
    tmp_path: Path, empty_db_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The report is encoded a few kB at a time here (a megabyte in an export), so that what
    # grows with the study is told from that buffer on studies this small.
    monkeypatch.setattr(derive_module, "_SLICE", 4096)
    small_bundle = exported_judged(tmp_path, empty_db_template, 60)
    large_bundle = exported_judged(tmp_path, empty_db_template, 360)
    grown = {}
    measures = (
        ("parsed", _parsed),
        ("analysed", _analysed),
        ("judgments", _judgments),
        ("tables", _tables),
        ("charts", _charts),
        ("report", _report),
    )
    for name, measure in measures:
        measure(small_bundle)  # what a first call builds once (validators, imports)
        grown[name] = (measure(large_bundle) - measure(small_bundle)) / 300
    over = {k: round(v) for k, v in grown.items() if v >= PER_PAIR_LIMITS[k]}
    assert not over, f"bytes a judged pair: {over} (limits {PER_PAIR_LIMITS})"


def test_verdicts_and_judgment_rows_made_when_read_are_the_bundles(
    tmp_path: Path, empty_db_template: Path
) -> None:
    bundle = exported_judged(tmp_path, empty_db_template, 40)
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


def _database_verdicts(db: sqlite_utils.Database, pk: int) -> int:
    """Bytes of what an export keeps of the database's records for its cross-check (pickled),
    from when the files are written until the files' own records are analysed."""
    core = collect(db, pk).held
    assert core
    return len(pickle.dumps(core))


def _commitment_let_go(bundle: Path) -> int:
    """Bytes the records of a bundle, parsed and their commitment checked, hold less once
    :func:`committed_checked` took what only the check reads."""
    files = read_bundle(bundle)
    tracemalloc.start()
    try:
        inputs = parse(files)
        assert check_commitment(files, inputs.design, inputs)
        held, _peak = tracemalloc.get_traced_memory()
        kept = committed_checked(inputs)
        del inputs
        now, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kept.runs
    return held - now


def test_an_export_keeps_no_verdict_of_the_database_nor_the_commitments_task_hashes(
    tmp_path: Path, empty_db_template: Path
) -> None:
    # Before: about 600 bytes a judged pair of the database's verdicts (their facts, by run)
    # kept for the cross-check, and every task's hash twice (the commitment's and the
    # bundle's own, 400 bytes a pair) kept through the analysis; now a digest of the verdicts,
    # and the hashes let go once checked.
    held, freed = {}, {}
    for pairs in (60, 360):
        db, pk = judged_unblinded(tmp_path, empty_db_template, pairs)
        try:
            held[pairs] = _database_verdicts(db, pk)
            export_bundle(db, pk, tmp_path / f"bundle{pairs}")
            # What the export analyses: the design as published, less the task hashes.
            analysis = publishing._collected_and_analysed(db, pk)[1]
        finally:
            db.close()
        design = analysis.inputs.design
        assert analysis.inputs.task_sha256 == {}
        assert design.document["commitment"]["tasks"] == {}
        assert (design.name, design.version) == ("pairs", 1)
        freed[pairs] = _commitment_let_go(tmp_path / f"bundle{pairs}")
    assert max(held.values()) < 200, held  # a count and a digest, whatever the study
    assert (freed[360] - freed[60]) / 300 > 250, freed


@pytest.mark.parametrize("lost", ["judgment", "item", "changed", "adjudication"])
def test_an_export_refuses_records_that_differ_from_the_databases(
    tmp_path: Path, empty_db_template: Path, monkeypatch: pytest.MonkeyPatch, lost: str
) -> None:
    # The verdicts are decided once, from the bundle's files: the records they are decided
    # from must be the database's, or nothing is written.
    db, pk = judged_unblinded(tmp_path, empty_db_template, 12)
    try:
        ours = parse

        def one_lost(files: Mapping[str, bytes]) -> Inputs:
            inputs = ours(files)
            if lost == "judgment":
                return dataclasses.replace(inputs, judgments=inputs.judgments[1:])
            if lost == "item":  # its base orientation read as the other
                last = inputs.items[-1]
                turned = last.model_copy(update={"base_flip": not last.base_flip})
                return dataclasses.replace(inputs, items=[*inputs.items[:-1], turned])
            if lost == "adjudication":  # one more than the database holds
                first = inputs.judgments[0]
                made = AdjudicationRevision(
                    item=first.item,
                    adjudicator="lead",
                    revision=1,
                    judgment=first.judgment,
                    placement=first.placement,
                    note="",
                    show_names=False,
                    created_at=first.created_at,
                )
                return dataclasses.replace(inputs, adjudications=[made])
            # A judgment's preference read as another.
            first = inputs.judgments[0]
            other = next(p for p in PreferenceChoice if p != first.judgment.preference)
            changed = first.model_copy(
                update={"judgment": first.judgment.model_copy(update={"preference": other})}
            )
            return dataclasses.replace(inputs, judgments=[changed, *inputs.judgments[1:]])

        monkeypatch.setattr(publishing, "parse", one_lost)
        with pytest.raises(ExportError, match="internal inconsistency"):
            export_bundle(db, pk, tmp_path / "bundle")
        monkeypatch.setattr(publishing, "parse", ours)
        export_bundle(db, pk, tmp_path / "bundle")  # as read, they are the database's
    finally:
        db.close()
    assert (tmp_path / "bundle").is_dir() and (tmp_path / "bundle.zip").is_file()


def test_verify_lets_go_of_the_commitments_task_hashes_once_checked(
    tmp_path: Path, empty_db_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: verify analysed (and held to the end) the design as published, with every
    # task's hash twice; now, as the export does, without them once the commitment holds.
    db, pk = judged_unblinded(tmp_path, empty_db_template, 12)
    try:
        written = export_bundle(db, pk, tmp_path / "bundle")
    finally:
        db.close()
    analysed: list[Inputs] = []
    ours = bundle.analyse_or_refuse

    def seen(inputs: Inputs) -> Analysis:
        analysed.append(inputs)
        return ours(inputs)

    monkeypatch.setattr(bundle, "analyse_or_refuse", seen)
    report = bundle.verify(written.zip_path)
    assert report.design == "pairs" and report.design_hash_recomputed
    (inputs,) = analysed
    assert inputs.task_sha256 == {}
    assert inputs.design.document["commitment"]["tasks"] == {}


def test_a_bundles_rows_by_task_are_made_when_read_each_its_cells_tallies(
    tmp_path: Path, empty_db_template: Path
) -> None:
    # A row by task and condition was held for every cell (about 600 bytes a pair at 20,000
    # pairs); now each is made when read, from the runs' order and each cell's start.
    # Four runs failed by their source: states to count, so rows by task (none without).
    bundle = exported_judged(tmp_path, empty_db_template, 120, failed=4)
    analysis = analyse(parse(read_bundle(bundle)))
    summary = summarise(analysis)
    gc.collect()
    held = sum(1 for o in gc.get_objects() if type(o) is GroupResult)
    assert len(summary.by_task) == 240  # two conditions of 120 tasks
    assert held < 40, f"{held} rows held for {len(summary.by_task)} cells"
    rows = list(summary.by_task)
    assert rows == list(summary.by_task) == [summary.by_task[i] for i in range(240)]
    assert summary.by_task[-1] == rows[-1] and summary.by_task[10:12] == rows[10:12]
    # Each row is its cell's tallies, as each cell's own group_result gives them.
    cells: dict[tuple[str, str], list[RunOutcome]] = defaultdict(list)
    for o in analysis.outcomes:
        cells[(o.condition_id, o.task_id)].append(o)
    open_items = unresolved_items(analysis.decisions)
    expected = [
        group_result(c, t, cells[(c, t)], analysis.records.rubric, open_items, summary.confidence)
        for c, t in sorted(cells, key=lambda k: (k[0], natural_key(k[1])))
    ]
    assert rows == expected
    assert any(r.unresolved_items for r in rows)  # the study has open disagreements
