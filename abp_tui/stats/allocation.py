"""Active allocation of a human budget (Zrnic and Candès 2024, "Active Statistical Inference",
ICML): which items people judge, each drawn with a probability that grows with the AI judge's
uncertainty on it, never below a floor, so that the expected number drawn equals the budget.

The rule (:func:`allocation_probabilities`), for N items with uncertainties u_i >= 0, a budget
B (0 < B, at most N) and a floor f (0 < f <= 1, f N <= B):

    pi_i = min(1, max(f, c u_i)),

with c >= 0 the one constant that makes sum(pi) = B (found by bisection: sum(pi) is continuous
and non-decreasing in c). When even c -> infinity leaves the sum below B (too few uncertain
items: every one of them at 1 and the rest at the floor), the uncertain items stay at 1 and the
others share what is left equally, (B - #{u_i > 0}) / #{u_i = 0}. Either way pi is
non-decreasing in u, at least f, at most 1, and sums to B; with every u_i equal it is the
uniform B / N.

The draw (:func:`draw`) is one independent Bernoulli trial per item, xi_i = [U_i < pi_i] with
U_i uniform from NumPy's ``default_rng(seed)``: the same seed and probabilities give the same
draw, and the inverse-probability-weighted estimate
(:func:`abp_tui.stats.ppi_units.estimate_from_units` with ``probability``) is unbiased whatever
the judge's quality because every pi_i > 0 is known. Pure: arrays in, arrays out.
"""

from __future__ import annotations

import math
from typing import Final

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

DEFAULT_FLOOR: Final = 0.05
"""The floor probability of a design that sets a human budget and no ``allocation_floor``."""
SOURCE: Final = (
    "Zrnic & Candès (2024), Active Statistical Inference, ICML: probabilities growing with the "
    "judge's uncertainty, floored, scaled to the budget; independent Bernoulli draws"
)
_TOLERANCE: Final = 1e-12


def budget_items(budget: float | str, n_items: int) -> float:
    """A budget as an expected number of items: a count (``200``, ``"200"``) or a share of the
    items (``"25%"``); capped at ``n_items``."""
    if isinstance(budget, str):
        text = budget.strip()
        if text.endswith("%"):
            share = float(text[:-1]) / 100
            if not 0 < share <= 1:
                raise ValueError(f"a budget share is in (0%, 100%], got {budget!r}")
            return share * n_items
        budget = float(text)
    if not math.isfinite(budget) or budget <= 0:
        raise ValueError(f"a budget is a positive number of items or a share, got {budget!r}")
    return float(min(budget, n_items))


def allocation_probabilities(uncertainty: F64, budget: float, floor: float) -> F64:
    """Each item's probability of going to people (the module's rule): ``uncertainty`` per item
    (>= 0, finite), ``budget`` the expected number drawn (at most the number of items),
    ``floor`` the least probability. Raises ValueError on values the rule cannot meet."""
    u = np.asarray(uncertainty, dtype=np.float64)
    n = u.size
    if n == 0:
        return np.zeros(0)
    if not np.all(np.isfinite(u)) or np.any(u < 0):
        raise ValueError("uncertainties must be finite and not negative")
    if not 0 < floor <= 1:
        raise ValueError(f"the floor must be in (0, 1], got {floor}")
    if not 0 < budget <= n + _TOLERANCE:
        raise ValueError(f"the budget must be in (0, {n}] items, got {budget}")
    budget = min(float(budget), float(n))
    if floor * n > budget + 1e-9:
        raise ValueError(
            f"a floor of {floor:g} over {n} items draws {floor * n:g} on average, more than "
            f"the budget of {budget:g}: lower the floor or raise the budget"
        )
    positive = u > 0
    ceiling = float(np.count_nonzero(positive)) + floor * float(n - np.count_nonzero(positive))
    if ceiling <= budget:  # every uncertain item at 1; the others share the rest
        pi = np.ones(n)
        rest = n - int(np.count_nonzero(positive))
        if rest:
            pi[~positive] = (budget - (n - rest)) / rest
        return np.clip(pi, floor, 1.0)

    def total(c: float) -> float:
        return float(np.minimum(1.0, np.maximum(floor, c * u)).sum())

    low, high = 0.0, 1.0
    while total(high) < budget:
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2
        if total(mid) < budget:
            low = mid
        else:
            high = mid
        if high - low <= _TOLERANCE * high:
            break
    return np.asarray(np.minimum(1.0, np.maximum(floor, high * u)), dtype=np.float64)


def draw(probability: F64, seed: int) -> Bools:
    """One independent Bernoulli draw per item: True where the item goes to people (NumPy
    ``default_rng`` seeded by ``seed`` as an unsigned 64-bit number)."""
    pi = np.asarray(probability, dtype=np.float64)
    rng = np.random.default_rng(seed % 2**64)
    return np.asarray(rng.random(pi.size) < pi, dtype=np.bool_)


def inclusion(probabilities: F64) -> float:
    """The probability that at least one of several independent draws succeeds: how likely a
    unit judged in any of several items (a run in two pairs) is to reach people."""
    pi = np.asarray(probabilities, dtype=np.float64)
    return float(1.0 - np.prod(1.0 - pi))


__all__ = [
    "DEFAULT_FLOOR",
    "SOURCE",
    "allocation_probabilities",
    "budget_items",
    "draw",
    "inclusion",
]
