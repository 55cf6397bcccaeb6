"""Importing from the workstation: ``i`` on the home screen asks for a path (completed from the
file system), imports it with the same core function as ``abp-tui import``, and says what the
command line says: its summary line, or its refusal lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.import_files import ImportScreen, PathInput, completion
from tests.factories import Cli, afp_study_lines, write_jsonl
from tests.tui_helpers import drive, plain, press, type_text, until

SIZE = (120, 40)


def test_completion_of_files_and_folders(tmp_path: Path) -> None:
    (tmp_path / "records").mkdir()
    (tmp_path / "runs-2024.jsonl").write_text("")
    (tmp_path / "runs-2025.jsonl").write_text("")
    (tmp_path / ".hidden").write_text("")
    base = str(tmp_path)
    assert completion(f"{base}/rec") == f"{base}/records/"
    assert completion(f"{base}/ru") == f"{base}/runs-202"  # as far as the names agree
    assert completion(f"{base}/runs-2025") == f"{base}/runs-2025.jsonl"
    assert completion(f"{base}/nothing") is None
    assert completion(f"{base}/.h") == f"{base}/.hidden"
    assert completion(f"{base}/records/") is None  # an empty folder: nothing to add
    assert completion("") is None


async def _import(pilot: Pilot[Any], path: str) -> None:
    await press(pilot, "i")
    await until(pilot, lambda: isinstance(pilot.app.screen, ImportScreen), "the import dialog")
    await type_text(pilot, path)
    await press(pilot, "enter")


async def test_i_imports_a_file_and_says_what_the_command_line_says(
    tmp_path: Path, cli: Cli
) -> None:
    source = write_jsonl(tmp_path / "s.jsonl", afp_study_lines())
    db_path = tmp_path / "tui.db"
    connect(db_path).close()
    app = make_app(db_path, reviewer="ann")
    notes: list[str] = []
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "the home screen")
        home = app.screen
        assert isinstance(home, HomeScreen)
        original = app.notify

        def noted(message: str, **kwargs: object) -> None:
            notes.append(message)
            original(message, **kwargs)  # type: ignore[arg-type]

        app.notify = noted  # type: ignore[method-assign]
        await _import(pilot, str(source))
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "back home")
        await until(pilot, lambda: "s" in home.studies, "the study imported and listed")
    # The same summary line the command line ends with, for the same file.
    cli_db = tmp_path / "cli.db"
    out = cli("import", source, "--db", cli_db)
    assert notes[-1] == out.out.splitlines()[-1]
    assert (
        notes[-1]
        == "1 file imported: 2 conditions added, 4 runs added, 1 study added, 2 tasks added."
    )


async def test_a_refused_import_shows_the_command_line_s_lines(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('[{"instruction": "a",\n')
    db_path = tmp_path / "tui.db"
    connect(db_path).close()
    app = make_app(db_path, reviewer="ann")
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "the home screen")
        await _import(pilot, str(broken))

        def error() -> str:
            return plain(app.screen.query_one("#import-error", Static).render())

        await until(pilot, lambda: "refused" in error(), "the refusal")
        assert isinstance(app.screen, ImportScreen)
        assert error().splitlines() == [
            "import refused; nothing was written (1 error):",
            f"  {broken}:2: malformed JSON at line 2, column 1: Expecting property name enclosed "
            "in double quotes; "
            "the file is not valid JSON: fix or re-export it",
        ]
        # Tab completes the path typed; Escape closes, nothing imported.
        field = app.screen.query_one(PathInput)
        field.value = ""
        await type_text(pilot, str(tmp_path / "bro"))
        await until(pilot, lambda: field._suggestion == str(broken), "the completion")
        await press(pilot, "tab")
        assert field.value == str(broken)
        await press(pilot, "escape")
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "back home")
    db = connect(db_path)
    assert db.execute("SELECT count(*) FROM studies").fetchone() == (0,)
