"""Judge-assisted figures of a design with a human budget (active allocation, Zrnic and Candès
2024): the units the seeded draw sent to people, each weighted by the inverse of its known
probability, correct the judge over every unit it judged
(:func:`abp_tui.stats.ppi_units.estimate_from_units` with probabilities). The interval is valid
whatever the judge's quality, because every unit had a known positive probability of reaching
people, however the probabilities were chosen.

Each figure reports three estimates side by side:

- **active** (the one to publish): inverse-probability weighted, the judge's weight lam tuned
  as the paper's power tuning (PPI++), clipped to [0, 1];
- **people only**: Horvitz-Thompson, lam = 0: the drawn units' human values weighted by
  1 / pi, the judge unused;
- **uniform sample**: what prediction-powered inference would say taking the drawn units as a
  simple random sample (the estimate a design with a uniform sample gets). Under active
  allocation the drawn units are not one (the uncertain ones are over-represented), so this
  figure is shown for comparison only, never as the result.

The **human judgments saved** are the active estimate's effective number of labels,
var(y) / se^2 (the human judgments of a uniform sample alone giving its precision), minus the
human judgments it used. Pure.
"""

from __future__ import annotations

import numpy as np
from pydantic import FiniteFloat, NonNegativeInt

from abp_tui.analysis.judges.arrays import F64, Bools
from abp_tui.models.base import Model
from abp_tui.stats.ppi_units import UnitsEstimate, estimate_from_units


class ActiveEstimate(Model):
    """One figure's estimates under active allocation."""

    active: UnitsEstimate
    """Inverse-probability weighted, lam tuned (PPI++): the figure."""
    people_only: UnitsEstimate
    """Horvitz-Thompson (lam = 0): people's judgments alone, weighted."""
    uniform: UnitsEstimate
    """Prediction-powered, taking the drawn units as a uniform sample: for comparison only."""
    n_units: NonNegativeInt
    n_labelled: NonNegativeInt
    human_judgments_saved: FiniteFloat | None = None
    """The active estimate's effective labels minus the human judgments it used."""


def active_estimate(
    judged: F64, human: F64, labelled: Bools, probability: F64, confidence: float
) -> ActiveEstimate:
    """The three estimates over one figure's units: the judge's value of each, people's value
    (read where ``labelled``), whether it is labelled, and its probability of reaching people
    (read where labelled)."""
    y = np.where(labelled, human, np.nan)
    pi = np.where(labelled, probability, np.nan)
    active = estimate_from_units(judged, y, pi, method="ppi++", confidence=confidence)
    saved = None
    if active.effective_labels is not None:
        saved = active.effective_labels - active.n_labelled
    return ActiveEstimate(
        active=active,
        people_only=estimate_from_units(judged, y, pi, method="classical", confidence=confidence),
        uniform=estimate_from_units(judged, y, None, method="ppi++", confidence=confidence),
        n_units=int(judged.size),
        n_labelled=int(np.count_nonzero(labelled)),
        human_judgments_saved=saved,
    )


__all__ = ["ActiveEstimate", "active_estimate"]
