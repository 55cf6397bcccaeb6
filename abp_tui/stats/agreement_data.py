"""The item x reviewer table of one agreement variable, built from its (item, reviewer, value)
judgments: category codes per item and reviewer, counts per item and category, and the count
patterns the bootstrap draws from. Checks the input contract (values on the scale, one judgment
per reviewer and item) and raises AgreementError naming what is wrong; computes no coefficient.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement_scales import (
    LEVELS,
    AgreementError,
    Category,
    Level,
    Observation,
    category_label,
    declared_categories,
    observed_categories,
)

__all__ = ["MAX_CATEGORIES", "Index", "RatingTable", "count_patterns", "generator", "rating_table"]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)

MAX_CATEGORIES: Final = 2000
"""More distinct values than this is continuous data, outside what these coefficients are for."""


@dataclass(frozen=True)
class RatingTable:
    variable: str
    level: Level
    categories: tuple[Category, ...]
    scale_declared: bool
    reviewers: tuple[str, ...]
    """Reviewers with at least one judgment, sorted by name."""
    codes: npt.NDArray[np.int32]
    """(items, reviewers): category index, -1 for a missing judgment."""
    counts: I64
    """(items, categories): judgments of each item in each category."""


class Index:
    """Ids to consecutive integers, shared by the variables of one computation.

    Variables judged together usually list the same ids in the same order; the codes of the
    last list are kept and reused when the next list is equal (a C-level comparison).
    """

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}
        self._last: tuple[list[Any], I64] | None = None

    def encode(self, keys: list[Any]) -> I64:
        if self._last is not None and self._last[0] == keys:
            return self._last[1]
        try:
            codes = np.fromiter(map(self.ids.__getitem__, keys), dtype=np.int64, count=len(keys))
        except KeyError:
            for key in dict.fromkeys(keys):
                self.ids.setdefault(key, len(self.ids))
            codes = np.fromiter(map(self.ids.__getitem__, keys), dtype=np.int64, count=len(keys))
        codes.flags.writeable = False
        self._last = (keys, codes)
        return codes

    def names(self) -> list[Any]:
        return list(self.ids)


def rating_table(
    records: Iterable[Observation],
    level: str,
    scale: Sequence[Category] | None,
    variable: str,
    items_index: Index | None = None,
    reviewers_index: Index | None = None,
) -> RatingTable:
    if level not in LEVELS:
        raise AgreementError(
            f"variable {variable!r}: unknown level {level!r}; expected one of {', '.join(LEVELS)}"
        )
    lvl: Level = level
    rows = records if isinstance(records, list | tuple) else list(records)
    # Column by column through C-level maps: this pass over the judgments is the only loop in
    # Python, and it is most of the cost of a large table.
    try:
        items = list(map(_FIRST, rows))
        reviewers = list(map(_SECOND, rows))
        values = list(map(_THIRD, rows))
    except (TypeError, IndexError, KeyError):
        raise AgreementError(
            f"variable {variable!r}: each judgment must be (item, reviewer, value)"
        ) from None
    if scale is not None:
        categories = declared_categories(lvl, scale, variable)
    else:
        try:
            observed = set(values)
        except TypeError:
            raise AgreementError(
                f"variable {variable!r}: values must be numbers or labels"
            ) from None
        observed.discard(None)
        observed = {v for v in observed if v == v}  # NaN is a missing judgment too
        categories = observed_categories(observed, lvl, variable)
    if len(categories) > MAX_CATEGORIES:
        raise AgreementError(
            f"variable {variable!r}: {len(categories)} distinct values; agreement is computed for "
            f"at most {MAX_CATEGORIES} categories (declare a scale or bin the values)"
        )
    index: dict[Any, int] = {c: k for k, c in enumerate(categories)}
    index[None] = -1
    try:
        cats = np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values))
    except (KeyError, TypeError):
        cats = _codes_slowly(values, index, items, reviewers, categories, variable)

    items_index = items_index or Index()
    reviewers_index = reviewers_index or Index()
    try:
        item_codes = items_index.encode(items)
        rev_codes = reviewers_index.encode(reviewers)
    except TypeError:
        raise AgreementError(
            f"variable {variable!r}: item and reviewer ids must be hashable (strings)"
        ) from None
    if cats.size and cats.min() < 0:
        present = cats >= 0
        item_codes, rev_codes, cats = item_codes[present], rev_codes[present], cats[present]
    item_names = items_index.names()
    return table_of_codes(
        variable,
        lvl,
        categories,
        scale is not None,
        (item_codes, len(items_index.ids), lambda i: f"item {item_names[i]!r}"),
        (rev_codes, reviewers_index.names()),
        cats,
    )


def table_of_codes(
    variable: str,
    level: Level,
    categories: tuple[Category, ...],
    scale_declared: bool,
    items: tuple[I64, int, Callable[[int], str]],
    reviewers: tuple[I64, Sequence[Any]],
    cats: I64,
) -> RatingTable:
    """The item x reviewer table of judgments given as codes, one entry per judgment present:
    ``items`` (each judgment's item code, how many codes there are, and how an item is named
    in an error), ``reviewers`` (each judgment's reviewer code, and the names the codes index)
    and ``cats`` (each judgment's category index). Items and reviewers without a judgment take
    no part; the reviewers are put in name order. Raises AgreementError for a reviewer judging
    an item twice."""
    item_codes, item_count, item_name = items
    rev_codes, all_reviewers = reviewers
    item_codes, used_items = _compact(item_codes, item_count)
    rev_codes, used_revs = _compact(rev_codes, len(all_reviewers))
    names = [str(all_reviewers[i]) for i in used_revs]
    order = sorted(range(len(names)), key=names.__getitem__)
    if order != list(range(len(names))):
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        rev_codes = rank[rev_codes]
    reviewer_names = tuple(names[i] for i in order)
    n, r, v = used_items.size, len(reviewer_names), len(categories)

    codes = np.full((n, r), -1, dtype=np.int32)
    codes[item_codes, rev_codes] = cats
    if int(np.count_nonzero(codes >= 0)) != cats.size:
        cell = item_codes * r + rev_codes
        hits = np.bincount(cell, minlength=n * r)
        dup = int(np.flatnonzero(hits[cell] > 1)[0])
        raise AgreementError(
            f"variable {variable!r}: reviewer {reviewer_names[rev_codes[dup]]!r} judged "
            f"{item_name(int(used_items[item_codes[dup]]))} more than once"
        )
    counts = np.bincount(item_codes * v + cats, minlength=n * v).reshape(n, v)
    return RatingTable(
        variable=variable,
        level=level,
        categories=categories,
        scale_declared=scale_declared,
        reviewers=reviewer_names,
        codes=codes,
        counts=counts,
    )


def _compact(codes: I64, size: int) -> tuple[I64, I64]:
    """Codes renumbered over the values that occur, and which original values those are."""
    seen = np.bincount(codes, minlength=size) > 0
    used = np.flatnonzero(seen)
    if used.size == size:
        return codes, used
    return (np.cumsum(seen) - 1)[codes], used


def _codes_slowly(
    values: Sequence[Any],
    index: Mapping[Any, int],
    items: Sequence[Any],
    reviewers: Sequence[Any],
    categories: Sequence[Category],
    variable: str,
) -> I64:
    """Category indices one by one: NaN counts as missing; any other unknown value is an error."""
    out = np.empty(len(values), dtype=np.int64)
    for pos, value in enumerate(values):
        try:
            out[pos] = index[value]
            continue
        except (KeyError, TypeError):
            pass
        if isinstance(value, float) and value != value:
            out[pos] = -1
            continue
        shown = ", ".join(category_label(c) for c in categories[:12])
        more = ", ..." if len(categories) > 12 else ""
        raise AgreementError(
            f"variable {variable!r}: reviewer {reviewers[pos]!r} gave item {items[pos]!r} the "
            f"value {value!r}, which is not on the scale ({shown}{more})"
        )
    return out


def count_patterns(counts: I64) -> tuple[F64, I64]:
    """The distinct rows of the item x category count matrix and how many items have each.

    Sorted, so the result does not depend on the order of the items.
    """
    if counts.shape[0] == 0:
        return np.zeros((0, counts.shape[1])), np.zeros(0, dtype=np.int64)
    base = int(counts.max()) + 1
    if counts.shape[1] * math.log2(max(base, 2)) < 62:
        code = counts @ (base ** np.arange(counts.shape[1], dtype=np.int64))
        _, first, freq = np.unique(code, return_index=True, return_counts=True)
        return counts[first].astype(np.float64), freq.astype(np.int64)
    rows, freq = np.unique(counts, axis=0, return_counts=True)
    return rows.astype(np.float64), freq.astype(np.int64)


def generator(seed: int, *names: str) -> np.random.Generator:
    """A generator for one variable (or pair): independent of the order they are computed in."""
    words = [seed % 2**64, *(zlib.crc32(name.encode("utf-8")) for name in names)]
    return np.random.default_rng(np.random.SeedSequence(words))
