"""The answer to a design's question, in a few sentences every face leads with.

A preference design asks which of the compared systems people prefer: the headline names what was
compared, by how many reviewers, on how many items, who was preferred how often over the decisive
items with its Wilson interval and the exact binomial (sign) test, the ties, which judgments are
counted (:func:`abp_tui.analysis.item_preferences.counting_line`), the ranking when three or more
systems are compared (``abp-tui ranking``'s verdict: its order, or why it gives none), and what is
still pending. A rubric design asks how often each condition
passes: its headline gives each condition's pass rate with its interval, and what is pending.

Pure: built from the records and the results computed from them, so a bundle's ``verify``
re-derives the same lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from abp_tui.analysis.item_preferences import counting_line
from abp_tui.analysis.ranking.fit import (
    NoRanking,
    Votes,
    point_scores,
    too_few_votes,
)
from abp_tui.analysis.ranking.sources import design_votes
from abp_tui.analysis.verdicts import Decisions
from abp_tui.models import DesignRecords, Item
from abp_tui.stats.inference import Proportion

if TYPE_CHECKING:  # the results import this module
    from abp_tui.analysis.results.tallies import Comparison, GroupResult


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.0f}%"


def _interval(p: Proportion, level: str) -> str:
    if p.low is None or p.high is None:
        return "no interval"
    return f"Wilson {level} CI {_percent(p.low)} to {_percent(p.high)}"


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


def _p(value: float | None) -> str:
    return "undefined" if value is None else f"p = {value:.3g}"


def preference_lines(
    comparisons: Sequence[Comparison], level: str, confidence: float = 0.95
) -> list[str]:
    """One sentence per contrast with a preference: who was preferred, how often, with its
    uncertainty; then which judgments are counted. A system is "preferred over" another when
    its share's interval leaves 50% out and the exact test rejects an even split at the same
    level; else it is "ahead of" it, with no clear preference."""
    lines: list[str] = []
    sources: dict[str, int] = {}
    for c in comparisons:
        prefs = c.preferences
        if not prefs.total and not prefs.unresolved_items:
            continue
        for source, n in prefs.sources.items():
            sources[source] = sources.get(source, 0) + n
        others = f"{_plural(prefs.ties, 'tie')}, {prefs.insufficient} insufficient evidence"
        if not prefs.decisive:
            lines.append(
                f"{c.a} vs {c.b}: no decisive item yet ({others}); no preference can be stated."
            )
            continue
        if prefs.wins_a >= prefs.wins_b:
            winner, loser, wins, share = c.a, c.b, prefs.wins_a, prefs.a_share
        else:
            winner, loser, wins = c.b, c.a, prefs.wins_b
            share = Proportion(
                x=prefs.wins_b,
                n=prefs.decisive,
                point=None if prefs.a_share.point is None else 1 - prefs.a_share.point,
                low=None if prefs.a_share.high is None else 1 - prefs.a_share.high,
                high=None if prefs.a_share.low is None else 1 - prefs.a_share.low,
            )
        p = prefs.test.p_value
        clear = share.low is not None and share.low > 0.5 and p is not None and p < 1 - confidence
        verb = "preferred over" if clear else "ahead of"
        said = (
            f"{winner} {verb} {loser} on {wins} of {prefs.decisive} decisive items "
            f"({_percent(share.point)}, {_interval(share, level)})"
            if wins * 2 != prefs.decisive
            else f"{winner} and {loser} preferred equally: {wins} of {prefs.decisive} decisive "
            f"items each"
        )
        unclear = "" if clear or wins * 2 == prefs.decisive else ", no clear preference"
        lines.append(
            f"{said}; exact binomial test {_p(prefs.test.p_value)}{unclear}; {others}; "
            f"{_plural(prefs.total + len(prefs.unresolved_items), 'item')}, "
            f"{_plural(prefs.judgments, 'reviewer judgment')}."
        )
    if sources:
        lines.append(counting_line(sources))
    return lines


def ranking_line(records: DesignRecords, decisions: Decisions) -> str | None:
    """The systems in order of their Bradley-Terry scores over the items' final preferences,
    when three or more are compared, or why they are not ranked (None: fewer than three)."""
    # No output length is read here: a run with no side has none (no table of every run).
    votes, _excluded = design_votes(records, decisions, {})
    return ranking_text(votes)


RANKED_BY: Final = "Bradley-Terry over the items' final preferences, as abp-tui ranking ranks them"
"""What the headline's ranking is: the ranking command's default fit of the design's verdicts."""


def ranking_text(votes: Votes) -> str | None:
    """:func:`ranking_line` of the final preferences' votes: the verdict of ``abp-tui ranking``
    by its own rules (no prior; every system needs
    :data:`~abp_tui.analysis.ranking.fit.MIN_DECISIVE_VOTES` decisive votes,
    else no order is given, only why), so the headline and the ranking never disagree."""
    if len(votes.systems) < 3:
        return None
    why = too_few_votes(votes)
    if why is None:
        try:
            scores = point_scores(votes)
        except NoRanking as none:
            why = str(none)
    if why is not None:
        return f"Not ranked ({RANKED_BY}): {why}."
    order = sorted(range(len(votes.systems)), key=lambda i: (-scores[i], votes.systems[i]))
    ranked = " > ".join(votes.systems[i] for i in order)
    return f"Ranking of {len(votes.systems)} systems ({RANKED_BY}): {ranked}."


def _for_people(records: DesignRecords) -> list[Item]:
    """The items people are to judge: every planned item, or under a human budget the ones
    drawn for them."""
    if not records.allocation:
        return list(records.items)
    drawn = {d.item for d in records.allocation if d.drawn}
    return [i for i in records.items if i.code in drawn]


def pending_line(records: DesignRecords, decisions: Decisions) -> str:
    """What is still to do: planned judgments not submitted (items nobody judged among them),
    open disagreements."""
    latest = decisions.latest
    people = _for_people(records)
    awaiting = sum(1 for i in people if i.code not in latest)
    needed = max(1, records.design.reviewers_per_item)
    owed = sum(max(0, needed - len(latest.get(i.code, ()))) for i in people)
    open_items = sum(1 for d in decisions.disagreements if not d.adjudicated)
    return pending_text(awaiting, open_items, bool(records.allocation), owed)


def pending_text(awaiting: int, open_items: int, budget: bool, owed: int = 0) -> str:
    """:func:`pending_line` of its counts: ``awaiting`` items for people with no submitted
    judgment, ``open_items`` disagreements to adjudicate, ``budget``: under a human budget,
    ``owed``: judgments the plan asks of its reviewers (the design's reviewers per item, as
    the bundle's gate counts them) not submitted, those of the awaiting items included."""
    if not awaiting and not open_items and not owed:
        items = "item drawn for people" if budget else "planned item"
        return f"Nothing pending: every {items} is judged and every disagreement settled."
    parts = []
    if owed > awaiting:  # some judged items still wait for a planned reviewer
        none = f"; {_plural(awaiting, 'planned item')} with none yet" if awaiting else ""
        parts.append(f"{_plural(owed, 'planned judgment')} not submitted{none}")
    elif awaiting:
        parts.append(f"{_plural(awaiting, 'planned item')} with no submitted judgment")
    if open_items:
        parts.append(f"{_plural(open_items, 'disagreement')} to adjudicate")
    return "Pending: " + ", ".join(parts) + "."


def scope_line(records: DesignRecords, decisions: Decisions, conditions: Sequence[str]) -> str:
    """What was compared, by how many reviewers, on how many items."""
    reviewers = {j.reviewer for js in decisions.latest.values() for j in js}
    drawn = len(_for_people(records)) if records.allocation else None
    return scope_text(
        conditions,
        len(decisions.latest),
        len(reviewers),
        len(records.items),
        drawn,
        records.rubric.preference_only,
    )


def scope_text(
    conditions: Sequence[str],
    judged: int,
    reviewers: int,
    planned: int,
    drawn: int | None,
    pairs: bool,
) -> str:
    """:func:`scope_line` of its counts: items ``judged`` by ``reviewers`` of ``planned``
    (``drawn`` for people under a human budget, None without one); ``pairs``: a preference-only
    design's items are pairs."""
    kind = "pairs" if pairs else "items"
    if drawn is not None:
        return (
            f"Compared {', '.join(conditions) or 'no condition'}: {judged} of "
            f"{drawn} {kind} drawn for people under the human budget "
            f"({planned} planned; the AI judges alone judged the rest) judged blind "
            f"by {_plural(reviewers, 'reviewer')}. The draw favours the items the AI "
            "judges were least sure of, so the counts below are not a random sample; abp-tui "
            "judges gives the estimates weighted by each item's probability."
        )
    return (
        f"Compared {', '.join(conditions) or 'no condition'}: {judged} of "
        f"{planned} planned {kind} judged blind by "
        f"{_plural(reviewers, 'reviewer')}."
    )


def pass_rate_lines(groups: Sequence[GroupResult], level: str) -> list[str]:
    """A rubric design's answer: each condition's pass rate with its interval."""
    lines = []
    for g in groups:
        p = g.pass_rate
        rate = (
            f"{p.x}/{p.n} passed ({_percent(p.point)}, {_interval(p, level)})"
            if p.n
            else "no pass or fail verdict yet"
        )
        lines.append(f"{g.condition}: {rate}.")
    return lines


def headline(
    records: DesignRecords,
    decisions: Decisions,
    conditions: Sequence[GroupResult],
    comparisons: Sequence[Comparison],
    confidence: float,
) -> list[str]:
    """The headline of a design's results (see the module docstring)."""
    return headline_of(
        scope_line(records, decisions, [g.condition for g in conditions]),
        records.rubric.preference_only,
        lambda: ranking_line(records, decisions),
        pending_line(records, decisions),
        conditions,
        comparisons,
        confidence,
    )


def headline_of(
    scope: str,
    preference_only: bool,
    ranking: Callable[[], str | None],
    pending: str,
    conditions: Sequence[GroupResult],
    comparisons: Sequence[Comparison],
    confidence: float,
) -> list[str]:
    """:func:`headline` of its lines: the scope, the ranking (made only for a preference-only
    design) and what is pending."""
    level = f"{confidence * 100:.10g}%"
    lines = [scope]
    preferred = preference_lines(comparisons, level, confidence)
    if preference_only:
        lines += preferred or ["No pair has a preference yet."]
        ranked = ranking()
        if ranked is not None:
            lines.append(ranked)
    else:
        lines += pass_rate_lines(conditions, level) + preferred
    lines.append(pending)
    return lines
