"""CONFORMANCE.md and tests/conformance/ kept in step.

Every row of the table either names a test that exists, names another row it restates (seed 001
restating seed 000: ``= 000-§4-1``), or says the rule is outside the tool and why; every test
under ``tests/conformance/`` is named by a row; ids are unique. The tests are found as pytest
collects them (one ``--collect-only`` run in a fresh interpreter), so a parametrized test is
named either as a whole or case by case.

``test_no_row_is_still_todo`` fails while a row says ``TODO(...)``: a rule someone is still
bringing in (``TODO(E)``...) or one found missing (``TODO(missing)``). It is meant to fail until
those rows are done; it lists them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from functools import cache

from tests.factories import ROOT

TABLE = ROOT / "CONFORMANCE.md"
FOLDER = "tests/conformance"
ID = re.compile(r"^\d{3}-§[0-9.]+-[A-Za-z0-9]+$")
SEEDS = ("000", "001", "002", "003", "004")


@dataclass(frozen=True)
class Row:
    line: int
    id: str
    section: str
    rule: str
    where: str
    test: str

    @property
    def outside(self) -> bool:
        return self.where.startswith("outside the tool")

    @property
    def alias(self) -> str | None:
        found = re.match(r"^=\s*(\S+)$", self.test)
        return found.group(1) if found else None

    @property
    def node(self) -> str | None:
        found = re.fullmatch(r"`([^`]+)`", self.test)
        return found.group(1) if found else None


@cache
def rows() -> tuple[Row, ...]:
    out = []
    for number, line in enumerate(TABLE.read_text("utf-8").splitlines(), start=1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 5 or not ID.match(cells[0]):
            continue
        out.append(Row(number, *cells))
    return tuple(out)


@cache
def collected() -> frozenset[str]:
    """Every test node id under tests/conformance/, as pytest collects them."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=", "-p",
         "no:cacheprovider", "-n", "0", FOLDER],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    nodes = frozenset(x for x in done.stdout.splitlines() if x.startswith(FOLDER + "/"))
    assert done.returncode == 0 and nodes, done.stdout[-2000:] + done.stderr[-2000:]
    return nodes


def _function(node: str) -> str:
    return node.split("[", 1)[0]


def test_the_table_has_rows_for_every_seed() -> None:
    by_seed = {s: [r for r in rows() if r.id.startswith(s)] for s in SEEDS}
    assert all(by_seed.values()), {s: len(v) for s, v in by_seed.items()}
    for row in rows():
        assert row.section.startswith(row.id[:3]), f"line {row.line}: {row.id} is in {row.section}"
        assert row.rule and row.where, f"line {row.line}: {row.id} says nothing"


def test_ids_are_unique() -> None:
    seen: dict[str, int] = {}
    for row in rows():
        assert row.id not in seen, f"{row.id} on lines {seen[row.id]} and {row.line}"
        seen[row.id] = row.line


def test_every_row_has_a_test_a_restated_row_or_says_why_not() -> None:
    ids = {r.id for r in rows()}
    for row in rows():
        where = f"line {row.line} ({row.id})"
        if row.outside:
            assert row.test == "—", f"{where}: a rule outside the tool has no test"
            assert len(row.where) > len("outside the tool: "), f"{where}: say why"
        elif row.alias is not None:
            assert row.alias in ids, f"{where}: restates {row.alias}, which is no row"
        elif row.test.startswith("TODO("):
            continue  # reported by test_no_row_is_still_todo
        else:
            assert row.node, f"{where}: the test column is not a node id: {row.test!r}"


def test_every_named_test_exists() -> None:
    nodes = collected()
    functions = {_function(n) for n in nodes}
    missing = [
        f"line {r.line} ({r.id}): {r.node}"
        for r in rows()
        if r.node is not None and r.node not in nodes and r.node not in functions
    ]
    assert missing == [], "rows name tests that pytest does not collect:\n" + "\n".join(missing)


def test_every_conformance_test_is_in_the_table() -> None:
    named = {r.node for r in rows() if r.node is not None}
    unnamed = sorted(n for n in collected() if n not in named and _function(n) not in named)
    assert unnamed == [], "tests no row of CONFORMANCE.md names:\n" + "\n".join(unnamed)


def test_no_row_is_still_todo() -> None:
    # Fails until every TODO row is done: the rules colleagues are bringing in (their rows
    # replace these) and the ones found missing. It is not skipped: it shows what remains.
    todo = [f"{r.id} {r.test}: {r.rule}" for r in rows() if "TODO" in r.test]
    assert todo == [], f"{len(todo)} rows still say TODO:\n" + "\n".join(todo)
