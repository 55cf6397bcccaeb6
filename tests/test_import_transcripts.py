"""Nothing a reviewer needs is dropped at import: every trace event is stored whole beside its
summary columns, and the conversation (messages, tool calls and their arguments, tool results,
errors) stays with the run, so a transcript can be shown from the database alone.

Where each kind of content lives:

- ``trace_events.raw``: the event exactly as the source wrote it (an ABP line byte for byte; an
  Inspect event as its JSON object, ``attachment://`` references unresolved), ordered by ``seq``
  within ``traces.pk = runs.trace_pk``; ``kind``, ``tool``, the four token columns, ``t`` and
  ``duration_ms`` are read from it per step.
- ``runs.document`` -> ``metadata``: Inspect's ``messages`` (the whole chat), ``attachments`` (what
  the references resolve to), ``model_output``, ``scores``, ``error`` and ``sample_extra``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.services.importing import import_paths
from abp_tui.store.queries import load_run
from tests.factories import DEMO


def _events(db: sqlite_utils.Database, study: str, run_id: str) -> list[tuple[Any, ...]]:
    return list(
        db.execute(
            "SELECT e.seq, e.t, e.kind, e.tool, e.input_tokens, e.output_tokens, "
            "e.cache_read_tokens, e.cache_write_tokens, e.duration_ms, e.raw "
            "FROM trace_events e JOIN runs r ON r.trace_pk = e.trace_pk "
            "WHERE r.study_id = ? AND r.id = ? AND r.current = 1 ORDER BY e.seq",
            [study, run_id],
        ).fetchall()
    )


# -- ABP ------------------------------------------------------------------------------------------
def test_abp_trace_events_are_stored_byte_for_byte_with_their_step_figures(
    db: sqlite_utils.Database,
) -> None:
    import_paths(db, [DEMO / "abp-demo"])
    traces = sorted((DEMO / "abp-demo" / "traces").glob("*.jsonl"))
    assert len(traces) == 24
    for trace in traces:
        lines = trace.read_text("utf-8").splitlines()
        start = json.loads(lines[0])
        run_id = f"{start['task']}/{start['engine'].split('/')[0]}/trial{start['trial']}"
        stored = _events(db, "abp-demo", run_id)
        assert [row[9] for row in stored] == lines, trace.name
        for row, line in zip(stored, lines, strict=True):
            event = json.loads(line)
            tokens = event.get("tokens") or {}
            assert row[:9] == (
                event["seq"],
                event["t"],
                event["kind"],
                event.get("tool"),
                tokens.get("input"),
                tokens.get("output"),
                tokens.get("cacheRead"),
                tokens.get("cacheWrite"),
                event.get("durationMs"),
            ), (trace.name, event["seq"])


def test_abp_tool_arguments_and_results_stay_in_the_event(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    events = [
        {
            "t": "2026-07-02T14:12:01.402Z",
            "seq": 1,
            "kind": "run.start",
            "engine": "oxagen/1.4.2",
            "model": "anthropic/claude-sonnet-5",
            "task": "fix-42",
            "config": {},
        },
        {
            "t": "2026-07-02T14:12:02.000Z",
            "seq": 2,
            "kind": "model.call",
            "tokens": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0},
            "message": {"role": "assistant", "content": "I will read the router first."},
        },
        {
            "t": "2026-07-02T14:12:03.000Z",
            "seq": 3,
            "kind": "tool.call",
            "tool": "bash",
            "args": {"command": "pnpm test -- router", "cwd": "."},
            "result": {"exitCode": 1, "stdout": "1 failed", "stderr": "TypeError: x"},
            "error": "exit status 1",
            "durationMs": 2200,
        },
        {"t": "2026-07-02T14:12:04.000Z", "seq": 4, "kind": "run.end", "outcome": "failed"},
    ]
    folder = tmp_path / "run"
    folder.mkdir()
    trace = folder / "fix-42.oxagen.trial-1.abp-trace.jsonl"
    trace.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    import_paths(db, [trace])
    stored = _events(db, "run", "fix-42/oxagen/trial1")
    assert [json.loads(row[9]) for row in stored] == events
    assert stored[2][3] == "bash" and stored[2][8] == 2200
    assert stored[1][4:8] == (10, 5, 0, 0)


# -- Inspect --------------------------------------------------------------------------------------
TOOL_EVENT = {
    "event": "tool",
    "timestamp": "2025-02-11T15:17:02.000000-05:00",
    "working_time": 1.25,
    "id": "call_1",
    "function": "bash",
    "arguments": {"cmd": "ls /nope"},
    "result": "",
    "error": {"type": "file_not_found", "message": "No such file: /nope"},
}
MODEL_EVENT = {
    "event": "model",
    "timestamp": "2025-02-11T15:17:01.000000-05:00",
    "working_time": 0.5,
    "model": "openai/gpt-4o-mini",
    "input": [{"role": "user", "content": "List /nope"}],
    "output": {
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"id": "call_1", "function": "bash", "arguments": {"cmd": "ls /nope"}}
                    ],
                },
                "stop_reason": "tool_calls",
            }
        ],
        # OpenAI's convention: input includes the cache reads (total = input + output).
        "usage": {
            "input_tokens": 100,
            "output_tokens": 10,
            "total_tokens": 110,
            "input_tokens_cache_read": 40,
        },
    },
}
ERROR_EVENT = {
    "event": "error",
    "timestamp": "2025-02-11T15:17:03.000000-05:00",
    "error": {"message": "sandbox went away", "traceback": "Traceback ...\nRuntimeError"},
}
MESSAGES = [
    {"role": "user", "content": "List /nope"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "call_1", "function": "bash", "arguments": {"cmd": "ls /nope"}}],
    },
    {
        "role": "tool",
        "tool_call_id": "call_1",
        "function": "bash",
        "content": "",
        "error": {"type": "file_not_found", "message": "No such file: /nope"},
    },
    {"role": "assistant", "content": "The folder does not exist."},
]


def _inspect_log(path: Path) -> Path:
    sample = {
        "id": 1,
        "epoch": 1,
        "input": "List /nope",
        "target": "It does not exist.",
        "messages": MESSAGES,
        "output": MODEL_EVENT["output"],
        "events": [MODEL_EVENT, TOOL_EVENT, ERROR_EVENT],
        "store": {"attempts": 2},
        "error_retries": [{"message": "first try timed out"}],
    }
    log = {
        "version": 2,
        "status": "success",
        "eval": {"task": "listing", "model": "openai/gpt-4o-mini", "task_id": "log1"},
        "samples": [sample],
    }
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def test_inspect_events_are_stored_whole_with_tool_tokens_and_time(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [_inspect_log(tmp_path / "log.json")])
    stored = _events(db, "listing", "log1/1/epoch1")
    assert [json.loads(row[9]) for row in stored] == [MODEL_EVENT, TOOL_EVENT, ERROR_EVENT]
    model, tool, error = stored
    assert model[2:4] == ("model", None)
    # Seed 003's normalisation: input without the 40 cache reads.
    assert model[4:7] == (60, 10, 40)
    assert model[8] == 500.0
    assert tool[2:4] == ("tool", "bash")
    assert tool[8] == 1250.0
    assert error[2] == "error"


def test_inspect_conversation_and_everything_else_stay_with_the_run(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [_inspect_log(tmp_path / "log.json")])
    run = load_run(db, "listing", "log1/1/epoch1")
    assert run is not None
    assert run.output == "The folder does not exist."
    assert run.metadata["messages"] == MESSAGES
    assert run.metadata["model_output"]["choices"] == MODEL_EVENT["output"]["choices"]  # type: ignore[index]
    assert run.metadata["sample_extra"] == {
        "store": {"attempts": 2},
        "error_retries": [{"message": "first try timed out"}],
    }


def test_inspect_reference_tool_errors_are_kept(reference: Path, db: sqlite_utils.Database) -> None:
    src = reference / "inspect" / "log_tool_call_error.json"
    import_paths(db, [src])
    [sample] = json.loads(src.read_text("utf-8"))["samples"]
    [(study, run_id)] = db.execute("SELECT study_id, id FROM runs").fetchall()
    run = load_run(db, study, run_id)
    assert run is not None
    assert run.metadata["messages"] == sample["messages"]
    errors = [m["error"]["type"] for m in run.metadata["messages"] if m.get("error")]
    assert errors[:3] == ["parsing", "timeout", "parsing"] and len(errors) == 11


def test_inspect_eval_events_are_stored_as_the_log_has_them(
    reference: Path, db: sqlite_utils.Database
) -> None:
    src = next((reference / "inspect").glob("*dPiJifoWeEQBrfWsAopzWr.eval"))
    import_paths(db, [src])
    with zipfile.ZipFile(src) as archive:
        sample = json.loads(archive.read("samples/3_epoch_1.json"))
    stored = _events(db, "popularity", "dPiJifoWeEQBrfWsAopzWr/3/epoch1")
    assert [json.loads(row[9]) for row in stored] == sample["events"]
    run = load_run(db, "popularity", "dPiJifoWeEQBrfWsAopzWr/3/epoch1")
    assert run is not None
    assert run.metadata["messages"] == sample["messages"]
    assert run.metadata["attachments"] == sample["attachments"]
