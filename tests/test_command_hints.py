"""Every command the program suggests reaches the database in use: pasted as printed, it runs on
the same file (``--db PATH`` whenever that is not the default), and a study missing from a
database is reported with that database's file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from abp_tui.cli import main
from abp_tui.store import connect
from abp_tui.text.hints import DEFAULT_DB, command, is_default_db, no_such_study
from tests.factories import Cli, afp_study_lines, write_jsonl


def _afp(cli: Cli, tmp_path: Path) -> None:
    assert cli("import", write_jsonl(tmp_path / "s.jsonl", afp_study_lines())).code == 0


def test_a_hint_names_the_database_only_when_it_is_not_the_default() -> None:
    assert command("unblind --study s --yes", DEFAULT_DB) == "abp-tui unblind --study s --yes"
    assert command("demo", Path("./data/abp.db")) == "abp-tui demo"
    assert command("demo", os.path.abspath(DEFAULT_DB)) == "abp-tui demo"
    assert command("demo", None) == "abp-tui demo"
    assert command("demo", ":memory:") == "abp-tui demo"
    assert command("demo", Path("x.db")) == "abp-tui demo --db x.db"
    # Quoted as one shell word; an open database is named by its file.
    assert command("demo", "my data/run 1.db") == "abp-tui demo --db 'my data/run 1.db'"
    assert not is_default_db(Path("other") / "abp.db")


def test_a_study_missing_from_a_database_names_its_file(tmp_path: Path) -> None:
    db = connect(tmp_path / "x.db")
    assert no_such_study("mt-bench", db) == f"no study 'mt-bench' in {tmp_path / 'x.db'}"


def test_unblind_on_the_wrong_database_names_the_file_it_read(
    tmp_path: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    _afp(cli, tmp_path)
    other = tmp_path / "other.db"
    for argv in (["--yes"], []):  # no database there: said so, and none is made
        code = main(["unblind", "--db", str(other), "--study", "s", *argv])
        err = capsys.readouterr().err
        assert code == 1
        assert err.startswith(f"abp-tui: no database at {other} (nothing was created there)")
        assert not other.exists()
    connect(other).close()  # another database, empty
    for argv in (["--yes"], []):  # refused before it asks to confirm a study that is not there
        code = main(["unblind", "--db", str(other), "--study", "s", *argv])
        err = capsys.readouterr().err
        assert code == 1
        assert err == f"abp-tui: no study 's' in {other}: it has none\n"


def test_the_unblinding_hint_runs_on_the_same_database(tmp_path: Path, cli: Cli) -> None:
    _afp(cli, tmp_path)
    asked = cli("unblind", "--study", "s")
    assert asked.code == 1
    hint = f"abp-tui unblind --study s --yes --db {cli.db_path}"
    assert asked.err.rstrip().endswith(hint)
    # Pasted as printed, it unblinds the study of this database.
    assert main(hint.split()[1:]) == 0


def test_the_blind_results_and_missing_design_hints_carry_the_database(
    tmp_path: Path, cli: Cli
) -> None:
    _afp(cli, tmp_path)
    no_design = cli("results", "--study", "s")
    assert no_design.code == 1
    assert f"abp-tui study create --study STUDY --db {cli.db_path} (or FILE)" in no_design.err
    assert cli("study", "create", "--study", "s", "--seed", "3", "--db", cli.db_path).code == 0
    blind = cli("results", "--study", "s")
    assert blind.code == 1
    assert f"`abp-tui unblind --study s --yes --db {cli.db_path}`" in blind.err


def test_status_of_an_empty_database_suggests_importing_into_it(tmp_path: Path, cli: Cli) -> None:
    connect(cli.db_path).close()
    out = cli("status")
    assert f"abp-tui import PATH --db {cli.db_path}" in out.out
