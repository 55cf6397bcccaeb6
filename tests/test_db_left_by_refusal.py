"""A refused command leaves behind no database it created: a mistyped ``--db`` or a study that
is not there, and the folder made for it. A database that was there, or that holds an import,
always stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import Cli


@pytest.mark.parametrize(
    "command",
    [
        ("results", "--study", "nope"),
        ("agreement", "--study", "nope"),
        ("ranking", "--study", "nope"),
        ("export", "verdicts", "--study", "nope", "--out", "x.jsonl"),
    ],
    ids=lambda c: c[0],
)
def test_a_refused_command_leaves_no_database_nor_folders_it_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    db = tmp_path / "typo" / "deeper" / "abp.db"
    cli = Cli(db, capsys)
    done = cli(*command)
    assert done.code == 1, done.err
    assert "nope" in done.err
    assert list(tmp_path.iterdir()) == []  # neither the database nor the two folders


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
    assert cli("status").code == 0  # a database with nothing in it yet, made on purpose
    assert db.exists()
    assert cli("results", "--study", "nope").code == 1
    assert db.exists()  # made by an earlier command: not this one's to remove
