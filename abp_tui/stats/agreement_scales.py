"""The scale of an agreement variable and the weights built on it.

A variable's categories are its declared scale (numbers sorted ascending, labels in the order
given, unobserved categories included) or, with no scale, the values observed. Weighted
coefficients give partial credit w_kl to categories k and l; the weights are built either on the
declared scale (``declared``: the category values, or positions 1..q for labels, as irrCAC's
``weights.gen.r``) or on the ranks of the categories actually observed (``observed``: positions
1..m of the m distinct values in the judgments behind a figure, as R irr's ``kappa2``). Nothing
here computes a coefficient; :mod:`abp_tui.stats.agreement` does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

from abp_tui.errors import AbpError

__all__ = [
    "LEVELS",
    "WEIGHTINGS",
    "WEIGHT_BASES",
    "AgreementError",
    "Category",
    "Level",
    "Observation",
    "WeightBasis",
    "Weighting",
    "basis_weights",
    "category_label",
    "coords",
    "declared_categories",
    "is_number",
    "observed_categories",
    "plain",
    "weight_matrix",
]

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: Final[tuple[Level, ...]] = ("nominal", "ordinal", "interval", "ratio")

Weighting = Literal["linear", "quadratic", "ordinal"]
WEIGHTINGS: Final[tuple[Weighting, ...]] = ("linear", "quadratic", "ordinal")
"""The partial-credit weightings of ordered categories (irrCAC's definitions)."""

WeightBasis = Literal["declared", "observed"]
WEIGHT_BASES: Final[tuple[WeightBasis, ...]] = ("declared", "observed")

Category = str | int | float
"""A category of a scale: a label or a number."""
Observation = tuple[str, str, Category | None]
"""(item, reviewer, value): one reviewer's value of one variable for one unit; a value of None is
a missing judgment. (Not :class:`abp_tui.models.Judgment`, a reviewer's whole decision on an
item, from which :mod:`abp_tui.analysis.agreement.input` derives these.)"""

F64 = npt.NDArray[np.float64]


class AgreementError(AbpError):
    """Judgments that break the input contract (a value off the declared scale, a duplicate)."""


def is_number(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating)


def category_label(category: Category) -> str:
    return repr(category) if isinstance(category, str) else str(category)


def declared_categories(
    level: str, scale: Sequence[Category], variable: str
) -> tuple[Category, ...]:
    """The declared scale, checked: numbers sorted ascending, labels in the order given."""
    if level not in LEVELS:
        raise AgreementError(
            f"variable {variable!r}: unknown level {level!r}; expected one of {', '.join(LEVELS)}"
        )
    cats = tuple(scale)
    if not cats:
        raise AgreementError(f"variable {variable!r}: the declared scale is empty")
    numeric = [is_number(c) for c in cats]
    if any(c is None for c in cats) or not all(numeric or isinstance(c, str) for c in cats):
        raise AgreementError(
            f"variable {variable!r}: scale categories must be numbers or labels, got {cats!r}"
        )
    if all(numeric):
        values = [float(c) for c in cats]
        if not all(math.isfinite(v) for v in values):
            raise AgreementError(f"variable {variable!r}: the scale has a non-finite number")
        cats = tuple(sorted((plain(c) for c in cats), key=float))
    elif any(numeric):
        if level != "nominal":
            raise AgreementError(
                f"variable {variable!r}: an {level} scale must be all numbers or all labels"
            )
    elif level in ("interval", "ratio"):
        raise AgreementError(
            f"variable {variable!r}: an {level} scale needs numbers, got labels {cats!r}"
        )
    if len(set(cats)) != len(cats):
        raise AgreementError(f"variable {variable!r}: the declared scale repeats a category")
    return cats


def plain(value: Any) -> Category:
    """A Python int/float/str (numpy scalars converted)."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, bool):
        return int(value)
    return value  # type: ignore[no-any-return]


def observed_categories(values: set[Any], level: str, variable: str) -> tuple[Category, ...]:
    """The categories of a variable with no declared scale: its values, numbers ascending."""
    if all(is_number(v) for v in values):
        return tuple(sorted((plain(v) for v in values), key=float))
    if level != "nominal":
        shown = sorted(repr(v) for v in values if not is_number(v))[:3]
        raise AgreementError(
            f"variable {variable!r}: an {level} variable needs numeric values or a declared "
            f"scale giving the order of its labels; got {', '.join(shown)}"
        )
    return tuple(
        sorted(
            (plain(v) for v in values),
            key=lambda v: (isinstance(v, str), 0.0 if isinstance(v, str) else float(v), str(v)),
        )
    )


def coords(categories: Sequence[Category]) -> F64:
    """Numeric values of the categories (irrCAC: the numbers, or positions 1..q for labels)."""
    if all(is_number(c) for c in categories):
        return np.array([float(c) for c in categories])
    return np.arange(1, len(categories) + 1, dtype=np.float64)


def _weights_on(kind: str, x: F64) -> F64:
    """irrCAC's weights for categories at values ``x`` (ordinal uses their positions only)."""
    q = x.size
    if kind == "identity" or q < 2:
        return np.eye(q)
    if kind == "ordinal":
        pos = np.arange(q, dtype=np.float64)
        gap = np.abs(pos[:, None] - pos[None, :])
        m = (gap + 1) * gap / 2
        ordinal: F64 = 1 - m / m.max()
        return ordinal
    span = float(x.max() - x.min())
    diff = np.abs(x[:, None] - x[None, :]) / span
    if kind == "linear":
        return 1 - diff
    if kind == "quadratic":
        return 1 - diff**2
    raise ValueError(f"unknown weights {kind!r}; expected identity, linear, quadratic or ordinal")


def weight_matrix(kind: str, categories: Sequence[Category]) -> F64:
    """irrCAC's agreement weights on a scale: identity, linear, quadratic or ordinal.

    linear: 1 - |x_k - x_l| / (x_max - x_min); quadratic: 1 - (x_k - x_l)^2 / (x_max - x_min)^2;
    ordinal: 1 - M_kl / max M with M_kl = (|k - l| + 1) |k - l| / 2 on positions; x are the
    category values, or positions 1..q for labels (irrCAC ``weights.gen.r``).
    """
    return _weights_on(kind, coords(categories))


def basis_weights(
    kind: str,
    categories: Sequence[Category],
    basis: WeightBasis,
    observed: npt.NDArray[np.bool_] | None = None,
) -> F64 | None:
    """The q x q weights of ``kind`` on the declared scale or on the observed categories' ranks.

    With ``basis="observed"``, ``observed`` marks the categories present in the judgments
    behind the figure; the m observed categories sit at ranks 1..m and an unobserved category
    gets no weight (it has no judgments, so it enters no sum). None when fewer than two
    categories are observed: ranks need two to span a scale.
    """
    if basis == "declared":
        return weight_matrix(kind, categories)
    if observed is None:
        raise ValueError("observed weights need the observed categories")
    used = np.flatnonzero(observed)
    if used.size < 2:
        return None
    ranks = np.arange(1, used.size + 1, dtype=np.float64)
    out = np.zeros((len(categories), len(categories)))
    out[np.ix_(used, used)] = _weights_on(kind, ranks)
    return out
