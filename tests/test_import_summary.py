"""What an import says when it ends: every count agrees with its noun (``1 study added``), and
one summary line, the same for the command line and the workstation."""

from __future__ import annotations

from pathlib import Path

from abp_tui.text.counts import counted, counted_label, counts_text
from tests.factories import Cli, afp_study_lines, write_jsonl


def test_a_count_agrees_with_its_noun() -> None:
    assert counted(1, "study", "studies") == "1 study"
    assert counted(2, "study", "studies") == "2 studies"
    assert counted(0, "file") == "0 files"
    assert counted_label(1, "studies added") == "1 study added"
    assert counted_label(3, "studies added") == "3 studies added"
    assert counted_label(1, "judge verdicts unchanged") == "1 judge verdict unchanged"
    assert counted_label(1, "records skipped") == "1 record skipped"
    assert counted_label(1, "trace events added") == "1 trace event added"
    assert counts_text({"runs added": 1, "tasks added": 0, "rubrics added": 2}) == (
        "1 run added, 2 rubrics added"
    )
    assert counts_text({}, "nothing new") == "nothing new"


def test_an_import_of_one_study_says_one_study(tmp_path: Path, cli: Cli) -> None:
    lines = afp_study_lines()
    one_run = [line for line in lines if line["type"] != "run" or line["id"] == "P01-A"]
    out = cli("import", write_jsonl(tmp_path / "s.jsonl", one_run))
    assert out.code == 0, out.err
    assert "1 study added" in out.out and "1 run added" in out.out and "1 rubric" not in out.out
    assert "studies added" not in out.out and "1 runs" not in out.out
    assert out.out.splitlines()[-1] == (
        "1 file imported: 2 conditions added, 1 run added, 1 study added, 2 tasks added."
    )
    again = cli("import", tmp_path / "s.jsonl")
    assert again.out.splitlines()[-1] == "Nothing new was added. 1 file unchanged."


def test_a_file_that_is_not_json_is_told_to_be_fixed_not_skipped(tmp_path: Path, cli: Cli) -> None:
    broken = tmp_path / "testset.json"
    broken.write_text('[{"instruction": "a",\n  "response1": "b",\n  "response2": \n')
    out = cli("import", broken)
    assert out.code == 1
    assert out.err.splitlines() == [
        "abp-tui: import refused; nothing was written (1 error):",
        f"  {broken}:4: malformed JSON at line 4, column 1: Expecting value; the file is not "
        "valid JSON: fix or re-export it",
    ]
    # A bad line of a JSON Lines file is a record: skipping it does help, and is suggested.
    lines = tmp_path / "s.jsonl"
    lines.write_text('{"type": "study", "id": "s"}\n{"type": "run", oops\n')
    out = cli("import", lines)
    assert out.code == 1
    assert out.err.splitlines()[-1] == (
        "Fix the input, or use --skip-invalid to import the valid records."
    )
