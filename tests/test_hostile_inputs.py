"""Inputs made to crash the program end in one clear line and exit status 1 (issue 15).

Each case below was an internal error (exit 3) before: JSON nested deeply enough to exhaust the
recursion limit, an integer too large for SQLite, an escaped lone surrogate, NaN or Infinity
where a number belongs, a number past a float's range, in every reader that takes files from
outside (``import``, ``pack open``, ``merge``, ``verify``, ``study create``), and a full disk or
a read-only database under the commands that write. Each case runs through the real command
line and checks: exit status 1, a line naming the file and the field (or the line and column),
no "internal error", and the database exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.models import PreferenceChoice
from abp_tui.services.designing import find_design
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store import db as store_db
from tests.factories import (
    FIXTURES,
    Cli,
    afp_judgment,
    afp_study_lines,
    exported_abp_bundle,
    two_reviewer_design,
)

DEEP = "[" * 50_000 + "]" * 50_000
"""Far past the recursion limit of Python's own JSON parser (about 1000 levels)."""
RIGHT_UNDER = "[" * 190 + "]" * 190


# -- files the cases damage ------------------------------------------------------------------------
def _jsonl(lines: list[dict[str, object]]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def _run_line(change: Callable[[dict[str, object]], object]) -> str:
    """The AFP study with its first run changed (the run is the file's fifth line)."""
    lines = afp_study_lines()
    change(lines[4])
    return _jsonl(lines)


@dataclass(frozen=True)
class Station:
    """A coordinator's database, the pack it issued to reviewer a, the station that opened it
    and the ratings file the station wrote (one submitted judgment)."""

    coordinator: Path
    pack: Path
    station: Path
    ratings: Path


@pytest.fixture(scope="module")
def station_files(tmp_path_factory: pytest.TempPathFactory) -> Station:
    from abp_tui.cli import main

    root = tmp_path_factory.mktemp("station")
    db = connect(root / "coordinator.db")
    try:
        two_reviewer_design(root, db)
    finally:
        db.close()
    files = Station(
        root / "coordinator.db", root / "pack.json", root / "station.db", root / "r.json"
    )
    assert (
        main(
            [
                "pack",
                "study",
                "--db",
                str(files.coordinator),
                "--reviewer",
                "a",
                "--out",
                str(files.pack),
            ]
        )
        == 0
    )
    assert main(["pack", "open", "--db", str(files.station), str(files.pack)]) == 0
    station = connect(files.station)
    try:
        session = ReviewSession(station, find_design(station, "s").pk, "a")
        code = session.queue()[0].code
        session.save(code, afp_judgment(2, 2, PreferenceChoice.TIE), 5, submit=True)
    finally:
        station.close()
    assert main(["pack", "ratings", "--db", str(files.station), "--out", str(files.ratings)]) == 0
    return files


@pytest.fixture(scope="module")
def bundle_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return exported_abp_bundle(tmp_path_factory.mktemp("bundle"))


def _inject(text: str, member: str) -> str:
    """A JSON object's text with ``"x": member`` as its first member."""
    at = text.index("{") + 1
    return text[:at] + f'"x": {member}, ' + text[at:]


def _content(path: Path) -> str:
    """Everything a database holds, as a digest of its SQL dump (absent: "")."""
    if not path.exists():
        return ""
    conn = sqlite3.connect(path)
    try:
        return hashlib.sha256("\n".join(conn.iterdump()).encode("utf-8")).hexdigest()
    finally:
        conn.close()


# -- the cases -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[Path, Station, Path], tuple[Path, list[str]]]
    """(database, arguments) the command runs with, from tmp_path, the station files and a
    bundle folder; files it writes go into tmp_path."""
    expected: tuple[str, ...]
    """What the error line must say (the file's name and the field are among them)."""


def _import(name: str, text: str) -> Callable[[Path, Station, Path], tuple[Path, list[str]]]:
    def build(tmp: Path, _s: Station, _b: Path) -> tuple[Path, list[str]]:
        path = tmp / name
        path.write_text(text, "utf-8")
        return tmp / "import.db", ["import", str(path)]

    return build


def _damaged_copy(
    source: Callable[[Station], Path], name: str, damage: Callable[[str], str]
) -> Callable[[Station, Path], Path]:
    def copy(files: Station, tmp: Path) -> Path:
        path = tmp / name
        path.write_text(damage(source(files).read_text("utf-8")), "utf-8")
        return path

    return copy


def _pack_open(
    damage: Callable[[str], str],
) -> Callable[[Path, Station, Path], tuple[Path, list[str]]]:
    def build(tmp: Path, files: Station, _b: Path) -> tuple[Path, list[str]]:
        pack = _damaged_copy(lambda f: f.pack, "pack.json", damage)(files, tmp)
        connect(tmp / "new-station.db").close()  # an empty station, as a reviewer makes one
        return tmp / "new-station.db", ["pack", "open", str(pack)]

    return build


def _merge(damage: Callable[[str], str]) -> Callable[[Path, Station, Path], tuple[Path, list[str]]]:
    def build(tmp: Path, files: Station, _b: Path) -> tuple[Path, list[str]]:
        ratings = _damaged_copy(lambda f: f.ratings, "ratings.json", damage)(files, tmp)
        db = shutil.copyfile(files.coordinator, tmp / "coordinator.db")
        return Path(db), ["merge", str(ratings)]

    return build


def _verify(
    damage: Callable[[str], str],
) -> Callable[[Path, Station, Path], tuple[Path, list[str]]]:
    def build(tmp: Path, _s: Station, bundle: Path) -> tuple[Path, list[str]]:
        folder = Path(shutil.copytree(bundle, tmp / "bundle"))
        manifest = folder / "manifest.json"
        manifest.write_text(damage(manifest.read_text("utf-8")), "utf-8")
        return tmp / "verify.db", ["verify", str(folder)]

    return build


def _design_file(name: str, text: str) -> Callable[[Path, Station, Path], tuple[Path, list[str]]]:
    def build(tmp: Path, files: Station, _b: Path) -> tuple[Path, list[str]]:
        path = tmp / name
        path.write_text(text, "utf-8")
        db = shutil.copyfile(files.coordinator, tmp / "coordinator.db")
        return Path(db), ["study", "create", str(path)]

    return build


def _on_coordinator(*argv: str) -> Callable[[Path, Station, Path], tuple[Path, list[str]]]:
    def build(tmp: Path, files: Station, _b: Path) -> tuple[Path, list[str]]:
        db = shutil.copyfile(files.coordinator, tmp / "coordinator.db")
        return Path(db), list(argv)

    return build


def _files(
    argv: list[str], **files: str
) -> Callable[[Path, Station, Path], tuple[Path, list[str]]]:
    """A command on files written into tmp_path (``{name}`` in ``argv`` is the file's path)."""

    def build(tmp: Path, _s: Station, _b: Path) -> tuple[Path, list[str]]:
        paths = {}
        for name, text in files.items():
            paths[name] = tmp / name.replace("_", ".")
            paths[name].write_text(text, "utf-8")
        return tmp / "other.db", [a.format(**{k: str(v) for k, v in paths.items()}) for a in argv]

    return build


TOML = 'study = "s"\nname = "second"\nseed = {seed}\ncontrasts = [["C", "A"]]\nreviewers = ["a"]\n'
NESTED = "nested more than 200 levels deep"
CASES = [
    Case(
        "import: JSON Lines nested",
        _import("s.jsonl", _jsonl(afp_study_lines()) + DEEP + "\n"),
        ("s.jsonl:10", NESTED),
    ),
    Case(
        "import: a run's field nested",
        _import(
            "s.jsonl",
            _run_line(lambda r: r.__setitem__("metadata", {"x": "D"})).replace('"D"', DEEP),
        ),
        ("s.jsonl:5", NESTED),
    ),
    Case(
        "import: the first line nested (format detection)",
        _import("first.jsonl", DEEP + "\n"),
        ("first.jsonl:1", NESTED),
    ),
    Case(
        "import: a trace's first line nested",
        _import("t.abp-trace.jsonl", DEEP + "\n"),
        ("t.abp-trace.jsonl:1", NESTED),
    ),
    Case(
        "import: a JSON document nested",
        _import("deep.json", '{"runs": ' + DEEP + "}"),
        ("deep.json:1", NESTED),
    ),
    Case(
        "import: an integer too large for SQLite",
        _import(
            "s.jsonl", _run_line(lambda r: r.__setitem__("tokens", {"input": 10**20, "output": 1}))
        ),
        ("s.jsonl:5", "$.tokens.input", "out of range"),
    ),
    Case(
        "import: a lone surrogate",
        _import("s.jsonl", _run_line(lambda r: r.__setitem__("output", "a\ud800b"))),
        ("s.jsonl:5", "$.output", "lone surrogate"),
    ),
    Case(
        "import: NaN",
        _import("s.jsonl", _run_line(lambda r: r.__setitem__("wall_clock_ms", float("nan")))),
        ("s.jsonl:5", "NaN is not a JSON number"),
    ),
    Case(
        "import: Infinity",
        _import("s.jsonl", _run_line(lambda r: r.__setitem__("wall_clock_ms", float("inf")))),
        ("s.jsonl:5", "Infinity is not a JSON number"),
    ),
    Case(
        "import: a number past a float",
        _import(
            "s.jsonl",
            _run_line(lambda r: r.__setitem__("wall_clock_ms", "BIG")).replace('"BIG"', "1e999"),
        ),
        ("s.jsonl:5", "$.wall_clock_ms", "expected a finite number"),
    ),
    Case("pack open: nested", _pack_open(lambda t: _inject(t, DEEP)), ("pack.json:1", NESTED)),
    Case(
        "pack open: NaN",
        _pack_open(lambda t: _inject(t, "NaN")),
        ("pack.json:1", "NaN is not a JSON number"),
    ),
    Case(
        "pack open: a lone surrogate",
        _pack_open(lambda t: _inject(t, '"\\udc00"')),
        ("pack.json", "$.x", "lone surrogate"),
    ),
    Case("merge: nested", _merge(lambda t: _inject(t, DEEP)), ("ratings.json:1", NESTED)),
    Case(
        "merge: an integer too large",
        _merge(lambda t: _inject(t, "1" + "0" * 30)),
        ("ratings.json", "$.x", "out of range"),
    ),
    Case(
        "merge: Infinity",
        _merge(lambda t: _inject(t, "-Infinity")),
        ("ratings.json:1", "-Infinity is not a JSON number"),
    ),
    Case(
        "verify: a nested manifest", _verify(lambda t: _inject(t, DEEP)), ("manifest.json", NESTED)
    ),
    Case(
        "verify: NaN in the manifest",
        _verify(lambda t: t.replace('"confidence": 0.95', '"confidence": NaN')),
        ("manifest.json", "NaN is not a JSON number"),
    ),
    Case(
        "study create: a JSON design's seed",
        _design_file(
            "d.json",
            json.dumps({"study": "s", "name": "second", "seed": 10**20, "contrasts": [["C", "A"]]}),
        ),
        ("d.json", "$.seed", "out of range"),
    ),
    Case(
        "study create: a TOML design's seed",
        _design_file("d.toml", TOML.format(seed=10**20)),
        ("d.toml", "seed", "out of range"),
    ),
    Case(
        "study create: a TOML design nested",
        _design_file("d.toml", TOML.format(seed=1) + "extra = " + "[" * 5000 + "]" * 5000 + "\n"),
        ("d.toml", "nested too deeply"),
    ),
    Case(
        "study create: a TOML design's NaN",
        _design_file("d.toml", TOML.format(seed="nan")),
        ("d.toml", "seed", "NaN"),
    ),
    Case(
        "study create: a JSON design's lone surrogate",
        _design_file("d.json", json.dumps({"study": "s", "name": "\udfff", "seed": 1})),
        ("d.json", "$.name", "lone surrogate"),
    ),
    Case(
        "study create --seed too large",
        _on_coordinator("study", "create", "--study", "s", "--seed", str(2**63)),
        ("seed", "9223372036854775807"),
    ),
    Case(
        "gate: a nested baseline",
        _files(
            ["gate", str(FIXTURES / "demo" / "abp-demo"), "--baseline", "{b_json}"], b_json=DEEP
        ),
        ("b.json:1", NESTED),
    ),
    Case(
        "agreement --table: a nested header",
        _files(
            ["agreement", "--table", "{t_csv}", "--header", "{h_toml}"],
            t_csv="item,reviewer,variable,value\ni1,a,v,1\ni1,b,v,1\n",
            h_toml="x = " + "[" * 5000 + "]" * 5000 + "\n",
        ),
        ("h.toml", "nested too deeply"),
    ),
    Case(
        "agreement --resamples -5",
        _on_coordinator("agreement", "--study", "s", "--resamples", "-5"),
        ("resamples", "-5"),
    ),
    Case(
        "agreement --pair-resamples -5",
        _on_coordinator("agreement", "--study", "s", "--pair-resamples", "-5"),
        ("--pair-resamples", "-5"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_hostile_input_is_one_clear_line_and_nothing_is_stored(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    station_files: Station,
    bundle_folder: Path,
    case: Case,
) -> None:
    db_path, argv = case.build(tmp_path, station_files, bundle_folder)
    before = _content(db_path)
    result = Cli(db_path, capsys)(*argv, "--db", db_path)
    assert result.code == 1, (result.code, result.err)
    assert "internal error" not in result.err and "Traceback" not in result.err
    assert "\x1b" not in result.err
    line = next((x for x in result.err.splitlines() if all(e in x for e in case.expected)), None)
    assert line is not None, f"no line says {case.expected}: {result.err}"
    assert len(line) < 400, line
    assert _content(db_path) == before


def test_the_limits_are_where_they_are_said_to_be(tmp_path: Path, cli: Cli) -> None:
    """What the refusals stop short of is still read: 190 levels, 2^63 - 1, a paired surrogate."""

    def fifth(run: dict[str, object]) -> None:
        run["metadata"] = {"deep": "D", "big": 2**63 - 1, "small": -(2**63), "emoji": "\U0001f600"}

    path = tmp_path / "s.jsonl"
    path.write_text(_run_line(fifth).replace('"D"', RIGHT_UNDER), "utf-8")
    result = cli("import", path)
    assert result.code == 0, result.err


# -- the disk and the database file ----------------------------------------------------------------
WRITE = ("insert", "update", "delete", "replace")


class _FillingDisk:
    """A connection on a disk that fills up: the first ``room`` write statements go through,
    every later one fails as SQLite fails on a full disk ("database or disk is full"), so a
    command is caught with part of its work written inside its transaction."""

    def __init__(self, conn: sqlite3.Connection, room: int) -> None:
        self._conn = conn
        self._room = room
        self._writes = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._conn, name)

    def _write(self, sql: str) -> None:
        if sql.lstrip().lower().startswith(WRITE):
            self._writes += 1
            if self._writes > self._room:
                raise sqlite3.OperationalError("database or disk is full")

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._write(sql)
        return self._conn.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._write(sql)
        return self._conn.executemany(sql, *args)


def _faulty_connections(monkeypatch: pytest.MonkeyPatch, fault: str, room: int) -> None:
    """Every connection the command opens is on a filling disk, or read-only (SQLite's own
    ``query_only``: every write fails with SQLITE_READONLY, as on a read-only file)."""
    real = store_db.connect

    def connect_faulty(path: Path) -> sqlite_utils.Database:
        db = real(path)
        if fault == "read-only":
            db.execute("PRAGMA query_only = ON")
        else:
            db.conn = _FillingDisk(db.conn, room)  # type: ignore[assignment]
        return db

    monkeypatch.setattr(store_db, "connect", connect_faulty)


WRITES = [
    # (command, fault, write statements that still fit, what the one line says)
    ("merge", "full", 1, "the disk is full"),
    ("merge", "read-only", 0, "the database is read-only"),
    ("pack study", "full", 1, "the disk is full"),
    ("study create", "full", 1, "the disk is full"),
    ("study create", "read-only", 0, "the database is read-only"),
    ("unblind", "full", 0, "the disk is full"),
]


@pytest.mark.parametrize(
    ("command", "fault", "room", "expected"), WRITES, ids=[f"{c}: {f}" for c, f, _r, _e in WRITES]
)
def test_a_write_the_disk_refuses_is_one_line_and_nothing_is_stored(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    station_files: Station,
    command: str,
    fault: str,
    room: int,
    expected: str,
) -> None:
    db_path = Path(shutil.copyfile(station_files.coordinator, tmp_path / "coordinator.db"))
    argv = {
        "merge": ["merge", str(station_files.ratings)],
        "pack study": ["pack", "study", "--reviewer", "b", "--out", str(tmp_path / "b.json")],
        "study create": ["study", "create", "--study", "s", "--name", "second", "--seed", "4"],
        "unblind": ["unblind", "--study", "s", "--yes"],
    }[command]
    cli = Cli(db_path, capsys)
    before = _content(db_path)
    _faulty_connections(monkeypatch, fault, room)
    result = cli(*argv, "--db", db_path)
    monkeypatch.undo()
    assert result.code == 1, (result.code, result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and "coordinator.db" in lines[0], result.err
    assert _content(db_path) == before
    assert not (tmp_path / "b.json").exists()
    # Once the disk has room again, the same command works.
    assert cli(*argv, "--db", db_path).code == 0
