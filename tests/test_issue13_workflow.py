"""The README's CI gate workflow does what it says, as seed 003 section 10 writes it.

Seed 003 section 10 gives the workflow as two steps:

    - run: abp run --config abp-run.json -o results
    - run: abp gate results/run-latest --baseline abp-baseline.json --require-significant

The README shows the same two steps with this project's command name for the gate; this test runs
its gate line, exactly as written, in a checkout holding a committed baseline and the run folder
the harness step leaves, so the snippet cannot drift from a working command line.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from abp_tui.cli import main
from tests.factories import FIXTURES

README = (Path(__file__).resolve().parents[1] / "docs" / "commands.md").read_text(encoding="utf-8")


def _workflow_steps() -> list[str]:
    section = re.search(r"^### The CI gate\n(.*?)(?=^##)", README, re.M | re.S)
    assert section, "docs/commands.md has no '### The CI gate' section"
    block = re.search(r"```yaml\n(.*?)```", section.group(1), re.S)
    assert block, "the CI gate section has no yaml block"
    return [
        line.split("- run:", 1)[1].strip()
        for line in block.group(1).splitlines()
        if line.strip().startswith("- run:")
    ]


def test_the_snippet_has_the_seeds_two_steps_with_this_projects_gate() -> None:
    assert _workflow_steps() == [
        "abp run --config abp-run.json -o results",
        "abp-tui gate results/run-latest --baseline abp-baseline.json --require-significant",
    ]


def test_the_snippets_gate_line_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # What the harness step leaves: an ABP run folder at results/run-latest.
    shutil.copytree(FIXTURES / "demo" / "abp-demo", tmp_path / "results" / "run-latest")
    monkeypatch.chdir(tmp_path)
    # The committed baseline: `baseline save` writes abp-baseline.json by default.
    assert main(["baseline", "save", "results/run-latest"]) == 0
    assert (tmp_path / "abp-baseline.json").is_file()
    capsys.readouterr()

    argv = shlex.split(_workflow_steps()[1])
    assert argv[0] == "abp-tui"
    assert main(argv[1:]) == 0
    out = capsys.readouterr().out
    assert "PASS: no regression beyond the thresholds." in out
    assert "abp-baseline.json" in out  # the receipts name the committed file
    # Gating a run folder needs no database: the step leaves nothing behind in the checkout.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abp-baseline.json", "results"]


def test_the_snippets_gate_line_fails_a_regressed_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same line over an Arena run that regressed (Arena leaves results.json in the run's
    # folder): the step goes red.
    shutil.copy(FIXTURES / "ci-gate" / "baseline.results.json", tmp_path / "base.json")
    (tmp_path / "results" / "run-latest").mkdir(parents=True)
    shutil.copy(
        FIXTURES / "ci-gate" / "regression.results.json",
        tmp_path / "results" / "run-latest" / "results.json",
    )
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", "save", "base.json"]) == 0
    capsys.readouterr()
    assert main(shlex.split(_workflow_steps()[1])[1:]) == 1
    out = capsys.readouterr().out
    assert "FAIL: regression detected." in out
    assert "[decided by: exact McNemar]" in out
