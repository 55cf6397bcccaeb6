"""Sequences whose elements are made when read, never all held: a large study's rows (hundreds
of thousands of runs, cells, verdicts) are each made from what the analysis holds anyway as a
file or a page asks for it, with the same values a list of them would give."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

_T = TypeVar("_T")


class MadeWhenRead(Sequence[_T]):
    """A sequence of :meth:`_at`'s elements, index by index (negative indices and slices as a
    list takes them; a slice is a list of the elements made), equal to any sequence of equal
    elements in the same order. A subclass gives :meth:`__len__` and :meth:`_at`, and may give
    a faster :meth:`__iter__`."""

    def _at(self, index: int) -> _T:
        """The element at ``index`` (from 0 to ``len(self) - 1``), made now."""
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> _T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[_T]: ...

    def __getitem__(self, index: int | slice) -> _T | Sequence[_T]:
        if isinstance(index, slice):
            return [self._at(i) for i in range(len(self))[index]]
        return self._at(range(len(self))[index])  # IndexError out of range, as a list's

    def __iter__(self) -> Iterator[_T]:
        return map(self._at, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]
