"""An Inspect log's own figures are kept at import and shown where the coordinator reads a study.

Issue 11: "whatever a source format stores ... is kept and shown; nothing a reviewer would need is
dropped at import". Beside its samples an Inspect log states its ``plan`` (solver steps, config),
its ``results`` (Inspect's scores and metrics) and its ``stats`` (start, end, model usage). They
are kept whole, once per log, and ``abp-tui status`` lists them; while the study is blind it
withholds the scores and the usage by model (results by condition) until it is unblinded. Every
expected value below is read from the reference log itself (the file, not our output).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.formats.inspect_log import LOG_SCHEMA
from abp_tui.store import source_summaries
from tests.factories import Cli

POPULARITY_1 = "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"


def _kept(cli: Cli) -> list[tuple[str, dict[str, Any]]]:
    rows = (
        sqlite_utils.Database(cli.db_path)
        .execute(
            "SELECT id, document FROM reference_verdicts WHERE schema_name = ? ORDER BY pk",
            [LOG_SCHEMA],
        )
        .fetchall()
    )
    return [(str(i), json.loads(d)) for i, d in rows]


def test_a_json_log_keeps_its_plan_results_and_stats_whole(reference: Path, cli: Cli) -> None:
    src = reference / "inspect" / "log_read_sample.json"
    raw = json.loads(src.read_text())
    result = cli("import", src, "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["totals"]["reference verdicts added"] == 1
    ((log, doc),) = _kept(cli)
    assert log == raw["eval"]["task_id"]
    for part in ("plan", "results", "stats"):
        assert doc[part] == raw[part], part
    assert doc["status"] == raw["status"] and doc["eval"]["model"] == raw["eval"]["model"]
    # The values a coordinator looks for, as the file states them.
    assert [s["solver"] for s in doc["plan"]["steps"]] == ["system_message", "generate"]
    assert doc["results"]["scores"][0]["metrics"]["accuracy"]["value"] == 1.0
    assert doc["stats"]["model_usage"]["ollama/gemma3"]["total_tokens"] == 69
    # Importing the same file again adds nothing.
    assert cli("import", src, "--json").code == 0
    assert len(_kept(cli)) == 1


def test_an_eval_log_keeps_its_header_figures(reference: Path, cli: Cli) -> None:
    src = reference / "inspect" / POPULARITY_1
    with zipfile.ZipFile(src) as archive:
        header = json.loads(archive.read("header.json"))
    assert cli("import", src).code == 0
    ((_log, doc),) = _kept(cli)
    for part in ("plan", "results", "stats"):
        assert doc[part] == header[part], part
    assert doc["plan"]["config"] == {"max_connections": 10}
    usage = doc["stats"]["model_usage"]["openai/gpt-4o-mini"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"]) == (620, 20, 640)


def test_status_withholds_a_logs_scores_and_usage_while_the_study_is_blind(
    reference: Path, cli: Cli
) -> None:
    # Each model is a condition: the log's metrics and per-model usage are results by
    # condition, so a blind study shows what the log ran, never how it scored.
    src = reference / "inspect" / "log_read_sample.json"
    raw = json.loads(src.read_text())
    assert cli("import", src).code == 0
    text = cli("status").out
    assert f"log {raw['eval']['task_id']} (popularity): model ollama/gemma3, success" in text
    assert "samples 1 of 1" in text
    assert f"{raw['stats']['started_at']} to {raw['stats']['completed_at']}" in text
    assert "plan: system_message; generate" in text
    hint = f"`abp-tui unblind --study popularity --yes --db {cli.db_path}`"
    assert f"results and model usage: withheld until {hint}" in text
    assert "accuracy" not in text and "total 69" not in text and "in 66" not in text
    doc = json.loads(cli("status", "--json").out)
    (study,) = doc["studies"]
    (shown,) = study["source_logs"]
    assert (shown["metrics"], shown["usage"]) == ([], [])
    assert shown["withheld"] == f"withheld until {hint}"
    kept = shown["document"]
    assert kept["plan"] == raw["plan"] and kept["eval"]["model"] == raw["eval"]["model"]
    assert kept["results"] == {
        "total_samples": raw["results"]["total_samples"],
        "completed_samples": raw["results"]["completed_samples"],
    }
    assert kept["stats"] == {
        "started_at": raw["stats"]["started_at"],
        "completed_at": raw["stats"]["completed_at"],
    }
    blob = json.dumps(doc)  # the eval spec names its scorers' metrics, never their values
    assert '"scores"' not in blob and "model_usage" not in blob and "total_tokens" not in blob


def test_status_shows_each_logs_own_figures_once_unblinded(reference: Path, cli: Cli) -> None:
    src = reference / "inspect" / "log_read_sample.json"
    raw = json.loads(src.read_text())
    assert cli("import", src).code == 0
    assert cli("unblind", "--study", "popularity", "--yes").code == 0
    text = cli("status").out
    assert "samples 1 of 1" in text and "withheld" not in text
    assert "plan: system_message; generate" in text
    assert "results: match accuracy 1.0; match stderr 0.0" in text
    assert "model usage: ollama/gemma3: in 66, out 3, total 69" in text
    doc = json.loads(cli("status", "--json").out)
    (study,) = doc["studies"]
    (shown,) = study["source_logs"]
    assert shown["document"]["results"] == raw["results"]
    assert shown["document"]["stats"] == raw["stats"]
    assert shown["usage"] == ["ollama/gemma3: in 66, out 3, total 69"]
    assert shown["withheld"] == ""


def test_the_schema_name_is_declared_once_for_both_readers() -> None:
    # The status reader does not import the format (pydantic is slow to load): same name.
    assert source_summaries.LOG_SCHEMA == LOG_SCHEMA


def test_a_malformed_summary_field_is_left_out_not_fatal() -> None:
    found = source_summaries.summarize(
        "log-1", {"plan": "not an object", "results": {"scores": [1, {"name": "m"}]}, "stats": []}
    )
    assert (found.plan, found.metrics, found.usage, found.samples) == ((), (), (), "")


def test_no_blind_screen_shows_the_logs_figures(reference: Path, db: sqlite_utils.Database) -> None:
    # The two popularity logs (gpt-4o-mini, run against each other with condition=run): what a
    # reviewer reads of an item, outputs, trace rows and transcripts, names neither the model
    # nor anything of the logs' plan, results or stats.
    from abp_tui.models import StudyDesign
    from abp_tui.services.designing import create_design
    from abp_tui.services.importing import import_paths
    from abp_tui.services.reviewing import ReviewSession
    from abp_tui.services.transcripts import blind_transcripts
    from abp_tui.tui.widgets.transcriptlayout import layout_transcript

    import_paths(db, sorted((reference / "inspect").glob("*.eval")), options={"condition": "run"})
    assert len(_kept_in(db)) == 2
    a, b = (r[0] for r in db.execute("SELECT id FROM conditions ORDER BY id").fetchall())
    design = StudyDesign(
        study="popularity", name="pairs", seed=3, rubric="none", contrasts=[(a, b)], reviewers=["r"]
    )
    session = ReviewSession(db, create_design(db, design).pk, "r")
    queue = session.queue()
    assert len(queue) == 10
    for row in queue:
        item = session.read(row.code)
        shown = [r.text for r in item.responses]
        shown += [f"{e.kind} {e.tool}" for r in item.responses for e in r.trace]
        shown += [layout_transcript(t).text for t in blind_transcripts(session, row.code)]
        blob = "\n".join(shown).lower()
        for term in (
            "gpt-4o-mini",
            "openai",
            "max_connections",
            "completed_samples",
            "completed_at",
        ):
            assert term not in blob, (row.code, term)


def _kept_in(db: sqlite_utils.Database) -> list[tuple[Any, ...]]:
    return list(
        db.execute(
            "SELECT id FROM reference_verdicts WHERE schema_name = ?", [LOG_SCHEMA]
        ).fetchall()
    )
