"""Transcripts (the core, no terminal): a run's stored events and messages as blind steps.

Checked against the source files themselves: each figure a step shows (tokens, durations, tool
arguments, errors) is read back from the file it was imported from, so a test fails when a
value is dropped, mis-attributed or left unmasked. The Inspect logs are real ones (the
``reference`` fixture); the ABP traces are the bundled demo folder.
"""

from __future__ import annotations

import json
import zipfile
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.analysis.masking import identity_terms
from abp_tui.analysis.transcript import (
    Transcript,
    build_transcript,
    columns_transcript,
    events_transcript,
)
from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.transcripts import blind_transcripts, run_transcript, task_texts
from abp_tui.store.transcripts import StoredEvent, run_record
from abp_tui.text.search import contains, find_all
from abp_tui.tui.widgets.transcriptlayout import (
    FOLD_LINES,
    layout_transcript,
    prepare_transcript,
)
from tests.factories import FIXTURES, write_jsonl

DEMO = FIXTURES / "demo" / "abp-demo"
NO_MASK = identity_terms([], [], [], well_known=False).mask


def everything(transcript: Transcript) -> str:
    """Every string a transcript would put on screen."""
    parts = [transcript.source, *transcript.summary, *transcript.notes]
    for step in transcript.steps:
        parts += [step.kind, step.text, step.error or "", step.details, step.branch or ""]
        for call in step.calls:
            parts += [call.name, call.arguments, call.result or "", call.error or ""]
    return "\n".join(parts)


def _run_pk(db: sqlite_utils.Database, run_id: str) -> int:
    return int(db.execute("SELECT pk FROM runs WHERE id = ? AND current", [run_id]).fetchone()[0])


# -- ABP traces ----------------------------------------------------------------------------------
@pytest.fixture
def demo_db(db: sqlite_utils.Database) -> sqlite_utils.Database:
    import_paths(db, [DEMO])
    return db


def test_every_abp_event_is_a_step_with_its_own_figures(demo_db: sqlite_utils.Database) -> None:
    name = "fx-ttl-cache-expiry.demo-engine-beta.trial-2.abp-trace.jsonl"
    events = [json.loads(line) for line in (DEMO / "traces" / name).read_text().splitlines()]
    pk = _run_pk(demo_db, "fx-ttl-cache-expiry/demo-engine-beta/trial2")
    transcript = run_transcript(demo_db, pk, NO_MASK)
    assert transcript.source == "ABP trace"
    assert [s.seq for s in transcript.steps] == [e["seq"] for e in events]
    assert [s.kind for s in transcript.steps] == [e["kind"] for e in events]
    for step, event in zip(transcript.steps, events, strict=True):
        tokens = event.get("tokens")
        if event["kind"] == "model.call":
            assert step.tokens is not None
            assert (step.tokens.input, step.tokens.output) == (tokens["input"], tokens["output"])
            assert (step.tokens.cache_read, step.tokens.cache_write) == (
                tokens["cacheRead"],
                tokens["cacheWrite"],
            )
        if event["kind"] == "tool.call":
            (call,) = step.calls
            assert call.name == event["tool"]
            assert json.loads(call.arguments) == event["args"]
            assert call.duration_ms == event["durationMs"]
            if "diffBytes" in event:
                assert f"diffBytes: {event['diffBytes']}" in step.details
        # subagents nest what they did (seq 6-11 in sa-1, 18-19 in sa-2)
        inside = event.get("subagent")
        assert step.branch == inside or event["kind"].startswith("subagent.")
        assert step.depth == (1 if inside else 0)
    start = transcript.steps[0]
    assert '"budgetUsd": 2' in start.details and "fx-ttl-cache-expiry" in start.details
    end = transcript.steps[-1]
    assert end.text == events[-1]["summary"]
    assert "computedUsd: 0.1556" in end.details and "wallClockMs: 59952" in end.details
    # the run's attribution: per subagent, and per model without naming it
    summary = "\n".join(transcript.summary)
    assert "subagent sa-1 (explore the codebase): 2 calls" in summary
    assert "model 1: 7 calls · in 14,939 · out 4,171" in summary


def test_an_abp_transcript_names_no_engine_model_or_outcome(
    demo_db: sqlite_utils.Database,
) -> None:
    pk = _run_pk(demo_db, "fx-ttl-cache-expiry/demo-engine-beta/trial2")
    masker = identity_terms(
        ["demo-engine-alpha", "demo-engine-beta"],
        [],
        ["synthetic-demo", "demo-model-2", "demo-engine-beta"],
    )
    text = everything(run_transcript(demo_db, pk, masker.mask))
    for identity in ("demo-engine", "demo-model", "synthetic-demo", "2.1.0"):
        assert identity not in text, identity
    # run.end's outcome ("failed") is the automated verdict: left out, and said so
    assert '"failed"' not in text and "outcome: failed" not in text
    assert "automated outcome is not shown" in text
    assert "model ×" in text and "engine ×1" in text


def test_the_transcripts_follow_the_reviewers_placement(demo_db: sqlite_utils.Database) -> None:
    design = create_design(
        demo_db,
        StudyDesign(
            study="abp-demo",
            name="pairs",
            seed=9,
            contrasts=[("demo-engine-beta", "demo-engine-alpha")],
            reviewers=["ana"],
        ),
    )
    session = ReviewSession(demo_db, design.pk, "ana")
    for row in session.queue():
        item = session.read(row.code)
        transcripts = blind_transcripts(session, row.code)
        assert len(transcripts) == len(item.responses) == 2
        for response, transcript in zip(item.responses, transcripts, strict=True):
            # the output is run.end's summary: the same run, in the same place
            assert transcript.steps[-1].text == response.text
            assert len(transcript.steps) == len(response.trace)
    texts = task_texts(session)
    assert set(texts) == {r.code for r in session.queue()}
    assert all(t.strip() for t in texts.values())


def test_a_trace_longer_than_the_limit_says_how_much_it_shows(
    demo_db: sqlite_utils.Database,
) -> None:
    pk = _run_pk(demo_db, "fx-ttl-cache-expiry/demo-engine-beta/trial2")
    record = run_record(demo_db, pk, limit=10)
    assert len(record.events) == 10 and record.event_count == 25
    transcript = build_transcript(
        record.source_format, record.metadata, record.events, record.event_count, NO_MASK
    )
    assert len(transcript.steps) == 10
    assert "Showing the first 10 of 25 events." in transcript.notes


def test_hostile_event_text_is_masked_and_made_visible() -> None:
    raw: dict[str, Any] = {
        "t": "2026-01-18T09:00:00Z",
        "seq": 1,
        "kind": "tool.call",
        "tool": "bash",
        "args": {"cmd": "echo \x1b[2J[bold]hi[/bold]"},
        "result": "Served by Claude-3 \u202eevil\x9b",
        "error": {"type": "timeout", "message": "GPT-4o stopped \x07"},
    }
    event = StoredEvent(
        1, raw["t"], "tool.call", "bash", None, None, None, None, 5.0, json.dumps(raw)
    )
    mask = identity_terms([], [], []).mask  # the well-known names only
    transcript = events_transcript([event], {}, 1, mask)
    (call,) = transcript.steps[0].calls
    # JSON writes the escape as \u001b: shown as those characters, never sent to a terminal
    assert "echo \\u001b[2J[bold]hi[/bold]" in call.arguments
    assert call.result == "Served by «masked» ⟨U+202E⟩evil⟨U+009B⟩"
    assert call.error == "timeout: «masked» stopped ␇"
    assert transcript.masked == 2
    assert "\x1b" not in everything(transcript) and "\u202e" not in everything(transcript)


def test_columns_alone_make_a_plain_transcript() -> None:
    transcript = columns_transcript(
        [(1, "model.call", None, 10, 4, 120.0), (2, "tool.call", "[/]", None, None, 8.0)]
    )
    first, second = transcript.steps
    assert first.tokens is not None and (first.tokens.input, first.tokens.output) == (10, 4)
    assert first.duration_ms == 120.0
    assert second.calls[0].name == "[/]" and second.calls[0].duration_ms == 8.0


def test_an_arena_run_says_its_transcript_is_elsewhere() -> None:
    transcript = build_transcript(
        "arena", {"transcriptPath": "runs/agent-x/t.jsonl"}, [], 0, NO_MASK
    )
    assert not transcript.steps
    assert "file of its own" in transcript.notes[0]
    assert "agent-x" not in everything(transcript)


# -- Inspect logs (real ones) ----------------------------------------------------------------------
def test_an_inspect_sample_has_its_messages_with_tokens_and_time(
    db: sqlite_utils.Database, reference: Path
) -> None:
    path = reference / "inspect" / "log_read_sample.json"
    import_paths(db, [path])
    sample = json.loads(path.read_text())["samples"][0]
    model = next(e for e in sample["events"] if e["event"] == "model")
    (pk,) = [r[0] for r in db.execute("SELECT pk FROM runs").fetchall()]
    masker = identity_terms([], [], [json.loads(path.read_text())["eval"]["model"]])
    transcript = run_transcript(db, pk, masker.mask)
    assert transcript.source == "Inspect AI log"
    kinds = [s.kind for s in transcript.steps]
    assert kinds[:3] == ["system", "user", "assistant"]
    system, user, assistant = transcript.steps[:3]
    assert system.text == sample["messages"][0]["content"].replace("\r\n", "\n")
    assert user.text == sample["messages"][1]["content"]
    assert assistant.text == sample["messages"][2]["content"] == "Yes\n"
    usage = model["output"]["usage"]
    assert assistant.tokens is not None
    assert (assistant.tokens.input, assistant.tokens.output) == (
        usage["input_tokens"],
        usage["output_tokens"],
    )
    assert assistant.duration_ms == pytest.approx(model["working_time"] * 1000)
    assert "stop_reason: stop" in assistant.details
    text = everything(transcript)
    # the scorer's verdict (value "C") is not shown; the model is named nowhere
    assert "Scoring is not shown" in text
    assert "gemma" not in text.lower() and "ollama" not in text.lower()
    assert "model 1: in 66 · out 3 · total 69" in transcript.summary


def test_inspect_tool_errors_are_shown_with_their_type(
    db: sqlite_utils.Database, reference: Path
) -> None:
    path = reference / "inspect" / "log_tool_call_error.json"
    import_paths(db, [path])
    messages = json.loads(path.read_text())["samples"][0]["messages"]
    (pk,) = [r[0] for r in db.execute("SELECT pk FROM runs").fetchall()]
    transcript = run_transcript(db, pk, NO_MASK)
    calls = [c for s in transcript.steps for c in s.calls]
    assert len(calls) == len(messages) == 11
    for call, message in zip(calls, messages, strict=True):
        assert call.name == message["function"] == "bash"
        assert call.error == f"{message['error']['type']}: {message['error']['message']}"
        assert call.result == message["content"].strip("\n") or call.result == message["content"]
    assert calls[-1].error == "output_limit: The tool output limit of 10 MiB was exceeded."


def test_every_sample_of_an_eval_log_has_its_answer(
    db: sqlite_utils.Database, reference: Path
) -> None:
    path = (
        reference / "inspect" / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
    )
    import_paths(db, [path])
    with zipfile.ZipFile(path) as archive:
        header = json.loads(archive.read("header.json"))
        samples = {
            name: json.loads(archive.read(name))
            for name in archive.namelist()
            if name.startswith("samples/")
        }
    masker = identity_terms([], [], [header["eval"]["model"]])
    by_id = {f"{s['id']}": s for s in samples.values()}
    runs = db.execute("SELECT pk, id FROM runs").fetchall()
    assert len(runs) == len(samples) == 10
    for pk, run_id in runs:
        sample = by_id[run_id.split("/")[1]]
        transcript = run_transcript(db, pk, masker.mask)
        answer = next(s for s in transcript.steps if s.kind == "assistant")
        assert answer.text == sample["messages"][-1]["content"]
        usage = sample["model_usage"][header["eval"]["model"]]
        assert answer.tokens is not None and answer.tokens.output == usage["output_tokens"]
        text = everything(transcript).lower()
        assert "gpt" not in text and "openai" not in text


def _inspect_log(tmp_path: Path) -> Path:
    """An agent sample as Inspect writes one: a tool call answered, one refused, an error
    event, a logger record, a scorer whose model call and score must not show."""
    big = "\n".join(f"line {n}" for n in range(40))

    def ts(n: int) -> str:
        return f"2025-03-01T10:00:{n:02d}+00:00"

    assistant_1 = {
        "id": "m3",
        "role": "assistant",
        "source": "generate",
        "model": "gpt-4o-mini",
        "content": "As gpt-4o-mini I will list the files.",
        "tool_calls": [
            {
                "id": "call_1",
                "function": "bash",
                "arguments": {"cmd": "ls -la"},
                "type": "function",
            },
            {
                "id": "call_2",
                "function": "python",
                "arguments": {"code": "1/0"},
                "type": "function",
            },
        ],
    }
    assistant_2 = {"id": "m6", "role": "assistant", "content": "attachment://final"}
    messages = [
        {"id": "m1", "role": "system", "content": "You are an agent."},
        {"id": "m2", "role": "user", "content": "List the files."},
        assistant_1,
        {"id": "m4", "role": "tool", "tool_call_id": "call_1", "function": "bash", "content": big},
        {
            "id": "m5",
            "role": "tool",
            "tool_call_id": "call_2",
            "function": "python",
            "content": "",
            "error": {"type": "parsing", "message": "ZeroDivisionError"},
        },
        assistant_2,
    ]

    def model(n: int, message: dict[str, Any], tokens: tuple[int, int]) -> dict[str, Any]:
        return {
            "event": "model",
            "timestamp": ts(n),
            "working_start": n,
            "model": "openai/gpt-4o-mini",
            "input": [],
            "output": {
                "model": "gpt-4o-mini-2024-07-18",
                "choices": [{"message": message, "stop_reason": "tool_calls"}],
                "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]},
            },
            "call": {"request": {"model": "gpt-4o-mini"}},
            "working_time": 1.25,
        }

    events = [
        {"event": "sample_init", "timestamp": ts(0), "sample": {}, "state": {}},
        model(1, assistant_1, (120, 30)),
        {
            "event": "tool",
            "timestamp": ts(2),
            "id": "call_1",
            "function": "bash",
            "arguments": {"cmd": "ls -la"},
            "result": big,
            "working_time": 0.5,
        },
        {
            "event": "tool",
            "timestamp": ts(3),
            "id": "call_2",
            "function": "python",
            "arguments": {"code": "1/0"},
            "result": "",
            "working_time": 0.25,
        },
        {
            "event": "logger",
            "timestamp": ts(4),
            "message": {"level": "warning", "message": "slow disk"},
        },
        {
            "event": "error",
            "timestamp": ts(5),
            "error": {"message": "sandbox restarted", "traceback": "tb"},
        },
        model(6, assistant_2, (200, 10)),
        {
            "event": "span_begin",
            "timestamp": ts(7),
            "id": "s1",
            "type": "scorers",
            "name": "scorers",
        },
        {
            "event": "span_begin",
            "timestamp": ts(7),
            "id": "s2",
            "parent_id": "s1",
            "type": "scorer",
            "name": "model_graded_qa",
            "span_id": "s1",
        },
        {**model(8, {"role": "assistant", "content": "GRADE: C"}, (50, 5)), "span_id": "s2"},
        {"event": "score", "timestamp": ts(9), "score": {"value": "C"}, "span_id": "s2"},
        {"event": "span_end", "timestamp": ts(9), "id": "s2", "span_id": "s2"},
    ]
    sample = {
        "id": "files",
        "epoch": 1,
        "input": "List the files.",
        "target": "",
        "messages": messages,
        "events": events,
        "attachments": {"final": "Done: 3 files."},
        "scores": {"model_graded_qa": {"value": "C", "explanation": "GRADE: C"}},
        "model_usage": {"openai/gpt-4o-mini": {"input_tokens": 320, "output_tokens": 40}},
        "output": {"model": "gpt-4o-mini-2024-07-18", "choices": []},
    }
    log = {
        "version": 2,
        "status": "success",
        "eval": {
            "task": "files",
            "model": "openai/gpt-4o-mini",
            "task_id": "k1",
            "scorers": [{"name": "model_graded_qa"}],
        },
        "samples": [sample],
    }
    path = tmp_path / "agent.json"
    path.write_text(json.dumps(log))
    return path


def test_an_inspect_agent_sample_pairs_calls_results_events(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    import_paths(db, [_inspect_log(tmp_path)])
    (pk,) = [r[0] for r in db.execute("SELECT pk FROM runs").fetchall()]
    masker = identity_terms(["openai/gpt-4o-mini"], [], ["openai", "openai/gpt-4o-mini"])
    transcript = run_transcript(db, pk, masker.mask)
    kinds = [s.kind for s in transcript.steps]
    # tool messages are shown with the calls they answer; the logger record and the error
    # event come after the step they followed; the scorer's call and score are not shown
    assert kinds == ["system", "user", "assistant", "logger", "error", "assistant"]
    first = transcript.steps[2]
    assert first.text == "As «masked» I will list the files."
    assert first.tokens is not None and (first.tokens.input, first.tokens.output) == (120, 30)
    assert first.duration_ms == 1250
    bash, python = first.calls
    assert json.loads(bash.arguments) == {"cmd": "ls -la"}
    assert bash.result is not None and bash.result.startswith("line 0") and "line 39" in bash.result
    assert bash.duration_ms == 500 and bash.error is None
    assert python.error == "parsing: ZeroDivisionError" and python.duration_ms == 250
    assert transcript.steps[3].text == "warning: slow disk"
    assert transcript.steps[4].error == "sandbox restarted"
    last = transcript.steps[5]
    assert last.text == "Done: 3 files."  # the attachment resolved
    assert last.tokens is not None and last.tokens.output == 10
    text = everything(transcript)
    assert "GRADE" not in text and "model_graded_qa" not in text
    assert "gpt" not in text.lower() and "openai" not in text.lower()
    assert "model 1: in 320 · out 40" in transcript.summary
    assert any("1 scoring event" in n or "scoring events" in n for n in transcript.notes)
    assert any("raw request and response of 2 model" in n for n in transcript.notes)


# -- laying out and searching ----------------------------------------------------------------------
def test_long_blocks_fold_and_a_hit_inside_unfolds_them(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    import_paths(db, [_inspect_log(tmp_path)])
    (pk,) = [r[0] for r in db.execute("SELECT pk FROM runs").fetchall()]
    transcript = run_transcript(db, pk, NO_MASK)
    layout = layout_transcript(transcript)
    assert "line 3\n" in layout.text and "line 39" not in layout.text
    (fold,) = [f for f in layout.folds if f.folded]
    marker = layout.text[fold.marker[0] : fold.marker[1]]
    assert marker.strip().startswith(f"▸ {40 - 4} more lines folded")
    assert layout.fold_at(fold.marker[0]) == fold
    # unfolded by the reviewer, or by a search hit inside it; folded back on request
    assert "line 39" in layout_transcript(transcript, expanded=[fold.key]).text
    assert "line 39" in layout_transcript(transcript, query="LINE 39").text
    back = layout_transcript(transcript, collapsed=[fold.key], query="line 39")
    assert "line 39" not in back.text
    shown = prepare_transcript(transcript, 40, query="line 39")
    ((a, b),) = shown.hits
    assert shown.layout.text[a:b] == "line 39"
    assert shown.wrapped is not None and shown.wrapped[0] == 40
    # the agent's own words are never folded
    long_words = "\n".join(f"thought {n}" for n in range(FOLD_LINES * 3))
    steps = (transcript.steps[2].__class__(kind="assistant", text=long_words),)
    own = layout_transcript(Transcript("test", steps))
    assert "thought 35" in own.text and not own.folds
    # styles are sorted, disjoint and inside the text
    spans = layout.styles
    assert spans == sorted(spans)
    assert all(a < b <= c for (a, b, _), (c, _d, _e) in pairwise(spans))
    assert all(0 <= a < b <= len(layout.text) for a, b, _ in spans)


@pytest.mark.parametrize(
    ("text", "query", "expected"),
    [
        ("Owner, owner and OWNER", "owner", [(0, 5), (7, 12), (17, 22)]),
        ("a.b axb", "a.b", [(0, 3)]),  # literal, never a pattern
        ("[x]* [x]", "[x]*", [(0, 4)]),
        ("aaaa", "aa", [(0, 2), (2, 4)]),  # not overlapping
        # "İ" lower-cases to two characters: the offsets stay those of the text itself
        ("İstanbul istanbul", "istanbul", [(0, 8), (9, 17)]),
        ("anything", "", []),
    ],
)
def test_find_all(text: str, query: str, expected: list[tuple[int, int]]) -> None:
    assert find_all(text, query) == expected
    assert contains(text, query) == bool(expected)


def test_a_native_trace_event_shows_what_its_raw_json_kept(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    raw = {
        "kind": "tool.call",
        "tool": "grep",
        "args": {"q": "x"},
        "output": "3 matches",
        "exit": 0,
    }
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": "s"},
        {
            "type": "trace_event",
            "run_id": "r1",
            "seq": 1,
            "kind": "tool.call",
            "tool": "grep",
            "raw": json.dumps(raw),
        },
        {"type": "trace_event", "run_id": "r1", "seq": 2, "kind": "model.call", "input_tokens": 5},
        {"type": "run", "id": "r1", "task_id": "t", "condition_id": "c", "output": "o"},
    ]
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    transcript = run_transcript(db, _run_pk(db, "r1"), NO_MASK)
    assert transcript.source == "trace events"
    (call,) = transcript.steps[0].calls
    assert call.result == "3 matches" and json.loads(call.arguments) == {"q": "x"}
    assert transcript.steps[0].details == "exit: 0"
    # a native line without raw is its own JSON: the run id in it is never shown
    second = transcript.steps[1]
    assert "r1" not in everything(transcript)
    assert "run_id ×1" in " ".join(transcript.notes)  # left out, and said so
    assert second.tokens is not None and second.tokens.input == 5
