"""Published agreement datasets and record builders shared by the agreement tests (each dataset
names its source where it is defined in the tests that check it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from abp_tui.stats.agreement import (
    LEVELS,
    Category,
    Level,
    Observation,
)

NA = None


def records_from_columns(columns: Mapping[str, Sequence[Category | None]]) -> list[Observation]:
    """(item, reviewer, value) records from one column of values per reviewer (None = missing)."""
    return [
        (f"unit{i + 1:02d}", reviewer, value)
        for reviewer, values in columns.items()
        for i, value in enumerate(values)
    ]


def records_from_distribution(
    rows: Sequence[Sequence[int]], labels: Sequence[Category]
) -> list[Observation]:
    """Records from a subjects x categories table of rater counts (reviewer names arbitrary)."""
    out: list[Observation] = []
    for i, row in enumerate(rows):
        slot = 0
        for label, count in zip(labels, row, strict=True):
            for _ in range(count):
                out.append((f"s{i + 1:02d}", f"rater{slot + 1}", label))
                slot += 1
    return out


def records_from_table(
    table: Sequence[Sequence[int]], labels: Sequence[Category]
) -> list[Observation]:
    """Two reviewers' records from a contingency table (rows: reviewer A, columns: reviewer B)."""
    out: list[Observation] = []
    item = 0
    for a, row in zip(labels, table, strict=True):
        for b, count in zip(labels, row, strict=True):
            for _ in range(count):
                item += 1
                out += [(f"i{item:03d}", "A", a), (f"i{item:03d}", "B", b)]
    return out


RAW_4RATERS = {
    "Rater1": [1, 2, 3, 3, 2, 1, 4, 1, 2, NA, NA, NA],
    "Rater2": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NA, NA],
    "Rater3": [NA, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    "Rater4": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NA],
}


DISTRIB_6RATERS = [
    [0, 0, 0, 6, 0],
    [0, 3, 0, 0, 3],
    [0, 1, 4, 0, 1],
    [0, 0, 0, 0, 6],
    [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0],
    [0, 0, 4, 0, 2],
    [2, 0, 3, 1, 0],
    [2, 0, 0, 4, 0],
    [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0],
    [1, 1, 0, 4, 0],
    [0, 3, 3, 0, 0],
    [1, 0, 0, 5, 0],
    [0, 2, 0, 3, 1],
]


DIAGNOSES = ("Depression", "Personality Disorder", "Schizophrenia", "Neurosis", "Other")


ABSTRACTORS = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]


ANXIETY = np.array(
    [
        [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3],
        [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4],
        [2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2],
    ]
).T


def _counts(matrix: np.ndarray, q: int) -> np.ndarray:
    """items x categories counts from an items x reviewers matrix of codes (-1 = missing)."""
    return np.array([[int(np.sum(row == k)) for k in range(q)] for row in matrix])


@st.composite
def rating_tables(draw: st.DrawFn) -> tuple[np.ndarray, tuple[int, ...], Level]:
    """A random items x reviewers matrix of category codes (-1 = missing), a scale and a level."""
    n_items = draw(st.integers(2, 25))
    n_reviewers = draw(st.integers(2, 5))
    q = draw(st.integers(2, 5))
    level = draw(st.sampled_from(LEVELS))
    start = draw(st.integers(0, 3))
    step = draw(st.integers(1, 3))
    scale = tuple(start + step * k for k in range(q))
    cells = draw(
        st.lists(
            st.integers(-1, q - 1), min_size=n_items * n_reviewers, max_size=n_items * n_reviewers
        )
    )
    return np.array(cells).reshape(n_items, n_reviewers), scale, level


def to_records(matrix: np.ndarray, scale: Sequence[Category]) -> list[Observation]:
    return [
        (f"item{i}", f"rev{j}", scale[int(code)])
        for i, row in enumerate(matrix)
        for j, code in enumerate(row)
        if code >= 0
    ]


PROPERTY_SETTINGS = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
