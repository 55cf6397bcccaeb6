"""A large design's runs and their outcomes, kept on disk, and the rows the results print of
them (one per run, one per task and condition) made as they are read.

:func:`abp_tui.analysis.results.tallies.results` holds a :class:`~abp_tui.models.RunFacts` and a
:class:`~abp_tui.models.RunOutcome` for every run, and a group row for every task and condition:
a model each, several hundred bytes a run. The figures print every outcome and every group row,
but read little of each. :class:`RunTable` reads the runs, in the order results list them, from
a spill (:class:`RunSpill`: the service's temporary database, where the runs and each run judged
by preference alone's pairs were written as they were read) and holds, for each run, only the
index of its outcome among the handful of distinct outcomes a large study has (what an outcome
says besides the run's identity), four bytes a run. :class:`OutcomeRows` and :class:`TaskRows`
make each printed row when it is read, from one pass over the spill. Pure: the spill is given.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final, Protocol

from abp_tui.analysis.made_when_read import MadeWhenRead
from abp_tui.analysis.results.tallies import GroupResult, Paired, group_result
from abp_tui.models import ResultState, Rubric, RunFacts, RunOutcome
from abp_tui.models.base import trusted

OutcomeKey = tuple[Any, ...]
"""What an outcome says besides its run's identity: state, source, human state, automated
state, fatal, and its scores as (dimension, score) pairs in the verdict's order."""

SpilledRun = tuple[str, str, str, int, tuple[Any, ...], int]
"""A run as the spill lists it: id, task id, condition id, trial, its other facts (record
state, automated outcome, exclusion, total tokens, wall clock, cost, diff bytes) and the
sources of its pairs' final preferences as or'ed bits (0: judged by no preference)."""


class RunSpill(Protocol):
    """Where a design's runs and its preference-only runs' pairs are written while its items
    are folded, and read back in the order results list them
    (:class:`abp_tui.store.result_spill.ResultSpill`)."""

    def prefer(self, run: str, bit: int, judgments: int, item: str) -> None: ...

    def open_item(self, code: str) -> None: ...

    def list_item(self, code: str, listed: int) -> None: ...

    def listed(self) -> Iterator[tuple[str, int]]: ...

    def win(self, pair: int, finished: str, place: int, won: str | None) -> None: ...

    def wins(self, pair: int) -> Iterator[tuple[str, int, str | None]]: ...

    def has_wins(self, pair: int) -> bool: ...

    def __len__(self) -> int: ...

    def spans(self) -> dict[str, range]: ...

    def cells(self) -> Iterator[int]: ...

    def rows(self, start: int = 0, stop: int | None = None) -> Iterator[SpilledRun]: ...

    def items(self, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, str, bool]]: ...

    def firsts(self, start: int, stop: int) -> Iterator[tuple[str, int, int]]: ...

    def recorded(self) -> Iterator[SpilledRun]: ...

    def measured(self, start: int, stop: int) -> tuple[int, ...]: ...

    def preferred(self, run: str) -> tuple[int, int, tuple[str, ...]]: ...

    def is_open(self, code: str) -> bool: ...


def outcome_key(o: RunOutcome) -> OutcomeKey:
    return (
        o.state,
        o.source,
        o.human_state,
        o.automated_state,
        o.fatal,
        tuple(o.scores.items()),
    )


def facts_of(row: SpilledRun) -> RunFacts:
    run, task, condition, trial, facts, _bits = row
    origin, automated, excluded, tokens, wall, cost, diff = facts
    return trusted(
        RunFacts,
        id=run,
        task=task,
        condition=condition,
        trial=trial,
        origin_status=origin,
        automated_outcome=automated,
        excluded_reason=excluded,
        total_tokens=tokens,
        wall_clock_ms=wall,
        cost_usd=cost,
        diff_bytes=diff,
    )


class RunTable:
    """The runs in scope (in the order results list them) and, once set, each one's outcome
    (see the module docstring). ``scored_items``: for a run some judgment scored, the codes
    of the items its verdict was made in (None for the runs judged by preference alone, whose
    items the spill holds)."""

    def __init__(
        self,
        spill: RunSpill,
        scored_items: Callable[[str], Sequence[str] | None] = lambda _run: None,
    ) -> None:
        self.spill = spill
        self.scored_items = scored_items
        self.scored = False
        """Whether some judgment scored a run (``scored_items`` then says its items)."""
        self.keys: list[OutcomeKey] = []
        self.outcomes = array("I")

    def __len__(self) -> int:
        return len(self.spill)

    def entries(self, start: int = 0, stop: int | None = None) -> Iterator[tuple[RunFacts, int]]:
        """The runs' facts, each with its pairs' sources (bits)."""
        for row in self.spill.rows(start, stop):
            yield facts_of(row), row[5]

    def runs(self, start: int = 0, stop: int | None = None) -> Iterator[RunFacts]:
        return map(facts_of, self.spill.rows(start, stop))

    def recorded(self) -> Iterator[RunFacts]:
        """The runs whose record carries a state."""
        return map(facts_of, self.spill.recorded())

    def run(self, i: int) -> RunFacts:
        """The facts of the ``i``-th run."""
        return next(self.runs(i, i + 1))

    def set_outcomes(self, outcomes: Iterator[RunOutcome]) -> None:
        """Each run's outcome, in the runs' order (each kept as its shared key's index)."""
        held: dict[OutcomeKey, int] = {}
        self.keys, self.outcomes = [], array("I")
        for o in outcomes:
            key = outcome_key(o)
            at = held.get(key)
            if at is None:
                at = held[key] = len(self.keys)
                self.keys.append(key)
            self.outcomes.append(at)

    def _outcome(self, row: SpilledRun, i: int) -> RunOutcome:
        return _outcome_of(self.keys[self.outcomes[i]], row[0], row[1], row[2], row[3])

    def outcomes_in(self, start: int = 0, stop: int | None = None) -> Iterator[RunOutcome]:
        for i, row in enumerate(self.spill.rows(start, stop), start):
            yield self._outcome(row, i)

    def outcome(self, i: int) -> RunOutcome:
        """The outcome of the ``i``-th run."""
        return next(self.outcomes_in(i, i + 1))

    def state(self, i: int) -> ResultState | None:
        return self.keys[self.outcomes[i]][0]  # type: ignore[no-any-return]

    def source(self, i: int) -> str:
        return self.keys[self.outcomes[i]][1]  # type: ignore[no-any-return]

    def spans(self) -> dict[str, range]:
        """Each condition's runs (the results' order lists them condition by condition)."""
        return self.spill.spans()

    def codes_in(self, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, list[str]]]:
        """Each run from ``start`` to ``stop`` whose outcome is unresolved, by index, with the
        blind codes of the items that leave it so
        (:func:`abp_tui.analysis.results.tallies.unresolved_items`: those of its items whose
        disagreement is open, else every one of them)."""
        if self.scored:  # a run some judgment scored has its verdict's items
            for i, row in enumerate(self.spill.rows(start, stop), start):
                if self.source(i) == "unresolved":
                    found = self.scored_items(row[0])
                    if found is not None:
                        yield i, list(found)
                        continue
                    yield i, self._preferred_codes(row[0])
            return
        at, own = -1, list[tuple[str, bool]]()
        for i, code, is_open in self.spill.items(start, stop):
            if i != at:
                if own:
                    yield at, _codes(own)
                at, own = i, []
            if self.source(i) == "unresolved":
                own.append((code, is_open))
        if own:
            yield at, _codes(own)

    def _preferred_codes(self, run: str) -> list[str]:
        _bits, _judgments, items = self.spill.preferred(run)
        return _codes([(c, self.spill.is_open(c)) for c in items])

    def group(
        self,
        condition: str,
        rows: range,
        rubric: Rubric,
        confidence: float,
        known: Sequence[str] = (),
    ) -> GroupResult:
        """:func:`abp_tui.analysis.results.tallies.group_result` of a condition's runs: their
        tallies from one shared outcome for each distinct outcome (a condition's runs are never
        all made at once), the items of their open disagreements from one pass (each code one
        of ``known``'s, sorted, when it is among them: held once)."""
        shared = [_outcome_of(key) for key in self.keys]
        found = group_result(
            condition,
            None,
            (shared[self.outcomes[i]] for i in rows),
            rubric,
            None,
            confidence,
        )
        if not found.unresolved:
            return found
        codes = _shared(
            sorted({c for _i, own in self.codes_in(rows.start, rows.stop) for c in own}), known
        )
        return trusted(GroupResult, **{**found.__dict__, "unresolved_items": codes})

    def paired(self, rows: range) -> Paired:
        """:func:`abp_tui.analysis.results.tallies.compare`'s pairing of one condition's runs:
        each task and trial's first run by id; an unresolved run has no state."""
        out = _Paired()
        for task, trial, i in self.spill.firsts(rows.start, rows.stop):
            state = None if self.source(i) == "unresolved" else self.state(i)
            if state is None:
                out.unjudged += 1
            else:
                out.kept[(task, trial)] = state
        return out  # type: ignore[return-value]


_NO_SCORES: Final[dict[str, float]] = {}


def _codes(own: list[tuple[str, bool]]) -> list[str]:
    """An unresolved run's items: those whose disagreement is open, else every one."""
    return [c for c, is_open in own if is_open] or [c for c, _ in own]


def _shared(codes: list[str], known: Sequence[str]) -> list[str]:
    """``codes`` (sorted), each one found in ``known`` (sorted) replaced by ``known``'s."""
    at = 0
    for i, code in enumerate(codes):
        while at < len(known) and known[at] < code:
            at += 1
        if at < len(known) and known[at] == code:
            codes[i] = known[at]
    return codes


def _outcome_of(
    key: OutcomeKey, run_id: str = "", task_id: str = "", condition_id: str = "", trial: int = 0
) -> RunOutcome:
    """An outcome saying ``key``: of a run, or of no run in particular (for a group's
    tallies)."""
    state, source, human, automated, fatal, scores = key
    return trusted(
        RunOutcome,
        run_id=run_id,
        task_id=task_id,
        condition_id=condition_id,
        trial=trial,
        state=state,
        source=source,
        human_state=human,
        automated_state=automated,
        fatal=fatal,
        scores=dict(scores) if scores else _NO_SCORES,
    )


class _Paired(Mapping[tuple[str, int], ResultState | None]):
    """A condition's state by task and trial (:data:`abp_tui.analysis.results.tallies.Paired`)
    holding only the keys with a state: the many with none (unjudged, unresolved) are only
    counted, as :func:`abp_tui.stats.inference.paired_pass_fail` counts them, each listed
    under a key of its own that no task and trial has (an empty task, a negative trial)."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str, int], ResultState | None] = {}
        self.unjudged = 0

    def __getitem__(self, key: tuple[str, int]) -> ResultState | None:
        found = self.kept.get(key)
        if found is None and not self._counted(key):
            raise KeyError(key)
        return found

    def _counted(self, key: tuple[str, int]) -> bool:
        return key[0] == "" and -self.unjudged <= key[1] < 0

    def __iter__(self) -> Iterator[tuple[str, int]]:
        yield from self.kept
        for n in range(self.unjudged):
            yield "", -1 - n

    def __len__(self) -> int:
        return len(self.kept) + self.unjudged


class OutcomeRows(MadeWhenRead[RunOutcome]):
    """Each run's outcome, made when it is read."""

    def __init__(self, table: RunTable) -> None:
        self._table = table

    def __len__(self) -> int:
        return len(self._table)

    def _at(self, index: int) -> RunOutcome:
        return self._table.outcome(index)

    def __iter__(self) -> Iterator[RunOutcome]:
        return self._table.outcomes_in()


class TaskRows(MadeWhenRead[GroupResult]):
    """Each condition and task's tallies (:func:`abp_tui.analysis.results.tallies.task_groups`'
    rows, in its order), made when read: the runs are listed condition by condition and task by
    task (natural order), so each cell is a stretch of them (its start held, four bytes a
    cell). The tallies of a set of outcomes are computed once and shared by every cell with the
    same outcomes; a cell's own are its condition, task and the items of its open
    disagreements."""

    def __init__(self, table: RunTable, rubric: Rubric, confidence: float) -> None:
        self._table, self._rubric = table, rubric
        self._confidence = confidence
        starts = array("I", table.spill.cells())
        starts.append(len(table))
        self._starts = starts
        self._tallied: dict[tuple[Any, ...], GroupResult] = {}

    def __len__(self) -> int:
        return len(self._starts) - 1

    def _rows(self, first: int, last: int) -> Iterator[GroupResult]:
        """The rows of cells ``first`` to ``last`` (excluded), from one pass over their runs
        (and one over the items of the unresolved ones)."""
        if first >= last:
            return
        t, starts = self._table, self._starts
        runs = t.spill.rows(starts[first], starts[last])
        codes = t.codes_in(starts[first], starts[last])
        pending = next(codes, None)
        for cell in range(first, last):
            at, end = starts[cell], starts[cell + 1]
            found = [next(runs) for _ in range(at, end)]
            own: set[str] = set()
            while pending is not None and pending[0] < end:
                own.update(pending[1])
                pending = next(codes, None)
            keys = tuple(t.keys[t.outcomes[i]] for i in range(at, end))
            c, task = found[0][2], found[0][1]
            tallied = self._tallied.get(keys)
            if tallied is None:
                outcomes = [t._outcome(row, i) for i, row in enumerate(found, at)]
                tallied = self._tallied[keys] = group_result(
                    c, task, outcomes, self._rubric, None, self._confidence
                )
            listed = sorted(own) if tallied.unresolved else []
            mine = {"condition": c, "task": task, "unresolved_items": listed}
            yield trusted(GroupResult, **{**tallied.__dict__, **mine})

    def _at(self, index: int) -> GroupResult:
        return next(self._rows(index, index + 1))

    def __iter__(self) -> Iterator[GroupResult]:
        return self._rows(0, len(self))


__all__ = [
    "OutcomeKey",
    "OutcomeRows",
    "RunSpill",
    "RunTable",
    "SpilledRun",
    "TaskRows",
    "facts_of",
    "outcome_key",
]
