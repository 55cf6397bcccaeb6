"""The sequences whose elements are made when read (a large study's rows) behave as the list of
their elements does: indices, negative indices, slices, iteration, equality, IndexError."""

from __future__ import annotations

import pytest

from abp_tui.analysis.made_when_read import MadeWhenRead


class _Squares(MadeWhenRead[int]):
    def __init__(self, n: int) -> None:
        self.n = n
        self.made = 0

    def __len__(self) -> int:
        return self.n

    def _at(self, index: int) -> int:
        self.made += 1
        return index * index


def test_made_when_read_reads_as_the_list_of_its_elements() -> None:
    rows, listed = _Squares(6), [0, 1, 4, 9, 16, 25]
    assert rows.made == 0  # nothing made before it is read
    assert list(rows) == listed and rows == listed and listed == rows
    assert rows[-1] == 25 and rows[2] == 4 and rows[1:4] == [1, 4, 9] and rows[::-2] == [25, 9, 1]
    assert rows != [0, 1, 4] and rows != [*listed[:-1], 36] and rows != "abc"
    assert 16 in rows and rows.index(9) == 3 and rows.count(4) == 1
    for bad in (6, -7):
        with pytest.raises(IndexError):
            rows[bad]
    with pytest.raises(TypeError):
        hash(rows)
    assert _Squares(0) == [] and not list(_Squares(0))
