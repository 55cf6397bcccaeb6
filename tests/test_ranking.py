"""Bradley-Terry rankings: the fit against evalica and closed forms, the tie convention, anchors,
the prior, refusals, the task bootstrap, Wilson and binomial figures, length bias."""

from __future__ import annotations

import json
import math
from typing import Any

import evalica
import numpy as np
import pytest
from scipy.stats import binomtest

from abp_tui.analysis.ranking.fit import (
    A_WON,
    B_WON,
    MIN_DECISIVE_VOTES,
    TIE,
    NoRanking,
    Votes,
    rank,
    source_agreement,
)
from abp_tui.analysis.ranking.text import ranking_lines
from abp_tui.stats.ranking import ELO_PER_LOGIT

Row = tuple[str, str, str, int, float | None, float | None]


def _rows(pairs: list[tuple[str, str, int, int, int]], length: float = 100.0) -> list[Row]:
    """(a, b, a wins, b wins, ties) -> one task per vote."""
    rows: list[Row] = []
    for a, b, wins, losses, ties in pairs:
        for outcome, count in ((A_WON, wins), (B_WON, losses), (TIE, ties)):
            rows += [(f"t{len(rows) + k}", a, b, outcome, length, length) for k in range(count)]
    return rows


def _generated(strengths: list[float], tasks: int, per_task: int, seed: int) -> list[Row]:
    """Tasks of one random pair each. A vote's expected score (a tie half) is exactly
    sigma(strength a - strength b), the model's; on half the tasks every vote shares one draw,
    so votes of one task agree more than votes of different tasks. 10% ties."""
    rng = np.random.default_rng(seed)
    n, tie = len(strengths), 0.1
    rows: list[Row] = []
    for t in range(tasks):
        a = int(rng.integers(n))
        b = int((a + rng.integers(1, n)) % n)
        q = 1.0 / (1.0 + math.exp(-(strengths[a] - strengths[b])))
        shared = rng.random() if rng.random() < 0.5 else None
        la, lb = float(rng.integers(50, 500)), float(rng.integers(50, 500))
        for _ in range(per_task):
            u = rng.random() if shared is None else shared
            outcome = A_WON if u < q - tie / 2 else TIE if u < q + tie / 2 else B_WON
            rows.append((f"t{t}", f"s{a}", f"s{b}", outcome, la, lb))
    return rows


def _evalica_logits(votes: Votes) -> np.ndarray:
    winner = {A_WON: evalica.Winner.X, B_WON: evalica.Winner.Y, TIE: evalica.Winner.Draw}
    result = evalica.bradley_terry(
        [votes.systems[i] for i in votes.a.tolist()],
        [votes.systems[i] for i in votes.b.tolist()],
        [winner[o] for o in votes.outcome.tolist()],
        tolerance=1e-12,
        limit=100_000,
    )
    logits: np.ndarray = np.log(result.scores.reindex(list(votes.systems)).to_numpy(dtype=float))
    centred: np.ndarray = logits - logits.mean()
    return centred


def test_scores_match_evalica_on_generated_data_and_recover_the_known_order() -> None:
    strengths = [1.2, 0.6, 0.1, -0.3, -0.7, -0.9]
    votes = Votes.from_rows(_generated(strengths, tasks=3000, per_task=3, seed=5))
    report = rank(votes, study="gen", source="labels", resamples=0)
    ours = {s.condition: s.score for s in report.systems}
    theirs = 1000 + ELO_PER_LOGIT * _evalica_logits(votes)
    for name, score in zip(votes.systems, theirs.tolist(), strict=True):
        assert ours[name] == pytest.approx(score, abs=1e-6)
    assert [s.condition for s in report.systems] == [f"s{i}" for i in range(6)]
    assert [s.rank for s in report.systems] == [1, 2, 3, 4, 5, 6]
    assert sum(s.score for s in report.systems) / 6 == pytest.approx(1000.0)


def test_task_intervals_cover_the_known_strengths() -> None:
    # Over 20 generated studies, each system's 90% interval should hold its true Elo score
    # (relative to the mean) about 90% of the time: at least 80% of 120 intervals, while the
    # same votes read as independent (one task each) cover clearly less often.
    strengths = np.array([0.9, 0.4, 0.0, -0.2, -0.5, -0.6])
    truth = 1000 + ELO_PER_LOGIT * (strengths - strengths.mean())
    covered = naive = total = 0
    for seed in range(20):
        rows = _generated(list(strengths), tasks=600, per_task=3, seed=seed)
        alone = [(f"{r[0]}.{k}", *r[1:]) for k, r in enumerate(rows)]
        for data, is_naive in ((rows, False), (alone, True)):
            report = rank(
                Votes.from_rows(data),
                study="gen",
                source="labels",
                resamples=300,
                seed=seed,
                confidence=0.9,
            )
            for s in report.systems:
                assert s.interval is not None
                low, high = s.interval
                assert isinstance(low, float) and isinstance(high, float)
                hit = low <= truth[int(s.condition[1:])] <= high
                naive += hit and is_naive
                covered += hit and not is_naive
                total += not is_naive
    assert total == 120 and covered / total >= 0.8
    assert naive < covered


def test_a_tie_is_half_a_win_to_each_side() -> None:
    # 3 wins, 1 loss, 2 ties: a scores 3 + 1 = 4 of 6, so sigma(d) = 2/3 and d = ln 2: the
    # difference is 400 log10(2) = 120.41 Elo points.
    report = rank(Votes.from_rows(_rows([("a", "b", 3, 1, 2)])), study="x", source="labels")
    a, b = report.systems
    assert (a.condition, a.wins, a.losses, a.ties) == ("a", 3, 1, 2)
    assert a.score - b.score == pytest.approx(400 * math.log10(2))
    assert report.pairwise[0].predicted == pytest.approx(2 / 3)
    assert "half a win" in report.ties
    assert report.comparisons == 6


def test_an_anchor_fixes_one_system_and_keeps_the_differences() -> None:
    votes = Votes.from_rows(_rows([("a", "b", 6, 3, 1), ("b", "c", 5, 4, 2), ("a", "c", 7, 2, 0)]))
    plain = rank(votes, study="x", source="labels", resamples=100, seed=3)
    anchored = rank(votes, study="x", source="labels", resamples=100, seed=3, anchor=("b", 1200))
    scores = {s.condition: s.score for s in anchored.systems}
    assert scores["b"] == 1200.0
    shift = 1200.0 - next(s.score for s in plain.systems if s.condition == "b")
    for s in plain.systems:
        assert scores[s.condition] == pytest.approx(s.score + shift)
    b = next(s for s in anchored.systems if s.condition == "b")
    assert b.interval == (1200.0, 1200.0)  # the origin of the scale does not move
    assert anchored.anchor is not None and "b is fixed at 1200" in anchored.scale
    with pytest.raises(NoRanking, match="--anchor z: not a ranked system"):
        rank(votes, study="x", source="labels", anchor=("z", 1.0))


def test_perfect_separation_is_refused_naming_the_system_unless_a_prior() -> None:
    # Enough votes (every system has 10 decisive ones or more), but a won every comparison.
    votes = Votes.from_rows(
        _rows([("a", "b", 12, 0, 0), ("a", "c", 10, 0, 0), ("b", "c", 8, 8, 2)])
    )
    with pytest.raises(NoRanking) as refused:
        rank(votes, study="x", source="labels")
    message = str(refused.value)
    assert "a won or tied every one of its 22 comparisons (score +inf)" in message
    assert "--prior K" in message and "\n" not in message
    # The hint leads to a ranking: one pseudo-tie per compared pair makes a's 12-0 against b
    # 12.5 to 0.5, a finite fit, and the votes are enough to read it.
    report = rank(votes, study="x", source="labels", prior=1.0, resamples=100)
    assert report.prior == 1.0 and any("--prior" in n for n in report.notes)
    assert report.too_few_votes is None
    assert report.systems[0].condition == "a"
    assert all(math.isfinite(s.score) for s in report.systems)


def test_too_few_votes_without_a_finite_fit_suggest_no_prior() -> None:
    # a won all its 7 comparisons, and 7 decisive votes are too few: a prior would give a
    # finite score but the same verdict (not ranked), so the refusal does not suggest one.
    votes = Votes.from_rows(_rows([("a", "b", 4, 0, 0), ("a", "c", 3, 0, 0), ("b", "c", 2, 2, 1)]))
    with pytest.raises(NoRanking) as refused:
        rank(votes, study="x", source="labels")
    message = str(refused.value)
    assert message.startswith("not ranked: too few votes: every system needs at least 10")
    assert "a won or tied every one of its 7 comparisons (score +inf)" in message
    assert "--prior" not in message and "\n" not in message
    # With a prior the verdict is the same: not ranked, too few votes.
    report = rank(votes, study="x", source="labels", prior=1.0, resamples=200, seed=1)
    assert report.too_few_votes is not None and report.too_few_votes in message
    # Nor does a note on the resamples suggest a prior for votes too few to rank.
    plain = rank(
        Votes.from_rows(_rows([("a", "b", 3, 1, 0), ("a", "c", 2, 1, 0), ("b", "c", 1, 2, 1)])),
        study="x",
        source="labels",
        resamples=200,
        seed=1,
    )
    assert plain.too_few_votes is not None and plain.unbounded_resamples > 0
    assert not any("--prior" in n for n in plain.notes)


def test_a_system_that_lost_everything_is_named_minus_inf() -> None:
    votes = Votes.from_rows(_rows([("a", "b", 2, 1, 1), ("a", "c", 3, 0, 0), ("b", "c", 1, 0, 0)]))
    with pytest.raises(NoRanking, match=r"c lost every one of its 4 comparisons \(score -inf\)"):
        rank(votes, study="x", source="labels")


def test_the_closed_form_of_the_prior() -> None:
    # 3-0 with K = 2 pseudo-ties: W = 3 + 1 against 0 + 1, so the difference is ln 4 logits.
    report = rank(
        Votes.from_rows(_rows([("a", "b", 3, 0, 0)])), study="x", source="labels", prior=2.0
    )
    a, b = report.systems
    assert a.score - b.score == pytest.approx(ELO_PER_LOGIT * math.log(4))


def test_comparisons_in_separate_groups_are_refused_naming_the_groups() -> None:
    votes = Votes.from_rows(_rows([("a", "b", 2, 1, 0), ("c", "d", 1, 2, 0)]))
    with pytest.raises(NoRanking) as refused:
        rank(votes, study="x", source="labels", prior=1.0)  # a prior does not join them
    assert "fall apart into 2 groups" in str(refused.value)
    assert "{a, b}; {c, d}" in str(refused.value)


def test_the_bootstrap_resamples_tasks_not_votes() -> None:
    base = _generated([0.5, 0.0, -0.4], tasks=150, per_task=1, seed=8)
    copies = [row for row in base for _ in range(5)]  # each task's vote five times, same task
    spread = [(f"{r[0]}.{k}", *r[1:]) for r in base for k in range(5)]  # as five tasks
    kwargs = {"study": "x", "source": "labels", "resamples": 400, "seed": 11}
    one = rank(Votes.from_rows(base), **kwargs)  # type: ignore[arg-type]
    five = rank(Votes.from_rows(copies), **kwargs)  # type: ignore[arg-type]
    apart = rank(Votes.from_rows(spread), **kwargs)  # type: ignore[arg-type]
    assert "tasks" in five.resampled and five.tasks == 150 and five.comparisons == 750

    def width(report: object) -> dict[str, float]:
        out = {}
        for s in report.systems:  # type: ignore[attr-defined]
            low, high = s.interval
            out[s.condition] = high - low
        return out

    # Copies within a task add no information: the same draws of tasks give the same fits.
    for s1, s5 in zip(one.systems, five.systems, strict=True):
        assert s5.score == pytest.approx(s1.score)
        assert s5.interval == pytest.approx(s1.interval)
    # The same votes counted as separate tasks look about sqrt(5) times more certain.
    for name, w in width(one).items():
        assert width(apart)[name] < w / 1.7


def test_one_task_repeated_weighs_more_in_the_point_estimate() -> None:
    rows = _rows([("a", "b", 5, 5, 0)])
    heavier = [*rows, *[r for r in rows if r[0] == "t0"] * 2]  # t0 (a won) three times over
    even = rank(Votes.from_rows(rows), study="x", source="labels", resamples=0)
    tilted = rank(Votes.from_rows(heavier), study="x", source="labels", resamples=0)
    assert even.systems[0].score == pytest.approx(1000.0)
    # 7 wins to 5: sigma(d) = 7/12.
    a = next(s for s in tilted.systems if s.condition == "a")
    b = next(s for s in tilted.systems if s.condition == "b")
    assert a.score - b.score == pytest.approx(ELO_PER_LOGIT * math.log(7 / 5))
    assert tilted.tasks == 10 and tilted.comparisons == 12


def test_observed_win_rate_is_the_wilson_interval_newcombe_published() -> None:
    # Newcombe (1998), Statistics in Medicine 17:857-872, Table I: 81/263 gives the Wilson
    # score interval 0.2553 to 0.3662 (method 3). Ties stay out of the win rate.
    votes = Votes.from_rows(_rows([("a", "b", 81, 182, 7)]))
    row = rank(votes, study="x", source="labels", resamples=0).pairwise[0]
    assert (row.a, row.b) == ("b", "a")  # the higher-ranked first: b won 182 of 263
    assert (row.wins, row.losses, row.ties) == (182, 81, 7)
    assert (row.observed.x, row.observed.n) == (182, 263)
    assert row.observed.low is not None and row.observed.high is not None
    assert round(1 - row.observed.high, 4) == 0.2553
    assert round(1 - row.observed.low, 4) == 0.3662


def test_length_bias_share_and_exact_binomial_p() -> None:
    # 9 of 10 decisive votes chose the longer output: the exact two-sided p-value is
    # 2 (C(10,9) + C(10,10)) / 2^10 = 22/1024 = 0.021484375, as scipy.stats.binomtest gives.
    rows: list[Row] = []
    for k in range(9):
        rows.append(
            (f"t{k}", "a", "b", A_WON if k % 2 else B_WON, 300.0 if k % 2 else 100.0, 200.0)
        )
    rows.append(("t9", "a", "b", A_WON, 100.0, 200.0))  # the shorter won
    rows.append(("t10", "a", "b", TIE, 100.0, 200.0))  # a tie: not decisive
    rows.append(("t11", "a", "b", A_WON, 150.0, 150.0))  # equal lengths: not counted
    rows.append(("t12", "a", "b", B_WON, None, 150.0))  # unknown length
    bias = rank(Votes.from_rows(rows), study="x", source="labels", resamples=0).length_bias
    assert (bias.chose_longer, bias.decisive_votes, bias.unknown_length) == (9, 10, 1)
    assert bias.share_longer == pytest.approx(0.9)
    assert bias.test.p_value == pytest.approx(22 / 1024)
    assert bias.test.p_value == pytest.approx(binomtest(9, 10, 0.5).pvalue)


def test_length_controlled_ranking_removes_a_pull_towards_longer_outputs() -> None:
    # Equal systems; s0 always writes longer outputs and voters favour the longer one.
    rng = np.random.default_rng(4)
    rows: list[Row] = []
    for t in range(3000):
        a, b = rng.choice(3, 2, replace=False).tolist()
        la = float(rng.integers(400, 800) if a == 0 else rng.integers(100, 700))
        lb = float(rng.integers(400, 800) if b == 0 else rng.integers(100, 700))
        p = 1 / (1 + math.exp(-2.0 * (la - lb) / (la + lb)))
        rows.append((f"t{t}", f"s{a}", f"s{b}", A_WON if rng.random() < p else B_WON, la, lb))
    report = rank(Votes.from_rows(rows), study="x", source="labels", resamples=0)
    by = {s.condition: s for s in report.systems}
    assert report.length_bias.share_longer is not None and report.length_bias.share_longer > 0.6
    assert report.length_bias.coefficient is not None and report.length_bias.coefficient > 0
    plain_gap = by["s0"].score - (by["s1"].score + by["s2"].score) / 2
    controlled = {k: s.length_controlled_score for k, s in by.items()}
    assert all(v is not None for v in controlled.values())
    lc_gap = controlled["s0"] - (controlled["s1"] + controlled["s2"]) / 2  # type: ignore[operator]
    assert plain_gap > 60 and abs(lc_gap) < 25


def test_unresolved_neighbours_are_marked() -> None:
    votes = Votes.from_rows(
        _rows([("a", "b", 20, 19, 0), ("b", "c", 40, 5, 0), ("a", "c", 42, 4, 0)])
    )
    report = rank(votes, study="x", source="labels", resamples=300, seed=2)
    assert [s.condition for s in report.systems] == ["a", "b", "c"]
    assert report.unresolved_neighbours == [("a", "b")]
    assert [s.resolved_from_next for s in report.systems] == [False, True, None]
    rank_a, rank_b = report.systems[0].rank_interval, report.systems[1].rank_interval
    assert rank_a == (1, 2) and rank_b == (1, 2)
    assert report.systems[2].rank_interval == (3, 3)


def test_the_same_votes_in_any_order_give_the_same_report() -> None:
    rows = _generated([0.4, 0.0, -0.3, -0.5], tasks=200, per_task=2, seed=21)
    shuffled = [rows[i] for i in np.random.default_rng(0).permutation(len(rows)).tolist()]
    kwargs = {"study": "x", "source": "labels", "resamples": 200, "seed": 9}
    one = rank(Votes.from_rows(rows), **kwargs)  # type: ignore[arg-type]
    other = rank(Votes.from_rows(shuffled), **kwargs)  # type: ignore[arg-type]
    # The draws of tasks are the same; only the length fit's sums run in another order, so
    # what it gives (the bias, each length-controlled score) agrees to rounding.
    fitted: dict[str, Any] = {
        "systems": {"__all__": {"length_controlled_score"}},
        "length_bias": True,
    }
    assert one.model_dump(exclude=fitted) == other.model_dump(exclude=fitted)
    assert one.length_bias.coefficient == pytest.approx(other.length_bias.coefficient)
    for mine, theirs in zip(one.systems, other.systems, strict=True):
        assert mine.length_controlled_score == pytest.approx(theirs.length_controlled_score)


def test_resamples_without_a_finite_fit_give_open_bounds_in_valid_json() -> None:
    # 4 wins to 1: a resample misses the one loss with probability (4/5)^5 = 33%, and then a
    # has no finite score there; more than 2.5% of resamples: the upper bound is open.
    report = rank(
        Votes.from_rows(_rows([("a", "b", 4, 1, 0)])), study="x", source="labels", resamples=400
    )
    a, b = report.systems
    assert 0.25 < report.unbounded_resamples / 400 < 0.42
    assert a.interval is not None and a.interval[1] == "+inf"
    assert b.interval is not None and b.interval[0] == "-inf"
    assert any("without a finite score" in n for n in report.notes)
    json.dumps(report.model_dump(mode="json", by_alias=True), allow_nan=False)


def test_a_resample_whose_comparisons_fall_apart_is_left_out_not_fitted() -> None:
    # Two tasks: one compares a with b, the other b with c. A resample that draws one task
    # twice compares only two of the three systems: c (or a) was never compared there, so
    # its scores are not identified. Such resamples are left out and counted, never fitted
    # (a singular system of equations), and every interval comes from the others.
    rows: list[Row] = []
    for k, outcome in enumerate((A_WON, A_WON, B_WON, TIE)):
        rows.append(("t1", "a", "b", outcome, 100.0, 100.0))
        rows.append(("t2", "b", "c", (A_WON, B_WON, A_WON, TIE)[k], 100.0, 100.0))
    report = rank(Votes.from_rows(rows), study="x", source="labels", resamples=200, seed=3)
    apart = [note for note in report.notes if "never compared with each other" in note]
    assert len(apart) == 1
    left_out = int(apart[0].split(" of ")[0])
    # Each resample draws 2 tasks with replacement: both the same task with probability 1/2.
    assert 60 < left_out < 140
    for system in report.systems:
        assert system.interval is not None
        assert all(isinstance(bound, float) and math.isfinite(bound) for bound in system.interval)


def test_no_kendalls_tau_over_two_systems() -> None:
    # Over 2 systems tau is +1 or -1 whatever the scores (p = 1): no figure, and why.
    two = source_agreement("labels", {"a": 1.0, "b": 0.0}, "judge:j", {"a": 0.2, "b": 0.9})
    assert two.tau is None and two.p_value is None and two.systems == 2
    assert two.reason is not None and "at least 3 systems" in two.reason
    three = source_agreement(
        "labels", {"a": 1.0, "b": 0.0, "c": -1.0}, "judge:j", {"a": 0.2, "b": 0.9, "c": -3.0}
    )
    assert three.tau == pytest.approx(1 / 3) and three.reason is None


def test_scores_apart_only_in_their_last_bits_are_tied_for_kendalls_tau() -> None:
    """Two systems a judge cannot tell apart fit to one score but for the last bits of the
    sums (0.3662040962227032 and ...7035): their order is noise, which decided tau (1/3 with
    one NumPy release, tau-b with a tie with the next). Kendall (1945): with one tie among
    three, concordant minus discordant pairs over sqrt((3 - 0) * (3 - 1)) = 2 / sqrt(6)."""
    labels = {"alpha": 0.6042589188815021, "beta": 5.7e-17, "gamma": -0.6042589188815022}
    judge = {"alpha": 0.3662040962227035, "beta": 0.3662040962227032, "gamma": -0.73240819}
    found = source_agreement("labels", labels, "judge:j1", judge)
    assert found.tau == pytest.approx(2 / math.sqrt(6))
    exact = source_agreement("labels", labels, "judge:j1", {**judge, "alpha": judge["beta"]})
    assert (exact.tau, exact.p_value) == (found.tau, found.p_value)


def _seven_votes() -> Votes:
    """7 votes on 7 tasks: every system won and lost (a finite fit), lengths differing."""
    outcomes = [(("x", "y"), A_WON), (("x", "y"), B_WON), (("y", "z"), A_WON), (("y", "z"), B_WON)]
    outcomes += [(("x", "z"), A_WON), (("x", "z"), B_WON), (("x", "y"), A_WON)]
    rows: list[Row] = [
        (f"t{k}", a, b, o, float(40 + 13 * k), float(90 - 7 * k))
        for k, ((a, b), o) in enumerate(outcomes)
    ]
    return Votes.from_rows(rows)


def test_a_ranking_from_too_few_votes_says_so_instead_of_its_numbers() -> None:
    report = rank(_seven_votes(), study="x", source="labels", resamples=0)
    verdict = report.too_few_votes
    assert verdict is not None and "\n" not in verdict
    assert f"at least {MIN_DECISIVE_VOTES} decisive votes" in verdict
    assert "x has 5" in verdict and "y has 5" in verdict and "z has 4" in verdict
    # The length-controlled fit (one more parameter) is not fitted from them either.
    assert not report.length_bias.length_controlled
    assert all(s.length_controlled_score is None for s in report.systems)
    assert "too few" in (report.length_bias.unavailable_reason or "")
    # The text prints the verdict, not the scores nor the pairwise differences.
    text = "\n".join(ranking_lines(report))
    assert f"Not ranked: {verdict}" in text
    assert "interval" not in text.split("Not ranked")[1].split("Length bias")[0]
    assert not any(f"{s.score:.1f}" in text for s in report.systems)
    # --json carries the verdict as a field.
    document = report.model_dump(mode="json", by_alias=True)
    assert document["too_few_votes"] == verdict


def test_enough_votes_for_the_ranking_but_not_for_the_length_controlled_fit() -> None:
    # 3 systems, 12 decisive votes each, but only 18 decisive votes in all: the length fit
    # has 3 parameters (2 score differences and the coefficient), and needs 30.
    rows: list[Row] = []
    for k in range(18):
        a, b = (("x", "y"), ("y", "z"), ("x", "z"))[k % 3]
        rows.append((f"t{k}", a, b, A_WON if k % 4 else B_WON, 50.0 + k, 61.0 - k))
    report = rank(Votes.from_rows(rows), study="x", source="labels", resamples=0)
    assert report.too_few_votes is None
    assert not report.length_bias.length_controlled
    reason = report.length_bias.unavailable_reason or ""
    assert "30 decisive votes on outputs of different lengths" in reason and "found 18" in reason


def test_too_few_votes_say_so_before_a_fit_they_could_not_make() -> None:
    # Two votes, x won both: no finite fit, but the reason to read first is that 2 votes are
    # too few (it led with fitting with --prior, as if a prior made 2 votes a ranking).
    rows: list[Row] = [("t1", "x", "y", A_WON, 40.0, 50.0), ("t2", "y", "x", B_WON, 60.0, 45.0)]
    with pytest.raises(NoRanking) as none:
        rank(Votes.from_rows(rows), study="x", source="labels", resamples=0)
    said = str(none.value)
    assert said.startswith("not ranked: too few votes") and "no finite" in said
    assert "x has 2" in said and "y has 2" in said
