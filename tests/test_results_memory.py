"""Results of a large study in bounded memory: what ``abp-tui results --json`` holds grows by a
few kilobytes a pair, not by the whole document several times over.

What was found: on a PandaLM-shaped study (three reviewers planned on every pair, nothing judged
yet) ``results`` peaked at 3.1 GB for 100,000 pairs, about 31 kB a pair: each run's and item's
record validated afresh with a set of its own, a full group row for every task and condition,
the text tables it did not print, the document as a tree of dicts and then as one indented
string, escaped again. Measured here with tracemalloc on two sizes of one study shape: the
growth per pair, which a constant start-up cost does not blur.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import tracemalloc
from pathlib import Path

import sqlite_utils
from pydantic import BaseModel

from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.cli import main
from abp_tui.cli.output import emit, streamed
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import compute_results, unblind
from tests.factories import copy_db

PER_PAIR_LIMIT = 12 * 1024
"""Bytes a pair may add to the peak (about 31 kB before; about 5 kB now)."""


def _study(tmp_path: Path, template: Path, pairs: int) -> tuple[Path, sqlite_utils.Database]:
    source = tmp_path / f"p{pairs}" / "testset-v1.json"
    write_pairs(source, pairs)
    path = tmp_path / f"p{pairs}.db"
    db = copy_db(template, path)
    import_paths(db, [source], study="panda")
    # Four runs failed by their source: states to count, so a row for every task and
    # condition (a preference design with none has no rows by task).
    db.execute(
        "UPDATE runs SET origin_status = 'INFRA_ERROR' "
        "WHERE pk IN (SELECT pk FROM runs ORDER BY pk LIMIT 4)"
    )
    db.conn.commit()
    create_from_choices(db, DesignChoices(study="panda", reviewers="ann,bo,cy"))
    unblind(db, "panda", "lead")
    return path, db


def _peak(db_path: Path) -> tuple[int, str]:
    out = io.StringIO()
    tracemalloc.start()
    try:
        with contextlib.redirect_stdout(out):
            code = main(["--db", str(db_path), "--reviewer", "lead", "results", "--json"])
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 0
    return peak, out.getvalue()


def test_results_of_a_large_study_grow_by_a_few_kilobytes_a_pair(
    tmp_path: Path, empty_db_template: Path
) -> None:
    small_path, small_db = _study(tmp_path, empty_db_template, 300)
    large_path, large_db = _study(tmp_path, empty_db_template, 1500)
    small_db.close()
    _peak(small_path)  # what a first call builds once (validators, imports) is not the study's
    small, _text = _peak(small_path)
    large, text = _peak(large_path)
    per_pair = (large - small) / 1200
    assert per_pair < PER_PAIR_LIMIT, f"{per_pair / 1024:.1f} kB a pair"
    # What is written one row at a time is the document itself.
    document = json.loads(text)
    expected = compute_results(large_db, 1).model_dump(mode="json")
    assert document.pop("watching")["figures"]  # the command adds the sequences watched
    assert document == expected
    assert len(document["by_task"]) == 3000 and len(document["outcomes"]) == 3000
    large_db.close()


class _Row(BaseModel):
    name: str
    values: list[int]


class _Document(BaseModel):
    title: str
    rows: list[_Row]
    empty: list[_Row]
    after: dict[str, str]


def test_a_document_written_row_by_row_is_the_same_text_as_written_whole() -> None:
    model = _Document(
        title="t\u202ex",
        rows=[_Row(name="a\nb", values=[1, 2]), _Row(name="c", values=[])],
        empty=[],
        after={"k": "v"},
    )

    args = argparse.Namespace(json=True)
    whole, rows = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(whole):
        emit(args, model.model_dump(mode="json"), "")
    with contextlib.redirect_stdout(rows):
        emit(args, streamed(model, "rows", "empty"), "")
    assert rows.getvalue() == whole.getvalue()
    assert "\\u202e" in rows.getvalue()  # escaped as every JSON output is
    assert json.loads(rows.getvalue()) == model.model_dump(mode="json")
