"""The CI regression gate (seed 003 section 10): a run's headline figures against a baseline.

Not the publication gate of seed 000 (:mod:`abp_tui.export.gate`): this one decides whether an
engine got worse than a committed baseline, so that the pull request that degrades it fails the
same day. The semantics are those of Arena's ``arena gate``, the reference harness behind ABP:

- per engine, the pass rate (passed / scored trials; engine errors and other excluded states are
  never a loss) fails when it dropped by more than ``accuracyMaxDropPoints`` (a fraction, 0 by
  default); median total tokens fail past ``tokensMaxIncreasePct`` (10), median cost past
  ``costMaxIncreasePct`` (15); median wall clock and diff size are reported and enforced only
  when a limit is configured (wall clock depends on the machine);
- a run over another task set than the baseline's is refused unless ``allowTaskMismatch``;
- with ``accuracyRequireSignificant`` a drop fails only when it is statistically real. Arena
  asks for the baseline's lower Wilson bound above the new upper bound. When the baseline kept
  its per-trial outcomes and the run shares (task, trial) pairs with it, the drop is decided by
  the exact McNemar test on those paired outcomes instead (more power: the same tasks, so the
  tasks' own difficulty cancels out); each check names the test that decided.

Everything here is pure: the run's facts and the baseline come in, a report goes out.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Final, Literal

from pydantic import ConfigDict, Field, NonNegativeInt
from pydantic.alias_generators import to_camel

from abp_tui.analysis.matched_models import ModelMatch, leading_warnings
from abp_tui.analysis.verdicts import automated_state
from abp_tui.errors import AbpError
from abp_tui.models import Model, ResultState, RunFacts
from abp_tui.stats.inference import Z_95, mcnemar_exact, wilson

BASELINE_SCHEMA: Final = "abp-baseline/v1"
DEFAULT_ALPHA: Final = 0.05

Metric = Literal["pass rate", "median tokens", "median cost", "median wall clock", "median diff"]
Status = Literal["pass", "fail", "warn", "skip"]
SignificanceMethod = Literal["exact McNemar", "Wilson intervals"]


class _Doc(Model):
    """A part of a published document: camelCase on disk, snake_case in code."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )


class TrialOutcome(_Doc):
    """One scored trial: kept in the baseline so that a later run can be paired with it."""

    task: str
    trial: int
    passed: bool


class PassRate(_Doc):
    """passed / scored trials with its Wilson score interval (as abp-verdict/v1's resolveRate)."""

    point: float | None
    """None when no trial was scored."""
    wilson95: tuple[float, float] | None
    z: float = Z_95
    """The normal quantile of the interval (the exact 97.5% quantile; Arena rounds it to 1.96)."""


class EngineFigures(_Doc):
    """An engine's headline figures over one run (the baseline stores these)."""

    engine: str
    """The condition id: the engine (Arena: the adapter, or adapter/model when shared)."""
    model: str | None = None
    scored_trials: NonNegativeInt
    """Trials that passed or failed: the pass rate's denominator."""
    excluded_trials: NonNegativeInt = 0
    """Engine errors and other excluded states: kept out of every figure, never a loss."""
    unjudged_trials: NonNegativeInt = 0
    """Trials with no outcome at all (no automated verification, no state)."""
    passed: NonNegativeInt
    pass_rate: PassRate
    median_tokens_total: float | None = None
    median_cost_usd: float | None = None
    median_wall_clock_ms: float | None = None
    median_diff_bytes: float | None = None
    outcomes: tuple[TrialOutcome, ...] | None = None
    """Per-trial outcomes (sorted by task and trial), or None when the baseline did not keep
    them (the drop is then decided on the intervals alone)."""


class Receipt(_Doc):
    """A file a figure was computed from, with its hash."""

    role: Literal["baseline", "results", "import"]
    path: str
    sha256: str
    bytes: NonNegativeInt | None = None


class RunSource(_Doc):
    """What was measured: an Arena results.json, an ABP run folder or a stored study."""

    kind: Literal["arena-results", "abp-run-folder", "study"]
    id: str
    """The run id (Arena ``runId``, abp-run ``runId``) or the study id."""
    harness: str | None = None


class Baseline(_Doc):
    """``abp-baseline/v1``: the committed snapshot a later run is gated against."""

    schema_name: Literal["abp-baseline/v1"] = Field(default=BASELINE_SCHEMA, alias="schema")
    created_at: str
    source: RunSource
    task_ids: tuple[str, ...]
    """The sorted task ids the baseline was measured on."""
    trials: NonNegativeInt | None = None
    """Trials per task as the run configured them (None when it did not say)."""
    engines: tuple[EngineFigures, ...] = Field(min_length=1)
    receipts: tuple[Receipt, ...] = ()


class GateConfig(_Doc):
    """The gate's thresholds, under Arena's names (an ``arena-gate.json`` reads the same)."""

    accuracy_max_drop_points: float = Field(default=0.0, ge=0, le=1)
    """Largest allowed pass-rate drop, as a fraction (0.05 = five percentage points)."""
    accuracy_require_significant: bool = False
    tokens_max_increase_pct: float | None = Field(default=10.0, ge=0)
    cost_max_increase_pct: float | None = Field(default=15.0, ge=0)
    speed_max_increase_pct: float | None = Field(default=None, ge=0)
    """Wall clock: reported, not enforced, unless a limit is set."""
    diff_bytes_max_increase_pct: float | None = Field(default=None, ge=0)
    allow_task_mismatch: bool = False
    significance_level: float = Field(default=DEFAULT_ALPHA, gt=0, lt=1)
    """Two-sided level of the exact McNemar test (the intervals are 95% Wilson)."""


class RunFigures(Model):
    """A run to gate or to snapshot: its facts reduced to what the gate reads."""

    source: RunSource
    task_ids: tuple[str, ...]
    trials: int | None
    engines: tuple[EngineFigures, ...]
    receipts: tuple[Receipt, ...]
    model_match: ModelMatch | None = None
    """Whether the run's engines ran on the same model (None: not an engine run)."""


class Significance(Model):
    """Whether a pass-rate drop is statistically real, and which test said so."""

    method: SignificanceMethod
    significant: bool
    detail: str
    alpha: float | None = None
    p_value: float | None = None
    """The exact McNemar p-value (None for the interval comparison)."""
    b: int | None = None
    """Paired trials the baseline passed and the run failed."""
    c: int | None = None
    """Paired trials the baseline failed and the run passed."""
    pairs: int | None = None
    baseline_interval: tuple[float, float] | None = None
    current_interval: tuple[float, float] | None = None


class GateCheck(Model):
    metric: Metric
    status: Status
    baseline: float | None
    current: float | None
    limit: float | None
    """The allowed drop (pass rate, a fraction) or increase (%); None when not enforced."""
    detail: str
    significance: Significance | None = None
    decided_by: str | None = None
    """For the pass rate: which rule decided its status (the drop itself, or a test)."""


class EngineGate(Model):
    engine: str
    regressed: bool
    checks: list[GateCheck]


class TaskMismatch(Model):
    baseline_only: list[str]
    run_only: list[str]


class GateReport(Model):
    warnings: list[str] = Field(default_factory=list)
    """What the report leads with: the run's engines did not run on the same model (seed 003
    section 7). Each engine is still gated against its own baseline, which compares no two
    engines."""
    passed: bool
    blockers: list[str]
    """Reasons the run cannot be gated at all (a task-set mismatch, no engine in common)."""
    task_mismatch: TaskMismatch | None
    engines: list[EngineGate]
    unmatched_baseline: list[str]
    """Baseline engines with no counterpart in the run: not checked."""
    new_engines: list[str]
    """Engines of the run that the baseline does not hold: not gated."""
    baseline_source: RunSource
    baseline_created_at: str
    run_source: RunSource
    config: GateConfig
    receipts: list[Receipt]
    """The files compared: the baseline file, then the run's."""
    baseline_receipts: list[Receipt]
    """The files the baseline itself was computed from, as it recorded them."""


# -- figures ---------------------------------------------------------------------------------


def _state(run: RunFacts) -> ResultState | None:
    """Automated verification, else the record's own state (no person judges in CI)."""
    return automated_state(run.automated_outcome) or run.origin_status


def _median(values: Iterable[float | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return float(statistics.median(present)) if present else None


def _pass_rate(passed: int, scored: int, z: float) -> PassRate:
    p = wilson(passed, scored, z)
    interval = (p.low, p.high) if p.low is not None and p.high is not None else None
    return PassRate(point=p.point, wilson95=interval, z=p.z)


def engine_figures(
    runs: Iterable[RunFacts], models: Mapping[str, str | None] | None = None, z: float = Z_95
) -> list[EngineFigures]:
    """Each condition's headline figures, sorted by engine. Medians are over scored trials."""
    by_engine: dict[str, list[RunFacts]] = {}
    for run in runs:
        by_engine.setdefault(run.condition, []).append(run)
    out: list[EngineFigures] = []
    for engine in sorted(by_engine):
        all_runs = by_engine[engine]
        states = [(r, _state(r)) for r in all_runs]
        scored = [(r, s) for r, s in states if s is not None and s.in_quality_denominator]
        excluded = sum(1 for _r, s in states if s is not None and not s.in_quality_denominator)
        passed = sum(1 for _r, s in scored if s is ResultState.MODEL_PASS)
        measured = [r for r, _s in scored]
        outcomes = sorted(
            (
                TrialOutcome(task=r.task, trial=r.trial, passed=s is ResultState.MODEL_PASS)
                for r, s in scored
            ),
            key=lambda o: (o.task, o.trial),
        )
        out.append(
            EngineFigures(
                engine=engine,
                model=(models or {}).get(engine),
                scored_trials=len(scored),
                excluded_trials=excluded,
                unjudged_trials=sum(1 for _r, s in states if s is None),
                passed=passed,
                pass_rate=_pass_rate(passed, len(scored), z),
                median_tokens_total=_median(r.total_tokens for r in measured),
                median_cost_usd=_median(r.cost_usd for r in measured),
                median_wall_clock_ms=_median(r.wall_clock_ms for r in measured),
                median_diff_bytes=_median(r.diff_bytes for r in measured),
                outcomes=tuple(outcomes),
            )
        )
    return out


def build_baseline(run: RunFigures, created_at: str, engine: str | None = None) -> Baseline:
    """The baseline of a run (of one engine of it when ``engine`` is named)."""
    engines = [e for e in run.engines if engine is None or e.engine == engine]
    if not engines:
        known = ", ".join(e.engine for e in run.engines) or "none"
        what = f"no engine {engine!r} in the run" if engine else "the run has no engine"
        raise AbpError(f"baseline: {what} (engines: {known})")
    return Baseline(
        created_at=created_at,
        source=run.source,
        task_ids=tuple(sorted(run.task_ids)),
        trials=run.trials,
        engines=tuple(engines),
        receipts=run.receipts,
    )


# -- checks ----------------------------------------------------------------------------------


def _pct(x: Fraction | float) -> str:
    return f"{float(x) * 100:.1f}%"


def _points(x: Fraction | float) -> str:
    return f"{float(x) * 100:.1f} points"


def _significance(
    base: EngineFigures, current: EngineFigures, alpha: float, z: float
) -> Significance:
    """The exact McNemar test on paired outcomes when the data allow it, else the intervals."""
    note = ""
    if base.outcomes is not None and current.outcomes is not None:
        before = {(o.task, o.trial): o.passed for o in base.outcomes}
        after = {(o.task, o.trial): o.passed for o in current.outcomes}
        shared = before.keys() & after.keys()
        b = sum(1 for k in shared if before[k] and not after[k])
        c = sum(1 for k in shared if after[k] and not before[k])
        test = mcnemar_exact(b, c)
        if shared and test.defined and test.p_value is not None:
            significant = b > c and test.p_value < alpha
            unpaired = len(before) + len(after) - 2 * len(shared)
            left = f"; {unpaired} unpaired trials left out" if unpaired else ""
            return Significance(
                method="exact McNemar",
                significant=significant,
                alpha=alpha,
                p_value=test.p_value,
                b=b,
                c=c,
                pairs=len(shared),
                detail=f"exact McNemar on {len(shared)} paired trials: b = {b} (baseline passed, "
                f"run failed), c = {c}, p = {test.p_value:.4g} "
                f"{'<' if test.p_value < alpha else '>='} {alpha:g}{left}",
            )
        note = (
            "no paired trials; "
            if not shared
            else f"no discordant pairs among {len(shared)} paired trials; "
        )
    else:
        note = "the baseline kept no per-trial outcomes; "
    low_high = wilson(base.passed, base.scored_trials, z)
    cur = wilson(current.passed, current.scored_trials, z)
    assert low_high.low is not None and cur.high is not None  # both have scored trials
    significant = low_high.low > cur.high
    return Significance(
        method="Wilson intervals",
        significant=significant,
        baseline_interval=(low_high.low, low_high.high or 1.0),
        current_interval=(cur.low or 0.0, cur.high),
        detail=f"{note}Wilson 95% intervals: baseline lower bound {low_high.low:.4f} "
        f"{'>' if significant else '<='} run upper bound {cur.high:.4f}",
    )


def check_pass_rate(
    base: EngineFigures, current: EngineFigures, config: GateConfig, z: float = Z_95
) -> GateCheck:
    """Arena's accuracy check, with the paired test when the baseline allows it."""
    if base.scored_trials == 0 or current.scored_trials == 0:
        return GateCheck(
            metric="pass rate",
            status="skip",
            baseline=base.pass_rate.point,
            current=current.pass_rate.point,
            limit=config.accuracy_max_drop_points,
            detail="no scored trials to compare",
        )
    before = Fraction(base.passed, base.scored_trials)
    after = Fraction(current.passed, current.scored_trials)
    drop = before - after
    limit = Fraction(config.accuracy_max_drop_points).limit_denominator(10**9)
    summary = (
        f"{base.passed}/{base.scored_trials} ({_pct(before)}) -> "
        f"{current.passed}/{current.scored_trials} ({_pct(after)})"
    )
    significance = _significance(base, current, config.significance_level, z)
    common = {
        "metric": "pass rate",
        "baseline": float(before),
        "current": float(after),
        "limit": config.accuracy_max_drop_points,
        "significance": significance,
    }
    if drop <= limit:
        how = f"up {_points(-drop)}" if drop < 0 else "within tolerance"
        return GateCheck(
            **common,
            status="pass",
            detail=f"{summary}, {how}",
            decided_by=f"drop {_points(max(drop, Fraction(0)))} <= allowed {_points(limit)}",
        )
    if config.accuracy_require_significant and not significance.significant:
        return GateCheck(
            **common,
            status="warn",
            detail=f"{summary}, down {_points(drop)} but within noise ({significance.detail}); "
            "collect more trials",
            decided_by=significance.method,
        )
    decided = significance.method if config.accuracy_require_significant else "the drop"
    why = f" ({significance.detail})" if config.accuracy_require_significant else ""
    return GateCheck(
        **common,
        status="fail",
        detail=f"{summary}: down {_points(drop)}, more than the {_points(limit)} allowed{why}",
        decided_by=decided,
    )


def _fmt(value: float, unit: str) -> str:
    if unit == "$":
        return f"${value:.4f}"
    if unit == "ms":
        return f"{value / 1000:.2f} s"
    return f"{value:,.0f}{unit}"


def check_increase(
    metric: Metric, base: float | None, current: float | None, limit: float | None, unit: str
) -> GateCheck:
    """A median that must not grow more than ``limit`` percent (None: reported only)."""
    if base is None or current is None or base == 0:
        return GateCheck(
            metric=metric,
            status="skip",
            baseline=base,
            current=current,
            limit=limit,
            detail="no comparable data",
        )
    delta = (current - base) * 100 / base
    summary = f"{_fmt(base, unit)} -> {_fmt(current, unit)} ({delta:+.1f}%)"
    if limit is None:
        status: Status = "warn"
        detail = f"{summary}, not enforced"
    elif delta > limit + 1e-9:
        status, detail = "fail", f"{summary} exceeds +{limit:g}%"
    else:
        status, detail = "pass", f"{summary} within +{limit:g}%"
    return GateCheck(
        metric=metric, status=status, baseline=base, current=current, limit=limit, detail=detail
    )


def _checks(
    base: EngineFigures, cur: EngineFigures, config: GateConfig, z: float
) -> list[GateCheck]:
    return [
        check_pass_rate(base, cur, config, z),
        check_increase(
            "median tokens",
            base.median_tokens_total,
            cur.median_tokens_total,
            config.tokens_max_increase_pct,
            "",
        ),
        check_increase(
            "median cost",
            base.median_cost_usd,
            cur.median_cost_usd,
            config.cost_max_increase_pct,
            "$",
        ),
        check_increase(
            "median wall clock",
            base.median_wall_clock_ms,
            cur.median_wall_clock_ms,
            config.speed_max_increase_pct,
            "ms",
        ),
        check_increase(
            "median diff",
            base.median_diff_bytes,
            cur.median_diff_bytes,
            config.diff_bytes_max_increase_pct,
            " B",
        ),
    ]


def evaluate_gate(
    baseline: Baseline,
    run: RunFigures,
    config: GateConfig,
    engine: str | None = None,
    baseline_receipt: Receipt | None = None,
) -> GateReport:
    """Gate ``run`` against ``baseline`` (only ``engine`` when named)."""
    blockers: list[str] = []
    run_tasks = set(run.task_ids)
    base_tasks = set(baseline.task_ids)
    mismatch = None
    if run_tasks != base_tasks:
        mismatch = TaskMismatch(
            baseline_only=sorted(base_tasks - run_tasks), run_only=sorted(run_tasks - base_tasks)
        )
        if not config.allow_task_mismatch:
            blockers.append(
                "the run's task set differs from the baseline's: pass rates over different "
                "tasks cannot be compared (--allow-task-mismatch to gate anyway)"
            )
    engines: Sequence[EngineFigures] = baseline.engines
    if engine is not None:
        engines = [e for e in engines if e.engine == engine]
        if not engines:
            blockers.append(f"the baseline has no engine {engine!r}")
    current = {e.engine: e for e in run.engines}
    z = baseline.engines[0].pass_rate.z
    gated: list[EngineGate] = []
    unmatched: list[str] = []
    for base in engines:
        cur = current.get(base.engine)
        if cur is None:
            unmatched.append(base.engine)
            continue
        checks = _checks(base, cur, config, z)
        gated.append(
            EngineGate(
                engine=base.engine,
                regressed=any(c.status == "fail" for c in checks),
                checks=checks,
            )
        )
    if not gated and not blockers:
        blockers.append("no engine of the baseline is in the run: nothing to gate")
    in_baseline = {e.engine for e in baseline.engines}
    receipts = [*([baseline_receipt] if baseline_receipt else []), *run.receipts]
    return GateReport(
        warnings=leading_warnings(run.model_match),
        passed=not blockers and not any(g.regressed for g in gated),
        blockers=blockers,
        task_mismatch=mismatch,
        engines=gated,
        unmatched_baseline=unmatched,
        new_engines=sorted(
            e for e in current if e not in in_baseline and (engine is None or e == engine)
        ),
        baseline_source=baseline.source,
        baseline_created_at=baseline.created_at,
        run_source=run.source,
        config=config,
        receipts=receipts,
        baseline_receipts=list(baseline.receipts),
    )


__all__ = [
    "BASELINE_SCHEMA",
    "Baseline",
    "EngineFigures",
    "EngineGate",
    "GateCheck",
    "GateConfig",
    "GateReport",
    "Receipt",
    "RunFigures",
    "RunSource",
    "Significance",
    "TaskMismatch",
    "TrialOutcome",
    "build_baseline",
    "check_increase",
    "check_pass_rate",
    "engine_figures",
    "evaluate_gate",
]
