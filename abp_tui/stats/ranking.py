"""Bradley-Terry by maximum likelihood over per-pair counts, and its bootstrap over tasks.

The model: system i beats system j with probability sigma(theta_i - theta_j); a tie counts as
half a win to each side (Chatbot Arena's convention, ``evalica``'s ``tie_weight=0.5``), so the
data are W[i, j] = wins of i over j + ties / 2 and the log-likelihood is
sum W[i, j] log sigma(theta_i - theta_j). Scores are identified up to a constant: fitted with
mean 0 (natural-log odds), and put on the Elo scale by the caller (400 points are 10:1 odds).

The maximum exists and is finite exactly when the graph "i won (or tied) against j" is strongly
connected (Zermelo 1929; Hunter 2004, assumption 1): :func:`unbounded_groups` names the systems
whose score runs off to +inf or -inf otherwise, and a prior of K pseudo-ties per compared pair
makes every fit finite.

The fit is Newton's method on the counts (the Hessian is a weighted graph Laplacian, so each
step is one small linear solve), batched over resamples with a warm start from the point fit.
Written here rather than calling ``evalica.bradley_terry`` because evalica takes one vote list
per fit, so a bootstrap is a pass over every vote per resample (see :func:`task_bootstrap`).

Pure NumPy/SciPy; nothing here knows a study, a source or a condition's name.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from abp_tui.stats.resampling import check_resamples

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Codes = npt.NDArray[np.signedinteger[Any]]
"""Codes in any signed integer type (a ranking's votes hold them in 32 bits)."""
Bools = npt.NDArray[np.bool_]

ELO_PER_LOGIT: Final = 400.0 / math.log(10.0)
"""Elo points per unit of natural-log odds: 400 points are odds of 10 to 1."""
TIE_WEIGHT: Final = 0.5
"""A tie counts as half a win to each side."""
_TOLERANCE: Final = 1e-10
_MAX_STEPS: Final = 200
_MAX_STEP: Final = 4.0
"""Largest change of a score in one Newton step (logits): keeps a far start from overshooting."""
_CHUNK: Final = 128
"""Resamples fitted at once (bounds memory: chunk x systems x systems floats)."""


def groups(n: int, pairs: I64) -> list[list[int]]:
    """The systems split into groups with no comparison between them (one group: connected)."""
    graph = sparse.coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    count, label = connected_components(graph, directed=False)
    return [np.flatnonzero(label == g).tolist() for g in range(count)]


def win_matrix(n: int, pairs: I64, w: F64) -> F64:
    """(n, n) W from per-pair columns ``w[:, 0]`` (first beat second, ties halved) and
    ``w[:, 1]``; ``w`` may carry leading batch axes: (..., pairs, 2) gives (..., n, n)."""
    out = np.zeros((*w.shape[:-2], n, n))
    out[..., pairs[:, 0], pairs[:, 1]] = w[..., 0]
    out[..., pairs[:, 1], pairs[:, 0]] = w[..., 1]
    return out


@dataclass(frozen=True)
class Unbounded:
    """Systems whose maximum-likelihood score is infinite: they never lost (or never won) a
    vote against the systems outside their group."""

    top: tuple[tuple[int, ...], ...]
    """Groups that won (or tied) every comparison with the others they met: +inf."""
    bottom: tuple[tuple[int, ...], ...]
    """Groups that lost every comparison with the others they met: -inf."""

    def __bool__(self) -> bool:
        return bool(self.top or self.bottom)


def unbounded_groups(wins: F64) -> Unbounded:
    """The source and sink components of the graph "i won or tied against j" (empty when it is
    strongly connected, the condition for a finite maximum)."""
    count, label = connected_components(
        sparse.csr_matrix(wins > 0), directed=True, connection="strong"
    )
    if count == 1:
        return Unbounded((), ())
    between = (wins > 0) & (label[:, None] != label[None, :])
    compared = between | between.T
    top, bottom = [], []
    for g in range(count):
        inside = label == g
        if not compared[inside].any():
            continue
        lost_out = between[~inside][:, inside].any()  # someone outside beat a member
        won_out = between[inside][:, ~inside].any()
        members = tuple(np.flatnonzero(inside).tolist())
        if not lost_out:
            top.append(members)
        elif not won_out:
            bottom.append(members)
    return Unbounded(tuple(top), tuple(bottom))


def _start(wins: F64) -> F64:
    """A rough start: log of (won + 1) / (lost + 1), centred."""
    won, lost = wins.sum(axis=-1), wins.sum(axis=-2)
    theta: F64 = np.log((won + 1.0) / (lost + 1.0))
    centred: F64 = theta - theta.mean(axis=-1, keepdims=True)
    return centred


def fit(wins: F64, start: F64 | None = None) -> F64:
    """Maximum-likelihood scores (logits, mean 0) of W (``(n, n)`` or a batch ``(b, n, n)``).
    Every W must be strongly connected (see :func:`unbounded_groups`)."""
    single = wins.ndim == 2
    w = wins[None] if single else wins
    theta = (_start(w) if start is None else np.broadcast_to(start, w.shape[:2])).copy()
    total = w + np.swapaxes(w, -1, -2)
    n = w.shape[-1]
    centring = np.full((n, n), 1.0 / n)
    for _ in range(_MAX_STEPS):
        diff = theta[:, :, None] - theta[:, None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        gradient = (w - total * p).sum(axis=-1)
        weight = total * p * (1.0 - p)
        laplacian = -weight
        idx = np.arange(n)
        laplacian[:, idx, idx] = weight.sum(axis=-1)
        step = np.linalg.solve(laplacian + centring, gradient[..., None])[..., 0]
        largest = np.abs(step).max(axis=-1, keepdims=True)
        step = np.where(largest > _MAX_STEP, step * (_MAX_STEP / np.maximum(largest, 1e-300)), step)
        theta = theta + step
        theta -= theta.mean(axis=-1, keepdims=True)
        if float(largest.max()) < _TOLERANCE:
            break
    result: F64 = theta[0] if single else theta
    return result


@dataclass(frozen=True)
class Segments:
    """Votes aggregated by (task, pair): what a task bootstrap resamples."""

    n_systems: int
    n_tasks: int
    pairs: I64
    """(P, 2) system codes of every compared pair, first < second."""
    task: I64
    """(S,) each segment's task."""
    pair: I64
    """(S,) each segment's pair."""
    w: F64
    """(S, 2) the segment's wins of the pair's first and second (ties halved)."""

    def totals(self) -> F64:
        """(P, 2) every vote counted once."""
        out = np.zeros((len(self.pairs), 2))
        np.add.at(out, self.pair, self.w)
        return out

    def by_task(self) -> sparse.csr_matrix:
        """(tasks, 2P): each task's wins per pair column, for resampled totals in one product."""
        cols = np.concatenate([2 * self.pair, 2 * self.pair + 1])
        rows = np.concatenate([self.task, self.task])
        data = np.concatenate([self.w[:, 0], self.w[:, 1]])
        shape = (self.n_tasks, 2 * len(self.pairs))
        return sparse.csr_matrix((data, (rows, cols)), shape=shape)


def resampled_totals(
    segments: Segments, resamples: int, rng: np.random.Generator, chunk: int = 32
) -> Iterator[F64]:
    """Per chunk of resamples, (chunk, P, 2) totals of votes of tasks drawn with replacement
    (each resample draws ``n_tasks`` task indices: exact resampling, not a Poisson
    approximation). The draws depend only on ``rng``, never on ``chunk``.

    Each resample's draws and task counts are made and let go one resample at a time: what is
    held beside the votes is one table of ``n_tasks`` counts, never ``chunk`` of them (at
    400,000 tasks, 32 resamples' draws and counts held together came to 100 MB)."""
    t = segments.n_tasks
    # float32 halves the memory traffic of the product and is exact here: every total is a
    # count of half votes, exact in float32 up to 2**24 half votes on one pair in a resample.
    by_task = segments.by_task().astype(np.float32)  # (tasks, 2P)
    kind = np.uint32 if t < 2**32 else np.uint64
    done = 0
    while done < resamples:
        b = min(chunk, resamples - done)
        totals = np.empty((b, by_task.shape[1]), dtype=np.float64)
        for k in range(b):
            draws = rng.integers(0, t, size=t, dtype=kind)
            multiplicity = np.bincount(draws, minlength=t).astype(np.float32)
            del draws
            totals[k] = np.asarray(multiplicity[None, :] @ by_task, dtype=np.float64)[0]
        yield totals.reshape(b, len(segments.pairs), 2)
        done += b


@dataclass(frozen=True)
class Bootstrap:
    """Scores (logits, mean 0) of every resample; +inf / -inf for a system left without a
    finite maximum in that resample, NaN for the other systems of such a resample."""

    theta: F64
    """(resamples, systems)."""
    unbounded: int
    """Resamples without a finite maximum (only without a prior)."""
    disconnected: int = 0
    """Resamples whose comparisons fell apart into groups never compared with each other:
    their scores are not identified, so the whole row is NaN (left out of every interval)."""


def task_bootstrap(
    segments: Segments,
    resamples: int,
    seed: int,
    start: F64,
    prior: float = 0.0,
) -> Bootstrap:
    """Refit the model on ``resamples`` resamples of the tasks (with all their votes)."""
    # Not evalica.bootstrap: measured by `bench ranking` (1,000,000 votes), 1,000 of its
    # resamples take 822 s (scaled from 3), these 3.5 s (233x); its one fit 0.79 s, ours 0.045 s.
    check_resamples(resamples, "resamples")
    rng = np.random.default_rng(seed)
    n, pairs = segments.n_systems, segments.pairs
    out = np.empty((resamples, n))
    unbounded = 0
    disconnected = 0
    row = 0
    for totals in resampled_totals(segments, resamples, rng):
        # The prior's pseudo-ties sit on the pairs the resample compared, as in the point fit.
        present = (totals.sum(axis=-1) > 0)[:, :, None]
        extra = np.where(present, prior * TIE_WEIGHT, 0.0) if prior else 0.0
        wins = win_matrix(n, pairs, totals + extra)
        # Every pair of the data compared both ways: strongly connected as the data is (the
        # point fit checked it); only the other resamples need the graph search.
        both = (totals > 0).all(axis=(1, 2)) if not prior else present.all(axis=(1, 2))
        apart = [i for i in np.flatnonzero(~both).tolist() if _falls_apart(wins[i])]
        for i in apart:
            disconnected += 1
            out[row + i] = np.nan
        bad = [
            i
            for i in np.flatnonzero(~both).tolist()
            if i not in apart and unbounded_groups(wins[i])
        ]
        good = np.setdiff1d(np.arange(len(wins)), bad + apart)
        for lo in range(0, len(good), _CHUNK):
            idx = good[lo : lo + _CHUNK]
            out[row + idx] = fit(wins[idx], start)
        for i in bad:
            unbounded += 1
            found = unbounded_groups(wins[i])
            values = np.full(n, np.nan)
            for members in found.top:
                values[list(members)] = np.inf
            for members in found.bottom:
                values[list(members)] = -np.inf
            out[row + i] = values
        row += len(wins)
    return Bootstrap(out, unbounded, disconnected)


def _falls_apart(wins: F64) -> bool:
    """True when some systems were never compared, directly or through others, with the rest
    (the undirected comparison graph is not connected)."""
    count, _ = connected_components(sparse.csr_matrix((wins + wins.T) > 0), directed=False)
    return bool(count > 1)


def fit_with_covariate(
    n: int,
    a: Codes,
    b: Codes,
    score: F64,
    covariate: F64,
    prior_pairs: I64,
    prior: float = 0.0,
    start: F64 | None = None,
) -> tuple[F64, float] | None:
    """Bradley-Terry with one vote-level covariate (the normalised length difference a - b):
    P(a beats b) = sigma(theta_a - theta_b + gamma x). ``score`` is a's result (1, 0.5, 0);
    ``prior`` pseudo-ties (with x = 0) sit on each of ``prior_pairs``. Returns (theta, gamma),
    or None when the fit diverges (gamma has no finite maximum)."""
    theta = np.zeros(n) if start is None else start.copy()
    gamma = 0.0
    idx = np.arange(n)
    cell = a * n + b  # the Hessian's off-diagonal cell of each vote, summed with bincount
    prior_a, prior_b = prior_pairs[:, 0], prior_pairs[:, 1]
    x2 = covariate * covariate
    for _ in range(_MAX_STEPS):
        # The vote-length arrays made in place, each let go once used: a million votes hold
        # a few of them at once, not a dozen (the same operations in the same order).
        p = theta[a]
        p -= theta[b]
        p += gamma * covariate
        np.negative(p, out=p)
        np.exp(p, out=p)
        p += 1.0
        np.divide(1.0, p, out=p)
        r = score - p
        g_theta = np.asarray(np.bincount(a, r, n) - np.bincount(b, r, n), dtype=np.float64)
        g_gamma = float(r @ covariate)
        del r
        w = np.subtract(1.0, p)
        w *= p
        del p
        off = np.asarray(np.bincount(cell, w, n * n), dtype=np.float64).reshape(n, n)
        if prior:
            pp = 1.0 / (1.0 + np.exp(-(theta[prior_a] - theta[prior_b])))
            rr = prior * (TIE_WEIGHT - pp)
            g_theta = g_theta + np.asarray(
                np.bincount(prior_a, rr, n) - np.bincount(prior_b, rr, n), dtype=np.float64
            )
            off[prior_a, prior_b] += prior * pp * (1.0 - pp)
        off = off + off.T
        hessian = np.zeros((n + 1, n + 1))
        hessian[:n, :n] = -off
        hessian[idx, idx] = off.sum(axis=1)
        wx = w * covariate
        cross = np.bincount(a, wx, n) - np.bincount(b, wx, n)
        del wx
        hessian[:n, n] = cross
        hessian[n, :n] = cross
        hessian[n, n] = float(w @ x2)
        hessian[:n, :n] += 1.0 / n
        gradient = np.append(g_theta, g_gamma)
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            return None
        largest = float(np.abs(step).max())
        if largest > _MAX_STEP:
            step *= _MAX_STEP / largest
        theta = theta + step[:n]
        theta -= theta.mean()
        gamma += float(step[n])
        if abs(gamma) > 50 or not np.isfinite(theta).all():
            return None
        if largest < _TOLERANCE:
            return theta, gamma
    return None
