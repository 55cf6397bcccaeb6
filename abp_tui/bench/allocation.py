"""``bench allocation``: proof by simulation that the judge-assisted intervals cover, and what
spending people where the judge is unsure buys.

The items are PandaLM's real test set (``testset-v1.json``: 999 pairs, three annotators each);
people's value of an item is its annotators' majority label as response 1's win (1 a win, 0 a
loss, 1/2 a tie; items whose three annotators all differ have no majority and are left out,
counted). The true win rate is the mean over the remaining items: a finite population, so each
simulated study's estimate can be checked against it exactly.

Each setting gives a synthetic AI judge of known quality: on each item it errs with probability
``error`` (its value then one of the other two, at random), or, for the uninformative judge, its
value is drawn from the labels' own distribution independently of the item. Its uncertainty
on an item is a uniform number in [0, 1] plus 1 where it erred (the uninformative judge's
uncertainty is the uniform number alone), so uncertainty and errors are correlated as a real
judge's distrust is meant to be. For each of ``studies`` simulated studies per setting (a fresh
judge, fresh draws), at a human budget of ``budget`` items:

- **uniform**: people judge a simple random sample of ``budget`` items; the prediction-powered
  interval (PPI++, :func:`abp_tui.stats.ppi_units.estimate_from_units` without probabilities);
- **active**: each item goes to people with probabilities from
  :func:`abp_tui.stats.allocation.allocation_probabilities` (expected number ``budget``, floor
  0.05) by :func:`abp_tui.stats.allocation.draw`; the
  inverse-probability-weighted interval (``estimate_from_units`` with the probabilities);
- **sequence**: the betting confidence sequence (:func:`abp_tui.stats.sequences.betting_sequence`)
  over the uniform sample's human values in the order drawn, watched after every judgment:
  it covers a study only when the true win rate is inside its interval at *every* step;
- **people only** (the baseline): the classical interval on the uniform sample's human values.

Coverage is the share of studies whose interval holds the true win rate (its Monte Carlo
standard error beside it); width is the mean width at the budget (the sequence's at its last
step). Goals: coverage of at least 94% for every method in every setting; with an informative
judge, active narrower than uniform and both narrower than people only.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from abp_tui.errors import AbpError
from abp_tui.stats.allocation import DEFAULT_FLOOR, allocation_probabilities, draw
from abp_tui.stats.ppi_units import estimate_from_units
from abp_tui.stats.sequences import betting_sequence
from abp_tui.text.input_files import not_regular

F64 = npt.NDArray[np.float64]

STUDIES: Final = 500
BUDGET: Final = 200
CONFIDENCE: Final = 0.95
GOAL_COVERAGE: Final = 0.94
SEED: Final = 20240601
PANDALM_FILE: Final = "testset-v1.json"
METHODS: Final = ("uniform", "active", "sequence", "people_only")


@dataclass(frozen=True)
class Setting:
    """A synthetic judge: ``error`` its error rate, None for one independent of the items."""

    name: str
    error: float | None

    @property
    def informative(self) -> bool:
        return self.error is not None


SETTINGS: Final = (
    Setting("error 0.10", 0.10),
    Setting("error 0.25", 0.25),
    Setting("error 0.40", 0.40),
    Setting("uninformative", None),
)


def default_pandalm() -> Path:
    """Where the test set lives: ``$ABP_TUI_REFERENCE/pandalm``, else beside the source
    checkout, ``../shared/reference/pandalm``."""
    folder = os.environ.get("ABP_TUI_REFERENCE")
    root = Path(folder) if folder else Path(__file__).resolve().parents[3] / "shared" / "reference"
    return root / "pandalm" / PANDALM_FILE


def pandalm_values(path: Path) -> tuple[F64, int]:
    """People's value of each PandaLM item (1 response 1 wins, 0 it loses, 1/2 a tie, by the
    annotators' majority) and how many items had no majority (left out)."""
    if (kind := not_regular(path)) is not None:
        raise AbpError(f"{path}: expected PandaLM's test set, a JSON file, got {kind}")
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AbpError(
            f"{path}: PandaLM's test set is absent (give its testset-v1.json with --pandalm)"
        ) from None
    except (OSError, ValueError) as error:  # undecodable, not JSON, a number past the limit
        raise AbpError(f"{path}: cannot read PandaLM's test set: {error}") from None
    if not isinstance(items, list) or not items:
        raise AbpError(f"{path}: expected PandaLM's test set, a JSON list of items")
    value = {0: 0.5, 1: 1.0, 2: 0.0}
    values: list[float] = []
    split = 0
    for index, item in enumerate(items):
        fields = sorted(item) if isinstance(item, dict) else []
        labels = [item[key] for key in fields if str(key).startswith("annotator")]
        if not labels or any(label not in value for label in labels):
            raise AbpError(
                f"{path}: item {index}: expected annotator labels 0, 1 or 2, got {labels!r}"
            )
        winner = [label for label in set(labels) if 2 * labels.count(label) > len(labels)]
        if not winner:
            split += 1
            continue
        values.append(value[winner[0]])
    return np.asarray(values, dtype=np.float64), split


def synthetic_judge(
    people: F64, setting: Setting, rng: np.random.Generator
) -> tuple[F64, F64, npt.NDArray[np.bool_]]:
    """(the judge's value of each item, its uncertainty, where it erred)."""
    n = len(people)
    if setting.error is None:
        judge = rng.choice(people, size=n, replace=True)
        erred = judge != people
        return judge, rng.random(n), erred
    erred = rng.random(n) < setting.error
    other = np.array([[0.5, 1.0], [0.0, 1.0], [0.0, 0.5]])  # the other two values of 0, 1/2, 1
    row = np.rint(people * 2).astype(np.int64)
    wrong = other[row, rng.integers(0, 2, size=n)]
    judge = np.where(erred, wrong, people)
    return judge, rng.random(n) + erred, erred


def one_study(
    people: F64, setting: Setting, budget: int, seed: int
) -> dict[str, tuple[bool, float]]:
    """One simulated study: per method, (the interval holds the truth, its width)."""
    rng = np.random.default_rng(seed)
    truth = float(people.mean())
    judge, uncertainty, _ = synthetic_judge(people, setting, rng)
    n = len(people)
    order = rng.permutation(n)[:budget]
    uniform_labels = np.full(n, np.nan)
    uniform_labels[order] = people[order]
    found: dict[str, tuple[bool, float]] = {}
    for method, estimate in (
        ("uniform", estimate_from_units(judge, uniform_labels, confidence=CONFIDENCE)),
        (
            "people_only",
            estimate_from_units(judge, uniform_labels, method="classical", confidence=CONFIDENCE),
        ),
    ):
        assert estimate.low is not None and estimate.high is not None
        found[method] = (estimate.low <= truth <= estimate.high, estimate.high - estimate.low)
    probability = allocation_probabilities(uncertainty, float(budget), DEFAULT_FLOOR)
    drawn = draw(probability, int(rng.integers(0, 2**63)))
    active_labels = np.where(drawn, people, np.nan)
    active = estimate_from_units(judge, active_labels, probability, confidence=CONFIDENCE)
    if active.low is None or active.high is None:
        found["active"] = (False, math.nan)
    else:
        found["active"] = (active.low <= truth <= active.high, active.high - active.low)
    sequence = betting_sequence(people[order], CONFIDENCE)
    always = bool(np.all((sequence.low <= truth) & (truth <= sequence.high)))
    found["sequence"] = (always, float(sequence.high[-1] - sequence.low[-1]))
    return found


def simulate(people: F64, setting: Setting, studies: int, budget: int, seed: int) -> dict[str, Any]:
    """Coverage and mean width of every method over ``studies`` simulated studies."""
    covered = {method: 0 for method in METHODS}
    widths: dict[str, list[float]] = {method: [] for method in METHODS}
    errors = 0.0
    correlation = 0.0
    for study in range(studies):
        study_seed = int(np.random.SeedSequence([seed, study]).generate_state(1)[0])
        found = one_study(people, setting, budget, study_seed)
        for method, (inside, width) in found.items():
            covered[method] += inside
            widths[method].append(width)
        if study == 0:
            _, uncertainty, erred = synthetic_judge(
                people, setting, np.random.default_rng(study_seed)
            )
            errors = float(erred.mean())
            correlation = float(np.corrcoef(uncertainty, erred.astype(np.float64))[0, 1])
    figures: dict[str, Any] = {}
    for method in METHODS:
        share = covered[method] / studies
        finite = [w for w in widths[method] if math.isfinite(w)]
        figures[method] = {
            "coverage": round(share, 4),
            "coverage_mc_se": round(math.sqrt(share * (1 - share) / studies), 4),
            "mean_width": round(float(np.mean(finite)), 4) if finite else None,
            "undefined": len(widths[method]) - len(finite),
        }
    return {
        "judge_error_rate": round(errors, 4),
        "uncertainty_error_correlation": round(correlation, 4),
        "informative": setting.informative,
        "methods": figures,
    }


def goals(settings: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The goal checks, each with the settings that fail it."""
    low_coverage = [
        f"{name}: {method} {figures['methods'][method]['coverage']:.3f}"
        for name, figures in settings.items()
        for method in METHODS
        if figures["methods"][method]["coverage"] < GOAL_COVERAGE
    ]

    def width(figures: dict[str, Any], method: str) -> float:
        value = figures["methods"][method]["mean_width"]
        return math.inf if value is None else float(value)

    informative = {name: f for name, f in settings.items() if f["informative"]}
    not_narrower = [
        n for n, f in informative.items() if not width(f, "active") < width(f, "uniform")
    ]
    not_below_people = [
        n
        for n, f in informative.items()
        if not max(width(f, "active"), width(f, "uniform")) < width(f, "people_only")
    ]
    return {
        "coverage_at_least_94_percent": {"met": not low_coverage, "failing": low_coverage},
        "active_narrower_than_uniform_when_informative": {
            "met": not not_narrower,
            "failing": not_narrower,
        },
        "active_and_uniform_narrower_than_people_only_when_informative": {
            "met": not not_below_people,
            "failing": not_below_people,
        },
    }


def bench_allocation(
    pandalm: Path, studies: int = STUDIES, budget: int = BUDGET, seed: int = SEED
) -> dict[str, Any]:
    people, split = pandalm_values(pandalm)
    least = max(2, math.ceil(DEFAULT_FLOOR * len(people)))
    if not least <= budget <= len(people):
        raise AbpError(
            f"bench allocation: --budget must be from {least} to {len(people)} items (the floor "
            f"of {DEFAULT_FLOOR:g} draws {least} on average), got {budget}"
        )
    start = time.perf_counter()
    settings = {
        setting.name: simulate(people, setting, studies, budget, seed + index)
        for index, setting in enumerate(SETTINGS)
    }
    return {
        "benchmark": "allocation",
        "data": {
            "file": pandalm.name,
            "items": len(people),
            "left_out_no_majority": split,
            "true_win_rate": round(float(people.mean()), 6),
        },
        "studies_per_setting": studies,
        "human_budget": budget,
        "allocation_floor": DEFAULT_FLOOR,
        "confidence": CONFIDENCE,
        "baseline": "people_only: the classical interval on the same uniform sample",
        "settings": settings,
        "goals": goals(settings),
        "seconds": round(time.perf_counter() - start, 2),
    }


__all__ = [
    "SETTINGS",
    "Setting",
    "bench_allocation",
    "default_pandalm",
    "goals",
    "one_study",
    "pandalm_values",
    "simulate",
    "synthetic_judge",
]
