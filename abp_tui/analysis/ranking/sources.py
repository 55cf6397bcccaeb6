"""What counts as a vote for a ranking, for each source; the sources are never mixed.

- ``verdicts``: a design's final human preferences, one vote per pair: the item's final
  preference (:mod:`abp_tui.analysis.item_preferences`: adjudicated, unanimous or single
  review), exactly what the results' preference tally counts; an item whose reviewers disagree
  and nobody adjudicated is held back (one per item, counted apart).
- ``labels``: every imported annotator's latest label of each pair (PandaLM's three annotators
  are three votes on the pair's task).
- ``judge:ID``: one AI judge's picks on each pair (and turn), combined over the two presentation
  orders: the same pick in both is that pick, a pick that changes when the outputs are swapped
  is a tie (FastChat's convention), a pick in one order only is that pick.

Everywhere: "insufficient evidence" is no vote; a pair of two runs of one condition says nothing
about a ranking; a vote on a run whose content changed since judged the old content. Each is
left out and counted by reason. Pure: the caller reads the records from the store.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from abp_tui.analysis.judges.arrays import NO_RUN, NO_VERDICT, PREFERENCE, TIE_PICK, VerdictTable
from abp_tui.analysis.ranking.fit import A_WON, B_WON, TIE, Votes
from abp_tui.analysis.ranking.models import Excluded
from abp_tui.analysis.verdicts import Decisions
from abp_tui.models import DesignRecords, ItemPreference, PreferenceChoice

I64 = npt.NDArray[np.int64]
Ints = npt.NDArray[np.signedinteger[Any]]
"""Codes in any signed integer type (a large source's columns are held in the smallest)."""
F64 = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

INSUFFICIENT: Final = "insufficient evidence (no vote)"
SAME_CONDITION: Final = "both outputs from one condition"
STALE: Final = "on a run whose content changed since"
UNRESOLVED: Final = "items whose reviewers disagree, not yet adjudicated"
JUDGE_ERROR: Final = "the judge gave no verdict (an error) in either order"
UNKNOWN_RUN: Final = "a run not in the study's current runs"


@dataclass(frozen=True)
class Side:
    """A run as a ranking sees it."""

    task: str
    condition: str
    length: int | None


def _excluded(counts: Counter[str]) -> list[Excluded]:
    return [Excluded(reason=r, votes=n) for r, n in sorted(counts.items()) if n]


def votes_from_columns(
    conditions: Sequence[str],
    task_names: Sequence[str],
    task: Ints,
    system_1: Ints,
    system_2: Ints,
    outcome: Ints,
    length_1: F64,
    length_2: F64,
    keep: Bools,
) -> Votes:
    """Votes from columns over ``conditions`` and ``task_names`` (codes); only the rows in
    ``keep``. Systems and tasks without a kept vote are left out of the votes; the lengths
    may be the given columns themselves (not copies)."""
    # Every row kept (the common case): the columns themselves, not copies of them.
    rows: slice | Ints = slice(None) if keep.all() else np.flatnonzero(keep)
    a, b = system_1[rows], system_2[rows]
    used = np.flatnonzero(
        np.bincount(a, minlength=len(conditions)) + np.bincount(b, minlength=len(conditions))
    )
    recode = np.full(len(conditions), -1, dtype=np.int32)
    order = sorted(used.tolist(), key=lambda c: conditions[c])
    recode[order] = np.arange(len(order), dtype=np.int32)
    # The kept tasks renumbered in their codes' order (what np.unique's inverse gives, without
    # sorting a copy of every vote's task).
    kept = task[rows]
    seen = np.zeros(len(task_names), dtype=bool)
    seen[kept] = True
    renumber = np.cumsum(seen, dtype=np.int32) - 1
    return Votes(
        systems=tuple(conditions[c] for c in order),
        tasks=tuple(task_names[t] for t in np.flatnonzero(seen).tolist()),
        task=renumber[kept],
        a=recode[a],
        b=recode[b],
        outcome=outcome[rows].astype(np.int8),
        length_a=length_1[rows],
        length_b=length_2[rows],
    )


LABEL_OUTCOME: Final = np.array([A_WON, B_WON, TIE, -1], dtype=np.int8)
"""A label's choice (response_1, response_2, tie, insufficient evidence) as an outcome of
response 1 (the vote's a) against response 2."""


def label_votes(
    conditions: Sequence[str],
    task_names: Sequence[str],
    task: Ints,
    condition_1: Ints,
    condition_2: Ints,
    choice: Ints,
    length_1: F64,
    length_2: F64,
    current: Bools,
) -> tuple[Votes, list[Excluded]]:
    """The imported labels as votes (choice codes: response_1, response_2, tie, insufficient)."""
    outcome = LABEL_OUTCOME[choice]
    insufficient = outcome < 0
    same = condition_1 == condition_2
    same &= ~insufficient
    stale = ~current
    stale &= ~insufficient
    stale &= ~same
    keep = ~insufficient
    keep &= ~same
    keep &= ~stale
    counts = Counter(
        {
            INSUFFICIENT: int(insufficient.sum()),
            SAME_CONDITION: int(same.sum()),
            STALE: int(stale.sum()),
        }
    )
    votes = votes_from_columns(
        conditions, task_names, task, condition_1, condition_2, outcome, length_1, length_2, keep
    )
    return votes, _excluded(counts)


def _final_vote(pick: str, runs: tuple[str, str]) -> int | str:
    """An item's final preference as an outcome of runs[0] against runs[1]; a str: excluded."""
    if pick == PreferenceChoice.TIE.value:
        return TIE
    if pick == PreferenceChoice.INSUFFICIENT.value:
        return INSUFFICIENT
    return A_WON if pick == runs[0] else B_WON


class VoteFold:
    """A design's final human preferences folded into votes one pair at a time, what
    :func:`design_votes` counts: a large design's preferences are never all held, only the
    votes (``superseded``: the ids of the runs whose content changed since judged), each as
    a few numbers in typed arrays (its task and systems as codes): the votes
    :meth:`Votes.from_rows` makes of the same rows."""

    def __init__(self, superseded: Container[str]) -> None:
        self.superseded = superseded
        self.counts: Counter[str] = Counter()
        self.tasks: dict[str, int] = {}
        self.systems: dict[str, int] = {}
        self.task: array[int] = array("i")
        self.a: array[int] = array("i")
        self.b: array[int] = array("i")
        self.outcome: array[int] = array("b")
        self.length_a: array[float] = array("d")
        self.length_b: array[float] = array("d")

    def add(self, final: ItemPreference, lengths: tuple[int | None, int | None]) -> None:
        """One pair's final preference, with its runs' output lengths (a, b; None: unknown)."""
        runs = (final.runs[0], final.runs[1])
        if final.preferred is None:
            self.counts[UNRESOLVED] += 1
            return
        vote = _final_vote(final.preferred, runs)
        if isinstance(vote, str):
            self.counts[vote] += 1
        elif final.conditions[0] == final.conditions[1]:
            self.counts[SAME_CONDITION] += 1
        elif runs[0] in self.superseded or runs[1] in self.superseded:
            self.counts[STALE] += 1
        else:
            c, systems = final.conditions, self.systems
            self.task.append(self.tasks.setdefault(final.task, len(self.tasks)))
            self.a.append(systems.setdefault(c[0], len(systems)))
            self.b.append(systems.setdefault(c[1], len(systems)))
            self.outcome.append(vote)
            self.length_a.append(math.nan if lengths[0] is None else float(lengths[0]))
            self.length_b.append(math.nan if lengths[1] is None else float(lengths[1]))

    def votes(self) -> tuple[Votes, list[Excluded]]:
        names = sorted(self.systems)
        recode = np.zeros(len(names), dtype=np.int32)
        recode[[self.systems[n] for n in names]] = np.arange(len(names), dtype=np.int32)
        votes = Votes(
            systems=tuple(names),
            tasks=tuple(self.tasks),
            task=np.array(self.task, dtype=np.int32),
            a=recode[np.frombuffer(self.a, dtype=np.int32)],
            b=recode[np.frombuffer(self.b, dtype=np.int32)],
            outcome=np.array(self.outcome, dtype=np.int8),
            length_a=np.array(self.length_a, dtype=np.float64),
            length_b=np.array(self.length_b, dtype=np.float64),
        )
        return votes, _excluded(self.counts)


def design_votes(
    records: DesignRecords, decisions: Decisions, sides: Mapping[str, Side]
) -> tuple[Votes, list[Excluded]]:
    """A design's final human preferences as votes, one per pair: the item's final preference
    (:mod:`abp_tui.analysis.item_preferences`), as the results' tally counts it."""
    fold = VoteFold(records.superseded)
    for final in decisions.preferences:
        a, b = sides.get(final.runs[0]), sides.get(final.runs[1])
        fold.add(final, (None if a is None else a.length, None if b is None else b.length))
    return fold.votes()


def judge_votes(
    table: VerdictTable, judge: str, sides: Mapping[str, Side]
) -> tuple[Votes, list[Excluded]]:
    """One AI judge's preference verdicts as votes, one per pair (and turn), the two
    presentation orders combined (see the module docstring)."""
    code = table.judges.index(judge)
    mine = np.flatnonzero(
        (table.judge == code) & (table.kind == PREFERENCE) & (table.run_b != NO_RUN)
    )
    run_a, run_b = table.run_a[mine], table.run_b[mine]
    lo, hi = np.minimum(run_a, run_b), np.maximum(run_a, run_b)
    flipped = run_a != lo  # the verdict's a is the unit's second run
    verdict = table.verdict[mine]
    pick = np.where(
        verdict == TIE_PICK, TIE, np.where(verdict < 0, -1, np.where(flipped, 1 - verdict, verdict))
    )
    pick = np.where(verdict == NO_VERDICT, -1, pick)
    shown_first = np.where(table.swapped[mine], run_b, run_a)
    order = (shown_first != lo).astype(np.int64)  # 0: the unit's first run shown first
    n_runs = max(len(table.runs), 1)
    turns = table.turn[mine] + 1
    key = (lo * n_runs + hi) * (int(turns.max(initial=0)) + 1) + turns
    keys, unit = np.unique(key, return_inverse=True)
    picks = np.full((2, keys.size), -2, dtype=np.int64)
    picks[order, unit] = pick
    stale = np.zeros(keys.size, dtype=bool)
    stale[unit[~table.current[mine]]] = True
    first = np.zeros(keys.size, dtype=np.int64)
    second = np.zeros(keys.size, dtype=np.int64)
    first[unit], second[unit] = lo, hi
    p0, p1 = picks
    both = (p0 >= 0) & (p1 >= 0)
    combined = np.where(both, np.where(p0 == p1, p0, TIE), np.maximum(p0, p1))
    side_of = [sides.get(r) for r in table.runs]
    known = np.array([s is not None for s in side_of], dtype=bool)
    none = combined < 0
    unknown = ~none & ~stale & ~(known[first] & known[second])
    keep = ~none & ~stale & ~unknown
    names: dict[str, int] = {}
    cond = np.array(
        [-1 if s is None else names.setdefault(s.condition, len(names)) for s in side_of],
        dtype=np.int64,
    )
    same = keep & (cond[first] == cond[second])
    keep &= ~same
    lengths = np.array(
        [math.nan if s is None or s.length is None else float(s.length) for s in side_of],
        dtype=np.float64,
    )
    task_names: dict[str, int] = {}
    run_task = np.array(
        [-1 if s is None else task_names.setdefault(s.task, len(task_names)) for s in side_of],
        dtype=np.int64,
    )
    counts = Counter(
        {
            JUDGE_ERROR: int(none.sum()),
            STALE: int((~none & stale).sum()),
            UNKNOWN_RUN: int(unknown.sum()),
            SAME_CONDITION: int(same.sum()),
        }
    )
    votes = votes_from_columns(
        tuple(names),
        tuple(task_names),
        run_task[first],
        cond[first],
        cond[second],
        combined,
        lengths[first],
        lengths[second],
        keep,
    )
    return votes, _excluded(counts)
