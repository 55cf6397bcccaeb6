"""The ranking document: what ``abp-tui ranking --json`` prints (``abp-tui-ranking/v1``), and
what the results screen, a bundle's ``ranking.csv`` and ``verify`` read.

Every figure names its convention beside it (the tie rule, the scale, the unit resampled), so
that the document read alone says what its numbers mean. Scores are on the Elo scale: 400
points are odds of 10 to 1, the systems' mean is 1000 unless an anchor fixes one system.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import ConfigDict, Field, FiniteFloat, NonNegativeInt, PositiveInt

from abp_tui.models.base import Model
from abp_tui.stats.inference import BinomialTest, Proportion

RANKING_SCHEMA: Final = "abp-tui-ranking/v1"
RANKING_SCHEMA_FILE: Final = "abp-tui-ranking-v1.schema.json"
METHOD: Final = (
    "Bradley-Terry by maximum likelihood (Newton's method over per-pair counts), "
    "scores on the Elo scale"
)
TIES: Final = (
    "a tie counts as half a win to each side (the convention of Chatbot Arena and of "
    "evalica's tie_weight=0.5); 'insufficient evidence' is no vote"
)
SWAP_TIES: Final = (
    "; an AI judge's pick that changes when the two outputs are swapped counts as a tie "
    "(FastChat's convention)"
)
UNBOUNDED_NOTE: Final = (
    "{unbounded} of {resamples} resamples left some system without a finite score"
)
"""How the note on the resamples that left a system without a finite score begins."""
WIN_RATE: Final = (
    "observed win rate: wins over decisive votes (ties left out, as Chatbot Arena's table), "
    "with its Wilson score interval; predicted: the fitted model's probability"
)


Bound = FiniteFloat | Literal["+inf", "-inf"]
"""An interval's bound: a number, or unbounded (JSON has no infinity)."""


class Anchor(Model):
    """One system's fixed score: the scale's origin."""

    condition: str
    score: FiniteFloat


class SystemScore(Model):
    """One system's place in the ranking."""

    condition: str
    score: FiniteFloat
    """Elo-scale score of the maximum-likelihood fit."""
    interval: tuple[Bound, Bound] | None
    """The bootstrap percentile interval at the report's confidence (None without resamples);
    a bound is +inf / -inf when enough resamples left the system without a finite score."""
    rank: PositiveInt
    """1 + the number of systems with a higher score."""
    rank_interval: tuple[int, int] | None
    """The ranks it takes across resamples (the confidence's percentiles of its rank)."""
    wins: NonNegativeInt
    losses: NonNegativeInt
    ties: NonNegativeInt
    resolved_from_next: bool | None = None
    """Whether the interval of its difference from the next system down excludes 0 (None: the
    last system, or no resamples)."""
    length_controlled_score: FiniteFloat | None = None
    length_controlled_rank: PositiveInt | None = None


class PairRow(Model):
    """Every pair of systems: its votes, the observed win rate and the model's prediction."""

    a: str
    """The higher-ranked system of the pair."""
    b: str
    wins: NonNegativeInt
    """Votes a won against b."""
    losses: NonNegativeInt
    ties: NonNegativeInt
    observed: Proportion
    """a's wins over the decisive votes, with the Wilson interval (undefined: no decisive vote)."""
    predicted: FiniteFloat
    """The fitted probability that a beats b."""
    difference: FiniteFloat
    """Score of a minus score of b (Elo points)."""
    difference_interval: tuple[Bound, Bound] | None = None
    resolved: bool | None = None
    """Whether the difference's interval excludes 0."""


class LengthBias(Model):
    """Whether the longer output wins more often, and the ranking with length held fixed."""

    decisive_votes: NonNegativeInt
    """Decisive votes on pairs whose two outputs differ in length (the denominator)."""
    chose_longer: NonNegativeInt
    share_longer: FiniteFloat | None
    test: BinomialTest
    """Exact two-sided binomial test of chose_longer against half of decisive_votes."""
    unknown_length: NonNegativeInt = 0
    """Votes with an output whose length is unknown (not stored): in no figure here, and given
    no length difference in the length-controlled fit."""
    covariate: str = (
        "(length a - length b) / (length a + length b) in characters, divided by its root mean "
        "square over the votes (no centring: the orientation of a pair does not matter)"
    )
    coefficient: FiniteFloat | None = None
    """Fitted log-odds of the longer output per one root mean square of the covariate."""
    coefficient_elo: FiniteFloat | None = None
    """The same in Elo points."""
    length_controlled: bool = False
    """Whether a length-controlled ranking was fitted (its scores are on the systems)."""
    unavailable_reason: str | None = None


class SourceAgreement(Model):
    """Kendall's tau between the rankings of two sources of the same study."""

    a: str
    b: str
    systems: NonNegativeInt
    """Systems both rankings hold (the tau is over these)."""
    tau: FiniteFloat | None = None
    """Kendall's tau-b (scipy.stats.kendalltau) of the two sources' scores."""
    p_value: FiniteFloat | None = None
    reason: str | None = None
    """Why there is no tau (a source without a finite ranking, fewer than 3 systems shared)."""


class Excluded(Model):
    """Votes of the source left out of every figure, for one reason."""

    reason: str
    votes: NonNegativeInt


class RankingReport(Model):
    """One ranking of a study's systems from one source of preferences."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["abp-tui-ranking/v1"] = Field(default=RANKING_SCHEMA, alias="schema")
    study: str
    design: str | None = None
    """The design whose final verdicts were ranked (source ``verdicts``)."""
    source: str
    """``verdicts``, ``labels`` or ``judge:ID``: never mixed."""
    method: str = METHOD
    ties: str = TIES
    scale: str
    anchor: Anchor | None = None
    prior: FiniteFloat = 0.0
    """Pseudo-ties added to every compared pair (0: none)."""
    comparisons: NonNegativeInt
    """Votes used, ties included."""
    tasks: NonNegativeInt
    """Tasks those votes are on (the unit resampled)."""
    resampled: str
    resamples: NonNegativeInt
    seed: int
    confidence: FiniteFloat
    unbounded_resamples: NonNegativeInt = 0
    """Resamples in which some system won or lost every comparison (no finite fit)."""
    too_few_votes: str | None = None
    """Why the votes are too few for a ranking worth reading (some system has fewer than 10
    decisive votes): every face says so in one line instead of the scores (None: enough)."""
    systems: list[SystemScore]
    """Ranked, best first."""
    pairwise: list[PairRow]
    unresolved_neighbours: list[tuple[str, str]]
    """Neighbours in the ranking whose difference the resamples do not resolve."""
    win_rates: str = WIN_RATE
    length_bias: LengthBias
    excluded: list[Excluded] = Field(default_factory=list)
    sources: list[SourceAgreement] = Field(default_factory=list)
    """Kendall's tau between this source's ranking and the study's other sources'."""
    notes: list[str] = Field(default_factory=list)


def ranking_json_schema() -> dict[str, Any]:
    """The published JSON Schema of the document (``export/schemas/`` holds it as
    RANKING_SCHEMA_FILE; a test keeps the file equal to this)."""
    schema = RankingReport.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:abp-tui:schema:abp-tui-ranking-v1",
        "title": "abp-tui ranking (abp-tui-ranking/v1)",
        **{k: v for k, v in schema.items() if k != "title"},
        "description": "What `abp-tui ranking --json` prints: one source's Bradley-Terry scores "
        "of a study's systems on the Elo scale, with bootstrap intervals over tasks, rank "
        "intervals, the pairwise table, length bias and Kendall's tau between the study's "
        "sources. Generated from abp_tui.analysis.ranking.models.RankingReport.",
    }
