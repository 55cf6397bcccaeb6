"""ABP task manifests, run configurations and verdicts (seed 003): import, detection, bad input.

No public ABP sample files exist, so the documents below follow seed 003's examples field by field.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.formats import abp, arena, detect
from abp_tui.store.queries import count
from tests.factories import Cli
from tests.import_helpers import nothing_stored

TASK: dict[str, Any] = {
    "schema": "abp-task/v1",
    "id": "gh-vercel-next.js-81234",
    "source": {
        "kind": "github-issue",
        "repo": "vercel/next.js",
        "issue": 81234,
        "baseCommit": "9f2c41d7a0c3e5b1",
        "sourcedAt": "2026-07-02T14:11:09Z",
        "registryVersion": "abp-registry/2026Q3",
        "drawSeed": 424242,
    },
    "prompt": "Optional catch-all routes drop the trailing slash; fix the matcher.",
    "environment": {
        "image": "ghcr.io/macanderson/abp-node:22",
        "setup": ["pnpm install --frozen-lockfile"],
    },
    "verification": {
        "kind": "commands",
        "failToPass": ["pnpm test -- test/router/edge-case.test.ts"],
        "passToPass": ["pnpm test -- test/router/"],
        "timeoutSeconds": 900,
        "heldOut": True,
    },
    "golden": {
        "diffBytesNormalized": 1843,
        "filesTouched": 2,
        "trace": "traces/gh-vercel-next.js-81234.abp-trace.jsonl",
        "mergedPr": "https://github.com/vercel/next.js/pull/81301",
    },
    "cutoffsVerified": ["claude-sonnet-5:2026-01", "gpt-5.2:2026-03"],
}

FIXTURE_TASK: dict[str, Any] = {
    "schema": "abp-task/v1",
    "id": "fixture-fizzbuzz",
    "source": {"kind": "fixture"},
    "prompt": "Implement fizzbuzz(n) in src/fizz.py so that the tests pass.",
    "environment": {"image": "ghcr.io/macanderson/abp-python:3.12", "setup": []},
    "verification": {"kind": "commands", "failToPass": ["pytest tests/test_fizz.py"]},
}

RUN: dict[str, Any] = {
    "schema": "abp-run/v1",
    "engines": [
        {"name": "oxagen", "version": "1.4.2"},
        {"name": "claude-code", "version": "2.1.0"},
    ],
    "model": "anthropic/claude-sonnet-5",
    "matchedModels": True,
    "budgetUsd": 5,
    "timeoutSeconds": 1200,
    "trials": 3,
    "ordering": "abba",
    "seed": 20260718,
    "tasks": ["gh-vercel-next.js-81234", "fixture-fizzbuzz", "gh-vercel-next.js-81999"],
    "host": {"os": "linux", "arch": "arm64", "containerized": True},
    "reproduce": "abp run --config run.json",
}

VERDICT: dict[str, Any] = {
    "schema": "abp-verdict/v1",
    "run": "run-20260718-a41c",
    "perEngine": [
        {
            "engine": "oxagen",
            "scoredTrials": 72,
            "excludedEngineErrors": 1,
            "resolveRate": {"point": 0.84, "wilson95": [0.71, 0.92]},
            "medianDiffBytesNormalized": 1650,
            "medianTokensTotal": 361000,
            "medianWallClockMs": 190334,
            "medianComputedUsd": 1.42,
        },
        {
            "engine": "claude-code",
            "scoredTrials": 73,
            "excludedEngineErrors": 0,
            "resolveRate": {"point": 0.71, "wilson95": [0.6, 0.8]},
        },
    ],
    "pairwise": [
        {
            "a": "oxagen",
            "b": "claude-code",
            "mcnemar": {"discordant": [14, 5], "pExact": 0.041},
            "diffDelta": {"relMedian": -0.22, "bootstrap95": [-0.31, -0.09], "seed": 20260718},
        }
    ],
    "receipts": {
        "trials": "trials/",
        "transcripts": "transcripts/",
        "diffs": "diffs/",
        "traces": "traces/",
    },
}


def _write(path: Path, doc: Any, indent: int | None = 2) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=indent), encoding="utf-8")
    return path


def _study_folder(root: Path, run: dict[str, Any] | None = None) -> Path:
    folder = root / "nextjs-engines"
    _write(folder / "task-81234.json", TASK)
    _write(folder / "fixture-fizzbuzz.json", FIXTURE_TASK)
    _write(folder / "run.json", run or RUN)
    _write(folder / "verdict.json", VERDICT)
    return folder


def _totals(out: str) -> dict[str, int]:
    totals: dict[str, int] = json.loads(out)["totals"]
    return totals


def _rows(cli: Cli, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    return list(sqlite_utils.Database(cli.db_path).execute(sql, params or []).fetchall())


def test_study_folder_imports_tasks_engines_and_verdict(tmp_path: Path, cli: Cli) -> None:
    result = cli("import", _study_folder(tmp_path), "--json")
    assert result.code == 0, result.err
    assert _totals(result.out) == {
        "studies added": 1,
        "tasks added": 2,
        "conditions added": 2,
        "reference verdicts added": 1,
    }
    formats = {Path(f["file"]).name: f["format"] for f in json.loads(result.out)["files"]}
    assert formats == {
        "fixture-fizzbuzz.json": "abp-task",
        "run.json": "abp-run",
        "task-81234.json": "abp-task",
        "verdict.json": "abp-verdict",
    }

    [(sid, protocol, description, limitations)] = _rows(
        cli, "SELECT id, protocol, description, limitations FROM studies"
    )
    assert (sid, protocol) == ("nextjs-engines", "abp")
    assert "model anthropic/claude-sonnet-5" in description
    assert "matchedModels: true" in description
    assert "must not be drawn" not in description
    assert "Reproduce: abp run --config run.json" in description
    assert json.loads(limitations) == []

    tasks = {
        r[0]: r[1:]
        for r in _rows(
            cli, "SELECT id, prompt, synthetic, metadata, placeholder FROM tasks WHERE current = 1"
        )
    }
    # The third task id the run lists has no manifest: it is not invented.
    assert sorted(tasks) == ["fixture-fizzbuzz", "gh-vercel-next.js-81234"]
    prompt, synthetic, metadata, placeholder = tasks["gh-vercel-next.js-81234"]
    assert prompt == TASK["prompt"]
    assert (synthetic, placeholder) == (0, 0)
    meta = json.loads(metadata)
    assert meta["source"]["baseCommit"] == "9f2c41d7a0c3e5b1"
    assert meta["verification"]["failToPass"] == ["pnpm test -- test/router/edge-case.test.ts"]
    assert meta["golden"]["diffBytesNormalized"] == 1843
    assert meta["cutoffsVerified"] == ["claude-sonnet-5:2026-01", "gpt-5.2:2026-03"]
    assert meta["environment"]["image"] == "ghcr.io/macanderson/abp-node:22"
    assert tasks["fixture-fizzbuzz"][1] == 1  # source.kind fixture -> synthetic

    conditions = {
        r[0]: (r[1], json.loads(r[2]))
        for r in _rows(cli, "SELECT id, label, metadata FROM conditions WHERE current = 1")
    }
    assert sorted(conditions) == ["claude-code", "oxagen"]
    label, meta = conditions["oxagen"]
    assert label == "oxagen 1.4.2"
    assert meta == {
        "version": "1.4.2",
        "model": "anthropic/claude-sonnet-5",
        "budgetUsd": 5,
        "timeoutSeconds": 1200,
        "trials": 3,
        "ordering": "abba",
        "seed": 20260718,
        "host": {"os": "linux", "arch": "arm64", "containerized": True},
        "reproduce": "abp run --config run.json",
        "matchedModels": True,
    }

    [(vid, schema_name, document)] = _rows(
        cli, "SELECT id, schema_name, document FROM reference_verdicts"
    )
    assert (vid, schema_name) == ("run-20260718-a41c", "abp-verdict/v1")
    assert json.loads(document) == VERDICT


def test_reimport_adds_nothing(tmp_path: Path, cli: Cli) -> None:
    folder = _study_folder(tmp_path)
    assert cli("import", folder).code == 0
    again = cli("import", folder, "--json")
    assert again.code == 0
    assert {f["status"] for f in json.loads(again.out)["files"]} == {"unchanged"}
    db = sqlite_utils.Database(cli.db_path)
    assert (count(db, "tasks"), count(db, "conditions"), count(db, "reference_verdicts")) == (
        2,
        2,
        1,
    )
    # The same content laid out differently (so not skipped by its hash) changes nothing either.
    copy_dir = tmp_path / "copy" / "nextjs-engines"
    _write(copy_dir / "task.json", TASK, indent=None)
    _write(copy_dir / "verdict.json", {"receipts": VERDICT["receipts"], **VERDICT})
    result = cli("import", copy_dir, "--json")
    assert result.code == 0, result.err
    assert _totals(result.out) == {"tasks unchanged": 1, "reference verdicts unchanged": 1}
    assert (count(db, "tasks"), count(db, "reference_verdicts")) == (2, 1)


def test_unmatched_models_lead_with_the_warning(tmp_path: Path, cli: Cli) -> None:
    run = copy.deepcopy(RUN)
    run["matchedModels"] = False
    run["engines"][1]["model"] = "openai/gpt-5.2"
    result = cli("import", _write(tmp_path / "mixed" / "run.json", run), "--json")
    assert result.code == 0, result.err
    [(description, limitations)] = _rows(cli, "SELECT description, limitations FROM studies")
    assert description.startswith("Warning: matchedModels is false")
    assert "engine-vs-engine conclusions must not be drawn" in description
    assert "matchedModels: false" in description
    assert len(json.loads(limitations)) == 1
    models = dict(_rows(cli, "SELECT id, json_extract(metadata, '$.model') FROM conditions"))
    assert models == {"oxagen": "anthropic/claude-sonnet-5", "claude-code": "openai/gpt-5.2"}


def test_study_option_wins_and_relative_paths_name_the_folder(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _study_folder(tmp_path)
    assert cli("import", folder / "run.json", "--study", "nightly").code == 0
    monkeypatch.chdir(folder)
    assert cli("import", "task-81234.json").code == 0
    studies = dict(_rows(cli, "SELECT id, protocol FROM studies"))
    assert studies == {"nightly": "abp", "nextjs-engines": "abp"}


def test_detection_is_by_schema_value(tmp_path: Path) -> None:
    assert detect(_write(tmp_path / "a.json", TASK)) is abp.TASK
    assert detect(_write(tmp_path / "b.json", RUN)) is abp.RUN
    assert detect(_write(tmp_path / "c.json", VERDICT)) is abp.VERDICT
    # Keys in any order: the schema may come last.
    reordered = {k: v for k, v in TASK.items() if k != "schema"} | {"schema": "abp-task/v1"}
    assert detect(_write(tmp_path / "d.json", reordered)) is abp.TASK
    assert detect(_write(tmp_path / "e.json", {**TASK, "schema": "abp-task/v2"})) is None
    trace_line = {"t": "2026-07-02T14:12:01.402Z", "seq": 1, "kind": "run.start"}
    trace = tmp_path / "t.abp-trace.jsonl"
    trace.write_text(json.dumps(trace_line) + "\n" + json.dumps(trace_line) + "\n")
    for fmt in (abp.TASK, abp.RUN, abp.VERDICT):
        assert not fmt.sniff(trace, trace.read_bytes())
    arena_doc = _write(tmp_path / "results.json", {"manifest": {"runId": "r"}, "results": []})
    assert detect(arena_doc) is arena.FORMAT


def test_wrong_schema_value(tmp_path: Path, cli: Cli) -> None:
    src = _write(tmp_path / "s" / "task.json", {**TASK, "schema": "abp-task/v2"})
    result = cli("import", src)
    assert result.code == 1
    assert "task.json: no known format" in result.err
    forced = cli("import", src, "--format", "abp-task")
    assert forced.code == 1
    assert 'task.json: $.schema: expected "abp-task/v1" (got "abp-task/v2")' in forced.err
    nothing_stored(cli)


def _broken(doc: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``doc`` with ``dotted`` (``a.b.0``) set to ``value``, or removed (...)."""
    out = copy.deepcopy(doc)
    *parents, last = dotted.split(".")
    node: Any = out
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(last) if isinstance(node, list) else last
    if value is ...:
        del node[key]
    else:
        node[key] = value
    return out


@pytest.mark.parametrize(
    ("doc", "dotted", "value", "expected"),
    [
        (TASK, "prompt", ..., "$.prompt: required field is missing"),
        (TASK, "source.kind", ..., "$.source.kind: required field is missing"),
        (TASK, "source.issue", "81234", '$.source.issue: Input should be a valid integer (got "81'),
        (TASK, "id", 7, "$.id: Input should be a valid string (got 7)"),
        (TASK, "verification.heldOut", "yes", "$.verification.heldOut: Input should be a valid bo"),
        (RUN, "matchedModels", ..., "$.matchedModels: required field is missing"),
        (RUN, "trials", 0, "$.trials: Input should be greater than or equal to 1"),
        (RUN, "engines", [], "$.engines: List should have at least 1 item"),
        (VERDICT, "run", ..., "$.run: required field is missing"),
        (
            VERDICT,
            "perEngine.0.resolveRate.point",
            1.4,
            "$.perEngine[0].resolveRate.point: Input should be less than or equal to 1",
        ),
        (
            VERDICT,
            "perEngine.0.resolveRate.wilson95",
            [0.71],
            "$.perEngine[0].resolveRate.wilson95[1]: required field is missing",
        ),
        (
            VERDICT,
            "perEngine.1.resolveRate.wilson95",
            [0.8, 0.6],
            "$.perEngine[1].resolveRate: Value error, wilson95 lower bound is above",
        ),
        (
            VERDICT,
            "perEngine.0.scoredTrials",
            72.5,
            "$.perEngine[0].scoredTrials: Input should be a valid integer",
        ),
        (VERDICT, "perEngine.0.engine", ..., "$.perEngine[0].engine: required field is missing"),
        (
            VERDICT,
            "pairwise.0.mcnemar.discordant",
            ["14", 5],
            "$.pairwise[0].mcnemar.discordant[0]: Input should be a valid integer",
        ),
        (VERDICT, "pairwise.0.b", ..., "$.pairwise[0].b: required field is missing"),
    ],
)
def test_invalid_document_is_refused_with_its_json_path(
    tmp_path: Path, cli: Cli, doc: dict[str, Any], dotted: str, value: Any, expected: str
) -> None:
    src = _write(tmp_path / "s" / "doc.json", _broken(doc, dotted, value))
    result = cli("import", src)
    assert result.code == 1
    assert f"doc.json: {expected}" in result.err.replace("\n", " ")
    assert "Traceback" not in result.err
    nothing_stored(cli)


def test_bad_engine_is_a_record_error_that_can_be_skipped(tmp_path: Path, cli: Cli) -> None:
    run = copy.deepcopy(RUN)
    run["engines"].append({"version": "0.3.0"})
    run["engines"].append({"name": "oxagen", "version": "1.5.0"})
    src = _write(tmp_path / "s" / "run.json", run)
    refused = cli("import", src)
    assert refused.code == 1
    assert "run.json: $.engines[2].name: required field is missing" in refused.err
    nothing_stored(cli)
    skipped = cli("import", src, "--skip-invalid", "--json")
    assert skipped.code == 0, skipped.err
    totals = _totals(skipped.out)
    assert totals["conditions added"] == 2
    assert totals["records skipped"] == 2
    [file_report] = json.loads(skipped.out)["files"]
    assert any(
        "$.engines[3].name: duplicate engine name 'oxagen'" in s for s in file_report["skipped"]
    )
    versions = dict(_rows(cli, "SELECT id, json_extract(metadata, '$.version') FROM conditions"))
    assert versions == {"oxagen": "1.4.2", "claude-code": "2.1.0"}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"schema": "abp-task/v1", "id": ', "t.json:1: malformed JSON at line 1, column"),
        ("[1, 2]", "t.json: $: expected a JSON object"),
        ('{"id": "x"}', 't.json: $.schema: expected "abp-task/v1" (it is missing)'),
    ],
)
def test_unusable_file_with_forced_format(
    tmp_path: Path, cli: Cli, content: str, expected: str
) -> None:
    src = tmp_path / "s" / "t.json"
    src.parent.mkdir()
    src.write_text(content, encoding="utf-8")
    result = cli("import", src, "--format", "abp-task")
    assert result.code == 1
    assert expected in result.err
    nothing_stored(cli)


def test_changed_manifest_becomes_a_new_task_version(tmp_path: Path, cli: Cli) -> None:
    folder = tmp_path / "s"
    assert cli("import", _write(folder / "a.json", TASK)).code == 0
    revised = {**TASK, "prompt": TASK["prompt"] + " Keep the public API unchanged."}
    result = cli("import", _write(folder / "b.json", revised), "--json")
    assert _totals(result.out) == {"tasks new version": 1}
    rows = _rows(cli, "SELECT version_no, current, prompt FROM tasks ORDER BY version_no")
    assert [(r[0], r[1]) for r in rows] == [(1, 0), (2, 1)]
    assert rows[1][2].endswith("Keep the public API unchanged.")
