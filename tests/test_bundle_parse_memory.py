"""A bundle's judgment and item records are held leaner, and verify hashes each run once.

What was found (issue #31): ``export bundle`` (reading back what it wrote) and ``verify`` held,
for each judgment of a preference alone, a decision of its own (a model, a dict of its values
and a copy of its justification), although a study's hundred thousand such decisions are a
handful: the same few preferences and stock justifications; and each item its own tuple of its
two conditions. ``verify`` then made every planned run's commitment record again from what was
held (its record inflated and parsed, its facts dumped) to hash it. Now every judgment deciding
alike holds one decision, every item of the same conditions one tuple of them, and ``verify``
hashes each run's commitment record as the run is read, letting go of the hashes once checked.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from abp_tui.export import bundle
from abp_tui.export import records as rec
from abp_tui.export.bundle_analysis import Analysis, Inputs, parse
from abp_tui.export.bundle_reading import read_bundle
from abp_tui.export.claims import check_commitment
from abp_tui.export.errors import BundleMismatch
from abp_tui.models import Item, JudgmentRevision
from abp_tui.models.base import shared_fields
from tests.factories import exported_judged, parsed_size


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory, empty_db_template: Path) -> dict[int, Path]:
    root = tmp_path_factory.mktemp("parsed")
    return {pairs: exported_judged(root, empty_db_template, pairs) for pairs in (60, 360)}


def _parsed(bundle: Path) -> int:
    """Bytes a bundle's records hold once parsed (its files read beforehand)."""
    now, inputs = parsed_size(bundle)
    assert len(inputs.judgments) == 2 * len(inputs.items) == len(inputs.runs)
    return now


PARSED_PER_PAIR = 3_200
"""Bytes a judged pair (two runs, two reviewers' judgments, its item and task) may add to the
parsed records: before, about 3,330 (each judgment's decision a model, a dict and a copy of its
justification of its own, each item a tuple of its conditions); now about 3,030."""


def test_parsed_records_grow_by_little_a_pair(bundles: dict[int, Path]) -> None:
    _parsed(bundles[60])  # what a first call builds once (validators, imports)
    grown = (_parsed(bundles[360]) - _parsed(bundles[60])) / 300
    assert grown < PARSED_PER_PAIR, f"{grown:.0f} bytes a judged pair"


def test_judgments_deciding_alike_hold_one_decision(bundles: dict[int, Path]) -> None:
    inputs = parse(read_bundle(bundles[360]))
    decided = {(j.judgment.preference, j.judgment.justification) for j in inputs.judgments}
    assert len(decided) == 3  # the three choices drawn, one justification
    assert len({id(j.judgment) for j in inputs.judgments}) == len(decided)


def _lines(bundle: Path, path: str) -> list[bytes]:
    return (bundle / path).read_bytes().splitlines()


def test_parsed_records_are_the_ones_pydantic_reads(bundles: dict[int, Path]) -> None:
    bundle = bundles[60]
    files = read_bundle(bundle)
    inputs = parse(files)
    judgments = [
        shared_fields(JudgmentRevision.model_validate_json(line))
        for line in _lines(bundle, rec.JUDGMENTS)
    ]
    assert inputs.judgments == judgments
    assert [j.model_dump_json() for j in inputs.judgments] == [
        j.model_dump_json() for j in judgments
    ]
    items = [Item.model_validate_json(line) for line in _lines(bundle, rec.ITEMS)]
    assert inputs.items == items
    holder = rec.RunHolder()
    runs = [
        holder.careful(shared_fields(rec.PublishedRun.model_validate_json(line)))
        for line in _lines(bundle, rec.RUNS)
    ]
    assert inputs.runs == runs
    for found, read in zip(inputs.runs, runs, strict=True):
        assert found.record == read.record and found.located() == read.located()
        assert found.record_deflated == read.record_deflated


def test_a_record_line_is_refused_as_before(bundles: dict[int, Path]) -> None:
    files = dict(read_bundle(bundles[60]))
    lines = files[rec.JUDGMENTS].splitlines()
    lines[2] = lines[2].replace(b'"reason":""', b'"reason":"","extra":1')
    files[rec.JUDGMENTS] = b"\n".join(lines) + b"\n"
    with pytest.raises(BundleMismatch) as refused:
        parse(files)
    assert str(refused.value) == (
        "judging/judgments.jsonl: line 3: extra: Extra inputs are not permitted"
    )
    files = dict(read_bundle(bundles[60]))
    lines = files[rec.ITEMS].splitlines()
    lines[0] = lines[0].replace(b'"trial":1', b'"trial":"one"')
    files[rec.ITEMS] = b"\n".join(lines) + b"\n"
    with pytest.raises(BundleMismatch, match=r"^judging/items\.jsonl: line 1: trial: "):
        parse(files)


def test_a_run_has_an_output_when_its_line_names_one(bundles: dict[int, Path]) -> None:
    inputs = parse(read_bundle(bundles[60]))
    lines = _lines(bundles[60], rec.RUNS)
    assert inputs.runs and all(r.has_output for r in inputs.runs)
    holder = rec.RunHolder()
    for output in (None, json.loads(lines[0])["output"]):
        line = json.dumps({**json.loads(lines[0]), "output": output}).encode()
        held = holder.careful(rec.PublishedRun.model_validate_json(line))
        assert held.has_output == (output is not None) == (held.output is not None)


def test_verify_hashes_each_run_as_read_and_lets_go_of_the_hashes_once_checked(
    bundles: dict[int, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[Inputs] = []
    analysed: list[Inputs] = []
    ours_analyse = bundle.analyse_or_refuse

    def read(files: Any, **options: Any) -> Inputs:
        parsed.append(parse(files, **options))
        return parsed[-1]

    def seen(inputs: Inputs) -> Analysis:
        analysed.append(inputs)
        return ours_analyse(inputs)

    monkeypatch.setattr("abp_tui.export.bundle.parse", read)
    monkeypatch.setattr(bundle, "analyse_or_refuse", seen)
    report = bundle.verify(bundles[60])
    assert report.records_bound
    (inputs,) = parsed
    assert len(inputs.run_digests) == 32 * len(inputs.runs) > 0
    assert analysed[0].run_digests == b""
    # The hashes made as the lines were read are the ones made again from the runs held.
    files = read_bundle(bundles[60])
    again = parse(files)
    assert again.run_digests == b""
    assert check_commitment(files, inputs.design, inputs)
    assert check_commitment(files, again.design, again)
    wrong = dataclasses.replace(inputs, run_digests=bytes(len(inputs.run_digests)))
    with pytest.raises(BundleMismatch, match=r"^runs/runs\.jsonl: the runs the design plans"):
        check_commitment(files, wrong.design, wrong)
