"""SQL for a large design's runs while its results are made and written: held on disk, not in
memory.

The results list every run in scope (its outcome, its row by task) and each run judged by
preference alone has a verdict made of its pairs' final-preference sources and the codes of its
items. :class:`ResultSpill` holds them in a private temporary database of its own (deleted when
it is closed or let go; the study's database is only read): the runs as they are read, then in
the order results list them (:meth:`ResultSpill.order`: condition, task in natural order,
trial, then id in natural order, the order of :func:`abp_tui.text.natural.natural_key`), each
preference-only run's pairs as the items are folded, and the codes of the items whose
disagreement is open. What is held in memory is SQLite's page cache, whatever the study's size.
Nothing here decides what a figure counts.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any, Final

from abp_tui.errors import StoreError
from abp_tui.models import ResultState
from abp_tui.store.run_order import natural_bytes

_BATCH: Final = 4096
"""Rows written at once: what is buffered in memory before a write."""

SpilledRun = tuple[str, str, str, int, tuple[Any, ...], int]
"""A run as results list it: id, task id, condition id, trial, its other facts (as
:data:`abp_tui.store.result_items.RunRow` has them) and the sources of its pairs' final
preferences (the bits :meth:`ResultSpill.prefer` was given, or'ed; 0 when none)."""


_SCHEMA: Final = """
CREATE TABLE read (id, task, condition, trial, origin, automated, excluded, tokens, wall, cost,
    diff);
CREATE TABLE preferred (run, bit, judgments, item);
CREATE TABLE open_items (code);
CREATE TABLE listed (code, list);
CREATE TABLE wins (pair, finished, place, won);
"""
# No column has a declared type: every value reads back as the type it was written.

_COLUMNS: Final = (
    "id, task, condition, trial, origin, automated, excluded, tokens, wall, cost, diff"
)


class ResultSpill:
    """A design's runs and preference-only verdicts' parts, on disk (see the module
    docstring). Written first (:meth:`add_runs`, :meth:`prefer`, :meth:`open_item`), then
    :meth:`order`'ed once, then read; the run at index ``i`` is the ``i``-th results list."""

    def __init__(self) -> None:
        # "": a private temporary database on disk, deleted when the connection closes.
        self._db = sqlite3.connect("", check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.create_function("natural_order", 1, natural_bytes, deterministic=True)
        self._db.executescript(_SCHEMA)
        self._preferred: list[tuple[str, int, int, str]] = []
        self._open: list[tuple[str]] = []
        self._listed: list[tuple[str, int]] = []
        self._wins: list[tuple[int, str, int, str | None]] = []
        self._count = 0
        self._spans: dict[str, range] = {}

    def close(self) -> None:
        self._db.close()

    def _write(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        with _written():
            self._db.execute("BEGIN")
            self._db.executemany(sql, rows)
            self._db.execute("COMMIT")

    def add_runs(self, rows: Iterable[tuple[str, str, str, int, tuple[Any, ...]]]) -> None:
        """Runs (id, task, condition, trial, other facts) in any order."""
        self._write(
            f"INSERT INTO read ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (run, task, condition, trial, _state(facts[0]), *facts[1:])
                for run, task, condition, trial, facts in rows
            ),
        )

    def prefer(self, run: str, bit: int, judgments: int, item: str) -> None:
        """One pair's final preference, for one of its runs judged by preference: its source
        (as a bit), its reviewers' judgments, its item's code."""
        self._preferred.append((run, bit, judgments, item))
        if len(self._preferred) >= _BATCH:
            self._flush()

    def open_item(self, code: str) -> None:
        """An item whose reviewers disagree and nobody adjudicated."""
        self._open.append((code,))
        if len(self._open) >= _BATCH:
            self._flush()

    def list_item(self, code: str, listed: int) -> None:
        """An item listed (once, however often it is given) in the list numbered ``listed``."""
        self._listed.append((code, listed))
        if len(self._listed) >= _BATCH:
            self._flush()

    def win(self, pair: int, finished: str, place: int, won: str | None) -> None:
        """A final preference of the pair of conditions numbered ``pair``: when it became
        final, its item's place in the plan, the condition preferred (None for a tie)."""
        self._wins.append((pair, finished, place, won))
        if len(self._wins) >= _BATCH:
            self._flush()

    def wins(self, pair: int) -> Iterator[tuple[str, int, str | None]]:
        """The final preferences of the pair numbered ``pair``, in the order they were given."""
        self._flush()
        for finished, place, won in self._db.execute(
            "SELECT finished, place, won FROM wins WHERE pair = ? ORDER BY rowid", [pair]
        ):
            yield str(finished), int(place), None if won is None else str(won)

    def has_wins(self, pair: int) -> bool:
        self._flush()
        found = self._db.execute("SELECT 1 FROM wins WHERE pair = ? LIMIT 1", [pair])
        return found.fetchone() is not None

    def _flush(self) -> None:
        self._write("INSERT INTO preferred VALUES (?, ?, ?, ?)", self._preferred)
        self._write("INSERT INTO open_items VALUES (?)", self._open)
        self._write("INSERT INTO listed VALUES (?, ?)", self._listed)
        self._write("INSERT INTO wins VALUES (?, ?, ?, ?)", self._wins)
        self._preferred, self._open, self._listed, self._wins = [], [], [], []

    def listed(self) -> Iterator[tuple[str, int]]:
        """Every item listed and the list it is in: by code, each code's lists together."""
        self._flush()
        for code, listed in self._db.execute(
            "SELECT DISTINCT code, list FROM listed ORDER BY code, list"
        ):
            yield str(code), int(listed)

    def order(self) -> None:
        """The runs in the order results list them (once every run and pair is written)."""
        self._flush()
        with _written():
            self._db.executescript(
                f"""
                BEGIN;
                CREATE INDEX preferred_run ON preferred (run, item);
                CREATE TABLE runs (rank INTEGER PRIMARY KEY, {_COLUMNS}, bits);
                INSERT INTO runs ({_COLUMNS}, bits) SELECT {_COLUMNS}, (SELECT SUM(DISTINCT p.bit)
                    FROM preferred p WHERE p.run = read.id) FROM read
                    ORDER BY condition, natural_order(task), trial, natural_order(id);
                DROP TABLE read;
                CREATE INDEX open_code ON open_items (code);
                CREATE INDEX wins_pair ON wins (pair);
                COMMIT;
                """
            )
        self._count = int(self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
        rows = self._db.execute(
            "SELECT condition, MIN(rank) - 1, MAX(rank) FROM runs GROUP BY condition "
            "ORDER BY MIN(rank)"
        )
        self._spans = {str(c): range(int(lo), int(hi)) for c, lo, hi in rows}

    def __len__(self) -> int:
        return self._count

    def spans(self) -> dict[str, range]:
        """Each condition's runs (results list them condition by condition)."""
        return dict(self._spans)

    def cells(self) -> Iterator[int]:
        """Where each condition and task's runs start, in order."""
        found = self._db.execute(
            "SELECT MIN(rank) - 1 FROM runs GROUP BY condition, task ORDER BY MIN(rank)"
        )
        for (start,) in found:
            yield int(start)

    def rows(self, start: int = 0, stop: int | None = None) -> Iterator[SpilledRun]:
        """The runs from index ``start`` to ``stop`` (excluded), in order."""
        stop = self._count if stop is None else stop
        found = self._db.execute(
            f"SELECT {_COLUMNS}, bits FROM runs WHERE rank > ? AND rank <= ? ORDER BY rank",
            [start, stop],
        )
        return map(_spilled, found)

    def recorded(self) -> Iterator[SpilledRun]:
        """The runs whose record carries a state, in order."""
        found = self._db.execute(
            f"SELECT {_COLUMNS}, bits FROM runs WHERE origin IS NOT NULL ORDER BY rank"
        )
        return map(_spilled, found)

    def measured(self, start: int, stop: int) -> tuple[int, ...]:
        """Of the runs from ``start`` to ``stop``, how many have a total tokens, a wall
        clock, a cost and a diff size."""
        found = self._db.execute(
            "SELECT COUNT(tokens), COUNT(wall), COUNT(cost), COUNT(diff) FROM runs "
            "WHERE rank > ? AND rank <= ?",
            [start, stop],
        ).fetchone()
        return tuple(int(n) for n in found)

    def items(self, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, str, bool]]:
        """The items of the preference-only runs from ``start`` to ``stop``: (run index, item
        code, whether its disagreement is open), by run, then code."""
        stop = self._count if stop is None else stop
        found = self._db.execute(
            "SELECT r.rank - 1, p.item, EXISTS (SELECT 1 FROM open_items o WHERE o.code = p.item) "
            "FROM runs r JOIN preferred p ON p.run = r.id WHERE r.rank > ? AND r.rank <= ? "
            "ORDER BY r.rank, p.item",
            [start, stop],
        )
        for index, code, is_open in found:
            yield int(index), str(code), bool(is_open)

    def firsts(self, start: int, stop: int) -> Iterator[tuple[str, int, int]]:
        """Of the runs from ``start`` to ``stop``, each task and trial's first by id (text
        order): (task, trial, its index)."""
        found = self._db.execute(
            "SELECT task, trial, MIN(id), rank - 1 FROM runs WHERE rank > ? AND rank <= ? "
            "GROUP BY task, trial",
            [start, stop],
        )
        for task, trial, _first, index in found:
            yield str(task), int(trial), int(index)

    def preferred(self, run: str) -> tuple[int, int, tuple[str, ...]]:
        """A run's pairs: their sources (or'ed bits), their reviewers' judgments and their
        codes, sorted."""
        found = self._db.execute(
            "SELECT bit, judgments, item FROM preferred WHERE run = ? ORDER BY item", [run]
        ).fetchall()
        bits = 0
        for bit, _judgments, _item in found:
            bits |= int(bit)
        return bits, sum(int(j) for _b, j, _i in found), tuple(str(i) for *_, i in found)

    def is_open(self, code: str) -> bool:
        found = self._db.execute("SELECT 1 FROM open_items WHERE code = ? LIMIT 1", [code])
        return found.fetchone() is not None


def _spilled(r: Any) -> SpilledRun:
    origin = None if r[4] is None else ResultState(r[4])
    return r[0], r[1], r[2], r[3], (origin, *r[5:11]), r[11] or 0


def _state(state: ResultState | None) -> str | None:
    return None if state is None else ResultState(state).value


@contextlib.contextmanager
def _written() -> Iterator[None]:
    """A write to the spill: its folder full is said in one line (the study's database is
    not written, so nothing in it changed); any other error is let through."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_FULL:
            raise
        raise StoreError(
            "the temporary folder is full: results write a large design's runs there while "
            "they are made (SQLite's temporary folder: SQLITE_TMPDIR or TMPDIR names another); "
            "free some space there and run it again (nothing was changed)"
        ) from None


__all__ = ["ResultSpill", "SpilledRun"]
