"""Head-to-head efficiency of two engines in seed 003's strict order (section 4.3).

"Resolution alone is a tie. Diff size, tokens, wall clock, and cost break it" (principle 6):
among the (task, trial) pairs that both engines resolved, the smaller normalised diff wins, then
fewer tokens, then less wall clock, then lower cost. Each pair is decided by the first of those
that differs. A step neither run measured cannot separate them and is passed over; a step only
one of them measured leaves the pair undecided (counted, with the step), since the missing
value might have been the smaller one. Pairs equal on every measured step are ties.

Pairs are formed as the resolution McNemar test forms them (the first run of each task and
trial by run id), so a head-to-head sits beside that test on the same pairs. Excluded runs
(engine errors) and unresolved ones are in no pair: an engine that could not run loses nothing.
Pure: runs and outcomes in, counts out.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Final

from pydantic import Field, NonNegativeInt

from abp_tui.models import Model, ResultState, RunFacts, RunOutcome

STRICT_ORDER: Final = (
    ("diff_bytes", "normalised diff"),
    ("total_tokens", "tokens"),
    ("wall_clock_ms", "wall clock"),
    ("cost_usd", "cost"),
)
"""The tie-breakers in the seed's order: (RunFacts field, how people read it); smaller wins."""

HEAD_TO_HEAD_NOTE: Final = (
    "Head-to-head over the (task, trial) pairs both engines resolved, in seed 003's strict "
    "order: the smaller normalised diff wins, then fewer tokens, then less wall clock, then "
    "lower cost. A step neither run measured is passed over; a step only one measured leaves "
    "the pair undecided. Beside it, the resolution McNemar test on the same pairing."
)


class HeadToHead(Model):
    """Wins, losses and ties of a against b under the strict efficiency order."""

    resolved_pairs: NonNegativeInt
    """(task, trial) pairs both engines resolved: the denominator of every count below."""
    wins_a: NonNegativeInt
    wins_b: NonNegativeInt
    ties: NonNegativeInt
    undecided: NonNegativeInt
    """Pairs where the deciding step was measured for one run only."""
    decided_by: dict[str, NonNegativeInt] = Field(default_factory=dict)
    """Step -> pairs it decided (a's and b's wins together), in the strict order."""
    undecided_by: dict[str, NonNegativeInt] = Field(default_factory=dict)
    """Step -> pairs left undecided because only one run measured it."""


def _resolved(rows: Sequence[tuple[RunFacts, RunOutcome]]) -> dict[tuple[str, int], RunFacts]:
    """Each (task, trial)'s resolved run, the pairing of
    :func:`abp_tui.analysis.results.tallies`."""
    first: dict[tuple[str, int], tuple[RunFacts, RunOutcome]] = {}
    for run, o in sorted(rows, key=lambda ro: ro[1].run_id):
        first.setdefault((o.task_id, o.trial), (run, o))
    return {
        key: run
        for key, (run, o) in first.items()
        if o.source != "unresolved" and o.state is ResultState.MODEL_PASS
    }


def head_to_head(
    rows_a: Sequence[tuple[RunFacts, RunOutcome]], rows_b: Sequence[tuple[RunFacts, RunOutcome]]
) -> HeadToHead:
    """a against b on the pairs both resolved (see the module's docstring for the order)."""
    resolved_a, resolved_b = _resolved(rows_a), _resolved(rows_b)
    shared = sorted(resolved_a.keys() & resolved_b.keys())
    wins_a = wins_b = ties = undecided = 0
    decided_by: dict[str, int] = {}
    undecided_by: dict[str, int] = {}
    for key in shared:
        run_a, run_b = resolved_a[key], resolved_b[key]
        for field, label in STRICT_ORDER:
            value_a, value_b = run_a.metric(field), run_b.metric(field)
            if value_a is None and value_b is None:
                continue
            if value_a is None or value_b is None:
                undecided += 1
                undecided_by[label] = undecided_by.get(label, 0) + 1
                break
            if value_a != value_b:
                if value_a < value_b:
                    wins_a += 1
                else:
                    wins_b += 1
                decided_by[label] = decided_by.get(label, 0) + 1
                break
        else:
            ties += 1
    order = [label for _f, label in STRICT_ORDER]
    return HeadToHead(
        resolved_pairs=len(shared),
        wins_a=wins_a,
        wins_b=wins_b,
        ties=ties,
        undecided=undecided,
        decided_by={k: decided_by[k] for k in order if k in decided_by},
        undecided_by={k: undecided_by[k] for k in order if k in undecided_by},
    )


class EngineMedian(Model):
    """One engine's median of one efficiency measurement, with what it is over."""

    metric: str
    """A RunFacts field: diff_bytes, total_tokens, wall_clock_ms, cost_usd."""
    median: float | None
    """None when no run measured it."""
    n: NonNegativeInt
    """Runs that measured it."""
    missing: NonNegativeInt
    """Runs that count for efficiency but did not measure it."""


class EngineEfficiency(Model):
    """An engine's own efficiency figures: what results keep when engines may not be compared."""

    engine: str
    medians: list[EngineMedian]


def engine_efficiency(engine: str, runs: Sequence[RunFacts]) -> EngineEfficiency:
    """The engine's medians over ``runs`` (those that are measurements: the caller leaves out
    engine errors and other excluded runs), in the strict order's sequence."""
    medians = []
    for field, _label in STRICT_ORDER:
        values = [v for r in runs if (v := r.metric(field)) is not None]
        medians.append(
            EngineMedian(
                metric=field,
                median=statistics.median(values) if values else None,
                n=len(values),
                missing=len(runs) - len(values),
            )
        )
    return EngineEfficiency(engine=engine, medians=medians)


__all__ = [
    "HEAD_TO_HEAD_NOTE",
    "STRICT_ORDER",
    "EngineEfficiency",
    "EngineMedian",
    "HeadToHead",
    "engine_efficiency",
    "head_to_head",
]
