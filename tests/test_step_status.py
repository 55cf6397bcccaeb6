"""``export bundle`` and ``verify`` say what they are doing: a large study's take minutes, and a
terminal showed nothing until they ended. The core says each step (``abp_tui.runtime.phase``);
the command line shows the latest on one line of a terminal's stderr once a second has passed,
and clears it at the end. Nothing is shown with ``--json``, to a pipe or to a file."""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

import pytest

from abp_tui.cli.progress import StatusLine, step_status
from abp_tui.export import verify
from abp_tui.runtime import phase, reporting
from abp_tui.services.publishing import export_bundle
from abp_tui.store import connect
from abp_tui.store import judging as sql
from tests.factories import Cli


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _exported(tmp_path: Path, cli: Cli, steps: list[str]) -> Path:
    assert cli("demo").code == 0
    db = connect(cli.db_path)
    try:
        pk = next(d.pk for d in sql.designs(db, "business-memo-demo"))
        with reporting(steps.append):
            return export_bundle(db, pk, tmp_path / "memo").zip_path
    finally:
        db.close()


def test_export_and_verify_say_each_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(tmp_path / "abp.db", capsys)
    said: list[str] = []
    bundle = _exported(tmp_path, cli, said)
    assert said[:3] == [
        "collecting the study's records",
        "reading the records back, as verify will",
        "deciding the final verdicts",
    ]
    assert "writing results/summary.json" in said and "writing report.html" in said
    assert said[-1].startswith("zipping ") and said[-1].endswith(" files")
    checked: list[str] = []
    with reporting(checked.append):
        report = verify(bundle)
    assert checked[:2] == ["listing the bundle's files", f"hashing {report.files - 1:,} files"]
    assert "reading the records" in checked and "deciding the final verdicts" in checked
    assert "re-deriving results/verdicts.jsonl" in checked and "re-deriving report.html" in checked
    # Nobody reporting: nothing is said, and nothing fails.
    phase("a step nobody shows")


def test_the_status_line_shows_the_step_after_a_delay_and_clears_it() -> None:
    stream = _Terminal()
    line = StatusLine(stream, "verify", delay=0.05)
    line.update("re-deriving report.html\x1b[2J")  # a step is made safe
    deadline = time.monotonic() + 5
    while not line.shown and time.monotonic() < deadline:
        time.sleep(0.01)
    assert line.shown
    assert line.text().startswith("verify: re-deriving report.html")
    assert "\x1b[2J" not in line.text()
    line.close()
    assert not line.shown
    written = stream.getvalue()
    assert "verify: re-deriving report.html" in written
    assert "\x1b[2J" not in written


def test_a_short_command_shows_no_line() -> None:
    stream = _Terminal()
    line = StatusLine(stream, "verify", delay=30)
    line.update("hashing 12 files")
    line.close()
    assert not line.shown and stream.getvalue() == ""


@pytest.mark.parametrize("json_out, terminal", [(False, False), (True, True)])
def test_no_line_with_json_or_off_a_terminal(json_out: bool, terminal: bool) -> None:
    stream = _Terminal() if terminal else io.StringIO()
    with step_status(argparse.Namespace(json=json_out), "verify", stream) as line:
        phase("hashing 12 files")
    assert line is None and stream.getvalue() == ""


def test_a_step_said_inside_goes_to_the_line() -> None:
    stream = _Terminal()
    with step_status(argparse.Namespace(json=False), "export bundle", stream) as line:
        assert line is not None
        phase("zipping 12 files")
        assert line.text().startswith("export bundle: zipping 12 files (")
