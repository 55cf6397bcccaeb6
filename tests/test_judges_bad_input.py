"""Bad AI judge input: one clear error naming the file, the line or JSON path, the field and what
was expected; never an internal error; nothing stored when the import is refused.

The MT-Bench and LLMBar fixtures are small excerpts of the reference files, copied into the
test's folder and broken there one field at a time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.errors import ImportFailed, InputError
from abp_tui.formats import detect, llmbar_eval, pairwise
from abp_tui.services.importing import import_paths
from abp_tui.store import connect
from tests.factories import Cli, CliResult, write_jsonl

Edit = Callable[[dict[str, Any]], None]

QUESTIONS = ("81", "82")
"""The MT-Bench questions of the excerpt: the first two the reference pair judgments judge."""
LLMBAR_ITEMS = 3


# -- helpers -------------------------------------------------------------------------------------
def _counts(db: sqlite_utils.Database) -> dict[str, int]:
    """Rows of every table: a refused import leaves each count as it was."""
    tables = [
        str(r[0])
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        ).fetchall()
    ]
    return {t: int(db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]) for t in tables}


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _excerpt(source: Path, target: Path) -> Path:
    """The lines of ``source`` on the excerpt's questions, written to ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = [d for d in _read_jsonl(source) if str(d["question_id"]) in QUESTIONS]
    assert lines, f"the reference {source.name} judges none of questions {QUESTIONS}"
    return write_jsonl(target, lines)


def _mt_bench(reference: Path, tmp_path: Path, *, questions: bool = True) -> Path:
    """An MT-Bench run folder with two questions, both models' answers and the pair judgments."""
    src, folder = reference / "mt-bench", tmp_path / "mt"
    if questions:
        _excerpt(src / "question.jsonl", folder / "question.jsonl")
    for name in ("phi-3", "phi-3-dpo"):
        _excerpt(src / "model_answer" / f"{name}.jsonl", folder / "model_answer" / f"{name}.jsonl")
    _excerpt(
        src / "model_judgment" / "gpt-4_pair.jsonl", folder / "model_judgment" / "gpt-4_pair.jsonl"
    )
    return folder


def _edit_line(path: Path, edit: Edit, index: int = 0) -> None:
    lines = _read_jsonl(path)
    edit(lines[index])
    write_jsonl(path, lines)


def _refused(db: sqlite_utils.Database, paths: list[Path], **kwargs: Any) -> InputError:
    """The one error of an import that must be refused, having stored nothing."""
    before = _counts(db)
    with pytest.raises(ImportFailed) as refused:
        import_paths(db, paths, **kwargs)
    assert _counts(db) == before
    assert len(refused.value.errors) == 1, refused.value.errors
    error = refused.value.errors[0]
    assert "\n" not in str(error)
    return error


# -- FastChat / MT-Bench -------------------------------------------------------------------------
def _same_models(line: dict[str, Any]) -> None:
    line["model_2"] = line["model_1"]


def _empty_judge(line: dict[str, Any]) -> None:
    line["judge"] = ["", ""]


def _blank_prompt(line: dict[str, Any]) -> None:
    line["judge"] = ["gpt-4", "  "]


def _third_turn(line: dict[str, Any]) -> None:
    line["turn"] = 3


@pytest.mark.parametrize(
    ("edit", "field", "expected"),
    [
        (_same_models, "$.model_2", 'two different models in model_1 and model_2, got "phi-3"'),
        (_empty_judge, "$.judge[0]", "[judging model, prompt name] with the judging model not"),
        (_blank_prompt, "$.judge[1]", "with the prompt name not empty"),
        (_third_turn, "$.turn", "from 1 to 2 (question 81 has 2 turns in question.jsonl), got 3"),
    ],
)
def test_a_bad_fastchat_pair_line_is_refused_by_line_and_field(
    reference: Path,
    tmp_path: Path,
    db: sqlite_utils.Database,
    edit: Edit,
    field: str,
    expected: str,
) -> None:
    folder = _mt_bench(reference, tmp_path)
    pair = folder / "model_judgment" / "gpt-4_pair.jsonl"
    _edit_line(pair, edit)
    error = _refused(db, [folder])
    assert (Path(error.file).name, error.line, error.path) == ("gpt-4_pair.jsonl", 1, field)
    assert expected in error.message
    assert str(error).startswith(f"{pair}:1: {field}: expected ")
    # Nothing of the folder was stored: not the questions, the answers, nor the other verdicts.
    assert _counts(db)["runs"] == 0 and _counts(db)["judge_verdicts"] == 0


def test_a_turn_the_question_does_not_have_is_refused(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    folder = _mt_bench(reference, tmp_path)
    # Question 81 with its first turn only: the judgment's turn 2 is beyond it.
    _edit_line(folder / "question.jsonl", lambda q: q.update(turns=q["turns"][:1]))
    _edit_line(folder / "model_judgment" / "gpt-4_pair.jsonl", lambda line: line.update(turn=2))
    error = _refused(db, [folder])
    assert (error.line, error.path) == (1, "$.turn")
    assert error.message == "expected turn 1 (question 81 has 1 turn in question.jsonl), got 2"


def test_without_question_file_the_limit_is_mt_benchs_two_turns(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    folder = _mt_bench(reference, tmp_path, questions=False)
    import_paths(db, [folder / "model_answer"])
    pair = folder / "model_judgment" / "gpt-4_pair.jsonl"
    _edit_line(pair, _third_turn, index=1)
    error = _refused(db, [pair], study="mt")
    assert (error.line, error.path) == (2, "$.turn")
    assert error.message == "expected turn 1 or 2 (an MT-Bench question has 2 turns), got 3"


def test_the_untouched_excerpt_imports(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # The fixture itself is good: each refusal above comes from the one field broken.
    import_paths(db, [_mt_bench(reference, tmp_path)])
    assert _counts(db)["judge_verdicts"] == 2 * len(
        _read_jsonl(tmp_path / "mt" / "model_judgment" / "gpt-4_pair.jsonl")
    )


def test_the_cli_refuses_a_pair_of_a_model_with_itself(
    reference: Path, tmp_path: Path, cli: Cli
) -> None:
    folder = _mt_bench(reference, tmp_path)
    _edit_line(folder / "model_judgment" / "gpt-4_pair.jsonl", _same_models)
    result = cli("import", folder)
    assert result.code == 1, result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    assert "import refused; nothing was written (1 error)" in result.err
    assert "gpt-4_pair.jsonl:1: $.model_2: expected two different models" in result.err
    db = connect(cli.db_path)
    try:
        assert _counts(db)["studies"] == 0 and _counts(db)["judge_verdicts"] == 0
    finally:
        db.close()


# -- native judge_verdict lines ------------------------------------------------------------------
def _native(tmp_path: Path, verdict: dict[str, Any]) -> Path:
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": "n"},
        {"type": "task", "id": "t1", "prompt": "Say hi."},
        {"type": "task", "id": "t2", "prompt": "Say bye."},
        {"type": "run", "id": "r1", "task_id": "t1", "condition_id": "A", "output": "hi"},
        {"type": "run", "id": "r2", "task_id": "t1", "condition_id": "B", "output": "hello"},
        {"type": "judge", "id": "acme-judge/v1", "kind": "ai", "model": "acme-9", "prompt": "v1"},
        {"type": "judge_verdict", "judge": "acme-judge/v1", **verdict},
    ]
    return write_jsonl(tmp_path / "n.jsonl", lines)


@pytest.mark.parametrize(
    ("verdict", "field", "expected"),
    [
        (
            {"task_id": "t1", "run": "r1", "score": 11, "scale": [1, 10]},
            "$.score",
            "expected a score on the verdict's scale, from 1 to 10 (got 11)",
        ),
        (
            {"task_id": "t1", "run": "r1", "score": 0.5, "scale": [1, 5]},
            "$.score",
            "expected a score on the verdict's scale, from 1 to 5 (got 0.5)",
        ),
        (
            {"task_id": "t1", "run": "r1", "score": 3, "scale": [10, 1]},
            "$.scale",
            "expected scale = [lowest, highest] with lowest < highest",
        ),
        (
            {"task_id": "t2", "runs": ["r1", "r2"], "shown_first": "r1", "verdict": "r1"},
            "$.task_id",
            "'t1'",
        ),
        (
            {"task_id": "t2", "run": "r2", "verdict": "pass"},
            "$.task_id",
            "'t1'",
        ),
    ],
)
def test_a_bad_native_verdict_is_refused_by_line_and_field(
    tmp_path: Path,
    db: sqlite_utils.Database,
    verdict: dict[str, Any],
    field: str,
    expected: str,
) -> None:
    import_paths(db, [write_jsonl(tmp_path / "other.jsonl", [{"type": "study", "id": "o"}])])
    error = _refused(db, [_native(tmp_path, verdict)])
    assert (Path(error.file).name, error.line, error.path) == ("n.jsonl", 7, field)
    assert error.message.startswith("expected ")
    assert expected in error.message


# -- LLMBar evaluator results --------------------------------------------------------------------
def _llmbar(reference: Path, tmp_path: Path, edit: Callable[[list[Any]], None]) -> Path:
    """The first items of the reference dataset and GPT-4-Vanilla's results, ``edit`` applied
    to the results; the path of result.json."""
    src, folder = reference / "llmbar-manual", tmp_path / "llmbar"
    dataset = json.loads((src / "dataset.json").read_text(encoding="utf-8"))[:LLMBAR_ITEMS]
    results = json.loads(
        (src / "evaluators" / "GPT-4-Vanilla" / "result.json").read_text(encoding="utf-8")
    )[:LLMBAR_ITEMS]
    edit(results)
    path = folder / "evaluators" / "GPT-4-Vanilla" / "result.json"
    path.parent.mkdir(parents=True)
    (folder / "dataset.json").write_text(json.dumps(dataset), encoding="utf-8")
    path.write_text(json.dumps(results), encoding="utf-8")
    return path


def _first_empty(items: list[Any]) -> None:
    items[0]["results"] = []


def _all_empty(items: list[Any]) -> None:
    for item in items:
        item["results"] = []


def _second_one_order(items: list[Any]) -> None:
    del items[1]["results"][-1]["swap = True"]


def _second_no_results(items: list[Any]) -> None:
    del items[1]["results"]


@pytest.mark.parametrize("edit", [_first_empty, _all_empty, _second_no_results])
def test_an_evaluator_result_is_never_taken_for_a_pairwise_dataset(
    reference: Path, tmp_path: Path, edit: Callable[[list[Any]], None]
) -> None:
    path = _llmbar(reference, tmp_path, edit)
    assert detect(path) is llmbar_eval.FORMAT
    assert detect(path.parent.parent.parent / "dataset.json") is pairwise.FORMAT


@pytest.mark.parametrize(
    ("edit", "field", "expected"),
    [
        (_first_empty, "$[0].results", "expected the judge's results, got an empty list"),
        (_second_one_order, "$[1].results[-1]", '"swap = True": output_2 shown first, is missing'),
        (_second_no_results, "$[1]", "an item with input, output_1, output_2, label and results"),
    ],
)
def test_an_evaluator_item_without_both_orders_is_refused_by_path(
    reference: Path,
    tmp_path: Path,
    db: sqlite_utils.Database,
    edit: Callable[[list[Any]], None],
    field: str,
    expected: str,
) -> None:
    path = _llmbar(reference, tmp_path, edit)
    error = _refused(db, [path.parent.parent.parent])  # the folder: dataset and evaluator
    assert (Path(error.file).name, error.line, error.path) == ("result.json", None, field)
    assert error.message.startswith("expected ")
    assert expected in error.message


def test_skipping_an_item_without_both_orders_says_so(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    path = _llmbar(reference, tmp_path, _second_one_order)
    report = import_paths(db, [path], study="llmbar", skip_invalid=True)
    (file,) = report.files
    assert any("$[1].results[-1]" in s and "swap = True" in s for s in file.skipped)
    # The two whole items are stored with both orders; the cut-short one has no verdict.
    assert _counts(db)["judge_verdicts"] == 2 * (LLMBAR_ITEMS - 1)


# -- the commands that name a judge where a reviewer belongs, or a study that is not there -------
@pytest.fixture
def judged(reference: Path, tmp_path: Path, cli: Cli) -> Cli:
    """The CLI over a database holding the LLMBar excerpt and its AI judge GPT-4-Vanilla."""
    path = _llmbar(reference, tmp_path, lambda _items: None)
    assert cli("import", path.parent.parent.parent).code == 0
    return cli


def _refused_by_cli(result: CliResult) -> str:
    assert result.code == 1, result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    return lines[0]


def test_an_ai_judge_is_never_made_a_designs_reviewer(judged: Cli) -> None:
    db = connect(judged.db_path)
    try:
        before = _counts(db)
        message = _refused_by_cli(
            judged("study", "create", "--db", judged.db_path, "--reviewers", "ann,GPT-4-Vanilla")
        )
        assert "GPT-4-Vanilla" in message and "AI judge" in message and "reviewer" in message
        assert _counts(db) == before
    finally:
        db.close()


def test_an_ai_judge_is_never_issued_a_pack(judged: Cli, tmp_path: Path) -> None:
    assert (
        judged("study", "create", "--db", judged.db_path).code == 0
    )  # an open design: anyone may be enrolled
    out = tmp_path / "judge.pack.json"
    db = connect(judged.db_path)
    try:
        before = _counts(db)
        message = _refused_by_cli(
            judged(
                "pack", "study", "--db", judged.db_path, "--reviewer", "GPT-4-Vanilla", "--out", out
            )
        )
        assert "GPT-4-Vanilla" in message and "AI judge" in message
        assert _counts(db) == before
        assert db.execute("SELECT frozen_at FROM designs").fetchall() == [(None,)]
    finally:
        db.close()
    assert not out.exists()


def test_judges_of_a_study_that_does_not_exist(judged: Cli) -> None:
    message = _refused_by_cli(judged("judges", "--study", "nope"))
    # The same words as every command's: the study, the database read, the ones it holds.
    assert "no study 'nope' in " in message and str(judged.db_path) in message


def test_the_fixture_judge_is_in_the_database(judged: Cli) -> None:
    # The refusals above are about GPT-4-Vanilla being an AI judge, not about a missing name.
    shown = judged("judges")
    assert shown.code == 0, shown.err
    assert "GPT-4-Vanilla" in shown.out
