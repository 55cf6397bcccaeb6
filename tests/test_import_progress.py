"""Import progress: every format reports it (JSON arrays too, not only streamed files), and the
bar shows on a terminal once an import has run for about a second, never with --json or when
stderr is not a terminal, and never lets a file name reach the terminal as markup or escapes."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import sqlite_utils

from abp_tui.cli.progress import DELAY_SECONDS, ProgressBar, import_progress
from abp_tui.services.import_plan import ImportProgress
from abp_tui.services.importing import import_paths
from tests.factories import DEMO


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _pairs(path: Path, n: int) -> Path:
    items = [
        {"idx": i, "cmp_key": "a_b", "instruction": f"q{i}", "response1": "x", "response2": "y"}
        for i in range(n)
    ]
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def test_a_json_array_reports_progress_while_its_items_are_stored(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    seen: list[ImportProgress] = []
    src = _pairs(tmp_path / "pairs.json", 3000)
    import_paths(db, [src], progress=seen.append)
    total = src.stat().st_size
    done = [p.done for p in seen]
    assert done == sorted(done)
    assert done[-1] == total
    # Progress along the way, not only at the start and the end.
    assert len({d for d in done if 0 < d < total}) >= 4
    assert {(p.number, p.files, p.total) for p in seen} == {(1, 1, total)}


def test_progress_spans_every_file_of_a_folder(db: sqlite_utils.Database) -> None:
    seen: list[ImportProgress] = []
    import_paths(db, [DEMO / "abp-demo"], progress=seen.append)
    files = 1 + 4 + 24 + 1  # run.json, tasks, traces, verdict.json
    assert {p.files for p in seen} == {files}
    assert sorted({p.number for p in seen}) == list(range(1, files + 1))
    done = [p.done for p in seen]
    assert done == sorted(done)
    assert (
        done[-1]
        == seen[-1].total
        == sum(p.stat().st_size for p in (DEMO / "abp-demo").rglob("*") if p.is_file())
    )


def test_the_bar_appears_only_after_about_a_second() -> None:
    clock, out = _Clock(), _Terminal()
    bar = ProgressBar(out, clock=clock)
    bar.update(ImportProgress("pairs.json", 1, 2, 10, 100))
    clock.now += DELAY_SECONDS / 2
    bar.update(ImportProgress("pairs.json", 1, 2, 20, 100))
    assert out.getvalue() == "" and not bar.shown
    clock.now += DELAY_SECONDS
    bar.update(ImportProgress("pairs.json", 1, 2, 30, 100))
    assert bar.shown
    assert "[1/2] pairs.json" in out.getvalue()
    bar.close()


def test_a_file_name_is_shown_as_text_never_as_markup_or_escapes() -> None:
    clock, out = _Clock(), _Terminal()
    bar = ProgressBar(out, clock=clock, delay=0)
    bar.update(ImportProgress("[bold]x[/bold]\x1b]8;;http://e\x07.json", 1, 1, 5, 10))
    bar.close()
    shown = out.getvalue()
    assert "[bold]x[/bold]" in shown
    assert "\x1b]8;;" not in shown
    assert "\u241b]8;;http://e\u2407.json" in shown


def test_no_bar_with_json_or_when_stderr_is_not_a_terminal() -> None:
    quiet = argparse.Namespace(json=False)
    assert import_progress(argparse.Namespace(json=True), _Terminal())[0] is None
    assert import_progress(quiet, io.StringIO())[0] is None
    report, close = import_progress(quiet, _Terminal())
    assert report is not None
    close()


def test_a_short_import_on_a_terminal_draws_nothing(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    out = _Terminal()
    bar = ProgressBar(out)  # the real clock: this import takes well under a second
    import_paths(db, [_pairs(tmp_path / "few.json", 3)], progress=bar.update)
    bar.close()
    assert out.getvalue() == ""
