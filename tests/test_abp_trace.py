"""ABP trace import (abp-trace/v1): runs and events, seed 003's checks, skip-invalid, streaming."""

from __future__ import annotations

import hashlib
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.bench.imports import write_trace
from abp_tui.formats import detect
from abp_tui.formats.abp_trace import trial_from_name
from abp_tui.models import Run, Study, TraceEvent
from abp_tui.models.runs import EventRow, TraceEventBatch
from abp_tui.services.importing import import_paths
from abp_tui.store import ImportWriter, connect
from abp_tui.store.queries import count, load_run
from tests.factories import Cli
from tests.import_helpers import nothing_stored

START: dict[str, Any] = {
    "t": "2026-07-02T14:12:01.402Z",
    "seq": 1,
    "kind": "run.start",
    "engine": "oxagen/1.4.2",
    "model": "anthropic/claude-sonnet-5",
    "task": "gh-vercel-next.js-81234",
    "config": {"budgetUsd": 5, "timeoutSeconds": 1200},
}


def _tokens(i: int, o: int, cr: int, cw: int) -> dict[str, int]:
    return {"input": i, "output": o, "cacheRead": cr, "cacheWrite": cw}


def _events() -> list[dict[str, Any]]:
    """The seed's example trace, completed so that its totals add up."""
    return [
        START,
        {
            "t": "2026-07-02T14:12:02.000Z",
            "seq": 2,
            "kind": "model.call",
            "tokens": _tokens(1204, 388, 9120, 0),
        },
        {
            "t": "2026-07-02T14:12:03.000Z",
            "seq": 3,
            "kind": "tool.call",
            "tool": "read_file",
            "args": {"path": "src/router/match.ts"},
            "durationMs": 12,
        },
        {
            "t": "2026-07-02T14:12:04.000Z",
            "seq": 4,
            "kind": "tool.call",
            "tool": "edit_file",
            "args": {"path": "src/router/match.ts"},
            "diffBytes": 412,
        },
        {
            "t": "2026-07-02T14:12:05.000Z",
            "seq": 5,
            "kind": "subagent.start",
            "id": "sa-1",
            "purpose": "run tests",
        },
        {
            "t": "2026-07-02T14:12:06.000Z",
            "seq": 6,
            "kind": "model.call",
            "model": "anthropic/claude-haiku-5",
            "tokens": _tokens(96, 12, 1000, 100),
        },
        {"t": "2026-07-02T14:12:07.000Z", "seq": 7, "kind": "subagent.end", "id": "sa-1"},
        {
            "t": "2026-07-02T14:15:05.603+00:00",
            "seq": 8,
            "kind": "run.end",
            "outcome": "resolved",
            "wallClockMs": 184201,
            "tokens": _tokens(1300, 400, 10120, 100),
            "diffBytesNormalized": 1610,
            "filesTouched": 2,
        },
    ]


def _write(path: Path, events: list[dict[str, Any]], tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)
    path.write_text(text + tail, encoding="utf-8")
    return path


def _trace(tmp_path: Path, events: list[dict[str, Any]] | None = None, tail: str = "") -> Path:
    name = "fix-81234.oxagen.abp-trace.jsonl"
    return _write(tmp_path / "study-x" / name, _events() if events is None else events, tail)


def _with(index: int, **changes: Any) -> list[dict[str, Any]]:
    events = _events()
    events[index] = {**events[index], **changes}
    return events


def _refused(cli: Cli, path: Path) -> str:
    result = cli("import", path)
    assert result.code == 1, result.out
    assert "Traceback" not in result.err
    nothing_stored(cli)
    return result.err


# -- a good trace ---------------------------------------------------------------------------------
def test_trace_becomes_one_run_with_its_events(tmp_path: Path, cli: Cli) -> None:
    src = _trace(tmp_path)
    result = cli("import", src, "--json")
    assert result.code == 0, result.err
    totals = json.loads(result.out)["totals"]
    assert totals["runs added"] == 1
    assert totals["trace events added"] == 8
    assert totals["studies added"] == 1

    db = sqlite_utils.Database(cli.db_path)
    study = db.execute("SELECT id, protocol FROM studies").fetchone()
    assert study == ("study-x", "abp")
    row = db.execute(
        "SELECT r.id, t.id, c.id, r.trial, r.engine, r.engine_version, r.provider, r.model, "
        "r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_write_tokens, "
        "r.total_tokens, r.wall_clock_ms, r.tool_calls, r.automated_outcome, r.origin_status, "
        "r.started_at FROM runs r JOIN tasks t ON t.pk = r.task_pk "
        "JOIN conditions c ON c.pk = r.condition_pk"
    ).fetchone()
    assert row == (
        "gh-vercel-next.js-81234/oxagen/trial1",
        "gh-vercel-next.js-81234",
        "oxagen",
        1,
        "oxagen",
        "1.4.2",
        "anthropic",
        "claude-sonnet-5",
        1300,
        400,
        10120,
        100,
        1300 + 400 + 10120 + 100,
        184201.0,
        2,
        "resolved",
        None,
        "2026-07-02T14:12:01.402Z",
    )

    run = load_run(db, "study-x", "gh-vercel-next.js-81234/oxagen/trial1")
    assert run is not None
    assert run.output is None
    assert run.shown("output") == "not exposed"
    meta = run.metadata
    assert meta["diffBytesNormalized"] == 1610
    assert meta["filesTouched"] == 2
    assert meta["config"] == {"budgetUsd": 5, "timeoutSeconds": 1200}
    assert meta["trace"]["complete"] is True
    assert meta["trace"]["kinds"]["tool.call"] == 2
    assert meta["tool_diff_bytes"] == 412
    assert meta["subagents"]["balanced"] is True
    assert meta["subagents"]["purposes"] == {"sa-1": "run tests"}
    assert meta["tokens_by_subagent"]["(main)"]["input"] == 1204
    assert meta["tokens_by_subagent"]["sa-1"] == {
        "calls": 1,
        "input": 96,
        "output": 12,
        "cacheRead": 1000,
        "cacheWrite": 100,
    }
    assert meta["tokens_by_model"] == {
        "anthropic/claude-haiku-5": {
            "calls": 1,
            "input": 96,
            "output": 12,
            "cacheRead": 1000,
            "cacheWrite": 100,
        }
    }

    raw_lines = src.read_bytes().splitlines()
    events = db.execute(
        "SELECT seq, t, kind, tool, input_tokens, cache_read_tokens, duration_ms, raw "
        "FROM trace_events ORDER BY seq"
    ).fetchall()
    assert [e[7].encode() for e in events] == raw_lines
    assert events[1][:6] == (2, "2026-07-02T14:12:02.000Z", "model.call", None, 1204, 9120)
    assert events[2][2:4] == ("tool.call", "read_file")
    assert events[2][6] == 12.0
    trace_sha = db.execute("SELECT sha256, n_events FROM traces").fetchone()
    assert trace_sha == (hashlib.sha256(src.read_bytes()).hexdigest(), 8)


def test_reimport_adds_nothing(tmp_path: Path, cli: Cli) -> None:
    src = _trace(tmp_path)
    assert cli("import", src).code == 0
    again = cli("import", src, "--json")
    assert again.code == 0
    assert json.loads(again.out)["files"][0]["status"] == "unchanged"
    assert json.loads(again.out)["totals"] == {}
    db = sqlite_utils.Database(cli.db_path)
    assert count(db, "runs") == 1
    assert count(db, "trace_events") == 8


def test_two_trials_in_one_folder_are_two_runs(tmp_path: Path, cli: Cli) -> None:
    folder = tmp_path / "engines"
    _write(folder / "fix.oxagen.trial-1.abp-trace.jsonl", _events())
    second = _with(7, outcome="failed")
    _write(folder / "fix.oxagen.trial-2.abp-trace.jsonl", second)
    result = cli("import", folder, "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["totals"]["runs added"] == 2
    db = sqlite_utils.Database(cli.db_path)
    runs = db.execute("SELECT id, trial, automated_outcome FROM runs ORDER BY trial").fetchall()
    assert runs == [
        ("gh-vercel-next.js-81234/oxagen/trial1", 1, "resolved"),
        ("gh-vercel-next.js-81234/oxagen/trial2", 2, "failed"),
    ]
    assert count(db, "conditions") == 1
    assert count(db, "trace_events") == 16


def test_trial_in_run_start_wins_over_the_file_name(tmp_path: Path, cli: Cli) -> None:
    src = _write(tmp_path / "s" / "fix.trial-2.abp-trace.jsonl", _with(0, trial=5))
    assert cli("import", src).code == 0
    db = sqlite_utils.Database(cli.db_path)
    assert db.execute("SELECT id, trial FROM runs").fetchone() == (
        "gh-vercel-next.js-81234/oxagen/trial5",
        5,
    )


@pytest.mark.parametrize(
    ("name", "trial"),
    [
        ("fix.oxagen.trial-2.abp-trace.jsonl", 2),
        ("fix_trial3.jsonl", 3),
        ("fix.oxagen.t4.abp-trace.jsonl", 4),
        ("run-T_07.jsonl", 7),
        ("fix.trial-0.jsonl", 0),
        ("gh-vercel-next.js-81234.jsonl", None),
        ("2026-07-02T14-12-00.jsonl", None),
        ("fixtrial2.jsonl", None),
    ],
)
def test_trial_from_name(name: str, trial: int | None) -> None:
    assert trial_from_name(name) == trial


def test_incomplete_trace_is_kept_and_marked(tmp_path: Path, cli: Cli) -> None:
    events = _events()[:-1]
    events.append(
        {"t": "2026-07-02T14:13:00Z", "seq": 9, "kind": "agent.note", "message": "gave up"}
    )
    result = cli("import", _trace(tmp_path, events), "--json")
    assert result.code == 0, result.err
    db = sqlite_utils.Database(cli.db_path)
    run = load_run(db, "study-x", "gh-vercel-next.js-81234/oxagen/trial1")
    assert run is not None
    assert run.automated_outcome is None
    assert run.tokens is None
    assert run.shown("tokens") == "missing"
    assert run.output == "gave up"
    assert run.metadata["trace"]["complete"] is False
    assert "incomplete" in run.metadata["trace_note"]
    assert run.metadata["subagents"]["balanced"] is True
    assert count(db, "trace_events") == 8


def test_output_summary_and_engine_error(tmp_path: Path, cli: Cli) -> None:
    src = _trace(tmp_path, _with(7, outcome="agent-error", summary="could not start"))
    assert cli("import", src).code == 0
    run = load_run(sqlite_utils.Database(cli.db_path), "study-x", START["task"] + "/oxagen/trial1")
    assert run is not None
    assert run.output == "could not start"
    assert "output" not in run.not_exposed
    assert run.automated_outcome == "agent-error"
    assert run.origin_status is not None and run.origin_status.value == "INFRA_ERROR"


def test_unbalanced_subagents_are_recorded(tmp_path: Path, cli: Cli) -> None:
    events = _events()
    del events[6]  # the subagent.end
    assert cli("import", _trace(tmp_path, events)).code == 0
    run = load_run(sqlite_utils.Database(cli.db_path), "study-x", START["task"] + "/oxagen/trial1")
    assert run is not None
    subagents = run.metadata["subagents"]
    assert subagents["balanced"] is False
    assert subagents["unclosed"] == ["sa-1"]


def test_tokens_are_attributed_to_subagents(tmp_path: Path, cli: Cli) -> None:
    def at(seq: int, kind: str, **fields: Any) -> dict[str, Any]:
        return {"t": f"2026-07-02T14:13:{seq:02d}Z", "seq": seq, "kind": kind, **fields}

    def call(seq: int, size: int, **fields: Any) -> dict[str, Any]:
        return at(seq, "model.call", tokens=_tokens(size, size, size, size), **fields)

    events = [
        START,
        call(2, 1),
        at(3, "subagent.start", id="sa-1"),
        at(4, "subagent.start", id="sa-2"),
        call(5, 10),  # the innermost open branch: sa-2
        call(6, 100, subagent="sa-1"),  # named explicitly
        at(7, "subagent.end", id="sa-1"),  # branches may end in any order
        call(8, 1000),  # sa-2 again
        at(9, "subagent.end", id="sa-2"),
        call(10, 10000),  # the main agent
        at(11, "subagent.end", id="sa-9"),
        at(12, "run.end", outcome="failed", tokens=_tokens(11111, 11111, 11111, 11111)),
    ]
    assert cli("import", _trace(tmp_path, events)).code == 0
    run = load_run(sqlite_utils.Database(cli.db_path), "study-x", START["task"] + "/oxagen/trial1")
    assert run is not None
    by = {k: (v["calls"], v["input"]) for k, v in run.metadata["tokens_by_subagent"].items()}
    assert by == {"(main)": (2, 10001), "sa-1": (1, 100), "sa-2": (2, 1010)}
    subagents = run.metadata["subagents"]
    assert (subagents["started"], subagents["ended"]) == (2, 3)
    assert subagents["unmatched_ends"] == ["sa-9"]
    assert subagents["balanced"] is False


def test_detection(tmp_path: Path) -> None:
    src = _trace(tmp_path)
    found = detect(src)
    assert found is not None and found.name == "abp-trace"
    long_config = _with(0, config={"notes": "x" * 10_000})
    found = detect(_write(tmp_path / "long" / "a.jsonl", long_config))
    assert found is not None and found.name == "abp-trace"
    native = tmp_path / "native.jsonl"
    native.write_text('{"type": "task", "id": "T1"}\n', encoding="utf-8")
    found = detect(native)
    assert found is None or found.name != "abp-trace"
    as_json = _write(tmp_path / "a.json", _events()[:1])
    found = detect(as_json)
    assert found is None or found.name != "abp-trace"


# -- bad input ------------------------------------------------------------------------------------
def test_seq_not_increasing(tmp_path: Path, cli: Cli) -> None:
    err = _refused(cli, _trace(tmp_path, _with(2, seq=2)))
    assert "fix-81234.oxagen.abp-trace.jsonl:3: $.seq: expected seq greater than 2, got 2" in err


@pytest.mark.parametrize(
    ("t", "what"),
    [
        ("2026-07-02T14:12:03.000", "no timezone"),
        ("2026-07-02T16:12:03.000+02:00", "not UTC"),
        ("2026-07-02 14:12:03Z", "no T"),
        ("2026-02-30T14:12:03Z", "no such date"),
        ("yesterday", "not a timestamp"),
    ],
)
def test_bad_timestamp(tmp_path: Path, cli: Cli, t: str, what: str) -> None:
    err = _refused(cli, _trace(tmp_path, _with(2, t=t)))
    assert ":3: $.t: expected an RFC 3339 UTC timestamp ending in Z or +00:00" in err, what


def test_timestamp_must_be_a_string(tmp_path: Path, cli: Cli) -> None:
    err = _refused(cli, _trace(tmp_path, _with(2, t=1751465523)))
    assert ":3: $.t: " in err and "string" in err


@pytest.mark.parametrize(
    ("index", "changes", "where", "says"),
    [
        (1, {"tokens": _tokens(-1, 388, 9120, 0)}, "$.tokens.input", "greater than or equal to 0"),
        (
            1,
            {"tokens": {"input": 1, "output": 2, "cacheRead": 3}},
            "$.tokens.cacheWrite",
            "missing",
        ),
        (1, {"tokens": _tokens(1, 2, 3, 4) | {"output": 2.5}}, "$.tokens.output", "integer"),
        (2, {"seq": "3"}, "$.seq", "integer"),
        (2, {"durationMs": -4}, "$.durationMs", "greater than or equal to 0"),
        (3, {"diffBytes": -1}, "$.diffBytes", "greater than or equal to 0"),
        (2, {"kind": ""}, "$.kind", "at least 1 character"),
        (2, {"tool": None}, "$.tool", "a tool.call names its tool"),
        (7, {"wallClockMs": -1}, "$.wallClockMs", "greater than or equal to 0"),
        (2, {"durationMs": float("inf")}, "$.durationMs", "finite number"),
        (7, {"outcome": None}, "$.outcome", "string"),
        (4, {"id": ""}, "$.id", "at least 1 character"),
    ],
)
def test_bad_field(
    tmp_path: Path, cli: Cli, index: int, changes: dict[str, Any], where: str, says: str
) -> None:
    err = _refused(cli, _trace(tmp_path, _with(index, **changes)))
    assert f":{index + 1}: {where}: " in err
    assert says in err


def test_missing_field(tmp_path: Path, cli: Cli) -> None:
    events = _events()
    del events[7]["outcome"]
    err = _refused(cli, _trace(tmp_path, events))
    assert ":8: $.outcome: required field is missing" in err


def test_token_totals_mismatch(tmp_path: Path, cli: Cli) -> None:
    err = _refused(cli, _trace(tmp_path, _with(7, tokens=_tokens(1300, 400, 10120, 99))))
    assert ":8: $.tokens.cacheWrite: run.end tokens.cacheWrite is 99" in err
    assert "add up to 100" in err
    assert "input must exclude cache reads" in err


def test_token_totals_that_include_cache_reads(tmp_path: Path, cli: Cli) -> None:
    err = _refused(cli, _trace(tmp_path, _with(7, tokens=_tokens(11420, 400, 10120, 100))))
    assert ":8: $.tokens.input: run.end tokens.input is 11420" in err
    assert "add up to 1300" in err
    assert "looks like it includes the cache reads" in err


def test_missing_run_start(tmp_path: Path, cli: Cli) -> None:
    err = _refused(cli, _trace(tmp_path, _events()[1:]))
    assert ":1: $.kind: expected the first event to be run.start (got 'model.call')" in err


@pytest.mark.parametrize(
    ("changes", "where", "says"),
    [
        ({"engine": "oxagen"}, "$.engine", 'expected "name/version"'),
        ({"model": "claude"}, "$.model", 'expected "provider/model"'),
        ({"config": None}, "$.config", "object"),
        ({"task": ""}, "$.task", "at least 1 character"),
    ],
)
def test_bad_run_start(
    tmp_path: Path, cli: Cli, changes: dict[str, Any], where: str, says: str
) -> None:
    err = _refused(cli, _trace(tmp_path, _with(0, **changes)))
    assert f":1: {where}: " in err
    assert says in err


def test_run_start_twice_and_events_after_run_end(tmp_path: Path, cli: Cli) -> None:
    twice = _with(2, **(START | {"seq": 3}))
    err = _refused(cli, _trace(tmp_path, twice))
    assert ":3: $.kind: a second run.start" in err
    after = [*_events(), {"t": "2026-07-02T14:16:00Z", "seq": 9, "kind": "tool.call", "tool": "x"}]
    err = _refused(cli, _write(tmp_path / "b" / "after.jsonl", after))
    assert ":9: $.kind: a tool.call event after run.end" in err


def test_malformed_line_and_not_an_object(tmp_path: Path, cli: Cli) -> None:
    src = _trace(tmp_path)
    lines = src.read_text(encoding="utf-8").splitlines()
    lines[3] = '{"t": "2026-07-02T14:12:04.000Z", "seq": 4,'
    lines[4] = "[1, 2]"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = cli("import", src)
    assert result.code == 1
    assert ":4: malformed JSON" in result.err
    result = cli("import", src, "--skip-invalid", "--json")
    skipped = json.loads(result.out)["files"][0]["skipped"]
    assert any(":5: $: expected a JSON object" in s for s in skipped)


def test_truncated_last_line(tmp_path: Path, cli: Cli) -> None:
    err = _refused(cli, _trace(tmp_path, tail='{"t":"2026-07-02T14:16:00Z","seq":9,"ki'))
    assert ":9: malformed JSON at line 9: truncated last line" in err


def test_empty_file(tmp_path: Path, cli: Cli) -> None:
    src = tmp_path / "empty.abp-trace.jsonl"
    src.write_text("", encoding="utf-8")
    result = cli("import", src, "--format", "abp-trace")
    assert result.code == 1
    assert "expected a run.start event" in result.err


def test_skip_invalid_imports_the_rest(tmp_path: Path, cli: Cli) -> None:
    events = _with(2, seq=2)  # a duplicate seq: this line is skipped
    events[3] = {**events[3], "t": "2026-07-02T14:12:04"}  # no timezone: skipped too
    result = cli("import", _trace(tmp_path, events), "--skip-invalid", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["totals"]["records skipped"] == 2
    assert report["totals"]["trace events added"] == 6
    skipped = report["files"][0]["skipped"]
    assert any(":3: $.seq: expected seq greater than 2" in s for s in skipped)
    assert any(":4: $.t:" in s for s in skipped)
    db = sqlite_utils.Database(cli.db_path)
    assert db.execute("SELECT tool_calls, automated_outcome FROM runs").fetchone() == (
        0,
        "resolved",
    )
    assert [r[0] for r in db.execute("SELECT seq FROM trace_events ORDER BY seq")] == [
        1,
        2,
        5,
        6,
        7,
        8,
    ]


def test_skip_invalid_with_bad_run_end_keeps_an_incomplete_run(tmp_path: Path, cli: Cli) -> None:
    src = _trace(tmp_path, _with(7, tokens=_tokens(1, 2, 3, 4)))
    result = cli("import", src, "--skip-invalid", "--json")
    assert result.code == 0
    db = sqlite_utils.Database(cli.db_path)
    run = load_run(db, "study-x", START["task"] + "/oxagen/trial1")
    assert run is not None
    assert run.automated_outcome is None
    assert run.metadata["trace"]["complete"] is False


# -- long traces ----------------------------------------------------------------------------------
def test_long_trace_streams_in_batches(tmp_path: Path) -> None:
    src = tmp_path / "bench" / "fix.oxagen.trial-1.abp-trace.jsonl"
    write_trace(src, 10_000)
    db = connect(tmp_path / "long.db")
    report = import_paths(db, [src])
    assert report.totals["trace events added"] == 10_000
    seqs = [r[0] for r in db.execute("SELECT seq FROM trace_events ORDER BY rowid")]
    assert seqs == list(range(1, 10_001))
    sha = db.execute("SELECT sha256 FROM traces").fetchone()[0]
    assert sha == hashlib.sha256(src.read_bytes()).hexdigest()
    run = load_run(db, "bench", "gh-vercel-next.js-81234/oxagen/trial1")
    assert run is not None and run.tokens is not None
    calls = run.metadata["model_call_tokens"]
    assert run.tokens.input == calls["input"]
    branches = run.metadata["tokens_by_subagent"].values()
    assert len(branches) > 2
    for field in ("calls", "input", "output", "cacheRead", "cacheWrite"):
        assert sum(b[field] for b in branches) == calls[field]
    db.close()


def test_memory_does_not_grow_with_the_trace(tmp_path: Path) -> None:
    def peak(events: int) -> int:
        src = tmp_path / f"m{events}" / "trace.abp-trace.jsonl"
        write_trace(src, events)
        db = connect(tmp_path / f"m{events}.db")
        tracemalloc.start()
        import_paths(db, [src], fmt="abp-trace")
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        db.close()
        return top

    small, large = peak(8_000), peak(40_000)
    # Five times the events; the peak is one batch plus bookkeeping, whatever the length.
    assert large < small * 1.5


def test_batches_are_stored_like_single_events(tmp_path: Path) -> None:
    lines = [json.dumps(e, separators=(",", ":")) for e in _events()]
    rows: list[EventRow] = [
        (i + 1, None, "x", None, None, None, None, None, None, line) for i, line in enumerate(lines)
    ]
    stored = []
    for name, records in (
        (
            "single",
            [TraceEvent(run_id="r", seq=i + 1, kind="x", raw=line) for i, line in enumerate(lines)],
        ),
        ("batch", [TraceEventBatch("r", rows, "".join(x + "\n" for x in lines).encode())]),
    ):
        db = connect(tmp_path / f"{name}.db")
        with db.atomic():
            writer = ImportWriter(db, "f.jsonl", "0" * 64, 1, "test")
            writer.write(Study(id="s"))
            for record in records:
                writer.write(record)
            writer.write(Run(id="r", task_id="T", condition_id="C"))
            writer.finish()
        stored.append(
            (
                db.execute("SELECT sha256, n_events FROM traces").fetchall(),
                db.execute("SELECT * FROM trace_events ORDER BY seq").fetchall(),
            )
        )
        db.close()
    assert stored[0] == stored[1]
    assert stored[0][0][0][1] == 8
