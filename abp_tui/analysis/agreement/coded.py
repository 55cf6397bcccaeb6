"""What agreement is measured on, folded into integer columns: a large design's observations.

:class:`CodedFold` is :class:`~abp_tui.analysis.agreement.input.AgreementFold` (the same
variables, the same observations, from the same code) holding each observation as three small
integers (unit, reviewer, category index) in typed arrays, 14 bytes, rather than a tuple
of strings (about 130 with its unit's name): the agreement figures depend on a unit only through
which observations share it (:mod:`abp_tui.stats.agreement_coded`), so a unit's name is never
kept. A run's unit is numbered per variable as first met; an item's preference unit is the item's
place in the plan (:attr:`Item.index`), which the imported labels are mapped onto.

Per observation rather than folded into counts: the multi-reviewer figures' bootstrap draws
items through each item's count pattern, and every pair of reviewers needs its own confusion
matrix, both built from these columns when the variable is computed (a variable's item x
reviewer table, one small row per unit, for that moment only).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from abp_tui.analysis.agreement.input import PREFERENCE_SCALE, AgreementFold
from abp_tui.models import Item, Rubric
from abp_tui.stats.agreement import AgreementError, Category, category_label, declared_categories
from abp_tui.stats.agreement_coded import CodedVariable


@dataclass
class _Columns:
    """One variable's observations as columns, and its declared scale."""

    level: str
    categories: tuple[Category, ...]
    """As :func:`~abp_tui.stats.agreement.declared_categories` orders the declared scale."""
    index: dict[object, int]
    """Category -> its index."""
    unit: array[int] = field(default_factory=lambda: array("q"))
    reviewer: array[int] = field(default_factory=lambda: array("h"))
    value: array[int] = field(default_factory=lambda: array("i"))
    units: int = 0
    """Run units numbered so far."""
    offender: tuple[str, str, object] | None = None
    """The first observation off the declared scale: (unit, reviewer, value)."""


def _columns(name: str, level: str, scale: tuple[Category, ...]) -> _Columns:
    categories = declared_categories(level, scale, name)
    return _Columns(level, categories, {c: k for k, c in enumerate(categories)})


class CodedFold(AgreementFold):
    """:class:`AgreementFold` into integer columns (module notes). Each item's preference unit
    is its :attr:`Item.index`: the caller's items must number their places uniquely."""

    def __init__(self, rubric: Rubric) -> None:
        super().__init__(rubric)
        self.reviewers: dict[str, int] = {}
        """Reviewer names -> their codes, as first met."""
        self.columns = {
            name: _columns(name, level, self.scales[name]) for name, level in self.levels.items()
        }
        self._index = 0
        self._slots: dict[tuple[str, str], int] = {}

    def _new_variable(self, name: str, scale: tuple[Category, ...]) -> None:
        self.columns[name] = _columns(name, "nominal", scale)

    def _begin(self, item: Item) -> None:
        super()._begin(item)
        self._index = item.index
        self._slots.clear()

    def _put(self, name: str, at: str | None, reviewer: str, value: Category | None) -> None:
        columns = self.columns.get(name)
        if columns is None:  # the preference, first met
            columns = self.columns[name] = _columns(name, "nominal", PREFERENCE_SCALE)
        if value is None:
            return  # a missing judgment: no observation
        try:
            code = columns.index[value]
        except (KeyError, TypeError):
            if columns.offender is None and not (isinstance(value, float) and value != value):
                unit = self._code if at is None else f"{self._code}:{at}"
                columns.offender = (unit, reviewer, value)
            return  # NaN is a missing judgment too
        if at is None:
            unit_no = self._index
        else:
            slot = (name, at)
            found = self._slots.get(slot)
            if found is None:
                found = self._slots[slot] = columns.units
                columns.units += 1
            unit_no = found
        columns.unit.append(unit_no)
        columns.reviewer.append(self.reviewers.setdefault(reviewer, len(self.reviewers)))
        columns.value.append(code)

    def names(self) -> list[str]:
        """The variables in the records' order (:meth:`AgreementFold.result`): the rubric's,
        then each fatal criterion as first met, then the preference when the design has pairs."""
        names = [*self.levels, *(f"fatal:{c}" for c in self.criteria)]
        return [*names, "preference"] if self.pairs else names

    def variable(self, name: str) -> CodedVariable:
        """One variable's columns; raises AgreementError for a value off its declared scale
        (naming the first, as the records' table does)."""
        columns = self.columns.get(name) or _columns(name, "nominal", PREFERENCE_SCALE)
        categories = columns.categories
        if columns.offender is not None:
            unit, reviewer, value = columns.offender
            shown = ", ".join(category_label(c) for c in categories[:12])
            more = ", ..." if len(categories) > 12 else ""
            raise AgreementError(
                f"variable {name!r}: reviewer {reviewer!r} gave item {unit!r} the value "
                f"{value!r}, which is not on the scale ({shown}{more})"
            )
        return CodedVariable(
            variable=name,
            level=columns.level,
            categories=categories,
            reviewers=tuple(self.reviewers),
            unit=np.frombuffer(columns.unit, dtype=np.int64),
            reviewer=np.frombuffer(columns.reviewer, dtype=np.int16).astype(np.int64),
            value=np.frombuffer(columns.value, dtype=np.int32).astype(np.int64),
        )

    def variables(self) -> Iterator[CodedVariable]:
        """Each variable's columns in the records' order, one at a time."""
        for name in self.names():
            yield self.variable(name)
