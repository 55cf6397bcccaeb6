"""Importing AI judges' verdicts: LLMBar evaluators, FastChat / MT-Bench judgments, Inspect
model-graded scores and native judge lines, kept apart from people's judgments."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.errors import ImportFailed
from abp_tui.services.agreement_report import imported_records
from abp_tui.services.importing import import_paths
from abp_tui.services.judges import judge_report
from abp_tui.store import judges as sql
from tests.factories import Cli, write_jsonl


def _count(db: sqlite_utils.Database, query: str, *args: object) -> int:
    return int(db.execute(query, list(args)).fetchone()[0])


def test_llmbar_folder_imports_the_pairs_once_and_both_evaluators(
    reference: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [reference / "llmbar-manual"], study="llmbar")
    # The dataset and both evaluators' result.json carry the same 46 pairs: stored once.
    assert _count(db, "SELECT count(*) FROM tasks WHERE study_id = 'llmbar'") == 46
    assert _count(db, "SELECT count(*) FROM runs WHERE study_id = 'llmbar'") == 92
    assert _count(db, "SELECT count(*) FROM preferences WHERE study_id = 'llmbar'") == 46
    judges = {j.id: j for j in sql.study_judges(db, "llmbar")}
    assert set(judges) == {"GPT-4-Vanilla", "ChatGPT-Vanilla"}
    assert judges["GPT-4-Vanilla"].model == "GPT-4"
    assert judges["GPT-4-Vanilla"].prompt == "Vanilla"
    rows = sql.verdict_rows(db, "llmbar")
    assert len(rows) == 2 * 2 * 46  # two judges, two presentation orders, 46 pairs
    # The first item: GPT-4 picked output 2 in both orders (result.json's winner "2").
    first = [r for r in rows if r.judge == "GPT-4-Vanilla" and r.runs == ("0/1", "0/2")]
    assert {(r.shown_first, r.verdict) for r in first} == {("0/1", "0/2"), ("0/2", "0/2")}
    # A judge is never a reviewer: the only reviewer is the imported human label.
    reviewers = [r[0] for r in db.execute("SELECT name FROM reviewers").fetchall()]
    assert reviewers == ["llmbar:label"]
    assert {r for _i, r, _v in imported_records(db, "llmbar")["preference"]} == {"llmbar:label"}


def test_mtbench_folder_attaches_judgments_to_the_answers_runs(
    reference: Path, db: sqlite_utils.Database
) -> None:
    report = import_paths(db, [reference / "mt-bench"])
    formats = {Path(f.file).name: f.format for f in report.files}
    assert formats["gpt-4_pair.jsonl"] == "fastchat-judgment"
    assert formats["gpt-4_single.jsonl"] == "fastchat-judgment"
    rows = sql.verdict_rows(db, "mt-bench")
    pairs = [r for r in rows if r.kind == "preference"]
    singles = [r for r in rows if r.kind == "score"]
    assert len(pairs) == 2 * 75 and len(singles) == 160
    # Question 81: model_1 (phi-3) won as Assistant A (g1), model_2 (phi-3-dpo) when swapped.
    q81 = {r.shown_first: r.verdict for r in pairs if r.runs == ("phi-3/81", "phi-3-dpo/81")}
    assert q81 == {"phi-3/81": "phi-3/81", "phi-3-dpo/81": "phi-3-dpo/81"}
    # g1 "model_1" / g2 "error" once, and "error" in both orders once: three verdicts.
    assert sum(1 for r in pairs if r.error is not None) == 3
    assert {r.judge for r in singles} == {
        "gpt-4/single-v1",
        "gpt-4/single-v1-multi-turn",
        "gpt-4/single-math-v1",
        "gpt-4/single-math-v1-multi-turn",
    }
    assert {r.turn for r in singles if r.judge.endswith("multi-turn")} == {2}
    # Importing the folder again adds nothing.
    again = import_paths(db, [reference / "mt-bench"])
    assert all(f.status in ("unchanged", "skipped") for f in again.files)
    assert len(sql.verdict_rows(db, "mt-bench")) == len(rows)
    # No human label came with the folder: the report's reference says so and what to do.
    reference_name = judge_report(db, "mt-bench").reference
    assert reference_name.startswith("labels imported with study mt-bench: none (")
    assert "judge a design of it" in reference_name


def test_judgments_without_their_answers_are_refused_by_name(
    reference: Path, db: sqlite_utils.Database
) -> None:
    with pytest.raises(ImportFailed) as refused:
        import_paths(db, [reference / "mt-bench" / "model_judgment" / "gpt-4_pair.jsonl"])
    message = str(refused.value)
    assert "gpt-4_pair.jsonl:1" in message
    assert "phi-3/81" in message and "does not hold" in message
    assert "\n" not in message.split(" (and")[0]
    assert _count(db, "SELECT count(*) FROM judge_verdicts") == 0
    assert _count(db, "SELECT count(*) FROM studies") == 0


def _native(tmp_path: Path, verdicts: list[dict[str, object]]) -> Path:
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "n"},
        {"type": "task", "id": "t1", "prompt": "Say hi."},
        {"type": "run", "id": "r1", "task_id": "t1", "condition_id": "A", "output": "hi"},
        {"type": "run", "id": "r2", "task_id": "t1", "condition_id": "B", "output": "hello"},
        {"type": "judge", "id": "acme-judge/v1", "kind": "ai", "model": "acme-9", "prompt": "v1"},
        *verdicts,
    ]
    return write_jsonl(tmp_path / "n.jsonl", lines)


def test_native_judge_lines(tmp_path: Path, db: sqlite_utils.Database) -> None:
    path = _native(
        tmp_path,
        [
            {
                "type": "judge_verdict",
                "judge": "acme-judge/v1",
                "task_id": "t1",
                "runs": ["r1", "r2"],
                "shown_first": "r2",
                "verdict": "r1",
                "explanation": "r1 is terser.",
            },
            {
                "type": "judge_verdict",
                "judge": "inline/v2",
                "model": "other-model",
                "task_id": "t1",
                "run": "r1",
                "score": 7,
                "scale": [1, 10],
            },
        ],
    )
    import_paths(db, [path])
    rows = sorted(sql.verdict_rows(db, "n"), key=lambda r: r.judge)
    assert [(r.judge, r.kind, r.verdict, r.score, r.shown_first) for r in rows] == [
        ("acme-judge/v1", "preference", "r1", None, "r2"),
        ("inline/v2", "score", None, 7.0, None),
    ]
    explanations = [v.explanation for v, _ in sql.study_verdicts(db, "n")]
    assert "r1 is terser." in explanations


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [
        ({"kind": "human"}, "n.jsonl:6: $.kind"),
        ({"runs": ["r1", "r2"], "shown_first": "r3"}, "shown_first must name one of"),
        ({"runs": ["r1", "r9"], "shown_first": "r1"}, "run 'r9', which study 'n' does not hold"),
        ({"run": "r1", "runs": ["r1", "r2"]}, "either run (one run judged) or runs"),
    ],
)
def test_bad_native_judge_lines_are_refused_with_the_line(
    tmp_path: Path, db: sqlite_utils.Database, verdict: dict[str, object], expected: str
) -> None:
    line: dict[str, object] = {
        "type": "judge_verdict",
        "judge": "acme-judge/v1",
        "task_id": "t1",
        "run": "r1",
    }
    line.update({"verdict": "r1" if "runs" in verdict else "pass"})
    line.update(verdict)
    if "runs" in verdict and "run" not in verdict:
        line.pop("run")
    with pytest.raises(ImportFailed) as refused:
        import_paths(db, [_native(tmp_path, [line])])
    assert expected in str(refused.value)
    assert _count(db, "SELECT count(*) FROM judge_verdicts") == 0
    assert _count(db, "SELECT count(*) FROM runs") == 0


def test_a_judge_and_a_reviewer_never_share_a_name(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [_native(tmp_path, [])])
    with pytest.raises(sqlite3.IntegrityError, match="never a reviewer"):
        db.execute("INSERT INTO reviewers (name, external) VALUES ('acme-judge/v1', 0)")
    db.execute("INSERT INTO reviewers (name, external) VALUES ('alice', 0)")
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "n2"},
        {"type": "judge", "id": "alice", "model": "m"},
    ]
    with pytest.raises(ImportFailed, match="has the name of a reviewer"):
        import_paths(db, [write_jsonl(tmp_path / "n2.jsonl", lines)])


def test_judge_verdicts_are_append_only(tmp_path: Path, db: sqlite_utils.Database) -> None:
    verdict: dict[str, object] = {
        "type": "judge_verdict",
        "judge": "acme-judge/v1",
        "task_id": "t1",
        "run": "r1",
        "verdict": "pass",
    }
    import_paths(db, [_native(tmp_path, [verdict])])
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE judge_verdicts SET verdict = 'fail'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM judge_verdicts")


def test_inspect_model_graded_scores_are_judge_verdicts(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # The reference log scored with `match`; the same log as a model-graded scorer leaves it
    # (Inspect's model_graded_qa keeps the grader's conversation in metadata.grading).
    log = json.loads((reference / "inspect" / "log_read_sample.json").read_text())
    log["eval"]["scorers"] = [
        {"name": "model_graded_qa", "options": {"model": "openai/gpt-4o"}, "metrics": []}
    ]
    for sample in log["samples"]:
        score = sample["scores"].pop("match")
        score["metadata"] = {"grading": [{"role": "user", "content": "Grade it."}]}
        sample["scores"]["model_graded_qa"] = score
    path = tmp_path / "graded.json"
    path.write_text(json.dumps(log))
    import_paths(db, [path], study="graded")
    rows = sql.verdict_rows(db, "graded")
    assert rows and {r.judge for r in rows} == {"model_graded_qa/openai/gpt-4o"}
    assert {(r.kind, r.verdict) for r in rows} == {("pass_fail", "pass")}
    judge = sql.study_judges(db, "graded")[0]
    assert (judge.model, judge.prompt, judge.source) == (
        "openai/gpt-4o",
        "model_graded_qa",
        "inspect",
    )
    # The grader's verdict is not the run's automated verification.
    outcomes = {r[0] for r in db.execute("SELECT automated_outcome FROM runs").fetchall()}
    assert outcomes == {None}


def test_the_cli_imports_judges_and_reports_them(reference: Path, cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "llmbar"
    shutil.copytree(reference / "llmbar-manual", folder)
    assert cli("import", folder).code == 0
    shown = cli("judges")
    assert shown.code == 0, shown.err
    assert "GPT-4-Vanilla" in shown.out and "position consistency" in shown.out
    refused = cli("judges", "--reference", "final")
    assert refused.code == 1
    assert "no study design" in refused.err and len(refused.err.strip().splitlines()) == 1


def test_judges_without_people_say_there_is_nothing_to_compare(
    reference: Path, cli: Cli, tmp_path: Path
) -> None:
    folder = tmp_path / "mt-bench"
    shutil.copytree(reference / "mt-bench", folder)
    assert cli("import", folder).code == 0
    shown = cli("judges", "--study", "mt-bench")
    assert shown.code == 0, shown.err
    for order in ("original", "swapped", "both orders"):
        assert f"  {order}: n = 0, nothing to compare with people (left out, below)" in shown.out
    assert "agreement 0/0" not in shown.out
    # What can be measured without people still is: the judge against itself.
    assert "position consistency (same pick in both orders): 16/23" in shown.out
