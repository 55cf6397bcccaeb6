"""The results of a large judged design with its runs held on disk while they are made and
written (issue #31).

What was found: folded one item at a time, ``results`` still peaked at 142 / 227 / 532 MiB at
20,000 / 100,000 / 400,000 PandaLM-shaped pairs, about 1 MiB for each 1,000 pairs: every run's
id, task, condition, trial and facts were held until written (the output lists every run), with
a record of each run judged by preference alone (its pairs' sources and codes) and the code of
each open item. They are now written to a temporary database of the results' own as they are
read (:mod:`abp_tui.store.result_spill`) and read back in the order the results print them;
what stays for each run is the index of its outcome (its memory a pair:
``tests/test_results_folded.py``).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from abp_tui.cli import main
from abp_tui.models import ResultState
from abp_tui.store.result_spill import ResultSpill
from abp_tui.store.run_order import natural_bytes
from abp_tui.text.natural import natural_key
from tests.factories import judged_study

_NAMES = [
    "",
    "0",
    "00",
    "000",
    "1",
    "01",
    "9",
    "10",
    "010",
    "100",
    "T2",
    "T10",
    "T02",
    "t",
    "T",
    "P1",
    "P01",
    "P1a",
    "P1-2",
    "P1-10",
    "a",
    "a\x00",
    "a\x00b",
    "a\x01",
    "ab",
    "a1b",
    "a01b",
    "a1",
    "é",
    "e\u0301",
    "z",
    "\U0001f600",
    "x99999999999999999999",
    "x100000000000000000000",
    "a-1",
    "a 1",
    "a.1",
    "0/1",
    "0/2",
    "1/1",
    "10/1",
    "2/1",
]


def test_natural_bytes_sort_as_the_natural_key_does() -> None:
    names = list(_NAMES)
    random.Random(3).shuffle(names)
    assert sorted(names, key=natural_bytes) == sorted(names, key=natural_key)
    # Total: different texts never tie.
    assert len({natural_bytes(n) for n in names}) == len(set(names))


def test_the_spill_lists_runs_in_the_order_results_print_them() -> None:
    """Condition (text order), task (natural order), trial, then id (natural order)."""
    rng = random.Random(11)
    rows = []
    for n in range(400):
        task = rng.choice(["T1", "T2", "T10", "t02", "T01", "9", "10"])
        condition = rng.choice(["b", "a", "B", "a2", "a10"])
        trial = rng.choice([0, 1, 2, 10])
        run = f"{rng.choice(['r', 'R', 'r0'])}{n % 37}-{n}"
        state = rng.choice([None, ResultState.INFRA_ERROR])
        facts = (state, None, None, rng.choice([None, 5]), 1.5, None, None)
        rows.append((run, task, condition, trial, facts))
    spill = ResultSpill()
    try:
        spill.add_runs(rows)
        spill.prefer(rows[0][0], 2, 3, "P-B")
        spill.prefer(rows[0][0], 8, 1, "P-A")
        spill.open_item("P-B")
        spill.order()
        expected = sorted(rows, key=lambda r: (r[2], natural_key(r[1]), r[3], natural_key(r[0])))
        found = list(spill.rows())
        assert [r[:5] for r in found] == expected
        bits = {r[0]: r[5] for r in found}
        assert bits[rows[0][0]] == 10 and sum(bits.values()) == 10
        assert spill.preferred(rows[0][0]) == (10, 4, ("P-A", "P-B"))
        assert [c for _i, c, _o in spill.items()] == ["P-A", "P-B"]
        assert [o for _i, _c, o in spill.items()] == [False, True]
        spans = spill.spans()
        assert list(spans) == sorted({r[2] for r in rows})
        assert [found[i][2] for i in spans["a"]] == ["a"] * len(spans["a"])
        assert list(spill.rows(3, 5)) == found[3:5]
    finally:
        spill.close()


def test_a_full_temporary_folder_is_said_in_one_line_and_changes_nothing(
    tmp_path: Path,
    empty_db_template: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The spill's folder filling up is the user's to fix, not a bug (never exit 3)."""
    path = judged_study(tmp_path, empty_db_template, 60)
    before = path.read_bytes()
    made = ResultSpill.__init__

    def small(self: ResultSpill) -> None:
        made(self)
        self._db.execute("PRAGMA max_page_count = 8")  # a disk that fills at once

    monkeypatch.setattr(ResultSpill, "__init__", small)
    code = main(["--db", str(path), "--reviewer", "lead", "results"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "the temporary folder is full" in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert path.read_bytes() == before
