"""A refused command leaves behind no database it created: a mistyped ``--db`` or a study that
is not there, and the folder made for it. A command that reads a database never makes one: where
``--db`` names none it is refused in one line, creating nothing. A database that was there, or
that holds an import, always stays."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from abp_tui.cli import main
from abp_tui.services.importing import import_into
from abp_tui.store import connect
from abp_tui.store.queries import list_studies
from abp_tui.tui import app
from tests.factories import Cli, afp_study_lines, write_jsonl


@pytest.mark.parametrize(
    "command",
    [
        ("status",),
        ("status", "--json"),
        ("study", "list"),
        ("study", "create", "--reviewers", "ann"),
        ("results", "--study", "nope"),
        ("agreement", "--study", "nope"),
        ("ranking", "--study", "nope"),
        ("judges",),
        ("reliability",),
        ("plan",),
        ("unblind", "--study", "nope", "--yes"),
        ("export", "verdicts", "--study", "nope", "--out", "x.jsonl"),
        ("pack", "study", "--reviewer", "ann"),
        ("pack", "ratings", "--out", "ratings.json"),
        ("team", "list"),
        ("team", "show", "ann"),
        ("team", "add", "ann", "--key", "ann.pub", "--authorized-keys", "keys"),
        ("team", "remove", "ann", "--authorized-keys", "keys"),
        ("merge", "ratings.json"),
        ("session", "ann"),
    ],
    ids=lambda c: "-".join(c[:2]),
)
def test_a_command_reading_a_database_never_makes_one(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
) -> None:
    monkeypatch.chdir(tmp_path)  # the files a command would write, if it got that far
    db = tmp_path / "typo" / "deeper" / "abp.db"
    done = Cli(db, capsys)("--db", db, *command)
    assert done.code == 1, done.out
    [line] = done.err.splitlines()  # one line: the path, and how to make a database there
    assert line == (
        f"abp-tui: no database at {db} (nothing was created there); create one by importing "
        f"run records: abp-tui import PATH --db {db}"
    )
    assert done.out == ""
    assert list(tmp_path.iterdir()) == []  # neither the database nor the two folders


def test_a_missing_default_database_is_named_with_a_hint_to_paste(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    done = Cli(Path("data") / "abp.db", capsys)("status")
    assert done.code == 1
    assert "no database at data/abp.db" in done.err
    assert done.err.rstrip().endswith("abp-tui import PATH")  # the default: no --db to add
    assert list(tmp_path.iterdir()) == []


def test_the_commands_that_make_a_database_still_make_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "new" / "abp.db"
    cli = Cli(db, capsys)
    assert cli("demo").code == 0
    assert db.exists()
    assert cli("status").code == 0  # and the others read it


def test_a_database_that_was_there_stays_when_a_command_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "abp.db"
    cli = Cli(db, capsys)
    assert cli("demo").code == 0
    studies = cli("status", "--json").out
    assert cli("results", "--study", "nope").code == 1
    assert db.exists()
    assert cli("status", "--json").out == studies  # the same database, whole


def test_an_empty_database_that_was_there_stays_when_a_command_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "abp.db"
    cli = Cli(db, capsys)
    assert cli("results", "--study", "nope").code == 1
    assert not db.exists()
    connect(db).close()  # a database with nothing in it yet, made on purpose
    assert cli("status").code == 0
    done = cli("results", "--study", "nope")
    assert done.code == 1
    assert "no study 'nope'" in done.err or "nope" in done.err
    assert db.exists()  # made before this command: not this one's to remove


class _Closed:
    """A workstation closed as soon as it opened (or after ``during`` ran), with nothing lost."""

    def __init__(self, during: Callable[[], object] = lambda: None) -> None:
        self.lost_work: list[str] = []
        self._during = during

    def run(self) -> None:
        self._during()


def test_the_workstation_closed_on_a_new_database_with_nothing_imported_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workstation makes its database (its home screen imports), but one it made and left
    with nothing imported is removed as it closes, with the folders made for it."""
    monkeypatch.setattr(app, "make_app", lambda **_: _Closed())
    db = tmp_path / "typo" / "abp.db"
    assert main(["--db", str(db)]) == 0
    assert list(tmp_path.iterdir()) == []


def test_the_workstation_keeps_a_new_database_it_imported_into(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "new" / "abp.db"
    runs = write_jsonl(tmp_path / "s.jsonl", afp_study_lines())
    closed = _Closed(lambda: import_into(db, [runs]))  # `i` on the home screen, then quit
    monkeypatch.setattr(app, "make_app", lambda **_: closed)
    assert main(["--db", str(db)]) == 0
    assert db.exists()
    kept = connect(db)
    try:
        assert [s.id for s in list_studies(kept)] == ["s"]
    finally:
        kept.close()


def test_the_workstation_never_removes_a_database_that_was_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "make_app", lambda **_: _Closed())
    db = tmp_path / "abp.db"
    connect(db).close()  # empty, made before
    assert main(["--db", str(db)]) == 0
    assert db.exists()
