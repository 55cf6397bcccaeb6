"""A run folder is one study: ABP, AFP, sci-bench and MT-Bench folders as their harness leaves
them, each imported whole under the study its layout names; an MT-Bench folder's AI judge
verdicts (model_judgment/) come in with it, as AI judge verdicts, never as people's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.store.queries import count
from tests.factories import DEMO, Cli


def _rows(cli: Cli, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    return list(sqlite_utils.Database(cli.db_path).execute(sql, params or []).fetchall())


def _studies(cli: Cli) -> list[str]:
    return [r[0] for r in _rows(cli, "SELECT id FROM studies ORDER BY id")]


def _import(cli: Cli, *args: str | Path) -> dict[str, Any]:
    result = cli("import", *args, "--json")
    assert result.code == 0, result.err
    report: dict[str, Any] = json.loads(result.out)
    return report


# -- ABP ------------------------------------------------------------------------------------------
def test_abp_run_folder_is_one_study_named_after_the_folder(cli: Cli) -> None:
    report = _import(cli, DEMO / "abp-demo")
    assert _studies(cli) == ["abp-demo"]
    assert report["folders"] == [
        {
            "folder": str(DEMO / "abp-demo"),
            "layout": "ABP run folder",
            "study": "abp-demo",
            "naming": "named after the run folder",
            "notes": [],
        }
    ]
    # The manifest first, then the tasks, the traces and the verdict.
    formats = [f["format"] for f in report["files"]]
    assert formats[0] == "abp-run"
    assert formats[1:5] == ["abp-task"] * 4
    assert formats[5:-1] == ["abp-trace"] * 24
    assert formats[-1] == "abp-verdict"
    assert {f["study"] for f in report["files"]} == {"abp-demo"}
    db = sqlite_utils.Database(cli.db_path)
    assert (count(db, "tasks"), count(db, "conditions"), count(db, "runs")) == (4, 2, 24)
    assert count(db, "reference_verdicts") == 1
    # No placeholder is left: every run's task and engine came with the folder.
    assert _rows(cli, "SELECT count(*) FROM tasks WHERE placeholder = 1") == [(0,)]
    assert _rows(cli, "SELECT count(*) FROM conditions WHERE placeholder = 1") == [(0,)]
    # Every run has its trace, and the trace events are all there (run.start to run.end).
    assert _rows(cli, "SELECT count(*) FROM runs WHERE trace_pk IS NULL") == [(0,)]
    lines = sum(
        len(p.read_text("utf-8").splitlines()) for p in (DEMO / "abp-demo" / "traces").iterdir()
    )
    assert _rows(cli, "SELECT sum(n_events) FROM traces") == [(lines,)]


def test_study_naming_is_the_folder_name_and_study_overrides(tmp_path: Path, cli: Cli) -> None:
    copy = tmp_path / "nightly-2026-07-18"
    shutil.copytree(DEMO / "abp-demo", copy)
    _import(cli, copy)
    assert _studies(cli) == ["nightly-2026-07-18"]
    named = _import(cli, DEMO / "abp-demo", "--study", "chosen")
    assert {f["study"] for f in named["files"]} == {"chosen"}
    assert _studies(cli) == ["chosen", "nightly-2026-07-18"]


def test_a_file_of_a_run_folder_imported_alone_joins_the_folders_study(cli: Cli) -> None:
    task = DEMO / "abp-demo" / "tasks" / "fx-iso-timezone.json"
    trace = next((DEMO / "abp-demo" / "traces").glob("fx-iso-timezone.*.jsonl"))
    _import(cli, task)
    _import(cli, trace)
    assert _studies(cli) == ["abp-demo"]


def test_a_folder_of_run_folders_imports_each_as_its_study(cli: Cli) -> None:
    report = _import(cli, DEMO)
    layouts = {f["folder"]: (f["layout"], f["study"]) for f in report["folders"]}
    assert layouts[str(DEMO / "abp-demo")] == ("ABP run folder", "abp-demo")
    # The AFP pack names its study by its protocol version.
    assert layouts[str(DEMO / "afp-pilot-demo")] == ("AFP run folder", "afp-v0.1")
    assert {"abp-demo", "afp-v0.1"} <= set(_studies(cli))
    assert "tasks" not in _studies(cli) and "traces" not in _studies(cli)


def test_the_summary_states_how_the_study_was_named(cli: Cli) -> None:
    result = cli("import", DEMO / "abp-demo")
    assert result.code == 0, result.err
    first = result.out.splitlines()[0]
    assert first == (
        f"{DEMO / 'abp-demo'}: ABP run folder -> study abp-demo (named after the run folder)"
    )


# -- sci-bench -------------------------------------------------------------------------------------
def test_scibench_folder_is_the_specifications_study(reference: Path, cli: Cli) -> None:
    report = _import(cli, reference / "sci-bench")
    [folder] = report["folders"]
    assert (folder["layout"], folder["study"]) == (
        "sci-bench run folder",
        "ABENCH-PARALLEL-LIMITS-001",
    )
    assert report["files"][0]["format"] == "sci-spec"
    assert _studies(cli) == ["ABENCH-PARALLEL-LIMITS-001"]
    # 3 submissions and 2 run records, 2 cases each.
    assert report["totals"]["runs added"] == 10


# -- MT-Bench --------------------------------------------------------------------------------------
def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_mt_bench_folder_is_one_study_of_questions_and_answers(reference: Path, cli: Cli) -> None:
    folder = reference / "mt-bench"
    report = _import(cli, folder)
    [plan] = report["folders"]
    assert plan["layout"] == "MT-Bench run folder"
    assert plan["study"] == "mt-bench"
    assert plan["naming"] == "named after the folder holding question.jsonl"
    questions = _jsonl(folder / "question.jsonl")
    answers = {p.stem: _jsonl(p) for p in (folder / "model_answer").glob("*.jsonl")}
    db = sqlite_utils.Database(cli.db_path)
    assert _studies(cli) == ["mt-bench"]
    assert count(db, "tasks") == len(questions) == 80
    assert _rows(cli, "SELECT id FROM conditions ORDER BY id") == [("phi-3",), ("phi-3-dpo",)]
    assert count(db, "runs") == sum(len(a) for a in answers.values()) == 160
    # The questions come first; the reference answers are read with them, not as runs.
    assert Path(report["files"][0]["file"]).name == "question.jsonl"
    assert not any("reference_answer" in f["file"] for f in report["files"])
    # The AI judge's verdicts became nobody's judgments, preferences or reviewer.
    assert count(db, "preferences") == 0
    assert count(db, "reviewers") == 0
    assert _rows(cli, "SELECT count(*) FROM judgments") == [(0,)]


def test_mt_bench_answer_keeps_both_turns_as_a_conversation(reference: Path, cli: Cli) -> None:
    folder = reference / "mt-bench"
    _import(cli, folder)
    answer = next(
        a for a in _jsonl(folder / "model_answer" / "phi-3.jsonl") if a["question_id"] == 81
    )
    turns = answer["choices"][0]["turns"]
    [(output, document)] = _rows(
        cli,
        "SELECT b.text, r.document FROM runs r JOIN blobs b ON b.sha256 = r.output_sha256 "
        "WHERE r.id = 'phi-3/81'",
    )
    assert output == f"Turn 1:\n{turns[0]}\n\nTurn 2:\n{turns[1]}"
    meta = json.loads(document)["metadata"]
    assert meta["turns"] == turns
    assert meta["answer_id"] == answer["answer_id"]
    question = next(q for q in _jsonl(folder / "question.jsonl") if q["question_id"] == 81)
    [(prompt,)] = _rows(cli, "SELECT prompt FROM tasks WHERE id = '81'")
    assert prompt == f"Turn 1:\n{question['turns'][0]}\n\nTurn 2:\n{question['turns'][1]}"


def test_mt_bench_reference_answers_are_each_tasks_expected_behaviour(
    reference: Path, cli: Cli
) -> None:
    folder = reference / "mt-bench"
    _import(cli, folder)
    ref = next(
        r for r in _jsonl(folder / "reference_answer" / "gpt-4.jsonl") if r["question_id"] == 101
    )
    [(expected, metadata)] = _rows(
        cli, "SELECT expected_behaviour, metadata FROM tasks WHERE id = '101'"
    )
    # The question's own reference (its author's) and the reference answer file's, labelled.
    assert "Reference answer (question.jsonl):\n\nTurn 1:\nYou are in second place." in expected
    assert (
        f"Reference answer (reference_answer/gpt-4.jsonl):\n\nTurn 1:\n"
        f"{ref['choices'][0]['turns'][0]}" in expected
    )
    assert json.loads(metadata)["reference_answers"] == {
        "reference_answer/gpt-4.jsonl": ref["choices"][0]["turns"]
    }


def test_a_changed_reference_answer_is_a_new_import(
    reference: Path, tmp_path: Path, cli: Cli
) -> None:
    folder = tmp_path / "mt_bench"
    shutil.copytree(reference / "mt-bench", folder)
    _import(cli, folder)
    again = _import(cli, folder)
    assert {f["status"] for f in again["files"] if f["format"]} == {"unchanged"}
    refs = folder / "reference_answer" / "gpt-4.jsonl"
    lines = refs.read_text("utf-8").splitlines()
    first = json.loads(lines[0])
    first["choices"][0]["turns"][0] = "A corrected reference answer."
    refs.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", "utf-8")
    changed = _import(cli, folder)
    statuses = {Path(f["file"]).name: f["status"] for f in changed["files"] if f["format"]}
    assert statuses["question.jsonl"] == "imported"
    assert changed["totals"]["tasks new version"] == 1


def test_mt_bench_reference_answers_named_alone_say_where_they_belong(
    reference: Path, cli: Cli
) -> None:
    result = cli("import", reference / "mt-bench" / "reference_answer" / "gpt-4.jsonl")
    assert result.code == 1
    assert "gpt-4.jsonl: MT-Bench reference answers: read with question.jsonl" in result.err
    assert "Traceback" not in result.err


# -- LLMBar ----------------------------------------------------------------------------------------
def test_llmbar_evaluators_never_become_human_labels(reference: Path, cli: Cli) -> None:
    _import(cli, reference / "llmbar-manual")
    # The evaluators' result.json files (AI judges) add no study of their own ("result").
    assert _studies(cli) == ["llmbar-manual"]
    # Only the human label of each pair is a preference.
    assert _rows(cli, "SELECT DISTINCT reviewer FROM preferences") == [("llmbar-manual:label",)]
    assert _rows(cli, "SELECT count(*) FROM preferences") == [(46,)]
