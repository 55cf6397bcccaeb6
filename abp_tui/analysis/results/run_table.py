"""A large design's runs and their outcomes as columns, and the rows the results print of them
(one per run, one per task and condition) made as they are read.

:func:`abp_tui.analysis.results.tallies.results` holds a :class:`~abp_tui.models.RunFacts` and a
:class:`~abp_tui.models.RunOutcome` for every run, and a group row for every task and condition:
a model each, several hundred bytes a run. The figures print every outcome and every group row,
but read little of each: :class:`RunTable` holds, for each run, its id, task, condition and trial
(the task and condition ids shared by every run naming them), its other facts as one tuple (one
shared tuple for the many runs that have none) and its outcome as one tuple of what the outcome
says besides the run's identity (shared by every run with the same outcome: a large study has a
handful). :class:`OutcomeRows` and :class:`TaskRows` make each printed row from these when it is
read. Pure: no database, no files.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, overload

import numpy as np

from abp_tui.analysis.results.tallies import GroupResult, group_result
from abp_tui.models import ResultState, Rubric, RunFacts, RunOutcome
from abp_tui.models.base import trusted
from abp_tui.text.natural import natural_key

_NO_FACTS: Final = (None, None, None, None, None, None, None)
"""The facts of a run with no record state, automated outcome, exclusion or measurement."""

OutcomeKey = tuple[Any, ...]
"""What an outcome says besides its run's identity: state, source, human state, automated
state, fatal, and its scores as (dimension, score) pairs in the verdict's order."""


def outcome_key(o: RunOutcome) -> OutcomeKey:
    return (
        o.state,
        o.source,
        o.human_state,
        o.automated_state,
        o.fatal,
        tuple(o.scores.items()),
    )


class RunTable:
    """The runs in scope (in the order results list them) and, once set, each one's outcome
    (see the module docstring)."""

    def __init__(self, runs: Iterable[RunFacts] = ()) -> None:
        self.ids: list[str] = []
        self.tasks: list[str] = []
        self.conditions: list[str] = []
        self.trials: list[int] = []
        self.facts: list[tuple[Any, ...]] = []
        self.outcomes: list[OutcomeKey] = []
        self._held: dict[Any, Any] = {_NO_FACTS: _NO_FACTS}
        for r in runs:
            facts = (
                r.origin_status,
                r.automated_outcome,
                r.excluded_reason,
                r.total_tokens,
                r.wall_clock_ms,
                r.cost_usd,
                r.diff_bytes,
            )
            self._add(r.id, r.task, r.condition, r.trial, facts)
        self._held = {}

    def _add(self, run: str, task: str, condition: str, trial: int, facts: tuple[Any, ...]) -> None:
        held = self._held
        self.ids.append(run)
        # Task and condition ids, and facts alike, held once for every run naming them.
        self.tasks.append(held.setdefault(("task", task), task))
        self.conditions.append(held.setdefault(("condition", condition), condition))
        self.trials.append(trial)
        self.facts.append(held.setdefault(facts, facts))

    @classmethod
    def in_order(
        cls,
        rows: Iterable[tuple[str, str, str, int, tuple[Any, ...]]],
        keep: Callable[[str, str], bool],
    ) -> RunTable:
        """The runs of ``rows`` (id, task, condition, trial, other facts) whose task and
        condition ``keep`` says, in the order results list them
        (:func:`abp_tui.store.queries.results_order`: condition, task and id in natural order,
        trial), sorted without a key held for every run: each task's place in natural order
        is found once, and runs are told apart by their ids' natural order only where they
        share a condition, task and trial."""
        read = cls()
        for run, task, condition, trial, facts in rows:
            if keep(task, condition):
                read._add(run, task, condition, trial, facts)
        read._held = {}
        if not read.ids:
            return read
        tasks = sorted(set(read.tasks), key=natural_key)
        task_rank = {t: i for i, t in enumerate(tasks)}
        conditions = sorted(set(read.conditions))
        condition_rank = {c: i for i, c in enumerate(conditions)}
        by_task = np.fromiter((task_rank[t] for t in read.tasks), np.int64, len(read.ids))
        by_condition = np.fromiter(
            (condition_rank[c] for c in read.conditions), np.int64, len(read.ids)
        )
        trials = np.fromiter(read.trials, np.int64, len(read.ids))
        del task_rank, condition_rank
        order = np.lexsort((trials, by_task, by_condition))
        keys = np.stack((by_condition[order], by_task[order], trials[order]), axis=1)
        del by_task, by_condition, trials
        same = np.flatnonzero((keys[1:] == keys[:-1]).all(axis=1))
        del keys
        positions = order.tolist()
        del order
        # Runs sharing a condition, task and trial: by their ids' natural order.
        start = 0
        while start < len(same):
            end = start
            while end + 1 < len(same) and same[end + 1] == same[end] + 1:
                end += 1
            first, last = int(same[start]), int(same[end]) + 1
            positions[first : last + 1] = sorted(
                positions[first : last + 1], key=lambda i: natural_key(read.ids[i])
            )
            start = end + 1
        for column in ("ids", "tasks", "conditions", "trials", "facts"):
            values = getattr(read, column)
            setattr(read, column, [values[i] for i in positions])
            del values
        return read

    def __len__(self) -> int:
        return len(self.ids)

    def run(self, i: int) -> RunFacts:
        """The facts of the ``i``-th run."""
        origin, automated, excluded, tokens, wall, cost, diff = self.facts[i]
        return trusted(
            RunFacts,
            id=self.ids[i],
            task=self.tasks[i],
            condition=self.conditions[i],
            trial=self.trials[i],
            origin_status=origin,
            automated_outcome=automated,
            excluded_reason=excluded,
            total_tokens=tokens,
            wall_clock_ms=wall,
            cost_usd=cost,
            diff_bytes=diff,
        )

    def runs(self, rows: Iterable[int] | None = None) -> Iterator[RunFacts]:
        return map(self.run, range(len(self)) if rows is None else rows)

    def set_outcomes(self, outcomes: Iterable[RunOutcome]) -> None:
        """Each run's outcome, in the runs' order (each kept as its shared key)."""
        held: dict[OutcomeKey, OutcomeKey] = {}
        self.outcomes = []
        for o in outcomes:
            key = outcome_key(o)
            self.outcomes.append(held.setdefault(key, key))

    def outcome(self, i: int) -> RunOutcome:
        """The outcome of the ``i``-th run."""
        state, source, human, automated, fatal, scores = self.outcomes[i]
        return trusted(
            RunOutcome,
            run_id=self.ids[i],
            task_id=self.tasks[i],
            condition_id=self.conditions[i],
            trial=self.trials[i],
            state=state,
            source=source,
            human_state=human,
            automated_state=automated,
            fatal=fatal,
            scores=dict(scores) if scores else _NO_SCORES,
        )

    def state(self, i: int) -> ResultState | None:
        return self.outcomes[i][0]  # type: ignore[no-any-return]

    def source(self, i: int) -> str:
        return self.outcomes[i][1]  # type: ignore[no-any-return]

    def spans(self) -> dict[str, range]:
        """Each condition's runs (the results' order lists them condition by condition)."""
        out: dict[str, range] = {}
        start = 0
        for i in range(1, len(self) + 1):
            if i == len(self) or self.conditions[i] != self.conditions[start]:
                condition = self.conditions[start]
                if condition in out:  # not condition by condition: never so when read in order
                    raise ValueError(f"the runs of condition {condition!r} are not together")
                out[condition] = range(start, i)
                start = i
        return out


_NO_SCORES: Final[dict[str, float]] = {}


class OutcomeRows(Sequence[RunOutcome]):
    """Each run's outcome, made when it is read."""

    def __init__(self, table: RunTable) -> None:
        self._table = table

    def __len__(self) -> int:
        return len(self._table)

    @overload
    def __getitem__(self, index: int) -> RunOutcome: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[RunOutcome]: ...

    def __getitem__(self, index: int | slice) -> RunOutcome | Sequence[RunOutcome]:
        if isinstance(index, slice):
            return [self._table.outcome(i) for i in range(len(self))[index]]
        return self._table.outcome(range(len(self))[index])

    def __iter__(self) -> Iterator[RunOutcome]:
        return map(self._table.outcome, range(len(self)))


class TaskRows(Sequence[GroupResult]):
    """Each condition and task's tallies (:func:`abp_tui.analysis.results.tallies.task_groups`'
    rows, in its order), made when read: the runs are listed condition by condition and task by
    task (natural order), so each cell is a stretch of them. The tallies of a set of outcomes
    are computed once and shared by every cell with the same outcomes; a cell's own are its
    condition, task and the items of its open disagreements (``open_items``: run id -> blind
    codes, for the unresolved runs)."""

    def __init__(
        self,
        table: RunTable,
        rubric: Rubric,
        open_items: Mapping[str, Sequence[str]],
        confidence: float,
    ) -> None:
        self._table, self._rubric, self._open = table, rubric, open_items
        self._confidence = confidence
        starts = array("q")
        for i in range(len(table)):
            if (
                i == 0
                or table.conditions[i] != table.conditions[i - 1]
                or table.tasks[i] != table.tasks[i - 1]
            ):
                starts.append(i)
        starts.append(len(table))
        self._starts = starts
        self._tallied: dict[tuple[Any, ...], GroupResult] = {}

    def __len__(self) -> int:
        return len(self._starts) - 1

    def _row(self, cell: int) -> GroupResult:
        t = self._table
        rows = range(self._starts[cell], self._starts[cell + 1])
        c, task = t.conditions[rows.start], t.tasks[rows.start]
        key = tuple(t.outcomes[i] for i in rows)
        found = self._tallied.get(key)
        outcomes = [t.outcome(i) for i in rows]
        if found is None:
            found = self._tallied[key] = group_result(
                c, task, outcomes, self._rubric, self._open, self._confidence
            )
        codes = (
            sorted(
                {
                    code
                    for o in outcomes
                    if o.source == "unresolved"
                    for code in self._open.get(o.run_id, ())
                }
            )
            if found.unresolved
            else found.unresolved_items
        )
        own = {"condition": c, "task": task, "unresolved_items": codes}
        return trusted(GroupResult, **{**found.__dict__, **own})

    @overload
    def __getitem__(self, index: int) -> GroupResult: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[GroupResult]: ...

    def __getitem__(self, index: int | slice) -> GroupResult | Sequence[GroupResult]:
        if isinstance(index, slice):
            return [self._row(i) for i in range(len(self))[index]]
        return self._row(range(len(self))[index])

    def __iter__(self) -> Iterator[GroupResult]:
        return map(self._row, range(len(self)))


__all__ = ["OutcomeKey", "OutcomeRows", "RunTable", "TaskRows", "outcome_key"]
