"""A ranking of systems from one source of pairwise votes: the pure function the command, the
results screen, a bundle and ``verify`` share.

:func:`rank` takes :class:`Votes` (every vote with its task, its two systems, its outcome and
the two outputs' lengths) and returns the frozen :class:`RankingReport`: Bradley-Terry scores on
the Elo scale with bootstrap intervals over **tasks** (a task's votes are resampled together:
three reviewers of one pair tend to agree, so single votes are not independent), rank intervals,
which neighbours are not resolved, the pairwise table, length bias and the length-controlled
ranking. Data without a ranking is refused with :class:`NoRanking`, naming why: comparisons in
groups with no comparison between them, or systems without a finite score (unless a prior).

Pure: the caller reads the votes; nothing here reads the database or prints.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from scipy.stats import kendalltau

from abp_tui.analysis.ranking.models import (
    UNBOUNDED_NOTE,
    Anchor,
    Bound,
    Excluded,
    LengthBias,
    PairRow,
    RankingReport,
    SourceAgreement,
    SystemScore,
)
from abp_tui.errors import AbpError
from abp_tui.stats import ranking as bt
from abp_tui.stats.inference import binomial_test, wilson
from abp_tui.stats.limits import MAX_SEED, prior_problem, resamples_problem

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I8 = npt.NDArray[np.int8]
F64 = npt.NDArray[np.float64]

A_WON, B_WON, TIE = 0, 1, 2
"""A vote's outcome."""
MEAN_SCORE: Final = 1000.0
DEFAULT_RESAMPLES: Final = 1000
MIN_DECISIVE_VOTES: Final = 10
"""Decisive votes (won or lost; ties aside) every parameter of a fit rests on: each system's
score, and in the length-controlled fit the length coefficient too. Bradley-Terry is a logistic
regression, and the rule is its ten events per variable (Peduzzi et al. 1996, J Clin Epidemiol
49(12), 1373-1379: fewer give biased coefficients and wrong variances); at 10 decisive votes a
score's standard error is already 110 Elo points or more."""
MIN_TAU_SYSTEMS: Final = 3
"""Kendall's tau between two sources' rankings needs this many shared systems: over 2 it
can only be +1 or -1, with p = 1."""
TAU_DIGITS: Final = 9
"""Decimals of a score (logits) Kendall's tau compares: scores equal to that are tied. Two
systems a source cannot tell apart fit to the same score up to the last bits of the floating
point sums, which otherwise decide their order (tau 0.333 or 0.816 over three systems,
depending on the NumPy release)."""


class NoRanking(AbpError):
    """The votes hold no ranking: the message says why and for which systems."""


@dataclass(frozen=True, eq=False)
class Votes:
    """Every vote of one source as parallel arrays (one entry per vote), codes in 32 bits and
    outcomes in 8 (a ranking may hold a million votes: 29 bytes each with the two lengths)."""

    systems: tuple[str, ...]
    tasks: tuple[str, ...]
    task: I32
    a: I32
    b: I32
    """System codes, a != b."""
    outcome: I8
    """A_WON, B_WON or TIE."""
    length_a: F64
    length_b: F64
    """Output lengths in characters; NaN when unknown."""

    def __len__(self) -> int:
        return int(self.task.size)

    @classmethod
    def from_rows(
        cls, rows: Sequence[tuple[str, str, str, int, float | None, float | None]]
    ) -> Votes:
        """Votes from (task, system a, system b, outcome, length a, length b) rows."""
        systems = tuple(sorted({r[1] for r in rows} | {r[2] for r in rows}))
        tasks = tuple(dict.fromkeys(r[0] for r in rows))
        code = {s: i for i, s in enumerate(systems)}
        task_code = {t: i for i, t in enumerate(tasks)}

        def ints(values: list[int]) -> I32:
            return np.array(values, dtype=np.int32).reshape(len(rows))

        def lengths(values: list[float | None]) -> F64:
            out = [math.nan if v is None else float(v) for v in values]
            return np.array(out, dtype=np.float64).reshape(len(rows))

        return cls(
            systems=systems,
            tasks=tasks,
            task=ints([task_code[r[0]] for r in rows]),
            a=ints([code[r[1]] for r in rows]),
            b=ints([code[r[2]] for r in rows]),
            outcome=np.array([r[3] for r in rows], dtype=np.int8).reshape(len(rows)),
            length_a=lengths([r[4] for r in rows]),
            length_b=lengths([r[5] for r in rows]),
        )


@dataclass(frozen=True, eq=False)
class _Counts:
    pairs: I64
    """(P, 2) system codes of every compared pair, first < second."""
    pair: I32
    """Each vote's pair."""
    lo_won: npt.NDArray[np.bool_]
    """Each vote: the pair's first system won."""
    tie: npt.NDArray[np.bool_]
    totals: F64
    """(P, 2) wins of each pair's first and second, ties halved."""
    wins: I64
    """(P, 3): first won, second won, ties."""


def _counts(votes: Votes) -> _Counts:
    n = len(votes.systems)
    # Each vote's (lo, hi) key made once, in place, in 64 bits (no overflow whatever n).
    key = np.minimum(votes.a, votes.b).astype(np.int64)
    key *= n
    key += np.maximum(votes.a, votes.b)
    lo_won = votes.outcome == A_WON
    lo_won &= votes.a < votes.b
    lo_won |= (votes.outcome == B_WON) & (votes.b < votes.a)
    # n * n keys: a bincount, not a sort, even for a million votes.
    present = np.bincount(key, minlength=n * n) > 0
    keys = np.flatnonzero(present)
    index = np.full(n * n, -1, dtype=np.int32)
    index[keys] = np.arange(keys.size, dtype=np.int32)
    pair = index[key]
    del key
    pairs = np.stack([keys // n, keys % n], axis=1)
    tie = votes.outcome == TIE
    hi_won = ~lo_won
    hi_won &= ~tie
    wins = np.stack(
        [np.bincount(pair, m, keys.size).astype(np.int64) for m in (lo_won, hi_won, tie)], axis=1
    )
    totals = np.stack(
        [wins[:, 0] + bt.TIE_WEIGHT * wins[:, 2], wins[:, 1] + bt.TIE_WEIGHT * wins[:, 2]], axis=1
    )
    return _Counts(pairs, pair, lo_won, tie, totals, wins)


def _segments(votes: Votes, counts: _Counts) -> bt.Segments:
    n_pairs = len(counts.pairs)
    # Tasks in the order of their ids, not of the votes: the same votes in any order (the
    # database's, a bundle's) draw the same resamples, so verify can re-derive the intervals.
    by_name = np.argsort(np.array(votes.tasks, dtype=object), kind="stable")
    place = np.empty(len(votes.tasks), dtype=np.int64)
    place[by_name] = np.arange(len(votes.tasks))
    key = place[votes.task]
    key *= n_pairs
    key += counts.pair
    space = len(votes.tasks) * n_pairs
    if space <= 4 * key.size:
        # Few (task, pair) keys: np.unique's sorted keys and inverse from a table over them,
        # without the copies and the ordering a sort of every vote holds.
        present = np.zeros(space, dtype=bool)
        present[key] = True
        keys = np.flatnonzero(present)
        del present
        index = np.zeros(space, dtype=np.int32)
        index[keys] = np.arange(keys.size, dtype=np.int32)
        segment: npt.NDArray[np.signedinteger[Any]] = index[key]
        del index
    else:
        keys, segment = np.unique(key, return_inverse=True)
    del key
    # Counts of halves: exact in float64 whatever the order of the sums.
    ties = bt.TIE_WEIGHT * np.bincount(segment, counts.tie, keys.size)
    w = np.zeros((keys.size, 2))
    w[:, 0] = np.bincount(segment, counts.lo_won, keys.size) + ties
    w[:, 1] = np.bincount(segment, ~counts.lo_won & ~counts.tie, keys.size) + ties
    return bt.Segments(
        n_systems=len(votes.systems),
        n_tasks=len(votes.tasks),
        pairs=counts.pairs,
        task=keys // n_pairs,
        pair=keys % n_pairs,
        w=w,
    )


def task_segments(votes: Votes) -> bt.Segments:
    """The votes aggregated by (task, pair): what the bootstrap resamples."""
    return _segments(votes, _counts(votes))


def _names(systems: Sequence[str], members: Sequence[int]) -> str:
    return ", ".join(systems[i] for i in members)


def _per_system(n: int, counts: _Counts) -> I64:
    """(n, 3): each system's wins, losses and ties."""
    per = np.zeros((n, 3), dtype=np.int64)
    np.add.at(per, counts.pairs[:, 0], counts.wins)
    np.add.at(per, counts.pairs[:, 1], counts.wins[:, [1, 0, 2]])
    return per


def _too_few(systems: Sequence[str], per: I64) -> str | None:
    """Why the votes are too few for a ranking (None: every system has MIN_DECISIVE_VOTES)."""
    decisive = per[:, 0] + per[:, 1]
    short = [
        i for i in np.argsort(decisive, kind="stable").tolist() if decisive[i] < MIN_DECISIVE_VOTES
    ]
    if not short:
        return None
    shown = ", ".join(f"{systems[i]} has {int(decisive[i])}" for i in short)
    return (
        f"too few votes: every system needs at least {MIN_DECISIVE_VOTES} decisive votes "
        f"(won or lost, ties aside) for a score worth reading; {shown}"
    )


def too_few_votes(votes: Votes) -> str | None:
    """Why ``votes`` are too few for a ranking worth reading (None: enough); see
    :data:`MIN_DECISIVE_VOTES`. :func:`rank` puts it in the report's ``too_few_votes``."""
    return _too_few(votes.systems, _per_system(len(votes.systems), _counts(votes)))


def _check(votes: Votes, counts: _Counts, prior: float, too_few: str | None = None) -> F64:
    """The win matrix of the point fit, or NoRanking saying why there is no finite one
    (``too_few``: why the votes are too few, said first; then no prior is suggested, which
    would not make them enough)."""
    n, systems = len(votes.systems), votes.systems
    if len(votes) == 0:
        raise NoRanking("no votes to rank: the source holds no preference between two systems")
    if n < 2:
        raise NoRanking(f"only one system ({systems[0]}) was compared: nothing to rank")
    found = bt.groups(n, counts.pairs)
    if len(found) > 1:
        shown = "; ".join("{" + _names(systems, g) + "}" for g in found)
        raise NoRanking(
            f"the comparisons fall apart into {len(found)} groups with no comparison between "
            f"them: {shown}; rank each group on its own, or compare systems across groups"
        )
    wins = bt.win_matrix(n, counts.pairs, counts.totals + prior * bt.TIE_WEIGHT)
    unbounded = bt.unbounded_groups(wins)
    if unbounded:
        played = counts.wins.sum(axis=1)
        per_system = np.bincount(counts.pairs.ravel(), np.repeat(played, 2), n)

        def said(members: tuple[int, ...], verb: str, sign: str) -> str:
            if len(members) == 1:
                i = members[0]
                count = int(per_system[i])
                return f"{systems[i]} {verb} every one of its {count} comparisons (score {sign}inf)"
            names = _names(systems, members)
            return f"{names} {verb} every comparison with the other systems (scores {sign}inf)"

        parts = [said(m, "won or tied", "+") for m in unbounded.top]
        parts += [said(m, "lost", "-") for m in unbounded.bottom]
        unscored = "no finite Bradley-Terry scores: " + "; ".join(parts)
        if too_few is not None:
            # A prior gives finite scores, not the votes a score worth reading rests on: the
            # hint to fit with one would lead to the same verdict, not to a ranking.
            raise NoRanking(
                f"not ranked: {too_few}; besides, {unscored} (a prior would make them finite, "
                "not make the votes enough)"
            )
        raise NoRanking(
            unscored + ": no maximum-likelihood score exists; fit with --prior K (K pseudo-ties "
            "per compared pair) to rank them"
        )
    return wins


def point_scores(votes: Votes, prior: float = 0.0) -> F64:
    """The point fit alone (logits, mean 0), for comparing sources; NoRanking as :func:`rank`."""
    counts = _counts(votes)
    return bt.fit(_check(votes, counts, prior))


_HUGE: Final = 1e300


def _percentiles(values: F64, confidence: float) -> tuple[F64, F64]:
    """Percentile bounds per column, NaN left out; interpolating towards an infinite value
    gives that infinity (a stand-in keeps NumPy from making inf - inf into NaN)."""
    alpha = (1.0 - confidence) / 2.0
    finite = np.clip(values, -_HUGE, _HUGE)
    with np.errstate(invalid="ignore", over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a column of NaN: no bound, NaN
        low = np.nanquantile(finite, alpha, axis=0, method="linear")
        high = np.nanquantile(finite, 1.0 - alpha, axis=0, method="linear")

    def back(x: F64) -> F64:
        return np.where(x >= _HUGE * 1e-50, np.inf, np.where(x <= -_HUGE * 1e-50, -np.inf, x))

    return back(low), back(high)


def _ranks(theta: F64) -> I64:
    """Competition ranks (1 + how many are higher), along the last axis; NaN ranks as -1."""
    higher = (theta[..., None, :] > theta[..., :, None]).sum(axis=-1)
    return np.where(np.isnan(theta), -1, higher + 1).astype(np.int64)


def _bound(x: float) -> Bound:
    """A percentile as the document holds it (NaN: no resample had a finite value)."""
    if math.isnan(x):
        raise NoRanking("no resample gave a finite score: fit with --prior K")
    return float(x) if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _length_bias(
    votes: Votes, counts: _Counts, theta: F64, prior: float, too_few: str | None
) -> tuple[LengthBias, F64 | None]:
    known = ~(np.isnan(votes.length_a) | np.isnan(votes.length_b))
    differ = known & (votes.length_a != votes.length_b)
    decisive = differ & (votes.outcome != TIE)
    a_longer = votes.length_a > votes.length_b
    longer = int((decisive & ((votes.outcome == A_WON) == a_longer)).sum())
    n_decisive = int(decisive.sum())
    test = binomial_test(longer, n_decisive)
    unknown = int((~known).sum())
    base = {
        "decisive_votes": n_decisive,
        "chose_longer": longer,
        "share_longer": longer / n_decisive if n_decisive else None,
        "test": test,
        "unknown_length": unknown,
    }
    # In place, the sum let go once used: a million votes hold a few float arrays, not many.
    total = votes.length_a + votes.length_b
    known &= total > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        raw = votes.length_a - votes.length_b
        raw /= total
    del total
    raw[~known] = 0.0
    del known, differ, decisive, a_longer
    rms = float(np.sqrt(np.mean(raw * raw))) if raw.size else 0.0
    if rms == 0.0:
        reason = "no vote compares outputs of different (known) lengths"
        return LengthBias(**base, unavailable_reason=reason), None
    if too_few is not None:
        return LengthBias(**base, unavailable_reason=too_few), None
    needed = MIN_DECISIVE_VOTES * len(votes.systems)
    if n_decisive < needed:
        reason = (
            f"too few votes for the length-controlled fit: its {len(votes.systems)} parameters "
            f"(the scores' differences and the length coefficient) need {needed} decisive votes "
            f"on outputs of different lengths ({MIN_DECISIVE_VOTES} each), found {n_decisive}"
        )
        return LengthBias(**base, unavailable_reason=reason), None
    score = np.select([votes.outcome == A_WON, votes.outcome == B_WON], [1.0, 0.0], 0.5)
    raw /= rms
    found = bt.fit_with_covariate(
        len(votes.systems), votes.a, votes.b, score, raw, counts.pairs, prior, theta
    )
    if found is None:
        reason = (
            "the length-controlled fit has no finite maximum (the longer output won every "
            "decisive vote, or lost every one)"
        )
        return LengthBias(**base, unavailable_reason=reason), None
    controlled, gamma = found
    bias = LengthBias(
        **base,
        coefficient=gamma,
        coefficient_elo=gamma * bt.ELO_PER_LOGIT,
        length_controlled=True,
    )
    return bias, controlled


def rank(
    votes: Votes,
    *,
    study: str,
    source: str,
    design: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
    anchor: tuple[str, float] | None = None,
    prior: float = 0.0,
    ties: str | None = None,
    excluded: Sequence[Excluded] = (),
    sources: Sequence[SourceAgreement] = (),
    notes: Sequence[str] = (),
) -> RankingReport:
    """The ranking of ``votes`` (see the module docstring); NoRanking when there is none."""
    if not 0 < confidence < 1:
        raise NoRanking(
            f"--confidence: expected a level strictly between 0 and 1, got {confidence}"
        )
    if (problem := resamples_problem(resamples)) is not None:
        raise NoRanking(f"--resamples: {problem}")
    if (problem := prior_problem(prior)) is not None:
        raise NoRanking(f"--prior: {problem}")
    if not 0 <= seed <= MAX_SEED:
        raise NoRanking(f"--seed: expected a whole number from 0 to {MAX_SEED}, got {seed}")
    systems = votes.systems
    if anchor is not None and anchor[0] not in systems:
        raise NoRanking(
            f"--anchor {anchor[0]}: not a ranked system; expected one of {', '.join(systems)}"
        )
    counts = _counts(votes)
    n = len(systems)
    per = _per_system(n, counts)
    too_few = _too_few(systems, per)
    # Too few votes say why there is no ranking before a fit that failed for lack of them.
    wins = _check(votes, counts, prior, too_few)
    theta = bt.fit(wins)

    if anchor is None:
        origin, offset = theta.mean(), MEAN_SCORE
        scale = "Elo: 400 points are 10:1 odds; the systems' mean is 1000"
    else:
        origin, offset = theta[systems.index(anchor[0])], anchor[1]
        scale = f"Elo: 400 points are 10:1 odds; {anchor[0]} is fixed at {anchor[1]:g}"

    def elo(t: F64, at: F64 | float) -> F64:
        return np.asarray(offset + bt.ELO_PER_LOGIT * (t - at), dtype=np.float64)

    score = elo(theta, origin)
    order = np.argsort(-score, kind="stable")
    point_rank = _ranks(score)

    low = high = None
    rank_low = rank_high = None
    diff_low: F64 | None = None
    diff_high: F64 | None = None
    unbounded = disconnected = 0
    if resamples:
        boot = bt.task_bootstrap(_segments(votes, counts), resamples, seed, theta, prior)
        unbounded, disconnected = boot.unbounded, boot.disconnected
        if anchor is None:
            finite = np.where(np.isinf(boot.theta), np.nan, boot.theta)
            # A resample whose every system is unbounded has no finite mean: NaN, left out.
            count = np.sum(~np.isnan(finite), axis=1)
            origins = np.where(count > 0, np.nansum(finite, axis=1) / np.maximum(count, 1), np.nan)
            with np.errstate(invalid="ignore"):
                sampled = offset + bt.ELO_PER_LOGIT * (boot.theta - origins[:, None])
        else:
            at = boot.theta[:, systems.index(anchor[0])]
            with np.errstate(invalid="ignore"):
                sampled = offset + bt.ELO_PER_LOGIT * (boot.theta - at[:, None])
        # A system without a finite score in a resample is +inf / -inf there whatever the
        # origin of the scale (the mean of such a resample is not finite).
        sampled = np.where(np.isinf(boot.theta), boot.theta, sampled)
        low, high = _percentiles(sampled, confidence)
        ranks = _ranks(boot.theta).astype(np.float64)
        ranks[ranks < 0] = np.nan
        rank_low, rank_high = _percentiles(ranks, confidence)
        with np.errstate(invalid="ignore"):
            diffs = boot.theta[:, order[:-1]] - boot.theta[:, order[1:]]
        diff_low, diff_high = _percentiles(diffs * bt.ELO_PER_LOGIT, confidence)

    bias, controlled = _length_bias(votes, counts, theta, prior, too_few)
    controlled_score = controlled_rank = None
    if controlled is not None:
        at_c = controlled.mean() if anchor is None else controlled[systems.index(anchor[0])]
        controlled_score = elo(controlled, at_c)
        controlled_rank = _ranks(controlled_score)

    pairs, w3 = counts.pairs, counts.wins

    entries = []
    for place, i in enumerate(order.tolist()):
        resolved = None
        if diff_low is not None and diff_high is not None and place < n - 1:
            resolved = bool(diff_low[place] > 0 or diff_high[place] < 0)
        entries.append(
            SystemScore(
                condition=systems[i],
                score=float(score[i]),
                interval=None if low is None or high is None else (_bound(low[i]), _bound(high[i])),
                rank=int(point_rank[i]),
                rank_interval=None
                if rank_low is None or rank_high is None
                else (math.floor(float(rank_low[i])), math.ceil(float(rank_high[i]))),
                wins=int(per[i, 0]),
                losses=int(per[i, 1]),
                ties=int(per[i, 2]),
                resolved_from_next=resolved,
                length_controlled_score=None
                if controlled_score is None
                else float(controlled_score[i]),
                length_controlled_rank=None if controlled_rank is None else int(controlled_rank[i]),
            )
        )
    unresolved = [
        (entries[k].condition, entries[k + 1].condition)
        for k in range(n - 1)
        if entries[k].resolved_from_next is False
    ]

    rows = []
    position = {int(i): k for k, i in enumerate(order.tolist())}
    boot_theta = boot.theta if resamples else None
    for p, (i, j) in enumerate(pairs.tolist()):
        first_won, second_won, tied = (int(x) for x in w3[p])
        if position[j] < position[i]:
            i, j = j, i
            first_won, second_won = second_won, first_won
        d_int = None
        resolved_pair = None
        if boot_theta is not None:
            with np.errstate(invalid="ignore"):
                d = (boot_theta[:, i] - boot_theta[:, j]) * bt.ELO_PER_LOGIT
            lo_d, hi_d = _percentiles(d[:, None], confidence)
            d_int = (_bound(lo_d[0]), _bound(hi_d[0]))
            resolved_pair = bool(lo_d[0] > 0 or hi_d[0] < 0)
        rows.append(
            PairRow(
                a=systems[i],
                b=systems[j],
                wins=first_won,
                losses=second_won,
                ties=tied,
                observed=wilson(first_won, first_won + second_won, confidence=confidence),
                predicted=float(1.0 / (1.0 + math.exp(-(theta[i] - theta[j])))),
                difference=float(score[i] - score[j]),
                difference_interval=d_int,
                resolved=resolved_pair,
            )
        )
    rows.sort(key=lambda r: (position[systems.index(r.a)], position[systems.index(r.b)]))

    all_notes = list(notes)
    if prior:
        all_notes.append(
            f"fitted with a prior of {prior:g} pseudo-ties on every compared pair (--prior): "
            "the scores are pulled towards each other"
        )
    if disconnected:
        all_notes.append(
            f"{disconnected} of {resamples} resamples left the comparisons in groups never "
            "compared with each other (their scores are not identified): left out of every "
            "interval"
        )
    if unbounded:
        # Too few votes are not ranked whatever the prior: no prior is suggested then.
        all_notes.append(
            UNBOUNDED_NOTE.format(unbounded=unbounded, resamples=resamples)
            + " (it won or lost all its comparisons there): those systems count as +inf / -inf "
            "in them, the others are left out of them"
            + ("" if too_few is not None else "; --prior K avoids this")
        )
    return RankingReport(
        study=study,
        design=design,
        source=source,
        ties=ties or RankingReport.model_fields["ties"].default,
        scale=scale,
        anchor=None if anchor is None else Anchor(condition=anchor[0], score=anchor[1]),
        prior=prior,
        comparisons=len(votes),
        tasks=len(np.unique(votes.task)),
        resampled=(
            f"tasks: each resample draws the {len(votes.tasks)} tasks with replacement, each "
            "with all its votes"
        ),
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        unbounded_resamples=unbounded,
        too_few_votes=too_few,
        systems=entries,
        pairwise=rows,
        unresolved_neighbours=unresolved,
        length_bias=bias,
        excluded=list(excluded),
        sources=list(sources),
        notes=all_notes,
    )


def source_agreement(
    name_a: str, scores_a: dict[str, float] | str, name_b: str, scores_b: dict[str, float] | str
) -> SourceAgreement:
    """Kendall's tau-b between two sources' scores over their shared systems; a str is the
    reason a source has no ranking."""
    if isinstance(scores_a, str) or isinstance(scores_b, str):
        why = scores_a if isinstance(scores_a, str) else scores_b
        who = name_a if isinstance(scores_a, str) else name_b
        return SourceAgreement(a=name_a, b=name_b, systems=0, reason=f"{who}: {why}")
    shared = sorted(set(scores_a) & set(scores_b))
    if len(shared) < MIN_TAU_SYSTEMS:
        return SourceAgreement(
            a=name_a,
            b=name_b,
            systems=len(shared),
            reason=(
                f"Kendall's tau needs at least {MIN_TAU_SYSTEMS} systems in both rankings, "
                f"found {len(shared)}: over 2 it is +1 or -1 whatever the scores (p = 1)"
            ),
        )
    found = kendalltau(
        [round(scores_a[s], TAU_DIGITS) for s in shared],
        [round(scores_b[s], TAU_DIGITS) for s in shared],
    )
    tau, p = float(found.statistic), float(found.pvalue)
    return SourceAgreement(
        a=name_a,
        b=name_b,
        systems=len(shared),
        tau=tau if math.isfinite(tau) else None,
        p_value=p if math.isfinite(p) else None,
        reason=None if math.isfinite(tau) else "a ranking with every score equal",
    )
