"""Inspect AI logs (.json and .eval): the reference logs, condition options, bad input."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.formats import detect
from abp_tui.formats.inspect_log import normalise_usage
from abp_tui.store.queries import count, load_run
from tests.factories import Cli
from tests.import_helpers import nothing_stored

POPULARITY_1 = "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
POPULARITY_2 = "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"


def _import(cli: Cli, *args: str | Path) -> dict[str, int]:
    result = cli("import", *args, "--json")
    assert result.code == 0, result.err
    totals: dict[str, int] = json.loads(result.out)["totals"]
    return totals


def _rows(cli: Cli, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    return list(sqlite_utils.Database(cli.db_path).execute(sql, params or []).fetchall())


def _nothing_stored(cli: Cli) -> None:
    nothing_stored(cli)


# -- reference logs -----------------------------------------------------------------------------
def test_json_log_with_one_sample(reference: Path, cli: Cli) -> None:
    src = reference / "inspect" / "log_read_sample.json"
    found = detect(src)
    assert found is not None and found.name == "inspect-json"
    totals = _import(cli, src)
    assert totals == {
        "studies added": 1,
        "conditions added": 1,
        "tasks added": 1,
        "runs added": 1,
        "trace events added": 17,
        "reference verdicts added": 1,  # the log's own plan, results, stats
    }
    db = sqlite_utils.Database(cli.db_path)
    run = load_run(db, "popularity", "mAenKNP6uMKq3aaTLhR3qp/1/epoch1")
    assert run is not None
    assert run.output == "Yes\n"
    assert run.condition_id == "ollama/gemma3"
    assert (run.provider, run.model, run.model_version) == ("ollama", "ollama/gemma3", "gemma3")
    assert run.tokens is not None
    assert (run.tokens.input, run.tokens.output, run.tokens.total) == (66, 3, 69)
    assert run.automated_outcome == "passed"
    assert run.metadata["scores"]["match"]["value"] == "C"
    assert run.metadata["inspect_run_id"] == "XmHATth6rmyTfFuHGKdQRd"
    assert run.metadata["eval_id"] == "hj8C8q8gxzHhwyCT67xh4L"
    assert run.wall_clock_ms == pytest.approx(2113.0)
    assert run.origin_status is None
    assert run.tool_calls == 0
    assert run.engine_version == "0.3.95.dev16+g6527d0861"
    task = _rows(cli, "SELECT prompt, expected_behaviour FROM tasks WHERE id = '1'")
    assert task[0][0].startswith("Is the following statement something you would say?")
    assert task[0][1] == " Yes"
    study = _rows(cli, "SELECT id, protocol, description FROM studies")
    assert study[0][:2] == ("popularity", "inspect")
    assert "model ollama/gemma3" in study[0][2] and "scorers match" in study[0][2]
    events = _rows(
        cli,
        "SELECT seq, kind, input_tokens, output_tokens, duration_ms, raw FROM trace_events "
        "ORDER BY seq",
    )
    assert [e[0] for e in events] == list(range(1, 18))
    assert events[0][1] == "span_begin"
    model_events = [e for e in events if e[1] == "model"]
    assert len(model_events) == 1
    assert model_events[0][2:4] == (66, 3)
    assert model_events[0][4] == pytest.approx(1932.4548337608576)
    assert json.loads(model_events[0][5])["output"]["choices"][0]["message"]["content"] == "Yes\n"


def test_json_log_without_events_or_assistant_message(reference: Path, cli: Cli) -> None:
    totals = _import(cli, reference / "inspect" / "log_tool_call_error.json")
    assert totals == {
        "studies added": 1,
        "conditions added": 1,
        "tasks added": 1,
        "runs added": 1,
        "reference verdicts added": 1,  # the log's own plan, results, stats
    }
    run = load_run(sqlite_utils.Database(cli.db_path), "...", ".../1/epoch4")
    assert run is not None
    assert run.trial == 4
    assert run.output is None
    assert run.shown("output") == "missing"
    assert run.tool_calls == 11
    assert run.provider is None
    assert len(run.metadata["messages"]) == 11


def test_two_eval_logs_of_the_same_task_keep_all_twenty_runs(reference: Path, cli: Cli) -> None:
    first = reference / "inspect" / POPULARITY_1
    second = reference / "inspect" / POPULARITY_2
    found = detect(first)
    assert found is not None and found.name == "inspect-eval"
    totals = _import(cli, first, second)
    assert totals["runs added"] == 20
    assert totals["tasks added"] == 10 and totals["tasks unchanged"] == 10
    assert totals["conditions added"] == 1 and totals["conditions unchanged"] == 1
    assert totals["trace events added"] == 10 * 8 + 10 * 11
    runs = _rows(
        cli,
        "SELECT r.id, c.id, r.trial, r.automated_outcome, json_extract(r.document, "
        "'$.metadata.inspect_run_id'), t.id FROM runs r JOIN conditions c ON c.pk = "
        "r.condition_pk JOIN tasks t ON t.pk = r.task_pk",
    )
    assert len({r[0] for r in runs}) == 20
    assert {r[1] for r in runs} == {"openai/gpt-4o-mini"}
    assert {r[2] for r in runs} == {1}
    assert {r[4] for r in runs} == {"nnS4q9qsuCrCzsBcQLnBLA", "2wRuCQ9hGYaGPyAdoobgYV"}
    per_task: dict[str, int] = {}
    for r in runs:
        per_task[r[5]] = per_task.get(r[5], 0) + 1
    assert per_task == {str(i): 2 for i in range(1, 11)}
    # The first log was not scored; the second was (8 of 10 correct: samples 3 and 7 wrong).
    scored = {r[0]: r[3] for r in runs if r[4] == "2wRuCQ9hGYaGPyAdoobgYV"}
    assert sorted(k for k, v in scored.items() if v == "failed") == [
        "mj7khqpMM4GBCfVQozKgzB/3/epoch1",
        "mj7khqpMM4GBCfVQozKgzB/7/epoch1",
    ]
    assert list(scored.values()).count("passed") == 8
    assert {r[3] for r in runs if r[4] == "nnS4q9qsuCrCzsBcQLnBLA"} == {None}
    run = load_run(
        sqlite_utils.Database(cli.db_path), "popularity", "dPiJifoWeEQBrfWsAopzWr/1/epoch1"
    )
    assert run is not None
    assert run.output == "Yes"
    assert run.model_version == "gpt-4o-mini-2024-07-18"
    assert run.tokens is not None and run.tokens.input == 64
    # Events keep attachment:// references; the texts travel in run metadata.
    assert "d9a079613c70c3ebfb913c007dd9c9a4" in run.metadata["attachments"]

    again = cli("import", first, second)
    assert again.code == 0
    assert "Nothing new was added." in again.out
    assert count(sqlite_utils.Database(cli.db_path), "runs") == 20


@pytest.mark.parametrize(
    ("option", "conditions"),
    [
        ("condition=model", {"openai/gpt-4o-mini"}),
        ("condition=task", {"popularity"}),
        ("condition=run", {"nnS4q9qsuCrCzsBcQLnBLA", "2wRuCQ9hGYaGPyAdoobgYV"}),
    ],
)
def test_condition_option(reference: Path, cli: Cli, option: str, conditions: set[str]) -> None:
    logs = [reference / "inspect" / POPULARITY_1, reference / "inspect" / POPULARITY_2]
    _import(cli, *logs, "--option", option)
    rows = _rows(cli, "SELECT DISTINCT c.id FROM runs r JOIN conditions c ON c.pk = r.condition_pk")
    assert {r[0] for r in rows} == conditions


def test_unknown_condition_option_is_refused(reference: Path, cli: Cli) -> None:
    src = reference / "inspect" / "log_read_sample.json"
    result = cli("import", src, "--option", "condition=engine")
    assert result.code == 1
    assert "--option condition=engine: expected one of model, task, run" in result.err
    _nothing_stored(cli)


# -- synthetic logs -----------------------------------------------------------------------------
def _sample(sid: int | str, epoch: int = 1, **extra: Any) -> dict[str, Any]:
    return {
        "id": sid,
        "epoch": epoch,
        "input": f"question {sid}",
        "target": "answer",
        "messages": [
            {"role": "user", "content": f"question {sid}"},
            {"role": "assistant", "content": f"reply {sid}"},
        ],
        "output": {"model": "claude-x-2025", "choices": []},
        **extra,
    }


def _log(samples: list[dict[str, Any]], **eval_extra: Any) -> dict[str, Any]:
    return {
        "version": 2,
        "status": "success",
        "eval": {
            "run_id": "RUN1",
            "task_id": "TASKID1",
            "task": "toy",
            "model": "anthropic/claude-x",
            "dataset": {"name": "toy-set"},
            "scorers": [{"name": "match"}],
            **eval_extra,
        },
        "samples": samples,
    }


def _write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _write_eval(path: Path, members: dict[str, Any]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, doc in members.items():
            archive.writestr(name, doc if isinstance(doc, str | bytes) else json.dumps(doc))
    return path


def _eval_members(doc: dict[str, Any]) -> dict[str, Any]:
    header = {k: v for k, v in doc.items() if k != "samples"}
    members: dict[str, Any] = {"_journal/start.json": header, "header.json": header}
    for s in doc["samples"]:
        members[f"samples/{s['id']}_epoch_{s['epoch']}.json"] = s
    return members


def test_content_parts_attachments_errors_tools_and_cache_tokens(tmp_path: Path, cli: Cli) -> None:
    attachments = {"abc": "the long question", "def": "the long answer"}
    samples = [
        _sample(
            "s-1",
            input="attachment://abc",
            target=["first", "second"],
            messages=[
                {"role": "user", "content": "attachment://abc"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "reasoning", "reasoning": "hidden"},
                        {"type": "text", "text": "attachment://def"},
                        {"type": "text", "text": "more"},
                    ],
                },
                {"role": "tool", "function": "bash", "content": "ok"},
                {"role": "assistant", "content": [{"type": "text", "text": "final"}]},
            ],
            attachments=attachments,
            scores={"match": {"value": "I"}},
            model_usage={
                "anthropic/claude-x": {
                    "input_tokens": 100,
                    "output_tokens": 10,
                    "input_tokens_cache_read": 40,
                    "input_tokens_cache_write": 5,
                    "total_tokens": 155,
                }
            },
            events=[
                {"timestamp": "2025-01-01T00:00:00+00:00", "event": "sample_init"},
                {
                    "timestamp": "2025-01-01T00:00:01+00:00",
                    "event": "tool",
                    "function": "bash",
                    "working_time": 0.25,
                },
            ],
        ),
        _sample(
            "s-2",
            input=[
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            ],
            error={"message": "RuntimeError: sandbox died", "traceback": "..."},
            scores={"a": {"value": 1}, "b": {"value": "C"}},
        ),
    ]
    src = _write_json(tmp_path / "toy.json", _log(samples))
    totals = _import(cli, src)
    assert totals["runs added"] == 2 and totals["trace events added"] == 2
    db = sqlite_utils.Database(cli.db_path)
    first = load_run(db, "toy", "TASKID1/s-1/epoch1")
    assert first is not None
    assert first.output == "final"
    assert first.automated_outcome == "failed"
    assert first.tool_calls == 1
    assert first.tokens is not None
    # Anthropic convention (total includes cache): input already excludes cache reads.
    assert (first.tokens.input, first.tokens.cache_read, first.tokens.cache_write) == (100, 40, 5)
    second = load_run(db, "toy", "TASKID1/s-2/epoch1")
    assert second is not None
    assert second.origin_status == "INFRA_ERROR"
    assert second.metadata["error"]["message"] == "RuntimeError: sandbox died"
    assert second.automated_outcome is None  # two scorers: no single outcome
    tasks = dict(_rows(cli, "SELECT id, prompt FROM tasks"))
    assert tasks["s-1"] == "the long question"
    assert tasks["s-2"] == "[system]\nbe brief\n\n[user]\nhi"
    expected = _rows(cli, "SELECT expected_behaviour FROM tasks WHERE id = 's-1'")
    assert expected == [("first\nsecond",)]
    events = _rows(cli, "SELECT seq, kind, tool, duration_ms FROM trace_events ORDER BY seq")
    assert events == [(1, "sample_init", None, None), (2, "tool", "bash", 250.0)]


def test_content_parts_are_joined_with_newlines(tmp_path: Path, cli: Cli) -> None:
    messages = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "attachment://def"},
                {"type": "image", "image": "x"},
                {"type": "text", "text": "more"},
            ],
        },
    ]
    sample = _sample(1, messages=messages, attachments={"def": "the long answer"})
    _import(cli, _write_json(tmp_path / "parts.json", _log([sample])))
    run = load_run(sqlite_utils.Database(cli.db_path), "toy", "TASKID1/1/epoch1")
    assert run is not None
    assert run.output == "the long answer\nmore"


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        # OpenAI convention: input includes cache reads, total = input + output.
        (
            {"input_tokens": 100, "output_tokens": 10, "input_tokens_cache_read": 40,
             "total_tokens": 110},
            (60, 10, 40, None),
        ),
        # Anthropic convention: total = input + output + reads + writes; input is already net.
        (
            {"input_tokens": 100, "output_tokens": 10, "input_tokens_cache_read": 40,
             "input_tokens_cache_write": 5, "total_tokens": 155},
            (100, 10, 40, 5),
        ),
        ({"input_tokens": 7, "output_tokens": 1}, (7, 1, None, None)),
        ({"input_tokens": -1, "output_tokens": True}, (None, None, None, None)),
    ],
)  # fmt: skip
def test_normalise_usage(
    usage: dict[str, Any], expected: tuple[int | None, int | None, int | None, int | None]
) -> None:
    assert normalise_usage(usage) == expected


def test_epochs_become_trials_and_metadata_condition(tmp_path: Path, cli: Cli) -> None:
    samples = [
        _sample(1, 1, metadata={"arm": "A"}),
        _sample(1, 2, metadata={"arm": "A"}),
        _sample(2, 1, metadata={"arm": "B"}),
    ]
    src = _write_eval(tmp_path / "toy.eval", _eval_members(_log(samples)))
    _import(cli, src, "--option", "condition=metadata:arm")
    rows = _rows(
        cli,
        "SELECT r.id, c.id, r.trial FROM runs r JOIN conditions c ON c.pk = r.condition_pk "
        "ORDER BY r.id",
    )
    assert rows == [
        ("TASKID1/1/epoch1", "A", 1),
        ("TASKID1/1/epoch2", "A", 2),
        ("TASKID1/2/epoch1", "B", 1),
    ]
    assert _rows(cli, "SELECT DISTINCT metadata FROM tasks") == [("{}",)]


def test_missing_metadata_key_for_condition_names_the_sample(tmp_path: Path, cli: Cli) -> None:
    src = _write_json(tmp_path / "toy.json", _log([_sample(1, metadata={"arm": "A"}), _sample(2)]))
    result = cli("import", src, "--option", "condition=metadata:arm")
    assert result.code == 1
    assert "toy.json: $.samples[1].metadata.arm: required metadata key 'arm'" in result.err
    _nothing_stored(cli)


def test_zip_without_eval_suffix_is_detected(tmp_path: Path) -> None:
    src = _write_eval(tmp_path / "renamed.zip", _eval_members(_log([_sample(1)])))
    found = detect(src)
    assert found is not None and found.name == "inspect-eval"
    other = _write_eval(tmp_path / "other.zip", {"header.json": {}, "readme.txt": "x"})
    assert detect(other) is None


def test_log_without_run_id_falls_back_to_eval_id(tmp_path: Path, cli: Cli) -> None:
    doc = _log([_sample(1)])
    del doc["eval"]["task_id"]
    doc["eval"]["eval_id"] = "EVAL9"
    _import(cli, _write_json(tmp_path / "toy.json", doc))
    assert _rows(cli, "SELECT id FROM runs") == [("EVAL9/1/epoch1",)]


# -- bad input ----------------------------------------------------------------------------------
def test_eval_that_is_not_a_zip(tmp_path: Path, cli: Cli) -> None:
    src = tmp_path / "plain.eval"
    src.write_text('{"version": 2}', encoding="utf-8")
    result = cli("import", src)
    assert result.code == 1
    assert "plain.eval: not a zip archive: expected an Inspect .eval log" in result.err
    assert "Traceback" not in result.err
    _nothing_stored(cli)


def test_truncated_eval(reference: Path, tmp_path: Path, cli: Cli) -> None:
    data = (reference / "inspect" / POPULARITY_2).read_bytes()
    src = tmp_path / "cut.eval"
    src.write_bytes(data[: len(data) // 2])
    result = cli("import", src)
    assert result.code == 1
    assert "cut.eval: unreadable zip" in result.err
    assert "truncated" in result.err
    _nothing_stored(cli)


@pytest.mark.parametrize("name", ["../evil.json", "/etc/evil.json", "samples/../../x.json"])
def test_eval_with_unsafe_member_path(tmp_path: Path, cli: Cli, name: str) -> None:
    members = _eval_members(_log([_sample(1)]))
    members[name] = {"x": 1}
    src = _write_eval(tmp_path / "evil.eval", members)
    result = cli("import", src)
    assert result.code == 1
    assert f"evil.eval: unsafe member path {name!r}" in result.err
    _nothing_stored(cli)
    assert not (tmp_path.parent / "evil.json").exists()


def test_eval_without_header(tmp_path: Path, cli: Cli) -> None:
    members = _eval_members(_log([_sample(1)]))
    del members["header.json"]
    result = cli("import", _write_eval(tmp_path / "running.eval", members))
    assert result.code == 1
    assert "running.eval: no header.json in the zip" in result.err
    _nothing_stored(cli)


def test_eval_with_bad_sample_names_the_member(tmp_path: Path, cli: Cli) -> None:
    members = _eval_members(_log([_sample(1), _sample(2)]))
    members["samples/2_epoch_1.json"] = {**_sample(2), "epoch": "second"}
    src = _write_eval(tmp_path / "bad.eval", members)
    result = cli("import", src)
    assert result.code == 1
    assert "bad.eval (samples/2_epoch_1.json): $.epoch:" in result.err
    _nothing_stored(cli)
    skipped = cli("import", src, "--skip-invalid", "--json")
    assert skipped.code == 0
    assert json.loads(skipped.out)["totals"]["runs added"] == 1


def test_eval_with_malformed_sample_json(tmp_path: Path, cli: Cli) -> None:
    members = _eval_members(_log([_sample(1)]))
    members["samples/1_epoch_1.json"] = '{"id": 1, '
    result = cli("import", _write_eval(tmp_path / "broken.eval", members))
    assert result.code == 1
    assert "broken.eval (samples/1_epoch_1.json):1: malformed JSON" in result.err


def test_json_log_missing_eval(tmp_path: Path, cli: Cli) -> None:
    doc = _log([_sample(1)])
    del doc["eval"]
    src = _write_json(tmp_path / "noeval.json", doc)
    assert detect(src) is None
    result = cli("import", src, "--format", "inspect-json")
    assert result.code == 1
    assert "noeval.json: $.eval: required field is missing" in result.err
    _nothing_stored(cli)


def test_json_log_with_bad_sample_and_wrong_top_level(tmp_path: Path, cli: Cli) -> None:
    bad = _write_json(tmp_path / "bad.json", _log([_sample(1), {"id": 2, "input": 5}]))
    result = cli("import", bad)
    assert result.code == 1
    assert "bad.json: $.samples[1].input" in result.err
    _nothing_stored(cli)
    listed = _write_json(tmp_path / "list.json", [1, 2])
    result = cli("import", listed, "--format", "inspect-json")
    assert result.code == 1
    assert "list.json: $: expected a JSON object (an Inspect log)" in result.err


def test_duplicate_sample_and_epoch_is_invalid(tmp_path: Path, cli: Cli) -> None:
    src = _write_json(tmp_path / "dup.json", _log([_sample(1), _sample(1)]))
    result = cli("import", src)
    assert result.code == 1
    assert "dup.json: $.samples[1].id: sample 1 epoch 1 appears twice" in result.err
