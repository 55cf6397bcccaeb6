"""Latent-class models of annotators: Dawid-Skene and its one-coin form, fitted by EM.

Agreement measures how often annotators give the same label; it cannot tell a shared mistake
from a shared truth. Dawid and Skene (1979, "Maximum likelihood estimation of observer
error-rates using the EM algorithm", Applied Statistics 28(1)) model each item's true category
as a hidden variable with prior ``pi_k`` and each annotator ``a`` by a confusion matrix
``theta_a[l, k] = P(a labels l | the item is k)``; the **one-coin** model ties each matrix to a
single competence ``s_a``: ``theta_a[l, k] = s_a`` on the diagonal and ``(1 - s_a) / (K - 1)``
off it. EM alternates the posterior of every item's category (E-step) with the priors and the
annotators' matrices or competences that maximise the expected likelihood (M-step).

The EM follows ``crowd-kit`` (Toloka, 1.4.2: ``DawidSkene`` and ``OneCoinDawidSkene``) step for
step, so the two agree to rounding on the same data (checked in tests/test_reliability.py
against values crowd-kit computed):

- **initialisation**: each item's posterior is its labels' shares (majority vote with every
  label weighted 1); priors are their mean; the first M-step follows;
- **M-step (Dawid-Skene)**: ``theta_a[l, k]`` is the posterior mass of ``k`` over the items ``a``
  labelled ``l``, floored at :data:`EPS` for each label ``a`` gave (a label ``a`` never gave
  stays 0), normalised over ``l``; **(one-coin)** ``s_a`` is the mean posterior of the label
  ``a`` gave, over their labels, and the matrix built from it is clipped to [EPS, 1 - EPS];
- **E-step**: log posterior = log max(pi_k, EPS) + sum of log theta over the item's labels,
  shifted by its maximum and normalised;
- **convergence**: after each E- and M-step the evidence lower bound per label, with the
  prior's log counted once per label as crowd-kit does and the entropy of the posteriors
  floored at EPS, is compared with the previous one; EM stops when it rises by less than
  ``tol`` (default 1e-5), or after ``n_iter`` (default 100) rounds;
- **labels**: the most probable category, the first in the categories' order on a tie.

Categories are those the caller passes (the ones observed: the one-coin's ``K`` is their
number, as crowd-kit counts the labels in the data). An annotator may label any subset of the
items and an item may carry several labels of one annotator (each counts).

The bootstrap resamples **items** with replacement (seeded ``numpy.random.default_rng``), refits
from the same initialisation, and takes percentile intervals of each annotator's accuracy
(``sum_k pi_k theta_a[k, k]``; the one-coin's ``s_a``) and of each cell of their matrix. A
resample in which an annotator labels nothing leaves that annotator's figures undefined in it
(left out of their interval). Pure NumPy; nothing here reads the database.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement_kernels import percentile_bounds
from abp_tui.stats.limits import MAX_RESAMPLES, resamples_problem

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

ModelName = Literal["dawid-skene", "one-coin"]
MODELS: Final[tuple[ModelName, ...]] = ("dawid-skene", "one-coin")
EPS: Final = 1e-10
"""crowd-kit's floor for a probability (``_EPS``)."""
N_ITER: Final = 100
TOL: Final = 1e-5
MIN_USED: Final = 0.95
"""Share of the resamples in which a figure must be defined for it to get an interval."""

__all__ = [
    "EPS",
    "MODELS",
    "N_ITER",
    "TOL",
    "Bootstrap",
    "Fit",
    "LabelData",
    "ModelName",
    "bootstrap",
    "fit",
    "interval",
]


@dataclass(frozen=True, eq=False)
class LabelData:
    """Every label as three aligned integer columns: the item, the annotator, the category."""

    n_items: int
    n_annotators: int
    n_categories: int
    item: I64
    annotator: I64
    label: I64

    def __post_init__(self) -> None:
        sizes = {len(self.item), len(self.annotator), len(self.label)}
        if len(sizes) != 1:
            raise ValueError("item, annotator and label columns differ in length")
        if not len(self.item):
            raise ValueError("no labels to fit")
        if self.n_categories < 2:
            raise ValueError(f"expected at least 2 categories, got {self.n_categories}")
        for name, column, bound in (
            ("item", self.item, self.n_items),
            ("annotator", self.annotator, self.n_annotators),
            ("label", self.label, self.n_categories),
        ):
            if int(column.min()) < 0 or int(column.max()) >= bound:
                raise ValueError(f"{name} index out of range 0..{bound - 1}")
        if not np.bincount(self.item, minlength=self.n_items).all():
            raise ValueError("every item needs at least one label")


@dataclass(frozen=True, eq=False)
class Fit:
    """One EM fit."""

    model: ModelName
    probas: F64
    """(items, K): each item's posterior over the categories."""
    priors: F64
    """(K,): the categories' prior shares."""
    errors: F64
    """(annotators, K, K): ``errors[a, l, k]`` = P(a labels l | the item is k); a label ``a``
    never gave is 0 (Dawid-Skene); the one-coin's full matrix from ``s_a``."""
    accuracy: F64
    """(annotators,): sum_k pi_k errors[a, k, k] (Dawid-Skene); ``s_a`` (one-coin)."""
    iterations: int
    converged: bool
    """False when EM stopped at ``n_iter`` rounds without meeting ``tol``."""

    @property
    def labels(self) -> I64:
        """Each item's most probable category (the first on a tie)."""
        out: I64 = np.argmax(self.probas, axis=1).astype(np.int64)
        return out


def _majority(data: LabelData) -> F64:
    counts = np.zeros((data.n_items, data.n_categories))
    np.add.at(counts, (data.item, data.label), 1.0)
    out: F64 = counts / counts.sum(axis=1, keepdims=True)
    return out


def _mass(data: LabelData, probas: F64) -> F64:
    """(annotators, K, K): the posterior mass of each true category k over the items each
    annotator labelled l."""
    cells = data.annotator * data.n_categories + data.label
    size = data.n_annotators * data.n_categories
    mass = np.stack(
        [
            np.bincount(cells, weights=probas[data.item, k], minlength=size)
            for k in range(data.n_categories)
        ],
        axis=1,
    )
    out: F64 = mass.reshape(data.n_annotators, data.n_categories, data.n_categories).astype(
        np.float64
    )
    return out


def _observed(data: LabelData) -> npt.NDArray[np.bool_]:
    seen = np.zeros((data.n_annotators, data.n_categories), dtype=bool)
    seen[data.annotator, data.label] = True
    return seen


def _m_step(
    data: LabelData, probas: F64, seen: npt.NDArray[np.bool_], model: ModelName
) -> tuple[F64, F64]:
    """(errors, skills): skills are the one-coin's ``s_a`` (NaN for Dawid-Skene)."""
    k = data.n_categories
    if model == "one-coin":
        given = probas[data.item, data.label]
        total = np.bincount(data.annotator, weights=given, minlength=data.n_annotators)
        count = np.bincount(data.annotator, minlength=data.n_annotators)
        with np.errstate(invalid="ignore", divide="ignore"):
            skills: F64 = total / count
        off = (1 - skills) / (k - 1)
        errors = np.where(np.eye(k, dtype=bool)[None], skills[:, None, None], off[:, None, None])
        errors = np.clip(errors, EPS, 1 - EPS)
        return errors, skills
    mass = np.where(seen[:, :, None], np.maximum(_mass(data, probas), EPS), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        errors = mass / mass.sum(axis=1, keepdims=True)
    return errors, np.full(data.n_annotators, math.nan)


def _log_errors(errors: F64) -> F64:
    with np.errstate(divide="ignore", invalid="ignore"):
        out: F64 = np.log(errors)
    return out


def _e_step(data: LabelData, priors: F64, log_errors: F64) -> F64:
    per_label = log_errors[data.annotator, data.label]  # (labels, K)
    loglik = np.stack(
        [
            np.bincount(data.item, weights=per_label[:, k], minlength=data.n_items)
            for k in range(data.n_categories)
        ],
        axis=1,
    ) + np.log(np.maximum(priors, EPS))
    scaled = np.exp(loglik - loglik.max(axis=1, keepdims=True))
    out: F64 = scaled / scaled.sum(axis=1, keepdims=True)
    return out


def _elbo(data: LabelData, probas: F64, priors: F64, log_errors: F64) -> float:
    per_label = log_errors[data.annotator, data.label] + np.log(np.maximum(priors, EPS))
    joint = float((probas[data.item] * per_label).sum())
    floored = np.maximum(probas, EPS)
    entropy = -float((np.log(floored) * floored).sum())
    return (joint + entropy) / len(data.item)


def _accuracy(errors: F64, priors: F64, skills: F64, model: ModelName) -> F64:
    if model == "one-coin":
        return skills
    diagonal = np.diagonal(errors, axis1=1, axis2=2)  # (annotators, K)
    out: F64 = (diagonal * priors[None, :]).sum(axis=1)
    return out


def fit(
    data: LabelData, model: ModelName = "dawid-skene", *, n_iter: int = N_ITER, tol: float = TOL
) -> Fit:
    """Fit ``model`` by EM from the majority-vote initialisation (module notes)."""
    if model not in MODELS:
        raise ValueError(f"model: expected one of {', '.join(MODELS)}, got {model!r}")
    if n_iter < 1:
        raise ValueError(f"n_iter: expected at least 1, got {n_iter}")
    seen = _observed(data)
    probas = _majority(data)
    priors = probas.mean(axis=0)
    errors, skills = _m_step(data, probas, seen, model)
    loss = -math.inf
    converged = False
    rounds = 0
    for rounds in range(1, n_iter + 1):  # noqa: B007 (the count is returned)
        probas = _e_step(data, priors, _log_errors(errors))
        priors = probas.mean(axis=0)
        errors, skills = _m_step(data, probas, seen, model)
        new_loss = _elbo(data, probas, priors, _log_errors(errors))
        if new_loss - loss < tol:
            converged = True
            break
        loss = new_loss
    labelled = np.zeros(data.n_annotators, dtype=bool)
    labelled[data.annotator] = True
    errors = np.where(labelled[:, None, None], errors, math.nan)
    accuracy = np.where(labelled, _accuracy(errors, priors, skills, model), math.nan)
    return Fit(
        model=model,
        probas=probas,
        priors=priors,
        errors=errors,
        accuracy=accuracy,
        iterations=rounds,
        converged=converged,
    )


@dataclass(frozen=True, eq=False)
class Bootstrap:
    """Each resample's figures (NaN where an annotator labelled nothing in it)."""

    accuracy: F64
    """(resamples, annotators)."""
    errors: F64
    """(resamples, annotators, K, K)."""
    resamples: int
    seed: int
    not_converged: int
    """Resamples whose EM stopped at ``n_iter`` rounds without meeting ``tol``."""


def _resample(data: LabelData, drawn: I64, order: I64, starts: I64, counts: I64) -> LabelData:
    lengths = counts[drawn]
    total = int(lengths.sum())
    begin = np.repeat(starts[drawn] - np.cumsum(lengths) + lengths, lengths)
    rows = order[begin + np.arange(total)]
    item = np.repeat(np.arange(len(drawn), dtype=np.int64), lengths)
    return LabelData(
        n_items=len(drawn),
        n_annotators=data.n_annotators,
        n_categories=data.n_categories,
        item=item,
        annotator=data.annotator[rows],
        label=data.label[rows],
    )


def bootstrap(
    data: LabelData,
    model: ModelName = "dawid-skene",
    *,
    resamples: int,
    seed: int,
    n_iter: int = N_ITER,
    tol: float = TOL,
) -> Bootstrap:
    """Refit ``model`` on ``resamples`` resamples of the items (with replacement)."""
    if (problem := resamples_problem(resamples)) is not None:
        raise ValueError(f"resamples: {problem}")
    if not 0 <= seed <= 2**63 - 1:
        raise ValueError(f"seed: expected a whole number from 0 to {2**63 - 1}, got {seed}")
    assert resamples <= MAX_RESAMPLES
    rng = np.random.default_rng(seed)
    order = np.argsort(data.item, kind="stable").astype(np.int64)
    counts = np.bincount(data.item, minlength=data.n_items).astype(np.int64)
    starts = (np.cumsum(counts) - counts).astype(np.int64)
    k = data.n_categories
    accuracy = np.full((resamples, data.n_annotators), math.nan)
    errors = np.full((resamples, data.n_annotators, k, k), math.nan)
    stalled = 0
    for r in range(resamples):
        drawn = rng.integers(0, data.n_items, data.n_items).astype(np.int64)
        result = fit(_resample(data, drawn, order, starts, counts), model, n_iter=n_iter, tol=tol)
        accuracy[r] = result.accuracy
        errors[r] = result.errors
        stalled += not result.converged
    return Bootstrap(
        accuracy=accuracy, errors=errors, resamples=resamples, seed=seed, not_converged=stalled
    )


def interval(samples: F64, confidence: float) -> tuple[float, float, int] | None:
    """(low, high, resamples used) of the percentile interval of one figure's resamples, or
    None when it is defined in fewer than :data:`MIN_USED` of them."""
    low, high, used = percentile_bounds(samples, confidence)
    if used == 0 or used < MIN_USED * len(samples):
        return None
    return low, high, used
