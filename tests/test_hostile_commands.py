"""Every command of the command line, over a corpus of hostile inputs: each run ends with exit
status 0, 1 or 2, without a traceback, and in bounded time (issues 26 and 27).

The commands are enumerated from the parser itself, so a new command or option is covered the
day it is added: every argument that takes a path gets every hostile file (empty, binary junk,
truncated JSON, NaN and Infinity, numbers past any range, a CSV of non-finite cells, a named
pipe, a folder, a missing path), every numeric option every hostile number (negative, zero,
huge, NaN, infinite, past 64 bits), every other text option hostile names. The commands run in
process through ``main(argv)`` against a copy of a judged, unblinded study; a command that waits
(on a pipe, or computing without end) is stopped by an alarm and fails its case.

Left out: ``tui`` (and no command at all), which open the interactive workstation, and ``--db``
itself, which tests/test_hostile_db.py covers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from abp_tui.bench import TAKES
from abp_tui.cli import main
from abp_tui.cli.parser import build_parser
from abp_tui.store import connect
from tests.factories import abp_judged

SECONDS = 60
"""A case still running after this long waits on something: it fails (a bound, not a timing)."""
INTERACTIVE = {("tui",)}
CONTEXT = {"study": "abp-demo", "events": "2000", "repeat": "1"}
"""Given whenever a command takes it and it is not the argument tested: the database holds
several studies, and a command that must be told which one would stop there; a benchmark runs
on a small input once (its own sizes are the ones varied when they are tested)."""
PATH_WORDS = ("PATH", "FILE", "CSV", "TOML", "DIR", "JSON", "PACK", "BUNDLE", "RATINGS", "RESULTS")
NUMBER_WORDS = ("N", "K", "X", "B", "C", "LEVEL", "FRACTION", "PCT")
NUMBERS = ("-1", "0", "1000000000000", "1e300", "nan", "inf", "-9223372036854775809", "9" * 30)
NAMES = ("", "nope", "\x1b]0;title\x07\x1b[31mred", "../" * 20 + "etc/passwd")
FILES = (
    "empty",
    "junk",
    "truncated.json",
    "nan.json",
    "nan.jsonl",
    "huge.json",
    "cells.csv",
    "fifo",
    "folder",
    "missing",
)


@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]
    """The command line, with ``{name}`` for a file of the corpus."""

    @property
    def id(self) -> str:
        return " ".join(a if a else "''" for a in self.argv).replace("\x1b", "ESC")


def _leaves(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every runnable command: its words and its parser."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield words, parser
        return
    for name, child in subs[0].choices.items():
        yield from _leaves(child, (*words, name))


def _metavar(action: argparse.Action) -> str:
    shown = action.metavar if isinstance(action.metavar, str) else action.dest
    return shown.upper()


def _kind(action: argparse.Action) -> str | None:
    """``path``, ``number``, ``name``, ``choice`` or None (a flag: not varied)."""
    if action.nargs == 0 or action.dest in ("help", "version", "db"):
        return None
    if action.choices is not None:
        return "choice"
    type_name = getattr(action.type, "__name__", "")
    metavar = _metavar(action)
    if type_name in ("int", "float") or metavar in NUMBER_WORDS:
        return "number"
    if any(word in metavar for word in PATH_WORDS) or action.dest in ("out", "table", "header"):
        return "path"
    return "name"


def _benign(action: argparse.Action, kind: str | None) -> str:
    """A value that lets the other arguments be the ones tested."""
    if kind == "choice":
        return str(next(iter(action.choices or ["x"])))
    if kind == "number":
        return "1"
    if kind == "path":
        return "{missing}" if action.dest != "out" else "{out}"
    return "x"


Actions = list[tuple[argparse.Action, str]]


def _takes(words: tuple[str, ...], option: str, choice: str | None) -> bool:
    """Whether the command takes ``option`` (a benchmark refuses another's options)."""
    if words != ("bench",) or option not in TAKES:
        return True
    return (choice or "import") in TAKES[option]


def _line(
    words: tuple[str, ...],
    actions: Actions,
    tested: argparse.Action,
    value: str,
    choice: str | None = None,
) -> Case:
    """The command ``words`` with ``value`` for ``tested`` and a benign value for every other
    required argument (``choice`` for its positional choice, when given)."""
    argv: list[str] = list(words)
    for action, kind in actions:
        if action is tested:
            shown = value
        elif not action.option_strings or action.required:
            shown = choice if kind == "choice" and choice is not None else _benign(action, kind)
        elif action.dest in CONTEXT and _takes(words, action.dest, choice):
            shown = CONTEXT[action.dest]
        else:
            continue
        argv += [action.option_strings[0], shown] if action.option_strings else [shown]
    return Case(tuple(argv))


def _cases() -> list[Case]:
    cases: list[Case] = []
    for words, parser in _leaves(build_parser()):
        if words in INTERACTIVE:
            continue
        actions: Actions = [(a, k) for a in parser._actions if (k := _kind(a)) is not None]

        choices = [a for a, k in actions if k == "choice" and not a.option_strings]
        variants = [str(c) for c in choices[0].choices or ()] if choices else [None]
        for action, kind in actions:
            if kind == "path":
                cases += [
                    _line(words, actions, action, f"{{{f}}}", v) for v in variants for f in FILES
                ]
            elif kind == "number":
                cases += [_line(words, actions, action, n) for n in NUMBERS]
            elif kind == "name":
                cases += [_line(words, actions, action, n) for n in NAMES]
    return cases


CASES = _cases()


def _corpus(root: Path) -> dict[str, str]:
    (root / "empty").write_bytes(b"")
    (root / "junk").write_bytes(bytes(range(256)) * 4 + b"\xff\xfe\x00\n\xc3\x28")
    (root / "truncated.json").write_text('{"format": "abp-tui-ratings/v2", "items": [{"a', "utf-8")
    (root / "nan.json").write_text('{"x": NaN, "y": Infinity, "z": -Infinity}', "utf-8")
    (root / "nan.jsonl").write_text('{"type": "study", "id": NaN}\n{"n": Infinity}\n', "utf-8")
    (root / "huge.json").write_text('{"n": 1e999, "m": ' + "9" * 5000 + "}", "utf-8")
    (root / "cells.csv").write_text(
        "item,reviewer,variable,value\nnan,inf,v,NaN\n1,a,v,1e999\n1,b,v,-inf\n", "utf-8"
    )
    os.mkfifo(root / "fifo")
    (root / "folder").mkdir()
    files = {name: str(root / name) for name in FILES}
    files["out"] = str(root / "written" / "out.file")
    return files


@pytest.fixture(scope="module")
def judged_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "judged.db"
    db = connect(path)
    try:
        abp_judged(db)
    finally:
        db.close()
    return path


class Hung(BaseException):
    """Raised by the alarm: a BaseException, so that no ``except OSError`` or ``except
    Exception`` of the command can take it for an input problem and carry on."""


@pytest.fixture
def alarm() -> Iterator[None]:
    def expired(signum: int, frame: object) -> None:
        raise Hung(f"still running after {SECONDS} s: it waits on something")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_the_corpus_reaches_every_command() -> None:
    commands = {c.argv[0] for c in CASES}
    every = {words[0] for words, _ in _leaves(build_parser())} - {w[0] for w in INTERACTIVE}
    # A command of flags alone (demo, formats) has nothing hostile to take but --db.
    assert every - commands <= {"demo", "formats"}
    assert len(CASES) > 300


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_hostile_input_ends_in_0_1_or_2_without_a_traceback(
    tmp_path: Path,
    judged_db: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    alarm: None,
    case: Case,
) -> None:
    monkeypatch.delenv("ABP_TUI_DEBUG", raising=False)
    monkeypatch.chdir(tmp_path)  # default outputs (exports/, schemas/) land here
    db = tmp_path / "db.db"
    shutil.copyfile(judged_db, db)
    files = _corpus(tmp_path)
    argv = [files[a[1:-1]] if a.startswith("{") and a.endswith("}") else a for a in case.argv]
    try:
        code = main([*argv, "--db", str(db)])
    except SystemExit as stop:  # argparse: a usage error
        code = stop.code if isinstance(stop.code, int) else 2
    err = capsys.readouterr().err
    assert code in (0, 1, 2), err
    assert "Traceback" not in err and "internal error" not in err, err
