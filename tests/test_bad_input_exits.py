"""Bad input ends in one line and exit status 1, never an internal error (3), never a hang
(issues 26 and 27).

Each case below was an internal error or waited forever before: a study named but absent, a
negative bootstrap seed, resamples by the trillion, a --prior past a float's use, an output path
of the wrong kind or in a folder that cannot be, a pack with an empty task id or an unknown record
state, NaN in a bundle's records, a named pipe given as an input file, a reader that closes the
output early. And ``stats kappa`` counts its table instead of unrolling it into items.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.services.station_files import body_hash
from abp_tui.stats import agreement, agreement_pairs
from abp_tui.stats.agreement import WeightBasis, compute_variable, pair_from_confusion
from abp_tui.stats.limits import MAX_RESAMPLES
from abp_tui.store import connect
from tests.factories import Cli, CliResult, abp_judged, two_reviewer_design

ROOT = Path(__file__).resolve().parents[1]


def _run(cli: Cli, *argv: str | Path) -> CliResult:
    """``cli`` with ``--db`` last, where a command of two words (``pack open``) takes it too."""
    return cli(*argv, "--db", cli.db_path)


def _one_line(err: str) -> str:
    assert err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    return err


class Hung(BaseException):
    """Raised by the alarm: a BaseException, so that no ``except OSError`` or ``except
    Exception`` of the command can take it for an input problem and carry on."""


@pytest.fixture
def alarm() -> Iterator[None]:
    """A command that waits forever fails the test after 20 seconds instead of hanging it."""

    def expired(signum: int, frame: object) -> None:
        raise Hung("the command did not finish: it waits on its input")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def ranked(tmp_path: Path, cli: Cli) -> Cli:
    """An unblinded study ``split`` of four systems compared on 12 tasks, ready to rank."""
    rows = [
        {
            "idx": i,
            "instruction": f"Task {i}.",
            "input": "",
            "response1": "one",
            "response2": "two words",
            "cmp_key": ("m1_m2", "m2_m3", "m3_m4", "m1_m4")[i % 4],
            "annotator1": 1 + i % 3 % 2,
        }
        for i in range(12)
    ]
    path = tmp_path / "split.json"
    path.write_text(json.dumps(rows), "utf-8")
    assert cli("import", path).code == 0
    assert cli("unblind", "--yes").code == 0
    return cli


@pytest.fixture
def judged(cli: Cli) -> Cli:
    """The ABP demo (study ``abp-demo``), unblinded and judged."""
    db = connect(cli.db_path)
    try:
        abp_judged(db)
    finally:
        db.close()
    return cli


def _table(tmp_path: Path) -> Path:
    path = tmp_path / "t.csv"
    rows = "".join(f"i{i},{r},v,{(i + (r == 'b')) % 3}\n" for i in range(30) for r in "ab")
    path.write_text("item,reviewer,variable,value\n" + rows, "utf-8")
    return path


# -- a study named but absent ----------------------------------------------------------------------
@pytest.mark.parametrize("command", ["agreement", "ranking", "results", "unblind"])
def test_a_study_named_but_absent_is_said_to_be_absent(ranked: Cli, command: str) -> None:
    result = ranked(command, "--study", "nope")
    assert result.code == 1
    err = _one_line(result.err)
    assert "no study 'nope' in " in err and "(one of: pandalm-split)" in err
    assert str(ranked.db_path) in err  # the database it read, so a wrong --db shows
    assert "blind" not in err  # not "still blind": there is nothing to unblind


# -- numeric options out of their range ------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["ranking", "--seed", "-1"], "--seed: expected a whole number from 0 to"),
        (["ranking", "--prior", "1e300"], "--prior: expected a number of pseudo-ties from 0 to"),
        (["ranking", "--resamples", "1000000000000"], f"at most {MAX_RESAMPLES}, got 1000000"),
        (["agreement", "--resamples", "1000000000000"], f"at most {MAX_RESAMPLES}, got 1000000"),
        (["agreement", "--seed", "-1"], "--seed: expected a whole number from 0 to"),
        (
            ["judges", "--resamples", "100001"],
            "--resamples: expected a count of 0 (no interval) or at least 100, at",
        ),
        (["study", "create", "--seed", str(2**63)], "--seed: expected a whole number from -9"),
        (["study", "create", "--reviewers-per-item", "0"], "--reviewers-per-item: expected a"),
    ],
)
def test_a_number_outside_its_range_is_refused_in_one_line(
    ranked: Cli, argv: list[str], expected: str
) -> None:
    result = _run(ranked, *argv)
    assert result.code == 1 and result.out == ""
    assert expected in _one_line(result.err)


@pytest.mark.parametrize("option", ["--resamples", "--pair-resamples"])
def test_a_table_is_not_resampled_a_trillion_times(tmp_path: Path, cli: Cli, option: str) -> None:
    table = _table(tmp_path)
    result = cli("agreement", "--table", table, "--level", "nominal", option, "1000000000000")
    assert result.code == 1
    assert (
        f"{option}: expected a count of 0 (no interval) or at least 100, at most 100000"
        in _one_line(result.err)
    )
    # The largest count allowed still runs.
    assert cli("agreement", "--table", table, "--level", "nominal", option, "2000").code == 0


def test_a_value_that_is_no_number_stays_a_usage_error(cli: Cli) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli("ranking", "--seed", "seven")
    assert stopped.value.code == 2


# -- outputs of the wrong kind ---------------------------------------------------------------------
def test_an_export_over_a_folder_says_a_file_was_expected(tmp_path: Path, judged: Cli) -> None:
    folder = tmp_path / "existing"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine", "utf-8")
    for what in ("judgments", "verdicts", "abp-verdict"):
        result = judged("export", what, "--study", "abp-demo", "--out", folder)
        assert result.code == 1, result.err
        assert f"{folder} is a folder: expected a file to write" in _one_line(result.err)
    assert [p.name for p in folder.iterdir()] == ["keep.txt"]  # nothing left beside it


def test_schemas_over_a_file_say_a_folder_was_expected(tmp_path: Path, cli: Cli) -> None:
    target = tmp_path / "afile"
    target.write_text("mine", "utf-8")
    result = cli("schema", "--out", target)
    assert result.code == 1
    assert f"{target} is a file: expected a folder to write the schemas into" in _one_line(
        result.err
    )
    assert target.read_text("utf-8") == "mine"


def test_a_pack_that_cannot_be_written_is_refused_before_it_is_issued(
    tmp_path: Path, cli: Cli
) -> None:
    db = connect(cli.db_path)
    try:
        two_reviewer_design(tmp_path, db)
    finally:
        db.close()
    blocker = tmp_path / "afile"
    blocker.write_text("mine", "utf-8")
    result = _run(cli, "pack", "study", "--reviewer", "a", "--out", blocker / "a.pack.json")
    assert result.code == 1
    assert "afile is a file, not a folder the study pack can be written in" in _one_line(result.err)
    check = sqlite_utils.Database(cli.db_path)
    try:
        issued = check.execute("SELECT count(*) FROM audit_log WHERE action = 'pack issued'")
        assert issued.fetchone()[0] == 0
    finally:
        check.close()


def test_a_file_the_system_refuses_is_one_line_naming_it(tmp_path: Path, judged: Cli) -> None:
    """Whatever command meets it: an OSError naming a file is the user's to fix, not a bug."""
    blocker = tmp_path / "afile"
    blocker.write_text("mine", "utf-8")
    out = blocker / "sub" / "bundle"
    result = judged("export", "bundle", "--study", "abp-demo", "--out", out)
    assert result.code == 1
    err = _one_line(result.err)
    assert str(blocker) in err
    assert blocker.read_text("utf-8") == "mine"


# -- a pack whose fields no station can hold -------------------------------------------------------
@pytest.fixture
def pack(tmp_path: Path, cli: Cli) -> Path:
    db = connect(cli.db_path)
    try:
        two_reviewer_design(tmp_path, db)
    finally:
        db.close()
    out = tmp_path / "a.pack.json"
    assert _run(cli, "pack", "study", "--reviewer", "a", "--out", out).code == 0
    return out


def _resigned(path: Path, change: str, value: object) -> Path:
    document = json.loads(path.read_text("utf-8"))
    if change == "task":
        document["items"][0]["task"]["id"] = value
    else:
        document["items"][0]["responses"][0]["record_state"] = value
    document["sha256"] = body_hash(document)
    out = path.with_name(f"{change}.pack.json")
    out.write_text(json.dumps(document), "utf-8")
    return out


@pytest.mark.parametrize(
    ("change", "value", "field"),
    [
        ("task", "", "$.items[0].task.id"),
        ("state", "WEIRD", "$.items[0].responses[0].record_state"),
    ],
)
def test_a_pack_with_an_empty_task_id_or_an_unknown_state_names_the_field(
    tmp_path: Path, cli: Cli, pack: Path, change: str, value: object, field: str
) -> None:
    bad = _resigned(pack, change, value)
    station = tmp_path / "station.db"
    result = cli("pack", "open", bad, "--db", station)
    assert result.code == 1
    assert f"{bad}: {field}: " in _one_line(result.err)
    assert cli("pack", "open", pack, "--db", station).code == 0  # nothing was left half-open


# -- a bundle's records holding NaN ----------------------------------------------------------------
def test_nan_in_a_bundle_record_names_the_file_and_line(tmp_path: Path, judged: Cli) -> None:
    out = tmp_path / "bundle"
    assert judged("export", "bundle", "--study", "abp-demo", "--out", out).code == 0
    runs = out / "runs" / "runs.jsonl"
    lines = runs.read_bytes().split(b"\n")
    record = json.loads(lines[1])
    record["wall_clock_ms"] = float("nan")  # a float field: NaN passes a float's validation
    lines[1] = json.dumps(record, separators=(",", ":"), sort_keys=True).encode("utf-8")
    data = b"\n".join(lines)
    runs.write_bytes(data)
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    for entry in manifest["files"]:
        if entry["path"] == "runs/runs.jsonl":  # the hash matches: only the content is wrong
            entry["sha256"], entry["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2), "utf-8")
    result = judged("verify", out)
    assert result.code == 1
    err = _one_line(result.err)
    assert "runs/runs.jsonl: line 2" in err and "NaN is not a JSON number" in err


# -- named pipes given as input files --------------------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["merge", "{fifo}"],
        ["pack", "open", "{fifo}"],
        ["agreement", "--table", "{fifo}", "--level", "nominal"],
        ["agreement", "--table", "{table}", "--header", "{fifo}"],
        ["stats", "kappa", "{fifo}"],
        ["study", "create", "{fifo}"],
        ["gate", "{table}", "--baseline", "{fifo}"],
        ["gate", "{table}", "--config", "{fifo}"],
    ],
    ids=lambda argv: " ".join(a for a in argv if not a.startswith("{")),
)
def test_a_named_pipe_is_refused_unopened(
    tmp_path: Path, cli: Cli, alarm: None, argv: list[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    table = _table(tmp_path)
    connect(cli.db_path).close()  # a database there: the pipe is what is refused
    result = _run(cli, *(a.format(fifo=fifo, table=table) for a in argv))
    assert result.code == 1
    assert f"{fifo}: a named pipe: expected a regular file" in _one_line(result.err)


def test_a_named_pipe_to_import_is_refused_unopened(tmp_path: Path, cli: Cli, alarm: None) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = cli("import", fifo)
    assert result.code == 1
    assert f"{fifo}: a named pipe: expected a file or folder of run records" in result.err


# -- a reader that closes the output early ---------------------------------------------------------
def test_a_closed_output_pipe_ends_quietly() -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written: every write is EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "abp_tui", "stats", "wilson", "3", "10", "--json"],
            stdout=write,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)
    assert done.returncode in (0, 1), done.stderr
    assert done.stderr == b""


# -- stats kappa counts its table ------------------------------------------------------------------
def test_kappa_of_a_table_is_counted_not_unrolled(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unrolled(*args: object, **kwargs: object) -> object:
        raise AssertionError("the confusion table was unrolled into one record per item")

    monkeypatch.setattr(agreement, "compute_variable", unrolled)
    size = 120
    rows = [",".join(str(50 if i == j else (i * j) % 3) for j in range(size)) for i in range(size)]
    path = tmp_path / "big.csv"
    path.write_text("\n".join(rows) + "\n", "utf-8")
    result = _run(cli, "stats", "kappa", path, "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["n_items"] == sum(
        50 if i == j else (i * j) % 3 for i in range(size) for j in range(size)
    )


@pytest.mark.parametrize("seed", range(12))
def test_kappa_of_a_table_equals_kappa_of_its_items(seed: int) -> None:
    """Counted, the figures are those of the items the table counts, whatever the order of its
    categories (numbers are weighed as numbers) and the weights' basis."""
    rnd = random.Random(seed)
    q = rnd.randint(2, 5)
    counts = [[rnd.choice([0, 0, 1, 2, 5, 9]) for _ in range(q)] for _ in range(q)]
    counts[0][0] += 1
    level = ("nominal", "ordinal", "interval", "ratio")[seed % 4]
    numbers: list[str | int | float] = rnd.sample([0, 1, 2, 4, 7, 10, 0.5], q)
    categories = numbers if level != "nominal" else [f"c{k}" for k in range(q)]
    basis: WeightBasis = "observed" if seed % 3 == 0 else "declared"
    records = []
    item = 0
    for k, row in enumerate(counts):
        for col, count in enumerate(row):
            for _ in range(count):
                records.append((str(item), agreement_pairs.CONFUSION_ROWS, categories[k]))
                records.append((str(item), agreement_pairs.CONFUSION_COLUMNS, categories[col]))
                item += 1
    items = compute_variable(
        records, level, list(categories), resamples=0, pair_resamples=0, weight_basis=basis
    ).pairs[0]
    counted = pair_from_confusion(counts, categories, level, weight_basis=basis)
    assert counted.model_dump(mode="json") == items.model_dump(mode="json")
