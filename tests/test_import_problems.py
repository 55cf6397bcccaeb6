"""A refused import lists every problem (the first 20 and a count), says where broken JSON breaks
even when the format is known, tells how to convert an unknown file, and leaves no new database
file behind."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.store import connect
from abp_tui.store.queries import count
from tests.factories import Cli
from tests.import_helpers import nothing_stored

STUDY: list[dict[str, Any]] = [
    {"type": "study", "id": "s1"},
    {"type": "condition", "id": "A"},
    {"type": "task", "id": "T1", "prompt": "Say hi"},
]


def _run(n: int) -> dict[str, Any]:
    return {"type": "run", "id": f"r{n}", "task_id": "T1", "condition_id": "A", "output": "hi"}


def _bad_run(n: int) -> dict[str, Any]:
    return {"type": "run", "id": f"r{n}", "task_id": "T1", "condition_id": "A", "trial": -1}


def _jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def _listed(err: str) -> list[str]:
    return [line.strip() for line in err.splitlines() if line.startswith("  ")]


# -- every problem ---------------------------------------------------------------------------------
def test_two_bad_records_are_both_listed(tmp_path: Path, cli: Cli) -> None:
    lines = [*STUDY, _run(1), _bad_run(2), _run(3), _bad_run(4)]
    result = cli("import", _jsonl(tmp_path / "two.jsonl", lines))
    assert result.code == 1
    assert "import refused; nothing was written (2 errors)" in result.err
    listed = _listed(result.err)
    assert [re.search(r"two\.jsonl:(\d+): \$\.trial", e) is not None for e in listed] == [True] * 2
    assert "two.jsonl:5: $.trial" in listed[0]
    assert "two.jsonl:7: $.trial" in listed[1]
    nothing_stored(cli)


def test_many_bad_records_list_the_first_twenty_and_count_the_rest(
    tmp_path: Path, cli: Cli
) -> None:
    lines = [*STUDY, *(_bad_run(n) for n in range(30))]
    result = cli("import", _jsonl(tmp_path / "many.jsonl", lines))
    assert result.code == 1
    assert "(30 errors)" in result.err
    listed = _listed(result.err)
    assert len(listed) == 21
    # The first twenty in file order (lines 4 to 23), then the count of the rest.
    assert [int(re.search(r"many\.jsonl:(\d+):", e).group(1)) for e in listed[:20]] == list(  # type: ignore[union-attr]
        range(4, 24)
    )
    assert listed[20] == "... and 10 more (the first 20 listed)"


def test_problems_of_every_file_are_listed(tmp_path: Path, cli: Cli) -> None:
    first = _jsonl(tmp_path / "a" / "first.jsonl", [*STUDY, _bad_run(1)])
    second = _jsonl(tmp_path / "b" / "second.jsonl", [*STUDY, _run(1), _bad_run(2)])
    result = cli("import", first, second)
    assert result.code == 1
    assert "(2 errors)" in result.err
    assert "first.jsonl:4: $.trial" in result.err
    assert "second.jsonl:5: $.trial" in result.err
    nothing_stored(cli)


def test_skip_invalid_lists_each_skipped_record(tmp_path: Path, cli: Cli) -> None:
    lines = [*STUDY, _run(1), _bad_run(2), _run(3), _bad_run(4)]
    result = cli("import", _jsonl(tmp_path / "two.jsonl", lines), "--skip-invalid", "--json")
    assert result.code == 0, result.err
    [report] = json.loads(result.out)["files"]
    assert report["counts"]["records skipped"] == 2
    assert report["counts"]["runs added"] == 2
    assert len(report["skipped"]) == 2


# -- broken JSON -----------------------------------------------------------------------------------
def _pandalm(n: int) -> list[dict[str, Any]]:
    return [
        {
            "idx": i,
            "cmp_key": "alpha_beta",
            "instruction": f"Rewrite sentence {i} clearly.",
            "input": "",
            "response1": "A clear sentence.",
            "response2": "A sentence, clearer.",
            "annotator1": i % 3,
        }
        for i in range(n)
    ]


def _truncated(path: Path) -> tuple[Path, int]:
    """A pretty-printed pairwise JSON list cut in the middle; the line where it stops."""
    text = json.dumps(_pandalm(8), indent=2)
    cut = text[: len(text) * 2 // 3]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(cut, encoding="utf-8")
    return path, cut.count("\n") + 1


def test_truncated_json_names_the_file_and_line(tmp_path: Path, cli: Cli) -> None:
    src, line = _truncated(tmp_path / "cut.json")
    result = cli("import", src)
    assert result.code == 1
    assert f"cut.json:{line}: malformed JSON at line {line}, column" in result.err
    assert "no known format" not in result.err
    nothing_stored(cli)


def test_truncated_json_with_its_format_named_says_the_same(tmp_path: Path, cli: Cli) -> None:
    src, line = _truncated(tmp_path / "cut.json")
    result = cli("import", src, "--format", "pairwise")
    assert result.code == 1
    assert f"cut.json:{line}: malformed JSON at line {line}, column" in result.err


def test_truncated_json_in_a_folder_refuses_the_import(tmp_path: Path, cli: Cli) -> None:
    folder = tmp_path / "mixed"
    good = folder / "good.json"
    good.parent.mkdir()
    good.write_text(json.dumps(_pandalm(3)), encoding="utf-8")
    _src, line = _truncated(folder / "cut.json")
    result = cli("import", folder)
    assert result.code == 1
    # Not silently skipped as "no known format": a broken file is a problem of the import.
    assert f"cut.json:{line}: malformed JSON at line {line}" in result.err
    nothing_stored(cli)
    # --skip-invalid skips invalid records of a readable file, never a file that cannot be read:
    # the import is refused over it as without the option, nothing written, nothing left behind.
    skipping = cli("import", folder, "--skip-invalid")
    assert skipping.code == 1, skipping.out
    assert f"cut.json:{line}: malformed JSON at line {line}" in skipping.err
    assert "use --skip-invalid" not in skipping.err  # it was used, and cannot help here
    assert skipping.out == ""
    nothing_stored(cli)


def test_an_unreadable_file_refuses_the_import_also_skipping_invalid_records(
    tmp_path: Path, cli: Cli
) -> None:
    src, line = _truncated(tmp_path / "cut.json")
    for options in ((), ("--skip-invalid",), ("--skip-invalid", "--json")):
        result = cli("import", src, *options)
        assert result.code == 1, (options, result.out)
        assert f"cut.json:{line}: malformed JSON at line {line}, column" in result.err
        assert "import refused; nothing was written" in result.err
        nothing_stored(cli)  # neither the database this command created nor its -wal, -shm
        assert list(tmp_path.iterdir()) == [src]


def test_an_unreadable_file_beside_invalid_records_refuses_the_import_skipping_them(
    tmp_path: Path, cli: Cli
) -> None:
    """The invalid record alone would be skipped; the file that cannot be read is not."""
    bad = _jsonl(tmp_path / "bad.jsonl", [*STUDY, _run(1), _bad_run(2)])
    src, line = _truncated(tmp_path / "cut.json")
    alone = cli("import", bad, "--skip-invalid", "--db", tmp_path / "other.db")
    assert alone.code == 0, alone.err
    result = cli("import", bad, src, "--skip-invalid")
    assert result.code == 1
    assert f"cut.json:{line}: malformed JSON" in result.err
    assert "bad.jsonl" not in result.err  # skipped as asked, not a reason to refuse
    nothing_stored(cli)


def test_jsonl_whose_first_line_is_broken_names_line_one(tmp_path: Path, cli: Cli) -> None:
    src = tmp_path / "cut.jsonl"
    src.write_text('{"type": "run", "id": "r1", "task_', encoding="utf-8")
    result = cli("import", src)
    assert result.code == 1
    assert "cut.jsonl:1: malformed JSON at line 1" in result.err


def test_unknown_format_points_at_native_jsonl_and_abp_tui_schema(tmp_path: Path, cli: Cli) -> None:
    src = tmp_path / "mine.json"
    src.write_text(json.dumps({"rows": [{"prompt": "x", "answer": "y"}]}), encoding="utf-8")
    result = cli("import", src)
    assert result.code == 1
    assert "mine.json: no known format" in result.err
    assert "native JSONL" in result.err
    assert "`abp-tui schema`" in result.err
    assert "Traceback" not in result.err


# -- no database left behind -----------------------------------------------------------------------
def test_refused_import_removes_the_database_it_created(tmp_path: Path, cli: Cli) -> None:
    target = tmp_path / "new-folder" / "fresh.db"
    src = _jsonl(tmp_path / "bad.jsonl", [*STUDY, _bad_run(1)])
    result = cli("import", src, "--db", target)
    assert result.code == 1
    assert not target.exists()
    assert not target.parent.exists()
    missing = cli("import", tmp_path / "nowhere.jsonl", "--db", target)
    assert missing.code == 1
    assert "nowhere.jsonl: no such file or folder" in missing.err
    assert not target.exists()


def test_refused_import_never_removes_an_existing_database(tmp_path: Path, cli: Cli) -> None:
    assert cli("import", _jsonl(tmp_path / "good.jsonl", [*STUDY, _run(1)])).code == 0
    result = cli("import", _jsonl(tmp_path / "bad.jsonl", [*STUDY, _bad_run(2)]))
    assert result.code == 1
    assert cli.db_path.exists()
    db = sqlite_utils.Database(cli.db_path)
    assert count(db, "runs") == 1


def test_an_empty_existing_database_is_kept_too(tmp_path: Path, cli: Cli) -> None:
    connect(cli.db_path).close()  # a database made before, empty
    assert cli("status").code == 0
    result = cli("import", _jsonl(tmp_path / "bad.jsonl", [*STUDY, _bad_run(1)]))
    assert result.code == 1
    assert cli.db_path.exists()


def test_a_file_whose_format_cannot_be_told_for_its_broken_json_suggests_no_skipping(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--skip-invalid skips a readable file's invalid records; a file whose first line is
    broken JSON has no format to read records by, so the refusal does not suggest it (it did,
    even to a command already given --skip-invalid)."""
    broken = tmp_path / "pairs.jsonl"
    broken.write_text('{"question_id": 1, "model_a": "x",\n')
    for extra in ((), ("--skip-invalid",)):
        result = Cli(tmp_path / "abp.db", capsys)("import", str(broken), *extra)
        assert result.code == 1
        assert "malformed JSON at line 1" in result.err
        assert "--skip-invalid" not in result.err
