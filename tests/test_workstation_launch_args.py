"""The workstation's launch (``abp-tui``, ``abp-tui --db PATH --reviewer NAME``) is read without
building the parser of every command, and reads exactly as the parser reads it; anything else
goes to the parser, which says what is wrong with it."""

from __future__ import annotations

import argparse

import pytest

from abp_tui.cli import build_parser, main, workstation_args


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--db", "study.db"],
        ["--db=study.db"],
        ["--reviewer", "ana", "--db", "x.db"],
        ["--db=x.db", "--reviewer=ana"],
        ["--db", "first.db", "--db", "second.db"],
        ["--db", "has=sign.db"],
        ["--db="],
    ],
)
def test_the_launch_reads_as_the_parser_reads_it(argv: list[str]) -> None:
    fast = workstation_args(argv)
    assert fast is not None
    assert vars(fast) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["status"],
        ["tui", "--db", "x.db"],
        ["--db"],
        ["--db", "--reviewer", "ana"],
        ["--db", "-x.db"],
        ["--reviewer"],
        ["--rev", "ana"],
        ["--help"],
        ["--version"],
        ["--db", "x.db", "extra"],
    ],
)
def test_anything_else_is_left_to_the_parser(argv: list[str]) -> None:
    assert workstation_args(argv) is None


def test_a_launch_the_parser_refuses_is_still_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--db"])
    assert stopped.value.code == 2
    assert "--db: expected one argument" in capsys.readouterr().err


def test_the_namespace_carries_what_the_workstation_reads() -> None:
    args = workstation_args(["--db", "x.db"])
    assert isinstance(args, argparse.Namespace)
    assert (args.command, args.db, getattr(args, "reviewer", None)) == (None, "x.db", None)
