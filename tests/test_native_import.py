"""Native JSONL import: counts, idempotence, versioning, bad input, skip-invalid."""

from __future__ import annotations

import json
from pathlib import Path

import sqlite_utils

from abp_tui.store.queries import count, load_run
from tests.factories import Cli
from tests.import_helpers import nothing_stored


def _write(path: Path, lines: list[dict[str, object]], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + tail, encoding="utf-8")
    return path


BASE: list[dict[str, object]] = [
    {"type": "study", "id": "s1", "name": "Smoke", "synthetic": True},
    {"type": "condition", "id": "A", "label": "Model only"},
    {"type": "task", "id": "T1", "prompt": "Say hi"},
    {"type": "trace_event", "run_id": "r1", "seq": 1, "kind": "run.start"},
    {"type": "trace_event", "run_id": "r1", "seq": 2, "kind": "model.call"},
    {
        "type": "run",
        "id": "r1",
        "task_id": "T1",
        "condition_id": "A",
        "output": "hi",
        "not_exposed": ["cost_usd"],
    },
    {"type": "run", "id": "r2", "task_id": "T1", "condition_id": "A", "trial": 2, "output": "yo"},
]


def test_import_counts_and_reimport_adds_nothing(tmp_path: Path, cli: Cli) -> None:
    src = _write(tmp_path / "runs.jsonl", BASE)
    first = cli("import", src, "--json")
    assert first.code == 0, first.err
    totals = json.loads(first.out)["totals"]
    assert totals["runs added"] == 2
    assert totals["trace events added"] == 2
    again = cli("import", src)
    assert again.code == 0
    assert "already imported" in again.out
    assert "Nothing new was added." in again.out
    db = sqlite_utils.Database(cli.db_path)
    assert count(db, "runs") == 2
    assert count(db, "trace_events") == 2


def test_changed_run_becomes_new_version_and_old_content_is_kept(tmp_path: Path, cli: Cli) -> None:
    cli("import", _write(tmp_path / "a.jsonl", BASE))
    changed = [dict(x) for x in BASE]
    changed[-1]["output"] = "yo, changed"
    result = cli("import", _write(tmp_path / "b.jsonl", changed), "--json")
    totals = json.loads(result.out)["totals"]
    assert totals == {
        "conditions unchanged": 1,
        "tasks unchanged": 1,
        "runs unchanged": 1,
        "runs new version": 1,
    } | {
        k: v
        for k, v in totals.items()
        if k
        not in {"conditions unchanged", "tasks unchanged", "runs unchanged", "runs new version"}
    }
    db = sqlite_utils.Database(cli.db_path)
    rows = db.execute(
        "SELECT version_no, current, b.text FROM runs r JOIN blobs b ON b.sha256 = r.output_sha256"
        " WHERE r.id = 'r2' ORDER BY version_no"
    ).fetchall()
    assert rows == [(1, 0, "yo"), (2, 1, "yo, changed")]


def test_not_exposed_is_distinct_from_missing(tmp_path: Path, cli: Cli) -> None:
    cli("import", _write(tmp_path / "a.jsonl", BASE))
    run = load_run(sqlite_utils.Database(cli.db_path), "s1", "r1")
    assert run is not None
    assert run.shown("cost_usd") == "not exposed"
    assert run.shown("provider") == "missing"
    assert run.output == "hi"


def test_invalid_record_imports_nothing_and_names_line_and_field(tmp_path: Path, cli: Cli) -> None:
    bad = [*BASE, {"type": "run", "id": 3, "task_id": "T1", "condition_id": "A"}]
    result = cli("import", _write(tmp_path / "bad.jsonl", bad))
    assert result.code == 1
    assert "bad.jsonl:8: $.id:" in result.err
    assert "valid string" in result.err
    assert "Traceback" not in result.err
    nothing_stored(cli)


def test_failed_import_leaves_existing_data_unchanged(tmp_path: Path, cli: Cli) -> None:
    cli("import", _write(tmp_path / "a.jsonl", BASE))
    db = sqlite_utils.Database(cli.db_path)
    before = db.execute("SELECT * FROM runs ORDER BY pk").fetchall()
    changed = [dict(x) for x in BASE]
    changed[-1]["output"] = "new content"
    result = cli("import", _write(tmp_path / "b.jsonl", changed, tail='{"type": "run"'))
    assert result.code == 1
    assert "b.jsonl:8: malformed JSON at line 8: truncated last line" in result.err
    assert db.execute("SELECT * FROM runs ORDER BY pk").fetchall() == before


def test_skip_invalid_imports_the_rest_and_lists_what_was_skipped(tmp_path: Path, cli: Cli) -> None:
    bad = [*BASE, {"type": "run", "id": 3}]
    result = cli("import", _write(tmp_path / "bad.jsonl", bad, tail='{"type"'), "--skip-invalid")
    assert result.code == 0
    assert "bad.jsonl:8" in result.out
    assert "bad.jsonl:9: malformed JSON at line 9: truncated last line" in result.out
    assert count(sqlite_utils.Database(cli.db_path), "runs") == 2


def test_invalid_utf8_and_unknown_format(tmp_path: Path, cli: Cli) -> None:
    src = tmp_path / "x.jsonl"
    src.write_bytes(b'{"type": "task", "id": "T\xff"}\n')
    result = cli("import", src, "--format", "native")
    assert result.code == 1
    assert "x.jsonl:1: invalid UTF-8" in result.err
    other = tmp_path / "notes.txt"
    other.write_text("hello", encoding="utf-8")
    result = cli("import", other)
    assert result.code == 1
    assert "notes.txt: no known format" in result.err


def test_trace_event_after_its_run_is_rejected(tmp_path: Path, cli: Cli) -> None:
    late = [*BASE, {"type": "trace_event", "run_id": "r1", "seq": 3, "kind": "x"}]
    result = cli("import", _write(tmp_path / "late.jsonl", late))
    assert result.code == 1
    assert "late.jsonl:8: $.run_id: trace event for run 'r1' after its run line" in result.err
