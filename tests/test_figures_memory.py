"""The figures of a large judged study hold what many records hold alike once.

What was found: on a PandaLM-shaped study judged by three reviewers, ``results``, ``agreement``
and ``ranking`` each kept every submitted judgment, every reviewer's pick of a pair, every
pair's final preference and every preferred run's verdict as a validated record with a set of
field names of its own (and a copy of the judgment's placement in every pick): about 2 kB a
pair beside what the figures need. They are read and built as trusted records now (the store
keeps only validated ones), one set of field names shared by every record of a kind.

Then (issue #31): ``results`` still peaked at 1.3 GB for 100,000 judged pairs, about 11 kB a
pair. Each record's field values were a dict with a table of keys of its own (460 bytes for a
row of thirteen fields), the per-task rows of unresolved runs had tallies of their own (their
open items made every row distinct), and every judgment kept its justification and validity
checks, which no figure reads. Records now hold their values in dicts sharing one table of
keys (:func:`abp_tui.models.base.held_dict`), the rows share tallies whatever their open
items, and the figures read each judgment without what they do not use, a judgment of a
preference alone held once for each preference.
"""

from __future__ import annotations

import contextlib
import io
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from abp_tui.analysis.verdicts import decide
from abp_tui.cli import main
from abp_tui.models import ItemPreference, RunOutcome
from abp_tui.models.base import held_dict, trusted
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.store import judging
from tests.factories import PAIR_CHOICES, RUN_OUTCOME_VALUES, copy_db, judged_pairs


def _judged(db: sqlite_utils.Database, tmp_path: Path, pairs: int = 12) -> int:
    return judged_pairs(db, tmp_path, pairs)


def test_a_judged_studys_records_share_their_field_names_and_placements(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    pk = _judged(db, tmp_path)
    records = judging.records_of_design(db, pk)
    assert len(records.judgments) == 24
    assert len({id(j.__pydantic_fields_set__) for j in records.judgments}) == 1
    # The record read back is the one stored: every field set, of its type.
    first = records.judgments[0]
    assert first.model_fields_set == set(type(first).model_fields)
    assert isinstance(first.seconds_spent, float) and first.seconds_spent == 3.0
    assert first.status == "submitted" and isinstance(first.revision, int)

    decisions = decide(records)
    preferences = decisions.preferences
    assert len(preferences) == 12
    assert len({id(p.__pydantic_fields_set__) for p in preferences}) == 1
    reviews = [r for p in preferences for r in p.reviews]
    assert len(reviews) == 24
    assert len({id(r.__pydantic_fields_set__) for r in reviews}) == 1
    by_reviewer = {(j.item, j.reviewer): j for j in records.judgments}
    for p in preferences:
        for r in p.reviews:
            assert r.placement is by_reviewer[(p.item, r.reviewer)].placement
    preferred = [v for v in decisions.verdicts if v.preference_only]
    assert preferred
    assert len({id(v.__pydantic_fields_set__) for v in preferred}) == 1


def _bytes_each(make: Callable[[], object], count: int = 2000) -> float:
    make()  # what a first one builds once (its class, its table of keys)
    tracemalloc.start()
    try:
        held = [make() for _ in range(count)]
        now, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(held) == count
    return (now - 8 * count) / count  # the list's own slot for each


def test_a_records_field_values_share_their_table_of_keys() -> None:
    values = RUN_OUTCOME_VALUES
    # A record of ten fields with a dict of its own costs 360 bytes; with its values alone,
    # 260 (the values themselves are shared here: what is measured is what holds them).
    assert _bytes_each(lambda: trusted(RunOutcome, **values)) < 300
    # A placement: 180 bytes as a dict of its own, 100 with its values alone.
    assert _bytes_each(lambda: held_dict({"1": "run-a", "2": "run-b"})) < 140
    record = trusted(RunOutcome, **values)
    # Nothing of the record changes: its values, their order, equality, its JSON.
    assert record.__dict__ == values and list(record.__dict__) == list(values)
    assert record == RunOutcome(**values)
    assert record.model_dump_json() == RunOutcome(**values).model_dump_json()
    copied = record.model_copy(update={"trial": 2})
    assert copied.trial == 2 and record.trial == 1

    placement = held_dict({"1": "run-a", "2": "run-b"})
    assert placement == {"1": "run-a", "2": "run-b"} and list(placement) == ["1", "2"]
    placement["3"] = "run-c"  # a dict like any other: another key may still be added
    assert placement == {"1": "run-a", "2": "run-b", "3": "run-c"}
    # Names a holder's class has are held in a dict of their own.
    odd = held_dict({"__class__": 1, "__dict__": 2})
    assert odd == {"__class__": 1, "__dict__": 2}


def test_the_figures_read_each_judgment_without_what_no_figure_reads(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    pk = _judged(db, tmp_path)
    full = judging.records_of_design(db, pk)
    figures = judging.records_of_design(db, pk, figures=True)
    assert [j.judgment.preference for j in figures.judgments] == [
        j.judgment.preference for j in full.judgments
    ]
    assert [(j.item, j.reviewer, j.placement, j.created_at) for j in figures.judgments] == [
        (j.item, j.reviewer, j.placement, j.created_at) for j in full.judgments
    ]
    assert {j.judgment.justification for j in full.judgments} == {"Reads better."}
    assert {j.judgment.justification for j in figures.judgments} == {""}
    # A judgment of a preference alone is one of a few, held once each.
    assert len({id(j.judgment) for j in figures.judgments}) <= len(PAIR_CHOICES)
    found, expected = decide(figures), decide(full)
    # The same final preferences, but for the reviewers' words, which no figure reads (a
    # bundle's verdicts.jsonl, which carries them, is made from the full records).
    assert {r.justification for p in found.preferences for r in p.reviews} == {""}
    assert _wordless(found.preferences) == _wordless(expected.preferences)
    assert found.verdicts == expected.verdicts
    assert found.disagreements == expected.disagreements


def _wordless(preferences: list[ItemPreference]) -> list[ItemPreference]:
    """Final preferences without the reviewers' justifications."""
    return [
        p.model_copy(
            update={"reviews": tuple(r.model_copy(update={"justification": ""}) for r in p.reviews)}
        )
        for p in preferences
    ]


def _results_peak(path: Path) -> tuple[int, str]:
    out = io.StringIO()
    tracemalloc.start()
    try:
        with contextlib.redirect_stdout(out):
            code = main(["--db", str(path), "--reviewer", "lead", "results", "--json"])
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 0
    return peak, out.getvalue()


PER_JUDGED_PAIR_LIMIT = 4400
"""Bytes a judged pair (two reviewers) may add to the peak of ``results`` between 60 and 960
pairs: about 11 kB, then 4.9 kB, and 3.9 kB now that each run id, task id and item code is
held once and each verdict let go as its run's outcome is made. (Each study's plan is drawn
afresh, so its disagreements, and the bytes a pair adds, vary from run to run by a few per
cent: 900 pairs apart keep that well within the margin.)"""


def test_the_results_of_a_judged_study_grow_by_a_few_kilobytes_a_pair(
    tmp_path: Path, empty_db_template: Path
) -> None:
    paths = []
    for pairs in (60, 960):
        path = tmp_path / f"judged{pairs}.db"
        database = copy_db(empty_db_template, path)
        _judged(database, tmp_path, pairs)
        unblind(database, "panda", "lead")
        database.close()
        paths.append(path)
    _results_peak(paths[0])  # what a first call builds once (validators, imports)
    small, _text = _results_peak(paths[0])
    large, text = _results_peak(paths[1])
    per_pair = (large - small) / 900
    assert per_pair < PER_JUDGED_PAIR_LIMIT, f"{per_pair / 1024:.1f} kB a judged pair"
    document = json.loads(text)
    assert document.pop("watching")["figures"]
    large_db = sqlite_utils.Database(paths[1])
    assert document == compute_results(large_db, 1).model_dump(mode="json")
    assert len(document["outcomes"]) == 1920
    large_db.close()
