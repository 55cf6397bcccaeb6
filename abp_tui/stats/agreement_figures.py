"""One agreement figure built from its point value and resamples: the bootstrap interval (or why
it is refused), a kappa's large-sample standard error, and the check of a computation's settings
that every entry point shares."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement_coefficients import _BOOT_METHOD, LARGE_SAMPLE_METHOD, Coefficient
from abp_tui.stats.agreement_kernels import (
    EPS,
    MIN_USABLE_SHARE,
    kappa_standard_errors,
    percentile_bounds,
)
from abp_tui.stats.agreement_models import (
    REFUSED,
    Figure,
    Interval,
    LargeSample,
)
from abp_tui.stats.agreement_scales import (
    WEIGHT_BASES,
    WeightBasis,
)
from abp_tui.stats.resampling import check_resamples

F64 = npt.NDArray[np.float64]

# ----------------------------------------------------------------------------------------------
# Building figures


def _interval(
    samples: F64, resamples: int, seed: int, what: str, confidence: float
) -> tuple[Interval | None, str | None]:
    """The percentile interval of the finite samples, or why it is refused (module notes)."""
    low, high, used = percentile_bounds(samples, confidence)
    return bootstrap_interval(low, high, used, resamples, seed, what, confidence)


def bootstrap_interval(
    low: float, high: float, used: int, resamples: int, seed: int, what: str, confidence: float
) -> tuple[Interval | None, str | None]:
    """The interval of percentile bounds already read from ``used`` finite resamples, or why it
    is refused (module notes): one rule for the single figures and the batch of pair tables."""
    if used < MIN_USABLE_SHARE * resamples:
        return None, (
            f"{REFUSED}usable in {used} of {resamples} resamples ({MIN_USABLE_SHARE:.0%} needed)"
        )
    if high - low <= EPS * max(1.0, abs(low), abs(high)):
        return None, (
            f"{REFUSED}the bootstrap bounds coincide at {low:.6g} (the resamples do not vary, "
            "as with perfect agreement); a zero-width interval is no measure of precision"
        )
    return (
        Interval(
            low=low,
            high=high,
            confidence=confidence,
            method=_BOOT_METHOD.format(what=what),
            resamples=resamples,
            resamples_used=used,
            seed=seed,
        ),
        None,
    )


@dataclass(frozen=True)
class _Base:
    """Denominators and bootstrap settings shared by the figures of one computation."""

    n_items: int
    n_reviewers: int
    n_judgments: int
    resamples: int
    seed: int
    confidence: float
    what: str
    n_items_chance: int | None = None
    not_requested: str = "bootstrap not requested (resamples = 0)"
    """The interval note when ``resamples`` is 0: which setting would give an interval."""


_PAIR_NOT_REQUESTED: Final = (
    "no bootstrap of the reviewer pairs: pair_resamples = 0 (--pair-resamples N draws N "
    "resamples for each pair)"
)


def _figure(
    base: _Base,
    coefficient: Coefficient,
    point: float,
    samples: F64 | None,
    reason: str | None,
    *,
    name: str | None = None,
    definition: str | None = None,
    source: str | None = None,
    weights: str | None = None,
    weight_basis: WeightBasis | None = None,
    pa: float | None = None,
    pe: float | None = None,
    boot_note: str | None = None,
    large_sample: tuple[LargeSample | None, str | None] = (None, None),
    bounds: tuple[float, float, int] | None = None,
) -> Figure:
    """The figure of ``coefficient``; ``name``, ``definition`` and ``source`` default to the
    declaration's label, formula and source. ``bounds``: the percentile bounds of ``samples``
    already read (:func:`bootstrap_interval`), when a batch reads many at once."""
    common: dict[str, Any] = {
        "name": name or coefficient.label,
        "definition": definition or coefficient.formula,
        "source": source or coefficient.source,
        "weights": weights,
        "weight_basis": weight_basis,
        "n_items": base.n_items,
        "n_items_chance": base.n_items_chance,
        "n_reviewers": base.n_reviewers,
        "n_judgments": base.n_judgments,
    }
    if reason is None and not math.isfinite(point):
        reason = "not a finite number for these data"
    if reason is not None:
        return Figure(undefined_reason=reason, **common)
    interval: Interval | None = None
    note: str | None = boot_note or base.not_requested
    if bounds is not None and boot_note is None and base.resamples:
        interval, note = bootstrap_interval(
            *bounds, base.resamples, base.seed, base.what, base.confidence
        )
    elif samples is not None and boot_note is None and base.resamples:
        interval, note = _interval(samples, base.resamples, base.seed, base.what, base.confidence)
    return Figure(
        value=point,
        interval=interval,
        interval_note=note,
        large_sample=large_sample[0],
        large_sample_note=large_sample[1],
        observed_agreement=pa if pa is not None and math.isfinite(pa) else None,
        chance_agreement=pe if pe is not None and math.isfinite(pe) else None,
        **common,
    )


def _large_sample(cells: F64, w: F64, confidence: float) -> tuple[LargeSample | None, str | None]:
    """A kappa's standard errors and interval from its confusion matrix (occupied categories)."""
    kappa, _po, _pe, se, se0 = kappa_standard_errors(cells, w)
    if not math.isfinite(se):
        return None, "the large-sample variance is not positive for this table"
    quantile = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    low = high = note = None
    if se > 0:
        low, high = kappa - quantile * se, kappa + quantile * se
    else:
        note = (
            f"{REFUSED}the large-sample standard error is 0 (as when the reviewers agree on "
            "every item, or one gives the same category throughout); a zero-width interval is "
            "no measure of precision"
        )
    z = p = None
    if math.isfinite(se0):
        z = kappa / se0
        p = math.erfc(abs(z) / math.sqrt(2))
    return (
        LargeSample(
            standard_error=se,
            low=low,
            high=high,
            interval_note=note,
            confidence=confidence,
            quantile=quantile,
            standard_error_null=se0 if math.isfinite(se0) else None,
            z=z,
            p_value=p,
            method=LARGE_SAMPLE_METHOD.format(quantile=quantile, level=f"{confidence * 100:.10g}%"),
        ),
        None,
    )


def check_settings(
    seed: int, resamples: int, pair_resamples: int, confidence: float, weight_basis: str
) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    check_resamples(resamples, "resamples")
    check_resamples(pair_resamples, "pair_resamples")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    if weight_basis not in WEIGHT_BASES:
        raise ValueError(
            f"weight_basis must be one of {', '.join(WEIGHT_BASES)}, got {weight_basis!r}"
        )
