"""An export and ``verify`` of a large study hold what the analysis keeps, not its files.

What was found: on a PandaLM-shaped study of 20,000 pairs both peaked near 1 GB (about 45 kB a
pair, so 5 GB at 100,000). Each record file was read whole, decoded whole and split into a list
of lines before a record was parsed; every run was held as a full model with its record's
objects (4 kB); every derived file was made whole and all of them held together until the last
was made, ``summary.json`` (a group per task and condition) through the standard library's
indenting encoder, which builds a list of every piece of the text first; the report likewise.
Now the record files are read a line at a time, a run's record is held as its JSON text, and
each derived file is written or hashed as it is made, the largest a piece at a time, with the
same bytes.
"""

from __future__ import annotations

import json
import math
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.export import bundle_reading, verify
from abp_tui.export import records as rec
from abp_tui.export.bundle_analysis import RunVerdict, _jsonl, analyse, parse
from abp_tui.export.bundle_reading import read_bundle
from abp_tui.export.bundle_writing import FolderFiles
from abp_tui.export.canonical import (
    json_bytes,
    json_chunks,
    json_list_chunks,
    jsonl_bytes,
    jsonl_chunks,
)
from abp_tui.export.derive import REPORT, SUMMARY, VERDICTS, derive, derive_each
from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.store import connect
from tests.factories import abp_judged, exported_abp_bundle

SOURCE_LINES = (rec.RUNS, rec.ITEMS, rec.JUDGMENTS, rec.ADJUDICATIONS, rec.AUDIT)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return exported_abp_bundle(tmp_path_factory.mktemp("exported"))


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PandaLM-shaped study of 300 pairs (a task each, two runs, three annotators' votes),
    ten of its runs failed by their source, a preference design of three reviewers, unblinded,
    exported."""
    root = tmp_path_factory.mktemp("pairs")
    write_pairs(root / "testset-v1.json", 300)
    db = connect(root / "b.db")
    try:
        import_paths(db, [root / "testset-v1.json"], fmt="pairwise")
        # Ten runs failed by their source: states to count, so a row for every task and
        # condition (a preference design with none has no rows by task).
        db.execute(
            "UPDATE runs SET origin_status = 'INFRA_ERROR' "
            "WHERE pk IN (SELECT pk FROM runs ORDER BY pk LIMIT 10)"
        )
        db.conn.commit()
        design = StudyDesign(
            study="pandalm-testset-v1",
            name="again-blind",
            seed=7,
            rubric="none",
            contrasts="all-pairs",
            reviewers=["r1", "r2", "r3"],
            reviewers_per_item=3,
        )
        pk = create_design(db, design).pk
        unblind(db, "pandalm-testset-v1", "lead")
        export_bundle(db, pk, root / "bundle")
    finally:
        db.close()
    return root / "bundle"


def test_verify_reads_the_record_files_a_line_at_a_time(
    exported: Path, pairs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``verify`` parses every record file without reading any whole (it reads them a chunk at
    a time, hashed as they are), the votes included."""
    whole: list[str] = []
    read = bundle_reading.Records.__getitem__

    def spy(self: bundle_reading.Records, name: str) -> bytes:
        whole.append(name)
        return read(self, name)

    monkeypatch.setattr(bundle_reading.Records, "__getitem__", spy)
    for bundle in (exported, pairs, pairs.with_suffix(".zip")):
        assert verify(bundle).derived > 10
    assert not [n for n in whole if n.endswith(".jsonl")], sorted(set(whole))


def test_the_export_reads_back_its_record_files_a_line_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export reads back each record file it wrote to parse it, never whole."""
    whole: list[str] = []
    read = FolderFiles.__getitem__

    def spy(self: FolderFiles, path: str) -> bytes:
        whole.append(path)
        return read(self, path)

    monkeypatch.setattr(FolderFiles, "__getitem__", spy)
    db = connect(tmp_path / "b.db")
    try:
        export_bundle(db, abp_judged(db), tmp_path / "bundle")
    finally:
        db.close()
    assert not [n for n in whole if n in SOURCE_LINES], whole


def test_the_largest_derived_files_are_made_a_piece_at_a_time(pairs: Path) -> None:
    """``summary.json`` (a group a piece), ``verdicts.jsonl`` and the report come a piece at a
    time, the pieces joined being the bytes the bundle holds."""
    files = read_bundle(pairs)
    analysis = analyse(parse(files))
    made = dict(derive_each(files, analysis))
    groups = len(json.loads(files[SUMMARY])["by_task"])
    assert groups == 600  # each pair's task under each of its two conditions
    for path in (SUMMARY, VERDICTS, REPORT):
        pieces = made[path]
        assert not isinstance(pieces, bytes), path
        joined = list(pieces)
        assert len(joined) > (1 if path != VERDICTS else 0), path  # verdicts: 1,000 lines a piece
        assert b"".join(joined) == files[path], path
    assert derive(files, analysis) == {p: files[p] for p in made}


def test_summary_pieces_are_held_one_group_at_a_time(pairs: Path) -> None:
    """Writing ``summary.json`` holds a group's text at a time: the memory it takes while its
    pieces are hashed is a small part of the file's size (the indenting encoder held a list of
    every piece of the text, several times the file)."""
    files = read_bundle(pairs)
    analysis = analyse(parse(files))
    pieces = dict(derive_each(files, analysis))[SUMMARY]
    assert not isinstance(pieces, bytes)
    size = len(files[SUMMARY])
    tracemalloc.start()
    try:
        total = sum(len(piece) for piece in pieces)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert total == size > 200_000
    assert peak < size / 2, (peak, size)


DOCUMENTS: list[dict[str, Any]] = [
    {},
    {"a": [], "b": {}, "c": [[]], "d": [{}]},
    {
        "z": [{"y": [1, 2.123456789, {"x": []}], "w": {}}, {"q": math.nan, "r": "a\nb"}],
        "é\u2028": 'line\u2028separator \u0085 and \\ and "quotes"',
        "m": {"n": [1, [2, [3, []]]], "o": None, "p": True},
        "k": [[1, 2], [], [{}]],
    },
]


@pytest.mark.parametrize("document", DOCUMENTS)
@pytest.mark.parametrize("derived", [True, False])
def test_a_document_made_a_piece_at_a_time_has_the_bytes_made_at_once(
    document: dict[str, Any], derived: bool
) -> None:
    for streamed_keys in ([], sorted(k for k, v in document.items() if isinstance(v, list))):
        rest = {k: v for k, v in document.items() if k not in streamed_keys}
        streamed = {k: iter(document[k]) for k in streamed_keys}
        made = b"".join(json_chunks(rest, streamed, derived=derived))
        assert made == json_bytes(document, derived=derived), streamed_keys
    rows = [document, document, {"n": 1.23456789}] * 700
    assert b"".join(jsonl_chunks(rows, derived=True)) == jsonl_bytes(rows, derived=True)
    assert b"".join(jsonl_chunks([])) == jsonl_bytes([]) == b""


def test_a_held_run_gives_its_record_as_published(pairs: Path) -> None:
    """A run held with its record as JSON text gives the record its line publishes, its keys
    in their order, and holds a good deal less than the run as parsed."""
    files = read_bundle(pairs)
    lines = files[rec.RUNS].decode("utf-8").splitlines()
    parsed = _jsonl(files, rec.RUNS, rec.PublishedRun)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        held = rec.held_runs(parsed)
        each = (tracemalloc.get_traced_memory()[0] - before) / len(held)
    finally:
        tracemalloc.stop()
    assert len(held) == len(lines) == 600
    for line, run, published in zip(lines, held, parsed, strict=True):
        record = json.loads(line)["record"]
        assert run.record == record == published.record
        assert list(run.record) == list(record)
        assert run.output == published.output and run.id == published.id
        assert not {"record", "record_deflated", "record_dictionary"} & set(run.model_dump())
    assert parse(files).runs == held
    # The runs as parsed hold their records' objects (4 kB a run with them); as held, far less.
    assert each < 1_500, each


def test_a_held_runs_files_and_a_held_task_are_as_published(pairs: Path) -> None:
    """A run held gives its output's, trace's and diff's references as its line publishes them
    (a run without a diff has none), and a task held gives the analysis what the task says and
    the report the task itself, as ``protocol/tasks.json`` publishes it."""
    files = read_bundle(pairs)
    inputs = parse(files)
    for line, run in zip(files[rec.RUNS].decode("utf-8").splitlines(), inputs.runs, strict=True):
        published = rec.PublishedRun.model_validate_json(line)
        assert (run.output, run.trace, run.diff) == (
            published.output,
            published.trace,
            published.diff,
        )
        assert run.output is not None and run.diff is None and "diff" not in json.loads(line)
    tasks = json.loads(files[rec.TASKS])
    assert len(inputs.tasks) == len(tasks) == 300
    for held, task in zip(inputs.tasks, tasks, strict=True):
        as_published = rec.PublishedTask.model_validate(task)
        assert held.published == as_published
        assert held.published.model_dump(mode="json") == task
        assert (held.id, held.fatal_criteria, held.risk_type, held.placeholder) == (
            as_published.id,
            as_published.fatal_criteria,
            as_published.risk_type,
            as_published.placeholder,
        )
        assert held.prompt_blank == (not as_published.prompt.strip())


def test_the_verdicts_built_unvalidated_are_the_validated_ones(exported: Path, pairs: Path) -> None:
    """The verdict of each run, built from values of its fields' types without validating them
    again, is the verdict validating them gives: the same values of the same types."""
    for bundle in (exported, pairs):
        for verdict in analyse(parse(read_bundle(bundle))).verdicts:
            checked = RunVerdict.model_validate(dict(verdict.__dict__))
            for name in RunVerdict.model_fields:
                mine, theirs = getattr(verdict, name), getattr(checked, name)
                assert mine == theirs and type(mine) is type(theirs), name


def test_the_gate_plans_the_design_again_only_when_some_run_is_in_no_item(
    pairs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looking for runs imported after the design was planned (in no item) plans the design
    again (a study's runs, items and codes: a third of a large study's memory again) only when
    some run the plan could take is in no item; when every one is, none can be missing."""
    from abp_tui.analysis import reruns
    from abp_tui.export.gate import evaluate

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the design was planned again")

    analysis = analyse(parse(read_bundle(pairs)))
    monkeypatch.setattr(reruns, "plan_items", refused)
    gate = evaluate(analysis)
    assert not [c for c in gate.checks if c.requirement == "reruns planned"]
    # A run in no item: the plan is made to see whether the design would take it.
    stray = next(r for r in analysis.inputs.runs if r.origin_status is None)  # not failed
    with pytest.raises(AssertionError, match="planned again"):
        reruns.missing_from_plan(
            analysis.inputs.study_design,
            analysis.inputs.runs,
            {r for i in analysis.inputs.items for r in i.runs if r != stray.id},
        )


def test_the_indented_writer_writes_what_the_standard_library_writes() -> None:
    """Each piece of a streamed document is written without the standard library's indenting
    encoder (a cycle of closures a call), byte for byte as it writes it."""
    values: list[Any] = [
        0,
        -1,
        10**30,
        1.5,
        -0.0,
        1e-7,
        math.inf,
        -math.inf,
        True,
        None,
        "",
        'é\u2028\x00"\\\n',
        [],
        {},
        [[], [{}], [1, [2, [3]]]],
        {"b": {"a": [1, {"z": None, "y": [True, False]}]}, "a": []},
        {10: "ten", 9: "nine", -1: 0},
        {1.5: 1, 0.5: 2},
        (1, (2, 3)),
    ]
    for value in values:
        document = {"k": value, "l": [value, value]}
        made = b"".join(json_chunks({"k": value}, {"l": iter([value, value])}))
        assert made == json_bytes(document), value
        for listed in ([], [value], [value, document]):
            assert b"".join(json_list_chunks(iter(listed))) == json_bytes(listed), listed


def test_verify_reads_each_held_runs_file_references_a_few_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A held run keeps where its output, trace and diff are as deflated text, inflated and
    parsed on each read: verify reads them once for each check (the files' hashes, the files
    produced, the report's row), not once for each reference named (sixteen times a
    run before)."""
    folder = exported_abp_bundle(tmp_path)
    runs = len((folder / rec.RUNS).read_bytes().splitlines())
    reads = 0
    inflate = rec.HeldRun._files

    def counted(self: rec.HeldRun) -> dict[str, Any]:
        nonlocal reads
        reads += 1
        return inflate(self)

    monkeypatch.setattr(rec.HeldRun, "_files", counted)
    assert verify(folder).derived > 0
    assert runs > 10
    assert reads / runs <= 8, f"{reads / runs:.1f} reads a run"
